"""SB3's environment with the contract's count: every ``step`` is one decision of the learner's seat.

``UnoEnv`` plays the opponents itself, so each step it is given is the learner's (``train/counting.py``
counts batched games the same way). ``counts()`` is what the trainer's report callback sends to the run,
through ``env_method`` (the environments may live in worker processes).
"""
from __future__ import annotations

from uno_env.gym_env import UnoEnv


class CountedUnoEnv(UnoEnv):
    """A ``UnoEnv`` counting its steps: ``taken`` in all, ``finished`` in episodes that ended."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.taken = self.finished = self._open = 0

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._open = 0  # an episode cut short by a reset never finishes
        return super().reset(seed=seed, options=options)

    def step(self, action):
        out = super().step(action)
        self.taken += 1
        self._open += 1
        if out[2] or out[3]:
            self.finished += self._open
            self._open = 0
        return out

    def counts(self) -> tuple[int, int]:
        """``(taken, finished)``, as ``CountedGames.counts``."""
        return self.taken, self.finished
