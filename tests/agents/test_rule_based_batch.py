"""``act_batch`` of ``random``, ``greedy`` and ``heuristic``: the compiled core's twins (uno_env/core/agents.cpp)
decide every row as ``act`` does, drawing the same numbers from the agent's generator, in every variant and phase."""
from __future__ import annotations

import numpy as np
import pytest

import agents
from uno_env import VARIANTS, core
from uno_env.vector import VectorGames

from native_diff import OPTION_SETS, TABLES  # tests/native_diff.py

pytestmark = pytest.mark.skipif(not core.available(), reason="needs the compiled core (pip install -e .)")


def rows_of_games(variant: str, players: int, options: dict, steps: int = 120, games: int = 16):
    """Observation rows and masks of the deciding seats over whole games (greedy playing), every phase met."""
    vec = VectorGames(games, variant, num_players=players, backend="python", **options)
    _, obs, mask = vec.reset(seed=3)
    player = agents.load("greedy", vec.game, seed=1)
    rows, masks = [], []
    for _ in range(steps):
        rows.append(obs.copy())
        masks.append(mask.copy())
        actions = [player.act(obs[i], mask[i]) for i in range(games)]
        _, obs, mask, *_ = vec.step(actions)
    return vec.game, np.concatenate(rows), np.concatenate(masks)


CASES = [(v, p, o) for v in VARIANTS for p in (2, 4) for o in OPTION_SETS[v][:3]]


@pytest.mark.parametrize("variant, players, options", CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("name", ["greedy", "random", "heuristic"])
def test_act_batch_decides_every_row_as_act_with_the_same_draws(name, variant, players, options):
    game, obs, mask = rows_of_games(variant, players, options)
    one, batch = agents.load(name, game, seed=7), agents.load(name, game, seed=7)
    expected = np.array([one.act(o, m) for o, m in zip(obs, mask)])
    got = batch.act_batch(obs, mask)
    assert np.array_equal(got, expected)
    assert one.rng.bit_generator.state == batch.rng.bit_generator.state  # the same numbers drawn
    assert all(mask[r, a] for r, a in enumerate(got.tolist()))


def test_the_rows_cover_the_decisions_greedy_tells_apart():
    """The rows above meet colour choices, targets, drawn cards and Optimus placements, not only turns."""
    seen = set()
    for variant in ("classic", "flex", "flip"):
        game, obs, mask = rows_of_games(variant, 4, {"uno_call": "explicit"} if variant == "classic" else {})
        view = agents.load("greedy", game).view
        seen |= {view.phase(o).value for o, m in zip(obs, mask) if m.sum() > 1}
    assert {"TURN", "CHOOSE_COLOUR", "PLAY_OR_KEEP_DRAWN", "CHOOSE_TARGET", "OPTIMUS_PLACE"} <= seen


def test_act_batch_refuses_arrays_of_another_shape():
    game, obs, mask = rows_of_games("classic", 2, {}, steps=2, games=2)
    player = agents.load("greedy", game, seed=0)
    with pytest.raises(ValueError, match=r"expected obs \(R, \d+\) float32, mask \(R, \d+\) int8"):
        player.act_batch(obs[:, :-1], mask)
    with pytest.raises(ValueError, match=r"expected mask \(R, A\) int8 and out \(R,\) int64"):
        agents.load("random", game, seed=0).act_batch(obs, mask[0])


def test_without_the_core_act_batch_is_act_row_by_row(monkeypatch):
    game, obs, mask = rows_of_games("flex", 3, {}, steps=30, games=4)
    expected = {}
    for name in ("random", "greedy"):
        one = agents.load(name, game, seed=2)
        expected[name] = [one.act(o, m) for o, m in zip(obs, mask)]
    # only the loop: hide the core from agents built now
    monkeypatch.setattr(core, "available", lambda: False)
    for name in ("random", "greedy"):
        assert agents.load(name, game, seed=2).act_batch(obs, mask).tolist() == [int(a) for a in expected[name]]


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_act_batch_equals_act_over_heuristic_games_at_every_table_and_option_set(variant):
    """Games the heuristic plays (through act_batch) on the core; at every step greedy's and the heuristic's
    batch decisions equal their row-by-row ones, generators included."""
    rows = 0
    for options in OPTION_SETS[variant]:
        for players in TABLES[variant]:
            vec = VectorGames(32, variant, num_players=players, backend="native", **options)
            _, obs, mask = vec.reset(seed=players)
            player = agents.load("heuristic", vec.game, seed=5)
            pairs = [(agents.load(name, vec.game, seed=9), agents.load(name, vec.game, seed=9))
                     for name in ("greedy", "heuristic")]
            for _ in range(60):
                for one, batch in pairs:
                    assert batch.act_batch(obs, mask).tolist() == [one.act(o, m) for o, m in zip(obs, mask)], \
                        f"{variant} {players}p {options}: {one.name} differs"
                rows += len(obs)
                _, obs, mask, *_ = vec.step(player.act_batch(obs, mask))
            for one, batch in pairs:
                assert one.rng.bit_generator.state == batch.rng.bit_generator.state
    assert rows >= 25_000
