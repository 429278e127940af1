"""Opponents by strength (``level:<name>``, agents/levels.py): every level loads, the shipped measurements are of
the specs the levels play, and the play tools show each level's measured win rate."""
from __future__ import annotations

import io
import json
import warnings

import pytest

import agents
from agents.levels import LEVELS, MEASURED, measured, rate_line
from agents.search import ISMCTSAgent
from train.app.cli import main
from train.app.play.terminal import Terminal, play_session
from uno_env import Game, RuleSet
from uno_env.variants.registry import VARIANTS

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2 in its test client; httpx works the same here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.mark.parametrize("name", list(LEVELS))
def test_every_level_loads_the_agent_of_its_spec(name):
    g = Game("classic", 3)
    agent = agents.load(f"level:{name}", g, seed=0)
    same = agents.load(LEVELS[name].spec, g, seed=0)
    assert type(agent) is type(same)
    if isinstance(agent, ISMCTSAgent):
        assert agent.options == same.options


def test_an_unknown_level_names_the_levels():
    with pytest.raises(agents.AgentSpecError, match="did you mean 'expert'.*level:easy, level:medium"):
        agents.load("level:exprt", Game("classic", 2))


def test_levels_are_ordered_and_the_search_levels_are_reproducible():
    """Weakest first; a search level is bounded by iterations (a time bound may only cap a slow machine)."""
    assert list(LEVELS) == ["easy", "medium", "hard", "expert"]
    for level in LEVELS.values():
        if level.spec.startswith("ismcts"):
            options = agents.parse_options(level.spec.removeprefix("ismcts").removeprefix(":"))
            assert options["iterations"] <= 20_000 and (options["time"] == 0 or options["time"] >= 0.5)


def test_the_shipped_measurements_are_of_the_levels_specs_at_every_table():
    """A level whose spec changed must be measured again (docs/results/tools/levels.py): its old figure is of
    another agent."""
    tables = measured()
    with open(MEASURED, encoding="utf-8") as fh:
        assert json.load(fh)["seed"] == 900_000
    expected = {f"{variant}-{players}p" for variant in VARIANTS for players in (2, 4)}
    assert set(tables) == expected
    for table, rows in tables.items():
        assert set(rows) == set(LEVELS), table
        for name, row in rows.items():
            assert row["spec"] == LEVELS[name].spec, (table, name)
            assert 0 <= row["low"] <= row["win_rate"] <= row["high"] <= 1 and row["games"] >= 200


def test_the_rate_line_says_what_was_measured_or_that_nothing_was():
    table = {"classic-2p": {"hard": {"win_rate": 0.634, "low": 0.6, "high": 0.66, "games": 1200}}}
    line = rate_line("hard", "classic", 2, table)
    assert line.startswith(f"hard ({LEVELS['hard'].spec}") and "wins 63% of games against heuristic" in line
    assert "(60%-66%, 1,200 games)" in line
    assert rate_line("hard", "flip", 3, table).endswith("not measured in flip 3p")


def test_play_shows_the_level_and_its_rate():
    out = io.StringIO()
    play_session(RuleSet.create("classic", 2), ["level:easy"], 0, 3, Terminal(io.StringIO("quit\n"), out, colour=False))
    assert rate_line("easy", "classic", 2) in out.getvalue()


def test_play_level_and_opponents_are_one_choice(capsys):
    assert main(["play", "--level", "easy", "--opponents", "random"]) == 2
    assert "--level and --opponents" in capsys.readouterr().err


def test_the_browser_offers_the_levels_with_their_rates():
    from train.app.serve.app import build_app

    c = TestClient(build_app(None), base_url="http://127.0.0.1")
    cfg = c.get("/api/config").json()
    assert [s for s in cfg["agents"] if s.startswith("level:")] == [f"level:{n}" for n in LEVELS]
    assert cfg["levels"]["expert"]["spec"] == LEVELS["expert"].spec and cfg["level_rates"] == measured()
    r = c.post("/api/games", json={"variant": "classic", "players": 2, "seed": 1, "opponents": ["level:hard"]})
    assert r.status_code == 200, r.text
    r = c.post("/api/games", json={"variant": "classic", "players": 2, "seed": 1, "opponents": ["level:grandmaster"]})
    assert r.status_code == 400 and "no level 'grandmaster'" in r.json()["error"]
