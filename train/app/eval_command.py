"""``uno-env eval``: the command line of a seat-rotated tournament (``train/evaluation/tournament.py``)."""
from __future__ import annotations

import contextlib
import os
import shlex

from train.agent_specs import SPEC_FORMS
from train.app.cli import command_name
from train.arg_types import positive_int
from train.errors import EXIT_INTERRUPTED, UsageError
from train.evaluation.report import markdown, write_outputs
from train.evaluation.stream import STREAM_FILE, TournamentError, count_games
from train.evaluation.tournament import MAX_GAMES, check_games, check_run, run_tournament, schedule
from train.progress import DEFAULT_INTERVAL, add_progress_arguments
from train.rule_args import add_rule_arguments, rules_from_args
from train.scaleout import LOCAL, add_ray_argument


def add_parser(sub) -> None:
    """Register the ``eval`` sub-command."""
    p = sub.add_parser("eval", help="seat-rotated tournament with win rates and ratings",
                       description="Seat-rotated tournament with win rates, points and OpenSkill ratings. Every "
                                   f"finished game is kept in <out>/{STREAM_FILE}; --resume continues a tournament "
                                   "that was interrupted.")
    add_rule_arguments(p, players=2, players_help="seats at the table")
    p.add_argument("--agents", nargs="+", required=True, help=f"agent specs, two or more: {SPEC_FORMS}")
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
    """The ``uno-env eval`` command that continues this tournament (runnable as printed)."""
    cmd = [command_name(), "eval", "--variant", args.variant, "--players", str(args.players), "--agents", *args.agents,
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
                                 runner=_ray_runner(args))
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


def _ray_runner(args):
    """With ``--ray``: the runner that plays the games as Ray tasks (a local Ray gets ``--workers`` CPUs)."""
    if getattr(args, "ray", None) is None:
        return None
    from train.scaleout.tournament import ray_runner

    return ray_runner(args.ray, num_cpus=args.workers)
