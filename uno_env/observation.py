"""Per-seat observation vectors: everything public plus what this seat privately knows, nothing else.

The layout depends only on the variant (its card kinds K and maximum seat count M), never on the
player count, so one policy can play any table size. Seats are relative: offset 0 is the observer,
offset r the seat r places clockwise; absent seats (fewer players than M) are zero.

=================  ======  ======================================================================
block              size    meaning
=================  ======  ======================================================================
hand               K       own cards, count per kind
top_card           K       one-hot kind of the discard pile's top card
colour             4       one-hot current colour
phase              P       one-hot phase of the decision (the common phases, then the variant's own), for the deciding seat only (zeros otherwise:
                           whether a decision exists can depend on the decider's hidden cards)
deciding           M       offset 0 set when this seat is the one deciding (zeros otherwise)
turn               M       one-hot relative offset of the seat whose turn it is
direction          1       +1 clockwise, -1 counter-clockwise
hand_sizes         M       cards held per relative seat, divided by the number dealt
seats              M       1 for each relative offset that is a seat in this game (a seat out of an Attack
                           elimination match holds 0 cards: its hand_sizes entry is 0 while the game runs)
penalty            3       pending draw penalty / 4, this seat is its target, a challenge is possible
draw_pile          1       cards in the draw pile / deck size
discard            K       discard pile, count per kind (the public discard history)
revealed           K       the last hand shown to this seat (a challenge), count per kind
revealed_by        M       one-hot relative offset of the seat that hand belongs to
scores             M       match scores per relative seat / target score
(variant blocks)           a variant may append blocks of its own (``VariantDef.extra["observation_blocks"]``)
history            11 M    public history of the round, per relative seat (layout version 2): 4 void hints
                           (it drew on that colour since it last placed a card of it), 5 one-hot colour of
                           its last placed card (the 4 colours, then wild), 1 if it holds one card, 1 if two
=================  ======  ======================================================================

Layout versions: 1 is everything up to ``history``; 2 (current) appends ``history``. Because version 1
is a prefix of version 2, policies exported for version 1 keep playing: they read the first
``size_of(1)`` floats. The history restarts with every deal and every Flip side change, and a state
built from a scenario spec starts with an empty history (nothing has been seen yet).

``VectorGames`` writes all its rows at once with ``uno_env/batch_observation.py``'s ``BatchEncoder``,
whose rows equal ``encode_into``'s bit for bit (``tests/envs/test_batched_encoder.py``); this
row-by-row encoder is the reference, and the one the AEC and Gymnasium envs and the agents use.
"""
from __future__ import annotations

import numpy as np

from .state import Phase, State

#: Phases every variant shares (the phase one-hot starts with these; a variant appends its own).
PHASES = tuple(Phase)[:tuple(Phase).index(Phase.GAME_OVER) + 1]
#: Bumped whenever the observation layout changes (exported policies record it).
OBSERVATION_LAYOUT_VERSION = 2
#: One relative seat's entry in the ``history`` block, field by field: (name, size), in order.
HISTORY_FIELDS = (("voids", 4), ("last_colour", 5), ("one_card", 1), ("two_cards", 1))
#: Where each field starts within a seat's entry.
HISTORY_AT = {name: sum(size for _, size in HISTORY_FIELDS[:i]) for i, (name, _) in enumerate(HISTORY_FIELDS)}
#: Floats per relative seat in the ``history`` block.
HISTORY_PER_SEAT = sum(size for _, size in HISTORY_FIELDS)


#: The variants' blocks the compiled core writes too (uno_env/core/observe.cpp); a block added to a variant
#: without its twin there is written by Python, for native states as well.
NATIVE_BLOCKS = frozenset({"power", "hits", "flip", "duel"})


class ObservationEncoder:
    """Builds the observation vector of any seat for one ``Game``."""

    def __init__(self, game):
        self.game = game
        k = game.num_kinds
        m = game.variant.max_players
        self.phases = PHASES + tuple(game.variant.phases)
        blocks = [("hand", k), ("top_card", k), ("colour", 4), ("phase", len(self.phases)), ("deciding", m),
                  ("turn", m), ("direction", 1), ("hand_sizes", m), ("seats", m), ("penalty", 3),
                  ("draw_pile", 1), ("discard", k), ("revealed", k), ("revealed_by", m), ("scores", m)]
        self.extra_blocks = tuple(game.variant.extra.get("observation_blocks", ()))
        blocks += [(b.name, b.size(game)) for b in self.extra_blocks]
        blocks.append(("history", HISTORY_PER_SEAT * m))
        self.offsets: dict[str, slice] = {}
        pos = 0
        for name, size in blocks:
            self.offsets[name] = slice(pos, pos + size)
            pos += size
        self.size = pos
        self.low = -1.0
        self.high = float(max(game.deck.size, 8))
        self._phase_index = {p: i for i, p in enumerate(self.phases)}
        #: where each history field starts within a seat's entry (every writer reads it here)
        self.history_at = dict(HISTORY_AT)
        self._row_encoder = None  # the compiled core's writer of this table, for native states (made on first use)

    def _native_rows(self, obs: np.ndarray) -> bool:
        # the core writes every variant's rows (its blocks as NATIVE_BLOCKS names them) into a float32 row of this
        # size; its encoder reads this encoder's own table, made once
        if getattr(self.game, "_tables", None) is None or any(b.name not in NATIVE_BLOCKS for b in self.extra_blocks):
            return False
        if not (isinstance(obs, np.ndarray) and obs.dtype == np.float32 and obs.shape == (self.size,)
                and obs.flags.c_contiguous and obs.flags.writeable):
            return False
        if self._row_encoder is None:
            from .core import _core

            self._row_encoder = _core.RowEncoder(self.game._tables, self.layout())
        return True

    def size_of(self, version: int) -> int:
        """Observation size of layout ``version`` (1 or 2) for this game: a prefix of the current layout."""
        if version == 1:
            return self.offsets["history"].start
        if version == OBSERVATION_LAYOUT_VERSION:
            return self.size
        raise ValueError(f"observation layout version {version!r}; known: 1, {OBSERVATION_LAYOUT_VERSION}")

    def rows(self) -> list[tuple[str, int, int]]:
        """(block, start, size) rows of the layout."""
        return [(name, sl.start, sl.stop - sl.start) for name, sl in self.offsets.items()]

    def layout(self) -> dict:
        """The layout as plain data, for a writer outside Python (the compiled core's, uno_env/core/observe.cpp).

        Block -> (start, size), the history fields likewise, each ``Phase``'s entry in the phase block (-1:
        none) in ``Phase`` order, and the divisors of the scaled entries.
        """
        g = self.game
        return {"size": self.size, "blocks": {name: (start, size) for name, start, size in self.rows()},
                "history_fields": {name: (self.history_at[name], size) for name, size in HISTORY_FIELDS},
                "phase_slots": [self._phase_index.get(p, -1) for p in Phase],
                "hand_size": g.hand_size, "deck_size": g.deck.size, "target_score": g.target_score,
                "max_players": g.variant.max_players, **self._variant_data()}

    def _variant_data(self) -> dict:
        # what the variants' blocks read of the rules besides the state (Flip's faces), for the core's writer
        g = self.game
        if not any(b.name == "flip" for b in self.extra_blocks):
            return {}
        from .cards import Effect

        return {"faces_per_side": g.faces_per_side, "face_index": list(g.face_index),
                "optimus_kinds": [g.effect_of[k] == Effect.OPTIMUS for k in range(g.num_kinds)]}

    def encode(self, s: State, seat: int) -> np.ndarray:
        """float32 observation of ``seat`` (a new array)."""
        obs = np.zeros(self.size, dtype=np.float32)
        self.encode_into(s, seat, obs)
        return obs

    def encode_into(self, s: State, seat: int, obs: np.ndarray) -> None:
        """Write the observation of ``seat`` into ``obs`` (a float32 row of ``size``; batched collectors reuse it)."""
        native = getattr(s, "_c", None)  # a state of the compiled core: its own encoder writes the row
        if native is not None and self._native_rows(obs):
            self._row_encoder.encode_into(native, seat, obs)
            return
        g = self.game
        o = self.offsets
        n = s.num_players
        obs[:] = 0.0
        obs[o["hand"]] = s.hands[seat]
        obs[o["top_card"].start + s.discard[-1]] = 1.0
        obs[o["colour"].start + s.colour] = 1.0
        if s.current_seat == seat:
            # only the deciding seat sees the decision: that a jump-in, a stack response or a
            # keep-or-play question exists at all depends on the decider's hidden cards
            obs[o["phase"].start + self._phase_index[s.phase]] = 1.0
            obs[o["deciding"].start] = 1.0
        obs[o["turn"].start + (s.turn_seat - seat) % n] = 1.0
        obs[o["direction"].start] = s.direction
        rel = [(seat + r) % n for r in range(n)]
        sizes = o["hand_sizes"].start
        obs[sizes:sizes + n] = [s.hand_size[q] / g.hand_size for q in rel]
        seats = o["seats"].start
        obs[seats:seats + n] = 1.0
        pen = s.penalty
        if pen is not None:
            p0 = o["penalty"].start
            obs[p0] = pen.total / 4.0
            obs[p0 + 1] = 1.0 if pen.target == seat else 0.0
            obs[p0 + 2] = 1.0 if pen.challenge is not None else 0.0
        obs[o["draw_pile"].start] = len(s.draw_pile) / g.deck.size
        obs[o["discard"]] = np.bincount(s.discard, minlength=g.num_kinds)
        shown = s.reveals[seat]
        if shown is not None:
            owner, counts = shown
            obs[o["revealed"]] = counts
            obs[o["revealed_by"].start + (owner - seat) % n] = 1.0
        sc = o["scores"].start
        obs[sc:sc + n] = [s.scores[q] / g.target_score for q in rel]
        for block in self.extra_blocks:
            block.fill(g, s, seat, obs[o[block.name]])
        h = o["history"].start
        at = self.history_at
        void_at, colour_at, one_at, two_at = at["voids"], at["last_colour"], at["one_card"], at["two_cards"]
        for r, q in enumerate(rel):
            base = h + HISTORY_PER_SEAT * r
            voids = s.voids[q]
            if voids:
                for c in range(4):
                    if voids >> c & 1:
                        obs[base + void_at + c] = 1.0
            if s.last_played[q] >= 0:
                obs[base + colour_at + s.last_played[q]] = 1.0
            size = s.hand_size[q]
            if size == 1:
                obs[base + one_at] = 1.0
            elif size == 2:
                obs[base + two_at] = 1.0


def layout_markdown() -> str:
    """Markdown tables of the observation and action layouts of every registered preset."""
    from .game import Game
    from .variants import VARIANTS

    lines = []
    for name in VARIANTS:
        game = Game(name, num_players=2)
        enc = ObservationEncoder(game)
        lines += [f"### {name}", "",
                  f"Observation: {enc.size} floats; actions: Discrete({game.num_actions}).", "",
                  "| observation block | start | size |", "|---|---|---|"]
        lines += [f"| {block} | {start} | {size} |" for block, start, size in enc.rows()]
        lines += ["", "| action ids | meaning |", "|---|---|"]
        lines += [f"| {ids} | {meaning} |" for ids, meaning in game.layout.rows()]
        lines.append("")
    return "\n".join(lines)
