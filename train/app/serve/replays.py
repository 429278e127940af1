"""The replay viewer's side of the server: records read from an upload or from the one allowed folder.

A record is replayed with ``uno_env.records.replay`` (which checks every recorded seat, phase and the
outcome); each frame is the whole table with every hand. An answer holds one page of frames (at most
``REPLAY_PAGE_FRAMES`` frames and about ``REPLAY_PAGE_BYTES`` of them) with the game's frame count and
where the next page starts; the viewer asks for the next page as it steps past the loaded frames.

A record is someone else's file: its rules may not name a file (a deck manifest: refused before anything
is opened, ``uno_env.records.replay(read_files=False)``), its size and its frames are bounded, a replay
runs in a worker thread that stops at its next frame once its client goes away (``cancelled``), and a
record file is read only under the server's folder, only if it is a regular file.
"""
from __future__ import annotations

import io
import json
import os
import stat
import threading

from uno_env.errors import UnoError, short_repr
from uno_env.records import RecordError, outcome_of, read_records, replay, unfinished

from train.app.serve.session import RequestError, resolve_inside
from train.app.serve.view import result_json, table_view

MAX_RECORD_BYTES = 8 * 1024 * 1024
"""Largest record text the server replays."""

MAX_FRAMES = 20_000
"""Decisions of one game the viewer shows at most."""

REPLAY_PAGE_FRAMES = 300
"""Frames of a game one replay answer holds at most."""

REPLAY_PAGE_BYTES = 1_000_000
"""Size of the frames one replay answer holds at most (a page ends at the first frame that reaches it)."""

MAX_LISTED = 500
"""Record files listed from the folder at most."""

MAX_GAMES_LISTED = 1000
"""Games of one record file the first page lists at most (``game_count`` says how many it holds)."""

NAME_CHARS = 40
"""Characters of a recorded player's name the viewer shows."""

MAX_MESSAGE_CHARS = 300
"""Characters of an error message about a record's content shown at most (it may quote the record)."""

_SEPARATORS = (",", ":")


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
    """The text of a record file under ``folder`` (RequestError: no folder, outside it, missing, not a regular
    file, too big, unreadable; no OS error text reaches the client)."""
    if folder is None:
        raise RequestError("this server opens no record files (start it with --folder DIR); upload a file instead",
                           403)
    path = resolve_inside(folder, relative)
    missing = RequestError(f"no record file {short_repr(relative)} under {folder}", 404)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device is not even opened
            raise missing
        # without blocking, and checked again once open: a FIFO swapped in meanwhile opens at once, unread
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        raise missing from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise missing
        if info.st_size > MAX_RECORD_BYTES:
            raise RequestError(f"{short_repr(relative)} is larger than {MAX_RECORD_BYTES // 2**20} MB")
        try:
            raw = fh.read(MAX_RECORD_BYTES + 1)
        except OSError:
            raise RequestError(f"{short_repr(relative)} cannot be read") from None
    if len(raw) > MAX_RECORD_BYTES:  # it grew while being read
        raise RequestError(f"{short_repr(relative)} is larger than {MAX_RECORD_BYTES // 2**20} MB")
    try:
        return io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8").read()  # any line ending, as open() reads
    except UnicodeDecodeError:
        raise RequestError(f"{short_repr(relative)} is not a text (JSON-lines) record file") from None


def replay_request(folder: str | None, data, cancelled: threading.Event | None = None) -> dict:
    """The answer to a replay request ``{text | path, game, start, count}`` (run in a worker thread: reading a
    file and replaying a game take a while); ``cancelled`` set: it stops at the next game or frame."""
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object {\"text\": ...} or {\"path\": ...}")
    text = data.get("text") if "text" in data else read_folder_record(folder, data.get("path"))
    return replay_game(text, data.get("game", 0), data.get("start", 0), data.get("count"), cancelled)


def _check_cancelled(cancelled: threading.Event | None) -> None:
    if cancelled is not None and cancelled.is_set():
        raise RequestError("the replay was cancelled: its client went away")


def _count(value, name: str, low: int, high: int | None = None, default: int | None = None) -> int:
    """A request's integer field in ``low..high``; RequestError otherwise."""
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise RequestError(f"{name} must be an int {bound}, got {short_repr(value)}")
    return value


def _cut(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE_CHARS else message[:MAX_MESSAGE_CHARS] + "..."


def _name(players, q: int) -> str:
    """Seat ``q``'s label from a record's (untrusted) ``players`` list, shortened."""
    player = players[q] if isinstance(players, list) and q < len(players) else None
    if player is None:
        return f"P{q}"
    text = player if isinstance(player, str) else short_repr(player, NAME_CHARS)
    return f"P{q} {text[:NAME_CHARS]}"


def _summary(index: int, record) -> dict:
    """One game of a file as the viewer lists it (every field shortened: a record is untrusted)."""
    variant = record.rules.get("variant")
    seed = record.seed
    players = record.players if isinstance(record.players, list) else []
    return {"index": index, "variant": variant[:NAME_CHARS] if isinstance(variant, str) else short_repr(variant),
            "players": [_name(players, q).split(" ", 1)[-1] for q in range(min(len(players), 10))],
            "seed": seed if -2**63 <= seed < 2**64 else short_repr(seed), "actions": len(record.actions),
            "unfinished": record.outcome is None}


def replay_result(game, state, record) -> dict:
    """How a replayed game ended. A record that stops before its game's end (``unfinished``: cut before its
    outcome line) says so in ``text``; the fields are the replay's own (a game still running is neither
    blocked nor truncated), so none contradicts the text."""
    cut = unfinished(record, state)
    if not state.is_over:
        return {**outcome_of(state), "text": cut, "unfinished": True}
    result = result_json(game, state, None)
    if cut is not None:  # the game is over, but the record lacks its outcome line
        result["text"] = f"{result['text']} ({cut})"
    return {**result, "unfinished": cut is not None}


def replay_game(text, index=0, start=0, count=None, cancelled: threading.Event | None = None) -> dict:
    """One page of the frames of game ``index`` of a JSON-lines record text: ``count`` frames (at most
    ``REPLAY_PAGE_FRAMES``, and about ``REPLAY_PAGE_BYTES``) from frame ``start``.

    The answer: ``game``, ``start``, ``frames``, ``total`` (the game's frames), ``next`` (the next page's
    start, or None) and ``result``; the first page (``start`` 0) also lists the file's games (``games``, at
    most ``MAX_GAMES_LISTED``) and counts them (``game_count``). A later page reads the file only up to the
    game asked for. ``result`` of a record cut before its outcome line (``unfinished`` true) says so in its
    ``text``; ``cancelled`` set (the client went away): RequestError at the next game or frame."""
    if not isinstance(text, str):
        raise RequestError("the record must be sent as text (the content of a JSON-lines file)")
    if len(text) > MAX_RECORD_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_RECORD_BYTES:
        raise RequestError(f"the record is larger than {MAX_RECORD_BYTES // 2**20} MB")
    index = _count(index, "game", 0, default=0)
    start = _count(start, "start", 0, default=0)
    count = _count(count, "count", 1, REPLAY_PAGE_FRAMES, default=REPLAY_PAGE_FRAMES)
    games, record, found = [], None, 0
    try:
        for i, r in enumerate(read_records(io.StringIO(text))):  # one game at a time: the others are not kept
            _check_cancelled(cancelled)
            found = i + 1
            if start == 0 and len(games) < MAX_GAMES_LISTED:
                games.append(_summary(i, r))
            if i == index:
                record = r
                if start > 0:  # a later page: the viewer already has the list of games
                    break
    except RequestError:  # cancelled
        raise
    except RecordError as exc:
        raise RequestError(_cut(f"not a game record: {exc}")) from None
    except (ValueError, RecursionError) as exc:  # a line nested too deeply, or an int of too many digits
        raise RequestError(_cut(f"not a game record: a line is not JSON this server reads ({exc})")) from None
    if found == 0:
        raise RequestError("the file holds no game records")
    if record is None:
        raise RequestError(f"game must be an int in 0..{found - 1}, got {index}")
    if len(record.actions) > MAX_FRAMES:
        raise RequestError(f"game {index} has {len(record.actions)} decisions; the viewer shows at most {MAX_FRAMES} "
                           "(uno-env replay prints any length)")
    if isinstance(record.seed, bool) or record.seed < 0:
        raise RequestError(f"game {index} does not replay: its seed must be a non-negative int")
    total = len(record.actions) + 1
    if start >= total:
        raise RequestError(f"start must be an int in 0..{total - 1} (game {index} has {total} frames), got {start}")
    frames, size, stop, names = [], 0, start + count, None
    try:
        for i, (game, state, action) in enumerate(replay(record, read_files=False)):  # the outcome is checked too
            _check_cancelled(cancelled)
            if not start <= i < stop:
                continue
            if names is None:
                names = [_name(record.players, q) for q in range(game.num_players)]
            caption = "start: dealt" if action is None else _cut(f"P{action['seat']} {action['text']}")
            frame = {"step": state.steps, "text": caption, "view": table_view(game, state, None, names)}
            frames.append(frame)
            size += len(json.dumps(frame, separators=_SEPARATORS))
            if size >= REPLAY_PAGE_BYTES:
                stop = i + 1
    except RequestError:  # cancelled
        raise
    except (RecordError, UnoError, ValueError, TypeError, KeyError, AttributeError, IndexError,
            OverflowError, RecursionError) as exc:  # a record is untrusted: whatever it holds, it does not replay
        raise RequestError(_cut(f"game {index} does not replay: {exc}")) from None
    out = {"game": index, "start": start, "frames": frames, "total": total,
           "next": start + len(frames) if start + len(frames) < total else None,
           "result": replay_result(game, state, record)}
    if start == 0:
        out.update(games=games, game_count=found)
    return out
