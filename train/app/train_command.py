"""The ``uno-env train`` command: read the config and overrides, run the trainer it names, report.

Every algorithm (ppo, sb3, dqn, nfsp, dmc, ``module:callable``) runs through the one door of the plug-in
contract, ``train_algorithm`` (``train/algorithm.py``), ``--resume`` and ``--ray`` included; its record
(``Trained``), with what the trainer added (the PPO paths: their final evaluation, checkpoint and step
counts), is printed as a table with the commands that evaluate and play the new policy; a policy its trainer
did not evaluate is evaluated here. After Ctrl-C: the command that resumes, when the trainer checkpointed.
The registry (``train/registry.py``) says whether it resumes and runs on Ray. Every algorithm refuses to start
over a run its directory holds (``run_dirs.refuse_over_run``; the PPO paths in their trainers, which check
their own checkpoints) unless ``--fresh`` clears it first.
"""
from __future__ import annotations

import json
import os
import shlex

import agents
from uno_env import Game

from train import registry, resumable, run_dirs, shipped_configs
from train.algorithm import Interrupted, Trained, train_algorithm
from train.app.cli import command_name
from train.config import TrainConfig
from train.errors import EXIT_INTERRUPTED, UsageError
from train.evaluation import stats
from train.evaluation.stats import format_table
from train.progress import DEFAULT_INTERVAL, add_progress_arguments
from train.rule_args import parse_value
from train.scaleout import LOCAL, add_ray_argument


def _rule_flags(cfg: TrainConfig) -> list[str]:
    """The ``--variant/--players/--option`` flags of ``uno-env eval`` and ``play`` for the run's rules."""
    flags = ["--variant", cfg.variant, "--players", str(cfg.num_players)]
    for key, value in cfg.rule_options.items():
        flags += ["--option", f"{key}={_option_text(value)}"]
    return flags


def _option_text(value) -> str:
    """``value`` as ``--option`` reads it back (``train/rule_args.parse_value``): true, 3, [0.5, 0.5], or a word."""
    if not isinstance(value, str):
        return json.dumps(value)
    try:
        plain = parse_value(value) == value
    except UsageError:
        plain = False
    return value if plain else f"'{value}'"  # a word that would read as something else: 'on', '3', 'a: b'


def next_steps(cfg: TrainConfig, run_dir: str) -> str:
    """The commands that evaluate the new policy against the baselines and play against it (runnable as printed)."""
    policy = os.path.join(run_dir, "policy")
    rules = _rule_flags(cfg)
    uno_env = command_name()
    evaluate = shlex.join([uno_env, "eval", *rules, "--agents", policy, "heuristic", "random"])
    play = shlex.join([uno_env, "play", *rules, "--opponents", policy])
    return f"next steps:\n  evaluate it against the baselines: {evaluate}\n  play against it: {play}"


def resume_command(args, run_dir: str) -> str:
    """The ``uno-env train`` command that continues an interrupted run (same config and overrides)."""
    cmd = [command_name(), "train"]
    for flag, value in (("--config", args.config), ("--timesteps", args.timesteps), ("--out-dir", args.out_dir),
                        ("--seed", args.seed)):
        if value is not None:
            cmd += [flag, str(value)]
    if getattr(args, "ray", None) is not None:
        cmd += ["--ray"] + ([] if args.ray == LOCAL else [args.ray])
    return shlex.join(cmd + ["--resume", os.path.join(run_dir, "checkpoints")])


def add_parser(sub) -> None:
    """Register the ``train`` sub-command."""
    p = sub.add_parser("train", help="train a policy (PPO, SB3's MaskablePPO, DQN, NFSP, DMC or your own "
                       "trainer), export and evaluate it",
                       description="Training by the config's algo: the native PPO (ppo), SB3's MaskablePPO (sb3), "
                                   "the built-in DQN, NFSP or DMC (dqn, nfsp, dmc), or a module:callable trainer; "
                                   "then export and evaluation. Ctrl-C: the PPO paths save a checkpoint and the "
                                   "policy and print how to resume; dqn, nfsp and dmc resume from their last "
                                   "checkpoint (every checkpoint_every decisions) with --resume RUN_DIR.")
    p.add_argument("--config", help="YAML training config (configs/train/*.yaml), or a shipped one by name "
                   f"({', '.join(shipped_configs.shipped_names('train'))}); without it, the built-in "
                   "small config (150,000 steps, seed 0, into runs/), or with --resume the run's own config.yaml")
    p.add_argument("--resume", help="continue from a run directory, its checkpoints directory or a checkpoint "
                   "file in it (the native PPO's native.pt; the SB3 path's step_<N>.zip, by default the one "
                   "latest.json names, else the newest complete one; dqn, nfsp and dmc: the run directory, "
                   "whose checkpoints/learner.json names the last checkpoint)")
    p.add_argument("--timesteps", type=int, help="override the config's total_timesteps (the built-in: 150000)")
    p.add_argument("--out-dir", help="override the config's out_dir, where runs go as <out_dir>/<run_name> "
                   "(the built-in: runs)")
    p.add_argument("--seed", type=int, help="override the config's seed (the built-in: 0)")
    p.add_argument("--fresh", action="store_true", help="start the run over: first delete what an earlier run "
                   "of the same name left in its directory (checkpoints, snapshots, logs, policy)")
    add_progress_arguments(p)
    add_ray_argument(p, "the native trainer's collectors (algo: ppo) as ray_collectors Ray actors")
    p.set_defaults(run=run)


def run(args) -> int:
    """CLI entry: train, export, print the evaluation table and what to do next (status 130 after Ctrl-C)."""
    if args.config:
        cfg = TrainConfig.from_yaml(shipped_configs.resolve(args.config, "train"))
    elif args.resume:  # the run's own resolved config, saved beside it
        cfg = run_dirs.saved_config(run_dirs.run_dir_of(args.resume))
    else:
        cfg = TrainConfig()
    overrides = {k: v for k, v in (("total_timesteps", args.timesteps), ("out_dir", args.out_dir),
                                    ("seed", args.seed)) if v is not None}
    if overrides:
        cfg = TrainConfig.from_dict({**cfg.to_dict(), **overrides})
    if args.fresh:
        if args.resume:
            raise UsageError("--fresh starts a run over; it cannot go with --resume")
        run_dirs.clear_run(os.path.join(cfg.out_dir, cfg.name))
    # looked up once, first: a trainer that cannot be imported is refused before anything is written
    algorithm = registry.lookup(cfg.algo)
    ray_address = getattr(args, "ray", None)
    if ray_address is not None and not algorithm.ray:
        raise UsageError("--ray runs the native trainer's collectors on Ray: it needs algo: "
                         f"{' or '.join(registry.on_ray())} in the config")
    run_dir = os.path.join(cfg.out_dir, cfg.name)
    if not algorithm.own_checkpoints:  # the PPO paths check --resume and their run directory themselves
        _check_run_dir(cfg, args, algorithm, run_dir)
        run_dirs.prepare_run_dir(cfg, run_dir)
    reported = [0]
    try:
        trained = train_algorithm(cfg, run_dir, report=lambda decisions, export: reported.__setitem__(0, decisions),
                                  progress=not args.no_progress, resume=bool(args.resume), resume_from=args.resume,
                                  progress_interval=getattr(args, "progress_interval", DEFAULT_INTERVAL),
                                  ray_address=ray_address)
    except Interrupted as stop:
        if "checkpoint" in stop.trained.summary:  # the trainer saved its policy (and a checkpoint) on its way out
            summary = _summary(stop.trained, run_dir)
            print(format_table(summary))
            print(f"train: interrupted at step {summary['timesteps']:,} of {summary['planned_timesteps']:,}; "
                  + _checkpoint_left(summary, run_dir))
            if summary["checkpoint"] is not None:
                print(f"train: resume with: {resume_command(args, run_dir)}")
        else:
            print(_interrupted(cfg, run_dir, reported[0], algorithm), flush=True)
        return EXIT_INTERRUPTED
    summary = _summary(trained, run_dir)
    if "evaluation" not in summary:  # the trainer made no final evaluation: evaluate its policy here
        game = Game(cfg.variant, cfg.num_players, **cfg.rule_options)
        agent = agents.load(trained.path, game, seed=0)
        summary["evaluation"] = stats.evaluate_policy(lambda i: agent, game, cfg.eval_games, cfg.seed + 10_000)
    print(format_table(summary))
    print(next_steps(cfg, run_dir))
    return 0


def _summary(trained: Trained, run_dir: str) -> dict:
    """The end-of-run summary: the common record (its last report, its time), then what the trainer added."""
    summary = {"timesteps": trained.reported, "trained_timesteps": trained.reported, "seconds": trained.seconds,
               "planned_timesteps": trained.reported, **trained.summary, "run_dir": run_dir}
    summary.setdefault("samples_per_second", summary["trained_timesteps"] / max(summary["seconds"], 1e-9))
    return summary


def _checkpoint_left(summary: dict, run_dir: str) -> str:
    """What the native PPO left after Ctrl-C: its policy, and its checkpoint (a run in segments keeps the last
    segment end's, or has none yet)."""
    policy = f"{run_dir}/policy.npz"
    at = summary.get("checkpoint_at", summary["timesteps"])
    if summary["checkpoint"] is None:
        return (f"saved {policy}; no checkpoint yet (a run in segments writes one at each segment's end, every "
                f"segment_every decisions); start it over with --fresh")
    if at != summary["timesteps"]:
        return f"saved {policy}; its last checkpoint, at the segment's end at step {at:,}, is {summary['checkpoint']}"
    return f"saved {summary['checkpoint']} and {policy}"


def _decisions(count: int) -> str:
    """``1 decision``, ``2,048 decisions``."""
    return f"{count:,} decision{'' if count == 1 else 's'}"


def _interrupted(cfg: TrainConfig, run_dir: str, decisions: int,
                 algorithm: registry.Algorithm | None = None) -> str:
    """What a trainer with ``train/resumable.py``'s checkpoints, or none, left after Ctrl-C, and how to continue
    (``algorithm``: its record)."""
    algorithm = algorithm or registry.lookup(cfg.algo)
    head = f"train: interrupted after {_decisions(decisions)}"
    if algorithm.resumable and resumable.exists(run_dir):
        reached = resumable.checkpoint_decisions(run_dir)
        at = f" (at {_decisions(reached)})" if reached is not None else ""
        return f"{head}; its last checkpoint{at} is in {resumable.folder(run_dir)}\ntrain: resume with: " + \
            shlex.join([command_name(), "train", "--resume", run_dir])
    why = ("no checkpoint was written yet" if algorithm.resumable else f"{cfg.algo} writes no checkpoints")
    return f"{head}; {why}, so no policy was saved: train again to start over"


def _check_run_dir(cfg: TrainConfig, args, algorithm: registry.Algorithm, run_dir: str) -> None:
    """Refuse ``--resume`` of a run without ``train/resumable.py``'s checkpoint, or a new run over a finished one."""
    if args.resume and not algorithm.continues:
        resuming = ", ".join(a.name for a in registry.BUILTIN.values() if a.continues)
        raise UsageError(f"--resume continues a run of a trainer that writes checkpoints ({resuming}, "
                         f"or a plug-in with resumable = True); {cfg.algo} has none")
    if args.resume and os.path.abspath(run_dirs.run_dir_of(args.resume)) != os.path.abspath(run_dir):
        raise UsageError(f"--resume {args.resume} names another run than the config's {run_dir}; give --resume "
                         "alone (the run's own config.yaml is used), or the config that started that run")
    if args.resume and not resumable.exists(run_dir):
        raise UsageError(f"--resume: {run_dir} holds no checkpoint of a {cfg.algo} run (one is written every "
                         f"checkpoint_every = {_decisions(cfg.checkpoint_every)}); start the run without --resume")
    if not args.resume:  # --resume continues an interrupted run from its checkpoint; a finished one, nothing
        interrupted = algorithm.resumable and resumable.exists(run_dir) and \
            not os.path.exists(os.path.join(run_dir, "policy.json"))
        run_dirs.refuse_over_run(run_dir, resume_with=run_dir if interrupted else None)
