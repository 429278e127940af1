"""``uno-env replay FILE``: print a recorded game step by step (and check it replays exactly)."""
from __future__ import annotations

from uno_env.errors import RuleError
from uno_env.records import RecordError, read_records, replay

from ..errors import UsageError
from ..play.demo import outcome_line, step_line


def add_parser(sub) -> None:
    """Register the ``replay`` sub-command."""
    p = sub.add_parser("replay", help="print a recorded game step by step",
                       description="Print a recorded game step by step, checking that it replays exactly.")
    p.add_argument("file", help="JSON-lines record (from --record of play or eval, or the environments)")
    p.add_argument("--game", type=int, metavar="INDEX",
                   help="only this game of the file, 0-based (default: every game)")
    p.set_defaults(run=run)


def run(args) -> int:
    """Replay every (or one) game of the file."""
    try:
        with open(args.file, encoding="utf-8") as fh:
            records = list(read_records(fh))
    except UnicodeDecodeError:
        raise RecordError(f"{args.file} is not a text (JSON-lines) record file") from None
    except RecordError as exc:  # a missing file stays an OSError: the CLI names it
        raise RecordError(f"{args.file}: {exc}") from None
    if not records:
        raise RecordError(f"{args.file} holds no game records")
    if args.game is not None and not 0 <= args.game < len(records):
        raise UsageError(f"--game {args.game}: the file has {len(records)} game{'s' if len(records) > 1 else ''} "
                         f"(0..{len(records) - 1})")
    chosen = range(len(records)) if args.game is None else [args.game]
    for i in chosen:
        rec = records[i]
        players = ", ".join(f"P{q}={p}" for q, p in enumerate(rec.players)) or "players not named"
        print(f"game {i}: {rec.rules['variant']}, {rec.rules['num_players']} players, seed {rec.seed}; {players}")
        state = None
        try:
            for game, state, action in replay(rec):
                if action is not None:
                    print(step_line(game, state, action["seat"], action["phase"], action["text"]))
        except (RecordError, RuleError) as exc:
            raise type(exc)(f"{args.file}: game {i}: {exc}") from None
        print(outcome_line(state))
    return 0
