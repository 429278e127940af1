"""The native PPO behind the trainer plug-in contract (``train/algorithm.py``): ``algo: ppo``."""
from __future__ import annotations

import os

from train.algorithm import TrainingRun


def train(run: TrainingRun) -> str:
    """Train the native PPO on ``run``, reporting after every update; the saved policy's path."""
    from train.ppo import trainer

    # the collectors' games count the learner's decisions into the run's tally, which checks the reports
    summary = trainer.train(run.as_config(), progress=run.progress, on_update=run.report, tally=run.tally)
    if summary["interrupted"]:
        raise KeyboardInterrupt
    return os.path.join(summary["run_dir"], "policy")
