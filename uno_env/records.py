"""Game records as JSON lines, and replay.

A record file holds one or more games. Each game is a header line, one line per decision, and an
outcome line:

    {"type": "game", "format": "uno-env-record", "version": 1, "rules": {...}, "seed": 7, "players": [...]}
    {"type": "action", "step": 0, "seat": 2, "phase": "TURN", "action": 13, "text": "play R+2"}
    ...
    {"type": "outcome", "winner": 1, "returns": [...], "round_points": [...], "scores": [...],
     "truncated": false, "blocked": false, "steps": 57}

The engine is deterministic, so ``Game(rules).new_state(seed)`` plus the actions reproduces every
state; ``replay`` checks each recorded seat and phase on the way and the outcome at the end.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import IO, Iterator

from .errors import UnoError
from .game import Game
from .rules import RuleSet
from .state import State

FORMAT = "uno-env-record"
VERSION = 1


class RecordError(UnoError):
    """A record that cannot be read, or that does not replay to what it says."""


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


def outcome_of(state: State) -> dict:
    """The outcome fields of a finished (or running) game."""
    return {"winner": state.winner, "returns": list(state.returns), "round_points": list(state.round_points),
            "scores": list(state.scores), "truncated": state.truncated, "blocked": state.blocked,
            "steps": state.steps}


def read_records(fh: IO[str]) -> Iterator[GameRecord]:
    """The games of a JSON-lines record file."""
    current: GameRecord | None = None
    for n, line in enumerate(fh, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"line {n}: not JSON ({exc})") from None
        kind = obj.get("type") if isinstance(obj, dict) else None
        if kind == "game":
            if obj.get("format") != FORMAT or obj.get("version") != VERSION:
                raise RecordError(f"line {n}: not an {FORMAT} v{VERSION} game header")
            if current is not None:
                yield current
            if not isinstance(obj.get("rules"), dict) or not isinstance(obj.get("seed"), int):
                raise RecordError(f"line {n}: a game header needs 'rules' (a mapping) and 'seed' (an int)")
            current = GameRecord(obj["rules"], obj["seed"], obj.get("players", []))
        elif kind in ("action", "outcome"):
            if current is None:
                raise RecordError(f"line {n}: {kind} before any game header")
            body = {k: v for k, v in obj.items() if k != "type"}
            if kind == "action":
                current.actions.append(body)
            else:
                current.outcome = body
        else:
            raise RecordError(f"line {n}: unknown line type {kind!r} (expected game, action or outcome)")
    if current is not None:
        yield current


def replay(record: GameRecord) -> Iterator[tuple[Game, State, dict | None]]:
    """Re-play a record: yields (game, state, action applied to reach it or None for the start)."""
    try:
        game = Game(RuleSet.from_dict(record.rules))
    except UnoError as exc:
        raise RecordError(f"record rules are not valid: {exc}") from None
    state = game.new_state(record.seed)
    yield game, state, None
    for i, a in enumerate(record.actions):
        if a.get("seat") != state.current_seat or a.get("phase") != state.phase.value:
            raise RecordError(f"action {i} ({a.get('text')!r}) was taken by P{a.get('seat')} in {a.get('phase')}, "
                              f"but the replay has P{state.current_seat} in {state.phase.value}")
        try:
            game.step(state, a["action"])
        except (UnoError, KeyError, TypeError) as exc:
            raise RecordError(f"action {i} ({a.get('text')!r}) does not replay: {exc}") from None
        yield game, state, a
    if record.outcome is not None and outcome_of(state) != record.outcome:
        raise RecordError(f"replay ended with {outcome_of(state)}, the record says {record.outcome}")
