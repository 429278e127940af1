"""The SB3 path: MaskablePPO self-play training, which ``uno-env train`` runs for ``algo: sb3`` configs.

The reference the native PPO (``train/ppo/trainer.py``) is measured against; the command itself is
``train/app/train_command.py``.

The run, top to bottom: resolve and save the config, seed everything, build the parallel
environments with an opponent pool (baselines + frozen snapshots of the learner, drawn per
episode), build the model, learn with callbacks that add snapshots, evaluate against random and
heuristic, and checkpoint, then export the policy file and print the final evaluation.

Outputs in ``<out_dir>/<run_name>/``: ``config.yaml`` (resolved), ``progress.csv`` and TensorBoard
events (SB3 logger), ``eval.csv``, ``checkpoints/step_<N>.zip`` (+ ``latest.json``), and
``snapshots/`` (the frozen opponents, restored on resume), ``policy.npz`` + ``policy.json`` (the
exported, framework-free policy). A resumed run logs into ``resumed-<step>/``.

Long runs: every file above is written atomically (``train/atomic.py``), so a crash leaves the
previous version, never half a file. Ctrl-C stops learning at the next step (a second Ctrl-C at
once), writes a checkpoint and the exported policy (without the final evaluation) and prints the
command that resumes. ``--resume`` falls back to the newest complete ``step_<N>.zip`` when
``latest.json`` is missing or damaged. Progress is a bar on a terminal, periodic lines otherwise.
"""
from __future__ import annotations

import math
import os
import signal
import time
from dataclasses import dataclass, field
from types import SimpleNamespace

from agents.policy_file import PolicyAgent, load_policy
from uno_env import Game

from train import atomic, run_dirs
from train.agent_specs import load_agent
from train.config import ConfigError, TrainConfig
from train.errors import UsageError
from train.evaluation import stats
from train.export import policy_file_from_model
from train.progress import DEFAULT_INTERVAL, Progress, StopRequest
from train.sb3 import checkpoint as sb3_checkpoint


class OpponentPool:
    """Baseline agents and frozen learner snapshots with their sampling weights."""

    def __init__(self, cfg: TrainConfig, game: Game):
        self.cfg = cfg
        self.baselines = [(w, load_agent(spec, game, seed=cfg.seed + i))
                          for i, (spec, w) in enumerate(cfg.opponents.items()) if spec != "self" and w > 0]
        self.snapshots: list[PolicyAgent] = []

    def add_snapshot(self, agent: PolicyAgent) -> None:
        """Add a frozen copy of the learner (dropping the oldest beyond ``max_snapshots``)."""
        self.snapshots.append(agent)
        del self.snapshots[:-self.cfg.max_snapshots]

    def policies_and_weights(self) -> tuple[list, list[float]]:
        """What the environments sample from."""
        policies = [a for _, a in self.baselines]
        weights = [w for w, _ in self.baselines]
        self_w = self.cfg.opponents.get("self", 0.0)
        if self.snapshots and self_w > 0:
            policies += self.snapshots
            weights += [self_w / len(self.snapshots)] * len(self.snapshots)
        return policies, weights


def train(cfg: TrainConfig, resume: str | None = None, progress: bool = True,
          progress_interval: float = DEFAULT_INTERVAL, progress_stream=None, callbacks: list | None = None) -> dict:
    """Run one training job; returns a summary with the final evaluation (``interrupted`` after Ctrl-C).

    ``progress_stream`` (default stdout) gets a bar if it is a terminal, else a line every
    ``progress_interval`` seconds; ``callbacks`` are extra SB3 callbacks run after the self-play one.
    """
    sb3 = _sb3()
    # -- the checkpoint to resume from, found before anything slow is built (a wrong path fails at once)
    run_dir = os.path.join(cfg.out_dir, cfg.name)
    checkpoint = _checkpoint_to_resume(cfg, resume, run_dir)
    game = run_dirs.prepare_run_dir(cfg, run_dir)

    # -- seeding: SB3's helper seeds torch (and the global generators SB3 itself uses)
    sb3.set_random_seed(cfg.seed)
    _fast_torch()

    # -- environments: one learner seat per env, opponents drawn from the pool every episode
    vec_cls = sb3.SubprocVecEnv if cfg.n_envs > 1 else sb3.DummyVecEnv
    envs = sb3.make_vec_env(_make_env, n_envs=cfg.n_envs, seed=cfg.seed, vec_env_cls=vec_cls,
                            env_kwargs={"rules": game.rules})
    pool = OpponentPool(cfg, game)
    envs.env_method("set_opponent_pool", *pool.policies_and_weights())

    # -- the model, and on resume its checkpoint and the pool as it was at that step
    model = _model(sb3, cfg, envs)
    done = _restore(model, checkpoint, cfg, game, run_dir, pool, envs) if checkpoint else 0
    # SB3's CSV writer truncates its file: a resumed run logs into its own folder
    log_dir = run_dir if not resume else os.path.join(run_dir, f"resumed-{done}")
    model.set_logger(sb3.configure(log_dir, ["csv", "tensorboard"]))
    remaining, planned = _planned(cfg, done)

    # -- learn, then export and evaluate
    run = _Run(cfg, game, run_dir, model, envs, pool, done, planned)
    bar = Progress("train", planned, "steps", "samples/s", initial=done, enabled=progress,
                   interval=progress_interval, stream=progress_stream)
    every_step = [_self_play(sb3.BaseCallback, run, bar), *(callbacks or [])]
    raised = False
    with run.stop:
        try:
            model.learn(total_timesteps=remaining, callback=every_step, progress_bar=False,
                        reset_num_timesteps=not resume)
        except KeyboardInterrupt:  # a second Ctrl-C (or one outside a step): the weights are still usable
            raised = True
        finally:
            bar.close()
    return _finish(run, raised)


def _sb3() -> SimpleNamespace:
    """The SB3 pieces this path uses, or a ``UsageError`` naming the extra to install."""
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.env_util import make_vec_env
        from stable_baselines3.common.logger import configure
        from stable_baselines3.common.utils import set_random_seed
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    except ImportError as exc:
        raise UsageError(f"training needs the optional training packages ({exc.name} is missing): "
                         "pip install 'uno-env[train]'") from None
    return SimpleNamespace(MaskablePPO=MaskablePPO, BaseCallback=BaseCallback, make_vec_env=make_vec_env,
                           configure=configure, set_random_seed=set_random_seed, DummyVecEnv=DummyVecEnv,
                           SubprocVecEnv=SubprocVecEnv)


def _checkpoint_to_resume(cfg: TrainConfig, resume: str | None, run_dir: str) -> str | None:
    """The checkpoint ``--resume`` names, of this config's run; None for a fresh run (refused over an old one)."""
    checkpoint = sb3_checkpoint.find_checkpoint(resume) if resume else None
    if checkpoint and os.path.realpath(run_dirs.run_dir_of(checkpoint)) != os.path.realpath(run_dir):
        raise ConfigError(f"--resume {resume}: that checkpoint belongs to the run in "
                          f"{run_dirs.run_dir_of(checkpoint)}, but this config trains {run_dir}; resume without "
                          "--config (the run's own config.yaml is used) or with the config that started it")
    if not checkpoint:
        run_dirs.refuse_over_run(run_dir, resume_with=os.path.join(run_dir, "checkpoints"))
    return checkpoint


def _fast_torch() -> None:
    """One torch thread and no distribution argument checks: both roughly double the samples per second here."""
    import torch

    # the environment processes need the cores; the masks already guarantee valid logits
    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)


def _model(sb3: SimpleNamespace, cfg: TrainConfig, envs):
    """A fresh MaskablePPO on ``envs`` with the config's hyperparameters."""
    return sb3.MaskablePPO(
        "MlpPolicy", envs, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef, max_grad_norm=cfg.ppo_max_grad_norm,
        policy_kwargs={"net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)}},
        seed=cfg.seed, device="cpu", verbose=0)


def _restore(model, checkpoint: str, cfg: TrainConfig, game: Game, run_dir: str, pool: OpponentPool, envs) -> int:
    """Load ``checkpoint`` into the model and the pool's snapshots as they were at its step; that step."""
    done = sb3_checkpoint.restore(model, checkpoint)
    for path in run_dirs.pool_snapshots(run_dir, done, cfg.max_snapshots):
        pool.add_snapshot(load_policy(path, game, deterministic=False, seed=cfg.seed + done))
    envs.env_method("set_opponent_pool", *pool.policies_and_weights())
    return done


def _planned(cfg: TrainConfig, done: int) -> tuple[int, int]:
    """(timesteps still to learn, the step count the run will end at): SB3 learns whole rollouts, so it rounds up."""
    remaining = max(cfg.total_timesteps - done, 0)
    planned = done + _round_up(remaining, cfg.n_steps * cfg.n_envs)
    if planned != max(cfg.total_timesteps, done):
        print(f"train: total_timesteps {cfg.total_timesteps:,} rounded up to {planned:,} (whole rollouts of "
              f"n_steps x n_envs = {cfg.n_steps * cfg.n_envs:,} steps)", flush=True)
    return remaining, planned


@dataclass
class _Run:
    """What the self-play callback and the end of the run share."""

    cfg: TrainConfig
    game: Game
    run_dir: str
    model: object
    envs: object
    pool: OpponentPool
    done: int                 # timesteps before this sitting (a resumed run's)
    planned: int              # timesteps it will end at
    start: float = field(default_factory=time.perf_counter)  # the time limit counts from here
    stop: StopRequest = field(default_factory=StopRequest)

    def snapshot(self, deterministic: bool, seed: int) -> PolicyAgent:
        """The learner now as a policy agent."""
        return PolicyAgent(policy_file_from_model(self.model, self.game, self.model.num_timesteps), deterministic, seed)


def _self_play(base_callback: type, run: _Run, bar: Progress):
    """The self-play callback, a subclass of SB3's ``base_callback`` (SB3 is imported only to train)."""
    cfg = run.cfg
    eval_path = os.path.join(run.run_dir, "eval.csv")

    class SelfPlay(base_callback):
        """Reports progress, adds snapshots to the pool, evaluates and checkpoints on schedule."""

        def __init__(self):
            super().__init__()
            # on the same grid as an uninterrupted run, so a resumed run rewrites the same snapshot files
            self.next_snapshot = (run.done // cfg.snapshot_every + 1) * cfg.snapshot_every
            self.next_eval = (run.done // cfg.eval_every + 1) * cfg.eval_every

        def _on_step(self) -> bool:
            t = self.num_timesteps
            bar.set(t)
            if cfg.time_limit_minutes and time.perf_counter() - run.start > 60 * cfg.time_limit_minutes:
                return False  # budget spent: stop learning, then export and evaluate as usual
            if t >= self.next_snapshot:
                self.next_snapshot += cfg.snapshot_every
                frozen = run.snapshot(deterministic=False, seed=cfg.seed + t)
                atomic.save_policy(frozen.policy, os.path.join(run.run_dir, "snapshots", f"step_{t:010d}"))
                run.pool.add_snapshot(frozen)
                run.envs.env_method("set_opponent_pool", *run.pool.policies_and_weights())
            if t >= self.next_eval:
                self.next_eval += cfg.eval_every
                self._evaluate(t)
            return not run.stop.requested  # Ctrl-C: leave learn() between steps, with the model consistent

        def _evaluate(self, t: int) -> None:
            frozen = run.snapshot(deterministic=True, seed=0)
            result = stats.evaluate_policy(lambda i: frozen, run.game, cfg.eval_games, cfg.seed + 10_000)
            for opp, r in result.items():
                self.logger.record(f"eval/win_rate_{opp}", r["win_rate"])
            run_dirs.append_eval(eval_path, t, result)
            sb3_checkpoint.save_checkpoint(run.model, run.run_dir, t)

    return SelfPlay()


def _finish(run: _Run, raised: bool) -> dict:
    """Close the environments, checkpoint, evaluate (not after Ctrl-C) and export; the run's summary."""
    cfg = run.cfg
    interrupted = raised or run.stop.requested
    seconds = time.perf_counter() - run.start
    _close_envs(run.envs, graceful=not raised)
    steps = run.model.num_timesteps
    checkpoint_path = sb3_checkpoint.save_checkpoint(run.model, run.run_dir, steps)

    # -- export and final evaluation (skipped after Ctrl-C: the user wants out; `uno-env eval` can do it later)
    final = run.snapshot(deterministic=True, seed=0)
    evaluation = {}
    if not interrupted:
        try:
            evaluation = stats.evaluate_policy(lambda i: final, run.game, cfg.eval_games, cfg.seed + 20_000)
            run_dirs.append_eval(os.path.join(run.run_dir, "eval.csv"), steps, evaluation)
        except KeyboardInterrupt:  # Ctrl-C during the final evaluation: still export the policy
            interrupted, evaluation = True, {}
    final.policy.metadata.update(evaluation=evaluation, config=cfg.to_dict())
    atomic.save_policy(final.policy, os.path.join(run.run_dir, "policy"))
    return {"run_dir": run.run_dir, "timesteps": steps, "trained_timesteps": steps - run.done,
            "planned_timesteps": run.planned, "seconds": seconds,
            "samples_per_second": (steps - run.done) / seconds if seconds else 0.0, "evaluation": evaluation,
            "interrupted": interrupted, "checkpoint": checkpoint_path}


def _make_env(**kwargs):
    """A UnoEnv that counts the learner's decisions; in a SubprocVecEnv worker, one that ignores Ctrl-C (the
    trainer decides when to stop)."""
    import multiprocessing

    from train.sb3.counted_env import CountedUnoEnv

    if multiprocessing.parent_process() is not None:
        # Ctrl-C reaches the whole process group: a worker that died of it would leave the trainer
        # unable to finish the step it is in, close the environments or save cleanly
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return CountedUnoEnv(**kwargs)


def _close_envs(envs, graceful: bool) -> None:
    """Close the environments; after a Ctrl-C inside a step, by stopping their processes."""
    if graceful or not hasattr(envs, "processes"):
        envs.close()
        return
    # interrupted inside a step: a pipe may hold an unread reply and close() would wait for it forever
    for process in envs.processes:
        process.terminate()
    for process in envs.processes:
        process.join()
    for remote in envs.remotes:
        remote.close()
    envs.closed = True


def _round_up(n: int, multiple: int) -> int:
    """``n`` rounded up to a whole number of ``multiple``."""
    return math.ceil(n / multiple) * multiple
