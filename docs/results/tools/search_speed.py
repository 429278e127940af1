"""IS-MCTS iterations per second, the Python reference loop against the core's twin, in every variant at 2 and 4
players, on the same positions, interleaved, and checked to make the same decisions.

    .venv/bin/python docs/results/tools/search_speed.py [iterations, default 1000] [rounds, default 3]

Positions are those of ``uno-env bench search`` (rollout-policy games, every decision with a choice) where the
agent searches (not a forced move, a call or a catch), the first 12 per table. Each round searches every
position once with ``ismcts:engine=python`` on the Python engine and once with ``ismcts:engine=core`` on the
core (the position copied to it once, outside the clock), both seeded alike, so their moves must be equal
(counted; a difference is reported). Writes docs/results/search-speed.json.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, ROOT)

from agents.search import ISMCTSAgent  # noqa: E402
from train.benchmark.search import positions  # noqa: E402
from uno_env import Game  # noqa: E402
from uno_env.core.native import from_python  # noqa: E402
from uno_env.variants.registry import VARIANTS  # noqa: E402

PER_TABLE = 12


def table(variant: str, players: int, iterations: int, rounds: int) -> dict:
    python = Game(variant, players, backend="python")
    native = Game(variant, players, backend="native")
    probe = ISMCTSAgent(python, seed=0, iterations=1, engine="python")  # fits the leaf model outside the clock
    searched = [s for s in positions(python, 400) if probe.unsearched_action(s, python.legal_actions(s)) is None]
    searched = searched[:PER_TABLE]
    twins = [from_python(native, s) for s in searched]
    seconds = {"python": 0.0, "core": 0.0}
    done = {"python": 0, "core": 0}
    differ = 0
    for r in range(rounds):
        for i, (s, t) in enumerate(zip(searched, twins)):
            moves = {}
            for engine, state in (("python", s), ("core", t)):
                agent = ISMCTSAgent(python if engine == "python" else native, seed=1000 * r + i,
                                    iterations=iterations, engine=engine)
                start = time.perf_counter()
                moves[engine] = agent.act_state(state)
                seconds[engine] += time.perf_counter() - start
                done[engine] += agent.last_iterations
            differ += moves["python"] != moves["core"]
    rate = {e: done[e] / seconds[e] for e in seconds}
    return {"variant": variant, "players": players, "decisions": len(searched) * rounds,
            "iterations_per_s": {e: round(v) for e, v in rate.items()},
            "ms_per_decision": {e: round(1000 * seconds[e] / (len(searched) * rounds), 2) for e in seconds},
            "speedup": round(rate["core"] / rate["python"], 1), "different_moves": differ}


def main(argv: list[str]) -> None:
    iterations = int(argv[0]) if argv else 1000
    rounds = int(argv[1]) if len(argv) > 1 else 3
    rows = []
    for variant in VARIANTS:
        for players in (2, 4):
            row = table(variant, players, iterations, rounds)
            rows.append(row)
            print(f"{variant}-{players}p: python {row['iterations_per_s']['python']:,} it/s, core "
                  f"{row['iterations_per_s']['core']:,} it/s ({row['speedup']}x), "
                  f"{row['ms_per_decision']['core']} ms a decision in the core, "
                  f"{row['different_moves']} different moves", flush=True)
    out = {"about": "ismcts iterations per second, Python loop vs the core's, same positions, interleaved; "
                    "docs/results/tools/search_speed.py", "iterations": iterations, "rounds": rounds,
           "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                       "load_average": os.getloadavg()}, "tables": rows}
    with open(os.path.join(ROOT, "docs", "results", "search-speed.json"), "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
