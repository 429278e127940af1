"""The ``uno-env`` command line: the demo (the README's main job) and the bench command run."""
from __future__ import annotations

from train.app.cli import main


def test_demo_plays_one_game_to_the_end(capsys):
    assert main(["demo", "--variant", "alphabet", "--players", "3", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "Game('alphabet', num_players=3)" in out
    assert "wins after" in out or "no winner" in out
    assert out.count("\n") > 20


def test_demo_is_deterministic_and_accepts_options(capsys):
    main(["demo", "--seed", "4", "--option", "stacking=any", "--option", "jump_in=true"])
    first = capsys.readouterr().out
    main(["demo", "--seed", "4", "--option", "stacking=any", "--option", "jump_in=true"])
    assert capsys.readouterr().out == first
    assert "stacking='any'" in first and "jump_in='on'" in first


def test_bench_prints_a_row_per_measurement(capsys):
    assert main(["bench", "engine", "--seconds", "0.2", "--players", "2"]) == 0
    out = capsys.readouterr().out
    assert "uno_env python classic 2p" in out and "games/s" in out and "dec/s" in out
    # the core beside the Python engine: through the same facade and playing whole games
    assert "uno_env native classic 2p" in out and "core whole games classic 2p" in out
    assert "x the Python engine per game" in out


def test_bench_env_prints_aec_and_gymnasium_rows(capsys):
    assert main(["bench", "env", "--seconds", "0.2", "--players", "2"]) == 0
    out = capsys.readouterr().out
    assert "uno_env AEC classic 2p" in out and "uno_env AEC raw classic 2p" in out
    assert "uno_env AEC classic 2p, python engine" in out
    assert "gymnasium classic 2p" in out


def test_bench_encode_prints_the_reference_batched_and_core_writers(capsys):
    assert main(["bench", "encode", "--players", "2", "--games", "4", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "core on the same games" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("part"))
    assert header.split() == ["part", "reference", "batched", "faster", "core", "faster"]
    assert "legal ids (the engine's, both)" in out and "in step" in out
