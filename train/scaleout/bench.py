"""Tournament games/s on local Ray (1 and 2 workers) against the multiprocessing pool: ``python -m train.scaleout.bench``.

The same tournament (same agents, games and seed) is played by every path, the paths interleaved
round by round so background load hits them alike. Ray's start-up (a few seconds) is timed apart:
games/s counts the tournament alone, as a long run on an already-running cluster would see it; the
pool's start-up is part of its time, as ``uno-env eval`` pays it each run. The results of every path
are checked equal.
"""
from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time

from uno_env import RuleSet

from train.arg_types import bounded_int
from train.errors import DOMAIN_ERRORS, error_message
from train.evaluation.tournament import MAX_GAMES, run_tournament, schedule
from train.scaleout.ray_session import require_ray
from train.scaleout.tournament import ray_runner

PROG = "python -m train.scaleout.bench"
#: Interleaved rounds at most (each plays the tournament four times, starting Ray twice).
MAX_ROUNDS = 100

PATHS = (("multiprocessing, 1 worker", None, 1), ("multiprocessing, 2 workers", None, 2),
         ("Ray, 1 local worker", "local", 1), ("Ray, 2 local workers", "local", 2))


def measure(games: int, rounds: int, agents: list[str], seed: int = 0) -> dict:
    """Seconds per path and round, Ray start-up seconds, and whether every path gave the same results."""
    ray = require_ray()
    rules = RuleSet.create("classic", 2)
    seconds = {name: [] for name, _, _ in PATHS}
    startup, summaries = [], []
    for _ in range(rounds):
        for name, address, workers in PATHS:
            if address is not None:
                start = time.perf_counter()
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
                startup.append(time.perf_counter() - start)
            try:
                with tempfile.TemporaryDirectory() as out:
                    start = time.perf_counter()
                    runner = None if address is None else ray_runner(address, num_cpus=workers)
                    summaries.append(run_tournament(rules, agents, games, seed, workers, progress=False, out_dir=out,
                                                    runner=runner))
                    seconds[name].append(time.perf_counter() - start)
            finally:
                if address is not None:
                    ray.shutdown()
    return {"seconds": seconds, "ray_startup": startup, "same_results": all(s == summaries[0] for s in summaries)}


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print a Markdown table; bad input: one line on stderr and status 2."""
    from train.arg_types import Parser
    from train.errors import EXIT_ERROR

    p = Parser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("--games", type=bounded_int(1, MAX_GAMES), default=600,
                   help=f"games per tournament, at most {MAX_GAMES:,}")
    p.add_argument("--rounds", type=bounded_int(1, MAX_ROUNDS), default=3,
                   help=f"interleaved rounds, at most {MAX_ROUNDS}")
    p.add_argument("--agents", nargs="+", default=["heuristic", "greedy", "random"], help="agent specs")
    p.add_argument("--json", help="also write the raw seconds here")
    args = p.parse_args(argv)
    try:
        _run(args)
    except DOMAIN_ERRORS as exc:
        print(f"{PROG}: error: {' '.join(error_message(exc).split())}", file=sys.stderr)
        return EXIT_ERROR
    return 0


def _run(args) -> None:
    result = measure(args.games, args.rounds, args.agents)
    games = len(schedule(len(args.agents), 2, args.games))  # rounded up to whole seat rotations
    print(f"{games} games of classic 2p ({', '.join(args.agents)}), {args.rounds} interleaved rounds; "
          f"same results on every path: {result['same_results']}")
    print("| path | games/s (median) | min | max |\n|---|---|---|---|")
    for name, secs in result["seconds"].items():
        rates = [games / s for s in secs]
        print(f"| {name} | {statistics.median(rates):.0f} | {min(rates):.0f} | {max(rates):.0f} |")
    print(f"Ray start-up (not in games/s): median {statistics.median(result['ray_startup']):.1f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({**result, "games": games}, fh, indent=2)


if __name__ == "__main__":
    sys.exit(main())
