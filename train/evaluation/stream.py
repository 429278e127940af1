"""The games-played stream of a tournament: a header naming it, then one line per finished game.

Written as games finish (flushed line by line), so an interrupted tournament keeps every game it
played; ``--resume`` reads it back, checks it is the same tournament (rules, agents and the
fingerprints of their policy files, seed, games, recording) and hands back the games kept.
"""
from __future__ import annotations

import hashlib
import json
import os

import numpy as np

from agents.policy_file import PolicyFile

from .. import atomic
from ..errors import UsageError

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
        for w in policy.weights:
            h.update(str(w.shape).encode())
            h.update(np.ascontiguousarray(w, dtype=np.float32).tobytes())
        out[spec] = h.hexdigest()
    return out


def read_stream(path: str) -> tuple[dict | None, list[dict]]:
    """The header and the game lines of a stream; a torn last line (no newline: killed mid-write) is dropped."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    lines.pop()  # "" after the last newline, or a torn last line
    objs = []
    for n, line in enumerate(lines, 1):
        try:
            objs.append(json.loads(line))
        except ValueError:
            raise TournamentError(f"{path}: line {n} is damaged; delete the file to start over") from None
    header = objs[0] if objs and isinstance(objs[0], dict) and objs[0].get("format") == STREAM_FORMAT else None
    return header, objs[1:] if header else []


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
                out.append(f"{label}: {old.get(key)!r} then, {new.get(key)!r} now")
    return out


def open_stream(path: str, header: dict, seatings: list, resume: bool):
    """Games kept from an earlier run (``resume``) and the stream, rewritten with them, open for appending."""
    kept: dict[int, dict] = {}
    if os.path.exists(path):
        try:
            old, games = read_stream(path)
        except TournamentError:
            if resume:
                raise
            old, games = None, []  # not resuming: a damaged file is simply replaced
        if resume:
            if old is None:
                raise TournamentError(f"--resume: {path} is not a tournament's games-played file")
            diffs = _differences(old, header)
            if diffs:
                raise TournamentError(f"--resume: {path} belongs to another tournament ({'; '.join(diffs)}); run "
                                      f"the same command as before, or choose another --out to start a new one")
            for g in games:
                i = g.get("index") if isinstance(g, dict) else None
                if not isinstance(i, int) or not 0 <= i < len(seatings) or g.get("seating") != list(seatings[i]):
                    raise TournamentError(f"--resume: {path} holds a game that is not in this schedule ({g!r:.80}); "
                                          f"delete the file to start over")
                kept[i] = g
        elif old is not None and 0 < len(games) < old.get("games", 0):
            raise TournamentError(f"{path} holds {len(games):,} of {old['games']:,} games of an unfinished "
                                  f"tournament: add --resume to continue it, or delete the file (or choose "
                                  f"another --out) to start over")
    elif resume:
        print(f"eval: nothing to resume in {os.path.dirname(path) or '.'}; playing every game", flush=True)
    if kept:
        print(f"eval: resuming: {len(kept):,} of {len(seatings):,} games already played", flush=True)
    # rewrite what is kept (dropping a torn line), then append each game as it finishes
    with atomic.atomic_open(path) as fh:
        for obj in [header] + [kept[i] for i in sorted(kept)]:
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return kept, open(path, "a", encoding="utf-8")
