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


def choose_action(agent, game, state, encoder) -> int:
    """``agent``'s action for the seat deciding in ``state``: a search agent (``reads_state``) gets the
    state itself (it redraws what the seat cannot see), every other agent the seat's observation and mask."""
    if getattr(agent, "reads_state", False):
        return int(agent.act_state(state))
    return int(agent.act(encoder.encode(state, state.current_seat), game.legal_action_mask(state)))


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

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``act`` for every row, in order (the same actions and generator draws), in one call to the
        compiled core where it is built."""
        out = np.empty(len(action_masks), dtype=np.int64)
        from uno_env import core

        if core.available():
            core._core.act_random(np.ascontiguousarray(action_masks, dtype=np.int8), self.rng, out)
        else:
            for r in range(len(out)):
                out[r] = self.act(observations[r], action_masks[r])
        return out
