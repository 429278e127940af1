"""RLlib's view of UNO: the PettingZoo AEC env as an RLlib ``MultiAgentEnv``, and an action-masking RLModule.

``UnoMultiAgentEnv`` drives ``uno_env.aec_env.raw_env`` (any variant, player count and rule option):
each step returns the observation of the one agent that decides next (``agent_selection``: also a
challenger or a jump-in candidate acting out of turn), and at the end of the game the final
observation and reward of every agent that took part. Observations keep the AEC env's
``{"observation", "action_mask"}`` dict.

``MaskedActorCritic`` is an RLlib (new API stack) torch RLModule holding the native trainer's
actor-critic (``train.ppo.network.build_network``: tanh MLPs, illegal actions' logits at -1e9), so
RLlib's PPO samples and learns only legal actions, and the trained actor exports to our
``policy.npz`` with the native trainer's exporter. Both classes need Ray (``uno-env[ray]``).
"""
from __future__ import annotations

from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from uno_env.aec_env import raw_env

from train.ppo.network import build_network


class UnoMultiAgentEnv(MultiAgentEnv):
    """One UNO game at a time as a turn-based RLlib multi-agent env (env_config: ``raw_env``'s keywords)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        self.aec = raw_env(**dict(config or {}))
        self.agents = self.possible_agents = list(self.aec.possible_agents)
        self.observation_spaces = {a: self.aec.observation_space(a) for a in self.agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.agents}
        self._seen: set[str] = set()  # agents that got an observation this game

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game; the first deciding agent's observation."""
        self.aec.reset(seed=seed, options=options)
        agent = self.aec.agent_selection
        self._seen = {agent}
        return {agent: self.aec.observe(agent)}, {}

    def step(self, action_dict: dict):
        """Apply the deciding agent's action; the next decider's observation, or every agent's at the end."""
        agent = self.aec.agent_selection
        self.aec.step(int(action_dict[agent]))
        state = self.aec.state
        if not state.is_over:
            nxt = self.aec.agent_selection
            self._seen.add(nxt)
            # RLlib wants a reward with every observation of an agent that acted before: 0 until the end
            return {nxt: self.aec.observe(nxt)}, {nxt: 0.0}, {"__all__": False}, {"__all__": False}, {}
        # the game is over: every agent that played sees the end and gets its reward
        done = [a for a in self.agents if a in self._seen]
        obs = {a: self.aec.observe(a) for a in done}
        rewards = {a: float(self.aec.rewards[a]) for a in done}
        infos = {a: dict(self.aec.infos[a]) for a in done}
        terminated, truncated = not state.truncated, bool(state.truncated)
        return (obs, rewards, {**{a: terminated for a in done}, "__all__": terminated},
                {**{a: truncated for a in done}, "__all__": truncated}, infos)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """PPO's RLModule for a ``{"observation", "action_mask"}`` observation: masked logits and a value head.

    ``model_config``: ``{"hidden": [256, 256]}``, the hidden layer sizes of both networks.
    """

    def setup(self):
        """Build the actor and critic for the observation size and action count of the spaces."""
        obs_size = self.observation_space["observation"].shape[0]
        hidden = list(self.model_config.get("hidden", [256, 256]))
        self.net = build_network(int(obs_size), int(self.action_space.n), hidden)  # numpy ints break JSON export

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        logits = self.net.actor(obs["observation"]).masked_fill(obs["action_mask"] == 0, -1e9)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def compute_values(self, batch, embeddings=None):
        """The critic's value of each observation."""
        return self.net.critic(batch[Columns.OBS]["observation"]).squeeze(-1)

    def actor_linears(self) -> list:
        """The actor's Linear layers, first to last (what ``policy.npz`` holds)."""
        import torch

        return [m for m in self.net.actor if isinstance(m, torch.nn.Linear)]
