"""Golden results: every game the baseline agents play on a benchmark suite, kept so a change of outcome shows.

``python -m train.benchmark.golden`` plays ``random``, ``greedy`` and ``heuristic`` on every task of the
suite, the benchmark's own games (game ``i`` of a task dealt from ``seed + i``, the seat rotation of
``run_tournament``, each agent seeded as the tournament worker seeds it), on the Python engine (the
reference), and writes one file per task: ``tests/data/golden/<task>.json``. Per agent and game it keeps
the seed, the seating (agent index per seat: 0 is the agent, 1... the opponents), the winning seat (or
why there is none), the number of decisions, every seat's round points and a digest of the whole action
sequence. ``--check`` replays the files and names every game that differs (``--backend native``: on the
compiled core); tests/golden/test_golden_results.py does the same in the test suite. A deliberate change
of outcomes (rules, agents, the engine's randomness) regenerates the files in the same commit, and the
suite's references with them (docs/benchmark.md, Golden results).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from multiprocessing import get_context

import uno_env
from uno_env import Game, core
from uno_env.errors import RuleError, short_repr
from uno_env.observation import ObservationEncoder

from train.agent_specs import load_agent
from train.benchmark.suite import DEFAULT_SUITE, Suite, Task, get_suite
from train.errors import EXIT_ERROR, UsageError
from train.evaluation.stats import play_game
from train.evaluation.tournament import schedule
from train.json_input import read_json_object

GOLDEN_AGENTS = ("random", "greedy", "heuristic")
"""The agents whose games are kept: deterministic given their seed, and fast."""

GOLDEN_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "golden")
FORMAT = "uno-env-golden-games"
VERSION = 1
COMMAND = "python -m train.benchmark.golden"
COLUMNS = ("seed", "seating", "winner", "decisions", "round_points", "actions")
ACTIONS_DIGEST = ("the first 16 hex digits of the SHA-256 of the game's action ids in decimal, joined by commas "
                  "(ASCII, no spaces)")
NO_WINNER = ("truncated", "blocked", "none")
"""The winner column of a game without a winner: stopped at the step cap, a blocked round, or neither."""

#: Games one job plays (a worker process plays a task's games in such chunks, in order).
CHUNK = 100
#: Largest golden file read back (one is about 200 KB).
MAX_GOLDEN_BYTES = 8 << 20


def actions_digest(actions: list[int]) -> str:
    """The digest of an action sequence (``ACTIONS_DIGEST``: simple to compute in any language)."""
    return hashlib.sha256(",".join(map(str, actions)).encode("ascii")).hexdigest()[:16]


def play_golden_games(task: Task, agent: str, first: int, stop: int, backend: str | None = None) -> list[list]:
    """Games ``first`` to ``stop - 1`` of ``agent`` on ``task``: one row (``COLUMNS``) per game, in order.

    ``backend``: the engine (``python`` or ``native``, the compiled core); None: ``UNO_ENV_BACKEND``'s choice.
    """
    game = Game(task.rules(), backend=backend)
    encoder = ObservationEncoder(game)
    specs = task.lineup(agent)
    seatings = schedule(len(specs), task.players, task.games)
    rows = []
    for index in range(first, stop):
        seating = seatings[index]
        # seeded as train/evaluation/worker.py's play_job seeds a tournament's game (tested against it)
        policies = [load_agent(specs[a], game, seed=task.seed * 1_000_003 + index * 101 + seat)
                    for seat, a in enumerate(seating)]
        actions: list[int] = []

        def step(state, action, actions=actions):
            actions.append(int(action))
            return game.step(state, action)

        state = play_game(game, policies, task.seed + index, encoder, step=step)
        if state.winner is not None:
            winner = state.winner
        else:
            winner = "truncated" if state.truncated else "blocked" if state.blocked else "none"
        rows.append([task.seed + index, list(seating), winner, len(actions), [int(p) for p in state.round_points],
                     actions_digest(actions)])
    return rows


def _play_job(job: tuple[str, str, str, int, int, str | None]) -> list[list]:
    suite_name, task_id, agent, first, stop, backend = job
    task = next(t for t in get_suite(suite_name).tasks if t.task_id == task_id)
    return play_golden_games(task, agent, first, stop, backend)


def play_suite(suite: Suite, games: int | None = None, workers: int = 2,
               backend: str | None = None) -> dict[str, dict[str, list[list]]]:
    """``{task_id: {agent: rows}}``: the first ``games`` games (all if None) of every task and golden agent."""
    jobs = []
    for task in suite.tasks:
        count = task.games if games is None else min(games, task.games)
        for agent in GOLDEN_AGENTS:
            jobs += [(suite.name, task.task_id, agent, a, min(a + CHUNK, count), backend)
                     for a in range(0, count, CHUNK)]
    if workers <= 1:
        played = list(map(_play_job, jobs))
    else:
        with get_context("forkserver").Pool(workers) as pool:
            played = pool.map(_play_job, jobs, chunksize=1)
    out: dict[str, dict[str, list[list]]] = {}
    for (_, task_id, agent, *_), rows in zip(jobs, played):
        out.setdefault(task_id, {}).setdefault(agent, []).extend(rows)
    return out


def golden_path(task: Task, folder: str = GOLDEN_DIR) -> str:
    """The golden file of ``task`` in ``folder`` (named by the suite's task id, never by user input)."""
    return os.path.join(folder, f"{task.task_id}.json")


def agent_wins(rows: list[list]) -> int:
    """Games won by the agent under test (index 0 of the line-up)."""
    return sum(1 for _, seating, winner, *_ in rows if isinstance(winner, int) and seating[winner] == 0)


def golden_text(suite: Suite, task: Task, rows: dict[str, list[list]]) -> str:
    """A golden file's JSON: a header, then one game per line (a change shows as lines in a diff)."""
    head = {"format": FORMAT, "version": VERSION, "suite": suite.name, "uno_env_version": uno_env.__version__,
            "command": f"{COMMAND} --suite {suite.name}", "task": task.to_dict(), "columns": list(COLUMNS),
            "winner": f"the winning seat, or {', '.join(NO_WINNER)} (no winner)", "actions": ACTIONS_DIGEST}
    lines = [json.dumps(head, indent=1)[:-2] + ",", ' "agents": {']
    for n, agent in enumerate(GOLDEN_AGENTS):
        lines.append(f'  "{agent}": {{"wins": {agent_wins(rows[agent])}, "games": [')
        lines += ["   " + json.dumps(r, separators=(",", ":")) + ("," if i < len(rows[agent]) - 1 else "")
                  for i, r in enumerate(rows[agent])]
        lines.append("  ]}" + ("," if n < len(GOLDEN_AGENTS) - 1 else ""))
    lines += [" }", "}"]
    return "\n".join(lines) + "\n"


def write_golden(suite: Suite, played: dict[str, dict[str, list[list]]], folder: str = GOLDEN_DIR) -> list[str]:
    """Write every task's golden file into ``folder``; returns the paths."""
    from train import atomic

    os.makedirs(folder, exist_ok=True)
    paths = []
    for task in suite.tasks:
        paths.append(golden_path(task, folder))
        atomic.write_text(paths[-1], golden_text(suite, task, played[task.task_id]))
    return paths


class GoldenError(UsageError):
    """A golden file that is missing, damaged or made for another suite, task or format."""


def read_golden(suite: Suite, task: Task, folder: str = GOLDEN_DIR) -> dict[str, list[list]]:
    """``{agent: rows}`` of ``task``'s golden file; GoldenError (one line, with the command to regenerate) else."""
    path = golden_path(task, folder)
    fix = f"regenerate it: {COMMAND} --suite {suite.name}"
    schema = {"format": str, "version": int, "suite": str, "task": object,
              "agents": {agent: {"wins": int, "games": [object]} for agent in GOLDEN_AGENTS}}
    try:
        stored = read_json_object(path, "a golden results file", GoldenError, schema, MAX_GOLDEN_BYTES)
    except OSError as exc:
        raise GoldenError(f"{path}: cannot read the golden results of task {task.task_id} ({exc.strerror}); "
                          f"{fix}") from None
    except GoldenError as exc:
        raise GoldenError(f"{exc}; {fix}") from None
    if stored["format"] != FORMAT or stored["version"] != VERSION:
        raise GoldenError(f"{path}: format {short_repr(stored['format'])} version {short_repr(stored['version'])}, "
                          f"not {FORMAT} version {VERSION}; {fix}")
    if stored["suite"] != suite.name or stored["task"] != task.to_dict():
        raise GoldenError(f"{path}: made for suite {short_repr(stored['suite'])} task "
                          f"{short_repr(stored['task'])}, not {suite.name}'s task {task.task_id} as defined now; {fix}")
    return {agent: stored["agents"][agent]["games"] for agent in GOLDEN_AGENTS}


def differences(task: Task, agent: str, stored: list[list], played: list[list]) -> list[str]:
    """One line per game whose replay differs from its stored row: task, agent, game index, seed, what differed."""
    out = []
    for index, (old, new) in enumerate(zip(stored, played)):
        if old == new:
            continue
        where = f"task {task.task_id}, agent {agent}, game {index} (seed {task.seed + index})"
        if not isinstance(old, list) or len(old) != len(COLUMNS):
            out.append(f"{where}: the stored row {short_repr(old)} is not [{', '.join(COLUMNS)}]")
            continue
        changed = [f"{name} {short_repr(a)} -> {short_repr(b)}" for name, a, b in zip(COLUMNS, old, new) if a != b]
        out.append(f"{where}: {'; '.join(changed)} (stored -> replayed)")
    if len(stored) < len(played):
        out.append(f"task {task.task_id}, agent {agent}: {len(stored)} games stored, {len(played)} played")
    return out


def regenerate_advice(suite: Suite) -> str:
    """What a deliberate change of outcomes must do (said with every mismatch)."""
    return (f"if the change of outcomes is deliberate (rules, agents, the engine's randomness), regenerate the golden "
            f"files and the references in the same commit: {COMMAND} --suite {suite.name}; uno-env benchmark "
            f"--make-references --suite {suite.name} (docs/benchmark.md, Golden results)")


def check(suite: Suite, games: int | None = None, workers: int = 2, folder: str = GOLDEN_DIR,
          backend: str | None = None) -> list[str]:
    """Replay the first ``games`` games (all if None) of every task and agent; the differences (empty: all equal)."""
    stored = {task.task_id: read_golden(suite, task, folder) for task in suite.tasks}
    played = play_suite(suite, games, workers, backend)
    out = []
    for task in suite.tasks:
        for agent in GOLDEN_AGENTS:
            rows = played[task.task_id][agent]
            out += differences(task, agent, stored[task.task_id][agent][:len(rows)], rows)
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the golden files (or, with ``--check``, replay them); 0 when written or equal, 1 on a difference."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default=DEFAULT_SUITE, help=f"the suite (default {DEFAULT_SUITE})")
    parser.add_argument("--tasks", nargs="+", metavar="ID", help="only these tasks (default: every task)")
    parser.add_argument("--out", default=GOLDEN_DIR, help="the folder of the golden files (default tests/data/golden)")
    parser.add_argument("--workers", type=int, default=2, help="processes playing the games (default 2)")
    parser.add_argument("--check", action="store_true", help="replay the files instead of writing them")
    parser.add_argument("--games", type=int, help="with --check: the first N games of each task and agent only")
    parser.add_argument("--backend", choices=core.BACKENDS,
                        help="with --check: the engine to replay on (native: the compiled core, on the tasks it "
                             "covers; default: UNO_ENV_BACKEND's choice); the files are always written by the "
                             "Python engine")
    args = parser.parse_args(argv)
    try:
        suite = get_suite(args.suite)
        if args.tasks:
            suite = suite.only(args.tasks)
        if not 1 <= args.workers <= 64:
            raise UsageError(f"--workers must be from 1 to 64; got {args.workers}")
        if args.games is not None and (not args.check or args.games < 1):
            raise UsageError("--games N (1 or more) goes with --check: the files always hold every game")
        if args.backend and not args.check:
            raise UsageError("--backend goes with --check: the files are always written by the Python engine")
        if args.backend == "native":
            covered = [t.task_id for t in suite.tasks if core.covers(t.rules())]
            if not covered:
                raise UsageError(f"the compiled core covers none of the tasks {', '.join(suite.task_ids())}")
            print(f"the compiled core covers {len(covered)} of {len(suite.tasks)} tasks: {', '.join(covered)}")
            suite = suite.only(covered)
        if args.check:
            found = check(suite, args.games, args.workers, args.out, args.backend)
            for line in found:
                print(line)
            if found:
                print(regenerate_advice(suite))
                return 1
            print(f"golden results: every replayed game of {len(suite.tasks)} tasks x {len(GOLDEN_AGENTS)} agents "
                  "is as stored")
            return 0
        played = play_suite(suite, None, args.workers, backend="python")  # the reference the core is checked against
    except (UsageError, RuleError) as exc:
        print(f"{COMMAND}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    for path in write_golden(suite, played, args.out):
        print(f"wrote {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
