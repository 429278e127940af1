"""The sample-budget protocol's report: results.json, results.md, curve.csv, curve.png and a leaderboard section.

Per seed and point, the score is the IQM of the normalised scores over the scored tasks (with the
stratified bootstrap interval over that seed's games, ``aggregate.py``). Across seeds the report
gives the mean and a 95% Student t-interval, ``mean ± t(0.975, K - 1) · sd / √K`` (sample standard
deviation): a bootstrap over three to five seeds would understate the spread. With one seed there
is no interval.
"""
from __future__ import annotations

import csv
import io
import math
import os

from train import atomic
from train.provenance import provenance
from train.plots import pyplot, save_png

RESULTS_FORMAT = "uno-env-budget-results"
RESULTS_VERSION = 1
FILES = ("results.json", "results.md", "curve.csv", "curve.png")
"""What ``write`` puts in the output directory."""
INTERVAL = "95% Student t-interval over seeds: mean ± t(0.975, K-1) · sd / sqrt(K); none with one seed"
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
"""The 97.5% quantile of Student's t for 1..30 degrees of freedom."""


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (a table to 30, then Cornish-Fisher)."""
    if df < 1:
        raise ValueError("Student's t needs 1 or more degrees of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def t_interval(values: list[float]) -> list[float] | None:
    """The 95% t-interval of the mean of ``values``; None for fewer than two values."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile_975(n - 1) * sd / math.sqrt(n)
    return [mean - half, mean + half]


def build(identity: dict, config_file: str, algo: str, seeds: list[int], not_official: list[str], records: list[dict],
          scores: list[dict], suite=None) -> dict:
    """results.json's content: the protocol, each seed's training, every point per seed and across seeds, and
    where it came from (``provenance``: version, commit, the suite played, command line, machine)."""
    tasks = identity["tasks"]
    points = []
    for target in sorted({s["target"] for s in scores}):
        rows = sorted((s for s in scores if s["target"] == target), key=lambda s: s["seed"])
        values = [r["score"] for r in rows]
        points.append({
            "target": target, "kind": rows[0]["kind"], "games": {t: rows[0]["tasks"][t]["games"] for t in tasks},
            "decisions_mean": sum(r["decisions"] for r in rows) / len(rows), "score_mean": sum(values) / len(values),
            "score_ci95": t_interval(values),
            "seeds": [{"seed": r["seed"], "decisions": r["decisions"],
                       "win_rates": {t: r["tasks"][t]["win_rate"] for t in tasks},
                       "normalised_scores": {t: r["tasks"][t]["normalised_score"] for t in tasks},
                       "score": r["score"], "score_ci95": r["score_ci95"]} for r in rows]})
    return {"format": RESULTS_FORMAT, "version": RESULTS_VERSION, "suite": identity["suite"],
            "config_file": config_file, "algo": algo, "variant": identity["config"]["variant"], "tasks": tasks,
            "budgets": identity["budgets"], "seeds": seeds, "official": not not_official,
            "not_official": not_official, "interval": INTERVAL, "protocol": identity, "runs": records,
            "points": points, "provenance": provenance(suite)}


def curve_csv(results: dict) -> str:
    """One row per point and seed: the point, its kind, the decisions, each task's win rate and the score."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["point", "kind", "seed", "decisions", *(f"win_rate_{t}" for t in results["tasks"]), "score"])
    for p in results["points"]:
        for s in p["seeds"]:
            w.writerow([p["target"], p["kind"], s["seed"], s["decisions"],
                        *(f"{s['win_rates'][t]:.4f}" for t in results["tasks"]), f"{s['score']:.4f}"])
    return buf.getvalue()


def _draw(ax, results: dict, label: str, seeds_faintly: bool, color: str | None = None, linestyle: str = "-") -> None:
    """One run on ``ax``: the mean score against decisions, its t-interval band, budgets marked."""
    points = results["points"]
    if seeds_faintly:
        for seed in results["seeds"]:
            ax.plot([s["decisions"] for p in points for s in p["seeds"] if s["seed"] == seed],
                    [s["score"] for p in points for s in p["seeds"] if s["seed"] == seed], color="grey", lw=0.7,
                    alpha=0.5)
    line, = ax.plot([p["decisions_mean"] for p in points], [p["score_mean"] for p in points], marker="o",
                    label=label, color=color, linestyle=linestyle)
    bands = [(p["decisions_mean"], *p["score_ci95"]) for p in points if p["score_ci95"]]
    if bands:
        ax.fill_between([b[0] for b in bands], [b[1] for b in bands], [b[2] for b in bands], color=line.get_color(),
                        alpha=0.2, label="95% t-interval over seeds" if seeds_faintly else None)
    budgets = [p for p in points if p["kind"] == "budget"]
    ax.scatter([p["decisions_mean"] for p in budgets], [p["score_mean"] for p in budgets], s=80, zorder=3,
               color=line.get_color(), edgecolor="black", label="budgets" if seeds_faintly else None)


def _style(ax, title: str) -> None:
    """Axis labels, the random (0) and heuristic (1) lines, the title and the legend."""
    ax.axhline(0.0, color="grey", lw=0.8, ls=":")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.xaxis.set_major_formatter(lambda x, _: f"{x / 1e6:g}M" if x >= 1e6 else f"{x:,.0f}")
    ax.set_xlabel("decisions learned from")
    ax.set_ylabel("IQM normalised score (random 0, heuristic 1)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)


def _save(fig, ax, plt, title: str, path: str) -> str:
    _style(ax, title)
    return save_png(plt, fig, path)


def budget_label(decisions: int) -> str:
    """``1M``, ``500k``, or the number itself."""
    for size, suffix in ((1_000_000, "M"), (1_000, "k")):
        if decisions % (size // 10) == 0 and decisions >= size:
            return f"{decisions / size:g}{suffix}"
    return f"{decisions:,}"


def _label(results: dict) -> str:
    return f"{os.path.basename(results['config_file'])} ({results['algo']})"


def run_key(results: dict) -> tuple[str, int]:
    """A run of the figure: its config and its largest budget (one config run to 1M and again to 10M is two runs)."""
    return results["config_file"], max(results["budgets"], default=0)


def plot_curve(results: dict, path: str) -> str | None:
    """Mean score across seeds against decisions, with the t-interval band and each seed faintly; budgets marked
    (None, nothing written, without matplotlib)."""
    plt = pyplot(path)
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    _draw(ax, results, f"mean of {len(results['seeds'])} seeds", seeds_faintly=True)
    return _save(fig, ax, plt, f"{_label(results)} on {results['suite']}: {', '.join(results['tasks'])}", path)


def curve_panels(runs: list[dict]) -> list[tuple[tuple[str, ...], list[dict]]]:
    """The leaderboard figure's panels: the runs grouped by the tasks they are scored on, tasks in order."""
    panels: dict[tuple[str, ...], list[dict]] = {}
    for results in runs:
        panels.setdefault(tuple(results["tasks"]), []).append(results)
    return sorted(panels.items(), key=lambda panel: panel[0])


LINE_STYLES = ("-", "--", ":", "-.")


def curve_styles(group: list[dict], algos: list[str]) -> dict[tuple[str, int], tuple[str, str]]:
    """The (colour, line style) of each run of one panel of the leaderboard's figure, by ``run_key``: a colour per
    algorithm (its place in ``algos``, the same in every panel), and a line style per run of that algorithm in
    the panel (by config name, then budget), so that two configs, or two runs of one config, stay apart."""
    styles = {}
    for place, algo in enumerate(algos):
        keys = sorted({run_key(results) for results in group if results["algo"] == algo})
        for number, key in enumerate(keys):
            styles[key] = (f"C{place % 10}", LINE_STYLES[number % len(LINE_STYLES)])
    return styles


def plot_curves(runs: list[dict], path: str) -> str | None:
    """The leaderboard's figure: one panel per task (runs scored on the same tasks share it), each run's mean,
    band and budgets (None, nothing written, without matplotlib)."""
    plt = pyplot(path)
    if plt is None:
        return None
    panels = curve_panels(runs)
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 4), squeeze=False)
    algos = sorted({results["algo"] for results in runs})
    for ax, (tasks, group) in zip(axes[0], panels):
        styles = curve_styles(group, algos)
        for results in group:
            key = run_key(results)
            color, linestyle = styles[key]
            _draw(ax, results, f"{_label(results)}, {len(results['seeds'])} seeds to {budget_label(key[1])}"
                  + ("" if results["official"] else " (not official)"), seeds_faintly=False,
                  color=color, linestyle=linestyle)
        _style(ax, f"{', '.join(tasks)}: mean over seeds, 95% t-intervals, budgets ringed")
    fig.suptitle(f"Learning algorithms on {runs[0]['suite']}", fontsize=10)
    return save_png(plt, fig, path)


def _interval(ci) -> str:
    return f"{ci[0]:.3f} - {ci[1]:.3f}" if ci else "-"


def markdown(results: dict) -> str:
    """The summary: a row per budget, then the learning curve, then each seed's training."""
    lines = [f"# Sample-budget benchmark: `{results['config_file']}` ({results['algo']}) on {results['suite']}", "",
             f"Scored tasks: {', '.join(results['tasks'])} (the config's variant, rules and player counts). Seeds: "
             f"{', '.join(map(str, results['seeds']))}. Score: per seed, the IQM of the normalised scores over those "
             "tasks (random = 0, heuristic = 1); across seeds, the mean with a 95% Student t-interval. Decisions: "
             "the trainer's count when the policy was saved (the first report at or past the point).", ""]
    if not results["official"]:
        lines += [f"Not official: {'; '.join(results['not_official'])}.", ""]
    lines += ["| budget | decisions (mean) | score | 95% interval | per seed |", "|---|---|---|---|---|"]
    for p in results["points"]:
        if p["kind"] == "budget":
            lines.append(f"| {p['target']:,} | {p['decisions_mean']:,.0f} | **{p['score_mean']:.3f}** | "
                         f"{_interval(p['score_ci95'])} | {', '.join(format(s['score'], '.3f') for s in p['seeds'])} |")
    curve_games = results["protocol"]["curve_games_per_task"]
    lines += ["", f"Learning curve ({len(results['points'])} points; curve points are scored on {curve_games:,} games "
              "per task and are not official):", "", "| point | kind | decisions (mean) | score | 95% interval |",
              "|---|---|---|---|---|"]
    lines += [f"| {p['target']:,} | {p['kind']} | {p['decisions_mean']:,.0f} | {p['score_mean']:.3f} | "
              f"{_interval(p['score_ci95'])} |" for p in results["points"]]
    lines.append("")
    lines += [f"Seed {r['seed']}: trained {r['trained_decisions']:,} decisions (planned {r['planned_decisions']:,}) in "
              f"{r['seconds']:,.0f} s ({r['samples_per_second']:,.0f} samples/s).{_counted(r)}"
              for r in results["runs"]]
    return "\n".join(lines) + "\n"


def _counted(run: dict) -> str:
    """What the seed's games counted (the contract's check, ``train/counting.py``); nothing for an older record."""
    if "counted_decisions" not in run:
        return ""
    if run["counted_decisions"] is None:
        return (" Not counted: the trainer stepped no games of its run (run.games), so its decision count is its "
                "own word.")
    taken, finished = run["counted_decisions"]
    return f" Its games counted {taken:,} learner decisions ({finished:,} in finished games)."


def write(results: dict, out_dir: str) -> list[str]:
    """``results.json``, ``results.md``, ``curve.csv`` and ``curve.png`` in ``out_dir``; returns their paths."""
    paths = [os.path.join(out_dir, name) for name in FILES]
    atomic.write_json(paths[0], results, indent=2)
    atomic.write_text(paths[1], markdown(results))
    atomic.write_text(paths[2], curve_csv(results))
    return paths if plot_curve(results, paths[3]) else paths[:3]


def _wall_clock(run: dict, budget: int) -> str:
    """The mean training time of a seed's whole run, on its largest budget's row (smaller budgets: the run's)."""
    if not run["runs"]:
        return "-"
    if budget != max(run["budgets"], default=budget):
        return f"in the {max(run['budgets']):,} run"
    minutes = sum(r["seconds"] for r in run["runs"]) / len(run["runs"]) / 60
    return f"{minutes:,.1f} min"


def leaderboard_section(runs: list[dict], curves_image: str | None = None) -> list[str]:
    """Leaderboard lines for budget-protocol results: a row per run and budget, grouped by task, then by budget
    with the best score first.

    ``curves_image``, a path relative to the leaderboard file, is shown below the table (``plot_curves``).
    """
    rows = [(run["tasks"], p["target"], -p["score_mean"], run, p) for run in runs for p in run["points"]
            if p["kind"] == "budget"]
    lines = ["## Learning algorithms: sample-budget protocol", "",
             "Score: IQM of normalised scores over the tasks the config plays, mean over seeds with a 95% t-interval "
             "(uno-env benchmark --train; docs/benchmark.md). Wall-clock: a seed's whole training run (every budget "
             "of the row's config is a point of that one run), the mean over seeds, on the machine that ran it.", "",
             "| budget | config | algo | tasks | seeds | score | 95% interval | wall-clock a seed |",
             "|---|---|---|---|---|---|---|---|"]
    for _, budget, _, run, p in sorted(rows, key=lambda r: r[:3]):
        mark = "" if run["official"] else " *"
        lines.append(f"| {budget:,} | `{run['config_file']}`{mark} | {run['algo']} | {', '.join(run['tasks'])} | "
                     f"{len(run['seeds'])} | {p['score_mean']:.3f} | {_interval(p['score_ci95'])} | "
                     f"{_wall_clock(run, budget)} |")
    if any(not run["official"] for run in runs):
        lines += ["", "\\* not official (fewer than 3 seeds or reduced game counts)."]
    if curves_image:
        lines += ["", f"![Learning curves of the runs above](<{curves_image}>)"]
    return lines
