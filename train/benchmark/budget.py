"""``uno-env benchmark --train CONFIG --budget N --seeds K``: the sample-budget protocol for learning algorithms.

A learning algorithm is a training config: ``algo: ppo`` (the native PPO), ``algo: sb3``, or your own
``algo: module:callable``, all run through the trainer plug-in contract (``train/algorithm.py``). For
each seed ``s = 0..K-1`` the config trains once, to the largest budget, in learner decisions
(``total_timesteps``; ``time_limit_minutes`` is dropped, so a budget is decisions, not minutes).
The contract's reporting hook saves the policy whenever the trainer's decision count first reaches a
*point*: every budget and ``P`` evenly spaced learning-curve points. The native PPO reports after
every update, the SB3 path at the start of each rollout (the update of the one before is done) and
at the end, the DQN and NFSP after every step of their games, DMC after every round: every pass
of their loops. Reporting does not change what is learned, so the policy saved at 1M decisions of a
10M run is the policy of a 1M run (``tests/training/test_points_are_shorter_runs.py``; not for the
DQN's and NFSP's exploration, which follows the budget: ``docs/benchmark.md``). Updates come in
whole batches, so a point is saved at the first report at or past it: the actual decision count
(up to one batch more) is recorded and reported, and so is each seed's wall-clock training time
(over all its sittings, when it was resumed).

Each saved policy is scored on the suite's tasks it can play (the config's variant, rule options
and player counts): budget points with the suite's official game counts, curve points with
``--games-per-task`` (default 200; not official). A seed's score at a point is the IQM of the
normalised scores over those tasks (``aggregate.py``); across seeds the report gives the mean with
a 95% Student t-interval (``budget_report.py``). Everything lives in ``--out``: ``protocol.json``
(what this directory measures), ``runs/<stem>-budget<N>-seed<s>/`` (the training run, its
``points/`` policies, their ``scores/``, ``budget-training.json`` once trained), then ``results.json``,
``results.md``, ``curve.csv`` and ``curve.png``. A re-run skips trained seeds and scored points. A
seed interrupted while training resumes from its last checkpoint when its trainer writes
resumable ones (``resumable = True``: the built-in DQN, NFSP and DMC, whose resumed runs learn
exactly what uninterrupted ones do; its points already saved are kept), and otherwise trains again
from the start, so results never depend on interruptions.

``--only-seed S`` trains and scores one seed, so seeds can run side by side (one process per core,
or on several machines sharing ``--out``); the summary is written once every seed is done. A seed
being trained holds ``runs/<...>-seed<s>/training.lock`` (its process id), so a second process
refuses that seed instead of wiping it; a lock left by a process that no longer runs is taken over.

Limits (one UsageError line past each): ``--seeds`` at most ``MAX_SEEDS`` (100), ``--points`` at most
``MAX_POINTS`` (100), ``--budget`` given at most ``MAX_BUDGETS`` (20) times, each at most
``MAX_DECISIONS`` (ten billion) decisions and ``MAX_BUDGET_CHARS`` characters of text.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import posixpath
import re
import shutil
import time
from dataclasses import dataclass, replace

from uno_env import RuleSet
from uno_env.errors import short_repr

from train import atomic, process_lock, registry, resumable, shipped_configs
from train.algorithm import is_resumable, resolve_trainer, train_algorithm
from train.benchmark import budget_report
from train.benchmark.runner import build_results, run_suite
from train.benchmark.suite import Suite, Task
from train.config import ConfigError, TrainConfig, ValueLearnerSettings, without_later_settings
from train.errors import UsageError
from train.json_input import nullable, read_json_object
from train.progress import DEFAULT_INTERVAL

PROTOCOL_FORMAT = "uno-env-budget-protocol"
DEFAULT_POINTS = 10
DEFAULT_CURVE_GAMES = 200
OFFICIAL_SEEDS = 3
TRAINING_RECORD = "budget-training.json"
TRAINING_LOCK = "training.lock"
#: Wall-clock seconds a seed has trained in earlier sittings (rewritten as it trains; read when it resumes).
TRAINING_TIME = "training-time.json"
#: Seconds between rewrites of ``TRAINING_TIME`` (a point saved rewrites it at once).
TIME_WRITE_INTERVAL = 60.0
#: What a re-run reads of a seed's training record and of a point's scores (written by this module).
RECORD_SHAPE = {"seed": int, "points": {"*": int}, "planned_decisions": int, "trained_decisions": int,
                "seconds": float, "samples_per_second": float}
SCORE_SHAPE = {"seed": int, "target": int, "kind": str, "decisions": int, "score": float,
               "score_ci95": nullable([float, float]),
               "tasks": {"*": {"games": int, "wins": float, "win_rate": float, "normalised_score": float}}}
_SUFFIXES = {"": 1, "k": 1_000, "m": 1_000_000}  # --budget 500k, 1M
#: Seeds a protocol run may train (``--seeds``): each is a whole training run; official numbers need 3.
MAX_SEEDS = 100
#: Learning-curve points a protocol run may save and score (``--points``), each on every scored task.
MAX_POINTS = 100
#: ``--budget`` values a protocol run may give (each is a point saved and scored with the official games).
MAX_BUDGETS = 20
#: Largest ``--budget``, in decisions (ten billion: weeks of training on one machine).
MAX_DECISIONS = 10_000_000_000
#: Characters a ``--budget`` may have (``10,000,000,000`` has 14).
MAX_BUDGET_CHARS = 40


def parse_decisions(text, low: int = 1) -> int:
    """A budget in decisions: ``2048``, ``1_000_000``, ``1,000,000``, ``500k``, ``1M``, ``2.5M``.

    From ``low`` to ``MAX_DECISIONS``, written in at most ``MAX_BUDGET_CHARS`` characters.
    """
    allowed = f"a whole number of decisions from {low} to {MAX_DECISIONS:,} (e.g. 1M, 10M, 50000)"
    text = str(text) if isinstance(text, (str, int)) and not isinstance(text, bool) else None
    if text is None or len(text) > MAX_BUDGET_CHARS:
        raise UsageError(f"--budget must be {allowed}; got {short_repr(text)}")
    match = re.fullmatch(r"\s*([0-9][0-9_,]*(?:\.[0-9]+)?)\s*([kKmM]?)\s*", text)
    value = float(match[1].replace("_", "").replace(",", "")) * _SUFFIXES[match[2].lower()] if match else None
    if value is None or value != int(value) or not low <= value <= MAX_DECISIONS:
        raise UsageError(f"--budget must be {allowed}; got {short_repr(text)}")
    return int(value)


def scored_tasks(cfg: TrainConfig, suite: Suite) -> tuple[Task, ...]:
    """The suite's tasks a policy of ``cfg`` plays: same variant and rule options, a player count it trains at."""
    def changed(variant: str, players: int, options: dict) -> dict:
        return json.loads(json.dumps(RuleSet.create(variant, players, dict(options)).changed_options(), default=list))

    return tuple(t for t in suite.tasks if t.variant == cfg.variant and t.players in cfg.player_counts
                 and changed(t.variant, t.players, t.options) == changed(cfg.variant, t.players, cfg.rule_options))


@dataclass(frozen=True)
class Plan:
    """One protocol run: the config, budgets, seeds, curve points, game counts, scored tasks and directory."""

    config_file: str
    config: TrainConfig
    stem: str
    budgets: tuple[int, ...]
    seeds: int
    curve_points: int
    curve_games: int
    budget_games: int | None
    suite: Suite
    tasks: tuple[Task, ...]
    out_dir: str

    def targets(self) -> list[int]:
        """Every point at which a policy is saved and scored: the budgets and the curve points, ascending."""
        top = max(self.budgets)
        curve = {math.ceil(top * k / self.curve_points) for k in range(1, self.curve_points + 1)}
        return sorted(curve | set(self.budgets))

    def kind(self, target: int) -> str:
        """``budget`` (scored with the official game counts) or ``curve`` (``--games-per-task``)."""
        return "budget" if target in self.budgets else "curve"

    def point_suite(self, target: int) -> Suite:
        """The scored tasks with this point's game counts (rounded up to whole seat rotations)."""
        tasks = replace(self.suite, tasks=self.tasks)
        games = self.budget_games if self.kind(target) == "budget" else self.curve_games
        return tasks if games is None else tasks.with_games_per_task(games)

    def run_dir(self, seed: int) -> str:
        """The training run of one seed."""
        return os.path.join(self.out_dir, "runs", f"{self.stem}-budget{max(self.budgets)}-seed{seed}")

    def seed_config(self, seed: int) -> TrainConfig:
        """The config trained for ``seed``: that seed, the largest budget, no time limit, its own run directory."""
        return TrainConfig.from_dict({**self.config.to_dict(), "seed": seed, "total_timesteps": max(self.budgets),
                                      "time_limit_minutes": 0.0, "out_dir": os.path.join(self.out_dir, "runs"),
                                      "run_name": os.path.basename(self.run_dir(seed))})

    def not_official(self) -> list[str]:
        """Why the numbers are not official (empty when they are)."""
        reasons = [f"{self.seeds} seed{'s' if self.seeds > 1 else ''} (official: {OFFICIAL_SEEDS} or more)"]
        reasons = reasons if self.seeds < OFFICIAL_SEEDS else []
        if self.budget_games is not None:
            reasons.append(f"budget points scored on {self.budget_games:,} games per task (official: the suite's)")
        return reasons + ([] if self.suite.official else ["a changed suite"])

    def identity(self) -> dict:
        """What makes two runs the same protocol (the seed count may grow: each seed stands alone)."""
        # (settings added since keep the identity of runs recorded before them: LATER_SETTINGS)
        config = {k: v for k, v in without_later_settings(self.config.to_dict()).items()
                  if k not in ("seed", "total_timesteps", "time_limit_minutes", "out_dir", "run_name")
                  and not (k == "settings" and not v)}  # (no settings: as before plug-ins existed)
        return {"format": PROTOCOL_FORMAT, "version": 1, "suite": self.suite.name, "config": config,
                "stem": self.stem, "budgets": list(self.budgets), "curve_points": self.curve_points,
                "curve_games_per_task": self.curve_games, "budget_games_per_task": self.budget_games,
                "tasks": [t.task_id for t in self.tasks]}


def make_plan(config_file: str, budgets, seeds, suite: Suite, out_dir: str | None = None, points=None,
              curve_games: int | None = None, budget_games: int | None = None) -> Plan:
    """Check the protocol's input (one UsageError line for each mistake) and plan the run."""
    if not budgets:
        raise UsageError("--train needs at least one --budget N (decisions, e.g. --budget 1M --budget 10M)")
    if seeds is None:
        raise UsageError(f"--train needs --seeds K (at least {OFFICIAL_SEEDS} for official numbers)")
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 1 <= seeds <= MAX_SEEDS:
        raise UsageError(f"--seeds must be 1 or more, at most {MAX_SEEDS} (official numbers need {OFFICIAL_SEEDS}); "
                         f"got {short_repr(seeds)}")
    points = DEFAULT_POINTS if points is None else points
    if isinstance(points, bool) or not isinstance(points, int) or not 0 <= points <= MAX_POINTS:
        raise UsageError(f"--points must be 0 or more learning-curve points, at most {MAX_POINTS}; "
                         f"got {short_repr(points)}")
    for name, games in (("--games-per-task", curve_games), ("--budget-games-per-task", budget_games)):
        if games is not None and (isinstance(games, bool) or not isinstance(games, int) or games < 1):
            raise UsageError(f"{name} must be 1 or more; got {short_repr(games)}")
    if len(budgets) > MAX_BUDGETS:
        raise UsageError(f"--budget may be given at most {MAX_BUDGETS} times; got {len(budgets):,}")
    budget_values = tuple(sorted({parse_decisions(b) for b in budgets}))
    config_file = shipped_configs.resolve(config_file, "train")  # a path, or a shipped config's name
    if not os.path.isfile(config_file):
        raise UsageError(f"--train: no training config at {config_file} (e.g. configs/train/quick.yaml)")
    cfg = TrainConfig.from_yaml(config_file)
    resolve_trainer(cfg.algo)  # a misspelt module:callable is refused before protocol.json records it
    tasks = scored_tasks(cfg, suite)
    if not tasks:
        raise UsageError(f"--train {config_file}: no task of {suite.name} plays {cfg.variant} at "
                         f"{'/'.join(map(str, cfg.player_counts))} players with rule options {cfg.rule_options}, "
                         "so no policy of it could be scored")
    # the stem names run directories: characters a run name does not allow (train/config.py) become _
    stem = re.sub(r"[^\w.+=@,-]", "_", os.path.splitext(os.path.basename(config_file))[0]).lstrip(".") or "run"
    return Plan(config_file, cfg, stem, budget_values, seeds, points, curve_games or DEFAULT_CURVE_GAMES,
                budget_games, suite, tasks, out_dir or os.path.join("benchmark-results", f"budget-{stem}"))


def prepare_out(plan: Plan) -> None:
    """Write ``protocol.json`` in a new directory; refuse a directory that holds another run or other files."""
    path = os.path.join(plan.out_dir, "protocol.json")
    if os.path.exists(path):
        stored = read_json_object(path, "a budget protocol run's protocol.json", UsageError)
        identity = json.loads(json.dumps(plan.identity()))
        if stored != identity:
            keys = sorted(k for k in set(stored) | set(identity) if stored.get(k) != identity.get(k))
            shown = ", ".join(k if len(k) <= 40 else k[:40] + "..." for k in keys[:8])  # (JSON keys: strings)
            shown += f" and {len(keys) - 8:,} more" if len(keys) > 8 else ""
            raise UsageError(f"{plan.out_dir} holds a different budget protocol run ({shown} differ); "
                             "give another --out, or delete that directory to start over")
        return
    if os.path.isdir(plan.out_dir) and os.listdir(plan.out_dir):
        raise UsageError(f"{plan.out_dir} is not empty and holds no budget protocol run (protocol.json); "
                         "give another --out")
    os.makedirs(plan.out_dir, exist_ok=True)
    atomic.write_json(path, plan.identity(), indent=2)


def point_path(run_dir: str, target: int) -> str:
    """The saved policy (without extension) of one point of a training run."""
    return os.path.join(run_dir, "points", f"decisions_{target:012d}")


class PointSaver:
    """The training hook: saves the policy once the decision count reaches each pending point.

    ``kept``: points an earlier sitting of a resumed run saved (target -> decisions), not saved again.
    ``on_report``: called after every report (the protocol keeps its clock with it).
    """

    def __init__(self, run_dir: str, targets: list[int], kept: dict[int, int] | None = None, on_report=None):
        self.run_dir, self.saved, self.reported = run_dir, dict(kept or {}), 0
        self.pending = sorted(t for t in targets if t not in self.saved)
        self.on_report = on_report

    def __call__(self, steps: int, export) -> None:
        """Called with the trainer's decision count and a function returning the current policy file."""
        self.reported = max(self.reported, int(steps))
        policy = None
        while self.pending and self.pending[0] <= steps:
            policy = export() if policy is None else policy
            target = self.pending.pop(0)
            atomic.save_policy(policy, point_path(self.run_dir, target))
            self.saved[target] = int(steps)
        if self.on_report is not None:
            self.on_report(saved=policy is not None)


def saved_points(run_dir: str, targets: list[int]) -> dict[int, int]:
    """The points an interrupted sitting saved: target -> the decisions its policy was exported at."""
    from agents.policy_file import PolicyFile, PolicyFileError

    kept = {}
    for target in targets:
        path = point_path(run_dir, target)
        if os.path.exists(path + ".json") and os.path.exists(path + ".npz"):
            try:
                steps = PolicyFile.read(path).metadata.get("training_steps")
            except PolicyFileError:
                continue  # damaged (cut by the interruption): saved again
            if isinstance(steps, int) and not isinstance(steps, bool) and steps >= target:
                kept[target] = steps
    return kept


class SittingClock:
    """A seed's training time over its sittings: earlier ones read from ``TRAINING_TIME``, this one measured."""

    def __init__(self, run_dir: str):
        self.path = os.path.join(run_dir, TRAINING_TIME)
        self.before, self.sittings = 0.0, 1
        if os.path.exists(self.path):
            earlier = read_json_object(self.path, "a seed's training time", UsageError,
                                       {"seconds": float, "sittings": int})
            self.before, self.sittings = float(earlier["seconds"]), int(earlier["sittings"]) + 1
        self.start = self.last_write = time.perf_counter()
        self(saved=True)  # this sitting counts even if it dies before its first minute

    def seconds(self) -> float:
        """Seconds trained so far, all sittings."""
        return self.before + time.perf_counter() - self.start

    def __call__(self, saved: bool = False) -> None:
        """After a report: rewrite the file when a point was saved or a minute has passed."""
        now = time.perf_counter()
        if saved or now - self.last_write >= TIME_WRITE_INTERVAL:
            self.last_write = now
            atomic.write_json(self.path, {"seconds": round(self.seconds(), 1), "sittings": self.sittings})


def train_seed(plan: Plan, seed: int, progress: bool = True, progress_interval: float = DEFAULT_INTERVAL) -> dict:
    """Train one seed to the largest budget, saving every point (skipped if already done); its training record."""
    run_dir = plan.run_dir(seed)
    record_path = os.path.join(run_dir, TRAINING_RECORD)
    if os.path.exists(record_path):
        record = read_json_object(record_path, "a seed's training record", UsageError, RECORD_SHAPE)
        missing = [t for t in plan.targets() if str(t) not in record["points"]]
        if missing:
            raise UsageError(f"{record_path}: not this protocol's training record (no policy saved at point "
                             f"{missing[0]:,}); delete {run_dir} to train seed {seed} again")
        return record
    with _seed_lock(plan, seed):
        return _train_locked(plan, seed, progress, progress_interval)


@contextlib.contextmanager
def _seed_lock(plan: Plan, seed: int):
    """Hold ``training.lock`` in the seed's run directory while it trains; refuse a seed another process trains."""
    run_dir = plan.run_dir(seed)
    path = os.path.join(run_dir, TRAINING_LOCK)
    process_lock.check(path, lambda pid: f"seed {seed} is being trained by process {pid} ({path}); run another seed "
                                         "with --only-seed, or delete that file if no such training runs")
    if os.path.isdir(run_dir) and not resuming(plan, seed):  # an interrupted seed trains again from the start
        shutil.rmtree(run_dir)
    os.makedirs(run_dir, exist_ok=True)
    # a seed resumed after its process was killed keeps its directory, and so its dead process's lock
    with process_lock.holding(path):
        yield


def resuming(plan: Plan, seed: int) -> bool:
    """Whether the seed's run directory holds an interrupted run its trainer resumes from its checkpoint.

    Only if every point up to the checkpoint is saved: a point lost with the interruption would be saved
    again later than the uninterrupted run saves it, so such a seed trains again from the start.
    """
    run_dir = plan.run_dir(seed)
    if not (is_resumable(plan.config.algo) and resumable.exists(run_dir)):
        return False
    reached = resumable.checkpoint_decisions(run_dir)
    kept = saved_points(run_dir, plan.targets())
    return reached is not None and all(t in kept for t in plan.targets() if t <= reached)


def interrupted_seed_fate(plan: Plan) -> str:
    """What the next run does with a seed interrupted while training, for this plan's algorithm (for messages)."""
    algo = plan.config.algo
    if not is_resumable(algo):
        return ("a seed interrupted while training trains again from the start: the protocol resumes only "
                f"trainers whose resumed runs learn what uninterrupted ones do (resumable = True), and {algo} "
                "is not one")
    if ValueLearnerSettings not in registry.lookup(algo).parts:  # a plug-in: its own checkpoints, its own schedule
        return "a seed interrupted while training resumes from its trainer's last checkpoint, if it wrote one"
    every = plan.config.checkpoint_every
    if every == 0:
        return "a seed interrupted while training trains again from the start: its config has checkpoint_every: 0"
    return f"a seed interrupted while training resumes from its last checkpoint (one every {every:,} decisions)"


def _train_locked(plan: Plan, seed: int, progress: bool, progress_interval: float) -> dict:
    """Train one seed (its run directory is fresh, or holds a run to resume, and is locked); its training record."""
    run_dir = plan.run_dir(seed)
    record_path = os.path.join(run_dir, TRAINING_RECORD)
    cfg = plan.seed_config(seed)
    resume = resuming(plan, seed)
    clock = SittingClock(run_dir)  # (a fresh directory has no earlier sittings)
    saver = PointSaver(run_dir, plan.targets(), saved_points(run_dir, plan.targets()) if resume else None, clock)
    if progress:
        print(f"benchmark: seed {seed + 1}/{plan.seeds}: {'resuming' if resume else 'training'} "
              f"{plan.config_file} ({cfg.algo}) to {cfg.total_timesteps:,} decisions in {run_dir}", flush=True)
    # any algorithm, through the plug-in contract, which checks its reports against its games' count
    trained = train_algorithm(cfg, run_dir, report=saver, progress=progress, resume=resume)
    seconds = clock.seconds()
    if saver.pending:  # the trainer's fault, not the protocol's: one line, as every input error
        raise ConfigError(f"seed {seed}: algo {cfg.algo!r} returned having reported {saver.reported:,} decisions, "
                          f"before the point at {saver.pending[0]:,}: a trainer learns for run.budget decisions and "
                          "calls run.report(decisions, export) as it goes and once at the end (docs/plug-ins.md)")
    record = {"seed": seed, "algo": cfg.algo, "run_dir": run_dir, "planned_decisions": cfg.total_timesteps,
              "trained_decisions": saver.reported, "seconds": round(seconds, 1), "sittings": clock.sittings,
              "samples_per_second": round(saver.reported / max(seconds, 1e-9), 1),
              # (taken, finished) learner decisions, as its games counted them; None: it stepped none of its run's
              "counted_decisions": None if trained.counted is None else list(trained.counted),
              "points": {str(t): d for t, d in sorted(saver.saved.items())}}
    atomic.write_json(record_path, record, indent=2)
    return record


def score_point(plan: Plan, seed: int, target: int, decisions: int, workers: int = 2, progress: bool = True,
                progress_interval: float = DEFAULT_INTERVAL) -> dict:
    """Play one saved policy on the scored tasks (skipped if already scored); its win rates and IQM score."""
    path = os.path.join(plan.run_dir(seed), "scores", f"decisions_{target:012d}.json")
    if os.path.exists(path):
        score = read_json_object(path, "a point's scores", UsageError, SCORE_SHAPE)
        missing = [t.task_id for t in plan.tasks if t.task_id not in score["tasks"]]
        if missing:
            raise UsageError(f"{path}: not this protocol's scores (no task {short_repr(missing[0])}); delete it to "
                             "score the point again")
        return score
    suite = plan.point_suite(target)
    spec = point_path(plan.run_dir(seed), target)
    if progress:
        print(f"benchmark: seed {seed}, {plan.kind(target)} point {target:,} ({decisions:,} decisions): scoring on "
              f"{', '.join(f'{t.task_id} ({t.games:,} games)' for t in suite.tasks)}", flush=True)
    rows = run_suite(suite, spec, workers, progress=progress, progress_interval=progress_interval)
    results = build_results(suite, spec, rows)
    score = {"seed": seed, "target": target, "kind": plan.kind(target), "decisions": decisions,
             "tasks": {t["id"]: {k: t[k] for k in ("games", "wins", "win_rate", "normalised_score")}
                       for t in results["tasks"]},
             "score": results["aggregate"]["iqm"], "score_ci95": results["aggregate"]["iqm_ci95"]}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic.write_json(path, score, indent=2)
    return score


def check_only_seed(plan: Plan, only_seed: int | None) -> None:
    """``--only-seed S`` must name one of the plan's seeds 0..K-1."""
    if only_seed is not None and (isinstance(only_seed, bool) or not isinstance(only_seed, int)
                                  or not 0 <= only_seed < plan.seeds):
        raise UsageError(f"--only-seed must be one of the seeds 0..{plan.seeds - 1} (--seeds {plan.seeds}); "
                         f"got {short_repr(only_seed)}")


def seeds_to_run(plan: Plan) -> list[int]:
    """The seeds without a training record yet."""
    return [s for s in range(plan.seeds) if not os.path.exists(os.path.join(plan.run_dir(s), TRAINING_RECORD))]


def run_protocol(plan: Plan, workers: int = 2, progress: bool = True,
                 progress_interval: float = DEFAULT_INTERVAL, only_seed: int | None = None) -> dict | None:
    """Train and score every seed and point (resuming), then write results.json, results.md, curve.csv, curve.png.

    With ``only_seed``, train and score just that seed; the summary is written (and returned) only if
    every other seed is already done, else None.
    """
    check_only_seed(plan, only_seed)
    prepare_out(plan)
    for seed in range(plan.seeds) if only_seed is None else [only_seed]:
        record = train_seed(plan, seed, progress, progress_interval)
        for target in plan.targets():
            score_point(plan, seed, target, record["points"][str(target)], workers, progress, progress_interval)
    if seeds_to_run(plan):
        return None
    # read back; each run directory relative to --out, so the summary names no folder of this machine
    records = [{**train_seed(plan, seed, progress, progress_interval),
                "run_dir": posixpath.join("runs", os.path.basename(plan.run_dir(seed)))} for seed in range(plan.seeds)]
    scores = [score_point(plan, seed, target, record["points"][str(target)], workers, progress, progress_interval)
              for seed, record in enumerate(records) for target in plan.targets()]
    results = budget_report.build(plan.identity(), plan.config_file, plan.config.algo, list(range(plan.seeds)),
                                  plan.not_official(), records, scores, suite=plan.suite)
    budget_report.write(results, plan.out_dir)
    return results
