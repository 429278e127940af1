"""UNO Flex (docs/rules.md §2.2 with the resolutions of §4.3): flex cards, power cards, targeted wilds.

Every play of a flex card or Flex Wild is REGULAR (``play <card>``) or FLEX (``play <card> flex``,
its own action ids). FLEX is legal only while the player's power card is green (✓) and the card
matches by its flex colour (or is one of the three Flex Wilds); it applies the card's flex effect
and turns the power card red (✘). After every card the power cards are updated in the order of
§2.2: FLEX play, flip icon, Wild All Flip, then the all-red reset. The targeted FLEX wilds (Target
Draw 2, Wild Draw Four) ask for their target (CHOOSE_TARGET) before the colour.
"""
from __future__ import annotations

from collections.abc import Mapping

from ..cards import Effect
from ..options import COMMON_OPTIONS, Option
from ..errors import SpecError, short_repr
from .. import turn
from ..hooks import TurnHooks
from .registry import VariantDef, register
from ..state import Phase

FLEX_OPTIONS: tuple[Option, ...] = (
    Option("flex.deck_manifest", "proposed", "deck manifest: 'proposed' (the packaged AMB-A1 manifest) or the "
           "path of a replacement YAML manifest", type=str),
    Option("flex.flex_requires_flex_colour_match", True, "a FLEX play of a coloured flex card needs its flex colour "
           "to be the current colour; false: any otherwise legal flex card may be played FLEX (AMB-A5)", type=bool),
    Option("flex.wd4_counts_flexable_cards", True, "a held flex card whose flex colour is the reference colour makes "
           "a REGULAR Wild Draw Four illegal while its player's power is ✓ (AMB-A10)", type=bool),
    Option("flex.wild_counts_as_match", True, "held wilds make a REGULAR Wild Draw Four illegal (AMB-A9)", type=bool),
    Option("flex.flex_w4f_restricted", False, "a FLEX Wild Draw Four keeps the restriction and can be challenged by "
           "its target (AMB-A7)", type=bool),
    Option("flex.allow_self_target", False, "targeted FLEX wilds may target their own player (AMB-A8)", type=bool),
)

TARGETED = (Effect.WILD_TARGET_DRAW_TWO, Effect.WILD_DRAW_FOUR)
FLEX_WILDS = (Effect.WILD_TARGET_DRAW_TWO, Effect.WILD_ALL_DRAW, Effect.WILD_DRAW_FOUR)


# --------------------------------------------------------------------------- effects

def _next(s, p: int) -> int:
    return (p + s.direction) % s.num_players


def _others_draw(g, s, p: int, count: int) -> None:
    """Every other seat draws ``count``, in turn order from the next seat (§2.2, for reproducibility)."""
    n = s.num_players
    for i in range(1, n):
        g.draw_cards(g, s, (p + i * s.direction) % n, count)


def effect_flex_skip(g, s, p, kind, count, final):
    """REGULAR: Skip. FLEX: every other player is skipped, the player takes a fresh turn."""
    if s.flex_play:
        s.next_seat = p
    else:
        turn.effect_skip(g, s, p, kind, count, final)


def effect_flex_reverse(g, s, p, kind, count, final):
    """REGULAR: Reverse. FLEX: reverse, then skip the next player in the new direction."""
    if s.flex_play:
        if final:  # a last card's reverse is not resolved (CORE-24)
            return
        s.direction = -s.direction
        s.next_seat = (p + 2 * s.direction) % s.num_players
    else:
        turn.effect_reverse(g, s, p, kind, count, final)


def effect_flex_draw_two(g, s, p, kind, count, final):
    """REGULAR: Draw Two. FLEX: every other player draws 1 and nobody is skipped."""
    if s.flex_play:
        _others_draw(g, s, p, 1)
        s.next_seat = _next(s, p)
    else:
        turn.effect_draw_two(g, s, p, kind, count, final)


def _target_draws(g, s, p: int, count: int, final: bool) -> None:
    """The chosen seat draws ``count``; not the player itself on its last card (CORE-24: draws on others only)."""
    if not (final and s.target == p):
        g.draw_cards(g, s, s.target, count)


def effect_target_draw_two(g, s, p, kind, count, final):
    """REGULAR: a plain wild. FLEX: the chosen player draws 2; the next player plays."""
    if s.flex_play:
        _target_draws(g, s, p, 2, final)
    s.next_seat = _next(s, p)


def effect_all_draw(g, s, p, kind, count, final):
    """REGULAR: a plain wild. FLEX: every other player draws 2; the next player plays."""
    if s.flex_play:
        _others_draw(g, s, p, 2)
    s.next_seat = _next(s, p)


def effect_flex_w4f(g, s, p, kind, count, final):
    """REGULAR: restricted Wild Draw Four (challengeable). FLEX: the chosen player draws 4, nobody skipped."""
    if not s.flex_play:
        turn.effect_wild_draw_four(g, s, p, kind, count, final)
    elif g.flex_w4f_restricted and not (final and s.target == p):
        # nobody challenges a draw aimed at themselves
        chal = (p, turn.holds_colour(g, s, p, s.ref_colour)) if g.bluffing and s.target != p else None
        turn.add_penalty(g, s, p, 4, Effect.WILD_DRAW_FOUR, chal, final, target=s.target, resume=_next(s, p))
    else:
        _target_draws(g, s, p, 4, final)
        s.next_seat = _next(s, p)


EFFECTS = {
    Effect.NUMBER: turn.effect_number,
    Effect.SKIP: turn.effect_skip,
    Effect.REVERSE: turn.effect_reverse,
    Effect.DRAW_TWO: turn.effect_draw_two,
    Effect.FLEX_SKIP: effect_flex_skip,
    Effect.FLEX_REVERSE: effect_flex_reverse,
    Effect.FLEX_DRAW_TWO: effect_flex_draw_two,
    Effect.WILD: turn.effect_wild,
    Effect.WILD_ALL_FLIP: turn.effect_wild,  # its power toggles are in power_updates
    Effect.WILD_TARGET_DRAW_TWO: effect_target_draw_two,
    Effect.WILD_ALL_DRAW: effect_all_draw,
    Effect.WILD_DRAW_FOUR: effect_flex_w4f,
}


def power_updates(g, s, p: int, kind: int) -> None:
    """The power-card updates of §2.2, in order, after the card's effect (AMB-A14)."""
    power = s.power
    if s.flex_play:
        power[p] = False
    if g.flip_icon_of[kind]:
        power[p] = not power[p]
    if g.effect_of[kind] == Effect.WILD_ALL_FLIP:
        for q in range(len(power)):
            power[q] = not power[q]
    if not any(power):
        for q in range(len(power)):
            power[q] = True


# --------------------------------------------------------------------------- legality

def flex_turn_plays(g, s, p: int) -> list[int]:
    """FLEX-mode play ids legal for seat ``p`` now, ascending: its flex cards that match, then its Flex Wilds."""
    if not s.power[p]:
        return []
    hand = s.hands[p]
    f0 = g.layout.flex0
    acts = [f0 + k for k in g.flex_playable_on[s.discard[-1]][s.colour] if hand[k]]
    for k in g.flex_wild_kinds:
        if hand[k] and not (k in g.flex_restricted_kinds and turn.holds_colour(g, s, p, s.colour, playing=k)):
            acts.append(f0 + k)
    return acts


def _flex_playable_on(g, requires_match: bool) -> tuple:
    """Table [top][colour] -> coloured flex kinds playable FLEX (by flex colour; or any legal one, AMB-A5)."""
    deck = g.deck
    flex_cards = [k for k in range(deck.num_kinds) if deck.flex_colour_of[k] >= 0]
    return tuple(
        tuple(tuple(k for k in flex_cards if deck.flex_colour_of[k] == c
                    or (not requires_match and k in g.playable_on[top][c]))
              for c in range(len(deck.colours)))
        for top in range(deck.num_kinds))


def configure(g, o) -> TurnHooks:
    """Flex's tables on the Game; its hooks into the turn machine."""
    deck = g.deck
    g.flex_w4f_restricted = o["flex.flex_w4f_restricted"]
    g.flip_icon_of = deck.flip_icon_of
    g.kinds_of_flex_colour = deck.kinds_of_flex_colour
    g.flex_playable_on = _flex_playable_on(g, o["flex.flex_requires_flex_colour_match"])
    g.flex_wild_kinds = tuple(k for k in deck.wild_kinds if deck.effect_of[k] in FLEX_WILDS)
    # a FLEX W4F keeps CORE-16's restriction only with flex_w4f_restricted (AMB-A7), enforced only without bluffing
    g.flex_restricted_kinds = frozenset(k for k in g.flex_wild_kinds if g.flex_w4f_restricted and not g.bluffing
                                        and deck.effect_of[k] == Effect.WILD_DRAW_FOUR)
    return TurnHooks(wild_counts_as_match=o["flex.wild_counts_as_match"],
                     flexable_counts=o["flex.wd4_counts_flexable_cards"], self_target=o["flex.allow_self_target"],
                     flex_target_kinds=frozenset(k for k in range(deck.num_kinds) if deck.effect_of[k] in TARGETED),
                     flex_turn_plays=flex_turn_plays, after_effect=power_updates)


# --------------------------------------------------------------------------- rules hooks

def can_respond_with(g, s, pen, kind: int) -> bool:
    """Flex has no stacking or deflection."""
    return False


# --------------------------------------------------------------------------- observation and specs

class PowerBlock:
    """Observation block: every seat's power card (1 = ✓), by relative seat."""

    name = "power"

    @staticmethod
    def size(game) -> int:
        """One entry per relative seat."""
        return game.variant.max_players

    @staticmethod
    def fill(g, s, seat: int, out) -> None:
        """Write the power states relative to ``seat``."""
        n = s.num_players
        power = s.power
        for r in range(n):
            out[r] = 1.0 if power[(seat + r) % n] else 0.0


_POWER_WORDS = {"✓": True, "✘": False, "on": True, "off": False, "green": True, "red": False}


def read_spec(g, s, spec) -> None:
    """The ``power`` key: per seat true/✓ or false/✘, as a list from P0 or a mapping by seat; seats not listed are ✓."""
    value = spec.get("power")
    if value is None:
        return
    n = s.num_players
    if isinstance(value, Mapping) and len(value) <= n:
        entries = [(_power_seat(key, n), v) for key, v in value.items()]
    elif isinstance(value, (list, tuple)) and len(value) <= n:
        entries = list(enumerate(value))
    else:
        raise SpecError(f"power = {short_repr(value)} must be a list of at most {n} entries from P0 on, or a mapping "
                        f"of at most {n} seats (true/✓ or false/✘ each; seats not listed are ✓)")
    power = [True] * n
    for seat, v in entries:
        if isinstance(v, str) and v.strip().lower() in _POWER_WORDS:
            v = _POWER_WORDS[v.strip().lower()]
        if not isinstance(v, bool):
            raise SpecError(f"power[{seat}] = {short_repr(v)} must be true/✓ or false/✘")
        power[seat] = v
    if not any(power):
        raise SpecError("power: every seat is ✘, which the all-✘ reset never leaves standing; set at least one true")
    s.power = power


def _power_seat(key, n: int) -> int:
    """A seat of the ``power`` mapping: 2, "2" or "P2"."""
    text = key.strip() if isinstance(key, str) else str(key) if isinstance(key, int) and abs(key) < 10**6 else ""
    text = text[1:] if text[:1] in "pP" else text
    if isinstance(key, bool) or not (text.isascii() and text.isdigit()) or len(text) > 6 or not 0 <= int(text) < n:
        raise SpecError(f"power: {short_repr(key)} is not a seat of this {n}-player game (write 0..{n - 1} or "
                        f"P0..P{n - 1})")
    return int(text)


def write_spec(g, s, spec) -> None:
    """Add the power states to a spec."""
    spec["power"] = list(s.power)


register(VariantDef(
    name="flex", min_players=2, max_players=8, hand_size=7, deck="flex", options=COMMON_OPTIONS + FLEX_OPTIONS,
    effects=EFFECTS, start_round=turn.number_starter, can_respond_with=can_respond_with, response_effects=(),
    targets=True, flex_plays=True, self_target_action=True, phases=(Phase.CHOOSE_TARGET,),
    configure=configure, deck_option="flex.deck_manifest", read_spec=read_spec, write_spec=write_spec,
    doc="UNO Flex, 104 cards + 8 power cards (docs/rules.md §2.2)",
    extra={"observation_blocks": (PowerBlock,)}))
