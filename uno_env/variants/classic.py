"""The Classic family: Classic (§2.1), Alphabet (§2.5) and Xiangqi (§2.6), with the house rules of §3.

The three presets share effects, starter rule and house rules; they differ in deck (the
manifests in ``uno_env/decks``) and hand size (Alphabet deals 14).
"""
from __future__ import annotations

from ..cards import Effect
from ..errors import SpecError
from ..options import CLASSIC_FAMILY_OPTIONS, COMMON_OPTIONS, Option
from .. import turn
from .registry import VariantDef, register

EFFECTS = {
    Effect.NUMBER: turn.effect_number,
    Effect.SKIP: turn.effect_skip,
    Effect.REVERSE: turn.effect_reverse,
    Effect.DRAW_TWO: turn.effect_draw_two,
    Effect.WILD: turn.effect_wild,
    Effect.WILD_DRAW_FOUR: turn.effect_wild_draw_four,
}


def start_round(g, s) -> None:
    """Turn the starter and apply §2.1's rules (WD4 back under the pile; Reverse, Skip, +2, Wild)."""
    pile = s.draw_pile
    n = s.num_players
    dealer = s.dealer
    for _ in range(len(pile)):
        kind = pile.pop()
        if g.effect_of[kind] != Effect.WILD_DRAW_FOUR:
            break
        pile.insert(0, kind)  # a WD4 starter goes to the bottom of the draw pile
    else:  # (only a scenario spec with start: true can leave nothing else to turn; a deal never does)
        raise SpecError("start: the draw pile holds only Wild Draw Fours, which never stay as the starter; "
                        "put another card in it")
    s.discard.append(kind)
    effect = g.effect_of[kind]
    s.direction = 1
    first = (dealer + 1) % n
    if effect == Effect.WILD or effect == Effect.WILD_DRAW_FOUR:
        # the first player declares the colour, then takes a normal turn (AMB-F3)
        s.agenda.append(turn.start_turn_step(first))
        s.agenda.append((turn.COLOUR, first))
        return
    s.colour = g.colour_of[kind]
    if effect == Effect.REVERSE:
        s.direction = -1
        first = dealer
    elif effect == Effect.SKIP:
        first = (dealer + 2) % n
    elif effect == Effect.DRAW_TWO:
        g.draw_cards(g, s, (dealer + 1) % n, 2)
        first = (dealer + 2) % n
    s.agenda.append(turn.start_turn_step(first))


def can_respond_with(g, s, pen, kind: int) -> bool:
    """Whether ``kind`` may answer the pending penalty: a stack (HR-1) or a deflection (HR-4)."""
    effect = g.effect_of[kind]
    top = s.discard[-1]
    free = g.madness and g.madness_free  # HR-4's colour rule; it does not loosen plain stacking
    if effect == Effect.DRAW_TWO:
        if g.stacking == "off" or (pen.last_effect == Effect.WILD_DRAW_FOUR and g.stacking != "any"):
            return False
        if free or (g.madness and g.effect_of[top] == Effect.WILD_DRAW_FOUR):
            return True  # HR-4: any-colour function cards against a WD4, a +2 as a stack where HR-1 allows it
        if g.is_wild[top]:  # +2 on a WD4: must have its declared colour
            return g.colour_of[kind] == s.colour
        return g.colour_of[kind] == s.colour or g.rank_of[kind] == g.rank_of[top]
    if effect == Effect.WILD_DRAW_FOUR:
        if g.stacking in ("off", "draw_two_only"):
            return False
        if g.stacking == "same_value" and pen.last_effect != Effect.WILD_DRAW_FOUR:
            return False
        return g.bluffing or not turn.holds_colour(g, s, pen.target, s.colour, playing=kind)
    # Skip / Reverse: deflection
    if not g.madness:
        return False
    if free or g.effect_of[top] == Effect.WILD_DRAW_FOUR:  # any colour against a WD4 (HR-4)
        return True
    return g.colour_of[kind] == s.colour or g.rank_of[kind] == g.rank_of[top]


_OPTIONS = COMMON_OPTIONS + CLASSIC_FAMILY_OPTIONS
#: Alphabet's deck: the source's stated total (216) contradicts its own itemised parts (272), AMB-D1
ALPHABET_OPTIONS = _OPTIONS + (
    Option("alphabet.deck", "itemised_272", "the deck: the 272 itemised cards (the stated total of 216 cannot be "
           "built from the per-colour counts, AMB-D1)", choices=("itemised_272",)),)

for _name, _hand, _doc, _options in (
        ("classic", 7, "Classic UNO, 108 cards (docs/rules.md §2.1)", _OPTIONS),
        ("alphabet", 14, "Alphabet UNO, 272 cards, 14 dealt (docs/rules.md §2.5)", ALPHABET_OPTIONS),
        ("xiangqi", 7, "Xiangqi (Chinese chess) UNO, 96 cards (docs/rules.md §2.6)", _OPTIONS)):
    register(VariantDef(
        name=_name, min_players=2, max_players=10, hand_size=_hand, deck=_name, options=_options,
        effects=EFFECTS, start_round=start_round, can_respond_with=can_respond_with,
        response_effects=(Effect.DRAW_TWO, Effect.WILD_DRAW_FOUR, Effect.SKIP, Effect.REVERSE),
        doc=_doc))
