"""Where a short training run's time goes, for every built-in trainer: collection beside the update, on
the Python engine and on the compiled core, in one run, interleaved.

    .venv/bin/python docs/results/tools/trainer_split.py [rounds, default 2] [algo=decisions ...]

Each trainer trains its shipped small classic two-player config: ``ppo`` ``quick`` (``classic-2p``
starts with 8,000 games of search-agent labelling, so no short run measures its PPO), ``sb3``
``sb3-classic-2p``, ``dqn`` ``dqn-classic-2p-small-step``, ``nfsp`` ``nfsp-classic-2p-small-step``,
``dmc`` ``dmc-classic-2p``. The config is copied into a temporary folder with ``eval_games: 2`` (the
final evaluation is not part of the split, and its 200 to 400 games a side took longer than some
trainings), and nothing else changes but ``--timesteps``: the budget in ``BUDGETS``, the same on both
engines, sized so that a run takes 10 to 50 s on an idle 2-core machine (``ppo=300000`` on the command
line changes one). One run is

    UNO_ENV_BACKEND=python|native uno-env train --config $TMP/<config>.yaml --timesteps N \
        --out-dir $TMP/runs --no-progress --fresh

called as ``train.app.cli.main`` in a child process of this script; per trainer the runs alternate
python, native, python, native... so that a busy machine slows both alike. Torch's threads are what
each trainer sets: the sb3 path one, the others torch's default (one per core).

No profiler: cProfile's cost per Python call would slow the Python engine far more than the core and
bias the comparison. The child wraps a few functions with a clock instead, exclusively (time inside a
nested wrapped function counts for the inner one only; a function re-entering its own category counts
once):

- collection, the games played (the engine, the environment, the observations, the opponents'
  decisions and the learner's acting forward passes):
  ``ppo``: ``train.ppo.trainer.Learner.collect`` (``Rollout.collect``, then ``Trajectories.take``, the
  GAE of the finished trajectories) and ``train.ppo.rollout.Rollout.start`` (the first deal);
  ``sb3``: ``MaskablePPO.collect_rollouts``: the policy's forward passes and the wait for the 8
  ``SubprocVecEnv`` worker processes, where the engine, the opponents and the observations run,
  unseen by this process's clock but inside this wait;
  ``dqn`` and ``nfsp``: ``train.dqn.trainer.Trainer.step`` (nfsp inherits it; there ``choose`` also
  keeps the reservoir);
  ``dmc``: ``train.dmc.actors.Actor.play`` (``dmc_actors: 0``: the actor plays in the learner's process);
- update, the learner's torch work: ``ppo``: ``train.ppo.network.ppo_update``; ``sb3``:
  ``MaskablePPO.train``; ``dqn``: ``train.dqn.trainer.Trainer.learn`` (replay sampling and gradient
  steps); ``nfsp``: ``train.nfsp.trainer.Trainer.learn`` (the best response's and the average policy's
  steps); ``dmc``: ``train.dmc.trainer.Trainer.learn``;
- evaluation, reported apart and left out of the rates: ``train.evaluation.stats.evaluate_policy``;
- other: the rest of the call (``train_seconds`` - collection - update): imports (torch), setup, the
  environments' processes (sb3), replay inserts, snapshots, checkpoints, export, logs.

``train_seconds`` is the ``uno-env train`` call less the evaluation; decisions/s is the decisions the
run reports (learner decisions learned from) over ``train_seconds``. The child records which engine its
``Game`` objects resolved to (``uno_env.core.resolve``, in the learner's process). The machine, torch,
the commands and every run's numbers go into docs/results/trainer-split.json; a markdown table of the
per-trainer sums over the rounds is printed at the end.

Beside each run, how busy the rest of the machine was: the CPU seconds every process ran meanwhile
(``/proc/stat``) less the run's own process tree's (``getrusage``; this script adopts orphaned
descendants such as SB3's forkserver, so that its workers count as the run's), per second of the run
(``others_cores_busy``: 1.0 is one of the two cores taken). Before each run the script waits, up to
``QUIET_WAIT`` seconds (``waited_seconds``), for a second in which the other processes keep less than
``QUIET`` of a core busy, and a run during which they kept more than ``NOISY`` cores busy is run
again (at most ``RETRIES`` times; the discarded tries stay in the JSON). Torch's two threads are
sensitive to it: with another process busy on one of the two cores, a PPO or DQN update took up to ten
times as long as on the idle machine, so read a run's numbers with its load.
"""
from __future__ import annotations

import collections
import datetime
import functools
import json
import os
import platform
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "docs" / "results" / "trainer-split.json"
BACKENDS = ("python", "native")
#: algo -> its shipped config (classic, two players) measured here
CONFIGS = {"ppo": "quick", "sb3": "sb3-classic-2p", "dqn": "dqn-classic-2p-small-step",
           "nfsp": "nfsp-classic-2p-small-step", "dmc": "dmc-classic-2p"}
#: before each run, wait up to QUIET_WAIT seconds for the other processes to use less than QUIET cores
QUIET, QUIET_WAIT = 0.3, 120
#: a run during which other processes kept more than NOISY cores busy is run again, at most RETRIES times
#: (the last try is kept whatever its load; the others go into the JSON as "discarded")
NOISY, RETRIES = 0.25, 2
#: the final evaluation's games in the config's copy (it is not measured: see the module's docstring)
EVAL_GAMES = 2
#: algo -> decisions per run (--timesteps)
BUDGETS = {"ppo": 400_000, "sb3": 40_000, "dqn": 100_000, "nfsp": 100_000, "dmc": 200_000}


# -- the child: one training run, timed by category

class Clock:
    """Exclusive time per category: the innermost wrapped function running owns the clock."""

    def __init__(self):
        self.seconds = collections.Counter()
        self.calls = collections.Counter()
        self.stack: list[str] = []
        self.last = time.perf_counter()
        self.torch_threads: dict[str, int] = {}

    def wrap(self, owner, name: str, category: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args, **kwargs):
            if self.stack and self.stack[-1] == category:
                return original(*args, **kwargs)
            now = time.perf_counter()
            if self.stack:
                self.seconds[self.stack[-1]] += now - self.last
            self.stack.append(category)
            self.last = now
            self.calls[category] += 1
            if category not in self.torch_threads and "torch" in sys.modules:
                self.torch_threads[category] = sys.modules["torch"].get_num_threads()
            try:
                return original(*args, **kwargs)
            finally:
                now = time.perf_counter()
                self.seconds[self.stack.pop()] += now - self.last
                self.last = now

        setattr(owner, name, timed)


def instrument(algo: str, clock: Clock) -> None:
    """Wrap the trainer's collection and update functions, and the evaluation."""
    from train.evaluation import stats

    clock.wrap(stats, "evaluate_policy", "evaluation")
    if algo == "ppo":
        from train.ppo import rollout, trainer

        clock.wrap(trainer.Learner, "collect", "collection")
        clock.wrap(rollout.Rollout, "start", "collection")
        clock.wrap(trainer, "ppo_update", "update")
    elif algo == "sb3":
        from sb3_contrib import MaskablePPO

        clock.wrap(MaskablePPO, "collect_rollouts", "collection")
        clock.wrap(MaskablePPO, "train", "update")
    elif algo in ("dqn", "nfsp"):
        from train.dqn import trainer as dqn
        from train.nfsp import trainer as nfsp

        clock.wrap(dqn.Trainer, "step", "collection")
        clock.wrap(nfsp.Trainer if algo == "nfsp" else dqn.Trainer, "learn", "update")
    elif algo == "dmc":
        from train.dmc import actors, trainer

        clock.wrap(actors.Actor, "play", "collection")
        clock.wrap(trainer.Trainer, "learn", "update")
    else:
        raise ValueError(algo)


def child(algo: str, config: str, decisions: int, out_dir: str, result_path: str) -> None:
    """One ``uno-env train`` run in this process, timed; its numbers as JSON into ``result_path``."""
    sys.path[:0] = [str(ROOT)]
    from train.app import cli, train_command
    from uno_env import core

    clock = Clock()
    instrument(algo, clock)
    summaries, engines = [], collections.Counter()
    original_table, original_resolve = train_command.format_table, core.resolve

    def format_table(summary):
        summaries.append(summary)
        return original_table(summary)

    def resolve(backend, rules):
        chosen = original_resolve(backend, rules)
        engines[chosen] += 1
        return chosen

    train_command.format_table = format_table
    core.resolve = resolve
    argv = ["train", "--config", config, "--timesteps", str(decisions), "--out-dir", out_dir, "--no-progress",
            "--fresh"]
    clock.last = start = time.perf_counter()
    status = cli.main(argv)
    wall = time.perf_counter() - start
    if status != 0 or not summaries:
        raise SystemExit(f"uno-env {' '.join(argv)} ended with status {status}")
    seconds = dict(clock.seconds)
    evaluation = seconds.get("evaluation", 0.0)
    train_seconds = wall - evaluation
    collection, update = seconds.get("collection", 0.0), seconds.get("update", 0.0)
    made = int(summaries[-1]["trained_timesteps"])
    Path(result_path).write_text(json.dumps({
        "decisions": made, "wall_seconds": wall, "train_seconds": train_seconds, "evaluation_seconds": evaluation,
        "decisions_per_second": made / train_seconds, "collection_seconds": collection, "update_seconds": update,
        "other_seconds": train_seconds - collection - update, "calls": dict(clock.calls),
        "torch_threads": clock.torch_threads, "engines_resolved": dict(engines),
        "env": os.environ.get("UNO_ENV_BACKEND"),
        "command": f"UNO_ENV_BACKEND={os.environ.get('UNO_ENV_BACKEND')} uno-env "
                   + shlex.join(argv).replace(out_dir, "$TMP/runs").replace(config, f"$TMP/{os.path.basename(config)}"),
        "config_copy": f"$TMP/{os.path.basename(config)}: the shipped config with eval_games: {EVAL_GAMES}"}))


# -- the parent: every trainer, both backends, interleaved

def machine() -> dict:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor()
    try:
        import torch

        torch_version = torch.__version__
    except ImportError:
        torch_version = None
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                    capture_output=True, text=True).stdout.strip())
    except OSError:
        commit, dirty = None, None
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version(), "torch": torch_version,
            "machine": platform.machine(), "commit": commit, "uncommitted_changes": dirty,
            "load_average_at_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None}


def busy_seconds() -> float | None:
    """CPU seconds the whole machine has run (every core, every process) since boot; None off Linux."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def become_subreaper() -> None:
    """Adopt the runs' orphaned descendants (Linux), so that their CPU time reaches ``children_cpu`` when reaped.

    SB3's SubprocVecEnv starts its workers from a forkserver process, which outlives the run's process and
    would otherwise be nobody's child: its workers' CPU time would count as other processes'.
    """
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def reap(timeout: float = 30.0) -> None:
    """Wait for every adopted descendant still running (a forkserver closing down) to end."""
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.05)


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children and the descendants they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wait_for_quiet() -> float:
    """Wait (at most QUIET_WAIT s) for a second in which other processes keep under QUIET cores busy; seconds waited."""
    begun = time.perf_counter()
    while time.perf_counter() - begun < QUIET_WAIT:
        before = busy_seconds()
        if before is None:
            break
        time.sleep(1.0)
        if busy_seconds() - before < QUIET:
            break
        time.sleep(4.0)
    return time.perf_counter() - begun


def config_copy(algo: str, folder: str) -> str:
    """The shipped config of ``algo`` with ``eval_games: EVAL_GAMES``, written into ``folder``; its path."""
    sys.path[:0] = [str(ROOT)]
    from train import shipped_configs

    text = Path(shipped_configs.resolve(CONFIGS[algo], "train")).read_text(encoding="utf-8")
    text, found = re.subn(r"(?m)^eval_games:.*$", f"eval_games: {EVAL_GAMES}", text)
    path = os.path.join(folder, f"{CONFIGS[algo]}.yaml")
    Path(path).write_text(text if found else text + f"\neval_games: {EVAL_GAMES}\n", encoding="utf-8")
    return path


def one_run(algo: str, backend: str, decisions: int) -> dict:
    """A child process for one run; its numbers (or why it failed)."""
    scratch = tempfile.mkdtemp(prefix=f"split-{algo}-{backend}-")
    try:
        result = os.path.join(scratch, "result.json")
        env = {**os.environ, "UNO_ENV_BACKEND": backend}
        cmd = [sys.executable, __file__, "--child", algo, config_copy(algo, scratch), str(decisions),
               os.path.join(scratch, "runs"), result]
        waited = wait_for_quiet()
        begun, busy, ours = time.perf_counter(), busy_seconds(), children_cpu()
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        reap()
        seconds = time.perf_counter() - begun
        load = {"child_seconds": seconds, "child_cpu_seconds": children_cpu() - ours, "waited_seconds": waited}
        if busy is not None:  # what the rest of the machine ran meanwhile
            load["others_cpu_seconds"] = max(busy_seconds() - busy - load["child_cpu_seconds"], 0.0)
            load["others_cores_busy"] = load["others_cpu_seconds"] / seconds
        if done.returncode != 0 or not os.path.exists(result):
            return {"failed": (done.stderr or done.stdout).strip()[-2000:], **load}
        return {**json.loads(Path(result).read_text()), **load}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


SUMMED = ("decisions", "wall_seconds", "train_seconds", "evaluation_seconds", "collection_seconds",
          "update_seconds", "other_seconds", "child_seconds", "others_cpu_seconds", "waited_seconds")


def main(rounds: int, budgets: dict[str, int]) -> None:
    report = {"what": "wall-clock split of a short `uno-env train` run between collection and the update, on the "
                      "Python engine and the compiled core (docs/results/tools/trainer_split.py)",
              "date": datetime.date.today().isoformat(), **machine(), "decisions_per_run": budgets,
              "rounds": rounds, "configs": CONFIGS, "eval_games": EVAL_GAMES, "trainers": {}}
    become_subreaper()
    for algo in CONFIGS:
        runs = {backend: [] for backend in BACKENDS}
        discarded = {backend: [] for backend in BACKENDS}
        for r in range(rounds):
            for backend in BACKENDS:
                for attempt in range(RETRIES + 1):
                    run = one_run(algo, backend, budgets[algo])
                    noisy = run.get("others_cores_busy", 0.0) > NOISY and attempt < RETRIES
                    tell = run.get("failed", "")[-300:] if "failed" in run else \
                        (f"{run['decisions']:,} decisions, {run['train_seconds']:.1f} s + "
                         f"{run['evaluation_seconds']:.1f} s eval; others kept "
                         f"{run.get('others_cores_busy', float('nan')):.2f} cores busy" + ("; again" if noisy else ""))
                    print(f"{algo} {backend} round {r + 1}: {tell}", file=sys.stderr, flush=True)
                    if not noisy:
                        break
                    discarded[backend].append(run)
                runs[backend].append(run)
        entry = {}
        for backend in BACKENDS:
            good = [run for run in runs[backend] if "failed" not in run]
            total = {key: sum(run.get(key, 0.0) for run in good) for key in SUMMED} if good else {}
            if good:
                total["decisions_per_second"] = total["decisions"] / total["train_seconds"]
                total["collection_share"] = total["collection_seconds"] / total["train_seconds"]
                total["update_share"] = total["update_seconds"] / total["train_seconds"]
                total["others_cores_busy"] = total["others_cpu_seconds"] / total["child_seconds"]
            entry[backend] = {"total": total, "runs": runs[backend], "discarded": discarded[backend]}
        py, nat = entry["python"]["total"], entry["native"]["total"]
        if py and nat:  # how many times faster on the core: per decision, so a differing count does not matter
            entry["native_speedup"] = {
                "decisions_per_second": nat["decisions_per_second"] / py["decisions_per_second"],
                **{what: (py[f"{what}_seconds"] / py["decisions"]) / (nat[f"{what}_seconds"] / nat["decisions"])
                   for what in ("collection", "update")}}
        report["trainers"][algo] = entry
        OUT.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")  # a cut run keeps what it measured
    print("| trainer | backend | decisions/s | collection s | update s | other s | collection % | others' load |")
    print("|---|---|---|---|---|---|---|---|")
    for algo, entry in report["trainers"].items():
        for backend in BACKENDS:
            t = entry[backend]["total"]
            if not t:
                print(f"| {algo} ({CONFIGS[algo]}) | {backend} | failed | | | | | |")
                continue
            print(f"| {algo} ({CONFIGS[algo]}) | {backend} | {t['decisions_per_second']:,.0f} | "
                  f"{t['collection_seconds']:.1f} | {t['update_seconds']:.1f} | {t['other_seconds']:.1f} | "
                  f"{100 * t['collection_share']:.0f}% | {t['others_cores_busy']:.2f} |")
    print(f"(sums over {rounds} rounds; decisions per run: "
          f"{', '.join(f'{a} {n:,}' for a, n in budgets.items())}; others' load: the cores other processes kept "
          f"busy meanwhile, on average; wrote {OUT.relative_to(ROOT)})")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        algo, config, decisions, out_dir, result_path = sys.argv[2:7]
        child(algo, config, int(decisions), out_dir, result_path)
    else:
        budgets = dict(BUDGETS)
        for arg in sys.argv[2:]:
            algo, _, count = arg.partition("=")
            if algo not in BUDGETS or not count.isdigit():
                raise SystemExit(f"trainer_split.py: {arg!r} is not algo=decisions, algo one of "
                                 f"{', '.join(BUDGETS)}")
            budgets[algo] = int(count)
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 2, budgets)
