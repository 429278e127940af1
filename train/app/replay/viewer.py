"""``uno-env replay FILE``: print a recorded game step by step (and check it replays exactly).

The file is streamed (``uno_env.records.stream_records``): a game's decisions are printed as they are
read, ``--game N`` stops reading at game N, and a line longer than ``MAX_LINE_CHARS`` (1 MiB) is
refused after reading that much of it.
"""
from __future__ import annotations

from uno_env.errors import RuleError
from uno_env.records import MAX_LINE_CHARS, RecordError, RecordLineError, replay, stream_records

from train.app.play.demo import outcome_line, step_line
from train.errors import UsageError


def add_parser(sub) -> None:
    """Register the ``replay`` sub-command."""
    p = sub.add_parser("replay", help="print a recorded game step by step",
                       description="Print a recorded game step by step, checking that it replays exactly. "
                                   "The file is read as far as the game asked for; a line may hold at most "
                                   f"{MAX_LINE_CHARS:,} characters.")
    p.add_argument("file", help="JSON-lines record (from --record of play or eval, or the environments)")
    p.add_argument("--game", type=int, metavar="INDEX",
                   help="only this game of the file, 0-based (default: every game)")
    p.set_defaults(run=run)


def run(args) -> int:
    """Replay every (or one) game of the file, reading it no further than needed."""
    if args.game is not None and args.game < 0:
        raise UsageError(f"--game {args.game}: a game index is 0 or more")
    count = 0
    try:
        with open(args.file, encoding="utf-8") as fh:
            for i, rec in enumerate(stream_records(fh)):
                count = i + 1
                if args.game is not None and i != args.game:
                    continue  # its lines are skipped, not kept
                _print_game(args.file, i, rec)
                if args.game is not None:
                    break
    except UnicodeDecodeError:
        raise RecordError(f"{args.file} is not a text (JSON-lines) record file") from None
    except RecordLineError as exc:  # a missing file stays an OSError: the CLI names it
        raise RecordError(f"{args.file}: {exc}") from None
    if count == 0:
        raise RecordError(f"{args.file} holds no game records")
    if args.game is not None and args.game >= count:
        raise UsageError(f"--game {args.game}: the file has {count} game{'s' if count > 1 else ''} "
                         f"(0..{count - 1})")
    return 0


def _print_game(path: str, i: int, rec) -> None:
    state = None
    try:
        for game, state, action in replay(rec):
            if action is None:
                named = rec.players[:game.num_players] if isinstance(rec.players, list) else []
                players = ", ".join(f"P{q}={str(p)[:80]}" for q, p in enumerate(named)) or "players not named"
                print(f"game {i}: {game.rules.variant}, {game.num_players} players, seed {rec.seed}; {players}")
            else:
                print(step_line(game, state, action["seat"], action["phase"], str(action.get("text", ""))[:200]))
    except RecordLineError:  # the file, not this game: named by the caller with the line
        raise
    except (RecordError, RuleError) as exc:
        raise RecordError(f"{path}: game {i}: {exc}") from None
    print(outcome_line(state))
