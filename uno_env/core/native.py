"""``NativeGame``: the engine facade on the compiled core, and ``NativeState``, a state that lives in it.

``Game(..., backend="native")`` builds a ``NativeGame``: the same immutable tables and action layout as
the Python ``Game`` (it is one), with the state-changing methods run by the core. A ``NativeState`` answers
the facade's questions (``current_seat``, ``phase``, ``is_over``, ``winner``, ``returns``) from the core;
any other ``State`` attribute (``hands``, ``discard``, ...) is read from a snapshot, so code that reads a
state works on both backends (slowly on this one: the hot paths belong in the core).

Scenario specs and ``to_spec`` go through the Python engine: a native state is turned into an equal Python
``State`` (``to_python``) and back (``from_python``), the round trip the differential tests check.
Hidden-information sampling runs in the core (``uno_env/core/sample.cpp``, the twin of ``uno_env/sampling.py``).
"""
from __future__ import annotations

import numpy as np

from .. import turn
from ..cards import Effect
from ..errors import IllegalActionError, RuleError
from ..game import Game
from ..sampling import _checked_kind_weights
from ..state import Penalty, Phase, State, _copy_generator
from ..variants import attack, classic, flex, flip
from . import _core

PHASES = tuple(Phase)
_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
#: The Python effect handlers the core mirrors, in the order of engine.hpp's Handler.
HANDLERS = (turn.effect_number, turn.effect_skip, turn.effect_reverse, turn.effect_draw_two, turn.effect_wild,
            turn.effect_wild_draw_four, flex.effect_flex_skip, flex.effect_flex_reverse, flex.effect_flex_draw_two,
            flex.effect_target_draw_two, flex.effect_all_draw, flex.effect_flex_w4f, attack.effect_discard_all,
            attack.effect_hit_one, attack.effect_hit_two, attack.effect_wild_attack, flip.effect_draw_one,
            flip.effect_draw_five, flip.effect_skip_everyone, flip.effect_flip, flip.effect_wild_draw_two,
            flip.effect_wild_draw_colour)
#: The starter rules the core mirrors, in the order of engine.hpp's Starter.
STARTERS = (classic.start_round, turn.number_starter, attack.start_round)
_LAUNCHERS = ("geometric", "categorical", "fixed", "scripted")
_WILD_ATTACK_RESUME = ("second_from_attacker", "next_after_attacker", "next_after_target")
_STACKING = ("off", "draw_two_only", "same_value", "any")
_DEALER = ("clockwise", "random", "winner")


def rules_tables(g: Game) -> dict:
    """The tables and options of ``g`` as the core reads them (``Rules`` in uno_env/core/engine.hpp)."""
    L = g.layout
    k = g.num_kinds
    unknown = sorted({g.deck.name_of[kind] for kind in range(k) if g.effect_fn_of[kind] not in HANDLERS})
    if unknown:
        raise RuleError(f"the compiled core has no effect for {', '.join(unknown)}; use backend='python'")
    if g.variant.start_round not in STARTERS:
        raise RuleError(f"the compiled core does not cover the {g.variant.name!r} rules yet; use backend='python'")
    is_flex = g.flex_turn_plays is not None
    is_attack = getattr(g, "launcher", None) is not None
    launcher = g.launcher if is_attack else None
    phys = g.physical
    return {
        "flip": phys is not None,
        "duel_kind": [kind in getattr(g, "duel_kinds", ()) for kind in range(k)],
        **({"rng_pairing": phys.rng_pairing, "megatron_missing_loses": bool(g.megatron_missing_loses),
            "optimus_place_requires_match": bool(g.optimus_place_requires_match),
            "last_card_flip_resolves": bool(g.last_card_flip_resolves),
            "until_wild_satisfies": bool(g.until_wild_satisfies), "fixed_pairing": list(phys.fixed),
            "a_faces": list(phys.a_faces), "d_faces": list(phys.d_faces), "number_kinds": list(g.number_kinds),
            "number_value": list(g.number_value)} if phys is not None else {}),
        "handler": [HANDLERS.index(g.effect_fn_of[kind]) for kind in range(k)],
        "starter": STARTERS.index(g.variant.start_round),
        "attack": is_attack,
        "attack_kind": [kind in getattr(g, "attack_kinds", ()) for kind in range(k)],
        **({"empty_press_progress": bool(g.empty_press_progress), "mass_hit_after_first": bool(g.mass_hit_after_first),
            "reverse_starter_right": bool(g.reverse_starter_right),
            "launcher_model": _LAUNCHERS.index(launcher.model), "max_burst": launcher.max_burst,
            "fixed_k": launcher.fixed_k, "wild_attack_resume": _WILD_ATTACK_RESUME.index(g.wild_attack_resume),
            "p_fire": float(launcher.p_fire), "q": float(launcher.q),
            "cumulative": [float(c) for c in launcher.cumulative]} if is_attack else {}),
        "flex": is_flex, "flexable_counts": bool(g.flexable_counts), "self_target_allowed": bool(g.self_target),
        "flex_w4f_restricted": bool(getattr(g, "flex_w4f_restricted", False)),
        "flip_icon": [bool(getattr(g, "flip_icon_of", (False,) * k)[kind]) for kind in range(k)],
        "flex_target": [kind in g.flex_target_kinds for kind in range(k)],
        "flex_restricted": [kind in getattr(g, "flex_restricted_kinds", ()) for kind in range(k)],
        "kinds_of_flex_colour": [list(c) for c in g.deck.kinds_of_flex_colour],
        "flex_playable_on": [list(row[c]) for row in g.flex_playable_on for c in range(4)] if is_flex else [],
        "flex_wild_kinds": list(getattr(g, "flex_wild_kinds", ())),
        "num_players": g.num_players, "num_kinds": k, "hand_size": g.hand_size,
        "colour_of": list(g.colour_of), "rank_of": list(g.rank_of), "effect_of": [int(e) for e in g.effect_of],
        "points_of": list(g.points_of), "is_wild": list(g.is_wild),
        "restricted": [kind in g.restricted_kinds for kind in range(k)],
        "multi_effect": [g.effect_of[kind] in g.multi_effects for kind in range(k)],
        "kinds_of_colour": [list(c) for c in g.kinds_of_colour], "kinds_of_rank": [list(r) for r in g.kinds_of_rank],
        "wild_kinds": list(g.wild_kinds), "response_kinds": list(g.response_kinds),
        "deck_array": g.deck_array.tolist(),
        "draw": L.draw, "colour0": L.colour0, "target0": L.target0, "self_target": L.self_target, "flex0": L.flex0,
        "challenge": L.challenge, "accept": L.accept, "call": L.call, "no_call": L.no_call, "catch": L.catch,
        "pass": L.pass_, "num_actions": g.num_actions,
        "uno_asks": g.uno_asks, "uno_decide": g.uno_mode == "decide", "bluffing": bool(g.bluffing),
        "winner_takes": g.scoring == "winner_takes", "match": bool(g.match), "elimination": bool(g.elimination),
        "reverse_as_skip": bool(g.reverse_as_skip), "draw_until_playable": bool(g.draw_until_playable),
        "jump_in": g.jump_in, "jump_in_wild": bool(g.jump_in_wild), "multi_play": g.multi_play,
        "multi_any_legal": g.multi_any_legal, "multi_any_subset": g.multi_any_subset, "madness": g.madness,
        "madness_free": g.madness_free, "wild_counts_as_match": bool(g.wild_counts_as_match),
        "target_score": g.target_score, "max_steps": g.max_steps, "wild_miss_draw": g.wild_miss_draw,
        "uno_penalty": g.uno_penalty, "challenge_fail_extra": g.challenge_fail_extra,
        "dealer_rotation": _DEALER.index(g.dealer_rotation), "stacking": _STACKING.index(g.stacking),
    }


class NativeState:
    """A game held by the compiled core; reads like a ``State`` (see the module docstring)."""

    __slots__ = ("_c", "_game", "_snapshot")

    def __init__(self, core_state, game: "NativeGame"):
        # through the slots' own setters, past __setattr__ (which refuses every other name): states are made
        # by the thousand in a search
        _set_core(self, core_state)
        _set_game(self, game)
        _set_snapshot(self, None)  # (decisions taken, the Python State read from the core then)

    @property
    def current_seat(self) -> int:
        return self._c.current_seat

    @property
    def phase(self) -> Phase:
        return PHASES[self._c.phase_index]

    @property
    def is_over(self) -> bool:
        return self._c.is_over

    @property
    def winner(self) -> int | None:
        return self._c.winner

    @property
    def truncated(self) -> bool:
        return self._c.truncated

    @property
    def blocked(self) -> bool:
        return self._c.blocked

    @property
    def steps(self) -> int:
        return self._c.steps

    @property
    def side(self) -> int:
        return self._c.side

    @property
    def num_players(self) -> int:
        return self._c.num_players

    @property
    def rng(self) -> np.random.Generator:
        return self._c.generator

    returns = State.returns

    @property
    def top_card(self) -> int:
        return _core.state_to_dict(self._c)["discard"][-1]

    def __setattr__(self, name: str, value) -> None:
        if name in NativeState.__slots__:
            object.__setattr__(self, name, value)
            return
        raise AttributeError(f"a native state changes only through the facade (Game.step); {name!r} cannot be set "
                             f"here: build the game with backend='python' to edit a state directly")

    def __getattr__(self, name: str):
        if name in State.__slots__:  # read-only view of the rest, as a Python State holds it
            # a native state changes only by a step, which counts: one snapshot serves every read until then
            steps = self._c.steps
            if self._snapshot is None or self._snapshot[0] != steps:
                self._snapshot = (steps, _frozen_view(self.to_python(copy_rng=False)))
            return getattr(self._snapshot[1], name)
        raise AttributeError(f"'NativeState' object has no attribute {name!r}")

    def clone(self, rng: np.random.Generator | None = None) -> "NativeState":
        """Independent copy, including the generators' positions (or both drawing from ``rng``)."""
        if rng is None:  # copied in the core (a PCG64's position is 32 bytes)
            return NativeState(_core.clone_exact(self._c), self._game)
        return NativeState(_core.clone(self._c, rng, rng if self._c.has_launcher else None), self._game)

    def to_python(self, copy_rng: bool = True) -> State:
        """An equal Python ``State`` (with its own copies of the generators unless ``copy_rng`` is false)."""
        d = _core.state_to_dict(self._c)
        if copy_rng and d["launcher_rng"] is not None:
            d["launcher_rng"] = _copy_generator(d["launcher_rng"])
        return to_python(self._game, d, _core.generator_copy(self._c) if copy_rng else self._c.generator)

    def __repr__(self) -> str:
        return f"NativeState(phase={self.phase.value}, current_seat={self.current_seat}, steps={self.steps})"


_set_core, _set_game, _set_snapshot = NativeState._c.__set__, NativeState._game.__set__, NativeState._snapshot.__set__


class FrozenList(list):
    """A list read from a native state's snapshot: an edit would be lost with the snapshot, so it is refused."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("a native state's lists are read-only (a copy of the core's state): change the state "
                        "through Game.step, or build the game with backend='python' to edit a state directly")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse


def _frozen_view(s: State) -> State:
    for name in State.__slots__:
        value = getattr(s, name, None)
        if isinstance(value, list):
            object.__setattr__(s, name, FrozenList(FrozenList(v) if isinstance(v, list) else v for v in value))
    return s


def to_python(g: Game, d: dict, rng: np.random.Generator) -> State:
    """A Python ``State`` from the core's dict of slots."""
    s = State(g.num_players, g.num_kinds, rng)
    for name in ("hands", "hand_size", "draw_pile", "discard", "colour", "direction", "turn_seat", "current_seat",
                 "agenda", "waiting", "next_seat", "drawn_kind", "ref_colour", "colour_declarer", "reveals",
                 "winner", "is_over", "truncated", "blocked", "scores", "round_points", "round_winner", "dealer",
                 "round_index", "steps", "idle_turns", "progress", "power", "flex_play", "target", "side",
                 "eliminated", "voids", "last_played", "shown", "legal", "launcher_rng", "launcher_script",
                 "deck_cards", "physical_draw", "physical_discard", "physical_hands", "duel"):
        setattr(s, name, d[name])
    s.phase = PHASES[d["phase"]]
    pen = d["penalty"]
    s.penalty = None if pen is None else Penalty(*pen)
    s.multi = None if d["multi"] is None else list(d["multi"])
    s.jump = d["jump"]
    return s


def from_python(g: "NativeGame", s: State, rng: np.random.Generator | None = None) -> NativeState:
    """A ``NativeState`` equal to the Python state ``s`` (drawing from ``rng``, default ``s.rng`` itself)."""
    d = {name: getattr(s, name) for name in State.__slots__ if name not in ("rng", "penalty", "phase", "multi")}
    d["phase"] = _PHASE_INDEX[s.phase]
    d["multi"] = None if s.multi is None else tuple(s.multi)
    pen = s.penalty
    d["penalty"] = None if pen is None else (pen.total, pen.target, int(pen.last_effect), pen.challenge, pen.resume,
                                             pen.until, pen.origin, pen.cards, pen.deflected)
    return NativeState(_core.state_from_dict(g._tables, d, s.rng if rng is None else rng), g)


class NativeGame(Game):
    """``Game`` whose states live in the compiled core (``Game(..., backend="native")``)."""

    backend = "native"

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self._tables = _core.Rules(rules_tables(self))

    def __reduce__(self):  # the core's tables are rebuilt from the rules in another process
        return (_rebuild, (self.rules,))

    # ------------------------------------------------------------- states

    def new_state(self, seed: int | None = None) -> NativeState:
        if type(seed) is int and 0 <= seed < 2 ** 64:  # PCG64(seed) seeded and held by the core
            s = NativeState(_core.new_state_seeded(self._tables, seed), self)
        else:
            s = NativeState(_core.new_state(self._tables, np.random.Generator(np.random.PCG64(seed))), self)
        self._recent = s
        return s

    def state_from_spec(self, spec: dict) -> NativeState:
        s = self._recent = from_python(self, Game.state_from_spec(self, spec))
        return s

    def to_spec(self, state) -> dict:
        return Game.to_spec(self, state.to_python(copy_rng=False) if isinstance(state, NativeState) else state)

    def clone(self, state: NativeState) -> NativeState:
        return NativeState(_core.clone_exact(state._c), self)

    def sample_hidden(self, state, seat, rng, share_rng=False, void_weight=1.0, kind_weights=None):
        # uno_env/sampling.py's sample_hidden: the same checks and seeding draws here, the redeal in the core
        # (uno_env/core/sample.cpp), drawing from ``rng`` in the same order
        c = state._c
        n = self.num_players
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not a seat of this {n}-player game (0..{n - 1})")
        if not 0.0 <= void_weight <= 1.0:
            raise ValueError(f"void_weight {void_weight!r} is out of range: a weight in [0, 1] (1 ignores the voids)")
        if kind_weights is not None:
            kind_weights = _checked_kind_weights(self, state, kind_weights)
        # the copy (onto ``rng``, or on generators seeded from it) and the redeal, in one call
        t = _core.sample_hidden(self._tables, c, seat, rng, share_rng, void_weight, kind_weights)
        return NativeState(t, self)

    # ------------------------------------------------------------- legal actions

    def legal_actions(self, s: NativeState) -> list[int]:
        return _core.legal_actions(self._tables, s._c)

    def legal_action_mask(self, s: NativeState, out: np.ndarray | None = None) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8) if out is None else out
        _core.legal_action_mask(self._tables, s._c, mask)
        return mask

    def legal_action_masks(self, states, out: np.ndarray) -> np.ndarray:
        for i, s in enumerate(states):
            _core.legal_action_mask(self._tables, s._c, out[i])
        return out

    # ------------------------------------------------------------- stepping

    def step(self, s: NativeState, action) -> NativeState:
        if type(action) is not int:
            action = self._coerce_action(s, action)
        if not 0 <= action < self.num_actions:
            self._reject(s, action, self.legal_actions(s))
        if not _core.step(self._tables, s._c, action):
            if s.is_over:
                raise IllegalActionError("the game is over: no action is legal")
            self._reject(s, action, self.legal_actions(s))
        self._recent = s
        return s


def _rebuild(rules) -> NativeGame:
    return NativeGame(rules)


__all__ = ["NativeGame", "NativeState", "rules_tables", "to_python", "from_python", "Effect"]
