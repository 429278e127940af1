"""Each level's win rate against ``heuristic`` at every table: the figures ``uno-env play`` and the browser show.

    .venv/bin/python docs/results/tools/levels.py [games, default 400] [variant-Np ...]
    LEVELS=hard,expert .venv/bin/python docs/results/tools/levels.py ...    # only these levels
    .venv/bin/python docs/results/tools/levels.py table                     # the table of docs/results/levels.md

For every table (each variant at 2 and 4 players, or the ones named) and every level of ``agents/levels.py``,
a seat-rotated tournament of the level against ``heuristic`` in every other seat (``run_tournament``, what
``uno-env eval`` plays; at four players one level against three ``heuristic``, parity 25%), on the deals from
seed 900,000 on: no agent was trained, tuned or chosen on them (the search's options were tuned on deals
from 700,000). ``games`` is rounded up to whole seat rotations. Writes ``agents/levels.json``, which the play
tools read, after every table and level, so an interrupted run resumes where it stopped (a finished entry
with the same spec and at least as many games is kept).

The search levels are bounded by iterations, so the figures do not depend on the machine's speed.
"""
from __future__ import annotations

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, ROOT)

from agents.levels import LEVELS, MEASURED  # noqa: E402
from train.evaluation.tournament import run_tournament  # noqa: E402
from uno_env import RuleSet  # noqa: E402
from uno_env.variants.registry import VARIANTS  # noqa: E402

SEED = 900_000
TABLES = [f"{variant}-{players}p" for variant in VARIANTS for players in (2, 4)]


def markdown() -> str:
    """The measured win rates as the table of docs/results/levels.md: a row per table, a column per level."""
    with open(MEASURED, encoding="utf-8") as fh:
        tables = json.load(fh)["tables"]
    lines = ["| table | " + " | ".join(f"{name} (`{level.spec}`)" for name, level in LEVELS.items()) + " |",
             "|---|" + "---|" * len(LEVELS)]
    for table in TABLES:
        cells = []
        for name in LEVELS:
            row = tables.get(table, {}).get(name)
            cells.append("not measured" if row is None else
                         f"{row['win_rate']:.1%} ({row['low']:.1%}-{row['high']:.1%}, {row['games']:,})")
        lines.append(f"| {table} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    if argv[:1] == ["table"]:
        print(markdown())
        return
    games = int(argv[0]) if argv else 400
    tables = argv[1:] or TABLES
    out = {"about": "win rate of each level against heuristic (seat-rotated, held-out deals); "
                    "written by docs/results/tools/levels.py", "seed": SEED, "tables": {}}
    if os.path.exists(MEASURED):
        with open(MEASURED, encoding="utf-8") as fh:
            out["tables"] = json.load(fh)["tables"]
    for table in tables:
        variant, players = table.rsplit("-", 1)
        players = int(players.removesuffix("p"))
        rules = RuleSet.create(variant, players)
        for name, level in LEVELS.items():
            if os.environ.get("LEVELS") and name not in os.environ["LEVELS"].split(","):
                continue
            done = out["tables"].get(table, {}).get(name)
            if done and done["spec"] == level.spec and done["games"] >= games:
                continue
            start = time.perf_counter()
            specs = [f"level:{name}"] + ["heuristic"] * (players - 1)
            summary = run_tournament(rules, specs, games, seed=SEED, workers=2, progress=False)
            row = summary["agents"][0]
            low, high = row["win_rate_ci95"]
            out["tables"].setdefault(table, {})[name] = {
                "spec": level.spec, "win_rate": round(row["win_rate"], 4), "low": round(low, 4),
                "high": round(high, 4), "games": row["games"], "truncated": summary["truncated_games"]}
            with open(MEASURED + ".tmp", "w", encoding="utf-8") as fh:
                json.dump(out, fh, indent=1, sort_keys=True)
                fh.write("\n")
            os.replace(MEASURED + ".tmp", MEASURED)
            print(f"{table} {name:<7} {row['win_rate']:.1%} ({low:.1%}-{high:.1%}, {row['games']} games) "
                  f"{time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
