"""Tournaments, game records and replay, and human play driven through its input."""
from __future__ import annotations

import io
import json
import re
from collections import Counter

import pytest

from train.app.cli import main
from train.app.play.terminal import Terminal, play_session
from train.evaluation.report import write_outputs
from train.evaluation.tournament import run_tournament, schedule
from uno_env import Game, RuleSet
from uno_env.records import RecordError, read_records, replay


@pytest.mark.parametrize("agents, players, games",
                         [(3, 2, 10), (4, 3, 30), (3, 3, 3), (2, 2, 7), (2, 4, 5), (2, 3, 6), (5, 5, 12), (7, 6, 1)])
def test_schedule_gives_every_agent_the_same_games_and_seats(agents, players, games):
    seatings = schedule(agents, players, games)
    assert len(seatings) >= games
    per_seat = Counter((a, seat) for s in seatings for seat, a in enumerate(s))
    counts = {per_seat[(a, seat)] for a in range(agents) for seat in range(players)}
    assert len(counts) == 1 and counts != {0}
    after = Counter((s[i], s[(i + 1) % players]) for s in seatings for i in range(players) if s[i] != s[(i + 1) % players])
    assert all(after[(a, b)] == after[(b, a)] for a, b in after)  # nobody always sits right after someone


def test_fewer_agents_than_seats_are_balanced_and_rated():
    summary = run_tournament(RuleSet.create("classic", 3), ["random", "heuristic"], 6, seed=0, workers=1,
                             progress=False)
    games = {a["agent"]: a["games"] for a in summary["agents"]}
    assert games["random"] == games["heuristic"]
    mus = {a["agent"]: a["rating"]["mu"] for a in summary["agents"]}
    assert mus["heuristic"] > 25.0 > mus["random"]


def test_results_do_not_depend_on_the_worker_count():
    rules = RuleSet.create("classic", 2)
    one = run_tournament(rules, ["heuristic", "greedy", "random"], 24, seed=5, workers=1, progress=False)
    two = run_tournament(rules, ["heuristic", "greedy", "random"], 24, seed=5, workers=2, progress=False)
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_tournament_outputs(tmp_path):
    rules = RuleSet.create("classic", 2)
    summary = run_tournament(rules, ["heuristic", "random"], 40, seed=0, workers=1, progress=False,
                             record_dir=str(tmp_path / "rec"))
    paths = write_outputs(summary, str(tmp_path / "out"))
    data = json.load(open(paths[0]))
    heur = next(a for a in data["agents"] if a["agent"] == "heuristic")
    assert heur["games"] == 40 and heur["games_per_seat"] == [20, 20]
    assert heur["win_rate"] > 0.62 and heur["win_rate_ci95"][0] < heur["win_rate"] <= heur["win_rate_ci95"][1]
    assert heur["rating"]["mu"] > next(a for a in data["agents"] if a["agent"] == "random")["rating"]["mu"]
    assert sum(map(sum, data["head_to_head"]["wins"])) == 40
    assert "| heuristic | 40 |" in open(paths[1]).read()
    assert open(paths[2], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    records = list(read_records(open(tmp_path / "rec" / "games.jsonl")))
    assert len(records) == 40
    for rec in records[:5]:  # replaying reproduces the same states
        game = Game(RuleSet.from_dict(rec.rules))
        direct = game.new_state(rec.seed)
        for g, state, action in replay(rec):
            if action is not None:
                game.step(direct, action["action"])
            assert g.to_spec(state) == game.to_spec(direct)
        assert state.is_over and state.winner == rec.outcome["winner"]


def test_replay_detects_a_tampered_record(tmp_path):
    rules = RuleSet.create("classic", 2)
    run_tournament(rules, ["heuristic", "random"], 2, seed=0, workers=1, progress=False, record_dir=str(tmp_path))
    rec = next(read_records(open(tmp_path / "games.jsonl")))
    rec.actions[3]["seat"] = 1 - rec.actions[3]["seat"]
    with pytest.raises(RecordError, match="action 3"):
        list(replay(rec))
    with pytest.raises(RecordError, match="line 1"):
        list(read_records(io.StringIO('{"type": "action"}\n')))


def test_cli_eval_replay_and_errors(tmp_path, capsys):
    out, rec = str(tmp_path / "o"), str(tmp_path / "r")
    assert main(["eval", "--agents", "greedy", "random", "--games", "6", "--out", out, "--record", rec,
                 "--workers", "1", "--no-progress"]) == 0
    assert "| greedy |" in capsys.readouterr().out
    assert main(["replay", rec + "/games.jsonl", "--game", "2"]) == 0
    assert "game 2:" in capsys.readouterr().out
    assert main(["eval", "--agents", "greedy", "genius", "--games", "2", "--out", out, "--workers", "1",
                 "--no-progress"]) == 2
    assert "uno-env eval: error: unknown agent spec 'genius'" in capsys.readouterr().err


def _session(inputs: str, **kw):
    out = io.StringIO()
    term = Terminal(io.StringIO(inputs), out, colour=False)
    winner = play_session(RuleSet.create(kw.pop("variant", "classic"), kw.pop("players", 2), kw.pop("options", {})),
                          kw.pop("opponents", ["random"]), kw.pop("seat", 0), kw.pop("seed", 3), term, **kw)
    return winner, out.getvalue()


def test_play_through_standard_input_to_the_end(tmp_path):
    record = str(tmp_path / "human.jsonl")
    winner, text = _session("1\n" * 400, record_path=record)
    assert winner is not None and ("you win" in text or "wins with" in text)
    assert "your hand:" in text and "-- your decision (TURN) --" in text and "  1) " in text
    rec = next(read_records(open(record)))
    assert rec.players == ["human", "random"] and rec.outcome["winner"] == winner
    list(replay(rec))


def test_play_reprompts_on_bad_input_and_accepts_card_notation():
    game = Game("classic", num_players=2)
    state = game.new_state(3)
    while state.current_seat != 0:  # the opponent (seat 1) may start: find the person's first view
        game.step(state, game.legal_actions(state)[-1])
    first_play = next(a for a in game.legal_actions(state) if a < game.num_kinds)
    card = game.card_name(first_play)
    _, text = _session(f"x\n99\n²\nplay Q9\n{card}\nquit\n")
    assert text.count("not an option here") == 4
    assert f"you: play {card}" in text and "you left the game" in text


def test_play_shows_no_opponent_cards():
    game = Game("classic", num_players=3)
    _, text = _session("1\n" * 400, players=3, opponents=["heuristic"], options={"uno_call": "explicit"})
    for line in text.splitlines():
        if line.startswith(("your hand:", "  ")):  # own hand and own options
            continue
        words = line.replace(";", " ").replace(":", " ").split()
        for i, word in enumerate(words):
            try:
                game.parse_card(word)
            except ValueError:
                continue
            # any other card named is face up: a card being played, or the top card
            assert i > 0 and words[i - 1] in ("play", "top"), line


def test_play_does_not_narrate_declined_opportunities():
    _, text = _session("1\n" * 600, players=3, opponents=["random"],
                       options={"jump_in": "on", "stacking": "any", "multi_play": "on"}, seed=0)
    assert ": pass" not in text and ": accept" not in text


def test_play_sub_decisions_are_asked():
    # explicit UNO calls and a colour choice come up in a longer game
    _, text = _session("2\n1\n" * 600, players=2, options={"uno_call": "explicit"}, seed=11)
    assert "your decision (CHOOSE_COLOUR)" in text and "your decision (UNO_CALL)" in text


def test_play_flex_shows_power_cards_and_offers_flex_plays():
    _, text = _session("1\n" * 600, players=3, opponents=["heuristic"], variant="flex", seed=2)
    assert "power cards: you ✓" in text
    assert re.search(r"^  \d+\) play \S+ flex$", text, re.M)  # a FLEX-mode play was offered to the person


def test_play_flip_shows_back_faces_of_others_only():
    _, text = _session("1\n" * 800, players=3, opponents=["heuristic"], variant="flip", seed=2)
    assert "active side A (AUTOBOTS)" in text and "active side D (DÉCEPTICONS)" in text
    assert "P1's back faces: " in text and "P0's back faces" not in text  # never the person's own backs
    assert "draw pile top's back face: " in text and "last duel (" in text
    assert re.search(r"^top (A:|D:|OPT|W\+2|MEG|WDC)\S*   colour", text, re.M)  # the top shows its active face only
    assert "|" not in "\n".join(line for line in text.splitlines() if line.startswith(("top ", "your hand")))


def test_play_attack_shows_the_launcher_and_offers_press():
    _, text = _session("1\n" * 800, players=3, opponents=["heuristic"], variant="attack", seed=2)
    assert "launcher " in text and re.search(r"^  \d+\) press$", text, re.M)
    assert "presses" in text
