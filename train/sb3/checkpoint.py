"""SB3's checkpoint: ``checkpoints/step_<N>.zip`` and ``latest.json`` in its run directory, and finding it again.

Checkpoints are SB3 ``.zip`` files written atomically, ``latest.json`` after its checkpoint, so it
never names one that is not complete. Resuming reads weights and optimiser state only (nothing is
unpickled) and falls back to the newest complete checkpoint when ``latest.json`` is missing or damaged.
"""
from __future__ import annotations

import json
import os
import sys
import zipfile

from uno_env.errors import short_repr

from train import atomic
from train.config import ConfigError
from train.errors import first_line
from train.run_dirs import step_of

#: Bytes ``latest.json`` may hold (it names one file; a larger one is damaged).
MAX_LATEST_BYTES = 64 * 1024


def save_checkpoint(model, run_dir: str, steps: int) -> str:
    """Write ``checkpoints/step_<steps>.zip`` and then ``latest.json`` naming it; returns the zip's path.

    First the temporary files of writes that were killed in this folder are removed (``atomic.remove_orphans``)."""
    atomic.remove_orphans(os.path.join(run_dir, "checkpoints"))
    path = os.path.join(run_dir, "checkpoints", f"step_{steps}.zip")
    atomic.save_model(model, path)
    # latest.json last: it never names a checkpoint that is not complete on disk
    atomic.write_json(os.path.join(run_dir, "checkpoints", "latest.json"),
                      {"timesteps": steps, "path": os.path.basename(path)})
    return path


#: Uncompressed size above which a ``step_<N>.zip`` is not taken for a checkpoint of ours (theirs are a few MB).
MAX_CHECKPOINT_BYTES = 1 << 30


def _complete_checkpoint(path: str) -> bool:
    """Whether ``path`` is a zip that opens, passes its checksums and holds the weights and optimiser state."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if sum(info.file_size for info in archive.infolist()) > MAX_CHECKPOINT_BYTES:
                return False  # not one of ours: testzip would inflate all of it
            return {"policy.pth", "policy.optimizer.pth"} <= names and archive.testzip() is None
    except (OSError, zipfile.BadZipFile, EOFError, ValueError):
        return False


def _newest_complete(folder: str) -> str | None:
    """The ``step_<N>.zip`` with the highest N in ``folder`` that is complete, else None."""
    found = sorted((step, f) for f in os.listdir(folder) if (step := step_of(f, ".zip")) is not None)
    for _, name in reversed(found):
        if _complete_checkpoint(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return None


def _latest(folder: str) -> tuple[str | None, str]:
    """The checkpoint latest.json names, or None and what is wrong with it."""
    path = os.path.join(folder, "latest.json")
    if not os.path.exists(path):
        return None, "no latest.json"
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_LATEST_BYTES + 1)
        if len(raw) > MAX_LATEST_BYTES:
            raise ValueError("too large")
        name = os.path.basename(str(json.loads(raw)["path"]))  # a bare file name: never leave the folder
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        return None, f"a damaged latest.json ({type(exc).__name__})"
    if step_of(name, ".zip") is None:
        return None, f"a latest.json naming {short_repr(name)}, not a step_<N>.zip"
    if not _complete_checkpoint(os.path.join(folder, name)):
        state = "damaged" if os.path.exists(os.path.join(folder, name)) else "missing"
        return None, f"a latest.json naming {name}, which is {state}"
    return os.path.join(folder, name), ""


def find_checkpoint(resume: str) -> str:
    """The ``step_<N>.zip`` that ``--resume`` (a run directory, its checkpoints directory or a file) means."""
    folder = resume
    if os.path.isdir(os.path.join(resume, "checkpoints")):
        folder = os.path.join(resume, "checkpoints")  # a run directory
    if os.path.isdir(folder):
        path, problem = _latest(folder)
        if path is None:
            path = _newest_complete(folder)
            if path is None:
                raise ConfigError(f"--resume: {folder!r} has {problem} and no complete step_<N>.zip (give a run "
                                  f"directory, its checkpoints directory or a step_<N>.zip)")
            print(f"train: warning: {folder} has {problem}; resuming from the newest complete checkpoint, "
                  f"{os.path.basename(path)}", file=sys.stderr)
        return path
    if step_of(os.path.basename(resume), ".zip") is None:
        raise ConfigError(f"--resume expects a checkpoints/step_<N>.zip file or a checkpoints directory, "
                          f"got {resume!r}")
    if not os.path.exists(resume):
        raise ConfigError(f"--resume: no checkpoint at {resume!r}")
    if not _complete_checkpoint(resume):
        raise ConfigError(f"--resume: {resume!r} is damaged (not a complete checkpoint zip); give its "
                          f"checkpoints directory to resume from the newest complete one")
    return resume


def restore(model, checkpoint: str) -> int:
    """Load weights and optimiser state only (no unpickling of the checkpoint's data); returns its step."""
    try:
        model.set_parameters(checkpoint, exact_match=True, device="cpu")
    except RuntimeError as exc:  # torch's size mismatch: another network shape
        raise ConfigError(f"--resume: {checkpoint} does not fit this config's network (net_arch, variant or "
                          f"player count differ): {first_line(exc)}") from None
    model.num_timesteps = step_of(os.path.basename(checkpoint), ".zip")
    return model.num_timesteps
