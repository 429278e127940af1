"""Atomic file writes: write a temporary file in the destination's folder, then ``os.replace`` it.

A reader (or a resumed run after a crash or Ctrl-C) sees either the old file or the new one, never
a half-written one. Temporary names start with ``.`` and end with ``.tmp`` so that nothing scanning
a folder for ``step_<N>.zip`` or ``*.json`` mistakes a leftover for the real thing.

A write that fails or is interrupted removes its temporary file; one killed outright (SIGKILL, the
out-of-memory killer, a power cut) cannot, and leaves it: as large as the file it was writing, GBs
for a learner's replay memory. So each name holds its writer's process id (``TEMP_NAME``), and
``remove_orphans`` removes those of writers no longer running; the trainers call it on their run's
``checkpoints/`` when a run starts or resumes and before each checkpoint.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile

# mkstemp creates files readable by their owner only; the files written here get the usual mode
_UMASK = os.umask(0)
os.umask(_UMASK)


#: A temporary file of this module: ``.<name>.<writer's process id>.<mkstemp's 8 characters>.tmp``, or the
#: ``.npz`` / ``.json`` that ``save_policy`` writes under such a name. (Those of versions before the process id
#: was in the name do not match: whether their writer still runs cannot be told.)
TEMP_NAME = re.compile(r"\..+\.(?P<pid>[1-9][0-9]{0,9})\.[a-z0-9_]{8}\.tmp(?:\.npz|\.json)?")


def _make_temp(folder: str, name: str) -> tuple[int, str]:
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.{os.getpid()}.", suffix=".tmp")
    os.chmod(tmp, 0o666 & ~_UMASK)
    return fd, tmp


def remove_orphans(folder: str) -> list[str]:
    """Remove the temporary files in ``folder`` whose writer no longer runs; the names removed.

    Only plain files named as this module names them (``TEMP_NAME``) are touched, and only those of a process
    that is neither this one nor running on this machine (as ``train.process_lock`` tells a live lock holder):
    a write in progress, by this process or another one training the same run, is left alone.
    """
    from train.process_lock import pid_running

    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    removed = []
    for name in sorted(names):
        match = TEMP_NAME.fullmatch(name)
        if match is None or int(match["pid"]) == os.getpid() or pid_running(int(match["pid"])):
            continue
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError):  # gone already (another process cleaning up), or not ours to remove
            if stat.S_ISREG(os.lstat(path).st_mode):  # never a link, a folder or a device named like one
                os.remove(path)
                removed.append(name)
    return removed


@contextlib.contextmanager
def atomic_open(path: str, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None):
    """``open`` for writing whose result appears at ``path`` only when the block completes without error."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = _make_temp(folder, os.path.basename(path))
    binary = "b" in mode
    try:
        with os.fdopen(fd, mode, encoding=None if binary else encoding,
                       newline=None if binary else newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())  # the data is on disk before the name points at it
        os.replace(tmp, path)
    except BaseException:  # also KeyboardInterrupt: never leave the temporary file behind
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def write_text(path: str, text: str) -> None:
    """Replace ``path`` with ``text`` atomically."""
    with atomic_open(path) as fh:
        fh.write(text)


def write_json(path: str, obj, **kwargs) -> None:
    """Replace ``path`` with ``obj`` as JSON atomically (``kwargs`` go to ``json.dump``)."""
    with atomic_open(path) as fh:
        json.dump(obj, fh, **kwargs)


def save_model(model, path: str) -> None:
    """An SB3 model's ``save`` to ``path`` (a ``.zip``), atomically."""
    with atomic_open(path, "wb") as fh:
        model.save(fh)


def save_policy(policy, path: str) -> tuple[str, str]:
    """``PolicyFile.save`` to ``<path>.npz`` + ``<path>.json``, each replaced atomically; returns both paths.

    The pair is written under a temporary base name, then the weights are moved into place before
    the metadata: folders are scanned for ``.json`` files, so a crash between the two moves leaves
    no metadata pointing at missing weights.
    """
    base = path[:-4] if path.endswith(".npz") else path[:-5] if path.endswith(".json") else path
    folder = os.path.dirname(os.path.abspath(base))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = _make_temp(folder, os.path.basename(base))
    os.close(fd)
    try:
        policy.save(tmp)  # writes tmp.npz and tmp.json
        for ext in (".npz", ".json"):
            with open(tmp + ext, "rb+") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp + ext, base + ext)
    finally:  # the placeholder, and the pair if anything failed
        for leftover in (tmp, tmp + ".npz", tmp + ".json"):
            with contextlib.suppress(OSError):
                os.remove(leftover)
    return base + ".npz", base + ".json"
