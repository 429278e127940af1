"""Invariant checks run after every step of the simulation tests (docs/rules.md §6.7)."""
from __future__ import annotations

import numpy as np

from uno_env import Game, Phase


_EXPECTED: dict[tuple[int, int], list[int]] = {}


def _expected_counts(g: Game, side: int) -> list[int]:
    """Copies of each kind in play (Flip: only the active side's faces), cached per deck and side."""
    key = (id(g.deck), side)
    counts = _EXPECTED.get(key)
    if counts is None:
        counts = list(g.deck.count_of)
        if g.physical is not None:
            counts = [c if g.deck.side_of[k] == side else 0 for k, c in enumerate(counts)]
        counts = _EXPECTED[key] = counts
    return counts


def check_invariants(g: Game, s) -> None:
    """Raise AssertionError if the state breaks an invariant.

    Plain Python over the small lists of the state (cheaper than building numpy arrays at every step
    of thousands of games); every check is made in full after every step.
    """
    counts = [sum(col) for col in zip(*s.hands)]
    for k in s.draw_pile:
        counts[k] += 1
    for k in s.discard:
        counts[k] += 1
    if g.physical is not None:  # Flip: only active faces are in play; the physical cards are conserved too
        _check_physical(g, s)
    if counts != _expected_counts(g, s.side):
        raise AssertionError("card conservation broken")
    assert min(map(min, s.hands)) >= 0, "negative card count in a hand"
    assert list(map(sum, s.hands)) == s.hand_size, "hand_size out of sync with the hand"
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
    assert all(a < b for a, b in zip(legal, legal[1:])), "legal actions not ascending and unique"
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


_SORTED_DECKS: dict[tuple, list[int]] = {}


def _check_physical(g: Game, s) -> None:
    """Flip (docs/rules.md §6.7): every physical card in exactly one place, every one oriented to the active side."""
    held = [c for h in s.physical_hands for c in h]
    deck = _SORTED_DECKS.get(s.deck_cards)
    if deck is None:
        deck = _SORTED_DECKS[s.deck_cards] = sorted(s.deck_cards)
    assert sorted(s.physical_draw + s.physical_discard + held) == deck, "physical cards not conserved"
    assert len(s.deck_cards) == g.deck.size
    K = g.physical.K
    if s.side == 0:
        face = lambda cards: [c // K for c in cards]  # noqa: E731 (the A face of code a * K + d)
    else:
        face = lambda cards: [c % K for c in cards]  # noqa: E731
    assert face(s.physical_draw) == s.draw_pile, "draw pile faces out of sync"
    assert face(s.physical_discard) == s.discard, "discard faces out of sync"
    for seat, cards in enumerate(s.physical_hands):
        counts = [0] * g.num_kinds
        for k in face(cards):
            counts[k] += 1
        assert counts == s.hands[seat], f"hand of P{seat} out of sync with its physical cards"


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
