"""The Python batched observation encoder and mask of ``VectorGames(backend="python")``: bit for bit the reference
encoder's rows (the core's batch and encoder: test_native_vector.py)."""
from __future__ import annotations

import numpy as np
import pytest

from uno_env import VARIANTS, Game
from uno_env import batch_observation
from uno_env.batch_observation import BatchEncoder, counts_per_kind, small_ints
from uno_env.observation import ObservationEncoder
from uno_env.vector import VectorGames

CASES = [(v, n, {}) for v in VARIANTS for n in sorted({2, VARIANTS[v].max_players})]
#: House rules whose phases and blocks the presets leave out: stacked penalties, jump-ins, UNO calls and
#: catches, multi-plays, madness, match scores, Attack's eliminations, Flex's self-target, a short step cap.
OPTION_CASES = [
    ("classic", 4, {"stacking": "any", "jump_in": "on", "uno_call": "explicit", "match": True, "target_score": 150}),
    ("classic", 3, {"multi_play": "on", "madness": "on", "uno_call": "decide", "scoring_method": "penalty_low",
                    "match": True, "target_score": 100}),
    ("attack", 3, {"scoring_method": "elimination", "target_score": 100}),
    ("flex", 3, {"flex.allow_self_target": True, "max_steps": 60}),
]


def random_actions(vec: VectorGames, rng: np.random.Generator) -> np.ndarray:
    """Seeded random legal actions, mostly card plays so that games end (and the batch deals again) within the test."""
    actions = np.zeros(vec.num_games, dtype=np.int64)
    for i, row in enumerate(vec.mask):
        legal = np.flatnonzero(row)
        plays = legal[legal < vec.game.layout.draw]
        actions[i] = rng.choice(plays if len(plays) and rng.random() < 0.9 else legal)
    return actions


def reference_rows(encoder: ObservationEncoder, states, seats) -> np.ndarray:
    """The reference encoder's rows, one state at a time."""
    return np.stack([encoder.encode(s, int(p)) for s, p in zip(states, seats)])


@pytest.mark.parametrize("variant, players, options", CASES + OPTION_CASES, ids=lambda c: str(c))
def test_every_row_is_the_reference_encoders_row_over_whole_games(variant, players, options):
    """Whole games with automatic resets: observations and masks equal ObservationEncoder's and legal_action_mask's."""
    vec = VectorGames(4, variant, num_players=players, backend="python", **options)
    game, reference = vec.game, ObservationEncoder(vec.game)
    other = BatchEncoder(game)
    seat, obs, mask = vec.reset(seed=11)
    rng = np.random.default_rng(5)
    endings, steps = 0, 0
    while endings < 6 and steps < 3000:
        states = vec.states
        assert np.array_equal(seat, [s.current_seat for s in states])
        assert np.array_equal(obs, reference_rows(reference, states, seat))
        for i, s in enumerate(states):
            fresh = game.clone(s)
            fresh.legal = None  # the engine computes the legal ids again, apart from the batched mask
            assert np.array_equal(mask[i], game.legal_action_mask(fresh))
        # every other observer too (no decision, others' penalties and reveals, the history from elsewhere)
        observers = (seat + 1 + steps % max(players - 1, 1)) % players
        rows = np.full_like(obs, np.nan)
        other.encode(states, observers, rows)
        assert np.array_equal(rows, reference_rows(reference, states, observers))
        seat, obs, mask, _, terminated, truncated = vec.step(random_actions(vec, rng))
        endings += int(np.count_nonzero(terminated | truncated))
        steps += 1
    assert endings >= 6  # the comparison crossed several automatic resets


@pytest.mark.parametrize("variant, players, options", CASES, ids=lambda c: str(c))
def test_redrawing_hidden_cards_leaves_every_row_unchanged(variant, players, options):
    """Hidden cards are never read: each game redrawn from what its observer cannot see encodes the same."""
    vec = VectorGames(6, variant, num_players=players, backend="python")
    game, batch = vec.game, BatchEncoder(vec.game)
    vec.reset(seed=3)
    rng = np.random.default_rng(9)
    changed = 0
    for step in range(60):
        vec.step(random_actions(vec, rng))
        if step % 6:
            continue
        seats = [(s.current_seat + step) % players for s in vec.states]  # the decider and other observers
        twins = [game.sample_hidden(s, p, rng) for s, p in zip(vec.states, seats)]
        changed += sum(t.hands != s.hands or t.draw_pile != s.draw_pile for s, t in zip(vec.states, twins))
        rows, twin_rows = np.empty_like(vec.obs), np.empty_like(vec.obs)
        batch.encode(vec.states, seats, rows)
        batch.encode(twins, seats, twin_rows)
        assert np.array_equal(rows, twin_rows)
    assert changed > 0  # the redraws did move hidden cards


def test_masks_of_many_states_are_the_single_state_masks():
    """Game.legal_action_masks writes legal_action_mask's row for each state, computing the legal ids where needed."""
    game = Game("flex", num_players=3, backend="python")
    states = [game.new_state(seed) for seed in range(7)]
    expected = np.stack([game.legal_action_mask(game.clone(s)) for s in states])
    states[2].legal = None
    out = np.full((7, game.num_actions), 5, dtype=np.int8)
    assert game.legal_action_masks(states, out) is out
    assert np.array_equal(out, expected)


def test_encode_checks_the_output_shape():
    game = Game("classic", num_players=2)
    batch = BatchEncoder(game)
    states = [game.new_state(0), game.new_state(1)]
    for out in (np.zeros((3, batch.size), dtype=np.float32), np.zeros((2, batch.size)),
                np.zeros((batch.size, 2), dtype=np.float32).T):
        with pytest.raises(ValueError, match="C-contiguous float32 array of shape"):
            batch.encode(states, [0, 1], out)


def test_any_variant_block_without_a_batched_writer_is_filled_row_by_row():
    """The fallback for a variant block the batched writers do not know: its own fill, row by row."""
    vec = VectorGames(5, "flip", num_players=3, backend="python")
    vec.reset(seed=2)
    rng = np.random.default_rng(0)
    fallback = BatchEncoder(vec.game)
    fallback._extra = [(block, sl, batch_observation._rows_of) for block, sl, _ in fallback._extra]
    for _ in range(40):
        vec.step(random_actions(vec, rng))
        rows = np.empty_like(vec.obs)
        fallback.encode(vec.states, vec.seat, rows)
        assert np.array_equal(rows, vec.obs)


def test_card_lists_beyond_a_byte_are_converted_too():
    assert small_ints([[1, 2], [255, 0]]).tolist() == [1, 2, 255, 0]
    assert small_ints([[300, 1], [], [2]]).tolist() == [300, 1, 2]  # past 255: the slower exact path
    assert counts_per_kind([[0, 2, 2], [], [1]], 3).tolist() == [[1, 0, 2], [0, 0, 0], [0, 1, 0]]
