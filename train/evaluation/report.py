"""A tournament's results: per-agent win rates with intervals, points, OpenSkill ratings, and the files.

``results.json`` (everything, including every rating), ``results.md`` (a table to read) and
``ratings.png`` (ratings with error bars).
"""
from __future__ import annotations

import os

import numpy as np

import agents
from uno_env import RuleSet

from train import atomic
from train.evaluation.stats import wilson_interval
from train.plots import pyplot


def summarise(rules: RuleSet, specs: list[str], results: list[dict]) -> dict:
    """Per-agent win rates, points and ratings; a head-to-head matrix for two-player games."""
    from openskill.models import PlackettLuce

    names = _unique_names(specs)
    k = len(specs)
    games = np.zeros(k, int)
    wins = np.zeros(k, int)
    points = np.zeros(k)
    left = np.zeros(k)
    seat_games = np.zeros((k, rules.num_players), int)
    h2h = np.zeros((k, k), int)
    model = PlackettLuce()
    ratings = [model.rating(name=n) for n in names]
    for r in results:
        seating = r["seating"]
        for seat, a in enumerate(seating):
            games[a] += 1
            seat_games[a, seat] += 1
            points[a] += r["round_points"][seat]
            left[a] += r["hand_points"][seat]
            if r["winner"] == seat:
                wins[a] += 1
        if rules.num_players == 2 and r["winner"] is not None and seating[0] != seating[1]:
            h2h[seating[r["winner"]], seating[1 - r["winner"]]] += 1
        # rating: rank the distinct agents at the table by their best seat: the winner's agent first,
        # then by fewest card points left in hand (all tied when nobody won)
        present = list(dict.fromkeys(seating))
        if len(present) > 1:
            best = {a: min((r["winner"] != s, r["hand_points"][s]) for s, b in enumerate(seating) if b == a)
                    for a in present}
            order = sorted(present, key=lambda a: best[a])
            ranks = [1 if r["winner"] is None else order.index(a) + 1 for a in present]
            new = model.rate([[ratings[a]] for a in present], ranks=ranks)
            for a, team in zip(present, new):
                ratings[a] = team[0]
    agents_out = []
    for a in range(k):
        lo, hi = wilson_interval(int(wins[a]), int(games[a]))
        agents_out.append({
            "agent": names[a], "spec": specs[a], "games": int(games[a]), "wins": int(wins[a]),
            "win_rate": float(wins[a] / games[a]) if games[a] else 0.0, "win_rate_ci95": [lo, hi],
            "mean_points": float(points[a] / games[a]) if games[a] else 0.0,
            "mean_points_left": float(left[a] / games[a]) if games[a] else 0.0,
            "rating": {"system": "openskill-plackett-luce", "mu": ratings[a].mu, "sigma": ratings[a].sigma,
                       "ordinal": ratings[a].ordinal()},
            "games_per_seat": seat_games[a].tolist(),
        })
    out = {"rules": rules.to_dict(), "games": len(results), "agents": agents_out,
           "truncated_games": int(sum(r["truncated"] for r in results))}
    if rules.num_players == 2:
        out["head_to_head"] = {"agents": names, "wins": h2h.tolist()}
    return out


def _unique_names(specs: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    names = []
    for s in specs:
        base = agents.display_name(s)
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return names


def write_outputs(summary: dict, out_dir: str) -> list[str]:
    """results.json, results.md and ratings.png in ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, f) for f in ("results.json", "results.md", "ratings.png")]
    atomic.write_json(paths[0], summary, indent=2)
    atomic.write_text(paths[1], markdown(summary))
    return paths if _plot(summary, paths[2]) else paths[:2]


def ranked(summary: dict) -> list[dict]:
    """The agents best first by win rate, the table's headline (ties: the higher rating ordinal first)."""
    return sorted(summary["agents"], key=lambda a: (-a["win_rate"], -a["rating"]["ordinal"]))


def ranking_notes(summary: dict) -> list[str]:
    """Where the ratings or the head-to-head games order two agents against their win rates, and why.

    A rating is updated game by game (later games weigh more) and also counts finishing places, so
    two agents close in win rate may be rated the other way round; a win rate against the whole field
    may also differ from the games those two played against each other.
    """
    rows = ranked(summary)
    notes = []
    for i, above in enumerate(rows):
        for below in rows[i + 1:]:
            if below["rating"]["ordinal"] > above["rating"]["ordinal"]:
                notes.append(f"The ratings put {below['agent']} above {above['agent']} "
                             f"(ordinal {below['rating']['ordinal']:.2f} against {above['rating']['ordinal']:.2f}): a rating "
                             "is updated game by game, later games weighing more, and counts finishing places; "
                             + _noise(above, below))
    if "head_to_head" in summary:
        names = summary["head_to_head"]["agents"]
        wins = summary["head_to_head"]["wins"]
        for i, above in enumerate(rows):
            for below in rows[i + 1:]:
                a, b = names.index(above["agent"]), names.index(below["agent"])
                if wins[b][a] > wins[a][b]:
                    notes.append(f"{below['agent']} won the games against {above['agent']} {wins[b][a]}-{wins[a][b]}, "
                                 f"though {above['agent']} wins more often against the whole field; "
                                 + _noise(above, below))
    return notes


def _noise(above: dict, below: dict) -> str:
    """Whether two agents' win rates are apart by more than their 95% intervals."""
    rates = f"{above['agent']} {above['win_rate']:.1%}, {below['agent']} {below['win_rate']:.1%}"
    if below["win_rate_ci95"][1] >= above["win_rate_ci95"][0]:
        return f"their win rates ({rates}) are within noise of each other (their 95% intervals overlap)."
    return f"their win rates ({rates}) are apart beyond noise (their 95% intervals do not overlap)."


def markdown(summary: dict) -> str:
    """The results as Markdown tables, ranked by win rate, with a note wherever another measure orders two agents
    the other way."""
    r = summary["rules"]
    lines = [f"# Tournament: {r['variant']}, {r['num_players']} players, {summary['games']} games", "",
             "Ranked by win rate.", "",
             "| agent | games | win rate | 95% interval | mean points | rating (mu ± sigma) | ordinal |",
             "|---|---|---|---|---|---|---|"]
    for a in ranked(summary):
        lo, hi = a["win_rate_ci95"]
        lines.append(f"| {a['agent']} | {a['games']} | {a['win_rate']:.1%} | {lo:.1%} - {hi:.1%} | "
                     f"{a['mean_points']:.1f} | {a['rating']['mu']:.2f} ± {a['rating']['sigma']:.2f} | "
                     f"{a['rating']['ordinal']:.2f} |")
    if "head_to_head" in summary:
        names = summary["head_to_head"]["agents"]
        lines += ["", "Head to head (row's wins against column):", "",
                  "| | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
        for name, row in zip(names, summary["head_to_head"]["wins"]):
            lines.append(f"| {name} | " + " | ".join(str(x) for x in row) + " |")
    notes = ranking_notes(summary)
    if notes:
        lines += [""] + [f"- {note}" for note in notes]
    truncated = summary["truncated_games"]
    if truncated:
        lines += ["", f"{truncated} game{' was' if truncated == 1 else 's were'} truncated at the step cap "
                  "(no winner)."]
    return "\n".join(lines) + "\n"


def _plot(summary: dict, path: str) -> bool:
    """The ratings figure at ``path``; False (nothing written) without matplotlib."""
    plt = pyplot(os.path.basename(path))
    if plt is None:
        return False
    rows = sorted(summary["agents"], key=lambda a: a["rating"]["mu"])
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(rows) + 1.5))
    ax.errorbar([a["rating"]["mu"] for a in rows], range(len(rows)),
                xerr=[2 * a["rating"]["sigma"] for a in rows], fmt="o", capsize=4)
    ax.set_yticks(range(len(rows)), [a["agent"] for a in rows])
    ax.set_xlabel("OpenSkill rating mu (bars: ± 2 sigma)")
    r = summary["rules"]
    ax.set_title(f"{r['variant']}, {r['num_players']} players, {summary['games']} games")
    fig.tight_layout()
    with atomic.atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=100)
    plt.close(fig)
    return True
