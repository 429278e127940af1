"""A Markdown leaderboard from the ``results.json`` files of several ``uno-env benchmark`` runs.

One row per run, best IQM first: the agent spec, the IQM of normalised scores with its 95%
interval, then the win rate on every task. Every run must be of the same suite; a smoke run (games
per task or tasks changed) is marked, since its numbers are not comparable with official ones.
Results of the sample-budget protocol (``uno-env benchmark --train``) go into a section of their
own below the agents' table: a row per run and budget (``budget_report.leaderboard_section``), and
with ``--write`` a figure of their learning curves beside the file (``budget_report.plot_curves``).
"""
from __future__ import annotations

import math
import os

from train.benchmark import budget_report
from train.benchmark.runner import RESULTS_FORMAT
from train.errors import UsageError
from train.json_input import check_shape, nullable, read_json_object

#: What the leaderboard reads of an agent's results.json (runner.build_results writes it).
AGENT_RESULTS = {"suite": str, "agent": str, "official": bool, "tasks": [{"id": str, "win_rate": float}],
                 "aggregate": nullable({"iqm": float, "iqm_ci95": [float, float]})}
#: What the leaderboard reads of a sample-budget run's results.json (budget_report.build writes it).
BUDGET_RESULTS = {"suite": str, "official": bool, "config_file": str, "algo": str, "tasks": [str], "seeds": [object],
                  "points": [{"target": int, "kind": str, "decisions_mean": float, "score_mean": float,
                              "score_ci95": nullable([float, float]),
                              "seeds": [{"seed": object, "decisions": float, "score": float}]}]}


def read_results(path: str) -> dict:
    """The results of one run: ``path`` is a results directory or its ``results.json``."""
    file = os.path.join(path, "results.json") if os.path.isdir(path) else path
    if os.path.isdir(path) and not os.path.exists(file):
        if os.path.exists(os.path.join(path, "protocol.json")):
            raise UsageError(f"{path}: a sample-budget run not finished yet (protocol.json, no results.json); "
                             "finish it with the same uno-env benchmark --train command, or leave it out")
        raise UsageError(f"{path}: no results.json (give the --out folder of uno-env benchmark --agent or --train)")
    what = "a benchmark results file"
    results = read_json_object(file, what, UsageError)
    if results.get("format") not in (RESULTS_FORMAT, budget_report.RESULTS_FORMAT):
        raise UsageError(f"{file}: not {what} (written by uno-env benchmark --agent ... or --train ...)")
    problem = check_shape(results, AGENT_RESULTS if results["format"] == RESULTS_FORMAT else BUDGET_RESULTS)
    if problem:
        raise UsageError(f"{file}: not {what} ({problem})")
    return results


def budget_runs_of(runs: list[dict]) -> list[dict]:
    """The sample-budget protocol's results among ``runs``."""
    return [r for r in runs if r.get("format") == budget_report.RESULTS_FORMAT]


def leaderboard_markdown(runs: list[dict], curves_image: str | None = None) -> str:
    """The leaderboard table of ``runs`` (the content of several results.json files).

    ``curves_image``: the learning-curve figure of the budget runs, relative to the leaderboard file.
    """
    if not runs:
        raise UsageError("give one or more results directories to --leaderboard")
    suites = sorted({r["suite"] for r in runs})
    if len(suites) > 1:
        raise UsageError(f"results of different suites cannot share a leaderboard: {', '.join(suites)}")
    budget_runs = budget_runs_of(runs)
    runs = [r for r in runs if r.get("format") != budget_report.RESULTS_FORMAT]
    if not runs:
        return "\n".join([f"# Leaderboard: {suites[0]}", "",
                          *budget_report.leaderboard_section(budget_runs, curves_image)]) + "\n"
    task_ids = list(dict.fromkeys(t["id"] for r in runs for t in r["tasks"]))

    def iqm_of(run: dict) -> float:
        return run["aggregate"]["iqm"] if run["aggregate"] else -math.inf

    lines = [f"# Leaderboard: {suites[0]}", "",
             "IQM: interquartile mean of normalised scores over the tasks (random = 0, heuristic = 1) with its "
             "95% stratified bootstrap interval; then each task's win rate. See docs/benchmark.md.", "",
             "| rank | agent | IQM | 95% interval | " + " | ".join(task_ids) + " |",
             "|---|---|---|---|" + "---|" * len(task_ids)]
    smoke = False
    for rank, run in enumerate(sorted(runs, key=iqm_of, reverse=True), start=1):
        win_rates = {t["id"]: f"{t['win_rate']:.1%}" for t in run["tasks"]}
        agg = run["aggregate"]
        iqm = f"{agg['iqm']:.3f}" if agg else "-"
        interval = f"{agg['iqm_ci95'][0]:.3f} - {agg['iqm_ci95'][1]:.3f}" if agg else "-"
        mark = "" if run["official"] else " *"
        smoke = smoke or not run["official"]
        lines.append(f"| {rank} | `{run['agent']}`{mark} | {iqm} | {interval} | "
                     + " | ".join(win_rates.get(task_id, "-") for task_id in task_ids) + " |")
    if smoke:
        lines += ["", "\\* not official: a subset of the suite's tasks (its IQM is over the tasks it played; \"-\" "
                  "marks a task it did not play) or fewer games per task (a smoke run); not comparable with official "
                  "numbers."]
    if budget_runs:
        lines += ["", *budget_report.leaderboard_section(budget_runs, curves_image)]
    return "\n".join(lines) + "\n"
