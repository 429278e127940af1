"""The built-in NFSP behind the trainer plug-in contract (``train/algorithm.py``): ``algo: nfsp``."""
from __future__ import annotations

from agents.policy_file import PolicyFile

from train.contract import TrainingRun


def train(run: TrainingRun) -> PolicyFile:
    """Train NFSP on ``run``, reporting as it learns; its average policy at the budget."""
    from train.nfsp import trainer

    return trainer.train(run)


train.resumable = True  # it resumes an interrupted run from its checkpoint (the protocol keeps its directory)
