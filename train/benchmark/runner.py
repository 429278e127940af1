"""Playing a suite: one seat-rotated tournament per task, then win rates, normalised scores and the IQM.

``run_suite`` plays every task with ``run_tournament`` (so results do not depend on the worker count)
and keeps the agent's row of each summary: the agent is the first spec of the line-up, so it is the
first row, even when it is ``heuristic`` against heuristics (``report.py`` then names the others
``heuristic#2``...). ``build_results`` adds the aggregate (``aggregate.py``) and the run's
provenance (``train/provenance.py``: version, commit, suite version, rules digest, command line,
machine); ``write_results`` writes ``results.json`` and ``results.md``. ``measure_references``
plays ``random`` and ``heuristic`` to (re)write a suite's reference win rates.
"""
from __future__ import annotations

import os

from agents import PolicyFileError
from uno_env import Game

from train import atomic
from train.agent_specs import load_agent
from train.benchmark.aggregate import aggregate
from train.benchmark.suite import REFERENCE_AGENTS, Suite
from train.evaluation.tournament import run_tournament
from train.progress import DEFAULT_INTERVAL
from train.provenance import describe, provenance

RESULTS_FORMAT = "uno-env-benchmark-results"
RESULTS_VERSION = 1
REFERENCES_FORMAT = "uno-env-benchmark-references"


def check_agent(suite: Suite, agent_spec: str) -> None:
    """Load the agent once for every task's game, so a bad spec or a policy that does not fit fails before any game."""
    for task in suite.tasks:
        try:
            load_agent(agent_spec, Game(task.rules()))
        except PolicyFileError as exc:
            raise PolicyFileError(f"task {task.task_id} ({task.variant}, {task.players} players): {exc}") from None


def run_suite(suite: Suite, agent_spec: str, workers: int = 2, out_dir: str | None = None, resume: bool = False,
              progress: bool = True, progress_interval: float = DEFAULT_INTERVAL) -> list[dict]:
    """The agent's games, wins, win rate with Wilson 95% interval and mean points on every task, in suite order."""
    check_agent(suite, agent_spec)
    rows = []
    for number, task in enumerate(suite.tasks, start=1):
        if progress:
            print(f"benchmark: [{number}/{len(suite.tasks)}] {task.task_id}: {agent_spec} against "
                  f"{', '.join(task.opponents)}, {task.games:,} games", flush=True)
        stream_dir = os.path.join(out_dir, "games", task.task_id) if out_dir else None
        summary = run_tournament(task.rules(), task.lineup(agent_spec), task.games, task.seed, workers,
                                 progress=progress, out_dir=stream_dir, resume=resume,
                                 progress_interval=progress_interval)
        agent_row = summary["agents"][0]
        assert agent_row["spec"] == agent_spec, "the agent under test must be the first row of the summary"
        rows.append({"games": agent_row["games"], "wins": agent_row["wins"], "win_rate": agent_row["win_rate"],
                     "win_rate_ci95": agent_row["win_rate_ci95"], "mean_points": agent_row["mean_points"],
                     "truncated_games": summary["truncated_games"]})
    return rows


def build_results(suite: Suite, agent_spec: str, rows: list[dict], references: dict | None = None,
                  command: list[str] | None = None) -> dict:
    """results.json's content: the suite, each task with its row, the aggregate if references cover every task,
    and the provenance (``command``: the command line to record, default ``sys.argv``)."""
    references = suite.references() if references is None else references
    tasks = [{**task.to_dict(), **row, "reference_win_rates": references.get(task.task_id)}
             for task, row in zip(suite.tasks, rows, strict=True)]
    results = {"format": RESULTS_FORMAT, "version": RESULTS_VERSION, "suite": suite.name, "agent": agent_spec,
               "official": suite.official, "tasks": tasks, "aggregate": None}
    if all(t["reference_win_rates"] for t in tasks):
        agg = aggregate([t["wins"] for t in tasks], [t["games"] for t in tasks],
                        [t["reference_win_rates"]["random"] for t in tasks],
                        [t["reference_win_rates"]["heuristic"] for t in tasks])
        for t, score in zip(tasks, agg.pop("normalised_scores")):
            t["normalised_score"] = score
        results["aggregate"] = agg
    results["provenance"] = provenance(suite, command)
    return results


def results_markdown(results: dict) -> str:
    """The results as a Markdown table and the aggregate line."""
    lines = [f"# Benchmark: `{results['agent']}` on {results['suite']}", ""]
    if not results["official"]:
        lines += ["Not official (a subset of the suite's tasks, or fewer games per task: a smoke run): not comparable "
                  "with official numbers.", ""]
    lines += ["| task | variant | players | games | win rate | 95% interval | mean points | normalised score |",
              "|---|---|---|---|---|---|---|---|"]
    for t in results["tasks"]:
        low, high = t["win_rate_ci95"]
        score = f"{t['normalised_score']:.3f}" if "normalised_score" in t else "-"
        lines.append(f"| {t['id']} | {t['variant']} | {t['players']} | {t['games']:,} | {t['win_rate']:.1%} | "
                     f"{low:.1%} - {high:.1%} | {t['mean_points']:.1f} | {score} |")
    agg = results["aggregate"]
    lines.append("")
    if agg is None:
        lines.append("No aggregate: the suite has no reference win rates for every task "
                     "(uno-env benchmark --make-references).")
    else:
        low, high = agg["iqm_ci95"]
        lines.append(f"IQM of normalised scores: **{agg['iqm']:.3f}** (95% stratified bootstrap interval "
                     f"{low:.3f} - {high:.3f}; random = 0, heuristic = 1)")
    truncated = sum(t["truncated_games"] for t in results["tasks"])
    if truncated:
        lines += ["", f"{truncated} games were truncated at the step cap (no winner)."]
    lines += ["", describe(results.get("provenance"))]  # a file from before provenance says so
    return "\n".join(lines) + "\n"


def write_results(results: dict, out_dir: str) -> list[str]:
    """``results.json`` and ``results.md`` in ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, "results.json"), os.path.join(out_dir, "results.md")]
    atomic.write_json(paths[0], results, indent=2)
    atomic.write_text(paths[1], results_markdown(results))
    return paths


def measure_references(suite: Suite, workers: int = 2, progress: bool = True,
                       progress_interval: float = DEFAULT_INTERVAL) -> dict:
    """The win rates of ``random`` and ``heuristic`` on every task (the content of a references file)."""
    measured = {agent: run_suite(suite, agent, workers, progress=progress, progress_interval=progress_interval)
                for agent in REFERENCE_AGENTS}
    tasks = {task.task_id: {agent: {k: measured[agent][i][k] for k in ("wins", "games", "win_rate")}
                            for agent in REFERENCE_AGENTS}
             for i, task in enumerate(suite.tasks)}
    return {"format": REFERENCES_FORMAT, "suite": suite.name, "official": suite.official,
            "command": f"uno-env benchmark --make-references --suite {suite.name}", "tasks": tasks}


def write_references(references: dict, path: str) -> str:
    """Write a references file (JSON); returns its path."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    atomic.write_json(path, references, indent=2)
    return path
