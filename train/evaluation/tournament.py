"""``uno-env eval``: seat-rotated tournaments with win rates, points and OpenSkill ratings.

Schedule: every combination of ``players`` agents out of the field (with fewer agents than seats,
every shift of the repeating pattern 0,1,..,0,1..) is played in every ordering around the table
(up to 5 seats; beyond, every rotation in both directions), and the whole cycle repeats until
``games`` is reached (rounded up to a full cycle): every agent gets the same number of games in
every seat, and as often sits before as after each other agent. Game ``i`` is seeded from
``seed + i`` and its agents from ``(seed, i, seat)``, so results are identical for any worker count.

Outputs in ``--out``: ``results.json``, ``results.md`` and ``ratings.png`` (``report.py``);
``--record DIR`` keeps every game as JSON lines.

Long tournaments: each finished game's result is appended to ``<out>/games-played.jsonl`` as it
finishes (``stream.py``: a header line naming the tournament, then one line per game).
``--resume`` reads it back, checks it belongs to the same tournament (rules, agents and their policy
files, seed, games, recording), plays only the missing games and gives exactly the results of an
uninterrupted run. A damaged row of the file (not JSON, missing or ill-typed fields, a game not in
the schedule, a second row of one game) is dropped with a warning naming its line, and its game is
played again.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import shlex
from multiprocessing import get_context

from uno_env import Game, RuleSet
from uno_env.errors import short_repr

from .. import atomic
from ..agent_specs import load_agent
from ..arg_types import positive_int
from ..errors import EXIT_INTERRUPTED, UsageError
from ..progress import DEFAULT_INTERVAL, Progress, add_progress_arguments
from ..rule_args import add_rule_arguments, rules_from_args
from ..scaleout import LOCAL, add_ray_argument
from .report import markdown, summarise, write_outputs
from .stream import (STREAM_FILE, STREAM_FORMAT, STREAM_VERSION, TournamentError, count_games, fingerprints,
                     open_stream)
from .worker import init_worker, play_job


def schedule(num_agents: int, players: int, games: int) -> list[tuple[int, ...]]:
    """Seatings (agent index per seat) for ``games`` games or more, balanced over agents, seats and order."""
    if num_agents >= players:
        tables = list(itertools.combinations(range(num_agents), players))
    else:  # fewer agents than seats: every shift of the repeating pattern, so all agents fill as many seats
        tables = [tuple((i + j) % num_agents for i in range(players)) for j in range(num_agents)]
    if players <= 5:
        # every ordering: each agent sits before and after each other agent equally often
        cycle = [p for t in tables for p in dict.fromkeys(itertools.permutations(t))]
    else:
        # rotations in both directions (all orderings would be too many): seats and neighbours on
        # either side are balanced, distant neighbours less so
        cycle = [u[r:] + u[:r] for t in tables for u in dict.fromkeys((t, t[::-1])) for r in range(players)]
    reps = max(1, math.ceil(games / len(cycle)))
    return cycle * reps


#: Games a tournament may schedule (its schedule and results are kept in memory: about 1 KB a game).
MAX_GAMES = 1_000_000
#: Worker processes a tournament may start.
MAX_WORKERS = 256


def check_games(games: int) -> None:
    """Refuse a game count below one or above ``MAX_GAMES``."""
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise TournamentError(f"--games must be a whole number of games, 1 or more (at most {MAX_GAMES:,}); "
                              f"got {short_repr(games)}")


def check_run(seed: int, workers: int) -> None:
    """Refuse a seed the engine cannot deal from (below 0) and more than ``MAX_WORKERS`` worker processes."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise TournamentError(f"--seed must be a whole number, 0 or more; got {short_repr(seed)}")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise TournamentError(f"--workers must be 1 or more (at most {MAX_WORKERS}); got {short_repr(workers)}")


def run_tournament(rules: RuleSet, specs: list[str], games: int, seed: int = 0, workers: int = 2,
                   record_dir: str | None = None, progress: bool = True, out_dir: str | None = None,
                   resume: bool = False, progress_interval: float = DEFAULT_INTERVAL,
                   ray_address: str | None = None) -> dict:
    """Play the schedule and compute every statistic.

    With ``out_dir`` every finished game is appended to ``<out_dir>/games-played.jsonl``; with
    ``resume`` too, the games already there are kept and only the missing ones are played.
    With ``ray_address`` the games are played as Ray tasks (``train/scaleout/tournament.py``):
    the same results.
    """
    check_games(games)
    check_run(seed, workers)
    game = Game(rules)
    # fail fast, in the parent, on a bad spec or a policy that does not fit
    loaded = {spec: load_agent(spec, game) for spec in dict.fromkeys(specs)}
    seatings = schedule(len(specs), rules.num_players, games)
    record = record_dir is not None
    jobs = [(i, seed, tuple(s), record) for i, s in enumerate(seatings)]
    kept: dict[int, dict] = {}
    with contextlib.ExitStack() as stack:
        sink = None
        if out_dir:
            header = {"type": "tournament", "format": STREAM_FORMAT, "version": STREAM_VERSION,
                      "rules": rules.to_dict(), "agents": list(specs), "policies": fingerprints(loaded),
                      "seed": seed, "games": len(seatings), "record": record}
            kept, sink = open_stream(os.path.join(out_dir, STREAM_FILE), header, seatings, resume)
            stack.enter_context(sink)
        todo = [job for job in jobs if job[0] not in kept]
        if ray_address is not None:
            from ..scaleout import session
            from ..scaleout.tournament import run_jobs as run_ray_jobs

            with session(ray_address, num_cpus=workers):
                played = run_ray_jobs(rules, specs, todo, loaded, progress, sink, total=len(jobs),
                                      progress_interval=progress_interval)
        else:
            played = _run_jobs(rules, specs, todo, workers, progress, sink, total=len(jobs),
                               progress_interval=progress_interval)
        results = list(kept.values()) + played
    results.sort(key=lambda r: r["index"])
    if record_dir:
        with atomic.atomic_open(os.path.join(record_dir, "games.jsonl")) as fh:
            for r in results:
                for obj in r.pop("record"):
                    fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
    for r in results:
        r.pop("record", None)
    return summarise(rules, specs, results)


def _run_jobs(rules: RuleSet, specs: list[str], jobs: list, workers: int, progress: bool, sink=None,
              total: int | None = None, progress_interval: float = DEFAULT_INTERVAL) -> list[dict]:
    total = len(jobs) if total is None else total
    bar = Progress("eval", total, "games", initial=total - len(jobs), enabled=progress, interval=progress_interval)
    results = []
    with contextlib.ExitStack() as stack:
        stack.callback(bar.close)
        if not jobs:
            return results
        if workers <= 1:
            init_worker(rules.to_dict(), specs)
            played = map(play_job, jobs)
        else:
            pool = stack.enter_context(get_context("forkserver").Pool(workers, init_worker,
                                                                      (rules.to_dict(), specs)))
            played = pool.imap(play_job, jobs, chunksize=8)
        for r in played:
            if sink is not None:  # one line per game, flushed: a killed run keeps every finished game
                sink.write(json.dumps(r, ensure_ascii=False) + "\n")
                sink.flush()
            results.append(r)
            bar.update(1)
    return results


def add_parser(sub) -> None:
    """Register the ``eval`` sub-command."""
    p = sub.add_parser("eval", help="seat-rotated tournament with win rates and ratings",
                       description="Seat-rotated tournament with win rates, points and OpenSkill ratings. Every "
                                   f"finished game is kept in <out>/{STREAM_FILE}; --resume continues a tournament "
                                   "that was interrupted.")
    add_rule_arguments(p, players=2, players_help="seats at the table")
    p.add_argument("--agents", nargs="+", required=True, help="agent specs, two or more (random, greedy, heuristic, "
                   "pretrained:<name>, path/to/policy, e.g. runs/<name>/policy)")
    p.add_argument("--games", type=int, default=1000, help=f"games to play, 1 to {MAX_GAMES:,}; rounded up to "
                   "whole seat rotations (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="game i is dealt from seed + i (default: %(default)s)")
    p.add_argument("--workers", type=positive_int, default=2, help="processes; results do not depend on it "
                   "(default: %(default)s)")
    p.add_argument("--out", default="eval-results", help="directory for results.json, results.md, ratings.png and "
                   f"{STREAM_FILE} (default: %(default)s)")
    p.add_argument("--resume", action="store_true", help=f"continue the tournament whose {STREAM_FILE} is in "
                   "--out: play only the games it is missing (same command otherwise)")
    p.add_argument("--record", help="directory to keep every game as JSON lines")
    add_progress_arguments(p)
    add_ray_argument(p, "the games as Ray tasks (same results; a local Ray gets --workers CPUs)")
    p.set_defaults(run=run)


def resume_command(args) -> str:
    """The ``uno-env eval`` command that continues this tournament."""
    cmd = ["uno-env", "eval", "--variant", args.variant, "--players", str(args.players), "--agents", *args.agents,
           "--games", str(args.games), "--seed", str(args.seed), "--workers", str(args.workers), "--out", args.out]
    if args.record:
        cmd += ["--record", args.record]
    if getattr(args, "ray", None) is not None:
        cmd += ["--ray"] + ([] if args.ray == LOCAL else [args.ray])
    for option in args.option:
        cmd += ["--option", option]
    return shlex.join(cmd + ["--resume"])


def run(args) -> int:
    """CLI entry (status 130 after Ctrl-C, with the command that resumes)."""
    if len(args.agents) < 2:
        raise UsageError("give at least two agents")
    check_games(args.games)
    check_run(args.seed, args.workers)
    rules = rules_from_args(args)
    scheduled = len(schedule(len(args.agents), rules.num_players, args.games))
    if scheduled != args.games:
        print(f"eval: --games {args.games:,} rounded up to {scheduled:,} so every seat rotation is played equally",
              flush=True)
    try:
        summary = run_tournament(rules, args.agents, args.games, args.seed, args.workers, args.record,
                                 progress=not args.no_progress, out_dir=args.out, resume=args.resume,
                                 progress_interval=getattr(args, "progress_interval", DEFAULT_INTERVAL),
                                 ray_address=getattr(args, "ray", None))
    except KeyboardInterrupt:
        path = os.path.join(args.out, STREAM_FILE)
        played = 0
        with contextlib.suppress(OSError, TournamentError):
            played = count_games(path)
        print(f"\neval: interrupted; {played:,} of {scheduled:,} games kept in {path}", flush=True)
        print(f"eval: resume with: {resume_command(args)}", flush=True)
        return EXIT_INTERRUPTED
    paths = write_outputs(summary, args.out)
    print(markdown(summary))
    print("wrote " + ", ".join(paths + [os.path.join(args.out, STREAM_FILE)]))
    return 0
