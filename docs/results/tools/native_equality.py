"""The compiled core against the Python engine over millions of decisions: the equality report.

    .venv/bin/python docs/results/tools/native_equality.py [decisions per variant, default 1,700,000]

Plays the differential harness of the tests (tests/native_diff.py: every decision's legal actions, mask,
seat, phase, end and the deciding seat's observation row; the whole state, ``to_spec`` and every seat's row
every 100 decisions and at every game's end) through every variant, in the same rotation of option sets,
table sizes and players (random, ``greedy``, ``heuristic``) as ``make test``, from seeds the tests do not
use (10,000,000 on). A difference stops the run with the harness's message (the variant, options, seed and decision). The
counts go to docs/results/native-equality.json, written after every variant so a cut run keeps what it
compared.
"""
from __future__ import annotations

import itertools
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT)]  # the project first: tests/agents/ (the tests of agents/) must not hide it
sys.path.append(str(ROOT / "tests"))

from native_diff import OPTION_SETS, TABLES, play_pair  # noqa: E402  (tests/native_diff.py)

import uno_env  # noqa: E402
from uno_env import core  # noqa: E402

FIRST_SEED = 10_000_000
OUT = ROOT / "docs" / "results" / "native-equality.json"


def compare(variant: str, target: int) -> dict:
    combos = itertools.cycle(itertools.product(OPTION_SETS[variant], TABLES[variant], ("random", "greedy", "heuristic")))
    decisions = games = 0
    seed = FIRST_SEED
    started = time.perf_counter()
    while decisions < target:
        options, players, policy = next(combos)
        decisions += play_pair(variant, players, options, seed, policy)
        games += 1
        seed += 1
    return {"decisions": decisions, "games": games, "differences": 0, "seeds": [FIRST_SEED, seed - 1],
            "option_sets": len(OPTION_SETS[variant]), "tables": list(TABLES[variant]),
            "seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    target = int(sys.argv[1]) if len(sys.argv) > 1 else 1_700_000
    assert core.available(), core.why_unavailable()
    report = {"what": "decisions compared between the compiled core and the Python engine (docs/results/tools/"
                      "native_equality.py); a difference would have stopped the run",
              "uno_env": uno_env.__version__, "numpy": np.__version__, "python": platform.python_version(),
              "machine": platform.machine(), "variants": {}}
    for variant in sorted(core.NATIVE_VARIANTS):
        report["variants"][variant] = compare(variant, target)
        report["total_decisions"] = sum(v["decisions"] for v in report["variants"].values())
        report["total_differences"] = 0
        OUT.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(variant, report["variants"][variant], flush=True)
    print(f"{report['total_decisions']:,} decisions compared, 0 differences -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
