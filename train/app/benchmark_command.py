"""``uno-env benchmark``: the command line of the task suite, the sample-budget protocol and the leaderboard.

Four modes, one command (docs/benchmark.md):

- ``--agent SPEC``: play the suite (``runner.py``), write ``results.json`` and ``results.md`` to
  ``--out`` and print the table. ``--games-per-task`` and ``--tasks`` make a smoke run, marked as
  not comparable with official numbers.
- ``--leaderboard DIR...``: one Markdown table from several runs' results (``leaderboard.py``),
  printed and, with ``--write FILE``, written (with the sample-budget runs' learning curves in one
  figure beside it, ``FILE`` without its suffix + ``-curves.png``).
- ``--make-references``: play ``random`` and ``heuristic`` on the suite and rewrite its reference
  win rates (``suite.py``: ``references/<suite>.json``), which fix every task's normalised score.
- ``--train CONFIG --budget N --seeds K``: the sample-budget protocol for learning algorithms
  (``budget.py``): train the config per seed, save the policy at every budget and curve point, score
  each on the tasks it can play; ``results.json``, ``results.md``, ``curve.csv``, ``curve.png``.
"""
from __future__ import annotations

import os

from train import atomic
from train.agent_specs import SPEC_FORMS
from train.arg_types import MAX_COUNT, bounded_int
from train.benchmark import budget, budget_report
from train.benchmark.leaderboard import budget_runs_of, leaderboard_markdown, read_results
from train.benchmark.runner import (
    build_results,
    measure_references,
    results_markdown,
    run_suite,
    write_references,
    write_results,
)
from train.benchmark.suite import DEFAULT_SUITE, SUITES, get_suite
from train.errors import EXIT_INTERRUPTED, UsageError
from train.evaluation.tournament import MAX_GAMES as MAX_GAMES_PER_TASK
from train.evaluation.tournament import MAX_WORKERS
from train.progress import add_progress_arguments


def add_parser(sub) -> None:
    """Register the ``benchmark`` sub-command."""
    p = sub.add_parser("benchmark", help="an agent on the versioned task suite: win rates, normalised IQM, "
                                         "leaderboard",
                       description="Play an agent on every task of a versioned benchmark suite (variants and "
                                   "player counts against heuristic opponents, fixed seeds), train a config "
                                   "under a sample budget over several seeds and score its policies (--train), "
                                   "or build a leaderboard from several runs. See docs/benchmark.md.")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--agent", metavar="SPEC", help=f"agent to measure: {SPEC_FORMS}")
    mode.add_argument("--leaderboard", nargs="+", metavar="RESULTS_DIR",
                      help="build a Markdown leaderboard from these runs' results.json (and uno-env exploit's exploit.json: a best-response column and section)")
    mode.add_argument("--make-references", action="store_true",
                      help="play random and heuristic on the suite and rewrite its reference win rates "
                           "(train/benchmark/references/<suite>.json)")
    mode.add_argument("--train", metavar="CONFIG", help="sample-budget protocol: train this config "
                      "(configs/train/*.yaml or a shipped config's name; any algo: ppo, sb3, dqn, nfsp, dmc or "
                      "module:callable) for --budget decisions with --seeds seeds and score the policy at every "
                      "budget and learning-curve point")
    p.add_argument("--suite", default=DEFAULT_SUITE, help=f"task suite: {', '.join(SUITES)}")
    p.add_argument("--workers", type=bounded_int(1, MAX_WORKERS), default=2,
                   help=f"processes, 1 to {MAX_WORKERS}; results do not depend on it")
    p.add_argument("--out", help="directory for results.json, results.md and every task's games-played stream "
                   "(games/<task>/); default benchmark-results, with --train benchmark-results/budget-<config name>")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out: finished games "
                   "are kept (same command otherwise); with --train a re-run always continues")
    p.add_argument("--games-per-task", type=bounded_int(1, MAX_GAMES_PER_TASK), metavar="N",
                   help=f"smoke run: N games per task (at most {MAX_GAMES_PER_TASK:,}), rounded up to whole seat "
                   "rotations; not comparable with official numbers. With --train: the "
                   f"games per task of the learning-curve points (default {budget.DEFAULT_CURVE_GAMES}; not official)")
    p.add_argument("--budget", action="append", metavar="DECISIONS", help="with --train: a training budget in "
                   f"environment decisions, e.g. 1M (at most {budget.MAX_DECISIONS:,}); repeat for several, up to "
                   f"{budget.MAX_BUDGETS} (the protocol: --budget 1M --budget 10M)")
    # (--seeds and --points below their range are refused by budget.make_plan, in the protocol's words)
    p.add_argument("--seeds", type=bounded_int(-MAX_COUNT, budget.MAX_SEEDS), metavar="K", help=f"with --train: train "
                   f"seeds 0..K-1, K at most {budget.MAX_SEEDS} (official numbers need {budget.OFFICIAL_SEEDS} or "
                   "more)")
    p.add_argument("--only-seed", type=bounded_int(0, budget.MAX_SEEDS - 1), metavar="S",
                   help="with --train: train and score only seed S of "
                   "0..K-1, to run seeds side by side (one process each, same --out); the summary is written "
                   "when the last seed is done")
    p.add_argument("--points", type=bounded_int(-MAX_COUNT, budget.MAX_POINTS), metavar="P", help="with --train: "
                   f"learning-curve points, evenly spaced up to the largest budget, at most {budget.MAX_POINTS} "
                   f"(default {budget.DEFAULT_POINTS})")
    p.add_argument("--budget-games-per-task", type=bounded_int(1, MAX_GAMES_PER_TASK), metavar="N",
                   help="with --train, smoke run: N games per task at the budget points too (default: the suite's "
                   "official count); not official")
    p.add_argument("--tasks", nargs="+", metavar="TASK_ID", help="smoke run: only these tasks; not comparable "
                   "with official numbers")
    p.add_argument("--write", metavar="FILE", help="with --leaderboard: also write the table to FILE, e.g. "
                   "docs/leaderboard.md (and, when sample-budget runs are given, their learning curves in one "
                   "figure beside it: docs/leaderboard-curves.png)")
    add_progress_arguments(p)
    p.set_defaults(run=run)


def run(args) -> int:
    """CLI entry: run the mode the flags choose."""
    if args.write and not args.leaderboard:
        raise UsageError("--write goes with --leaderboard")
    train_flags = [flag for flag, value in (("--budget", args.budget), ("--seeds", args.seeds),
                                            ("--points", args.points), ("--only-seed", args.only_seed),
                                            ("--budget-games-per-task", args.budget_games_per_task))
                   if value is not None]
    if train_flags and not args.train:
        raise UsageError(f"{', '.join(train_flags)} go{'es' if len(train_flags) == 1 else ''} with --train CONFIG")
    if args.train:
        return _train(args)
    if args.leaderboard:
        return _leaderboard(args)
    suite = get_suite(args.suite)
    if args.make_references:
        if args.games_per_task or args.tasks:
            raise UsageError("--make-references measures the official suite: drop --games-per-task and --tasks")
        return _references(args, suite)
    args.out = args.out or "benchmark-results"
    if args.tasks:
        suite = suite.only(args.tasks)
    if args.games_per_task:
        suite = suite.with_games_per_task(args.games_per_task)
        print(f"benchmark: smoke run with {args.games_per_task:,} games per task (rounded up to whole seat "
              "rotations): not comparable with official numbers", flush=True)
    try:
        rows = run_suite(suite, args.agent, args.workers, out_dir=args.out, resume=args.resume,
                         progress=not args.no_progress, progress_interval=args.progress_interval)
    except KeyboardInterrupt:
        print(f"\nbenchmark: interrupted; finished games are kept in {os.path.join(args.out, 'games')}; "
              "continue with the same command and --resume", flush=True)
        return EXIT_INTERRUPTED
    results = build_results(suite, args.agent, rows)
    paths = write_results(results, args.out)
    print(results_markdown(results))
    print("wrote " + ", ".join(paths))
    return 0


def _train(args) -> int:
    """The sample-budget protocol: train, save and score every point, write and print the summary."""
    if args.tasks:
        raise UsageError("--train scores the tasks its config can play: drop --tasks")
    plan = budget.make_plan(args.train, args.budget, args.seeds, get_suite(args.suite), args.out, args.points,
                            args.games_per_task, args.budget_games_per_task)
    try:
        results = budget.run_protocol(plan, args.workers, progress=not args.no_progress,
                                      progress_interval=args.progress_interval, only_seed=args.only_seed)
    except KeyboardInterrupt:
        print(f"\nbenchmark: interrupted; trained seeds and scored points are kept in {plan.out_dir} "
              f"({budget.interrupted_seed_fate(plan)}); continue with the same command", flush=True)
        return EXIT_INTERRUPTED
    if results is None:
        left = budget.seeds_to_run(plan)
        print(f"benchmark: seed {args.only_seed} is trained and scored in {plan.out_dir}; seed"
              f"{'s' if len(left) > 1 else ''} {', '.join(map(str, left))} still to run (with --only-seed, "
              "or the same command without it); the summary is written when the last is done", flush=True)
        return 0
    print(budget_report.markdown(results), end="")
    written = [os.path.join(plan.out_dir, name) for name in budget_report.FILES]
    print("wrote " + ", ".join(path for path in written if os.path.exists(path)))
    return 0


def _leaderboard(args) -> int:
    if args.games_per_task or args.tasks or args.resume:
        raise UsageError("--leaderboard reads finished runs: drop --games-per-task, --tasks and --resume")
    runs = [read_results(path) for path in args.leaderboard]
    budget_runs = budget_runs_of(runs)
    curves = os.path.splitext(args.write)[0] + "-curves.png" if args.write and budget_runs else None
    if args.write:  # the figure first: the page links it only when it was drawn (matplotlib is optional)
        os.makedirs(os.path.dirname(args.write) or ".", exist_ok=True)
        curves = budget_report.plot_curves(budget_runs, curves) if curves else None
    table = leaderboard_markdown(runs, os.path.basename(curves) if curves else None)
    print(table, end="")
    if args.write:
        written = [curves] if curves else []
        atomic.write_text(args.write, table)
        print(f"wrote {', '.join([args.write, *written])}")
    return 0


def _references(args, suite) -> int:
    references = measure_references(suite, args.workers, progress=not args.no_progress,
                                     progress_interval=args.progress_interval)
    path = write_references(references, suite.references_path())
    for task_id, row in references["tasks"].items():
        print(f"{task_id}: random {row['random']['win_rate']:.1%}, heuristic {row['heuristic']['win_rate']:.1%}")
    print(f"wrote {path}")
    return 0
