"""The one door every algorithm goes through: ``train_algorithm`` runs ``algo``'s entry (the registry's record,
``train/registry.py``) on a ``TrainingRun`` and checks its reports against its games' count; ``uno-env train``,
``benchmark --train``, ``bench train`` and ``exploit`` all call it. The contract itself, what a trainer is
given and returns, is ``train/contract.py`` (its types are re-exported here, where plug-ins have imported them).
"""
from __future__ import annotations

import contextlib
import copy
import os
import time
from dataclasses import replace
from typing import Callable

from agents.policy_file import PolicyFile

from train import registry, resumable
from train.config import ConfigError, TrainConfig, run_name_problem
from train.contract import Interrupted, Report, Trained, TrainingRun
from train.counting import Tally, audit

__all__ = ["Interrupted", "Report", "Trained", "TrainingRun", "check_same_seed", "is_resumable", "resolve_trainer",
           "run_algorithm", "train_algorithm", "training_run"]


def resolve_trainer(algo: str) -> Callable[[TrainingRun], PolicyFile | str]:
    """The trainer callable ``algo`` names: a built-in name or a ``module:callable`` (``registry.lookup``)."""
    return registry.lookup(algo).load()


def training_run(cfg: TrainConfig, run_dir: str, report: Report | None = None, progress: bool = False,
                 resume: bool = False, **options) -> TrainingRun:
    """The ``TrainingRun`` a training config describes (its budget is ``total_timesteps``); ``options``: the
    run's other fields (``resume_from``, ``progress_interval``, ``ray_address``)."""
    return TrainingRun(variant=cfg.variant, num_players=cfg.num_players, rule_options=dict(cfg.rule_options),
                       table_sizes=tuple(cfg.player_counts), budget=cfg.total_timesteps, seed=cfg.seed,
                       league=dict(cfg.opponents), run_dir=run_dir, settings=dict(cfg.settings),
                       config=cfg.to_dict(), report=report or (lambda decisions, export: None), progress=progress,
                       resume=resume, validated=_writing_into(cfg, run_dir), **options)


def _writing_into(cfg: TrainConfig, run_dir: str) -> TrainConfig | None:
    """A copy of the validated ``cfg`` writing into ``run_dir`` (its out_dir and run_name changed, nothing that a
    check reads but the name), or None when ``run_dir``'s name is no run name (``as_config`` then says why)."""
    folder = os.path.normpath(run_dir)
    if run_name_problem(os.path.basename(folder)):
        return None
    # a copy: a trainer that changes its config changes neither the caller's nor a second run's
    return replace(copy.deepcopy(cfg), out_dir=os.path.dirname(folder) or ".", run_name=os.path.basename(folder))


def is_resumable(algo: str) -> bool:
    """Whether ``algo``'s trainer resumes an interrupted run from its own checkpoint (the registry's ``resumable``)."""
    return registry.lookup(algo).resumable


def run_algorithm(cfg: TrainConfig, run_dir: str, report: Report | None = None, progress: bool = False,
                  resume: bool = False, **options) -> str:
    """Train ``cfg.algo`` through the contract; the path (without extension) of the policy it returned."""
    return train_algorithm(cfg, run_dir, report, progress, resume, **options).path


def train_algorithm(cfg: TrainConfig, run_dir: str, report: Report | None = None, progress: bool = False,
                    resume: bool = False, **options) -> Trained:
    """Train ``cfg.algo`` through the contract, its reports checked against its games' count (``Trained``).

    ``options``: the run's ``resume_from``, ``progress_interval`` and ``ray_address`` (``TrainingRun``)."""
    algorithm = registry.lookup(cfg.algo)
    if options.get("ray_address") is not None and not algorithm.ray:
        raise ConfigError(f"algo {cfg.algo!r} does not run on Ray (the algorithms that do: "
                          f"{', '.join(registry.on_ray())})")
    trainer = algorithm.load()
    made = _make_dirs(run_dir)
    reports: list[tuple[int, int, int]] = []
    tally = Tally()
    if resume and algorithm.resumable and resumable.exists(run_dir):
        # the checkpoint's count: what the sittings before this one trained (a trainer with checkpoints of its
        # own, the PPO paths, sets the base itself from the step its checkpoint resumes at)
        start = resumable.checkpoint_decisions(run_dir)
        if start is not None:
            tally.base = (start, start)

    def counted(decisions: int, export: Callable[[], PolicyFile]) -> None:
        reports.append((int(decisions), *tally.counts()))
        # checked before the hook saves anything: a point is never saved from a run that misreports
        problem = audit(cfg.algo, cfg.total_timesteps, reports, tally.base[0]) if tally.used else None
        if problem:
            raise ConfigError(problem)
        if report is not None:
            report(decisions, export)

    run = replace(training_run(cfg, run_dir, counted, progress, resume, **options), tally=tally)
    began = time.perf_counter()
    try:
        result = trainer(run)
    except Exception:
        for folder in made:  # a trainer refused before writing anything (torch missing, a bad --resume) leaves none
            with contextlib.suppress(OSError):
                os.rmdir(folder)  # only an empty one
        raise
    except KeyboardInterrupt:
        saved = os.path.join(run_dir, "policy")
        raise Interrupted(Trained(saved if os.path.exists(saved + ".json") else None,
                                  reports[-1][0] if reports else 0, tally.counts() if tally.used else None,
                                  time.perf_counter() - began, dict(run.summary))) from None
    seconds = time.perf_counter() - began
    path = None
    if isinstance(result, (str, os.PathLike)):
        from agents.policy_file import strip_extension

        path = strip_extension(os.fspath(result))
        if not os.path.exists(path + ".json"):
            raise ConfigError(f"algo {cfg.algo!r} returned {result!r}, which is not a saved policy file")
    elif not isinstance(result, PolicyFile):
        raise ConfigError(f"algo {cfg.algo!r} returned {type(result).__name__}; a trainer returns a PolicyFile or "
                          "the path of a saved one")
    if not reports:  # nothing says how far it trained, and the protocol has saved none of its points
        raise ConfigError(f"algo {cfg.algo!r} returned without reporting any policy: a trainer calls "
                          "run.report(decisions, export) after every pass of its loop and once at the end "
                          "(docs/plug-ins.md)")
    end = tally.counts()
    problem = audit(cfg.algo, cfg.total_timesteps, reports, tally.base[0], end) if tally.used else None
    if problem:
        raise ConfigError(problem)
    if path is None:
        from train import atomic

        path = os.path.join(run_dir, "policy")
        atomic.save_policy(result, path)
    return Trained(path, reports[-1][0], end if tally.used else None, seconds, dict(run.summary))


def _make_dirs(run_dir: str) -> list[str]:
    """Make ``run_dir`` and the folders above it that are missing; those it made, deepest first."""
    made, folder = [], os.path.abspath(run_dir)
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        made.append(folder)
        folder = os.path.dirname(folder)
    os.makedirs(run_dir, exist_ok=True)
    return made


def check_same_seed(cfg: TrainConfig | str | dict, folder: str) -> Trained:
    """Train ``cfg`` (a ``TrainConfig``, a config file's path or a mapping) twice, same seed, into ``folder``/``a``
    and ``folder``/``b``; the first run, if both give the same policy file (every array bit for bit, the same
    metadata but for the run's own paths), else a ConfigError naming what differs: the check that a trainer draws
    everything random from its run's seed."""
    if isinstance(cfg, (str, os.PathLike)):
        cfg = TrainConfig.from_yaml(os.fspath(cfg))
    elif isinstance(cfg, dict):
        cfg = TrainConfig.from_dict(cfg)
    elif not isinstance(cfg, TrainConfig):
        raise ConfigError(f"check_same_seed: the config is a TrainConfig, a config file's path or a mapping; got "
                          f"{type(cfg).__name__}")
    runs = []
    for name in ("a", "b"):
        config = TrainConfig.from_dict({**cfg.to_dict(), "out_dir": folder, "run_name": name})
        runs.append(train_algorithm(config, os.path.join(folder, name)))
    first, second = (PolicyFile.read(t.path) for t in runs)
    arrays = [(f"array {i}", x, y) for i, (x, y) in enumerate(zip(first.weights, second.weights))]
    if first.action_features is not None:
        arrays.append(("the action-feature table", first.action_features, second.action_features))
    differ = [what for what, x, y in arrays if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes()]
    if len(first.weights) != len(second.weights):
        differ.insert(0, f"the number of arrays ({len(first.weights)} and {len(second.weights)})")
    meta = [{k: v for k, v in p.metadata.items() if k != "config"} for p in (first, second)]  # config: the run's paths
    differ += [f"metadata {k!r}" for k in sorted(set(meta[0]) | set(meta[1])) if meta[0].get(k) != meta[1].get(k)]
    if differ:
        raise ConfigError(f"algo {cfg.algo!r}: two runs with seed {cfg.seed} gave different policies "
                          f"({', '.join(differ)} differ): a trainer draws everything random from run.seed or "
                          "run.generator(), so that the same seed gives the same policy (docs/plug-ins.md)")
    return runs[0]
