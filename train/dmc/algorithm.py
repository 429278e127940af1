"""The built-in Deep Monte-Carlo behind the trainer plug-in contract (``train/algorithm.py``): ``algo: dmc``."""
from __future__ import annotations

from agents.policy_file import PolicyFile

from train.contract import TrainingRun


def train(run: TrainingRun) -> PolicyFile:
    """Train DMC on ``run``, reporting as it learns; the action-value policy at the budget."""
    from train.dmc import trainer

    return trainer.train(run)


train.resumable = True  # it resumes an interrupted run from its checkpoint (the protocol keeps its directory)
