"""A four-player search form against the present one at equal time: ``opponents=policy`` (issue 71, part 2).

    .venv/bin/python docs/results/tools/four_player_search.py [games, default 2016] [variant-4p ...]

The present form is ``level:expert`` (``ismcts:iterations=10000``: about 30 ms a decision on an idle core at four
players). For each table:

1. **speed**: both forms search the same positions (24 decisions with a choice, from heuristic games dealt from
   seed 900,000), alternating, 2,000 iterations each; the ratio of their iterations a second says how many
   iterations the policy form gets in the present form's time.
2. **strength**: the policy form at that many iterations (rounded to 10) against three ``heuristic``, on the deals
   of ``agents/levels.json`` (seed 900,000, seat-rotated, ``run_tournament``): the present form's figure there is
   the expert level's, played on the same deals with the same seeds.

Writes ``docs/results/four-player-search.json`` after each table (a table already there is skipped).
"""
from __future__ import annotations

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

import agents  # noqa: E402
from agents.levels import LEVELS, MEASURED  # noqa: E402
from train.evaluation.tournament import run_tournament  # noqa: E402
from uno_env import Game, RuleSet  # noqa: E402

OUT = os.path.join(ROOT, "docs", "results", "four-player-search.json")
SEED = 900_000
PRESENT = LEVELS["expert"].spec
PRESENT_ITERATIONS = 10_000
FORM = "opponents=policy"
POSITIONS = 24
SPEED_ITERATIONS = 2000


def positions(game: Game, count: int) -> list:
    """``count`` decisions with a choice, every fourth one of heuristic games dealt from SEED on."""
    heuristic = agents.load("heuristic", game, seed=0)
    from agents import choose_action
    from uno_env.observation import ObservationEncoder

    enc = ObservationEncoder(game)
    found, deal = [], SEED
    while len(found) < count:
        s = game.new_state(deal)
        k = 0
        while not s.is_over and len(found) < count:
            if len(game.legal_actions(s)) > 1:
                k += 1
                if k % 4 == 0:
                    found.append(s.clone())
            game.step(s, choose_action(heuristic, game, s, enc))
        deal += 1
    return found


def speed(game: Game) -> dict:
    """Iterations a second of both forms on the same positions, alternating (2 rounds)."""
    forms = {"present": f"ismcts:iterations={SPEED_ITERATIONS}",
             "policy": f"ismcts:iterations={SPEED_ITERATIONS},{FORM}"}
    built = {name: agents.load(spec, game, seed=0) for name, spec in forms.items()}
    spent = {name: 0.0 for name in forms}
    for _ in range(2):
        for s in positions(game, POSITIONS):
            for name, agent in built.items():
                began = time.perf_counter()
                agent.root_visits(s)
                spent[name] += time.perf_counter() - began
    searched = 2 * POSITIONS * SPEED_ITERATIONS
    return {name: round(searched / spent[name]) for name in forms}


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 2016
    tables = argv[1:] or ["classic-4p"]
    out = {}
    if os.path.exists(OUT):
        with open(OUT, encoding="utf-8") as fh:
            out = json.load(fh)
    with open(MEASURED, encoding="utf-8") as fh:
        measured = json.load(fh)["tables"]
    for table in tables:
        if table in out:
            continue
        variant, players = table.rsplit("-", 1)
        players = int(players.removesuffix("p"))
        game = Game(variant, players)
        rates = speed(game)
        iterations = max(10, int(round(PRESENT_ITERATIONS * rates["policy"] / rates["present"], -1)))
        spec = f"ismcts:iterations={iterations},{FORM}"
        began = time.perf_counter()
        summary = run_tournament(RuleSet.create(variant, players), [spec] + ["heuristic"] * (players - 1), games,
                                 seed=SEED, workers=1, progress=False)
        row = summary["agents"][0]
        low, high = row["win_rate_ci95"]
        present = measured.get(table, {}).get("expert")
        out[table] = {
            "iterations_per_s": rates, "present": {"spec": PRESENT, **(present or {})},
            "policy_form": {"spec": spec, "win_rate": round(row["win_rate"], 4), "low": round(low, 4),
                            "high": round(high, 4), "games": row["games"], "truncated": summary["truncated_games"],
                            "seconds": round(time.perf_counter() - began)}}
        with open(OUT + ".tmp", "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1)
            fh.write("\n")
        os.replace(OUT + ".tmp", OUT)
        print(table, json.dumps(out[table]), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
