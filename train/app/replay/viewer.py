"""``uno-env replay FILE``: print a recorded game step by step (and check it replays exactly).

Each game starts, as ``uno-env demo`` does, with the dealer, every starting hand and the starter. The
file is streamed (``uno_env.records.stream_records``): a game's decisions are printed as they are
read, ``--game N`` stops reading at game N, and a line longer than ``MAX_LINE_CHARS`` (1 MiB) is
refused after reading that much of it.

A game cut before its outcome line (a crash while writing, a partial copy) is printed as far as it
goes and ends with an ``unfinished record`` line instead of an outcome; the file is damaged input, so
once every game asked for is printed the command fails (exit status 2), naming the unfinished games.
"""
from __future__ import annotations

from uno_env.errors import RuleError
from uno_env.records import MAX_LINE_CHARS, RecordError, RecordLineError, replay, stream_records, unfinished

from train.app.play.demo import colour_text, outcome_line, step_line
from train.errors import UsageError


def add_parser(sub) -> None:
    """Register the ``replay`` sub-command."""
    p = sub.add_parser("replay", help="print a recorded game step by step",
                       description="Print a recorded game step by step, from the starting hands, checking that "
                                   "it replays exactly. The file is read as far as the game asked for; a line may "
                                   f"hold at most {MAX_LINE_CHARS:,} characters. A game cut before its outcome line "
                                   "is printed as far as it goes and marked unfinished, and the command then exits "
                                   "with status 2. A tournament's games-played.jsonl holds no decisions: replay the "
                                   "games.jsonl of uno-env eval --record DIR.")
    p.add_argument("file", help="JSON-lines record (from play --record FILE, eval --record DIR (DIR/games.jsonl), "
                                "the browser's saved games, or the environments' record=)")
    p.add_argument("--game", type=int, metavar="INDEX",
                   help="only this game of the file, 0-based (default: every game)")
    p.set_defaults(run=run)


def run(args) -> int:
    """Replay every (or one) game of the file, reading it no further than needed."""
    if args.game is not None and args.game < 0:
        raise UsageError(f"--game {args.game}: a game index is 0 or more")
    count, cut = 0, []
    try:
        with open(args.file, encoding="utf-8") as fh:
            for i, rec in enumerate(stream_records(fh)):
                count = i + 1
                if args.game is not None and i != args.game:
                    continue  # its lines are skipped, not kept
                if not _print_game(args.file, i, rec):
                    cut.append(i)
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
    if cut:
        games = f"game {cut[0]} is" if len(cut) == 1 else f"games {', '.join(map(str, cut[:10]))} are"
        raise RecordError(f"{args.file}: {games} unfinished: the record does not reach the game's end (a file cut "
                          "short while it was written or copied?)")
    return 0


def _print_game(path: str, i: int, rec) -> bool:
    """Print one game: its start, every decision and its outcome; False for an unfinished record."""
    state = None
    try:
        for game, state, action in replay(rec):
            if action is None:
                _print_start(i, rec, game, state)
            else:
                print(step_line(game, state, action["seat"], action["phase"], str(action.get("text", ""))[:200]))
    except RecordLineError:  # the file, not this game: named by the caller with the line
        raise
    except (RecordError, RuleError) as exc:
        raise RecordError(f"{path}: game {i}: {exc}") from None
    if state.is_over:
        print(outcome_line(state))
    cut = unfinished(rec, state)
    if cut is not None:  # instead of an outcome: it would say "blocked" of a game that is only cut short
        print(f"\n{cut}")
    return cut is None


def _print_start(i: int, rec, game, state) -> None:
    """The game's header, dealer, starting hands and starter (as ``uno-env demo`` prints them)."""
    named = rec.players[:game.num_players] if isinstance(rec.players, list) else []
    players = ", ".join(f"P{q}={str(p)[:80]}" for q, p in enumerate(named)) or "players not named"
    print(f"game {i}: {game.rules.variant}, {game.num_players} players, seed {rec.seed}; {players}; "
          f"dealer P{state.dealer}")
    for seat in range(game.num_players):
        print(f"  P{seat}: {' '.join(game.hand_cards(state, seat))}")
    spec = game.to_spec(state)
    print(f"  starter {spec['discard'][-1]} (colour {colour_text(spec['colour'])})\n")
