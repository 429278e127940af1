"""Rule-based players that use only what their observation shows.

``GreedyAgent`` is the simple baseline: play the highest-value legal card, declare the colour it
holds most of, take every option that costs nothing. ``HeuristicAgent`` plays as well as a short
list of rules can: it keeps wilds for when they matter, attacks an opponent close to going out
with draw cards, picks colours from its hand and the discard pile, challenges a Wild Draw Four
when the player is likely to have held the colour, and answers every sub-decision.

Flex: both target the opponent with the fewest cards. Greedy spends its power card on any
FLEX action effect; the heuristic spends it only where the flex effect beats the regular one
(more victims, a hit on the leader, a play that is otherwise impossible), values getting its
power back (flip icons, Wild All Flip while opponents are green) and never wastes it on a
flex effect that equals the regular one (Flex Skip / Flex Reverse with two players).

Flip: both place the most cards they may under an Optimus (greedy the highest points, the
heuristic off-colour cards and never a wild while another card is left). The heuristic reads
the opponents' visible back faces: it plays a FLIP when the next opponent's backs hold no wild or
draw card and avoids one that would hand them those; it aims Megatron at the leader unless its
own lowest number is high (then at the biggest hand, likelier to hold a lower card).

Attack: both add a hit card to a Mass Hit whenever they hold one (the stack moves on and a card is
shed); Wild Attacks and the Mass Hit's Wild Attack aim at the opponent with the fewest cards. The
heuristic answers a hit with its cheapest hit card (Hit 1, then Hit 2, a Wild Attack last), plays
Discard All for the cards of its colour it sheds, and keeps Wild Attacks for a player close to out.
"""
from __future__ import annotations

import numpy as np

from uno_env import Game
from uno_env.cards import Effect

from .view import ObservationView

P = Effect  # short alias for the effect codes
# Sets of plain ints, matched against plain ints in the heuristic's loop over legal plays: an
# Effect compared with a numpy integer costs numpy a failed attribute lookup on the enum class.
DRAW_EFFECTS = frozenset(map(int, (P.DRAW_TWO, P.FLEX_DRAW_TWO, P.DRAW_ONE, P.DRAW_FIVE, P.HIT_ONE, P.HIT_TWO)))
TEMPO_EFFECTS = frozenset(map(int, (P.DRAW_TWO, P.SKIP, P.REVERSE, P.FLEX_DRAW_TWO, P.FLEX_SKIP, P.FLEX_REVERSE,
                                    P.DRAW_ONE, P.DRAW_FIVE, P.SKIP_EVERYONE, P.HIT_ONE, P.HIT_TWO)))
ATTACKING_WILDS = frozenset(map(int, (P.WILD_DRAW_FOUR, P.WILD_DRAW_TWO, P.WILD_DRAW_COLOUR, P.WILD_ATTACK)))
HIT_EFFECTS = frozenset(map(int, (P.HIT_ONE, P.HIT_TWO, P.WILD_ATTACK)))
HIT_ORDER = {int(P.HIT_ONE): 0, int(P.HIT_TWO): 1, int(P.WILD_ATTACK): 2}  # the heuristic's cheapest answer first
_NUMBER, _OPTIMUS, _FLIP, _DISCARD_ALL = int(P.NUMBER), int(P.OPTIMUS), int(P.FLIP), int(P.DISCARD_ALL)
STRONG_EFFECTS = frozenset(map(int, (P.WILD_DRAW_FOUR, P.WILD_DRAW_TWO, P.WILD_DRAW_COLOUR, P.OPTIMUS, P.MEGATRON,
                                     P.DRAW_FIVE, P.WILD, P.WILD_TARGET_DRAW_TWO, P.WILD_ALL_DRAW, P.WILD_ALL_FLIP)))


class _RuleBased:
    """Shared decisions; subclasses choose plays and colours."""

    name = "rule-based"

    def __init__(self, game: Game, seed: int | None = None):
        self.view = ObservationView(game)
        self.layout = game.layout
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the tie-breaking generator."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action for any phase."""
        L, v = self.layout, self.view
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        phase = v.phase(observation).value
        if phase == "CHOOSE_COLOUR":
            return L.colour0 + self.choose_colour(observation)
        if phase == "UNO_CALL":
            return L.call
        if phase == "CATCH":
            return L.catch
        if phase == "CHALLENGE_OR_ACCEPT":
            return L.challenge if self.should_challenge(observation) else L.accept
        if phase == "CHOOSE_TARGET":
            return self.choose_target(observation, action_mask)
        if phase == "PLAY_OR_KEEP_DRAWN":
            plays = v.plays(action_mask)
            a = int(self.choose_play(observation, plays))
            return a if self.play_drawn(observation, v.kind_of(a)) else L.pass_
        if phase == "OPTIMUS_PLACE":
            plays = v.plays(action_mask)
            return int(self.choose_placement(observation, plays)) if len(plays) else L.pass_
        if phase == "JUMP_IN":
            return int(v.plays(action_mask)[0])
        plays = v.plays(action_mask)
        if phase == "STACK_RESPONSE":
            if len(plays):
                return int(self.choose_response(observation, plays))
            return L.challenge if action_mask[L.challenge] and self.should_challenge(observation) else L.accept
        if phase == "MULTI_PLAY":
            return int(self.choose_play(observation, plays)) if len(plays) else L.pass_
        if len(plays):  # TURN
            return int(self.choose_play(observation, plays))
        return L.draw if action_mask[L.draw] else int(legal[0])

    # decisions the subclasses refine
    def choose_play(self, obs: np.ndarray, plays: np.ndarray) -> int:
        """One of the legal card plays."""
        raise NotImplementedError

    def choose_target(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """Target of a Flex draw: the opponent with the fewest cards (ties: random)."""
        sizes = self.view.hand_sizes(obs)
        options = self.view.targets(mask)
        opponents = [(a, off) for a, off in options if off != 0] or options
        fewest = min(sizes[off] for _, off in opponents)
        best = [a for a, off in opponents if sizes[off] == fewest]
        return int(best[int(self.rng.integers(len(best)))])

    def choose_response(self, obs: np.ndarray, plays: np.ndarray) -> int:
        """Card that answers a pending penalty (a stack, a deflection, Attack's Mass Hit)."""
        return self.choose_play(obs, plays)

    def choose_placement(self, obs: np.ndarray, plays: np.ndarray) -> int:
        """Card to place under an Optimus (they have no effect: shed the most points)."""
        return plays[int(np.argmax(self.view.points_of[plays]))]

    def choose_colour(self, obs: np.ndarray) -> int:
        """Colour to declare: the one held most (ties: random)."""
        counts = self.view.colour_counts(self.view.hand(obs))
        best = np.flatnonzero(counts == counts.max())
        return int(self.rng.choice(best))

    def should_challenge(self, obs: np.ndarray) -> bool:
        """Challenge a Wild Draw Four?"""
        return False

    def play_drawn(self, obs: np.ndarray, kind: int) -> bool:
        """Play the card just drawn?"""
        return True


class GreedyAgent(_RuleBased):
    """Plays the highest-value legal card; draws only when it must."""

    name = "greedy"

    def choose_play(self, obs, plays):
        """Highest points first; a FLEX action effect over its regular play."""
        v = self.view
        effect_of, _, _, points_of = v.tables
        scores = [points_of[k] + (0.5 if v.is_flex(a) and effect_of[k] != _NUMBER else 0.0)
                  for a, k in ((a, v.kind_of(a)) for a in map(int, plays))]
        return int(plays[scores.index(max(scores))])  # the first of equals, as np.argmax


    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``act`` for every row, in order (the same actions and generator draws), in one call to the
        compiled core where it is built (uno_env/core/agents.cpp reads the rows as this class does)."""
        return _act_batch(self, "act_greedy", observations, action_masks)


def _act_batch(agent: _RuleBased, twin: str, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
    """Every row decided by the agent's twin in the core (``twin``: its function there), or by ``act``
    row by row where the core is missing."""
    out = np.empty(len(action_masks), dtype=np.int64)
    if not hasattr(agent, "_view_in_core"):  # the layouts the core reads, built once per agent
        from uno_env import core

        agent._view_in_core = core._core.RuleView(rule_view_spec(agent.view)) if core.available() else None
    if agent._view_in_core is None:
        for r in range(len(out)):
            out[r] = agent.act(observations[r], action_masks[r])
    else:
        from uno_env.core import _core

        getattr(_core, twin)(agent._view_in_core, np.ascontiguousarray(observations, dtype=np.float32),
                             np.ascontiguousarray(action_masks, dtype=np.int8), agent.rng, out)
    return out


def rule_view_spec(v: ObservationView) -> dict:
    """What a rule-based agent reads of one game's layouts, as plain data for the compiled core."""
    L, o, g = v.layout, v.o, v.game
    hand, phase, sizes = o["hand"], o["phase"], o["hand_sizes"]
    if hand.stop - hand.start != v.num_kinds:
        raise ValueError(f"the hand block holds {hand.stop - hand.start} entries, not one per card kind ({v.num_kinds})")
    codes = {"TURN": 0, "CHOOSE_COLOUR": 1, "UNO_CALL": 2, "CATCH": 3, "CHALLENGE_OR_ACCEPT": 4, "CHOOSE_TARGET": 5,
             "PLAY_OR_KEEP_DRAWN": 6, "OPTIMUS_PLACE": 7, "JUMP_IN": 8, "STACK_RESPONSE": 9, "MULTI_PLAY": 10}
    coloured = ~v.is_wild
    effects = [int(e) for e in v.effect_of]
    return {"obs_size": v.encoder.size, "num_actions": g.num_actions, "hand_start": hand.start,
            "num_kinds": v.num_kinds, "phase_start": phase.start, "hand_sizes_start": sizes.start,
            "max_players": sizes.stop - sizes.start, "hand_size": g.hand_size,
            "phase_of_slot": [codes.get(p.value, 0) for p in v.encoder.phases],
            "flex0": L.flex0, "draw": L.draw, "colour0": L.colour0, "target0": L.target0, "num_targets": L.num_targets,
            "self_target": L.self_target, "challenge": L.challenge, "accept": L.accept, "call": L.call,
            "catch": L.catch, "pass": L.pass_, "colour_of": [int(c) for c in v.colour_of],
            "is_wild": [int(w) for w in v.is_wild], "effect_of": [int(e) for e in v.effect_of],
            "points_of": [float(p) for p in v.points_of],
            # np.bincount's length in colour_counts: the colours, or further where a card's colour index is
            "num_colours": len(np.bincount(v.colour_of[coloured], minlength=len(g.deck.colours))),
            "number_effect": _NUMBER,
            # the heuristic's reads besides (-1: a block the variant does not have)
            "top_start": o["top_card"].start, "discard_start": o["discard"].start, "seats_start": o["seats"].start,
            "direction_at": o["direction"].start, "power_start": o["power"].start if "power" in o else -1,
            "flip_start": o["flip"].start if "flip" in o else -1, "faces_per_side": getattr(g, "faces_per_side", 0) or 0,
            "flip_icon": [int(bool(x)) for x in v.flip_icon], "is_draw": [int(e in DRAW_EFFECTS) for e in effects],
            "is_tempo": [int(e in TEMPO_EFFECTS) for e in effects],
            "is_attacking": [int(e in ATTACKING_WILDS) for e in effects],
            "hit_order": [HIT_ORDER.get(e, -1) for e in effects], "is_strong": [int(e in STRONG_EFFECTS) for e in effects],
            **{name: int(getattr(P, name.upper())) for name in (
                "optimus", "flip", "discard_all", "megatron", "wild_all_flip", "wild_all_draw", "wild_target_draw_two",
                "wild_draw_four", "flex_draw_two", "flex_skip", "flex_reverse")}}


class HeuristicAgent(_RuleBased):
    """The strongest rule-based player here (legal information only)."""

    name = "heuristic"

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``act`` for every row, in order (the same actions and generator draws), in one call to the
        compiled core where it is built (uno_env/core/agents.cpp reads the rows as this class does)."""
        return _act_batch(self, "act_heuristic", observations, action_masks)

    def choose_play(self, obs, plays):
        """Score every legal play and take the best."""
        v = self.view
        effect_of, is_wild, colour_of, points_of = v.tables  # plain lists: this loop runs for every legal play
        hand = v.hand(obs)
        colour_counts = v.colour_counts(hand).tolist()
        threat = v.next_opponent_size(obs) <= 2
        n_hand = int(hand.sum())
        power = v.power(obs)
        if len(power):  # Flex: what the power-card terms need, read once per decision
            n = v.num_players(obs)
            near_out = threat or min(v.hand_sizes(obs)[1:n]) <= 2
        plays = list(map(int, plays))  # plain ints (an array or any sequence of ids)
        best, best_score = plays[0], -np.inf
        for a in plays:
            k = v.kind_of(a)
            effect = effect_of[k]
            score = 0.0
            if is_wild[k]:
                # keep wilds: worth playing when nothing else fits, or to attack
                score = -30.0
                if effect in ATTACKING_WILDS:
                    score += 25.0 if threat else -5.0
                elif effect == _OPTIMUS:
                    score += 6.0 if n_hand >= 4 else 0.0  # a won duel sheds two more cards
            else:
                c = colour_of[k]
                score += 2.0 * colour_counts[c]          # stay in the colour we hold most of
                score += 0.1 * points_of[k]               # shed points
                if effect in TEMPO_EFFECTS:
                    score += 12.0 if threat else 1.0      # tempo cards hurt most near the end
                    if effect in DRAW_EFFECTS:
                        score += 3.0
            if len(power):
                score += self._flex_value(a, k, effect, power, n, near_out)
            if effect == _FLIP:
                score += self._flip_value(obs, threat)
            elif effect == _DISCARD_ALL:
                score += 4.0 * (colour_counts[colour_of[k]] - 1)  # every other card of its colour goes too
            if n_hand <= 2 and is_wild[k]:
                score += 40.0                             # going out: spend the wild
            score += self.rng.random() * 0.01
            if score > best_score:
                best, best_score = a, score
        return best

    def choose_response(self, obs, plays):
        """Attack's Mass Hit: the cheapest hit card (Hit 1, Hit 2, a Wild Attack last); other stacks as plays."""
        v = self.view
        effect_of = v.tables[0]
        if effect_of[v.kind_of(int(plays[0]))] not in HIT_EFFECTS:
            return self.choose_play(obs, plays)
        order = {int(P.HIT_ONE): 0, int(P.HIT_TWO): 1, int(P.WILD_ATTACK): 2}
        return min(map(int, plays), key=lambda a: (order[effect_of[v.kind_of(a)]], self.rng.random()))

    def _flip_value(self, obs, threat: bool) -> float:
        """Flip: the next opponent will hold its visible back faces; flip when those are weak, not when strong."""
        v = self.view
        n = v.num_players(obs)
        nxt = v.direction(obs) % n
        backs = v.opponent_backs(obs, nxt)
        strong = sum(backs[i] for i in np.flatnonzero(backs)
                     if v.effect_of[v.other_side_kind(obs, int(i))] in STRONG_EFFECTS)
        if strong:
            return -6.0 * strong
        return 8.0 if threat else 2.0

    def choose_placement(self, obs, plays):
        """Under an Optimus: off-colour and high-point cards first, a wild only when nothing else is left."""
        v = self.view
        counts = v.colour_counts(v.hand(obs))
        scores = [(-100.0 if v.is_wild[k] else -3.0 * counts[v.colour_of[k]] + 0.1 * v.points_of[k]) for k in plays]
        return plays[int(np.argmax(scores))]

    def choose_target(self, obs, mask):
        """Megatron at the leader unless my lowest number is high (then the biggest hand); else the fewest cards."""
        v = self.view
        if v.effect_of[v.top(obs)] == P.MEGATRON:
            hand = v.hand(obs)
            numbers = [v.points_of[k] for k in np.flatnonzero(hand) if v.effect_of[k] == P.NUMBER]
            if min(numbers, default=10) > 5:
                sizes = v.hand_sizes(obs)
                options = self.view.targets(mask)
                return int(max(options, key=lambda o: (sizes[o[1]], self.rng.random()))[0])
        return super().choose_target(obs, mask)

    def _flex_value(self, a, k, effect, power, n, near_out) -> float:
        """Flex: what spending (or regaining) the power card is worth for this play."""
        v = self.view
        others_green = power[1:n].sum()
        value = 0.0
        if v.flip_icon[k]:
            value += 4.0 if power[0] == 0 else (-3.0 if others_green else 0.0)  # own power toggles
        if effect == P.WILD_ALL_FLIP:
            value += 4.0 * (others_green - (n - 1 - others_green)) / max(n - 1, 1) + (6.0 if power[0] == 0 else -6.0)
        if not v.is_flex(a):
            return value
        value -= 6.0  # the power card is spent
        if effect == P.WILD_ALL_DRAW:
            value += 14.0 + 4.0 * (n - 2)
        elif effect in (P.WILD_TARGET_DRAW_TWO, P.WILD_DRAW_FOUR):
            value += 14.0 + (8.0 if near_out else 0.0)
        elif effect == P.FLEX_DRAW_TWO:
            value += -8.0 if n == 2 else 2.0 * (n - 1) - 2.0
        elif effect in (P.FLEX_SKIP, P.FLEX_REVERSE):
            value += -10.0 if n == 2 else (4.0 if effect == P.FLEX_SKIP else 1.0)
        return value

    def choose_colour(self, obs):
        """Colour held most, ties broken by the colour least seen in the discard pile."""
        v = self.view
        held = v.colour_counts(v.hand(obs))
        seen = v.colour_counts(v.discard_counts(obs))
        return int(np.argmax(held * 100 - seen + self.rng.random(len(held)) * 0.01))

    def should_challenge(self, obs):
        """Challenge when the player of the WD4 likely held the colour (see docs/rules.md CORE-18 costs)."""
        v = self.view
        sizes = v.hand_sizes(obs)
        n = v.num_players(obs)
        offender = sizes[(-v.direction(obs)) % n]   # the seat before me played it
        p_colour = 1.0 - 0.75 ** max(offender, 0)   # chance a random hand holds the colour
        return 0.5 * p_colour > 0.2                 # challenge pays when P(guilty) > 1/5

    def play_drawn(self, obs, kind):
        """Play a drawn card unless it is a wild better kept."""
        v = self.view
        if not v.is_wild[kind]:
            return True
        return int(v.hand(obs).sum()) <= 3 or v.next_opponent_size(obs) <= 2
