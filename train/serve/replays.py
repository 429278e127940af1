"""The replay viewer's side of the server: records read from an upload or from the one allowed folder.

A record is replayed with ``uno_env.records.replay`` (which checks every recorded seat, phase and the
outcome); each frame is the whole table with every hand, for stepping forwards and backwards.
"""
from __future__ import annotations

import io
import os

from uno_env.errors import UnoError
from uno_env.records import RecordError, read_records, replay

from .session import RequestError, resolve_inside
from .view import result_json, table_view

MAX_RECORD_BYTES = 8 * 1024 * 1024
"""Largest record text the server replays."""

MAX_FRAMES = 20_000
"""Decisions of one game the viewer shows at most (each frame holds the whole table)."""

MAX_LISTED = 500
"""Record files listed from the folder at most."""


def list_records(folder: str | None) -> list[str]:
    """Paths (relative to ``folder``) of the ``.jsonl`` files under it, sorted; none without a folder."""
    if folder is None:
        return []
    root = os.path.realpath(folder)
    found = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".jsonl"):
                found.append(os.path.relpath(os.path.join(here, name), root))
                if len(found) >= MAX_LISTED:
                    return found
    return found


def read_folder_record(folder: str | None, relative) -> str:
    """The text of a record file under ``folder`` (RequestError: no folder, outside it, missing, too big)."""
    if folder is None:
        raise RequestError("this server opens no record files (start it with --folder DIR); upload a file instead",
                           403)
    path = resolve_inside(folder, relative)
    if not os.path.isfile(path):
        raise RequestError(f"no record file {relative!r} under {folder}", 404)
    if os.path.getsize(path) > MAX_RECORD_BYTES:
        raise RequestError(f"{relative!r} is larger than {MAX_RECORD_BYTES // 2**20} MB")
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except UnicodeDecodeError:
        raise RequestError(f"{relative!r} is not a text (JSON-lines) record file") from None


def replay_game(text, index) -> dict:
    """Every frame of game ``index`` of a JSON-lines record text, with the list of the file's games."""
    if not isinstance(text, str):
        raise RequestError("the record must be sent as text (the content of a JSON-lines file)")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_RECORD_BYTES:
        raise RequestError(f"the record is larger than {MAX_RECORD_BYTES // 2**20} MB")
    try:
        records = list(read_records(io.StringIO(text)))
    except RecordError as exc:
        raise RequestError(f"not a game record: {exc}") from None
    if not records:
        raise RequestError("the file holds no game records")
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(records):
        raise RequestError(f"game must be an int in 0..{len(records) - 1}, got {index!r}")
    games = [{"index": i, "variant": r.rules.get("variant"), "players": r.players, "seed": r.seed,
              "actions": len(r.actions)} for i, r in enumerate(records)]
    record = records[index]
    if len(record.actions) > MAX_FRAMES:
        raise RequestError(f"game {index} has {len(record.actions)} decisions; the viewer shows at most {MAX_FRAMES} "
                           "(uno-env replay prints any length)")
    frames = []
    try:
        for game, state, action in replay(record):
            names = [f"P{q} {record.players[q]}" if q < len(record.players) else f"P{q}"
                     for q in range(game.num_players)]
            caption = "start: dealt" if action is None else f"P{action['seat']} {action['text']}"
            frames.append({"step": state.steps, "text": caption, "view": table_view(game, state, None, names)})
    except (RecordError, UnoError) as exc:
        raise RequestError(f"game {index} does not replay: {exc}") from None
    return {"games": games, "game": index, "frames": frames, "result": result_json(game, state, None)}
