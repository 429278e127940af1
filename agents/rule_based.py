"""Rule-based players that use only what their observation shows.

``GreedyAgent`` is the simple baseline: play the highest-value legal card, declare the colour it
holds most of, take every option that costs nothing. ``HeuristicAgent`` plays as well as a short
list of rules can: it keeps wilds for when they matter, attacks an opponent close to going out
with draw cards, picks colours from its hand and the discard pile, challenges a Wild Draw Four
when the player is likely to have held the colour, and answers every sub-decision.
"""
from __future__ import annotations

import numpy as np

from uno_env import Game
from uno_env.cards import Effect

from .view import ObservationView

P = Effect  # short alias for the effect codes


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
        if phase == "PLAY_OR_KEEP_DRAWN":
            plays = v.plays(action_mask)
            return int(plays[0]) if self.play_drawn(observation, int(plays[0])) else L.pass_
        if phase == "JUMP_IN":
            return int(v.plays(action_mask)[0])
        plays = v.plays(action_mask)
        if phase == "STACK_RESPONSE":
            if len(plays):
                return int(self.choose_play(observation, plays))
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
        """Highest points first."""
        pts = self.view.points_of[plays]
        return plays[int(np.argmax(pts))]


class HeuristicAgent(_RuleBased):
    """The strongest rule-based player here (legal information only)."""

    name = "heuristic"

    def choose_play(self, obs, plays):
        """Score every legal play and take the best."""
        v = self.view
        hand = v.hand(obs)
        colour_counts = v.colour_counts(hand)
        threat = v.next_opponent_size(obs) <= 2
        n_hand = int(hand.sum())
        best, best_score = plays[0], -np.inf
        for k in plays:
            effect = v.effect_of[k]
            score = 0.0
            if v.is_wild[k]:
                # keep wilds: worth playing when nothing else fits, or to attack
                score = -30.0
                if effect == P.WILD_DRAW_FOUR:
                    score += 25.0 if threat else -5.0
            else:
                c = v.colour_of[k]
                score += 2.0 * colour_counts[c]          # stay in the colour we hold most of
                score += 0.1 * v.points_of[k]             # shed points
                if effect in (P.DRAW_TWO, P.SKIP, P.REVERSE):
                    score += 12.0 if threat else 1.0      # tempo cards hurt most near the end
                    if effect == P.DRAW_TWO:
                        score += 3.0
            if n_hand <= 2 and v.is_wild[k]:
                score += 40.0                             # going out: spend the wild
            score += self.rng.random() * 0.01
            if score > best_score:
                best, best_score = k, score
        return best

    def choose_colour(self, obs):
        """Colour held most, ties broken by the colour least seen in the discard pile."""
        v = self.view
        held = v.colour_counts(v.hand(obs))
        seen = v.colour_counts(v.discard_counts(obs))
        return int(np.argmax(held * 100 - seen + self.rng.random(len(held)) * 0.01))

    def should_challenge(self, obs):
        """Challenge when the player of the WD4 likely held the colour (see RULES.md CORE-18 costs)."""
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
