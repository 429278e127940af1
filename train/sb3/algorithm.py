"""SB3's MaskablePPO behind the trainer plug-in contract (``train/algorithm.py``): ``algo: sb3``."""
from __future__ import annotations

import os

from train.contract import Report, TrainingRun
from train.config import TrainConfig
from train.errors import UsageError


def report_callback(report: Report, cfg: TrainConfig, tally=None):
    """An SB3 callback that reports the model's policy at every rollout start (the update before is done) and at
    the end; the environments' counts go to ``tally`` (a contract run's, ``train/counting.py``) first."""
    try:
        from stable_baselines3.common.callbacks import BaseCallback
    except ImportError as exc:
        raise UsageError(f"training needs the optional training packages ({exc.name} is missing): "
                         "pip install 'uno-env[train]'") from None
    from uno_env import Game

    from train.export import policy_file_from_model

    game = Game(cfg.variant, cfg.num_players, **cfg.rule_options)

    class ReportPolicy(BaseCallback):
        def _report(self) -> None:
            if tally is not None:  # each environment counted its learner decisions (train/sb3/counted_env.py)
                for k, counts in enumerate(self.training_env.env_method("counts")):
                    tally.receive(("sb3", k), counts)
            t = self.model.num_timesteps
            report(t, lambda: policy_file_from_model(self.model, game, t, config=cfg.to_dict()))

        def _on_training_start(self) -> None:
            if tally is not None:  # a resumed run's checkpoint: what the sittings before this one trained
                tally.base = (self.model.num_timesteps, self.model.num_timesteps)

        def _on_rollout_start(self) -> None:
            self._report()

        def _on_step(self) -> bool:
            return True

        def _on_training_end(self) -> None:
            self._report()

    return ReportPolicy()


def train(run: TrainingRun) -> str:
    """Train MaskablePPO on ``run``, reporting at every rollout; the saved policy's path.

    ``run.resume``: continue from the ``step_<N>.zip`` ``run.resume_from`` (or ``run_dir``) names. Its summary
    goes to ``run.summary``; after Ctrl-C, with the checkpoint and the policy saved, it raises KeyboardInterrupt."""
    from train.sb3 import trainer

    cfg = run.as_config()
    summary = trainer.train(cfg, resume=(run.resume_from or run.run_dir) if run.resume else None,
                            progress=run.progress, progress_interval=run.progress_interval,
                            callbacks=[report_callback(run.report, cfg, run.tally)])
    run.summary.update(summary)
    if summary["interrupted"]:
        raise KeyboardInterrupt
    return os.path.join(summary["run_dir"], "policy")
