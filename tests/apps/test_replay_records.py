"""``uno-env replay`` and the browser's replay viewer on the records people actually have: a record cut
short (a crash while writing, a partial copy), a tournament's games-played stream, and what a replay
shows before the first decision (the starting hands and the starter, as ``uno-env demo`` shows them)."""
from __future__ import annotations

import json
import warnings

import pytest

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2 in its test client; httpx works the same here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import agents
from uno_env import Game
from uno_env.records import Recorder, outcome_of
from train.app.cli import main
from train.app.play.demo import colour_text
from train.app.serve.app import build_app

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")


def record_lines(variant: str = "classic", players: int = 2, seed: int = 3) -> list[str]:
    """The lines of one finished game of random players (header, decisions, outcome)."""
    game = Game(variant, players)
    policies = [agents.load("random", game, seed=seed + q) for q in range(players)]
    state = game.new_state(seed)
    recorder = Recorder(game, seed, [f"random{q}" for q in range(players)])
    while not state.is_over:
        recorder.step(state, policies[state.current_seat].act(None, game.legal_action_mask(state)))
    assert len(recorder.record.actions) > 12
    return [json.dumps(obj) + "\n" for obj in recorder.finish(state).lines()]


def replay_cli(capsys, path, *argv) -> tuple[int, str, str]:
    status = main(["replay", str(path), *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def one_error_line(err: str, *words: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("uno-env replay: error: "), err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


# ---------------------------------------------------------------- 3: a record cut before its outcome line


def test_a_record_cut_mid_game_is_unfinished_and_exits_2(tmp_path, capsys):
    lines = record_lines()
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(lines[:11]))  # the header and ten decisions: the game runs on
    status, out, err = replay_cli(capsys, path)
    assert status == 2
    assert "unfinished record: it stops after 10 decisions, before the game's outcome line" in out
    assert "no winner" not in out and "blocked" not in out and "wins" not in out
    one_error_line(err, "cut.jsonl", "game 0 is unfinished")


def test_a_record_cut_just_before_its_outcome_line_shows_the_end_and_says_it_is_unfinished(tmp_path, capsys):
    lines = record_lines()
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(lines[:-1]))  # every decision: the replay reaches the end, the record does not say it
    status, out, err = replay_cli(capsys, path)
    steps = json.loads(lines[-1])["steps"]
    winner = json.loads(lines[-1])["winner"]
    assert status == 2 and f"P{winner} wins after {steps} decisions" in out
    assert f"unfinished record: it stops after {steps} decisions, before the game's outcome line" in out
    one_error_line(err, "game 0 is unfinished")


def test_the_games_after_an_unfinished_one_are_still_printed(tmp_path, capsys):
    lines = record_lines()
    path = tmp_path / "appended.jsonl"
    path.write_text("".join(lines[:6]) + "".join(lines))  # a crash mid-game, then a whole game appended
    status, out, err = replay_cli(capsys, path)
    assert status == 2 and "game 1: classic" in out and out.count("unfinished record") == 1
    one_error_line(err, "game 0 is unfinished")
    status, out, err = replay_cli(capsys, path, "--game", "1")
    assert status == 0 and "unfinished" not in out and err == ""


def test_a_whole_record_replays_with_status_0(tmp_path, capsys):
    path = tmp_path / "whole.jsonl"
    path.write_text("".join(record_lines()))
    status, out, err = replay_cli(capsys, path)
    assert status == 0 and "unfinished" not in out and err == ""


def test_an_outcome_line_before_the_game_is_over_is_unfinished_too(tmp_path, capsys):
    lines = record_lines()
    game = Game("classic", 2)
    state = game.new_state(3)
    for line in lines[1:11]:
        game.step(state, json.loads(line)["action"])
    forged = json.dumps({"type": "outcome", **outcome_of(state)}) + "\n"  # what a running game's outcome reads
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(lines[:11]) + forged)
    status, out, err = replay_cli(capsys, path)
    assert status == 2 and "before the game is over" in out and "blocked" not in out
    one_error_line(err, "game 0 is unfinished")


def test_the_viewer_says_a_cut_record_is_unfinished_and_never_contradicts_itself():
    lines = record_lines()
    c = TestClient(build_app(), base_url="http://127.0.0.1")
    r = c.post("/api/replay", json={"text": "".join(lines[:11])})
    assert r.status_code == 200, r.text
    page = r.json()
    result = page["result"]
    assert result["text"] == "unfinished record: it stops after 10 decisions, before the game's outcome line"
    assert result["unfinished"] is True and result["winner"] is None
    assert result["blocked"] is False and result["truncated"] is False
    assert page["games"][0]["unfinished"] is True
    whole = c.post("/api/replay", json={"text": "".join(lines)}).json()
    assert whole["result"]["unfinished"] is False and "wins" in whole["result"]["text"]
    over = c.post("/api/replay", json={"text": "".join(lines[:-1])}).json()["result"]
    assert over["unfinished"] is True and "wins" in over["text"] and "unfinished record" in over["text"]


# ---------------------------------------------------------------- 6: a tournament's stream names what replays


def test_a_games_played_stream_says_how_to_get_a_replayable_file(tmp_path, capsys):
    out_dir, record_dir = tmp_path / "results", tmp_path / "games"
    assert main(["eval", "--agents", "random", "greedy", "--games", "2", "--workers", "1", "--no-progress",
                 "--out", str(out_dir), "--record", str(record_dir)]) == 0
    capsys.readouterr()
    status, out, err = replay_cli(capsys, out_dir / "games-played.jsonl")
    assert status == 2 and out == ""
    one_error_line(err, "games-played stream", "--record DIR", "DIR/games.jsonl")
    status, out, err = replay_cli(capsys, record_dir / "games.jsonl", "--game", "1")  # what the message names
    assert status == 0 and "game 1: classic" in out and err == ""


# ---------------------------------------------------------------- 7: a replay starts with the deal


@pytest.mark.parametrize("variant, players", [("classic", 2), ("flip", 3)])
def test_a_replay_starts_with_the_hands_and_the_starter_as_demo_shows_them(tmp_path, capsys, variant, players):
    lines = record_lines(variant, players, seed=5)
    path = tmp_path / "game.jsonl"
    path.write_text("".join(lines))
    status, out, _ = replay_cli(capsys, path)
    assert status == 0
    game = Game(variant, players)
    state = game.new_state(5)
    spec = game.to_spec(state)
    printed = out.splitlines()
    assert printed[0].startswith(f"game 0: {variant}, {players} players, seed 5;")
    assert printed[0].endswith(f"dealer P{state.dealer}")
    assert printed[1:players + 1] == [f"  P{q}: {' '.join(game.hand_cards(state, q))}" for q in range(players)]
    assert printed[players + 1] == f"  starter {spec['discard'][-1]} (colour {colour_text(spec['colour'])})"
    first = json.loads(lines[1])
    assert f"P{first['seat']} {first['phase']}" in printed[players + 3]  # after a blank line, the first decision
