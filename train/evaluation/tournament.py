"""Seat-rotated tournaments with win rates, points and OpenSkill ratings (``uno-env eval``: ``train/app/eval_command.py``).

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
from multiprocessing import get_context
from typing import Callable

from uno_env import Game, RuleSet
from uno_env.errors import short_repr

from train import atomic
from train.agent_specs import load_agent
from train.evaluation.report import summarise
from train.evaluation.stream import (
    STREAM_FILE,
    STREAM_FORMAT,
    STREAM_VERSION,
    TournamentError,
    fingerprints,
    open_stream,
)
from train.evaluation.worker import init_worker, play_job
from train.progress import DEFAULT_INTERVAL, Progress

#: Plays a tournament's games somewhere else than the local process pool:
#: ``runner(rules, specs, jobs, loaded, progress, sink, total, progress_interval)`` -> one result per job
#: (``train.scaleout.tournament.ray_runner`` plays them as Ray tasks).
JobRunner = Callable[..., list]


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
                   runner: JobRunner | None = None) -> dict:
    """Play the schedule and compute every statistic.

    With ``out_dir`` every finished game is appended to ``<out_dir>/games-played.jsonl``; with
    ``resume`` too, the games already there are kept and only the missing ones are played.
    With a ``runner`` the games are played by it, for example as Ray tasks
    (``train.scaleout.tournament.ray_runner``): the same results.
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
        if runner is not None:
            played = runner(rules, specs, todo, loaded, progress, sink, total=len(jobs),
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
