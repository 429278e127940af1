"""Invariant checks run after every step of the simulation tests (RULES.md §6.7)."""
from __future__ import annotations

import numpy as np

from uno_env import Game, Phase


_COUNTS: dict[int, np.ndarray] = {}


def _deck_counts(g: Game) -> np.ndarray:
    counts = _COUNTS.get(id(g.deck))
    if counts is None:
        counts = _COUNTS[id(g.deck)] = np.array(g.deck.count_of, dtype=np.int64)
    return counts


def check_invariants(g: Game, s) -> None:
    """Raise AssertionError if the state breaks an invariant."""
    hands = np.array(s.hands, dtype=np.int64)
    piles = np.bincount(np.fromiter(s.draw_pile + s.discard, np.intp), minlength=g.num_kinds)
    counts = hands.sum(axis=0) + piles
    expected = _deck_counts(g)
    if g.physical is not None:  # Flip: only active faces are in play; the physical cards are conserved too
        expected = np.where(np.array(g.deck.side_of) == s.side, expected, 0)
        _check_physical(g, s)
    if not np.array_equal(counts, expected):
        raise AssertionError("card conservation broken")
    assert hands.min() >= 0, "negative card count in a hand"
    assert hands.sum(axis=1).tolist() == s.hand_size, "hand_size out of sync with the hand"
    assert s.discard, "no top card"
    assert 0 <= s.colour < 4, "current colour out of range"
    top = s.discard[-1]
    if not g.is_wild[top]:
        assert s.colour == g.colour_of[top], "coloured top card but a different current colour"
    if s.is_over:
        assert s.phase is Phase.GAME_OVER
        assert g.legal_actions(s) == []
        if s.winner is not None and not s.truncated and not g.match:
            assert s.hand_size[s.winner] == 0, "winner still holds cards"
            assert sum(1 for h in s.hand_size if h == 0) == 1, "more than one empty hand"
        if s.blocked and not g.match:
            assert s.winner is None
        return
    assert 0 <= s.current_seat < s.num_players
    legal = g.legal_actions(s)
    assert legal, "no legal action for the deciding seat"
    mask = g.legal_action_mask(s)
    assert mask.dtype == np.int8 and mask.shape == (g.num_actions,)
    assert mask.sum() == len(legal) and mask[legal].all(), "mask differs from the legal actions"
    assert legal == sorted(set(legal)), "legal actions not ascending and unique"
    for seat, size in enumerate(s.hand_size):
        # only a wild played as the last card is still waiting for its colour (CORE-24)
        assert size > 0 or s.eliminated[seat] or (seat == s.current_seat and s.phase in (Phase.CHOOSE_COLOUR, Phase.CHOOSE_TARGET)), \
            "empty hand in a running game"
    if g.elimination:
        assert not s.eliminated[s.current_seat], "a seat out of the match decides"
        assert sum(not out for out in s.eliminated) >= 2, "a running elimination match with fewer than 2 seats"
    if g.rules.variant == "flex":
        assert any(s.power), "every power card is ✘ after a step (the reset must have turned them ✓)"
        assert len(s.power) == s.num_players


def _check_physical(g: Game, s) -> None:
    """Flip (RULES.md §6.7): every physical card in exactly one place, every one oriented to the active side."""
    held = [c for h in s.physical_hands for c in h]
    assert sorted(s.physical_draw + s.physical_discard + held) == sorted(s.deck_cards), "physical cards not conserved"
    assert len(s.deck_cards) == g.deck.size
    face = g.physical.face
    assert [face(c, s.side) for c in s.physical_draw] == s.draw_pile, "draw pile faces out of sync"
    assert [face(c, s.side) for c in s.physical_discard] == s.discard, "discard faces out of sync"
    for seat, cards in enumerate(s.physical_hands):
        counts = np.bincount([face(c, s.side) for c in cards], minlength=g.num_kinds) if cards else 0
        assert np.array_equal(counts, s.hands[seat]) or (not cards and not any(s.hands[seat])), \
            f"hand of P{seat} out of sync with its physical cards"


def play_random_game(g: Game, seed: int, check: bool = True, eager: float = 0.0, state=None):
    """Play one game with random legal actions; return the final state and step count.

    ``state``: start from this state instead of ``g.new_state(seed)`` (e.g. one built from a spec).

    ``eager`` is the probability of choosing among card plays only when any are legal (shorter
    games, more endings); with 0 every legal action is equally likely.
    """
    s = g.new_state(seed) if state is None else state
    rng = np.random.default_rng(seed + 1_000_003)
    num_kinds = g.layout.draw if g.layout.flex0 < 0 else g.layout.flex0 + g.num_kinds
    steps = 0
    if check:
        check_invariants(g, s)
    while not s.is_over:
        legal = g.legal_actions(s)
        if eager and rng.random() < eager:
            plays = [a for a in legal if a < num_kinds]
            if plays:
                legal = plays
        g.step(s, legal[int(rng.integers(len(legal)))])
        steps += 1
        if check:
            check_invariants(g, s)
    return s, steps
