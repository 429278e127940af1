"""The games-played stream of a tournament: a header naming it, then one line per finished game.

Written as games finish (flushed line by line), so an interrupted tournament keeps every game it
played; ``--resume`` reads it back, checks it is the same tournament (rules, agents and the
fingerprints of their policy files, seed, games, recording) and hands back the games kept. A
damaged row is dropped with a warning naming its line and its game is played again (``open_stream``).
"""
from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np

from agents.policy_file import PolicyFile
from uno_env.errors import short_repr

from train import atomic
from train.errors import UsageError

STREAM_FILE = "games-played.jsonl"
STREAM_FORMAT = "uno-env-tournament-stream"
STREAM_VERSION = 1


class TournamentError(UsageError):
    """A tournament that cannot be run or resumed as asked (a game count, a stream of another tournament)."""


def fingerprints(loaded: dict) -> dict[str, str]:
    """SHA-256 of each policy agent's weights and metadata: a retrained file is another tournament."""
    out = {}
    for spec, agent in loaded.items():
        policy = getattr(agent, "policy", None)
        if not isinstance(policy, PolicyFile):  # a user's agent may keep something else under that name
            continue
        h = hashlib.sha256(json.dumps(policy.metadata, sort_keys=True, default=str).encode())
        for w in [*policy.weights, *([] if policy.action_features is None else [policy.action_features])]:
            h.update(str(w.shape).encode())
            h.update(np.ascontiguousarray(w, dtype=np.float32).tobytes())
        out[spec] = h.hexdigest()
    return out


#: Characters one line of the stream may hold (16 MiB): a game's row is a few hundred bytes, with
#: ``--record`` its record lines too (a few hundred KB at the default step cap). A longer line is
#: damaged: read no further than this, dropped, and its game played again.
MAX_STREAM_LINE_CHARS = 16 * 2**20
#: Damaged lines a resume names one by one; the rest are counted in one more line.
MAX_WARNINGS = 10
#: Card points a row may give a seat (a game's points are a few hundred; beyond this the row is damaged).
MAX_POINTS = 10**9
#: The fields of a game's row, in the order the workers write them (``worker.play_job``).
ROW_FIELDS = ("index", "seating", "winner", "round_points", "hand_points", "truncated", "record")


def _lines(path: str):
    """``(line number, object or None, problem)`` per line, read with a bounded ``readline``.

    A torn last line (no newline: killed mid-write) is left out; a line that is too long, not UTF-8
    or not JSON comes with ``None`` and what is wrong with it.
    """
    with open(path, "rb") as fh:
        n = 0
        while True:
            raw = fh.readline(MAX_STREAM_LINE_CHARS + 1)
            if not raw:
                return
            n += 1
            if len(raw) > MAX_STREAM_LINE_CHARS:
                while raw and not raw.endswith(b"\n"):  # skip the rest of the line, a bounded piece at a time
                    raw = fh.readline(MAX_STREAM_LINE_CHARS + 1)
                yield n, None, f"longer than {MAX_STREAM_LINE_CHARS:,} characters"
                continue
            if not raw.endswith(b"\n"):
                return  # torn
            try:
                yield n, json.loads(raw.decode("utf-8")), ""
            except UnicodeDecodeError:
                yield n, None, "not UTF-8 text"
            except (ValueError, RecursionError):
                yield n, None, "not JSON"


def read_stream(path: str) -> tuple[dict | None, list[dict]]:
    """The header and the game lines that are JSON objects (a torn last line and damaged ones are left out)."""
    header, games = None, []
    for n, obj, _ in _lines(path):
        if n == 1:
            header = obj if isinstance(obj, dict) and obj.get("format") == STREAM_FORMAT else None
            if header is None:
                return None, []
        elif isinstance(obj, dict):
            games.append(obj)
    return header, games


def count_games(path: str) -> int:
    """Game lines of a stream that are JSON objects (what an interrupted tournament kept), counted as read."""
    count = 0
    for n, obj, _ in _lines(path):
        if n == 1 and not (isinstance(obj, dict) and obj.get("format") == STREAM_FORMAT):
            return 0
        count += n > 1 and isinstance(obj, dict)
    return count


def check_row(obj, seatings: list, record: bool) -> tuple[dict | None, str]:
    """A game's row as the schedule and ``record`` expect it (its fields in order), or None and what is wrong."""
    if not isinstance(obj, dict):
        return None, "not a game's row (a JSON object)"
    i = obj.get("index")
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(seatings):
        return None, f"game index {short_repr(i)} is not in this schedule (0..{len(seatings) - 1})"
    seats = len(seatings[i])
    if obj.get("seating") != list(seatings[i]):
        return None, f"game {i}'s seating {short_repr(obj.get('seating'))} is not the schedule's {list(seatings[i])}"
    winner = obj.get("winner")
    if winner is not None and (isinstance(winner, bool) or not isinstance(winner, int) or not 0 <= winner < seats):
        return None, f"game {i}: 'winner' = {short_repr(winner)} is not a seat 0..{seats - 1} or null"
    for key in ("round_points", "hand_points"):
        value = obj.get(key)
        if not (isinstance(value, list) and len(value) == seats
                and all(isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) <= MAX_POINTS
                        for x in value)):  # (NaN and infinities fail the comparison)
            return None, f"game {i}: {key!r} = {short_repr(value)} is not a list of {seats} numbers"
    if not isinstance(obj.get("truncated"), bool):
        return None, f"game {i}: 'truncated' = {short_repr(obj.get('truncated'))} is not true or false"
    if record and not (isinstance(obj.get("record"), list) and all(isinstance(x, dict) for x in obj["record"])):
        return None, f"game {i}: its record (--record) is missing or not a list of record lines"
    if not record and "record" in obj:
        return None, f"game {i}: a record in a tournament without --record"
    return {key: obj[key] for key in ROW_FIELDS if key in obj}, ""


def _differences(old: dict, new: dict) -> list[str]:
    what = {"rules": "rules (--variant, --players, --option)", "agents": "agents", "policies": "policy files",
            "seed": "seed", "games": "number of games (after rounding up to whole seat rotations)",
            "record": "recording (--record)", "version": "stream version"}
    out = []
    for key, label in what.items():
        if old.get(key) != new.get(key):
            if key in ("rules", "policies"):
                out.append(f"{label} differ" + (" (a policy file changed since)" if key == "policies" else ""))
            else:
                out.append(f"{label}: {short_repr(old.get(key))} then, {short_repr(new.get(key))} now")
    return out


def open_stream(path: str, header: dict, seatings: list, resume: bool):
    """Games kept from an earlier run (``resume``) and the stream, rewritten with them, open for appending.

    Resuming keeps every row that is a game of this schedule with all its fields; a damaged row (not
    JSON, too long, missing or ill-typed fields, a game index or seating not in the schedule) is
    dropped with a warning naming its line, and its game is played again; a second row of the same
    game is dropped too (no game counts twice). A torn last line is dropped silently.
    """
    kept: dict[int, dict] = {}
    if os.path.exists(path):
        lines = _lines(path)
        first = next(lines, None)
        old = first[1] if first is not None and isinstance(first[1], dict) \
            and first[1].get("format") == STREAM_FORMAT else None
        if resume:
            if old is None:
                raise TournamentError(f"--resume: {path} is not a tournament's games-played file (its first line is "
                                      "not a tournament header); delete it or choose another --out to start over")
            diffs = _differences(old, header)
            if diffs:
                raise TournamentError(f"--resume: {path} belongs to another tournament ({'; '.join(diffs)}); run "
                                      f"the same command as before, or choose another --out to start a new one")
            _keep_rows(path, lines, seatings, bool(header.get("record")), kept)
        elif old is not None:
            played = sum(1 for _, obj, _ in lines if isinstance(obj, dict))
            total = old.get("games")
            if isinstance(total, int) and not isinstance(total, bool) and 0 < played < total:
                raise TournamentError(f"{path} holds {played:,} of {total:,} games of an unfinished "
                                      f"tournament: add --resume to continue it, or delete the file (or choose "
                                      f"another --out) to start over")
    elif resume:
        print(f"eval: nothing to resume in {os.path.dirname(path) or '.'}; playing every game", flush=True)
    if kept:
        print(f"eval: resuming: {len(kept):,} of {len(seatings):,} games already played", flush=True)
    # rewrite what is kept (dropping torn and damaged lines), then append each game as it finishes
    with atomic.atomic_open(path) as fh:
        for obj in [header] + [kept[i] for i in sorted(kept)]:
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return kept, open(path, "a", encoding="utf-8")


def _keep_rows(path: str, lines, seatings: list, record: bool, kept: dict[int, dict]) -> None:
    """Fill ``kept`` with the usable rows of ``lines``; warn (on stderr) about each one dropped."""
    first_line: dict[int, int] = {}
    dropped = 0
    for n, obj, problem in lines:
        row, problem = check_row(obj, seatings, record) if not problem else (None, problem)
        if row is not None and row["index"] in kept:
            row, problem = None, f"game {row['index']} again (kept from line {first_line[row['index']]})"
        if row is None:
            dropped += 1
            if dropped <= MAX_WARNINGS:
                print(f"eval: warning: {path}: line {n}: {problem}; dropped (the game is played again if it is "
                      "missing)", file=sys.stderr, flush=True)
            continue
        kept[row["index"]] = row
        first_line[row["index"]] = n
    if dropped > MAX_WARNINGS:
        print(f"eval: warning: {path}: {dropped - MAX_WARNINGS:,} more damaged lines dropped", file=sys.stderr,
              flush=True)
