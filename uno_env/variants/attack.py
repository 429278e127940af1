"""UNO Attack (docs/rules.md §2.4 with the resolutions of §4.5): the card launcher, Discard All, hits, Mass Hit.

The draw pile is the launcher. A ``press`` fires a burst of ``K`` cards (``K`` from the
launcher's own random stream, by the model of ``attack.launcher_model``; at most the cards left)
and always ends the turn. Every "draw" of the shared turn machine is a press here (the UNO
penalty is two presses). An empty launcher is reloaded from the discard pile at the start of a
turn, never in the middle of an obligation (the remaining presses are forfeited).

Hit 1, Hit 2 and Wild Attack use the shared penalty machinery as a stack: their target may answer
with any hit card of any colour (STACK_RESPONSE) or ``accept`` (press the total). A Wild Attack asks
for its colour, then its target (CHOOSE_TARGET), also when it answers a stack.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..cards import Effect
from ..errors import SpecError, short_repr
from ..options import COMMON_OPTIONS, Option
from ..state import Phase
from .. import turn
from ..hooks import TurnHooks
from .registry import VariantDef, register

def _probs_problem(value) -> str | None:
    """Why a burst_probs value is unusable, or None."""
    try:
        probs = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return "must be a list of numbers"
    if probs.ndim != 1 or len(probs) < 2 or (probs < 0).any() or not np.isclose(probs.sum(), 1.0) or probs[0] >= 1:
        return ("must be non-negative probabilities of bursts of 0, 1, 2, ... cards that sum to 1 "
                "(and some burst must fire: p0 < 1)")
    return None


ATTACK_OPTIONS: tuple[Option, ...] = (
    Option("attack.deck_manifest", "proposed", "deck manifest: 'proposed' (the packaged 112-card list of [004]) or "
           "the path of a replacement YAML manifest", type=str),
    Option("attack.launcher_model", "geometric", "burst size K per press (AMB-C1): geometric (p_fire, q, "
           "max_burst), categorical (burst_probs), fixed (fixed_k) or scripted (the spec's launcher list; "
           "nothing fires once it is used up)", choices=("geometric", "categorical", "fixed", "scripted")),
    Option("attack.p_fire", 0.5, "geometric model: probability that a press fires at least one card", type=float,
           minimum=0.01, maximum=1.0),
    Option("attack.q", 0.5, "geometric model: P(K = k) = p_fire (1 - q) q^(k-1) for k >= 1", type=float,
           minimum=0.0, maximum=0.99),
    Option("attack.max_burst", 10, "geometric model: largest burst (the tail mass goes on it)", type=int, minimum=1),
    Option("attack.burst_probs", (0.50, 0.20, 0.12, 0.08, 0.05, 0.03, 0.02), "categorical model: [p0, p1, ...] "
           "probabilities of bursts of 0, 1, ... cards (sum 1, p0 < 1)", type=tuple, check=_probs_problem),
    Option("attack.fixed_k", 1, "fixed model: cards fired by every press (1 = a classic draw)", type=int, minimum=1),
    Option("attack.reload_policy", "empty_at_turn_start", "reload the launcher from the discard pile when it is "
           "empty at the start of a turn (AMB-C2)", choices=("empty_at_turn_start",)),
    Option("attack.wild_attack_resume", "second_from_attacker", "who plays after an unstacked Wild Attack (AMB-C3)",
           choices=("second_from_attacker", "next_after_attacker", "next_after_target")),
    Option("attack.mass_hit_resume", "after_first_hitter", "who plays after a Mass Hit of 2+ hit cards (AMB-C4)",
           choices=("after_first_hitter", "after_absorber")),
    Option("attack.starter_reverse_first", "dealer_right", "who starts after a Reverse starter (AMB-C6)",
           choices=("dealer_right", "dealer")),
    Option("attack.allow_self_target", False, "a Wild Attack may target its own player (AMB-C8)", type=bool),
    Option("attack.empty_press_progress", True, "a press of a loaded launcher that fires nothing counts as "
           "progress for the blocked-round rule (CORE-12); false: the literal reading, where it is a turn without "
           "a card received (with the default launcher it blocks about 40% of two-player rounds)", type=bool),
)
# Attack adds the elimination ("challenge") match mode to the scoring methods (§2.4); it has no restricted wild
_OPTIONS = tuple(replace(o, choices=o.choices + ("elimination",),
                         doc=o.doc + "; Attack: elimination (method-2 totals, a seat reaching target_score is out)")
                 if o.key == "scoring_method" else o
                 for o in COMMON_OPTIONS if o.key != "restricted_wild_bluffing") + ATTACK_OPTIONS

HIT_EFFECTS = (Effect.HIT_ONE, Effect.HIT_TWO, Effect.WILD_ATTACK)


_next = turn.seat_after  # the seat k places on, passing over seats out of an elimination match


# --------------------------------------------------------------------------- the launcher

class Launcher:
    """Burst-size model of the card launcher (docs/rules.md §2.4, AMB-C1)."""

    def __init__(self, o):
        self.model = o["attack.launcher_model"]
        self.p_fire = o["attack.p_fire"]
        self.q = o["attack.q"]
        self.max_burst = o["attack.max_burst"]
        self.fixed_k = o["attack.fixed_k"]
        probs = np.asarray(o["attack.burst_probs"], dtype=float)  # (checked by the option)
        self.cumulative = np.cumsum(probs / probs.sum())
        self.cumulative[-1] = 1.0  # no rounding gap above the last burst size

    def distribution(self, remaining: int) -> np.ndarray:
        """P(K = k) for k = 0..remaining under the model (scripted: nothing fires)."""
        out = np.zeros(remaining + 1)
        if self.model == "geometric":
            cap = min(remaining, self.max_burst)
            out[0] = 1.0 - self.p_fire
            for k in range(1, cap + 1):
                out[k] = self.p_fire * (1 - self.q) * self.q ** (k - 1)
            if cap >= 1:
                out[cap] += self.p_fire * self.q ** cap  # the tail mass goes on the cap
            else:
                out[0] = 1.0  # an empty launcher fires nothing
        elif self.model == "categorical":
            probs = np.diff(np.concatenate([[0.0], self.cumulative]))
            for k, pk in enumerate(probs):
                out[min(k, remaining)] += pk
        elif self.model == "fixed":
            out[min(self.fixed_k, remaining)] = 1.0
        else:
            out[0] = 1.0
        return out

    def burst(self, s, remaining: int) -> int:
        """Cards fired by one press: the spec's scripted queue first, then the model (launcher stream only)."""
        if s.launcher_script:
            k = s.launcher_script.pop(0)
        elif self.model == "geometric":
            rng = s.launcher_rng
            k = 0 if rng.random() >= self.p_fire else min(int(rng.geometric(1.0 - self.q)), self.max_burst)
        elif self.model == "categorical":
            k = int(np.searchsorted(self.cumulative, s.launcher_rng.random(), side="right"))
        elif self.model == "fixed":
            k = self.fixed_k
        else:  # scripted and used up: nothing fires
            k = 0
        return min(k, remaining)


def press(g, s, seat: int) -> int:
    """One press by ``seat``: the fired cards join its hand; returns how many fired."""
    pile = s.draw_pile
    if not pile:
        return 0
    k = g.launcher.burst(s, len(pile))
    # By default pressing a loaded launcher counts as progress for the blocked-round rule (CORE-12) even
    # when nothing fires: with P(K = 0) = 1/2 the literal reading ends rounds as blocked by chance. Rounds
    # still block when the launcher is empty and cannot be reloaded.
    if k or g.empty_press_progress:
        s.progress = True
    hand = s.hands[seat]
    for _ in range(k):
        hand[pile.pop()] += 1
    s.hand_size[seat] += k
    return k


def press_times(g, s, seat: int, count: int) -> int:
    """``seat`` presses ``count`` times (hits, the UNO penalty); presses left when the launcher is empty are forfeited."""
    got = 0
    for _ in range(count):
        if not s.draw_pile:
            break  # no reload during an obligation (AMB-C2)
        got += press(g, s, seat)
    return got


def press_action(g, s, p: int) -> None:
    """TURN ``press``: one press, and the turn is over whatever fired (AMB-C15)."""
    press(g, s, p)
    s.next_seat = _next(g, s, p)
    s.agenda.append(turn.END_TURN_STEP)
    turn.run(g, s)


def reload_if_empty(g, s) -> None:
    """At the start of a turn an empty launcher is loaded with the shuffled discards but the top (AMB-C2)."""
    if not s.draw_pile:
        turn.reshuffle(g, s)


# --------------------------------------------------------------------------- effects

def effect_discard_all(g, s, p, kind, count, final):
    """Discard All: every other card of its colour goes from the hand beneath it, without effect (AMB-C9)."""
    hand = s.hands[p]
    moved = []
    for k in g.kinds_of_colour[g.colour_of[kind]]:
        if hand[k]:
            moved += [k] * hand[k]
            turn.card_left_hand(s, p, k, hand[k])
            hand[k] = 0
    if moved:
        s.hand_size[p] -= len(moved)
        s.discard[-1:-1] = moved
    s.next_seat = _next(g, s, p)


def _hit(g, s, p: int, hits: int, effect: int, final: bool, target: int = -1, single_resume: int = -1) -> None:
    """Start or extend the hit stack (Mass Hit); set where play resumes after it is absorbed."""
    pen = s.penalty
    if pen is None:
        resume = single_resume
    else:  # a stack of 2+ hit cards (AMB-C4)
        resume = _next(g, s, pen.origin) if g.mass_hit_after_first else -1
    turn.add_penalty(g, s, p, hits, effect, None, final, target=target, resume=resume)


def effect_hit_one(g, s, p, kind, count, final):
    """Hit 1: the next seat presses once and ends its turn, or adds a hit card."""
    _hit(g, s, p, 1, Effect.HIT_ONE, final)


def effect_hit_two(g, s, p, kind, count, final):
    """Hit 2: the next seat presses twice and ends its turn, or adds a hit card."""
    _hit(g, s, p, 2, Effect.HIT_TWO, final)


def effect_wild_attack(g, s, p, kind, count, final):
    """Wild Attack: the chosen seat presses twice, or adds a hit card; resume per attack.wild_attack_resume."""
    t = s.target
    if final and t == p:  # a self-aimed last card: the player has won, nothing to press (CORE-24)
        s.next_seat = _next(g, s, p)
        return
    rule = g.wild_attack_resume
    resume = _next(g, s, p, 2) if rule == "second_from_attacker" else _next(g, s, p) if rule == "next_after_attacker" \
        else _next(g, s, t)
    _hit(g, s, p, 2, Effect.WILD_ATTACK, final, target=t, single_resume=resume)


EFFECTS = {
    Effect.NUMBER: turn.effect_number,
    Effect.SKIP: turn.effect_skip,
    Effect.REVERSE: turn.effect_reverse,
    Effect.WILD: turn.effect_wild,
    Effect.DISCARD_ALL: effect_discard_all,
    Effect.HIT_ONE: effect_hit_one,
    Effect.HIT_TWO: effect_hit_two,
    Effect.WILD_ATTACK: effect_wild_attack,
}


def wild_steps(g, s, p: int, kind: int) -> list[tuple]:
    """A Wild Attack asks for its colour, then its target (docs/rules.md §5.5 T2, T3); a Wild for its colour."""
    if kind in g.attack_kinds:
        return [(turn.TARGET, p), (turn.COLOUR, p)]
    return [(turn.COLOUR, p)]


def can_respond_with(g, s, pen, kind: int) -> bool:
    """Mass Hit: any hit card of any colour answers a hit (§2.4)."""
    return True


# --------------------------------------------------------------------------- round start

def _ensure_launcher_stream(s) -> None:
    """The launcher's own generator, derived once from the game's generator."""
    if s.launcher_rng is None:
        s.launcher_rng = np.random.default_rng(int(s.rng.integers(2 ** 63)))


def start_round(g, s) -> None:
    """Turn the starter and apply §2.4's starter rules (a Wild Attack goes back into the launcher, AMB-C5)."""
    _ensure_launcher_stream(s)
    pile = s.draw_pile
    dealer = s.dealer
    # a pile of Wild Attacks alone (only a scenario spec with start: true makes one) keeps its top one,
    # as a last card is kept: putting it back would turn Wild Attacks for ever
    other = any(g.effect_of[k] != Effect.WILD_ATTACK for k in pile)
    while True:
        kind = pile.pop()
        if g.effect_of[kind] != Effect.WILD_ATTACK or not pile or not other:
            break
        pile.insert(int(s.rng.integers(len(pile) + 1)), kind)
    s.discard.append(kind)
    effect = g.effect_of[kind]
    s.direction = 1
    first = _next(g, s, dealer)
    if g.is_wild[kind]:  # the first player declares a colour, then plays
        s.agenda.append(turn.start_turn_step(first))
        s.agenda.append((turn.COLOUR, first))
        return
    s.colour = g.colour_of[kind]
    if effect == Effect.REVERSE:
        s.direction = -1
        first = _next(g, s, dealer) if g.reverse_starter_right else dealer  # the dealer's right neighbour
    elif effect == Effect.SKIP:
        first = _next(g, s, dealer, 2)
    elif effect in (Effect.HIT_ONE, Effect.HIT_TWO):  # the first player presses; no Mass Hit (AMB-C7)
        press_times(g, s, first, 1 if effect == Effect.HIT_ONE else 2)
        first = _next(g, s, dealer, 2)
    s.agenda.append(turn.start_turn_step(first))


def configure(g, o) -> TurnHooks:
    """Attack's launcher and option flags on the Game; its hooks into the turn machine."""
    g.launcher = Launcher(o)
    g.empty_press_progress = o["attack.empty_press_progress"]
    g.wild_attack_resume = o["attack.wild_attack_resume"]
    g.mass_hit_after_first = o["attack.mass_hit_resume"] == "after_first_hitter"
    g.reverse_starter_right = o["attack.starter_reverse_first"] == "dealer_right"
    g.attack_kinds = frozenset(k for k in range(g.num_kinds) if g.effect_of[k] == Effect.WILD_ATTACK)
    return TurnHooks(draw_cards=press_times, draw_action=press_action, on_turn_start=reload_if_empty,
                     wild_steps=wild_steps, self_target=o["attack.allow_self_target"])


# --------------------------------------------------------------------------- observation and specs

class HitBlock:
    """Observation block: the pending hit stack (total presses, cards in it, its target by relative seat)."""

    name = "hits"

    @staticmethod
    def size(game) -> int:
        """Total, cards, then one entry per relative seat for the target."""
        return 2 + game.variant.max_players

    @staticmethod
    def fill(g, s, seat: int, out) -> None:
        """Write the pending stack relative to ``seat`` (zeros when none)."""
        pen = s.penalty
        if pen is None:
            return
        out[0] = pen.total
        out[1] = pen.cards
        out[2 + (pen.target - seat) % s.num_players] = 1.0


#: Scripted presses a spec's ``launcher`` may list.
MAX_LAUNCHER_SCRIPT = 4096


def read_spec(g, s, spec) -> None:
    """The ``launcher`` key (scripted burst sizes, consumed one per press before the model) and ``eliminated``.

    At most ``MAX_LAUNCHER_SCRIPT`` presses, each firing at most the deck's size (a press never fires
    more cards than the draw pile holds).
    """
    _ensure_launcher_stream(s)
    _read_eliminated(g, s, spec)
    value = spec.get("launcher")
    if value is None:
        return
    if not isinstance(value, (list, tuple)):
        raise SpecError(f"launcher = {short_repr(value)} must be a list of burst sizes (ints >= 0), one per press")
    if len(value) > MAX_LAUNCHER_SCRIPT:
        raise SpecError(f"launcher lists {len(value):,} presses; at most {MAX_LAUNCHER_SCRIPT:,}")
    cards = sum(g.deck.count_of)
    for i, k in enumerate(value):
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= cards:
            raise SpecError(f"launcher[{i}] = {short_repr(k)} must be a burst size from 0 to {cards} (the deck's "
                            "size), one per press")
    s.launcher_script = list(value)


def _read_eliminated(g, s, spec) -> None:
    value = spec.get("eliminated")
    if value is None:
        return
    n = s.num_players
    if not g.elimination:
        raise SpecError("eliminated: seats are out only in an elimination match (scoring_method: elimination)")
    if not isinstance(value, (list, tuple)) or len(value) != n or not all(isinstance(v, bool) for v in value):
        raise SpecError(f"eliminated = {short_repr(value)} must be a list of {n} true/false, one per seat")
    if value.count(False) < 2:
        raise SpecError("eliminated: at least two seats must still be in a running match")
    for q, out in enumerate(value):
        if out and s.hand_size[q]:
            raise SpecError(f"hands[{q}]: P{q} is eliminated and holds no cards (give it an empty list)")
        if not out and not s.hand_size[q]:
            raise SpecError(f"hands[{q}] is empty: a player without cards has already won; give P{q} a card")
    current = spec.get("current", 0)  # (checked to be a seat after this; only a seat is looked up here)
    if isinstance(current, int) and not isinstance(current, bool) and 0 <= current < n and value[current]:
        raise SpecError(f"current = {current} is eliminated: a seat still in must decide")
    s.eliminated = list(value)


def write_spec(g, s, spec) -> None:
    """The scripted bursts not yet used (when any) and the seats out of an elimination match."""
    if s.launcher_script:
        spec["launcher"] = list(s.launcher_script)
    if any(s.eliminated):
        spec["eliminated"] = list(s.eliminated)


register(VariantDef(
    name="attack", min_players=2, max_players=10, hand_size=7, deck="attack", options=_OPTIONS,
    effects=EFFECTS, start_round=start_round, can_respond_with=can_respond_with, response_effects=HIT_EFFECTS,
    restricted_effects=(), targets=True, self_target_action=True, draw_word="press",
    phases=(Phase.CHOOSE_TARGET,), configure=configure, deck_option="attack.deck_manifest",
    read_spec=read_spec, write_spec=write_spec,
    doc="UNO Attack, 112 cards and the card launcher (docs/rules.md §2.4)",
    extra={"observation_blocks": (HitBlock,)}))
