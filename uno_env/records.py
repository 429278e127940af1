"""Game records as JSON lines, and replay.

A record file holds one or more games. Each game is a header line, one line per decision, and an
outcome line:

    {"type": "game", "format": "uno-env-record", "version": 1, "rules": {...}, "seed": 7, "players": [...]}
    {"type": "action", "step": 0, "seat": 2, "phase": "TURN", "action": 13, "text": "play R+2"}
    ...
    {"type": "outcome", "winner": 1, "returns": [...], "round_points": [...], "scores": [...],
     "truncated": false, "blocked": false, "steps": 57}

Reading is lazy and bounded: ``read_records`` and ``stream_records`` read a game only when the
iteration reaches it, and a line may hold at most ``MAX_LINE_CHARS`` (1 MiB) characters.

The engine is deterministic, so ``Game(rules).new_state(seed)`` plus the actions reproduces every
state; ``replay`` checks each recorded seat and phase on the way and the outcome at the end. A game
without its outcome line (a crash while writing, a partial copy) replays as far as it goes and is
``unfinished``. A record's rules may name a file (a deck manifest: ``file_options``); ``replay`` with
``read_files=False`` refuses such a record before anything is opened.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import IO, Iterator

from .errors import UnoError, short_repr
from .game import Game
from .options import Option
from .rules import RuleSet
from .state import State
from .variants import VARIANTS

FORMAT = "uno-env-record"
VERSION = 1


class RecordError(UnoError):
    """A record that cannot be read, or that does not replay to what it says."""


class RecordLineError(RecordError):
    """A line of a record file that cannot be read (too long, not JSON, not a record line); names its number."""


@dataclass
class GameRecord:
    """One recorded game."""

    rules: dict
    seed: int
    players: list = field(default_factory=list)
    actions: list = field(default_factory=list)   # dicts: step, seat, phase, action, text
    outcome: dict | None = None

    def lines(self) -> list[dict]:
        """The JSON objects of this game, in file order."""
        head = {"type": "game", "format": FORMAT, "version": VERSION, "rules": self.rules, "seed": self.seed,
                "players": self.players}
        tail = [{"type": "outcome", **self.outcome}] if self.outcome is not None else []
        return [head] + [{"type": "action", **a} for a in self.actions] + tail

    def write(self, fh: IO[str]) -> None:
        """Append this game to an open text file."""
        for obj in self.lines():
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")


class Recorder:
    """Records the decisions of one game as they are taken."""

    def __init__(self, game: Game, seed: int, players: list | None = None, path: str | None = None):
        self.game = game
        self.path = path
        self.record = GameRecord(game.rules.to_dict(), int(seed), list(players or []))

    def step(self, state: State, action: int) -> None:
        """Apply ``action`` with the game and log it (a rejected action raises and is not logged).

        With a ``path``, the finished game is appended to that JSON-lines file when it ends.
        """
        action = int(action)
        entry = {"step": state.steps, "seat": state.current_seat, "phase": state.phase.value, "action": action}
        text = self.game.action_to_string(action, state) if 0 <= action < self.game.num_actions else ""
        self.game.step(state, action)
        entry["text"] = text
        self.record.actions.append(entry)
        if self.path is not None and state.is_over:
            append_record(self.path, self.finish(state))

    def finish(self, state: State) -> GameRecord:
        """Log the outcome; returns the complete record."""
        self.record.outcome = outcome_of(state)
        return self.record


def append_record(path: str, record: GameRecord) -> None:
    """Append one game to a JSON-lines file."""
    with open(path, "a", encoding="utf-8") as fh:
        record.write(fh)


def names_a_file(variant: str, option: Option) -> bool:
    """Whether a rule option's value may name a file the engine reads: the variant's deck manifest option, or
    any option taking free text (no fixed choices), which could hold a path."""
    return option.key == VARIANTS[variant].deck_option or (option.type is str and option.choices is None)


def file_options(rules: RuleSet) -> dict:
    """The rule options of ``rules`` that name a file, each with the default that names none; only those set
    to something else (a default such as ``proposed`` is the packaged data)."""
    return {o.key: o.default for o in VARIANTS[rules.variant].options
            if names_a_file(rules.variant, o) and rules.options.get(o.key, o.default) != o.default}


def unfinished(record: GameRecord, state: State) -> str | None:
    """Why a replayed record does not show how its game ended, or None: a record cut before its outcome line (a
    crash while writing, a partial copy), or one whose outcome line comes while the game still runs. Ask once
    ``replay`` is done with it."""
    decisions = f"{state.steps} decision{'' if state.steps == 1 else 's'}"
    if record.outcome is None:
        return f"unfinished record: it stops after {decisions}, before the game's outcome line"
    if not state.is_over:
        return f"unfinished record: its outcome line comes after {decisions}, before the game is over"
    return None


def outcome_of(state: State) -> dict:
    """The outcome fields of a finished (or running) game."""
    return {"winner": state.winner, "returns": list(state.returns), "round_points": list(state.round_points),
            "scores": list(state.scores), "truncated": state.truncated, "blocked": state.blocked,
            "steps": state.steps}


#: Characters one line of a record file may hold (1 MiB). A decision's line has about a hundred; the
#: longest real line, a game header with its rule set, a few thousand. A longer line is refused
#: after reading at most this much of it, so a file without line breaks is never read whole.
MAX_LINE_CHARS = 1 << 20


def read_lines(fh: IO[str], max_chars: int = MAX_LINE_CHARS) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a text file, each read with a bounded ``readline`` (or of an iterable of lines).

    A line longer than ``max_chars`` raises ``RecordError`` (its first ``max_chars`` characters are all that is
    read of it). The last line may lack its newline.
    """
    if hasattr(fh, "readline"):
        lines = iter(lambda: fh.readline(max_chars + 1), "")
    else:  # any iterable of lines (e.g. ``text.splitlines(keepends=True)``), already in memory
        lines = iter(fh)
    for n, line in enumerate(lines, start=1):
        if len(line) > max_chars:
            raise RecordLineError(f"line {n} is longer than {max_chars:,} characters, the most a record line may hold")
        yield n, line


def _objects(fh: IO[str]) -> Iterator[tuple[int, str, dict]]:
    """``(line number, type, object)`` of each non-blank line of a record file, checked line by line."""
    for n, line in read_lines(fh):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise RecordLineError(f"line {n}: not JSON ({_clip(str(exc))})") from None
        kind = obj.get("type") if isinstance(obj, dict) else None
        if kind == "game":
            if obj.get("format") != FORMAT or obj.get("version") != VERSION:
                raise RecordLineError(f"line {n}: not an {FORMAT} v{VERSION} game header")
            if not isinstance(obj.get("rules"), dict) or isinstance(obj.get("seed"), bool) \
                    or not isinstance(obj.get("seed"), int):
                raise RecordLineError(f"line {n}: a game header needs 'rules' (a mapping) and 'seed' (an int)")
        elif kind == "tournament":  # uno-env eval's games-played.jsonl: results, no decisions to replay
            raise RecordLineError(f"line {n}: this is a tournament's games-played stream (uno-env eval --out), "
                                  "not a game record; a tournament run with --record DIR keeps its games in "
                                  "DIR/games.jsonl, which replays")
        elif kind not in ("action", "outcome"):
            raise RecordLineError(f"line {n}: unknown line type {short_repr(kind)} (expected game, action or outcome)")
        yield n, kind, obj


def stream_records(fh: IO[str]) -> Iterator[GameRecord]:
    """The games of a JSON-lines record file, read lazily: nothing past the game being read is touched.

    Each record's ``actions`` is a one-pass iterator that reads the game's lines from ``fh`` as it is
    consumed (its ``outcome`` is set once the outcome line is read); taking the next record skips, without
    keeping, whatever is left of the one before. Stop iterating at the game you want and the rest of the
    file is never read.
    """
    lines = _objects(fh)
    pending = next(lines, None)
    while pending is not None:
        n, kind, obj = pending
        if kind != "game":
            raise RecordLineError(f"line {n}: {kind} before any game header")
        record = GameRecord(obj["rules"], obj["seed"], obj.get("players", []))
        box = [None]  # the line after this game, once its actions have been read

        def actions(record=record, box=box):
            for item in lines:
                if item[1] == "game":
                    box[0] = item
                    return
                body = {k: v for k, v in item[2].items() if k != "type"}
                if item[1] == "action":
                    yield body
                else:
                    record.outcome = body

        steps = actions()
        record.actions = steps
        yield record
        for _ in steps:  # skip what the caller left of this game
            pass
        pending = box[0]


def read_records(fh: IO[str]) -> Iterator[GameRecord]:
    """The games of a JSON-lines record file, one at a time, each with its ``actions`` as a list.

    Lazy: a game is read only when the iteration reaches it, so stopping early leaves the rest of the
    file unread. Lines are bounded by ``MAX_LINE_CHARS``.
    """
    for record in stream_records(fh):
        record.actions = list(record.actions)
        yield record


def replay(record: GameRecord, read_files: bool = True) -> Iterator[tuple[Game, State, dict | None]]:
    """Re-play a record: yields (game, state, action applied to reach it or None for the start).

    ``record.actions`` may be a list or a one-pass iterator (``stream_records``); errors repeat only short
    prefixes of what the record holds. ``read_files=False`` (a record from someone else): rules that name a
    file (``file_options``) are refused before any file is opened, whatever the file is or whether it exists.
    A record without its outcome line replays as far as it goes (``unfinished`` says so).
    """
    try:
        rules = RuleSet.from_dict(record.rules)
    except UnoError as exc:
        raise RecordError(f"record rules are not valid: {_clip(str(exc))}") from None
    named = file_options(rules) if not read_files else {}
    if named:
        raise RecordError(f"record rules name a file (rule option {', '.join(map(repr, named))}): a replay here "
                          f"reads no files a record names; allowed: "
                          f"{', '.join(f'{k}={v}' for k, v in named.items())}")
    try:
        game = Game(rules)
    except UnoError as exc:
        raise RecordError(f"record rules are not valid: {_clip(str(exc))}") from None
    try:
        state = game.new_state(record.seed)
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. a negative seed
        raise RecordError(f"record seed {short_repr(record.seed)} cannot deal a game: {_clip(str(exc))}") from None
    yield game, state, None
    for i, a in enumerate(record.actions):
        if a.get("seat") != state.current_seat or a.get("phase") != state.phase.value:
            raise RecordError(f"action {i} ({short_repr(a.get('text'))}) was taken by P{short_repr(a.get('seat'))} "
                              f"in {short_repr(a.get('phase'))}, but the replay has P{state.current_seat} in "
                              f"{state.phase.value}")
        try:
            game.step(state, a["action"])
        except (UnoError, KeyError, TypeError) as exc:
            raise RecordError(f"action {i} ({short_repr(a.get('text'))}) does not replay: "
                              f"{_clip(str(exc))}") from None
        yield game, state, a
    if record.outcome is not None and outcome_of(state) != record.outcome:
        raise RecordError(f"replay ended with {short_repr(outcome_of(state), 300)}, the record says "
                          f"{short_repr(record.outcome, 300)}")


def _clip(text: str, limit: int = 300) -> str:
    """``text`` cut to ``limit`` characters (an error message repeating what a record holds)."""
    return text if len(text) <= limit else text[:limit] + "..."
