"""The agent protocol and the random baseline."""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Anything that picks an action id from an observation vector and a legal-action mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id."""
        ...


class RandomAgent:
    """Uniformly random legal actions from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the generator."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A uniformly random legal action."""
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])
