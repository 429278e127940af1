"""Redrawing what one seat cannot see: the determinizations a search agent plays out.

``sample_hidden(game, state, seat, rng)`` returns a new state that ``seat`` cannot tell apart from
``state``: its own hand, every public fact and every card it was shown and that is still held stay;
everything else is dealt again at random from the cards it has not seen.

What stays:

- ``seat``'s own hand (in Flip the active faces; the backs, which it does not see, are redrawn);
- every hand's size, the discard pile, the draw pile's size, every public counter;
- cards shown to ``seat`` (a challenge reveal) or to every seat (a Flip duel) and not placed since,
  with their holder (``State.shown``; forgotten at a Flip side change, so they count as unseen then);
- Flip: the back face every opponent card shows and the draw pile's visible top back face.

What is redrawn: the other hands' remaining cards and the draw pile (Attack: the launcher's
cards) from the unseen cards, uniformly among the assignments consistent with the above; the game's
random generator and the Attack launcher's stream. By default the public void evidence
(``State.voids``: the colours a seat drew on since it last played them) is ignored: hands are
uniform given the constraints above. With ``void_weight`` below 1 it is a soft weight (one-sided
decks; Flip ignores it): a card of a colour its holder is void in is dealt to that hand with
``void_weight`` times the chance of another card (0 excludes it while enough other cards remain).
``kind_weights`` (players x kinds) is a belief of the caller's about every hand: each card dealt to a
hand is weighted by that hand's entry for its kind (one-sided decks; Flip refuses it); a card pinned
to a hand by a pending decision (below) is kept whatever its weight. Weighted seats (with
``kind_weights`` every seat, in seat order) are dealt first, one after another, each by weighted
sampling without replacement (successive draws in exact arithmetic, ``_weighted_picks``), so the
result is close to, not exactly, the posterior of that weighting. Whether a pending challenge would
catch the offender is recomputed from its redrawn hand.

Flip note: with ``flip.pairing: random_per_deck`` (the default) the pairing of faces is part of
the secret: every card ``seat`` has not seen both faces of keeps the face it shows and gets its other
face at random from the faces not showing (a uniformly random consistent pairing; the sample's
physical cards, ``State.deck_cards`` included, can differ from the real ones). With the fixed
published pairing, the pairing is known: each of ``seat``'s own cards keeps its active face and gets
a random unseen card with that face, then each visible back an unseen card with that back (own slots
first, a redraw when a back runs short), close to, not exactly, uniform.

The sample is meant for the seat that decides now (its own decision), but any seat may be given.
For another seat, a pending decision of the decider that shows it holds a certain card stays
possible: a jump-in window's holder keeps one card of that kind, a multi-play's player one more card
of the rank, and a drawn card on offer is drawn again from the unseen cards that could be played
now (in Flip the real card is kept).
"""
from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate

import numpy as np

from . import turn
from .state import Phase, State


def known_cards(s: State, seat: int) -> dict[int, list[int]]:
    """Per other seat, the cards ``seat`` knows it holds (counts per kind), from ``State.shown``."""
    known: dict[int, list[int]] = {}
    for observer, holder, counts in s.shown:
        if holder == seat or (observer != -1 and observer != seat) or not any(counts):
            continue
        have = known.get(holder)
        # each reveal is a lower bound on what the holder still has; the larger one wins per kind
        known[holder] = counts[:] if have is None else [max(a, b) for a, b in zip(have, counts)]
    return known


def sample_hidden(g, s: State, seat: int, rng: np.random.Generator, share_rng: bool = False,
                  void_weight: float = 1.0, kind_weights: np.ndarray | None = None) -> State:
    """A copy of ``s`` with everything ``seat`` cannot see redrawn at random (``s`` is not changed).

    The copy's future randomness (reshuffles, Attack's launcher) comes from a new generator seeded
    from ``rng``, or from ``rng`` itself with ``share_rng`` (cheaper; what a search does).
    ``void_weight`` in [0, 1] weights the cards of a colour a hand is void in (1: ignore the voids).
    ``kind_weights``, an array (players, kinds) of finite weights >= 0, weights each card dealt to a
    hand by its row's entry for the card's kind (a belief about that hand; one-sided decks only).
    """
    if not 0 <= seat < s.num_players:
        raise ValueError(f"seat {seat} is not a seat of this {s.num_players}-player game (0..{s.num_players - 1})")
    if not 0.0 <= void_weight <= 1.0:
        raise ValueError(f"void_weight {void_weight!r} is out of range: a weight in [0, 1] (1 ignores the voids)")
    if kind_weights is not None:
        kind_weights = _checked_kind_weights(g, s, kind_weights)
    fresh = rng if share_rng else np.random.Generator(np.random.PCG64(int(rng.integers(2 ** 63))))
    t = s.clone(fresh)
    if not share_rng and s.launcher_rng is not None:
        t.launcher_rng = np.random.Generator(np.random.PCG64(int(rng.integers(2 ** 63))))
    known = known_cards(s, seat)
    drawn = _pin_pending_card(g, s, seat, known, rng)
    if g.physical is not None:
        if g.physical.rng_pairing:
            _redeal_unknown_pairing(g, t, seat, known, rng)
        else:
            _redeal_physical(g, t, seat, known, rng)
    else:
        _redeal(g, t, seat, known, rng, void_weight, kind_weights)
    _recheck_hidden_facts(g, t, seat, drawn)
    return t


def _checked_kind_weights(g, s: State, weights) -> np.ndarray:
    """``weights`` as a float array (players, kinds), or ValueError naming what is wrong."""
    if g.physical is not None:
        raise ValueError("kind_weights applies to one-sided decks only: a Flip card's hidden back face is not a kind "
                         "of the hand it is dealt to")
    try:
        arr = np.asarray(weights, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"kind_weights must be an array of numbers of shape (players, kinds); {exc}") from None
    shape = (s.num_players, g.num_kinds)
    if arr.shape != shape:
        raise ValueError(f"kind_weights must have shape (players, kinds) = {shape}; got {arr.shape}")
    bad = np.argwhere(~np.isfinite(arr) | (arr < 0))
    if len(bad):
        seat, kind = (int(i) for i in bad[0])
        raise ValueError(f"kind_weights must be finite and >= 0 (a relative chance per card kind); "
                         f"[{seat}, {kind}] is {float(arr[seat, kind])}")
    return arr


def _pin_pending_card(g, s: State, seat: int, known: dict, rng: np.random.Generator) -> int:
    """Another seat's pending decision shows it holds a certain card: keep one such card with it.

    A jump-in window is open only to a holder of the card just placed, a multi-play goes on only
    while its player holds another card of the rank, and a drawn card on offer is playable. Unless
    ``seat`` already knows such a card in that hand, one is pinned to it: in one-sided decks drawn
    from the unseen cards that fit (weighted by how many are unseen), in Flip the real one (its
    back face was public; its other face is not redrawn). Returns the pinned drawn card's kind, or -1.
    """
    p = s.current_seat
    if p == seat or p < 0:
        return -1
    k_all = g.num_kinds
    drawn = s.phase == Phase.PLAY_OR_KEEP_DRAWN and s.drawn_kind >= 0
    if drawn:
        fits = [k for k in range(k_all) if g._drawn_card_plays(s, p, k)]
        real = s.drawn_kind
    elif s.phase == Phase.JUMP_IN and s.jump is not None:
        fits = [s.jump[0]]
        real = s.jump[0]
    elif s.phase == Phase.MULTI_PLAY and s.multi is not None:
        fits = list(g.kinds_of_rank[s.multi[0]])
        real = next((k for k in fits if s.hands[p][k]), -1)
    else:
        return -1
    have = list(known.get(p, ())) or [0] * k_all
    if real < 0 or (not drawn and any(have[k] for k in fits)):
        return -1
    kind = real
    if g.physical is None:
        unseen = [0] * k_all
        for k in s.draw_pile:
            unseen[k] += 1
        for h in range(s.num_players):
            if h != seat:
                mine = known.get(h)
                for k, c in enumerate(s.hands[h]):
                    unseen[k] += c - (mine[k] if mine else 0)
        weights = np.zeros(k_all)
        for k in fits:
            weights[k] = max(unseen[k], 0)
        if weights.sum() > 0:
            kind = int(rng.choice(k_all, p=weights / weights.sum()))
    have[kind] += 1
    known[p] = have
    return kind if drawn else -1


def _redeal(g, t: State, seat: int, known: dict, rng: np.random.Generator, void_weight: float = 1.0,
            kind_weights: np.ndarray | None = None) -> None:
    """One-sided cards: other hands (but their known cards) and the draw pile, from the unseen cards."""
    n = t.num_players
    k_all = g.num_kinds
    pool = list(t.draw_pile)
    need = [0] * n
    pinned = []  # kept cards the holder does not really hold (a pinned drawn card): taken from the pool
    for h in range(n):
        if h == seat or not t.hand_size[h]:
            continue
        hand, kept = t.hands[h], known.get(h)
        if kept is None:
            for k in range(k_all):
                if hand[k]:
                    pool += [k] * hand[k]
            need[h] = t.hand_size[h]
            t.hands[h] = [0] * k_all
        else:
            for k in range(k_all):
                free = hand[k] - kept[k]
                if free > 0:
                    pool += [k] * free
                elif free < 0:
                    pinned += [k] * -free
            t.hands[h] = kept[:]
            need[h] = t.hand_size[h] - sum(kept)
    for k in pinned:
        pool.remove(k)
    voided = void_weight < 1.0 and any(t.voids[h] for h in range(n) if need[h])
    if voided or kind_weights is not None:
        _deal_weighted(g, t, pool, need, rng, void_weight, kind_weights)
        return
    _deal_uniform(t, pool, need, rng)


def _deal_uniform(t: State, pool: list[int], need: list[int], rng: np.random.Generator) -> None:
    """Deal ``pool`` at random: ``need[h]`` cards to each hand in seat order, the rest to the draw pile."""
    order = rng.permutation(len(pool)).tolist()
    pos = 0
    for h, count in enumerate(need):
        if count:
            hand = t.hands[h]
            for i in order[pos:pos + count]:
                hand[pool[i]] += 1
            pos += count
    t.draw_pile = [pool[i] for i in order[pos:]]


@lru_cache(maxsize=16)
def _kind_arrays(g) -> tuple[np.ndarray, np.ndarray]:
    """The game's colour and wildness per kind as arrays (built once per game, not per sample)."""
    return np.asarray(g.colour_of), np.asarray(g.is_wild)


def _deal_weighted(g, t: State, pool: list[int], need: list[int], rng: np.random.Generator, weight: float,
                   kind_weights: np.ndarray | None = None) -> None:
    """Deal ``pool`` to the hands' ``need``: the weighted seats first (with ``kind_weights`` every seat,
    else the void seats), each card with its row's weight for its kind, times ``weight`` if of a colour
    the seat is void in; then the other seats and the draw pile uniformly."""
    cards = np.asarray(pool, dtype=np.intp)  # an empty pool (every hidden card known) stays an index array
    colour_of, is_wild = _kind_arrays(g)
    colour, wild = colour_of[cards], is_wild[cards]
    free = np.ones(len(cards), dtype=bool)
    voids = t.voids if weight < 1.0 else [0] * t.num_players
    voided = [h for h in range(t.num_players) if need[h] and (voids[h] or kind_weights is not None)]
    for h in voided:
        idx = np.flatnonzero(free)
        void = ~wild[idx] & (((voids[h] >> np.where(wild[idx], 0, colour[idx])) & 1) == 1)
        w = np.where(void, weight, 1.0)
        if kind_weights is not None:
            w = w * kind_weights[h][cards[idx]]
        chosen = idx[_weighted_picks(w, need[h], rng)]
        free[chosen] = False
        hand = t.hands[h]
        for k in cards[chosen].tolist():
            hand[k] += 1
    _deal_uniform(t, cards[free].tolist(), [0 if h in voided else c for h, c in enumerate(need)], rng)


def _weighted_picks(weights: np.ndarray, count: int, rng: np.random.Generator) -> list[int]:
    """``count`` positions of ``weights`` drawn without replacement, each with a chance proportional to its weight
    among those left (successive sampling: the distribution of the Efraimidis-Spirakis keys, without a logarithm).

    Exact arithmetic decides every pick, so another machine or the C++ twin picks the same. The weights are
    first divided by their largest (no sum can overflow). Per pick: the running sums of the weights left, in
    order (a picked weight counts as 0.0; ``accumulate`` adds left to right, as a plain loop does); if their
    total is positive, one ``rng.random()`` and the first position whose running sum exceeds ``u * total``
    (should the target reach the total, which u < 1 rules out, the last with a positive weight); else one
    ``rng.integers(n)`` among the ``n`` positions left, in order, so weight-0 cards that must fill a hand are
    dealt at random, not in the pool's order (whose front is the real draw pile).
    """
    left = np.asarray(weights, dtype=float).tolist()
    largest = max(left, default=0.0)
    if largest > 0:
        left = [w / largest for w in left]
    taken = [False] * len(left)
    picks = []
    for _ in range(count):
        running = list(accumulate(left))  # adding a picked card's 0.0 leaves every sum as it was
        total = running[-1]
        if total > 0:
            i = bisect_right(running, rng.random() * total)
            if i == len(left):
                i = max(j for j, w in enumerate(left) if w > 0)
        else:
            rest = [j for j, t in enumerate(taken) if not t]
            i = rest[int(rng.integers(len(rest)))]
        picks.append(i)
        left[i] = 0.0
        taken[i] = True
    return picks


def _redeal_physical(g, t: State, seat: int, known: dict, rng: np.random.Generator) -> None:
    """Flip: refill every hidden slot with an unseen physical card showing what ``seat`` sees of it.

    ``seat``'s own cards keep their active faces (their backs are hidden from it); opponent cards and
    the draw pile's top keep their back faces. Own slots are filled first, then the backs; a draw that
    leaves some back face short is drawn again (rare), and after 20 failures the own cards stay whole.
    """
    phys = g.physical
    side, other = t.side, 1 - t.side
    face = phys.face
    slots: list[tuple[int, int, int]] = []  # (holder or -1 for the draw pile's top, index, back face)
    pool: list[int] = []
    for h in range(t.num_players):
        if h == seat:
            continue
        cards = t.physical_hands[h]
        keep = list(known.get(h, ()))  # counts per active face still to keep
        for i, c in enumerate(cards):
            f = face(c, side)
            if keep and keep[f]:
                keep[f] -= 1
                continue
            slots.append((h, i, face(c, other)))
            pool.append(c)
    draw = t.physical_draw
    pool += draw
    if draw:
        slots.append((-1, len(draw) - 1, face(draw[-1], other)))
    own = t.physical_hands[seat]
    for _ in range(20):
        filled = _fill(pool + own, [face(c, side) for c in own], slots, side, other, face, rng)
        if filled is not None:
            break
    else:
        filled = (own[:],) + _fill(pool, [], slots, side, other, face, rng)[1:]
    own_cards, placed, rest = filled
    hands = t.physical_hands = [h[:] for h in t.physical_hands]
    hands[seat] = own_cards
    top = -1
    for (h, i, _), c in zip(slots, placed):
        if h < 0:
            top = c
        else:
            hands[h][i] = c
    order = rng.permutation(len(rest)).tolist()
    t.physical_draw = [rest[i] for i in order] + ([top] if top >= 0 else [])
    _faces_from_physical(g, t, seat)


def _redeal_unknown_pairing(g, t: State, seat: int, known: dict, rng: np.random.Generator) -> None:
    """Flip with a pairing drawn per game: which face is on the back of which is part of the secret.

    Every card ``seat`` has not seen both faces of (its own, the opponents' but their shown ones, the
    draw pile) keeps the face it shows ``seat`` (own cards: the active one; opponent cards and the
    draw pile's top: the back) and gets its other face(s) from those faces of these cards that are not
    showing, at random: a uniformly random pairing consistent with what ``seat`` sees. The discard pile
    and shown cards keep their physical cards.
    """
    phys = g.physical
    side, other = t.side, 1 - t.side
    face, code = phys.face, phys.code
    hands = t.physical_hands = [h[:] for h in t.physical_hands]
    slots: list[tuple[int, int, int, int]] = []  # (holder or -1 = draw pile, index, active or -1, back or -1)
    for h in range(t.num_players):
        keep = list(known.get(h, ())) if h != seat else []
        for i, c in enumerate(hands[h]):
            f = face(c, side)
            if keep and keep[f]:
                keep[f] -= 1
                continue
            slots.append((h, i, f, -1) if h == seat else (h, i, -1, face(c, other)))
    draw = t.physical_draw
    for i, c in enumerate(draw):
        slots.append((-1, i, -1, face(c, other) if i == len(draw) - 1 else -1))
    cards = [hands[h][i] if h >= 0 else draw[i] for h, i, _, _ in slots]
    actives = [face(c, side) for c in cards]
    backs = [face(c, other) for c in cards]
    for _, _, f, b in slots:  # the faces that are showing are not free to move
        if f >= 0:
            actives.remove(f)
        if b >= 0:
            backs.remove(b)
    actives = [actives[i] for i in rng.permutation(len(actives)).tolist()]
    backs = [backs[i] for i in rng.permutation(len(backs)).tolist()]
    new_draw = draw[:]
    for h, i, f, b in slots:
        c = code(f if f >= 0 else actives.pop(), b if b >= 0 else backs.pop(), side)
        if h >= 0:
            hands[h][i] = c
        else:
            new_draw[i] = c
    t.physical_draw = new_draw
    _faces_from_physical(g, t, seat)
    t.deck_cards = tuple(sorted(t.physical_discard + new_draw + [c for h in hands for c in h]))


def _faces_from_physical(g, t: State, seat: int) -> None:
    """The draw pile's and the other hands' active faces, from their redealt physical cards."""
    phys, side = g.physical, t.side
    t.draw_pile = [phys.face(c, side) for c in t.physical_draw]
    for h, cards in enumerate(t.physical_hands):
        if h != seat:
            t.hands[h] = phys.counts(cards, side)


def _fill(cards: list[int], own_faces: list[int], slots: list, side: int, other: int, face, rng):
    """One random assignment of ``cards``: own slots by active face, then ``slots`` by back face.

    Returns (own cards, cards for ``slots`` in order, the rest), or None when a back face ran short.
    """
    shuffled = [cards[i] for i in rng.permutation(len(cards)).tolist()]
    by_face: dict[int, list[int]] = {}  # positions in ``shuffled`` per active face
    for pos, c in enumerate(shuffled):
        by_face.setdefault(face(c, side), []).append(pos)
    taken = set()
    own_cards = []
    for f in own_faces:
        pos = by_face[f].pop()
        taken.add(pos)
        own_cards.append(shuffled[pos])
    by_back: dict[int, list[int]] = {}
    for pos, c in enumerate(shuffled):
        if pos not in taken:
            by_back.setdefault(face(c, other), []).append(c)
    placed = []
    for _, _, back in slots:
        group = by_back.get(back)
        if not group:
            return None
        placed.append(group.pop())
    rest = [c for group in by_back.values() for c in group]
    return own_cards, placed, rest


def _recheck_hidden_facts(g, t: State, seat: int, drawn: int) -> None:
    """Facts that followed from the redrawn cards: a pending challenge's verdict, another seat's drawn card."""
    pen = t.penalty
    if pen is not None and pen.challenge is not None and pen.challenge[0] != seat:
        offender = pen.challenge[0]
        pen.challenge = (offender, turn.holds_colour(g, t, offender, t.ref_colour))
    p = t.current_seat
    if p != seat and p >= 0:
        if t.phase == Phase.PLAY_OR_KEEP_DRAWN and drawn >= 0:
            t.drawn_kind = drawn  # pinned to the drawer before the redeal
        t.legal = None  # the decider's legal actions depend on its redrawn hand
