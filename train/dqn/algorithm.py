"""The built-in DQN behind the trainer plug-in contract (``train/algorithm.py``): ``algo: dqn``."""
from __future__ import annotations

from agents.policy_file import PolicyFile

from train.contract import TrainingRun


def train(run: TrainingRun) -> PolicyFile:
    """Train the DQN on ``run``, reporting as it learns; the policy (its advantage stream) at the budget."""
    from train.dqn import trainer

    return trainer.train(run)


train.resumable = True  # it resumes an interrupted run from its checkpoint (the protocol keeps its directory)
