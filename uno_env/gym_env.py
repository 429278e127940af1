"""Gymnasium single-agent environment: the learner holds one seat, opponents act inside ``step``.

Registered ids: ``uno_env/<Variant>-v0`` for every preset (``uno_env/Classic-v0``,
``uno_env/Alphabet-v0``, ``uno_env/Xiangqi-v0``, and each variant registered later).

- Observation: ``Box(float32, (d,))``, the vector of ``uno_env/observation.py`` for the learner's seat.
- Action: ``Discrete(num_actions)``; ``action_masks()`` returns the legal-action mask (bool), as
  sb3-contrib's MaskablePPO expects (it works through ``SubprocVecEnv``).
- Reward: 0 until the game ends, then the learner's return (+1 win, -1/(n-1) loss, 0 without a
  winner); ``reward="points"`` as in the AEC env. An illegal action ends the episode with
  ``illegal_penalty`` and ``info["illegal_action"] = True``. An action outside the action space (not an
  integer, or out of range) raises ``ActionOutOfSpaceError``; ``step`` after the episode ended (or
  before the first ``reset``) raises Gymnasium's ``ResetNeeded``.
- Opponents: a list (one per other seat) or a single policy used for all; a policy is
  ``act(observation, action_mask) -> int`` (an object with ``act`` or a plain callable), or a search
  agent (``reads_state = True``: it gets the state and redraws what its seat cannot see). The default
  is a uniformly random legal player drawing from the env's seeded generator.
- ``learner_seat``: a seat number, or ``"random"`` (drawn per episode).
- ``record="games.jsonl"``: append every finished game as a JSON-lines record.
- ``set_opponent_pool(policies, weights)``: draw the opponent policy of every episode from a
  weighted pool (self-play training sends frozen snapshots of the learner this way).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from .env_common import action_id, final_rewards, game_for_env, observation_box
from .errors import IllegalActionError
from .observation import ObservationEncoder
from .records import Recorder
from .render import render_mode_output
from .rules import RuleSet

Policy = Callable[[np.ndarray, np.ndarray], int]


class UnoEnv(gym.Env):
    """One learner seat against opponent policies."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, variant: str = "classic", num_players: int = 2, learner_seat: int | str = "random",
                 opponents: Any = None, reward: str = "win_loss", illegal_penalty: float = -1.0,
                 render_mode: str | None = None, rules: RuleSet | None = None, record: str | None = None,
                 **rule_options: Any):
        self.game = game_for_env(variant, num_players, rules, rule_options, render_mode, reward)
        n = self.game.num_players
        if learner_seat != "random" and (isinstance(learner_seat, bool) or not isinstance(learner_seat, int)
                                         or not 0 <= learner_seat < n):
            raise ValueError(f"learner_seat {learner_seat!r} must be 'random' or a seat 0..{n - 1}")
        self.learner_seat = learner_seat
        self.encoder = ObservationEncoder(self.game)
        self.observation_space = observation_box(self.encoder)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.reward_mode = reward
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.record_path = record
        self._recorder = None
        self._pool: list = []
        self._pool_p = None
        self.set_opponents(opponents)
        self.state = None
        self._done = False  # the episode ended (step refuses until reset)
        self.seat = 0

    def set_opponents(self, opponents: Any) -> None:
        """Replace the opponent policies (one for all seats, or a list with one per other seat)."""
        n = self.game.num_players
        is_list = isinstance(opponents, Sequence) and not isinstance(opponents, str)
        listed = list(opponents) if is_list else [opponents]
        self._seedable = [o for o in listed if callable(getattr(o, "seed", None))]
        if opponents is None:
            self._opponents = [None] * (n - 1)
        elif is_list:
            if len(opponents) != n - 1:
                raise ValueError(f"opponents: expected {n - 1} policies (one per other seat), got {len(opponents)}")
            self._opponents = [_as_policy(o) for o in opponents]
        else:
            policy = _as_policy(opponents)
            self._opponents = [policy] * (n - 1)

    def set_opponent_pool(self, policies: Sequence, weights: Sequence[float] | None = None) -> None:
        """Sample the opponents of each episode from ``policies`` (one policy plays every other seat)."""
        if not policies:
            raise ValueError("the opponent pool needs at least one policy")
        w = np.ones(len(policies)) if weights is None else np.asarray(weights, dtype=float)
        if len(w) != len(policies) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"opponent pool weights must be {len(policies)} non-negative numbers with a positive sum")
        self._pool = [_as_policy(p) for p in policies]
        self._seedable = [p for p in policies if callable(getattr(p, "seed", None))]
        self._pool_p = w / w.sum()

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal a new game (drawing the opponent from the pool, if any) and play until the learner decides."""
        super().reset(seed=seed)
        n = self.game.num_players
        if seed is not None:  # opponents with their own generators restart from the episode seed too
            for obj in dict.fromkeys(self._seedable):
                obj.seed(int(self.np_random.integers(2**31)))
        if self._pool:
            policy = self._pool[int(self.np_random.choice(len(self._pool), p=self._pool_p))]
            self._opponents = [policy] * (n - 1)
        self.seat = int(self.np_random.integers(n)) if self.learner_seat == "random" else self.learner_seat
        while True:
            game_seed = int(self.np_random.integers(2**63 - 1))
            self.state = self.game.new_state(game_seed)
            self._recorder = Recorder(self.game, game_seed, path=self.record_path) if self.record_path else None
            self._play_opponents()
            if not self.state.is_over:  # (a game cannot end before the learner's first decision in practice)
                break
        self._done = False
        return self._observe(), {"seat": self.seat}

    def step(self, action):
        """Apply the learner's action, then the opponents' until the learner decides again or the game ends."""
        s = self.state
        if s is None or self._done:
            raise ResetNeeded("step() called " + ("before reset()" if s is None else
                              "after the episode ended: call reset() to start a new one"))
        a = action_id(action, self.game.num_actions, "the learner")
        try:
            (self._recorder or self.game).step(s, a)  # rejects an illegal id before changing anything
        except IllegalActionError:
            self._done = True
            return self._observe(), self.illegal_penalty, True, False, {"illegal_action": True, "seat": self.seat}
        self._play_opponents()
        info = {"seat": self.seat}
        if s.is_over:
            self._done = True
            info.update(winner=s.winner, round_points=list(s.round_points))
            return self._observe(), float(final_rewards(self.game, s, self.reward_mode)[self.seat]), not s.truncated, s.truncated, info
        return self._observe(), 0.0, False, False, info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now, as a bool array."""
        if self.state is None:
            raise ResetNeeded("action_masks() called before reset()")
        return self.game.legal_action_mask(self.state).astype(bool)

    def render(self) -> str | None:
        """Text table of the game (``ansi`` returns it, ``human`` prints it)."""
        return render_mode_output(self.render_mode, self.game, self.state)

    # ------------------------------------------------------------------ internals

    def _play_opponents(self) -> None:
        s, g = self.state, self.game
        while not s.is_over and s.current_seat != self.seat:
            seat = s.current_seat
            policy = self._opponents[(seat - self.seat) % s.num_players - 1]
            if policy is None:
                legal = g.legal_actions(s)
                action = legal[int(self.np_random.integers(len(legal)))]
            elif getattr(policy, "reads_state", False):  # a search agent reads the game itself
                action = int(policy.act_state(s))
            else:
                action = int(policy(self.encoder.encode(s, seat), g.legal_action_mask(s)))
            (self._recorder or g).step(s, action)

    def _observe(self) -> np.ndarray:
        return self.encoder.encode(self.state, self.seat)


def _as_policy(opponent: Any) -> Policy | None:
    if opponent is None:
        return None
    if getattr(opponent, "reads_state", False):
        return opponent  # called with the state (``act_state``), not an observation
    if hasattr(opponent, "act"):
        return opponent.act
    if callable(opponent):
        return opponent
    raise ValueError(f"an opponent must be a callable act(observation, action_mask) -> int or have .act; "
                     f"got {opponent!r}")
