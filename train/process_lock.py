"""A lock file holding a process id: one process at a time trains a budget seed or an exploit run.

``check(path, busy)`` refuses (a UsageError line, ``busy(holder's process id)``) when a running
process holds ``path``; a lock left by a process that died is stale and taken over. ``holding(path)``
then writes this process's id there for the duration of a ``with`` block, and removes it after.
Two processes started within the same instant can still both pass ``check``: the lock guards
against a run started twice, not a true tie.
"""
from __future__ import annotations

import contextlib
import os
from typing import Callable

from uno_env.errors import short_repr

from train.errors import UsageError

#: Bytes a lock file may hold (a process id has at most 20 digits).
MAX_LOCK_BYTES = 64


def pid_running(pid: int) -> bool:
    """Whether a process with this id runs on this machine."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError, ValueError):  # (no process has an id too large for a pid_t)
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


def check(path: str, busy: Callable[[str], str]) -> None:
    """Refuse when another running process holds ``path`` (``busy(pid)``: what it is doing and what to do)."""
    if not os.path.exists(path):
        return
    with open(path, "rb") as fh:
        text = fh.read(MAX_LOCK_BYTES + 1).decode("ascii", "replace").strip()
    if len(text) > 20 or text and not (text.isascii() and text.isdigit()):
        raise UsageError(f"{path} does not hold a process id (it starts {short_repr(text[:40])}); delete that file "
                         "if no other process uses this directory")
    if text and 0 < int(text) != os.getpid() and pid_running(int(text)):
        raise UsageError(busy(text))


@contextlib.contextmanager
def holding(path: str):
    """Write this process's id to ``path`` (replacing a stale lock) while the block runs; remove it after."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)  # stale: ``check`` refused a live holder
    with open(path, "x", encoding="utf-8") as fh:  # "x" never overwrites a lock written in between
        fh.write(str(os.getpid()))
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
