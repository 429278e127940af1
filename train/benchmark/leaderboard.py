"""A Markdown leaderboard from the ``results.json`` files of several ``uno-env benchmark`` runs.

One row per run, best IQM first: the agent spec, the IQM of normalised scores with its 95%
interval, then the win rate on every task. Every run must be of the same suite; a smoke run (games
per task or tasks changed) is marked, since its numbers are not comparable with official ones.
Results of the sample-budget protocol (``uno-env benchmark --train``) go into a section of their
own below the agents' table: a row per run and budget (``budget_report.leaderboard_section``), and
with ``--write`` a figure of their learning curves beside the file (``budget_report.plot_curves``).
Approximate exploitability (``uno-env exploit``'s ``exploit.json``) adds a column to the agents' table
for each task and budget where two or more of its agents have a best response (the better start's win
rate against the row's agent), and a section listing every such run (``exploit_section``).

Every row shows its provenance briefly (the uno-env version and commit it was measured with,
``train/provenance.py``). Runs of different suite versions are refused, naming each file and its
version: the suite name (which ends in its version) and, where the files record it, the digest of the
suite's definition. A file written before results recorded their provenance keeps working: its suite
version is its ``suite`` field, as before, and its provenance shows as ``-``.
"""
from __future__ import annotations

import json
import math
import os

from train.benchmark import budget_report
from train.benchmark.budget_report import budget_label
from train.benchmark.exploit import EXPLOIT_FORMAT
from train.benchmark.runner import RESULTS_FORMAT
from train.errors import UsageError
from train.json_input import check_shape, nullable, read_json_object
from train.provenance import brief

#: What the leaderboard reads of an agent's results.json (runner.build_results writes it).
AGENT_RESULTS = {"suite": str, "agent": str, "official": bool, "tasks": [{"id": str, "win_rate": float}],
                 "aggregate": nullable({"iqm": float, "iqm_ci95": [float, float]})}
#: What the leaderboard reads of a sample-budget run's results.json (budget_report.build writes it).
BUDGET_RESULTS = {"suite": str, "official": bool, "config_file": str, "algo": str, "tasks": [str], "seeds": [object],
                  "budgets": [int], "runs": [{"seconds": float}],
                  "points": [{"target": int, "kind": str, "decisions_mean": float, "score_mean": float,
                              "score_ci95": nullable([float, float]),
                              "seeds": [{"seed": object, "decisions": float, "score": float}]}]}

#: What the leaderboard reads of an ``uno-env exploit`` run's exploit.json (exploit.build_results writes it).
EXPLOIT_RESULTS = {"target": str, "task": {"variant": str, "players": int, "rule_options": {"*": object}}, "budget": int,
                   "parity": float, "best": {"start": str, "decisions": int, "games": int, "win_rate": float,
                                             "ci95": [float, float]}}


#: What the leaderboard reads of a file's provenance, where it has one (train/provenance.py writes it).
PROVENANCE = {"uno_env_version": str, "commit": nullable(str), "commit_dirty": nullable(bool),
              "suite": nullable({"name": str, "definition_digest": str}),
              "task_rules_digests": nullable({"*": str})}


class ResultsFile(dict):
    """A results file's content, knowing the file it was read from (``path``), so messages can name it."""

    path: str | None = None


def source_of(run: dict) -> str:
    """The file ``run`` was read from, or a description of it when it was built in memory."""
    return getattr(run, "path", None) or f"the results of {run.get('agent') or run.get('config_file')}"


def read_results(path: str) -> dict:
    """The results of one run: ``path`` is a results directory, its ``results.json`` or an ``exploit.json``."""
    file = os.path.join(path, "results.json") if os.path.isdir(path) else path
    if os.path.isdir(path) and not os.path.exists(file) and os.path.exists(os.path.join(path, "exploit.json")):
        file = os.path.join(path, "exploit.json")
    elif os.path.isdir(path) and not os.path.exists(file):
        if os.path.exists(os.path.join(path, "protocol.json")):
            raise UsageError(f"{path}: a sample-budget run not finished yet (protocol.json, no results.json); "
                             "finish it with the same uno-env benchmark --train command, or leave it out")
        raise UsageError(f"{path}: no results.json (give the --out folder of uno-env benchmark --agent or --train)")
    what = "a benchmark results file"
    results = read_json_object(file, what, UsageError)
    shapes = {RESULTS_FORMAT: AGENT_RESULTS, budget_report.RESULTS_FORMAT: BUDGET_RESULTS,
              EXPLOIT_FORMAT: EXPLOIT_RESULTS}
    if results.get("format") not in shapes:
        raise UsageError(f"{file}: not {what} (written by uno-env benchmark --agent ... or --train ..., "
                         "or uno-env exploit)")
    problem = check_shape(results, shapes[results["format"]])
    if not problem and "provenance" in results:  # files from before provenance have none: fine
        problem = check_shape(results["provenance"], PROVENANCE, "provenance")
    if problem:
        raise UsageError(f"{file}: not {what} ({problem})")
    run = ResultsFile(results)
    run.path = file
    return run


def suite_version(run: dict) -> str:
    """The suite version of a run: its suite's name, with its definition's digest where the file records it."""
    suite = (run.get("provenance") or {}).get("suite")
    return run["suite"] + (f" (definition {suite['definition_digest'][:12]})" if suite else "")


def check_one_suite_version(runs: list[dict]) -> str:
    """The suite all ``runs`` played; UsageError naming every file and its suite version when they differ.

    A file without provenance agrees with any definition of its suite's name: the name is its version, as
    before provenance was recorded, and refusing would orphan every published file of that time.
    """
    names = {r["suite"] for r in runs}
    digests = {r["provenance"]["suite"]["definition_digest"] for r in runs
               if (r.get("provenance") or {}).get("suite")}
    if len(names) > 1 or len(digests) > 1:
        by_version: dict[str, list[str]] = {}
        for r in runs:
            by_version.setdefault(suite_version(r), []).append(source_of(r))
        why = "" if len(names) > 1 else "; the suite's tasks, seeds or game counts changed under one name"
        listed = "; ".join(f"{version}: {', '.join(files)}" for version, files in sorted(by_version.items()))
        raise UsageError(f"results of different suite versions cannot share a leaderboard: {listed}{why}")
    return names.pop()


def rules_notes(runs: list[dict]) -> list[str]:
    """A line for each task whose rules differ between runs (their rules digests): the engine changed between them."""
    seen: dict[str, dict[str, list[str]]] = {}
    for r in runs:
        for task_id, rules in ((r.get("provenance") or {}).get("task_rules_digests") or {}).items():
            seen.setdefault(task_id, {}).setdefault(rules, []).append(f"`{r.get('agent') or r.get('config_file')}`")
    return [f"The rules of {task_id} differ between runs (rules digest "
            + "; ".join(f"{rules[:12]}: {', '.join(names)}" for rules, names in digests.items())
            + "): the engine's rules changed between their versions, so their figures on it are not comparable."
            for task_id, digests in seen.items() if len(digests) > 1]


def budget_runs_of(runs: list[dict]) -> list[dict]:
    """The sample-budget protocol's results among ``runs``."""
    return [r for r in runs if r.get("format") == budget_report.RESULTS_FORMAT]


def exploit_runs_of(runs: list[dict]) -> list[dict]:
    """The ``uno-env exploit`` results among ``runs``."""
    return [r for r in runs if r.get("format") == EXPLOIT_FORMAT]


def task_label(task: dict) -> str:
    """``classic-2p``, with its rule options when it changes any: ``classic-2p (stacking=any)``."""
    options = ", ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, sort_keys=True)}"
                        for k, v in sorted(task["rule_options"].items()))
    return f"{task['variant']}-{task['players']}p" + (f" ({options})" if options else "")


def exploit_target_of(agent: str, run: dict) -> bool:
    """Whether ``run`` is a best response to ``agent``: its target is the spec, or the policy ``pretrained`` plays there."""
    if run["target"] == agent:
        return True
    if agent != "pretrained" or not run["target"].startswith("pretrained:"):
        return False
    import agents
    from uno_env import Game, RuleError

    task = run["task"]
    try:
        return run["target"] == "pretrained:" + agents.pretrained_for(
            Game(task["variant"], task["players"], **task["rule_options"]))
    except (RuleError, agents.AgentSpecError, TypeError):
        return False


def exploit_section(runs: list[dict]) -> list[str]:
    """Every exploit run: its target, task, budget, better start and the best response's win rate."""
    lines = ["## Approximate exploitability", "",
             "A best response trained against the agent in every other seat (uno-env exploit; docs/exploit.md): the "
             "better of its starts (from scratch, or the shipped policy for the table), its win rate on fresh games "
             "with a 95% interval. A lower bound on how far the agent can be exploited, only as good as the "
             "learner and its budget. The agents' table above has a column for a task and budget where two or more of "
             "its agents were measured. Provenance: the uno-env version and commit of the run.", "",
             "| agent | task | budget | better start | best response wins | 95% interval | parity | games "
             "| provenance |",
             "|---|---|---|---|---|---|---|---|---|"]
    for run in sorted(runs, key=lambda r: (task_label(r["task"]), r["budget"], -r["best"]["win_rate"])):
        best = run["best"]
        lines.append(f"| `{run['target']}` | {task_label(run['task'])} | {budget_label(run['budget'])} | "
                     f"{best['start']} | {best['win_rate']:.1%} | {best['ci95'][0]:.1%} - {best['ci95'][1]:.1%} | "
                     f"{run['parity']:.0%} | {best['games']:,} | {brief(run.get('provenance'))} |")
    return lines


def leaderboard_markdown(runs: list[dict], curves_image: str | None = None) -> str:
    """The leaderboard table of ``runs`` (the content of several results.json and exploit.json files).

    ``curves_image``: the learning-curve figure of the budget runs, relative to the leaderboard file.
    """
    if not runs:
        raise UsageError("give one or more results directories to --leaderboard")
    exploit_runs = exploit_runs_of(runs)
    runs = [r for r in runs if r.get("format") != EXPLOIT_FORMAT]
    if not runs:
        raise UsageError("--leaderboard needs at least one uno-env benchmark result beside exploit.json files")
    suites = [check_one_suite_version(runs)]
    notes = rules_notes(runs)
    budget_runs = budget_runs_of(runs)
    runs = [r for r in runs if r.get("format") != budget_report.RESULTS_FORMAT]
    if not runs:
        return "\n".join([f"# Leaderboard: {suites[0]}", "",
                          *budget_report.leaderboard_section(budget_runs, curves_image),
                          *(["", *notes] if notes else []),
                          *(["", *exploit_section(exploit_runs)] if exploit_runs else [])]) + "\n"
    task_ids = list(dict.fromkeys(t["id"] for r in runs for t in r["tasks"]))

    def exploit_runs_for(agent: str, column: tuple[str, int]) -> list[dict]:
        return [r for r in exploit_runs if (task_label(r["task"]), r["budget"]) == column
                and exploit_target_of(agent, r)]

    # A column compares agents, so the table gets one where two or more of its agents have a best response;
    # the section below lists every run, the others included.
    exploit_columns = [c for c in dict.fromkeys((task_label(r["task"]), r["budget"]) for r in
                                                sorted(exploit_runs, key=lambda r: (task_label(r["task"]), r["budget"])))
                       if sum(bool(exploit_runs_for(r["agent"], c)) for r in runs) >= 2]

    def exploit_cell(agent: str, column: tuple[str, int]) -> str:
        found = exploit_runs_for(agent, column)
        return f"{max(r['best']['win_rate'] for r in found):.1%}" if found else "-"

    def iqm_of(run: dict) -> float:
        return run["aggregate"]["iqm"] if run["aggregate"] else -math.inf

    lines = [f"# Leaderboard: {suites[0]}", "",
             "IQM: interquartile mean of normalised scores over the tasks (random = 0, heuristic = 1) with its "
             "95% stratified bootstrap interval; then each task's win rate. See docs/benchmark.md."
             + (" Best response: the approximate exploitability at that task and budget (the win rate of a best "
                "response trained against the agent; see the section below)." if exploit_columns else "")
             + " Provenance: the uno-env version and commit the run was measured with (-dirty: with uncommitted "
               "changes; - : a file written before results recorded it).", "",
             "| rank | agent | IQM | 95% interval | " + " | ".join(task_ids)
             + "".join(f" | best response {task} {budget_label(budget)}" for task, budget in exploit_columns)
             + " | provenance |",
             "|---|---|---|---|" + "---|" * (len(task_ids) + len(exploit_columns) + 1)]
    smoke = False
    for rank, run in enumerate(sorted(runs, key=iqm_of, reverse=True), start=1):
        win_rates = {t["id"]: f"{t['win_rate']:.1%}" for t in run["tasks"]}
        agg = run["aggregate"]
        iqm = f"{agg['iqm']:.3f}" if agg else "-"
        interval = f"{agg['iqm_ci95'][0]:.3f} - {agg['iqm_ci95'][1]:.3f}" if agg else "-"
        mark = "" if run["official"] else " *"
        smoke = smoke or not run["official"]
        lines.append(f"| {rank} | `{run['agent']}`{mark} | {iqm} | {interval} | "
                     + " | ".join(win_rates.get(task_id, "-") for task_id in task_ids)
                     + "".join(f" | {exploit_cell(run['agent'], c)}" for c in exploit_columns)
                     + f" | {brief(run.get('provenance'))} |")
    if smoke:
        lines += ["", "\\* not official: a subset of the suite's tasks (its IQM is over the tasks it played; \"-\" "
                  "marks a task it did not play) or fewer games per task (a smoke run); not comparable with official "
                  "numbers."]
    if notes:
        lines += ["", *notes]
    if budget_runs:
        lines += ["", *budget_report.leaderboard_section(budget_runs, curves_image)]
    if exploit_runs:
        lines += ["", *exploit_section(exploit_runs)]
    return "\n".join(lines) + "\n"
