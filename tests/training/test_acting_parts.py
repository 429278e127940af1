"""``uno-env bench parts``: a native PPO run with its parts timed, the trainer's functions restored afterwards."""
from __future__ import annotations

from train.app.cli import main
from train.benchmark import parts
from train.collect.collector import LocalCollector
from train.ppo import trainer
from uno_env.vector import VectorGames


def test_every_part_is_timed_in_one_run_and_the_trainer_is_left_as_it_was():
    before = (VectorGames.step, LocalCollector.submit, trainer.Learner.act, trainer.ppo_update)
    figures = parts.measure("classic", 2, [16], [8], steps=400, rounds=1)
    assert (VectorGames.step, LocalCollector.submit, trainer.Learner.act, trainer.ppo_update) == before
    assert list(figures) == ["sb3's league, 8 games", "every seat learning, 8 games"]
    for rows in figures.values():
        assert len(rows) == 1 and set(rows[0]) == {*parts.PARTS, "rest", "total", "samples/s"}


def test_a_part_is_its_own_time_less_the_parts_called_inside_it():
    clock = parts.PartClock()
    calls = []
    inner = clock.wrap(lambda: calls.append("inner"), "encode")
    outer = clock.wrap(lambda: (inner(), inner(), calls.append("outer")), "engine")
    outer()
    assert calls == ["inner", "inner", "outer"]
    assert set(clock.seconds) == set(parts.PARTS) and clock.stack == []


def test_the_command_prints_a_row_per_league_and_games(capsys):
    assert main(["bench", "parts", "--players", "2", "--net", "16", "--games", "8", "--native-steps", "300",
                 "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "sb3's league, 8 games" in out and "every seat learning, 8 games" in out
    for column in ("engine", "encode", "mask", "opponents", "forward", "bookkeep", "update", "samples/s"):
        assert column in out
