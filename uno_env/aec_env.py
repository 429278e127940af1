"""PettingZoo AEC environment over the engine: ``uno_env.env(...)`` and ``uno_env.raw_env(...)``.

=====================  ===============================================================================
agents                 ``player_0`` .. ``player_{n-1}``
agent_selection        the engine's deciding seat (a challenger, catcher or jump-in candidate acts out
                       of turn)
action space           ``Discrete(game.num_actions)``, fixed per variant (``uno_env/actions.py`` layout)
observation space      ``Dict(observation=Box(float32, (d,)), action_mask=Box(int8, (num_actions,)))``;
                       the vector layout is tabled in ``uno_env/observation.py``; the mask is all zeros
                       for an agent that is not deciding
rewards                at the end of a game: winner +1, every other seat -1/(n-1); with
                       ``reward="points"`` the points instead (winner +points/100, or with
                       ``scoring_method="penalty_low"`` each loser -own points/100; a match's totals
                       with ``match=True``)
termination            the round (or, with ``match=True``, the match) is over
truncation             the engine's step cap ``max_steps`` is reached
render modes           ``ansi`` (returns the text) and ``human`` (prints it)
records                ``record="games.jsonl"`` appends every finished game (``uno_env/records.py``)
=====================  ===============================================================================

Any rule option of the variant is a keyword argument: ``uno_env.env(variant="classic",
num_players=4, stacking="any", uno_call="explicit")``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .env_common import action_id, final_rewards, game_for_env, observation_box
from .observation import ObservationEncoder
from .records import Recorder
from .render import render_mode_output
from .rules import RuleSet


def env(*args: Any, **kwargs: Any) -> AECEnv:
    """The AEC environment with the behaviour of PettingZoo's three standard classic-game wrappers (``raw_env``'s arguments)."""
    return StandardWrapper(raw_env(*args, **kwargs))


class StandardWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper`` as one layer.

    Stacked, those three cost more per decision than this whole environment: every attribute read
    walks up to three ``__getattr__`` hops and the bounds check goes through ``Discrete.contains``.
    This layer keeps their behaviour (an illegal action ends the game with -1 for its player and 0
    for the others, an action outside the action space or ``None`` for a live agent raises, calls
    before ``reset`` raise, ``agent_iter`` enforces a step per agent) and reads the raw env directly.
    """

    def __init__(self, env: "raw_env", illegal_reward: float = -1.0):
        super().__init__(env)
        self._raw = env
        self._illegal_reward = float(illegal_reward)

    def _live(self, name: str):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    # the attributes the order check guards, read straight from the raw env after reset
    agents = property(lambda self: self._live("agents"))
    agent_selection = property(lambda self: self._live("agent_selection"))
    rewards = property(lambda self: self._live("rewards"))
    terminations = property(lambda self: self._live("terminations"))
    truncations = property(lambda self: self._live("truncations"))
    infos = property(lambda self: self._live("infos"))
    _cumulative_rewards = property(lambda self: self._live("_cumulative_rewards"))

    def last(self, observe: bool = True) -> tuple:
        """Observation, cumulative reward, termination, truncation and info of the selected agent."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        raw = self._raw
        agent = raw.agent_selection
        return (raw.observe(agent) if observe else None, raw._cumulative_rewards[agent],
                raw.terminations[agent], raw.truncations[agent], raw.infos[agent])

    def step(self, action: Any) -> None:
        """Apply the selected agent's action; an illegal one ends the game with the illegal reward."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        if action is None and dead:
            raw.step(None)
            return
        action = action_id(action, raw.game.num_actions, agent)
        if dead:
            raw._was_dead_step(action)
        elif action not in raw.legal_ids():
            self._end_illegal(agent)
        else:
            raw.step(action)

    def _end_illegal(self, agent: str) -> None:
        # exactly what TerminateIllegalWrapper does: every agent done, -1 for the offender, 0 for the rest
        EnvLogger.warn_on_illegal_move()
        raw = self._raw
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = self._illegal_reward
        raw._accumulate_rewards()
        raw._deads_step_first()


class raw_env(AECEnv):
    """UNO as a PettingZoo AEC environment (no wrappers)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "uno_v0", "is_parallelizable": False}

    def __init__(self, variant: str = "classic", num_players: int = 2, render_mode: str | None = None,
                 reward: str = "win_loss", rules: RuleSet | None = None, record: str | None = None,
                 **rule_options: Any):
        super().__init__()
        self.game = game_for_env(variant, num_players, rules, rule_options, render_mode, reward)
        self.encoder = ObservationEncoder(self.game)
        self.render_mode = render_mode
        self.reward_mode = reward
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": observation_box(self.encoder),
            "action_mask": spaces.Box(0, 1, (self.game.num_actions,), np.int8),
        })
        act_space = spaces.Discrete(self.game.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._seeder = np.random.default_rng()
        self._no_mask = np.zeros(self.game.num_actions, dtype=np.int8)
        self.state = None
        self.record_path = record
        self._recorder = None

    def observation_space(self, agent: str) -> spaces.Space:
        """Observation space of an agent (the same for all)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """Action space of an agent (the same for all)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game; ``seed`` makes it and every later reset reproducible."""
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
        game_seed = int(self._seeder.integers(2**63 - 1))
        self.state = self.game.new_state(game_seed)
        self._recorder = Recorder(self.game, game_seed, self.possible_agents, self.record_path) \
            if self.record_path else None
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_seat]

    def legal_ids(self) -> list[int]:
        """Legal action ids of the selected agent, ascending."""
        return self.game.legal_actions(self.state)

    def observe(self, agent: str) -> dict:
        """Observation and action mask of ``agent``."""
        seat = self._seat_of[agent]
        s = self.state
        mask = self.game.legal_action_mask(s) if seat == s.current_seat else self._no_mask.copy()
        return {"observation": self.encoder.encode(s, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action (an integer id; ``None`` only once the agent is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = action_id(action, self.game.num_actions, agent)
        s = self.state
        self._cumulative_rewards[agent] = 0.0
        (self._recorder or self.game).step(s, action)
        if s.is_over:
            rewards = final_rewards(self.game, s, self.reward_mode)
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = rewards[i]
                self.terminations[a] = not s.truncated
                self.truncations[a] = s.truncated
                self.infos[a] = {"winner": s.winner, "round_points": list(s.round_points)}
        else:
            self.agent_selection = self.possible_agents[s.current_seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The game as a text table (``ansi``: returned; ``human``: printed)."""
        return render_mode_output(self.render_mode, self.game, self.state)

    def close(self) -> None:
        """Nothing to release."""
