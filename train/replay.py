"""``uno-env replay FILE``: print a recorded game step by step (and check it replays exactly)."""
from __future__ import annotations

from uno_env.records import RecordError, read_records, replay

from .demo import outcome_line, step_line


def add_parser(sub) -> None:
    """Register the ``replay`` sub-command."""
    p = sub.add_parser("replay", help="print a recorded game step by step")
    p.add_argument("file", help="JSON-lines record (from --record, the envs or uno-env play)")
    p.add_argument("--game", type=int, help="only this game of the file (0-based)")
    p.set_defaults(run=run)


def run(args) -> int:
    """Replay every (or one) game of the file."""
    try:
        with open(args.file, encoding="utf-8") as fh:
            records = list(read_records(fh))
    except FileNotFoundError:
        raise SystemExit(f"replay: no file {args.file!r}") from None
    except RecordError as exc:
        raise SystemExit(f"replay: {args.file}: {exc}") from None
    chosen = range(len(records)) if args.game is None else [args.game]
    for i in chosen:
        if not 0 <= i < len(records):
            raise SystemExit(f"replay: the file has {len(records)} games (0..{len(records) - 1})")
        rec = records[i]
        players = ", ".join(f"P{q}={p}" for q, p in enumerate(rec.players)) or "players not named"
        print(f"game {i}: {rec.rules['variant']}, {rec.rules['num_players']} players, seed {rec.seed}; {players}")
        state = None
        try:
            for game, state, action in replay(rec):
                if action is not None:
                    print(step_line(game, state, action["seat"], action["phase"], action["text"]))
        except RecordError as exc:
            raise SystemExit(f"replay: game {i}: {exc}") from None
        print(outcome_line(state))
    return 0
