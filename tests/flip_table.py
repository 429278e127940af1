"""The Flip rule tests' table: a Flip game and state built from a scenario spec, with the §6.7 invariants
(card conservation with fixed pairing, orientation to the active side, colour consistency, one empty hand at
the end) checked after every step, and readers of what the rules talk about (phase, legal actions, hands).

Shared by tests/rules/test_flip_rules.py and tests/rules/test_rules_audit_flip.py (a helper module, not a test module).
"""
from __future__ import annotations

import functools
from collections import Counter

from uno_env import Game

A, D = 0, 1
SIDE_COLOURS = {A: ("R", "Y", "G", "B"), D: ("Pk", "Tl", "Or", "Pu")}
SIDE_WILDS = {A: ("OPT", "W+2"), D: ("MEG", "WDC")}
DECK_SIZE = 112
# phases in which a wild on top may still be waiting for its colour
NO_COLOUR_YET = ("CHOOSE_COLOUR", "CHOOSE_TARGET", "OPTIMUS_PLACE")


# =========================================================================== helpers

@functools.lru_cache(maxsize=None)
def _game(n: int, options: tuple) -> Game:
    return Game("flip", num_players=n, **dict(options))


def game(n: int = 3, **options) -> Game:
    """A (cached, immutable) Flip game for ``n`` players with the given rule options."""
    return _game(n, tuple(sorted(options.items())))


def face_colour(face: str) -> str | None:
    """Colour of an active face name (``A:R+1`` -> R, ``D:Pk-SE`` -> Pk); None for a wild."""
    if ":" not in face:
        return None
    body = face.split(":", 1)[1]
    for c in ("Pk", "Tl", "Or", "Pu", "R", "Y", "G", "B"):
        if body.startswith(c):
            return c
    raise AssertionError(f"cannot read the colour of {face!r}")


def whole_cards(g: Game, s) -> Counter:
    """Multiset of all physical cards ``A-face|D-face`` (piles and hands), read from ``to_spec``."""
    spec = g.to_spec(s)
    cards = list(spec["discard"]) + list(spec["draw_pile"]) + [c for h in spec["hands"] for c in h]
    return Counter(cards)


def check_invariants(g: Game, s, base: Counter) -> None:
    """docs/rules.md §6.7 (and §1.1) invariants, Flip flavour."""
    spec = g.to_spec(s)
    side = s.side
    n = s.num_players
    names = g.deck.name_of
    cards = list(spec["discard"]) + list(spec["draw_pile"]) + [c for h in spec["hands"] for c in h]
    # card conservation; the pairing of faces never changes (§1.1, AMB-B2)
    assert len(cards) == DECK_SIZE, f"card conservation: {len(cards)} cards instead of {DECK_SIZE}"
    assert Counter(cards) == base, "the set of physical two-sided cards changed"
    assert spec["side"] == "AD"[side]
    # every card in piles and hands is oriented to the active side (§6.7 Flip)
    prefix = "AD"[side] + ":"
    active = [names[k] for k in s.discard] + [names[k] for k in s.draw_pile]
    for q in range(n):
        active += g.hand_cards(s, q)
    for f in active:
        assert f.startswith(prefix) or f in SIDE_WILDS[side], f"{f!r} is not a face of the active side"
    assert [c.split("|")[side] for c in spec["discard"]] == [names[k] for k in s.discard]
    assert [c.split("|")[side] for c in spec["draw_pile"]] == [names[k] for k in reversed(s.draw_pile)]
    for q in range(n):
        assert Counter(c.split("|")[side] for c in spec["hands"][q]) == Counter(g.hand_cards(s, q))
        assert s.hand_size[q] == len(spec["hands"][q]) >= 0
    # colour: one of the active side's colours; a coloured top card fixes it
    top = names[s.discard[-1]]
    tc = face_colour(top)
    if tc is not None:
        assert g.colour_name(s) == tc, f"top {top} but current colour {g.colour_name(s)}"
    elif not s.is_over and str(s.phase) not in NO_COLOUR_YET:
        assert g.colour_name(s) in SIDE_COLOURS[side]
    if s.is_over and s.winner is not None:
        assert [q for q in range(n) if s.hand_size[q] == 0] == [s.winner]


class Table:
    """A game and its state, with the invariants checked after every step."""

    def __init__(self, g: Game, s):
        self.g, self.s = g, s
        self.base = whole_cards(g, s)
        check_invariants(g, s, self.base)

    # ---- acting
    def step(self, *actions: str) -> "Table":
        for a in actions:
            self.g.step(self.s, a)
            check_invariants(self.g, self.s, self.base)
        return self

    def drive(self, script: dict) -> list[tuple]:
        """Answer decisions from ``script`` (phase -> FIFO list of actions) while the phase has one left.

        Returns the log of (phase, seat, action, legal actions) so that tests can check who decided what,
        without depending on the order of decisions the rules leave open.
        """
        todo = {k: list(v) for k, v in script.items()}
        log = []
        while not self.s.is_over and todo.get(str(self.s.phase)):
            phase = str(self.s.phase)
            action = todo[phase].pop(0)
            log.append((phase, self.s.current_seat, action, tuple(self.legal)))
            self.step(action)
        return log

    # ---- reading
    @property
    def legal(self) -> list[str]:
        return self.g.legal_action_strings(self.s)

    @property
    def phase(self) -> str:
        return str(self.s.phase)

    @property
    def current(self) -> int:
        return self.s.current_seat

    @property
    def top(self) -> str:
        return self.g.deck.name_of[self.s.discard[-1]]

    @property
    def discard(self) -> list[str]:
        return [self.g.deck.name_of[k] for k in self.s.discard]

    @property
    def colour(self) -> str:
        return self.g.colour_name(self.s)

    def hand(self, seat: int) -> Counter:
        return Counter(self.g.hand_cards(self.s, seat))

    def size(self, seat: int) -> int:
        return self.s.hand_size[seat]

    def sizes(self) -> list[int]:
        return list(self.s.hand_size)

    def spec(self) -> dict:
        return self.g.to_spec(self.s)

    def duel_names(self):
        kind, p, t, shown_p, shown_t = self.s.duel
        name = self.g.deck.name_of
        return name[kind], p, t, sorted(name[k] for k in shown_p), sorted(name[k] for k in shown_t)


def table(n: int = 3, side: str = "A", discard=("A:R5",), hands=None, draw_pile=None, colour=None,
          current: int = 0, direction: int = 1, seed: int = 0, **options) -> Table:
    """Build a Table from a scenario spec (README "Scenario specs")."""
    g = game(n, **options)
    spec = {"variant": "flip", "players": n, "side": side, "current": current, "direction": direction,
            "discard": list(discard), "seed": seed,
            "hands": [list(h) if isinstance(h, (list, tuple)) else h for h in hands]}
    if draw_pile is not None:
        spec["draw_pile"] = list(draw_pile)
    if colour is not None:
        spec["colour"] = colour
    return Table(g, g.state_from_spec(spec))


def nxt(p: int, k: int, d: int, n: int) -> int:
    """advance(p, k) = (p + k*dir) mod n (docs/rules.md §0.2)."""
    return (p + k * d) % n


def phases_of(log) -> list[tuple[str, int]]:
    return [(ph, seat) for ph, seat, _a, _l in log]


# Fixed filler hands / draw piles (no card over its copy count in any spec using them)
A_DRAW = ["A:Y1", "A:Y2", "A:Y3", "A:Y4", "A:Y5", "A:Y6"]
D_DRAW = ["D:Tl1", "D:Tl2", "D:Tl3", "D:Tl4", "D:Tl5", "D:Tl6"]


def a_filler(q: int) -> list[str]:
    return [f"A:G{q}", f"A:B{q}"]


def d_filler(q: int) -> list[str]:
    return [f"D:Or{q}", f"D:Pu{q}"]
