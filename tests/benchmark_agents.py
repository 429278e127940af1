"""Agents reachable as ``module:callable`` specs for tests/apps/test_benchmark_suite.py (``benchmark_agents:...``)."""
from __future__ import annotations

import numpy as np

import agents


class LowestLegalAgent:
    """Always the lowest legal action id; remembers the game and seed it was built with."""

    def __init__(self, game, seed):
        self.game, self.seed = game, seed

    def act(self, observation, action_mask) -> int:
        """The lowest legal action id."""
        return int(np.flatnonzero(action_mask)[0])


def make_lowest_legal_agent(game, seed):
    """A ``LowestLegalAgent`` (the ``module:callable`` form: called as ``callable(game, seed)``)."""
    return LowestLegalAgent(game, seed)


def make_nothing(game, seed):
    """Not an agent: a callable spec returning this must be refused."""
    return 42


class WrapsPolicyAgent:
    """Plays a shipped policy it keeps under ``policy`` (an agent, not a policy file): a wrapper users write."""

    def __init__(self, game, seed):
        self.policy = agents.load("pretrained:classic-2p", game, seed=seed)

    def act(self, observation, action_mask) -> int:
        """The wrapped policy's action."""
        return self.policy.act(observation, action_mask)


def make_wraps_policy_agent(game, seed):
    """A ``WrapsPolicyAgent``."""
    return WrapsPolicyAgent(game, seed)
