"""Atomic file writes: write a temporary file in the destination's folder, then ``os.replace`` it.

A reader (or a resumed run after a crash or Ctrl-C) sees either the old file or the new one, never
a half-written one. Temporary names start with ``.`` and end with ``.tmp`` so that nothing scanning
a folder for ``step_<N>.zip`` or ``*.json`` mistakes a leftover for the real thing.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile

# mkstemp creates files readable by their owner only; the files written here get the usual mode
_UMASK = os.umask(0)
os.umask(_UMASK)


def _make_temp(folder: str, name: str) -> tuple[int, str]:
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    os.chmod(tmp, 0o666 & ~_UMASK)
    return fd, tmp


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
