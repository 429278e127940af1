"""``Game``: the engine facade (docs/engine.md, "Using the engine").

A ``Game`` is immutable: the rule set, the deck's lookup tables and the action layout. All
mutable data is in ``State``. ``step`` validates an action against the legal ones before it
changes anything, so an ``IllegalActionError`` leaves the state as it was.

    >>> from uno_env import Game
    >>> game = Game("classic", num_players=3, stacking="any")
    >>> state = game.new_state(seed=0)
    >>> game.legal_action_strings(state)[-1]
    'draw'
"""
from __future__ import annotations

import os
from functools import partial
from itertools import chain
from typing import Any

import numpy as np

from . import core, turn
from .actions import AbsoluteTarget, ActionLayout
from .cards import Effect, load_deck, load_deck_file
from .errors import ActionParseError, IllegalActionError, RuleError
from .hooks import TURN_HOOK_NAMES, TurnHooks
from .rules import RuleSet
from .state import Phase, State
from .variants import get_variant

_TURN = Phase.TURN


class Game:
    """Rules and lookup tables of one rule set; every method takes the ``State`` it works on."""

    backend = "python"
    """Which engine runs the states: ``"python"`` here, ``"native"`` for the compiled core (``uno_env/core``)."""

    def __new__(cls, rules: RuleSet | str = "classic", num_players: int | None = None,
                options: dict | None = None, backend: str | None = None, **kw: Any):
        # the core by default where it is built and covers the rules (core.resolve): a NativeGame is the
        # same facade on the core; backend="python" or UNO_ENV_BACKEND=python keeps the reference
        if cls is Game and core.resolve(backend, cls._rule_set(rules, num_players, options, kw)) == "native":
            from .core.native import NativeGame

            return object.__new__(NativeGame)
        return object.__new__(cls)

    def __getnewargs_ex__(self):  # unpickled and copied games stay on their backend
        return (), {"backend": "python"}

    @staticmethod
    def _rule_set(rules, num_players, options, kw) -> RuleSet:
        if isinstance(rules, RuleSet):
            if num_players is not None or options or kw:
                return RuleSet.create(rules.variant, num_players or rules.num_players,
                                      {**rules.options, **(options or {}), **kw})
            return rules
        return RuleSet.create(rules, 2 if num_players is None else num_players, options, **kw)

    def __init__(self, rules: RuleSet | str = "classic", num_players: int | None = None,
                 options: dict | None = None, backend: str | None = None, **kw: Any):
        self.rules = rules = self._rule_set(rules, num_players, options, kw)
        self.variant = vdef = get_variant(rules.variant)
        self.num_players = rules.num_players
        self.hand_size = vdef.hand_size
        self.deck = deck = self._load_deck(vdef, rules)
        self.layout = ActionLayout(deck, vdef.max_players, vdef.flex_plays, vdef.targets, vdef.draw_word,
                                   self_target=vdef.self_target_action)
        self.num_actions = self.layout.size
        self.draw_id = self.layout.draw
        self._init_tables()
        self._init_options(rules.options)
        self._handlers = {
            Phase.TURN: self._on_turn,
            Phase.CHOOSE_COLOUR: self._on_colour,
            Phase.PLAY_OR_KEEP_DRAWN: self._on_play_or_keep,
            Phase.CHALLENGE_OR_ACCEPT: self._on_response,
            Phase.STACK_RESPONSE: self._on_response,
            Phase.UNO_CALL: self._on_uno_call,
            Phase.CATCH: self._on_catch,
            Phase.JUMP_IN: self._on_jump_in,
            Phase.MULTI_PLAY: self._on_multi_play,
            Phase.CHOOSE_TARGET: self._on_target,
        }
        for phase, handler in self.extra_handlers.items():  # a variant's own phases: handler(g, s, action, legal)
            self._handlers[phase] = partial(handler, self)

    @staticmethod
    def _load_deck(vdef, rules):
        if vdef.deck_option is not None:
            path = rules.options[vdef.deck_option]
            if path != "proposed":  # a replacement manifest file (docs/rules.md: the proposals are data)
                import yaml

                try:
                    return load_deck_file(path)
                except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError) as exc:
                    raise RuleError(f"rule option {vdef.deck_option!r} = {path!r}: cannot read a deck manifest "
                                    f"there ({type(exc).__name__}: {exc}); allowed: 'proposed' or the path of a "
                                    f"YAML manifest like uno_env/decks/{vdef.deck}.yaml") from None
        return load_deck(vdef.deck)

    # ----------------------------------------------------------------- construction helpers

    def _init_tables(self) -> None:
        deck = self.deck
        self.num_kinds = deck.num_kinds
        self.colour_of = deck.colour_of
        self.rank_of = deck.rank_of
        self.effect_of = deck.effect_of
        self.points_of = deck.points_of
        self.is_wild = deck.is_wild
        self.kinds_of_colour = deck.kinds_of_colour
        self.kinds_of_rank = deck.kinds_of_rank
        self.wild_kinds = deck.wild_kinds
        self.deck_array = np.repeat(np.arange(deck.num_kinds), deck.count_of)
        # playable_on[top][colour]: kinds that may be placed on `top` when `colour` is current (CORE-9)
        # a row depends only on the top card's rank (none for a wild) and the colour: built once per pair
        rows: dict = {}
        match = []
        for top in range(deck.num_kinds):
            rank = None if deck.is_wild[top] else deck.rank_of[top]
            row = []
            for c in range(len(deck.colours)):
                if (rank, c) not in rows:
                    rows[rank, c] = tuple(k for k in range(deck.num_kinds) if deck.is_wild[k]
                                          or deck.colour_of[k] == c or (rank is not None and deck.rank_of[k] == rank))
                row.append(rows[rank, c])
            match.append(tuple(row))
        self.playable_on = tuple(match)
        self.restricted_kinds = frozenset(k for k in range(deck.num_kinds)
                                          if deck.effect_of[k] in self.variant.restricted_effects)
        self.response_kinds = tuple(k for k in range(deck.num_kinds)
                                    if deck.effect_of[k] in self.variant.response_effects)
        self.multi_effects = frozenset((Effect.NUMBER, Effect.SKIP, Effect.REVERSE, Effect.DRAW_TWO))

    def _init_options(self, o) -> None:
        v = self.variant
        self.effects = [v.effects.get(e) for e in range(max(Effect) + 1)]
        self.effect_fn_of = tuple(self.effects[e] for e in self.effect_of)  # kind -> effect handler (hot path)
        missing = sorted({self.deck.name_of[k] for k in range(self.num_kinds) if self.effects[self.effect_of[k]] is None})
        if missing:  # e.g. a replacement manifest with a card this variant's rules do not define
            raise RuleError(f"the {self.deck.name} deck has cards whose effect the {v.name} rules do not define: "
                            f"{', '.join(missing)}; allowed effects: "
                            f"{', '.join(Effect(e).name.lower() for e in v.effects)}")
        self.can_respond_with = v.can_respond_with
        self.challenge_fail_extra = v.challenge_fail_extra
        self.uno_mode = o["uno_call"]
        self.uno_asks = self.uno_mode in ("decide", "explicit")
        self.uno_penalty = 2
        self.bluffing = o.get("restricted_wild_bluffing", True)  # (Attack has no restricted wild)
        self.scoring = o["scoring_method"]
        self.target_score = o["target_score"]
        self.elimination = o["scoring_method"] == "elimination"  # (Attack) always a whole match
        self.match = o["match"] or self.elimination
        self.dealer_rotation = o["dealer_rotation"]
        self.reverse_as_skip = o["two_player_reverse_as_skip"]
        self.max_steps = o["max_steps"]
        self.draw_until_playable = o.get("draw_rule") == "draw_until_playable"
        self.wild_miss_draw = o.get("two_player_wild_miss_draw", 1)
        self.stacking = o.get("stacking", "off")
        self.jump_in = o.get("jump_in", "off") == "on"
        self.jump_in_wild = o.get("jump_in_allow_wild", False)
        self.multi_play = o.get("multi_play", "off") == "on"
        self.multi_any_legal = o.get("multi_play_first_match") == "any_legal"
        self.multi_any_subset = o.get("multi_play_subset") == "any_subset"
        self.madness = o.get("madness", "off") == "on"
        self.madness_free = o.get("madness_colour_rule") == "free"
        self._recent = None                   # the state this game built or stepped last (strings without a state)
        # the variant's changes to the turn machine, all listed in uno_env/hooks.py; copied onto the game,
        # where the hot path reads them
        self.hooks = hooks = v.configure(self, o) if v.configure is not None else TurnHooks()
        for name in TURN_HOOK_NAMES:
            setattr(self, name, getattr(hooks, name))
        if hooks.wild_counts_as_match is None:
            self.wild_counts_as_match = v.wild_counts_as_match
        # TURN plays are just the held cards matching the top: no strict restricted wilds, no FLEX plays
        self._plain_turns = self.bluffing and self.flex_turn_plays is None

    def __repr__(self) -> str:
        changed = self.rules.changed_options()
        extra = "".join(f", {k}={v!r}" for k, v in changed.items())
        return f"Game({self.rules.variant!r}, num_players={self.num_players}{extra})"

    # ----------------------------------------------------------------- states

    def new_state(self, seed: int | None = None) -> State:
        """A dealt game with the starter resolved, waiting for its first decision."""
        rng = np.random.Generator(np.random.PCG64(seed))  # = default_rng(seed), without its dispatch
        s = State(self.num_players, self.num_kinds, rng)
        s.dealer = int(rng.integers(self.num_players))
        turn.deal_round(self, s)
        turn.run(self, s)
        self._recent = s
        return s

    @classmethod
    def from_spec(cls, spec: dict) -> "Game":
        """The game a scenario spec describes (its variant, players and options)."""
        from .errors import SpecError

        if not isinstance(spec, dict):
            raise SpecError(f"a scenario spec must be a mapping, got {type(spec).__name__}")
        players = spec.get("players")
        if players is None and isinstance(spec.get("hands"), (list, tuple)):
            players = len(spec["hands"])
        return cls(spec.get("variant", "classic"), players, spec.get("options") or {})

    def state_from_spec(self, spec: dict) -> State:
        """A state built from a scenario spec (docs/engine.md, "Scenario specs")."""
        from .spec import state_from_spec

        s = self._recent = state_from_spec(self, spec)
        return s

    def to_spec(self, state: State) -> dict:
        """The state as a scenario spec, plus phase, winner, pending and scores."""
        from .spec import to_spec

        return to_spec(self, state)

    def clone(self, state: State) -> State:
        """Independent copy of a state (for search)."""
        return state.clone()

    def sample_hidden(self, state: State, seat: int, rng: np.random.Generator, share_rng: bool = False,
                      void_weight: float = 1.0, kind_weights: np.ndarray | None = None) -> State:
        """A copy of ``state`` with everything ``seat`` cannot see redrawn at random (``uno_env/sampling.py``)."""
        from .sampling import sample_hidden

        return sample_hidden(self, state, seat, rng, share_rng, void_weight, kind_weights)

    # ----------------------------------------------------------------- legal actions

    def legal_actions(self, s: State) -> list[int]:
        """Legal action ids of the deciding seat, ascending; empty once the game is over."""
        acts = s.legal
        if acts is None:
            acts = s.legal = self._compute_legal(s)
        return acts[:]  # a copy: the cached list drives step()

    def legal_action_mask(self, s: State, out: np.ndarray | None = None) -> np.ndarray:
        """int8 mask over the whole action space (written into ``out`` when given, e.g. a row of a batch)."""
        if out is None:
            mask = np.zeros(self.num_actions, dtype=np.int8)
        else:
            mask = out
            mask[:] = 0
        acts = s.legal
        if acts is None:
            acts = s.legal = self._compute_legal(s)
        mask[acts] = 1
        return mask

    def legal_action_masks(self, states: list[State], out: np.ndarray) -> np.ndarray:
        """Row i of ``out`` (int8, one row per state) set to ``legal_action_mask(states[i])``, all rows in one write."""
        legal = []
        for s in states:
            acts = s.legal
            if acts is None:
                acts = s.legal = self._compute_legal(s)
            legal.append(acts)
        lengths = np.fromiter(map(len, legal), dtype=np.int64, count=len(legal))
        ids = np.fromiter(chain.from_iterable(legal), dtype=np.int64, count=int(lengths.sum()))
        out[:] = 0
        out[np.repeat(np.arange(len(legal)), lengths), ids] = 1
        return out

    def legal_action_strings(self, s: State) -> list[str]:
        """Legal actions as strings."""
        return [self.action_to_string(a, s) for a in self.legal_actions(s)]

    def _compute_legal(self, s: State) -> list[int]:
        phase = s.phase
        L = self.layout
        p = s.current_seat
        if phase is Phase.TURN:
            if self._plain_turns:  # (inline: the most common decision) the cards matching the top, then draw
                hand = s.hands[p]
                acts = [k for k in self.playable_on[s.discard[-1]][s.colour] if hand[k]]
            else:
                acts = self._turn_plays(s, p)
            acts.append(L.draw)
            return acts
        if phase is Phase.CHOOSE_COLOUR:
            return [L.colour0, L.colour0 + 1, L.colour0 + 2, L.colour0 + 3]
        if phase is Phase.PLAY_OR_KEEP_DRAWN:
            return self._drawn_card_plays(s, p, s.drawn_kind) + [L.pass_]
        if phase is Phase.CHOOSE_TARGET:
            acts = [L.target0 + off - 1 for off in range(1, s.num_players)
                    if not s.eliminated[(p + off) % s.num_players]]
            if self.self_target:
                acts.append(L.self_target)
            return acts
        if phase is Phase.CHALLENGE_OR_ACCEPT or phase is Phase.STACK_RESPONSE:
            return turn.response_actions(self, s)
        if phase is Phase.UNO_CALL:
            return [L.call, L.no_call]
        if phase is Phase.CATCH:
            return [L.catch, L.pass_]
        if phase is Phase.JUMP_IN:
            return [s.jump[0], L.pass_]
        if phase is Phase.MULTI_PLAY:
            hand = s.hands[p]
            acts = [k for k in self.kinds_of_rank[s.multi[0]] if hand[k]]
            if self.multi_any_subset or s.multi[1] == 1:
                acts.append(L.pass_)
            return acts
        legal = self.extra_legal.get(phase)
        return legal(self, s) if legal is not None else []

    def _turn_plays(self, s: State, p: int) -> list[int]:
        hand = s.hands[p]
        acts = [k for k in self.playable_on[s.discard[-1]][s.colour] if hand[k]]
        if not self.bluffing:
            acts = [k for k in acts if k not in self.restricted_kinds
                    or not turn.holds_colour(self, s, p, s.colour, playing=k)]
        if self.flex_turn_plays is not None:
            acts += self.flex_turn_plays(self, s, p)
        return acts

    def _drawn_card_plays(self, s: State, p: int, kind: int) -> list[int]:
        """Legal ways to play the card just drawn (its regular play, and its FLEX play in Flex)."""
        acts = []
        if kind in self.playable_on[s.discard[-1]][s.colour] and (
                self.bluffing or kind not in self.restricted_kinds
                or not turn.holds_colour(self, s, p, s.colour, playing=kind)):
            acts.append(kind)
        if self.flex_turn_plays is not None and self.layout.flex0 + kind in self.flex_turn_plays(self, s, p):
            acts.append(self.layout.flex0 + kind)
        return acts

    # ----------------------------------------------------------------- stepping

    def step(self, s: State, action: int | str) -> State:
        """Apply one decision of the deciding seat; raises IllegalActionError (state unchanged) if not legal."""
        if s.is_over:
            raise IllegalActionError("the game is over: no action is legal")
        if type(action) is not int:
            action = self._coerce_action(s, action)
        legal = s.legal
        if legal is None:
            legal = s.legal = self._compute_legal(s)
        if action not in legal:
            self._reject(s, action, legal)
        s.legal = None
        phase = s.phase
        side, round_index = s.side, s.round_index
        if phase is _TURN:  # the common decision, without the (Python-level) Enum hash of a dict lookup
            if action == self.draw_id:  # public history: it drew on this colour (placements: turn.play_card)
                s.voids[s.current_seat] |= 1 << s.colour
            self._on_turn(s, action, legal)
        else:
            self._handlers[phase](s, action, legal)
        if s.side != side or s.round_index != round_index:
            # a new deal, or Flip's other side (whose colours mean other cards): earlier evidence is void
            s.voids = [0] * s.num_players
            s.last_played = [-1] * s.num_players
        s.steps += 1
        if not s.is_over and s.steps >= self.max_steps:
            s.truncated = True
            s.winner = turn.match_leader(self, s) if self.match else None
            turn.finish(s)
        self._recent = s  # what an action string without a state is read against
        return s

    def _coerce_action(self, s: State, action: Any) -> int:
        if isinstance(action, str):
            return self.action_from_string(action, s)
        if isinstance(action, AbsoluteTarget):
            return self.action_from_string(action.text, s)
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            return int(action)
        raise IllegalActionError(f"action must be an int id (or an action string), got {action!r}")

    def _reject(self, s: State, action: int, legal: list[int]) -> None:
        try:
            shown = self.action_to_string(action, s)
        except ActionParseError:
            shown = f"id {action} (outside the action space 0..{self.num_actions - 1})"
        options = ", ".join(f"{a}={self.action_to_string(a, s)}" for a in legal)
        raise IllegalActionError(f"{shown!r} is not legal for P{s.current_seat} in phase {s.phase.value}; "
                                 f"legal actions: {options}")

    def _on_turn(self, s: State, a: int, legal: list[int]) -> None:
        p = s.current_seat
        if a == self.draw_id:
            if self.draw_action is not None:
                self.draw_action(self, s, p)
            else:
                self._draw_action(s, p, forced=len(legal) == 1)
            return
        if a >= self.num_kinds:  # a FLEX-mode play
            turn.play_card(self, s, p, a - self.layout.flex0, flex=True)
            return
        if self.multi_play and self._starts_multi_play(s, p, a):
            turn.note_placement(self, s, p, a)
            s.ref_colour = s.colour
            s.hands[p][a] -= 1
            s.hand_size[p] -= 1
            s.discard.append(a)
            s.colour = self.colour_of[a]
            s.progress = True
            s.multi = [self.rank_of[a], 1]
            s.phase = Phase.MULTI_PLAY
            return
        turn.play_card(self, s, p, a)

    def _starts_multi_play(self, s: State, p: int, kind: int) -> bool:
        if self.effect_of[kind] not in self.multi_effects:
            return False
        if not self.multi_any_legal and self.colour_of[kind] != s.colour:
            return False
        hand = s.hands[p]
        return sum(hand[k] for k in self.kinds_of_rank[self.rank_of[kind]]) >= 2

    def _draw_action(self, s: State, p: int, forced: bool) -> None:
        n = s.num_players
        if n == 2 and self.wild_miss_draw == 2 and self.is_wild[s.discard[-1]] \
                and s.colour_declarer not in (-1, p):
            self.draw_cards(self, s, p, 2)  # two-player wild miss, harder option (AMB-F6)
        elif self.draw_until_playable and forced:
            first = True
            while True:
                kind = self.draw_one(self, s, p)
                if kind < 0:
                    break
                if self._drawn_card_plays(s, p, kind):
                    if first:
                        self._offer_drawn(s, kind)
                    else:
                        turn.play_card(self, s, p, kind, drawn=True)  # HR-5: the card found later must be played
                    return
                first = False
        else:
            kind = self.draw_one(self, s, p)
            if kind >= 0 and self._drawn_card_plays(s, p, kind):
                self._offer_drawn(s, kind)
                return
        s.next_seat = (p + s.direction) % n
        s.agenda.append(turn.END_TURN_STEP)
        turn.run(self, s)

    def _offer_drawn(self, s: State, kind: int) -> None:
        s.drawn_kind = kind
        s.phase = Phase.PLAY_OR_KEEP_DRAWN

    def _on_colour(self, s: State, a: int, legal: list[int]) -> None:
        s.colour = a - self.layout.colour0
        s.colour_declarer = s.current_seat
        turn.run(self, s)

    def _on_play_or_keep(self, s: State, a: int, legal: list[int]) -> None:
        p = s.current_seat
        s.drawn_kind = -1
        if a == self.layout.pass_:
            s.next_seat = (p + s.direction) % s.num_players
            s.agenda.append(turn.END_TURN_STEP)
            turn.run(self, s)
        elif a >= self.num_kinds:
            turn.play_card(self, s, p, a - self.layout.flex0, flex=True, drawn=True)
        else:
            turn.play_card(self, s, p, a, drawn=True)

    def _on_target(self, s: State, a: int, legal: list[int]) -> None:
        L = self.layout
        p = s.current_seat
        s.target = p if a == L.self_target else (p + a - L.target0 + 1) % s.num_players
        turn.run(self, s)

    def _on_response(self, s: State, a: int, legal: list[int]) -> None:
        t = s.current_seat
        L = self.layout
        if a == L.accept:
            turn.absorb(self, s)
            turn.run(self, s)
        elif a == L.challenge:
            turn.challenge(self, s, t)
            turn.run(self, s)
        else:
            s.turn_seat = t
            turn.play_card(self, s, t, a, response=True)

    def _on_uno_call(self, s: State, a: int, legal: list[int]) -> None:
        p = s.current_seat
        if a == self.layout.no_call:
            if self.uno_mode == "decide":
                turn.penalty_draw(self, s, p)  # opponents always catch in `decide`
            else:
                s.agenda.append((turn.CATCH, p, 1))
        turn.run(self, s)

    def _on_catch(self, s: State, a: int, legal: list[int]) -> None:
        _, p, i = s.waiting
        if a == self.layout.catch:
            turn.penalty_draw(self, s, p)
        elif i + 1 < s.num_players:
            s.agenda.append((turn.CATCH, p, i + 1))
        turn.run(self, s)

    def _on_jump_in(self, s: State, a: int, legal: list[int]) -> None:
        q = s.current_seat
        if a == self.layout.pass_:
            s.agenda.append(s.waiting)  # continue the poll after this seat
            turn.run(self, s)
            return
        s.jump = None
        s.turn_seat = q
        turn.play_card(self, s, q, a)

    def _on_multi_play(self, s: State, a: int, legal: list[int]) -> None:
        p = s.current_seat
        rank, placed = s.multi
        if a != self.layout.pass_:
            turn.note_placement(self, s, p, a)
            s.hands[p][a] -= 1
            s.hand_size[p] -= 1
            s.discard.append(a)
            s.colour = self.colour_of[a]
            placed += 1
            s.multi[1] = placed
            hand = s.hands[p]
            if any(hand[k] for k in self.kinds_of_rank[rank]):
                return  # more cards of the rank: keep deciding
        s.multi = None
        turn.resolve_placement(self, s, p, s.discard[-1], placed)

    # ----------------------------------------------------------------- action strings

    def action_to_string(self, action: int, state: State | None = None) -> str:
        """Readable action (``play R7``, ``colour B``, ``target P2``, ``pass`` …) as ``state``'s deciding seat reads it.

        Without a state, as the state this game built or stepped last reads it (targets by absolute seat,
        Flip's colours by the active side's names).
        """
        state = self._recent if state is None else state
        seat = state.current_seat if state is not None and state.current_seat >= 0 else None
        return self.layout.to_string(action, seat, self.num_players, self.colour_names(state))

    def action_from_string(self, text: str, state: State | None = None) -> int:
        """Action id of an action string; an absolute target (``target P2``) is read against ``state``'s deciding seat.

        Without a state, against the state this game built or stepped last (a target's id keeps its
        text, so ``step`` reads it again against the state it is applied to; colours of either Flip side
        are read).
        """
        if state is not None:
            return self.layout.from_string(text, state.current_seat, self.num_players, self.colour_names(state),
                                           state.side)
        recent = self._recent
        seat = recent.current_seat if recent is not None and recent.current_seat >= 0 else 0
        action = self.layout.from_string(text, seat, self.num_players, None, recent.side if recent is not None else 0)
        words = text.split()
        if len(words) == 2 and words[0].lower() == "target" and words[1][:1] in "pP":
            return AbsoluteTarget(action, text)
        return action

    def colour_names(self, state: State | None = None) -> tuple[str, ...] | None:
        """Names of the colours as the state reads them (Flip: the active side's); None: the deck's own."""
        sides = self.deck.side_colours
        if not sides or state is None:
            return None
        return sides[state.side]

    # ----------------------------------------------------------------- cards

    def card_name(self, kind: int) -> str:
        """Canonical notation of a card kind."""
        return self.deck.name_of[kind]

    def parse_card(self, text: str) -> int:
        """Kind id of a card in notation."""
        return self.deck.parse(text)

    def colour_name(self, s: State, colour: int | None = None) -> str:
        """Name of a colour index (default: the current colour) as the state reads it."""
        names = self.colour_names(s) or self.deck.colours
        return names[s.colour if colour is None else colour]

    def hand_cards(self, s: State, seat: int) -> list[str]:
        """A seat's hand in card notation, sorted by kind (Flip: active faces; ``to_spec`` writes both)."""
        names = self.deck.name_of
        return [names[k] for k, c in enumerate(s.hands[seat]) for _ in range(c)]
