"""The native PPO behind the trainer plug-in contract (``train/algorithm.py``): ``algo: ppo``."""
from __future__ import annotations

import os

from train.contract import TrainingRun


def train(run: TrainingRun) -> str:
    """Train the native PPO on ``run``, reporting after every update; the saved policy's path.

    ``run.resume``: continue from the native checkpoint ``run.resume_from`` (or ``run_dir``) names; the trainer
    refuses one of another run. ``run.ray_address``: its collectors as Ray actors there. Its summary (final
    evaluation, checkpoint, step counts) goes to ``run.summary``; after Ctrl-C, with the checkpoint and the
    policy saved, it raises ``KeyboardInterrupt``."""
    from train.ppo import trainer

    # the collectors' games count the learner's decisions into the run's tally, which checks the reports
    summary = trainer.train(run.as_config(), resume=(run.resume_from or run.run_dir) if run.resume else None,
                            progress=run.progress, progress_interval=run.progress_interval, on_update=run.report,
                            ray_address=run.ray_address, tally=run.tally)
    run.summary.update(summary)
    if summary["interrupted"]:
        raise KeyboardInterrupt
    return os.path.join(summary["run_dir"], "policy")
