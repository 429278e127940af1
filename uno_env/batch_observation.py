"""Observation rows of many games at once: the batched twin of ``ObservationEncoder.encode_into``.

``VectorGames`` writes one row per game after every step. Row by row, the reference encoder makes
about 25 single-value numpy writes, a few list-to-array slice writes and a ``bincount`` per row.
``BatchEncoder.encode`` instead writes every block of all rows with a fixed number of array
operations, after as little Python per game as it can:

1. one list comprehension over the states gathers, per game, the output column of each
   single-value entry (top card, colour, turn, phase, revealed_by) and the integers behind the
   others (deciding, direction, draw pile size, hand sizes, void bits, last colours), converted to
   one integer array at once; the observer's hand and the card lists (discard pile, a reveal, a
   Flip duel) are converted with ``bytes``, several times faster than numpy's conversion of ints;
2. the writes: one scatter for the single values, one ``bincount`` for all discard piles, one
   gather into relative seat order for the per-seat blocks; the rare entries (a pending penalty, a
   reveal) only in the rows that have them. Divisions are numpy's float64 divisions of the same
   integers the reference divides in Python, so every float is the same.

The layout is ``ObservationEncoder``'s (``uno_env/observation.py``, the block table there), and
every row equals its ``encode_into`` row bit for bit (``tests/envs/test_batched_encoder.py`` plays
every variant over whole games). Like it, this reads only what the observing seat may know: its
own hand, the public piles and counts, what was shown to it, and the public history.

A variant's own observation blocks (``VariantDef.extra["observation_blocks"]``) are written by the
batched writers at the end of this module (``_batched_fill`` picks them), and any other block row
by row by its own ``fill``.
"""
from __future__ import annotations

from itertools import chain

import numpy as np

from .cards import Effect
from .observation import HISTORY_FIELDS, HISTORY_PER_SEAT, ObservationEncoder
from .state import State


def small_ints(lists) -> np.ndarray:
    """The concatenation of ``lists`` of non-negative ints as one array (uint8 when every value fits)."""
    try:  # bytes() of a list of ints runs in C: several times faster than np.fromiter for small counts
        return np.frombuffer(b"".join(map(bytes, lists)), dtype=np.uint8)
    except ValueError:  # a value outside 0..255
        return np.fromiter(chain.from_iterable(lists), dtype=np.int64)


def counts_per_kind(lists, k: int) -> np.ndarray:
    """(len(lists), k) counts per card kind of each list of kind ids, in one ``bincount``."""
    lengths = np.fromiter(map(len, lists), dtype=np.intp, count=len(lists))
    kinds = np.repeat(np.arange(len(lists)) * k, lengths) + small_ints(lists)
    return np.bincount(kinds, minlength=len(lists) * k).reshape(len(lists), k)


#: Per game, ``BatchEncoder`` gathers one row of integers: the output columns of the entries set to 1
#: (top_card, colour, turn: ``ONES`` columns), then of the entries phase and revealed_by, their values
#: (whether the observer decides, whether a hand was shown to it), the direction, the draw pile's size,
#: whether a penalty is pending, then per seat the hand sizes, voids and last colours (N columns each).
ONES = 3
PHASE, REVEALED_BY, DECIDES, SHOWN, DIRECTION, DRAW_PILE, PENALTY, PER_SEAT = range(ONES, ONES + 8)


class BatchEncoder:
    """Writes the observation rows of many states of one ``Game`` at once (``ObservationEncoder``'s layout).

    Every state must be of ``game`` (its player count); a state's phase must be one of the variant's.
    """

    def __init__(self, game, encoder: ObservationEncoder | None = None):
        self.game = game
        self.ref = encoder if encoder is not None else ObservationEncoder(game)
        self.size = self.ref.size
        self.n = n = game.num_players
        self.k = game.num_kinds
        self.slices = o = self.ref.offsets
        self.start = {name: sl.start for name, sl in o.items()}
        self._relative = (np.arange(n)[:, None] + np.arange(n)) % n  # [seat, r]: the seat r places clockwise
        self._per_seat_cols = n * np.arange(3)[:, None, None]  # + rel: the (3, B, N) per-seat columns to gather
        self._colours = np.arange(5)  # last placed colour: the 4 colours, then wild
        self._bits = np.arange(4)
        at = self.ref.history_at  # the history fields within a seat's entry, as the reference places them
        self._history = {name: slice(at[name], at[name] + size) for name, size in HISTORY_FIELDS}
        self._extra = [(block, o[block.name], _batched_fill(block)) for block in self.ref.extra_blocks]
        self._rows = np.arange(0)
        self.cache: dict = {}  # tables the variant block writers build once per game

    def encode(self, states: list[State], seats, out: np.ndarray) -> None:
        """Write the observation of ``seats[i]`` in ``states[i]`` into ``out[i]`` for every i, as ``encode_into``."""
        b = len(states)
        if out.shape != (b, self.size) or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of shape ({b}, {self.size}), "
                             f"got {out.dtype} {out.shape}")
        seat_list = seats.tolist() if isinstance(seats, np.ndarray) else [int(p) for p in seats]
        if len(self._rows) != b:
            self._rows = np.arange(b)
        out[:] = 0.0
        numbers = self._gather(states, seat_list)
        rows, st = self._rows[:, None], self.start
        out[rows, numbers[:, :ONES]] = 1.0
        out[rows, numbers[:, PHASE:DECIDES]] = numbers[:, DECIDES:DIRECTION]  # 0 where not deciding, not shown
        out[:, st["deciding"]] = numbers[:, DECIDES]
        out[:, st["direction"]] = numbers[:, DIRECTION]
        out[:, st["draw_pile"]] = numbers[:, DRAW_PILE] / self.game.deck.size
        self._cards(states, seat_list, out)
        self._pending(states, seat_list, numbers, out)
        rel = self._relative[seats if isinstance(seats, np.ndarray) else seat_list]  # rel[i, r]: r places from seats[i]
        self._seat_blocks(states, numbers, rel, out)
        for block, sl, fill in self._extra:
            fill(self, block, states, seat_list, rel, out[:, sl])

    def per_seat(self, lists, rel: np.ndarray, dtype=np.float64) -> np.ndarray:
        """(B, N) array of one per-seat list of every state, columns in relative seat order (``rel``)."""
        b = len(rel)
        arr = np.fromiter(chain.from_iterable(lists), dtype=dtype, count=b * self.n).reshape(b, self.n)
        return arr[self._rows[:, None], rel]

    def _gather(self, states, seat_list) -> np.ndarray:
        # one pass over the states (see PER_SEAT); integers only: numpy converts them twice as fast as floats
        st, n, phase_of = self.start, self.n, self.ref._phase_index
        top, colour, turn, phase = st["top_card"], st["colour"], st["turn"], st["phase"]
        revealed_by = st["revealed_by"]
        values = [[top + s.discard[-1], colour + s.colour, turn + (s.turn_seat - p) % n, phase + phase_of[s.phase],
                   revealed_by if (shown := s.reveals[p]) is None else revealed_by + (shown[0] - p) % n,
                   s.current_seat == p, shown is not None, s.direction, len(s.draw_pile), s.penalty is not None]
                  + s.hand_size + s.voids + s.last_played
                  for s, p in zip(states, seat_list)]
        width = PER_SEAT + 3 * n
        return np.fromiter(chain.from_iterable(values), dtype=np.int64, count=width * len(states)).reshape(-1, width)

    def _cards(self, states, seat_list, out) -> None:
        # hand: the observer's own counts; discard: every pile counted in one bincount
        b, k = len(states), self.k
        out[:, self.slices["hand"]] = small_ints([s.hands[p] for s, p in zip(states, seat_list)]).reshape(b, k)
        out[:, self.slices["discard"]] = counts_per_kind([s.discard for s in states], k)

    def _pending(self, states, seat_list, numbers, out) -> None:
        # penalty and revealed: only in the rows that have them (revealed_by is scattered with the rest)
        p0 = self.start["penalty"]
        for i in np.flatnonzero(numbers[:, PENALTY]).tolist():  # rare: row by row
            pen = states[i].penalty
            out[i, p0] = pen.total / 4.0
            out[i, p0 + 1] = 1.0 if pen.target == seat_list[i] else 0.0
            out[i, p0 + 2] = 1.0 if pen.challenge is not None else 0.0
        shown = np.flatnonzero(numbers[:, SHOWN])
        if len(shown):  # a reveal stays until the next deal: up to half the rows
            counts = [states[i].reveals[seat_list[i]][1] for i in shown.tolist()]
            out[shown, self.slices["revealed"]] = small_ints(counts).reshape(-1, self.k)

    def _seat_blocks(self, states, numbers, rel, out) -> None:
        # per relative seat: hand_sizes, seats, scores, and the history block
        b, n, st, g = len(states), self.n, self.start, self.game
        per_seat = numbers[:, PER_SEAT:]
        sizes, voids, last = per_seat[self._rows[:, None], self._per_seat_cols + rel]  # each (B, N), relative
        out[:, st["hand_sizes"]:st["hand_sizes"] + n] = sizes / g.hand_size
        out[:, st["seats"]:st["seats"] + n] = 1.0
        if any([any(s.scores) for s in states]):  # all zero outside matches: skip the conversion
            out[:, st["scores"]:st["scores"] + n] = self.per_seat([s.scores for s in states], rel) / g.target_score
        h = st["history"]
        history = out[:, h:h + HISTORY_PER_SEAT * n].reshape(b, n, HISTORY_PER_SEAT)  # a view: out is C-contiguous
        f = self._history
        history[:, :, f["voids"]] = (voids[:, :, None] >> self._bits) & 1
        history[:, :, f["last_colour"]] = last[:, :, None] == self._colours
        history[:, :, f["one_card"]] = sizes[:, :, None] == 1
        history[:, :, f["two_cards"]] = sizes[:, :, None] == 2


# --------------------------------------------------------------------------- variant blocks

def _rows_of(enc, block, states, seat_list, rel, out) -> None:
    """Any variant block, row by row with its own ``fill`` (the fallback)."""
    for i, (s, p) in enumerate(zip(states, seat_list)):
        block.fill(enc.game, s, p, out[i])


def _power_rows(enc, block, states, seat_list, rel, out) -> None:
    """Flex ``power``: every seat's power card (1 = ✓) per relative seat."""
    out[:, :enc.n] = enc.per_seat([s.power for s in states], rel, bool)


def _hit_rows(enc, block, states, seat_list, rel, out) -> None:
    """Attack ``hits``: the pending hit stack, only in the rows that have one."""
    n = enc.n
    for i, s in enumerate(states):
        pen = s.penalty
        if pen is not None:
            out[i, 0] = pen.total
            out[i, 1] = pen.cards
            out[i, 2 + (pen.target - seat_list[i]) % n] = 1.0


def _duel_rows(enc, block, states, seat_list, rel, out) -> None:
    """Flip ``duel``: the last duel's kind, both seats and both shown card lists, in the rows that had one."""
    rows = [i for i, s in enumerate(states) if s.duel is not None]
    if not rows:
        return
    g, n, m, k = enc.game, enc.n, enc.game.variant.max_players, enc.k
    first = enc.cache.get("duel_kind")
    if first is None:  # per card kind: the block's entry 0 for an Optimus duel, 1 for a Megatron one
        first = enc.cache["duel_kind"] = tuple(0 if e == Effect.OPTIMUS else 1 for e in g.effect_of)
    duels = [states[i].duel for i in rows]
    seats = [seat_list[i] for i in rows]
    ones = [(first[kind], 2 + (p - q) % n, 2 + m + (t - q) % n) for (kind, p, t, _, _), q in zip(duels, seats)]
    at = np.array(rows)
    out[at[:, None], np.array(ones, dtype=np.int64)] = 1.0
    out[at, 2 + 2 * m:2 + 2 * m + k] = counts_per_kind([d[3] for d in duels], k)      # the originator's cards
    out[at, 2 + 2 * m + k:2 + 2 * m + 2 * k] = counts_per_kind([d[4] for d in duels], k)  # the target's


def _back_faces_rows(enc, block, states, seat_list, rel, out) -> None:
    """Flip ``flip``: the side, the opponents' back faces counted in one bincount, the draw pile's top back face."""
    b, n, g = len(states), enc.n, enc.game
    f = g.faces_per_side
    back_index = enc.cache.get("flip_back_index")
    if back_index is None:
        back_index = enc.cache["flip_back_index"] = _flip_back_index(g)  # [side, physical card] -> face index
    # per game: the side shown on the backs, the draw pile's top card (-1: empty)
    public = np.fromiter(chain.from_iterable([(1 - s.side, s.physical_draw[-1] if s.physical_draw else -1)
                                              for s in states]), dtype=np.int64, count=2 * b).reshape(b, 2)
    other, top = public[:, 0], public[:, 1]
    out[:, 0] = 1 - other
    if n > 1:
        hands = [s.physical_hands[(p + r) % n] for s, p in zip(states, seat_list) for r in range(1, n)]
        lengths = np.fromiter(map(len, hands), dtype=np.int64, count=b * (n - 1))
        codes = np.fromiter(chain.from_iterable(hands), dtype=np.int64, count=int(lengths.sum()))
        segment = np.repeat(np.arange(b * (n - 1)), lengths)  # game i, opponent r: segment i * (n - 1) + r - 1
        faces = back_index[np.repeat(other, n - 1)[segment], codes]
        counts = np.bincount(segment * f + faces, minlength=b * (n - 1) * f)
        out[:, 1:1 + (n - 1) * f] = counts.reshape(b, (n - 1) * f)
    rows = np.flatnonzero(top >= 0)
    out[rows, 1 + (g.variant.max_players - 1) * f + back_index[other[rows], top[rows]]] = 1.0


def _flip_back_index(g) -> np.ndarray:
    """(2, K*K) table: the face index a physical card shows on each side (from the engine's own ``face``)."""
    face, index, k = g.physical.face, g.face_index, g.physical.K
    return np.array([[index[face(c, side)] for c in range(k * k)] for side in (0, 1)], dtype=np.int64)


def _batched_fill(block):
    """The batched writer of a variant block (the ones above), else its ``fill`` row by row (``_rows_of``)."""
    from .variants import attack, flex, flip

    batched = {flex.PowerBlock: _power_rows, attack.HitBlock: _hit_rows,
               flip.BackFacesBlock: _back_faces_rows, flip.DuelBlock: _duel_rows}
    return batched.get(block, _rows_of)
