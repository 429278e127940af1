"""UNO FLIP! Transformers edition (docs/rules.md §2.3 with the resolutions of §4.4): two-sided cards and duels.

A physical card pairs one A face (AUTOBOTS, light) with one D face (DÉCEPTICONS, dark); the
pairing is made once per game (``flip.pairing``). The turn machine sees only the active faces
(hands as counts per face kind, piles as lists of face kinds, exactly as in the one-sided
variants); ``FlipCards`` keeps the physical cards beside them, so that a FLIP can turn the piles
and hands over and the observation can show every seat the back faces it may see (§1.13).

Duels: Optimus Prime and Megatron ask for a target (CHOOSE_TARGET), then the duel is resolved;
the Optimus winner places up to two cards under it (OPTIMUS_PLACE, one decision per card), then
the duel winner declares the colour (CHOOSE_COLOUR).
"""
from __future__ import annotations

from collections import Counter
from math import gcd

from ..cards import Effect
from ..errors import SpecError, short_repr
from ..options import COMMON_OPTIONS, Option
from ..state import Phase
from .. import turn
from ..hooks import TurnHooks
from .registry import VariantDef, register

FLIP_OPTIONS: tuple[Option, ...] = (
    Option("flip.deck_manifest", "proposed", "deck manifest: 'proposed' (the packaged AMB-B1 two-sided manifest) or "
           "the path of a replacement YAML manifest", type=str),
    Option("flip.pairing", "random_per_deck", "which A face is printed on the back of which D face: drawn per game "
           "from its seed, or the fixed published permutation (AMB-B2)", choices=("random_per_deck", "fixed")),
    Option("flip.starter_policy", "ignore_non_number", "a starter whose active face is not a number is left in "
           "the discard pile and the next card turned (AMB-B6)", choices=("ignore_non_number",)),
    Option("flip.wild_counts_as_match", True, "held wilds make a Wild +2 / Wild Draw Colour illegal (AMB-B22)",
           type=bool),
    Option("flip.wdc_wild_satisfies", False, "a drawn wild ends a Wild Draw Colour's drawing (AMB-B21)", type=bool),
    Option("flip.megatron_no_number", "cannot_be_lowest", "Megatron duel player without number cards: cannot "
           "hold the lowest card, or counts as lowest (AMB-B16)", choices=("cannot_be_lowest", "counts_as_lowest")),
    Option("flip.optimus_place_requires_match", False, "cards placed under Optimus must match the card they "
           "cover (AMB-B11: by default any card)", type=bool),
    Option("flip.last_card_flip_resolves", True, "a FLIP played as the last card is performed before scoring, "
           "so the round is scored on the new side (AMB-B10)", type=bool),
)

DUEL_WILDS = (Effect.OPTIMUS, Effect.MEGATRON)
# agenda steps of this variant, after the shared ones
DUEL, OPTIMUS_PLACE_STEP = len(turn.STEPS), len(turn.STEPS) + 1


def _next(s, p: int) -> int:
    return (p + s.direction) % s.num_players


# --------------------------------------------------------------------------- physical cards

class FlipCards:
    """The two-sided physical cards of one game: code ``a * K + d`` for A face ``a`` and D face ``d``."""

    def __init__(self, game, fixed_pairing: bool):
        deck = game.deck
        self.K = deck.num_kinds
        self.rng_pairing = not fixed_pairing
        a_faces = [k for k in range(self.K) if deck.side_of[k] == 0 for _ in range(deck.count_of[k])]
        d_faces = [k for k in range(self.K) if deck.side_of[k] == 1 for _ in range(deck.count_of[k])]
        self.a_faces, self.d_faces = a_faces, d_faces
        self.fixed = tuple(sorted(a * self.K + d for a, d in zip(a_faces, _fixed_permutation(d_faces))))

    def face(self, code: int, side: int) -> int:
        """Face kind of a physical card on ``side``."""
        return code // self.K if side == 0 else code % self.K

    def code(self, face: int, back: int, side: int) -> int:
        """Physical card whose ``side`` face is ``face`` and other face ``back``."""
        return face * self.K + back if side == 0 else back * self.K + face

    def pairing(self, rng) -> tuple[int, ...]:
        """The game's 112 physical cards: a random bijection of faces (from ``rng``) or the fixed one."""
        if not self.rng_pairing:
            return self.fixed
        d = [self.d_faces[i] for i in rng.permutation(len(self.d_faces))]
        return tuple(sorted(a * self.K + b for a, b in zip(self.a_faces, d)))

    def new_round(self, s) -> None:
        """Shuffle every physical card into the draw pile, A faces active (each round starts on the A side)."""
        if not s.deck_cards:
            s.deck_cards = self.pairing(s.rng)
        s.side = 0
        cards = [s.deck_cards[i] for i in s.rng.permutation(len(s.deck_cards))]
        s.physical_draw = cards
        s.draw_pile = [c // self.K for c in cards]
        s.physical_discard = []
        s.physical_hands = [[] for _ in range(s.num_players)]
        s.duel = None

    def take(self, s, seat: int, kind: int) -> int:
        """Remove from ``seat``'s physical hand a card whose active face is ``kind``.

        Its player cannot tell such cards apart (it does not see their backs); the one with the smallest
        code goes, so the choice does not depend on the hand's order (which ``to_spec`` does not keep).
        """
        cards = s.physical_hands[seat]
        side = s.side
        best = -1
        for i, c in enumerate(cards):
            if self.face(c, side) == kind and (best < 0 or c < cards[best]):
                best = i
        if best < 0:
            raise AssertionError(f"seat {seat} holds no physical card with face {kind}")
        return cards.pop(best)

    def place(self, s, p: int, kind: int, drawn: bool = False) -> None:
        """Turn-machine hook: the card just placed on the discard pile (face ``kind``) leaves ``p``'s hand.

        ``drawn``: it is the card ``p`` has just drawn (CORE-7: that card only), the last one it took, even
        when it holds another with the same face.
        """
        cards = s.physical_hands[p]
        if drawn and cards and self.face(cards[-1], s.side) == kind:
            s.physical_discard.append(cards.pop())
        else:
            s.physical_discard.append(self.take(s, p, kind))

    def flip_over(self, s) -> None:
        """The Flip procedure's turning (§2.3 steps 2-5): piles turned over as wholes, hands turned, side switched."""
        side = 1 - s.side
        s.side = side
        s.shown = []  # known cards are counted by active face: the sampler forgets them at a side change
        face = self.face
        s.physical_discard.reverse()
        s.physical_draw.reverse()
        s.discard = [face(c, side) for c in s.physical_discard]
        s.draw_pile = [face(c, side) for c in s.physical_draw]
        s.hands = [self.counts(cards, side) for cards in s.physical_hands]

    def counts(self, cards: list[int], side: int) -> list[int]:
        """Cards per face kind of ``side`` (a hand's counts from its physical cards)."""
        hand = [0] * self.K
        for c in cards:
            hand[self.face(c, side)] += 1
        return hand

    def backs(self, s, seat: int) -> list[int]:
        """Inactive faces of ``seat``'s hand (what the other seats see of it)."""
        other = 1 - s.side
        return [self.face(c, other) for c in s.physical_hands[seat]]

    def draw_top_back(self, s) -> int:
        """Inactive face of the draw pile's top card (public), or -1 when the pile is empty."""
        return self.face(s.physical_draw[-1], 1 - s.side) if s.physical_draw else -1


def _fixed_permutation(items: list) -> list:
    """The published fixed pairing: D face instance ``(29 i + 7) mod N`` goes behind A face instance ``i``."""
    n = len(items)
    step = 29
    while gcd(step, n) != 1:
        step += 2
    return [items[(step * i + 7) % n] for i in range(n)]


def draw_one(g, s, seat: int) -> int:
    """``seat`` draws one physical card; returns its active face, or -1 when nothing can be drawn."""
    if not s.draw_pile and not reshuffle(g, s):
        return -1
    kind = s.draw_pile.pop()
    s.physical_hands[seat].append(s.physical_draw.pop())
    s.hands[seat][kind] += 1
    s.hand_size[seat] += 1
    s.progress = True
    return kind


def draw_cards(g, s, seat: int, count: int) -> int:
    """``seat`` draws up to ``count`` cards; returns how many it got."""
    got = 0
    while got < count and draw_one(g, s, seat) >= 0:
        got += 1
    return got


def reshuffle(g, s) -> bool:
    """Every discard but the top card becomes the new draw pile, active sides down (CORE-11, AMB-B24)."""
    if len(s.discard) <= 1:
        return False
    rest = s.physical_discard[:-1]
    s.rng.shuffle(rest)
    side = s.side
    s.physical_draw = rest
    s.draw_pile = [g.physical.face(c, side) for c in rest]
    s.discard = s.discard[-1:]
    s.physical_discard = s.physical_discard[-1:]
    return True


# --------------------------------------------------------------------------- effects

def effect_draw_one(g, s, p, kind, count, final):
    """+1: the next seat draws 1 and loses its turn."""
    turn.add_penalty(g, s, p, 1, Effect.DRAW_ONE, None, final)


def effect_draw_five(g, s, p, kind, count, final):
    """+5: the next seat draws 5 and loses its turn."""
    turn.add_penalty(g, s, p, 5, Effect.DRAW_FIVE, None, final)


def effect_skip_everyone(g, s, p, kind, count, final):
    """Skip Everyone: every other seat is skipped; the player takes a fresh turn."""
    s.next_seat = p


def effect_flip(g, s, p, kind, count, final):
    """FLIP: turn everything over (§2.3 Flip procedure); the new top's action is not executed."""
    s.next_seat = _next(s, p)
    if final and not g.last_card_flip_resolves:
        return
    g.physical.flip_over(s)
    top = s.discard[-1]
    if g.is_wild[top]:
        if not final:
            s.agenda.append((turn.COLOUR, p))  # the FLIP's player declares a colour of the new side
    else:
        s.colour = g.colour_of[top]
        s.colour_declarer = -1


def effect_wild_draw_two(g, s, p, kind, count, final):
    """Wild +2: restricted; the next seat draws 2 and loses its turn, or challenges."""
    chal = (p, turn.holds_colour(g, s, p, s.ref_colour)) if g.bluffing and not final else None
    turn.add_penalty(g, s, p, 2, Effect.WILD_DRAW_TWO, chal, final)


def effect_wild_draw_colour(g, s, p, kind, count, final):
    """Wild Draw Colour: restricted; the next seat draws until the declared colour and loses its turn."""
    chal = (p, turn.holds_colour(g, s, p, s.ref_colour)) if g.bluffing and not final else None
    turn.add_penalty(g, s, p, 0, Effect.WILD_DRAW_COLOUR, chal, final, until=s.colour)


EFFECTS = {
    Effect.NUMBER: turn.effect_number,
    Effect.SKIP: turn.effect_skip,
    Effect.REVERSE: turn.effect_reverse,
    Effect.DRAW_ONE: effect_draw_one,
    Effect.FLIP: effect_flip,
    Effect.OPTIMUS: turn.effect_wild,  # the duel was resolved before (DUEL step); the next seat plays
    Effect.WILD_DRAW_TWO: effect_wild_draw_two,
    Effect.DRAW_FIVE: effect_draw_five,
    Effect.SKIP_EVERYONE: effect_skip_everyone,
    Effect.MEGATRON: turn.effect_wild,
    Effect.WILD_DRAW_COLOUR: effect_wild_draw_colour,
}


# --------------------------------------------------------------------------- duels

def wild_steps(g, s, p: int, kind: int) -> list[tuple]:
    """A duel wild asks for its target, then duels (the winner declares the colour); other wilds for a colour.

    The duel player's UNO call, when the duel wild left it one card, comes before the duel (§1.6 step 7:
    before any decision of another player).
    """
    if kind in g.duel_kinds:
        if s.hand_size[p] == 0:
            return []  # a duel wild as the last card: the round ends, no duel (AMB-B15)
        call = [(turn.UNO, p)] if s.hand_size[p] == 1 and g.uno_asks else []
        return [(DUEL, p, kind), *call, (turn.TARGET, p)]
    return [(turn.COLOUR, p)]


def _number_values(deck) -> tuple[int, ...]:
    """Printed number of each number face (its rank, e.g. 'A:7' -> 7); 0 for other faces."""
    values = []
    for k in deck.kinds:
        label = k.rank.split(":")[-1]
        values.append(int(label) if k.effect == Effect.NUMBER and label.isdigit() else k.points)
    return tuple(values)


def _numbers(g, s, seat: int) -> list[int]:
    """Number faces held by ``seat`` (kinds, with repeats)."""
    hand = s.hands[seat]
    return [k for k in g.number_kinds for _ in range(hand[k])]


def _duel(g, s, step):
    """Resolve the duel of the Optimus / Megatron just placed by ``p`` against ``s.target``."""
    _, p, kind = step
    t = s.target
    value = g.number_value  # the printed number 1-9 decides (not the points)
    if g.effect_of[kind] == Effect.OPTIMUS:
        best_p = max(_numbers(g, s, p), key=value.__getitem__, default=-1)
        best_t = max(_numbers(g, s, t), key=value.__getitem__, default=-1)
        # tie or a target without numbers: the originator wins; an originator without numbers loses (AMB-B12)
        winner = p if best_t < 0 or (best_p >= 0 and value[best_p] >= value[best_t]) else t
        s.duel = (kind, p, t, (best_p,) if best_p >= 0 else (), (best_t,) if best_t >= 0 else ())
        for seat, best in ((p, best_p), (t, best_t)):
            if best >= 0:
                turn.show_cards(s, -1, seat, [int(k == best) for k in range(g.num_kinds)])
        s.agenda.append((turn.COLOUR, winner))
        s.agenda.append((OPTIMUS_PLACE_STEP, winner, 0))
        return None
    # Megatron: both hands public; the strictly lower lowest number draws 2, a tie is won by the originator
    missing = 0 if g.megatron_missing_loses else 10 ** 6
    low_p = min((value[k] for k in _numbers(g, s, p)), default=missing)
    low_t = min((value[k] for k in _numbers(g, s, t)), default=missing)
    s.duel = (kind, p, t, tuple(_hand_kinds(s, p)), tuple(_hand_kinds(s, t)))
    turn.show_cards(s, -1, p, s.hands[p])
    turn.show_cards(s, -1, t, s.hands[t])
    loser = p if low_p < low_t else t
    g.draw_cards(g, s, loser, 2)
    s.agenda.append((turn.COLOUR, t if loser == p else p))
    return None


def _hand_kinds(s, seat: int) -> list[int]:
    return [k for k, c in enumerate(s.hands[seat]) for _ in range(c)]


def _optimus_place(g, s, step):
    """The Optimus winner places up to two cards under it, never its last card (``placed`` so far)."""
    _, w, placed = step
    if placed < 2 and s.hand_size[w] > 1 and _placeable(g, s, w):
        s.phase = Phase.OPTIMUS_PLACE
        s.current_seat = w
        return step
    _placement_done(g, s, w, placed)
    return None


def _placement_done(g, s, w: int, placed: int) -> None:
    """The placement is over: the UNO call is due if it left the winner one card."""
    if placed and s.hand_size[w] == 1 and g.uno_asks:
        s.agenda.append((turn.UNO, w))


def _placeable(g, s, w: int) -> list[int]:
    hand = s.hands[w]
    if not g.optimus_place_requires_match:
        return [k for k in range(g.num_kinds) if hand[k]]
    if len(s.discard) < 2:  # a reshuffle (an UNO penalty during the duel) left the Optimus alone
        return [k for k in range(g.num_kinds) if hand[k] and (g.is_wild[k] or g.colour_of[k] == s.ref_colour)]
    under = s.discard[-2]
    colour = s.ref_colour if g.is_wild[under] else g.colour_of[under]
    return [k for k in g.playable_on[under][colour] if hand[k]]


def optimus_place_legal(g, s) -> list[int]:
    """OPTIMUS_PLACE: a face kind of a held card to place under the Optimus, or ``pass`` to stop."""
    return _placeable(g, s, s.current_seat) + [g.layout.pass_]


def on_optimus_place(g, s, a: int, legal: list[int]) -> None:
    """Apply an OPTIMUS_PLACE decision: place one card directly beneath the Optimus, or stop."""
    _, w, placed = s.waiting
    if a == g.layout.pass_:  # stop placing
        _placement_done(g, s, w, placed)
    else:
        s.hands[w][a] -= 1
        s.hand_size[w] -= 1
        turn.card_left_hand(s, w, a)
        s.discard.insert(len(s.discard) - 1, a)
        s.physical_discard.insert(len(s.physical_discard) - 1, g.physical.take(s, w, a))
        s.progress = True
        s.agenda.append((OPTIMUS_PLACE_STEP, w, placed + 1))
    turn.run(g, s)


# --------------------------------------------------------------------------- rules hooks

def can_respond_with(g, s, pen, kind: int) -> bool:
    """Flip has no stacking or deflection."""
    return False


def configure(g, o) -> TurnHooks:
    """Flip's tables and option flags on the Game; its hooks into the turn machine."""
    g.megatron_missing_loses = o["flip.megatron_no_number"] == "counts_as_lowest"
    g.optimus_place_requires_match = o["flip.optimus_place_requires_match"]
    g.last_card_flip_resolves = o["flip.last_card_flip_resolves"]
    deck = g.deck
    g.duel_kinds = frozenset(k for k in range(deck.num_kinds) if deck.effect_of[k] in DUEL_WILDS)
    g.number_kinds = tuple(k for k in range(deck.num_kinds) if deck.effect_of[k] == Effect.NUMBER)
    g.number_value = _number_values(deck)
    first_d = deck.side_of.index(1)
    g.faces_per_side = first_d
    g.face_index = tuple(k - first_d if deck.side_of[k] else k for k in range(deck.num_kinds))
    physical = FlipCards(g, o["flip.pairing"] == "fixed")
    return TurnHooks(physical=physical, draw_one=draw_one, draw_cards=draw_cards, wild_steps=wild_steps,
                     agenda_steps=turn.STEPS + (_duel, _optimus_place),
                     colour_steps=frozenset((turn.COLOUR, DUEL)),  # a duel ends in its winner's colour declaration
                     extra_handlers={Phase.OPTIMUS_PLACE: on_optimus_place},
                     extra_legal={Phase.OPTIMUS_PLACE: optimus_place_legal},
                     wild_counts_as_match=o["flip.wild_counts_as_match"],
                     until_wild_satisfies=o["flip.wdc_wild_satisfies"], early_call_kinds=g.duel_kinds)


# --------------------------------------------------------------------------- observation

class BackFacesBlock:
    """Observation block: the active side, each opponent's visible back faces, the draw pile's top back face."""

    name = "flip"

    @staticmethod
    def size(game) -> int:
        """Side flag + (M-1) opponents x faces per side + the draw pile's top back face."""
        return 1 + game.variant.max_players * game.faces_per_side

    @staticmethod
    def fill(g, s, seat: int, out) -> None:
        """Write what ``seat`` sees of the other faces (never its own hand's, docs/rules.md §1.13)."""
        out[0] = s.side
        n = s.num_players
        f = g.faces_per_side
        index = g.face_index
        other = 1 - s.side
        face = g.physical.face
        for r in range(1, n):
            base = 1 + (r - 1) * f
            for c in s.physical_hands[(seat + r) % n]:
                out[base + index[face(c, other)]] += 1.0
        back = g.physical.draw_top_back(s)
        if back >= 0:
            out[1 + (g.variant.max_players - 1) * f + index[back]] = 1.0


class DuelBlock:
    """Observation block: the last duel's public reveal (Optimus: both highest numbers; Megatron: both hands)."""

    name = "duel"

    @staticmethod
    def size(game) -> int:
        """Kind (2) + originator and target relative seats (2 M) + each one's shown cards per kind (2 K)."""
        return 2 + 2 * game.variant.max_players + 2 * game.num_kinds

    @staticmethod
    def fill(g, s, seat: int, out) -> None:
        """Write the last duel relative to ``seat`` (zeros before the first duel of the round)."""
        if s.duel is None:
            return
        kind, p, t, shown_p, shown_t = s.duel
        n = s.num_players
        m = g.variant.max_players
        k = g.num_kinds
        out[0 if g.effect_of[kind] == Effect.OPTIMUS else 1] = 1.0
        out[2 + (p - seat) % n] = 1.0
        out[2 + m + (t - seat) % n] = 1.0
        for c in shown_p:
            out[2 + 2 * m + c] += 1.0
        for c in shown_t:
            out[2 + 2 * m + k + c] += 1.0


# --------------------------------------------------------------------------- scenario specs

def _spec_side(spec) -> int:
    value = spec.get("side", "A")
    side = value.strip().upper() if isinstance(value, str) else value
    if side not in ("A", "D"):
        raise SpecError(f"side = {short_repr(value)}; allowed: A (AUTOBOTS) or D (DÉCEPTICONS)")
    return 0 if side == "A" else 1


def _split(g, text, side: int) -> tuple[int, int]:
    """(active face, back face or -1) of a spec card: ``A:face|D:face`` or the active face alone."""
    deck = g.deck
    if isinstance(text, str) and "|" in text:
        parts = text.split("|")
        if len(parts) != 2:
            raise SpecError(f"card {short_repr(text)}: a two-sided card is written A-face|D-face")
        faces = [deck.parse(x) for x in parts]
        if {deck.side_of[f] for f in faces} != {0, 1}:
            raise SpecError(f"card {short_repr(text)} must pair one A face with one D face")
        by_side = sorted(faces, key=deck.side_of.__getitem__)
        return by_side[side], by_side[1 - side]
    kind = deck.parse(text)
    if deck.side_of[kind] != side:
        raise SpecError(f"card {short_repr(text)} is a face of side {'AD'[deck.side_of[kind]]} but the spec's side is "
                        f"{'AD'[side]}; write its active face or the whole card as A-face|D-face")
    return kind, -1


def spec_cards(g, spec):
    """(pool of active faces, parser) for spec.py: cards are read as their active-side face."""
    side = _spec_side(spec)
    deck = g.deck
    pool = Counter({k: deck.count_of[k] for k in range(deck.num_kinds) if deck.side_of[k] == side})
    return pool, lambda text: _split(g, text, side)[0]


def read_spec(g, s, spec) -> None:
    """Pair every placed face with a back face: the one the spec names (``A:R7|D:Pk3``), else by ``flip.pairing``."""
    side = _spec_side(spec)
    s.side = side
    deck = g.deck
    colour = spec.get("colour")
    if colour is not None and (not isinstance(colour, str)
                               or colour.upper() not in [c.upper() for c in deck.side_colours[side]]):
        raise SpecError(f"colour = {short_repr(colour)} is not a colour of side {'AD'[side]}; allowed: "
                        f"{', '.join(deck.side_colours[side])}")
    phys = g.physical
    backs_left = Counter({k: deck.count_of[k] for k in range(deck.num_kinds) if deck.side_of[k] != side})

    def named(key_cards) -> list[int]:
        out = []
        for text in key_cards or ():
            back = _split(g, text, side)[1]
            if back >= 0:
                if backs_left[back] <= 0:
                    raise SpecError(f"card {short_repr(text)}: its back face {deck.name_of[back]!r} is named more "
                                    "times than the deck has")
                backs_left[back] -= 1
            out.append(back)
        return out

    discard_named = named(spec.get("discard"))
    draw_named = named(spec.get("draw_pile"))
    hands_spec = spec.get("hands") or [None] * s.num_players
    hand_named = [named(h) if isinstance(h, (list, tuple)) else None for h in hands_spec]
    fixed = Counter(phys.fixed) if not phys.rng_pairing else None
    free = [k for k in sorted(backs_left) for _ in range(backs_left[k])]
    free = [free[i] for i in s.rng.permutation(len(free))]

    def pair(face: int, back: int) -> int:
        if back < 0:
            at = len(free) - 1  # the free backs are in seeded random order
            if fixed is not None:  # prefer the published pairing's partner while one is left
                at = next((i for i in range(len(free) - 1, -1, -1) if fixed[phys.code(face, free[i], side)] > 0), at)
            back = free.pop(at)
        code = phys.code(face, back, side)
        if fixed is not None and fixed[code] > 0:
            fixed[code] -= 1
        return code

    # explicit pairs first, so free backs never take a named one's partner
    discard_backs = [-1] * (len(s.discard) - len(discard_named)) + discard_named
    draw_top_first = s.draw_pile[::-1]
    draw_backs = draw_named + [-1] * (len(draw_top_first) - len(draw_named))
    hands = []
    for seat in range(s.num_players):
        if hand_named[seat] is not None:
            faces = [_split(g, t, side)[0] for t in hands_spec[seat]]
            hands.append(list(zip(faces, hand_named[seat])))
        else:
            hands.append([(k, -1) for k, c in enumerate(s.hands[seat]) for _ in range(c)])
    s.physical_discard = [pair(f, b) for f, b in zip(s.discard, discard_backs)]
    s.physical_draw = [pair(f, b) for f, b in zip(draw_top_first, draw_backs)][::-1]
    s.physical_hands = [[pair(f, b) for f, b in h] for h in hands]
    s.deck_cards = tuple(sorted(s.physical_discard + s.physical_draw + [c for h in s.physical_hands for c in h]))


def write_spec(g, s, spec) -> None:
    """Every card in full notation (A-face|D-face), the side, the colour in the active side's names."""
    names = g.deck.name_of
    K = g.num_kinds

    def full(code: int) -> str:
        return f"{names[code // K]}|{names[code % K]}"

    face = g.physical.face
    spec["side"] = "AD"[s.side]
    spec["discard"] = [full(c) for c in s.physical_discard]
    spec["draw_pile"] = [full(c) for c in reversed(s.physical_draw)]
    spec["hands"] = [[full(c) for c in sorted(h, key=lambda c: (face(c, s.side), c))] for h in s.physical_hands]
    if spec["colour"] is not None:
        spec["colour"] = g.colour_name(s)
    pending = spec["pending"] or {}
    if s.phase is Phase.OPTIMUS_PLACE:
        _, w, placed = s.waiting
        pending["optimus_place"] = {"seat": w, "placed": placed}
    if "penalty" in pending and "until_colour" in pending["penalty"]:  # Wild Draw Colour: by name
        pending["penalty"]["until_colour"] = g.colour_name(s, pending["penalty"]["until_colour"])
    spec["pending"] = pending or None


register(VariantDef(
    name="flip", min_players=2, max_players=10, hand_size=7, deck="flip", options=COMMON_OPTIONS + FLIP_OPTIONS,
    effects=EFFECTS, start_round=turn.number_starter, can_respond_with=can_respond_with, response_effects=(),
    restricted_effects=(Effect.WILD_DRAW_TWO, Effect.WILD_DRAW_COLOUR), wild_counts_as_match=True,
    targets=True, phases=(Phase.CHOOSE_TARGET, Phase.OPTIMUS_PLACE), configure=configure,
    deck_option="flip.deck_manifest", read_spec=read_spec, write_spec=write_spec, spec_cards=spec_cards,
    doc="UNO FLIP! Transformers edition, 112 two-sided cards (docs/rules.md §2.3)",
    extra={"observation_blocks": (BackFacesBlock, DuelBlock)}))
