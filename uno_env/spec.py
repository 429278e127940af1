"""Scenario specs: build a state from a readable dict, and write any state back as one.

Format (docs/engine.md, "Scenario specs"); every key is optional:

    variant: classic            # must match the Game's variant
    players: 3                  # must match the Game's player count
    options: {stacking: any}    # must agree with the Game's options where stated
    seed: 0                     # orders every card the spec does not place, then drives reshuffles
    current: 0                  # seat to decide; the phase is a normal turn
    direction: 1
    discard: [R7, G5]           # bottom -> top; default: a number card from the unplaced ones (seeded)
    colour: G                   # required when the top card is a wild
    draw_pile: [R9, Y2]         # top-first; unplaced cards go below (or under the discard)
    hands: [[W4, G1, R2], 6, 6] # a list of cards, or a count filled from the unplaced cards
    scores: [0, 0, 0]
    unplaced: draw_pile         # or discard
    dealer: 0
    start: false                # true: turn the draw pile's top as the starter and apply the starter rule
    power: [true, false]        # Flex: per seat from P0, or {2: false}; seats not listed are true
    side: A                     # Flip: the active side
    launcher: [0, 1, 3]         # Attack: scripted burst sizes, one per press (an empty launcher reloads at once:
                                # the spec's turn is a turn's start)

``to_spec`` writes every card in place (so nothing is unplaced) and adds ``phase``, ``winner``
and ``pending``. A TURN-phase spec read back gives the same cards, seats, direction, colour, phase
and legal actions. Not carried by the format: the random generator's position (the spec's
``seed`` restarts it), the count of idle turns towards a blocked round, and which seat declared
a wild's colour (a spec with a wild on top assumes the previous seat did; this matters only to
the two-player wild-miss option). ``colour`` is null while a wild waits for its declaration.

A spec may come from a file or a web request, so its values are checked before use and every error
repeats at most a short excerpt of the value it names (``errors.short_repr``): a ``seed`` is an int
from 0 to ``MAX_SEED``, a card or colour at most ``MAX_NOTATION_CHARS`` characters of text, a
score at most ``MAX_SCORE`` either side of 0; card lists end at the deck's size.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

import numpy as np

from . import turn
from .cards import Effect
from .errors import CardNotationError, SpecError, short_repr
from .state import Phase, State

KNOWN_KEYS = ("variant", "players", "options", "seed", "current", "direction", "discard", "colour",
              "draw_pile", "hands", "scores", "unplaced", "dealer", "start", "phase", "winner", "pending")
VARIANT_KEYS = {"power": "flex", "side": "flip", "launcher": "attack", "eliminated": "attack"}

#: Largest ``seed``: 128 bits, the size of numpy's entropy pool (a longer int only costs time to convert).
MAX_SEED = 2**128 - 1
#: Characters a card or colour in a spec may have (the longest real card name is under 20).
MAX_NOTATION_CHARS = 64
#: Largest score a spec may give a seat, either side of 0.
MAX_SCORE = 10**9


def state_from_spec(g, spec: Mapping[str, Any]) -> State:
    """Build a state of game ``g`` from a scenario spec; SpecError names the offending key or card."""
    if not isinstance(spec, Mapping):
        raise SpecError(f"a scenario spec must be a mapping, got {type(spec).__name__}")
    _check_keys(g, spec)
    _check_rules(g, spec)
    n = g.num_players
    deck = g.deck
    seed = spec.get("seed", 0)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
        raise SpecError(f"seed = {short_repr(seed)} must be an int from 0 to 2**128 - 1")
    rng = np.random.default_rng(seed)
    start = _flag(spec, "start", False)

    if g.variant.spec_cards is not None:  # Flip: cards are read as their active-side faces
        pool, parse = g.variant.spec_cards(g, spec)
    else:
        pool, parse = Counter({k: c for k, c in enumerate(deck.count_of)}), deck.parse
    discard = _cards(g, spec, "discard", pool, parse)
    draw_top_first = _cards(g, spec, "draw_pile", pool, parse)
    hands_spec = spec.get("hands")
    if hands_spec is None:
        hands_spec = [g.hand_size] * n
    if not isinstance(hands_spec, (list, tuple)) or len(hands_spec) != n:
        raise SpecError(f"hands must be a list of {n} entries (a list of cards or a count per seat), got "
                        f"{short_repr(hands_spec)}")
    hands: list[list[int] | int] = []
    for seat, entry in enumerate(hands_spec):
        if isinstance(entry, bool) or not isinstance(entry, (int, list, tuple)):
            raise SpecError(f"hands[{seat}] = {short_repr(entry)} must be a list of cards or a card count")
        if isinstance(entry, int):
            if entry < 0:
                raise SpecError(f"hands[{seat}] = {short_repr(entry)} must be a non-negative count")
            hands.append(entry)
        else:
            hands.append(_card_list(g, entry, f"hands[{seat}]", pool, parse))

    unplaced = [k for k in sorted(pool) for _ in range(pool[k])]
    unplaced = [unplaced[i] for i in rng.permutation(len(unplaced))]
    s = State(n, g.num_kinds, rng)
    for seat, entry in enumerate(hands):
        if isinstance(entry, int):
            if entry > len(unplaced):
                raise SpecError(f"hands[{seat}] asks for {short_repr(entry)} cards but only {len(unplaced)} are left "
                                "unplaced")
            entry, unplaced = unplaced[:entry], unplaced[entry:]
        for k in entry:
            s.hands[seat][k] += 1
        s.hand_size[seat] = len(entry)
        if not entry and not _eliminated(spec, seat):  # (Attack: a seat out of an elimination match holds none)
            raise SpecError(f"hands[{seat}] is empty: a player without cards has already won; give P{seat} a card")

    if spec.get("discard") is None and not start:  # the default top card: the first plain number card unplaced
        top = next((i for i, k in enumerate(unplaced) if g.effect_of[k] == Effect.NUMBER and not g.is_wild[k]), None)
        if top is None:
            raise SpecError("discard: no number card is left unplaced to put on top; name the top card (discard: [R7])")
        discard = [unplaced.pop(top)]
    where = spec.get("unplaced", "draw_pile")
    if where not in ("draw_pile", "discard"):
        raise SpecError(f"unplaced = {short_repr(where)}; allowed: draw_pile, discard")
    if where == "discard":
        discard = unplaced + discard
        draw = list(reversed(draw_top_first))
    else:
        draw = list(reversed(draw_top_first + unplaced))
    s.draw_pile = draw
    s.discard = discard

    s.direction = _choice(spec, "direction", 1, (1, -1))
    s.dealer = _seat(spec, "dealer", 0, n)
    s.scores = _scores(spec, n)
    if g.variant.read_spec is not None:
        g.variant.read_spec(g, s, spec)
    if start:
        if spec.get("direction", 1) != 1:
            raise SpecError("direction: with start: true the starter rules set the direction (play starts clockwise)")
        if not s.draw_pile:
            raise SpecError("start: true turns the starter from the draw pile, but draw_pile is empty")
        g.variant.start_round(g, s)
        turn.run(g, s)
        return s

    if not discard:
        raise SpecError("discard must name at least the top card (or leave it out for a number card from the unplaced "
                        "ones, or set start: true to turn a starter)")
    top = discard[-1]
    s.colour = _colour(g, spec, top)
    current = _seat(spec, "current", 0, n)
    s.current_seat = s.turn_seat = s.next_seat = current
    s.phase = Phase.TURN
    s.colour_declarer = (current - s.direction) % n if g.is_wild[top] else -1
    s.ref_colour = s.colour
    if g.on_turn_start is not None:  # the spec's state is the start of a turn (Attack: an empty launcher reloads)
        g.on_turn_start(g, s)
    return s


def to_spec(g, s: State) -> dict:
    """The state as a scenario spec (every card placed) plus phase, winner and pending."""
    names = g.deck.name_of
    spec = {
        "variant": g.rules.variant,
        "players": s.num_players,
        "options": g.rules.changed_options(),
        "current": s.current_seat,
        "direction": s.direction,
        "discard": [names[k] for k in s.discard],
        "colour": None if g.is_wild[s.discard[-1]] and _colour_pending(g, s) else g.deck.colours[s.colour],
        "draw_pile": [names[k] for k in reversed(s.draw_pile)],
        "hands": [g.hand_cards(s, q) for q in range(s.num_players)],
        "scores": list(s.scores),
        "dealer": s.dealer,
        "phase": s.phase.value,
        "winner": s.winner,
        "pending": _pending(g, s),
    }
    if g.variant.write_spec is not None:
        g.variant.write_spec(g, s, spec)
    return spec


def _colour_pending(g, s: State) -> bool:
    """Whether the wild on top still waits for its colour (a step that declares it is waiting or queued)."""
    steps = g.colour_steps
    return (s.waiting is not None and s.waiting[0] in steps) or any(st[0] in steps for st in s.agenda)


def _pending(g, s: State) -> dict | None:
    out: dict[str, Any] = {}
    if s.turn_seat != s.current_seat and not s.is_over:
        out["turn"] = s.turn_seat
    if s.penalty is not None:
        out["penalty"] = s.penalty.as_dict()
    if s.phase is Phase.PLAY_OR_KEEP_DRAWN:
        out["drawn"] = g.deck.name_of[s.drawn_kind]
    if s.multi is not None:
        out["multi_play"] = {"rank": g.deck.rank_names[s.multi[0]], "placed": s.multi[1]}
    if s.phase is Phase.JUMP_IN:
        out["jump_in"] = g.deck.name_of[s.jump[0]]
    if s.phase is Phase.CHOOSE_TARGET:
        out["target_for"] = g.deck.name_of[s.discard[-1]]
    if s.flex_play:  # a FLEX play still resolving (its target / colour being chosen)
        out["flex_play"] = True
        if s.phase is Phase.CHOOSE_COLOUR and s.discard[-1] in g.flex_target_kinds:
            out["target"] = s.target
    if s.phase is Phase.CATCH or s.phase is Phase.UNO_CALL:
        out["uno"] = s.waiting[1]
    if s.is_over:
        out["truncated"] = s.truncated
        out["blocked"] = s.blocked
        out["round_points"] = list(s.round_points)
    return out or None


# --------------------------------------------------------------------------- validation helpers

def _check_keys(g, spec: Mapping) -> None:
    for key in spec:
        if key in VARIANT_KEYS and VARIANT_KEYS[key] != g.rules.variant:
            raise SpecError(f"spec key {short_repr(key)} applies only to the {VARIANT_KEYS[key]} variant, "
                            f"not {g.rules.variant!r}")
        if key not in KNOWN_KEYS and key not in VARIANT_KEYS:
            raise SpecError(f"unknown spec key {short_repr(key)}; allowed: {', '.join(KNOWN_KEYS)}")
    phase = spec.get("phase")
    if phase is not None and phase != "TURN":
        raise SpecError(f"phase = {short_repr(phase)}: a spec builds a normal TURN state; reach other phases by stepping")
    if spec.get("winner") is not None:
        raise SpecError("winner is set: a spec builds a game in progress (winner must be null or omitted)")
    if spec.get("pending"):
        raise SpecError("pending is set: a spec builds a normal TURN state with nothing pending")


def _check_rules(g, spec: Mapping) -> None:
    variant = spec.get("variant")
    if variant is not None and variant != g.rules.variant:
        raise SpecError(f"spec variant {short_repr(variant)} does not match this game's {g.rules.variant!r}; "
                        f"build the game with Game.from_spec(spec)")
    players = spec.get("players")
    if players is not None and players != g.num_players:
        raise SpecError(f"spec players = {short_repr(players)} does not match this game's {g.num_players}; "
                        f"build the game with Game.from_spec(spec)")
    options = spec.get("options") or {}
    if not isinstance(options, Mapping):
        raise SpecError(f"options = {short_repr(options)} must be a mapping of rule options")
    from .rules import RuleSet

    wanted = RuleSet.create(g.rules.variant, g.num_players, {**g.rules.options, **options})
    if wanted != g.rules:
        diff = {k: v for k, v in wanted.options.items() if g.rules.options[k] != v}
        raise SpecError(f"spec options {short_repr(diff, 200)} differ from this game's rule set; build the game with "
                        f"Game.from_spec(spec)")


def _cards(g, spec: Mapping, key: str, pool: Counter, parse) -> list[int]:
    value = spec.get(key)
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise SpecError(f"{key} must be a list of cards, got {short_repr(value)}")
    return _card_list(g, value, key, pool, parse)


def _card_list(g, cards, where: str, pool: Counter, parse) -> list[int]:
    out = []
    for i, text in enumerate(cards):
        if not isinstance(text, str) or len(text) > MAX_NOTATION_CHARS:  # (the deck's message would repeat it whole)
            raise CardNotationError(f"{where}[{i}]: card {short_repr(text)} must be a string in card notation of at "
                                    f"most {MAX_NOTATION_CHARS} characters, e.g. {g.deck.name_of[0]!r}")
        try:
            kind = parse(text)
        except SpecError as exc:
            raise type(exc)(f"{where}[{i}]: {exc}") from None
        if pool[kind] <= 0:
            count = g.deck.count_of[kind]
            raise SpecError(f"{where}[{i}]: card {g.deck.name_of[kind]!r} is named more times than the "
                            f"{g.deck.name} deck has ({count} {'copy' if count == 1 else 'copies'})")
        pool[kind] -= 1
        out.append(kind)
    return out


def _colour(g, spec: Mapping, top: int) -> int:
    given = spec.get("colour")
    if given is not None and (not isinstance(given, str) or len(given) > MAX_NOTATION_CHARS):
        raise CardNotationError(f"colour = {short_repr(given)} must be a colour of the {g.deck.name} deck, e.g. "
                                f"{g.deck.colours[0]!r}")
    if g.is_wild[top]:
        if given is None:
            raise SpecError(f"colour is required: the top card {g.deck.name_of[top]!r} is a wild")
        return g.deck.colour_index(given)
    own = g.colour_of[top]
    if given is not None and g.deck.colour_index(given) != own:
        raise SpecError(f"colour = {short_repr(given)} contradicts the coloured top card {g.deck.name_of[top]!r} "
                        f"(the current colour is the top card's colour)")
    return own


def _eliminated(spec: Mapping, seat: int) -> bool:
    out = spec.get("eliminated")
    return isinstance(out, (list, tuple)) and seat < len(out) and out[seat] is True


def _seat(spec: Mapping, key: str, default: int, n: int) -> int:
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
        raise SpecError(f"{key} = {short_repr(value)} must be a seat 0..{n - 1}")
    return value


def _choice(spec: Mapping, key: str, default, allowed: tuple):
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, type(default)) or value not in allowed:
        raise SpecError(f"{key} = {short_repr(value)}; allowed: {', '.join(map(str, allowed))}")
    return value


def _flag(spec: Mapping, key: str, default: bool) -> bool:
    value = spec.get(key, default)
    if not isinstance(value, bool):
        raise SpecError(f"{key} = {short_repr(value)} must be true or false")
    return value


def _scores(spec: Mapping, n: int) -> list[int]:
    value = spec.get("scores")
    if value is None:
        return [0] * n
    if not isinstance(value, (list, tuple)) or len(value) != n or \
            not all(isinstance(v, int) and not isinstance(v, bool) and -MAX_SCORE <= v <= MAX_SCORE for v in value):
        raise SpecError(f"scores = {short_repr(value)} must be a list of {n} ints, each at most {MAX_SCORE:,} "
                        "either side of 0")
    return list(value)
