"""MaskablePPO self-play training: ``uno-env train [--config configs/train/<name>.yaml]``.

The run, top to bottom: resolve and save the config, seed everything, build the parallel
environments with an opponent pool (baselines + frozen snapshots of the learner, drawn per
episode), build the model, learn with callbacks that add snapshots, evaluate against random and
heuristic, and checkpoint, then export the policy file and print the final evaluation.

Outputs in ``<out_dir>/<run_name>/``: ``config.yaml`` (resolved), ``progress.csv`` and TensorBoard
events (SB3 logger), ``eval.csv``, ``checkpoints/step_<N>.zip`` (+ ``latest.json``), and
``snapshots/`` (the frozen opponents, restored on resume), ``policy.npz`` + ``policy.json`` (the
exported, framework-free policy). A resumed run logs into ``resumed-<step>/``.
"""
from __future__ import annotations

import csv
import json
import os
import time

import yaml

from agents import load as load_agent
from agents.policy_file import PolicyAgent, load_policy
from uno_env import Game

from .config import ConfigError, TrainConfig
from .evaluate import head_to_head
from .export import policy_file_from_model


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


def evaluate_policy(agent_factory, game: Game, games: int, seed: int) -> dict:
    """Win rates of the agent against random and heuristic, seat-rotated, with 95% intervals."""
    out = {}
    for opponent in ("random", "heuristic"):
        out[opponent] = head_to_head(game, agent_factory, lambda i, o=opponent: load_agent(o, game, seed=seed + i),
                                     games, seed=seed)
    return out


def train(cfg: TrainConfig, resume: str | None = None, progress: bool = True) -> dict:
    """Run one training job; returns a summary with the final evaluation."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from uno_env.gym_env import UnoEnv

    # -- the run directory and the resolved config beside it
    run_dir = os.path.join(cfg.out_dir, cfg.name)
    for sub in ("checkpoints", "snapshots"):
        os.makedirs(os.path.join(run_dir, sub), exist_ok=True)
    game = Game(cfg.variant, cfg.num_players, **cfg.rule_options)
    resolved = {**cfg.to_dict(), "run_name": cfg.name, "resolved_rules": game.rules.to_dict()}
    with open(os.path.join(run_dir, "config.yaml"), "w", encoding="utf-8") as fh:
        yaml.safe_dump(resolved, fh, sort_keys=False)

    # -- seeding: SB3's helper seeds torch (and the global generators SB3 itself uses)
    set_random_seed(cfg.seed)

    # one torch thread: the environment processes need the cores; skip distribution argument checks
    # (the masks already guarantee valid logits) - both roughly double the samples per second here
    import torch

    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)

    # -- environments: one learner seat per env, opponents drawn from the pool every episode
    vec_cls = SubprocVecEnv if cfg.n_envs > 1 else DummyVecEnv
    envs = make_vec_env(UnoEnv, n_envs=cfg.n_envs, seed=cfg.seed, vec_env_cls=vec_cls,
                        env_kwargs={"rules": game.rules})
    pool = OpponentPool(cfg, game)
    envs.env_method("set_opponent_pool", *pool.policies_and_weights())

    # -- the model
    model = MaskablePPO(
        "MlpPolicy", envs, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef, policy_kwargs={"net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)}},
        seed=cfg.seed, device="cpu", verbose=0)
    done = 0
    if resume:
        done = _restore(model, resume)
        for path in _saved_snapshots(run_dir)[-cfg.max_snapshots:]:  # the pool as it was
            pool.add_snapshot(load_policy(path, game, deterministic=False, seed=cfg.seed + done))
        envs.env_method("set_opponent_pool", *pool.policies_and_weights())
    # SB3's CSV writer truncates its file: a resumed run logs into its own folder
    log_dir = run_dir if not resume else os.path.join(run_dir, f"resumed-{done}")
    model.set_logger(configure(log_dir, ["csv", "tensorboard"]))

    eval_path = os.path.join(run_dir, "eval.csv")
    start = time.perf_counter()

    def snapshot(deterministic: bool, seed: int) -> PolicyAgent:
        return PolicyAgent(policy_file_from_model(model, game, model.num_timesteps), deterministic, seed)

    class SelfPlay(BaseCallback):
        """Adds snapshots to the pool, evaluates and checkpoints on schedule."""

        def __init__(self):
            super().__init__()
            self.next_snapshot = done + cfg.snapshot_every
            self.next_eval = done + cfg.eval_every

        def _on_step(self) -> bool:
            t = self.num_timesteps
            if cfg.time_limit_minutes and time.perf_counter() - start > 60 * cfg.time_limit_minutes:
                return False  # budget spent: stop learning, then export and evaluate as usual
            if t >= self.next_snapshot:
                self.next_snapshot += cfg.snapshot_every
                frozen = snapshot(deterministic=False, seed=cfg.seed + t)
                frozen.policy.save(os.path.join(run_dir, "snapshots", f"step_{t:010d}"))
                pool.add_snapshot(frozen)
                envs.env_method("set_opponent_pool", *pool.policies_and_weights())
            if t >= self.next_eval:
                self.next_eval += cfg.eval_every
                self._evaluate(t)
            return True

        def _evaluate(self, t: int) -> None:
            frozen = snapshot(deterministic=True, seed=0)
            result = evaluate_policy(lambda i: frozen, game, cfg.eval_games, cfg.seed + 10_000)
            for opp, r in result.items():
                self.logger.record(f"eval/win_rate_{opp}", r["win_rate"])
            _append_eval(eval_path, t, result)
            _checkpoint(model, run_dir, t)

    # -- learn
    model.learn(total_timesteps=max(cfg.total_timesteps - done, 0), callback=SelfPlay(), progress_bar=progress,
                reset_num_timesteps=not resume)
    seconds = time.perf_counter() - start
    envs.close()
    steps = model.num_timesteps
    _checkpoint(model, run_dir, steps)

    # -- export and final evaluation
    final = snapshot(deterministic=True, seed=0)
    evaluation = evaluate_policy(lambda i: final, game, cfg.eval_games, cfg.seed + 20_000)
    _append_eval(eval_path, steps, evaluation)
    final.policy.metadata.update(evaluation=evaluation, config=cfg.to_dict())
    final.policy.save(os.path.join(run_dir, "policy"))
    return {"run_dir": run_dir, "timesteps": steps, "seconds": seconds,
            "samples_per_second": (steps - done) / seconds if seconds else 0.0, "evaluation": evaluation}


def _checkpoint(model, run_dir: str, steps: int) -> None:
    path = os.path.join(run_dir, "checkpoints", f"step_{steps}.zip")
    model.save(path)
    with open(os.path.join(run_dir, "checkpoints", "latest.json"), "w", encoding="utf-8") as fh:
        json.dump({"timesteps": steps, "path": os.path.basename(path)}, fh)


def _saved_snapshots(run_dir: str) -> list[str]:
    folder = os.path.join(run_dir, "snapshots")
    return sorted(os.path.join(folder, f[:-5]) for f in os.listdir(folder) if f.endswith(".json"))


def _restore(model, checkpoint: str) -> int:
    """Load weights and optimiser state only (no unpickling of the checkpoint's data); returns its step."""
    if os.path.isdir(checkpoint) and os.path.exists(os.path.join(checkpoint, "checkpoints", "latest.json")):
        checkpoint = os.path.join(checkpoint, "checkpoints")  # a run directory
    if os.path.isdir(checkpoint):
        if not os.path.exists(os.path.join(checkpoint, "latest.json")):
            raise ConfigError(f"--resume: {checkpoint!r} has no latest.json (give a run directory, its "
                              f"checkpoints directory or a step_<N>.zip)")
        with open(os.path.join(checkpoint, "latest.json"), encoding="utf-8") as fh:
            checkpoint = os.path.join(checkpoint, json.load(fh)["path"])
    name = os.path.basename(checkpoint)
    if not (name.startswith("step_") and name.endswith(".zip") and name[5:-4].isdigit()):
        raise ConfigError(f"--resume expects a checkpoints/step_<N>.zip file or a checkpoints directory, got {checkpoint!r}")
    if not os.path.exists(checkpoint):
        raise ConfigError(f"--resume: no checkpoint at {checkpoint!r}")
    model.set_parameters(checkpoint, exact_match=True, device="cpu")
    model.num_timesteps = int(name[5:-4])
    return model.num_timesteps


def _append_eval(path: str, steps: int, result: dict) -> None:
    new = not os.path.exists(path)
    with open(path, "a", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(["timesteps", "opponent", "games", "win_rate", "ci95_low", "ci95_high"])
        for opp, r in result.items():
            w.writerow([steps, opp, r["games"], f"{r['win_rate']:.4f}", f"{r['ci95'][0]:.4f}", f"{r['ci95'][1]:.4f}"])


def format_table(summary: dict) -> str:
    """The final evaluation as a text table."""
    lines = [f"{'opponent':<12}{'games':>7}{'win rate':>10}{'95% interval':>18}"]
    for opp, r in summary["evaluation"].items():
        lo, hi = r["ci95"]
        lines.append(f"{opp:<12}{r['games']:>7}{r['win_rate']:>10.1%}{f'{lo:.1%} - {hi:.1%}':>18}")
    lines.append(f"trained {summary['timesteps']} steps in {summary['seconds']:.0f} s "
                 f"({summary['samples_per_second']:.0f} samples/s); policy: {summary['run_dir']}/policy.npz")
    return "\n".join(lines)


def add_parser(sub) -> None:
    """Register the ``train`` sub-command."""
    p = sub.add_parser("train", help="MaskablePPO self-play training, export and evaluation")
    p.add_argument("--config", help="YAML training config (configs/train/*.yaml); default: the built-in small config")
    p.add_argument("--resume", help="checkpoints/step_<N>.zip (or a run's checkpoints directory) to continue from")
    p.add_argument("--timesteps", type=int, help="override total_timesteps")
    p.add_argument("--out-dir", help="override out_dir")
    p.add_argument("--seed", type=int, help="override seed")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def run(args) -> int:
    """CLI entry: train, export, print the evaluation table."""
    cfg = TrainConfig.from_yaml(args.config) if args.config else TrainConfig()
    overrides = {k: v for k, v in (("total_timesteps", args.timesteps), ("out_dir", args.out_dir),
                                    ("seed", args.seed)) if v is not None}
    if overrides:
        cfg = TrainConfig.from_dict({**cfg.to_dict(), **overrides})
    summary = train(cfg, resume=args.resume, progress=not args.no_progress)
    print(format_table(summary))
    return 0
