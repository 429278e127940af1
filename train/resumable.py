"""The checkpoint of a value-based learner (DQN, NFSP, DMC), and the segments that make resuming exact.

A run is cut into segments of ``checkpoint_every`` learner decisions. Each segment starts its games
afresh, dealt and seated from ``(seed, segment)``, with a Generator of that seed too; only the
learner's state (networks, optimisers, memories, counters) carries over. At the end of every
segment but the last the learner writes its state, and ``resume`` starts the next segment from
it: the games a resumed run plays are the ones the uninterrupted run plays, so the same seed gives
the same policy whether or not a run was interrupted (tested; on the same machine and torch thread
settings, which decide the last bits of a float sum). A segment's unfinished games are dropped at
its end, both times alike: a few hundred decisions a segment.

Files, in ``<run_dir>/checkpoints/``: ``learner-<segment>.pt`` (the torch state dicts, read with
``weights_only=True``), ``memory-<segment>.npz`` (the replay memories, uncompressed ``.npy``
members read straight into the learner's preallocated buffers, each header checked first), then
``learner.json`` naming them, with the counters and the config the run was started with; the files
of earlier segments are removed after it. A write cut part-way (Ctrl-C, a crash) leaves
``learner.json`` naming the previous, complete pair; the temporary file of a write killed outright
(SIGKILL: as large as the replay memory) is removed on resume and before the next checkpoint
(``atomic.remove_orphans``). A resume under another config is refused,
naming the keys that differ; a damaged or foreign checkpoint is one error line. Nothing is unpickled.
"""
from __future__ import annotations

import contextlib
import json
import os
import pickle
import re
import zipfile

import numpy as np

from train import atomic
from train.config import ConfigError
from train.errors import first_line

META = "learner.json"
FORMAT = "uno-env-learner-checkpoint"
#: Bytes ``learner.json`` may hold (counters and the config: a few kB).
MAX_META_BYTES = 1 << 20
_FILE_NAME = {"tensors": re.compile(r"learner-[0-9]{1,12}\.pt"), "memory": re.compile(r"memory-[0-9]{1,12}\.npz")}


def segment_seed(seed: int, segment: int) -> np.random.SeedSequence:
    """The seed of segment ``segment`` of a run seeded ``seed`` (segment 0: the run's own seed, as before segments)."""
    return np.random.SeedSequence(seed if segment == 0 else [seed, segment])


def segment_end(segment: int, every: int, budget: int) -> int:
    """The decision count at which ``segment`` ends (the budget when ``every`` is 0: no checkpoints)."""
    return min(budget, (segment + 1) * every) if every else budget


@contextlib.contextmanager
def fitting(run_dir: str):
    """Turn a checkpoint's contents that do not fit the learner (KeyError, ValueError, TypeError) into one error."""
    try:
        yield
    except ConfigError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise damaged(run_dir, exc) from None


def folder(run_dir: str) -> str:
    """Where a learner's checkpoint lives."""
    return os.path.join(run_dir, "checkpoints")


def exists(run_dir: str) -> bool:
    """Whether ``run_dir`` holds a learner checkpoint (``learner.json``, written last)."""
    return os.path.isfile(os.path.join(folder(run_dir), META))


def save(run_dir: str, algo: str, config: dict, counters: dict, modules: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write the learner's state: ``modules`` (name -> object with ``state_dict``), ``arrays``, ``counters``.

    ``counters["segment"]`` (the segment a resume starts) names the files.
    """
    import torch

    where = folder(run_dir)
    os.makedirs(where, exist_ok=True)
    atomic.remove_orphans(where)  # a killed write's memory file, before this one needs the disk space again
    files = {"tensors": f"learner-{int(counters['segment'])}.pt", "memory": f"memory-{int(counters['segment'])}.npz"}
    with atomic.atomic_open(os.path.join(where, files["tensors"]), "wb") as fh:
        torch.save({name: m.state_dict() for name, m in modules.items()}, fh)
    with atomic.atomic_open(os.path.join(where, files["memory"]), "wb") as fh:
        np.savez(fh, **{name: np.ascontiguousarray(a) for name, a in arrays.items()})
    atomic.write_json(os.path.join(where, META), {"format": FORMAT, "version": 1, "algo": algo, "files": files,
                                                  "counters": counters, "config": config})
    for name in os.listdir(where):  # the earlier segments' files: no longer named by learner.json
        if any(p.fullmatch(name) for p in _FILE_NAME.values()) and name not in files.values():
            os.remove(os.path.join(where, name))


def read_meta(run_dir: str) -> dict:
    """``learner.json``, checked to be a checkpoint of ours (size, format, file names)."""
    meta_path = os.path.join(folder(run_dir), META)
    try:
        if os.path.getsize(meta_path) > MAX_META_BYTES:
            raise ConfigError(f"{meta_path} is larger than {MAX_META_BYTES:,} bytes: not a learner checkpoint")
        with open(meta_path, encoding="utf-8") as fh:
            meta = json.load(fh)
    except (OSError, ValueError) as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"the checkpoint in {folder(run_dir)} cannot be read ({first_line(exc)}); "
                          "start the run over") from None
    files = meta.get("files") if isinstance(meta, dict) else None
    if (not isinstance(meta, dict) or meta.get("format") != FORMAT or not isinstance(meta.get("counters"), dict)
            or not isinstance(files, dict) or not all(isinstance(files.get(k), str) and p.fullmatch(files[k])
                                                      for k, p in _FILE_NAME.items())):
        raise ConfigError(f"{meta_path} is not a learner checkpoint written by uno-env")
    return meta


def checkpoint_decisions(run_dir: str) -> int | None:
    """The decision count of ``run_dir``'s checkpoint, or None if it has none or it cannot be read."""
    try:
        decisions = read_meta(run_dir)["counters"].get("decisions")
    except ConfigError:
        return None
    return decisions if isinstance(decisions, int) and not isinstance(decisions, bool) else None


def load(run_dir: str, algo: str, config: dict, modules: dict,
         buffers: dict[str, np.ndarray]) -> tuple[dict, dict[str, int]]:
    """Load a checkpoint into ``modules`` and the preallocated ``buffers`` (name -> array); the counters and
    the rows read into each buffer. Refuses another algo or config, and any member that does not fit its buffer."""
    import torch

    where = folder(run_dir)
    what = f"the checkpoint in {where}"
    meta = read_meta(run_dir)
    if meta.get("algo") != algo:
        raise ConfigError(f"{what} is of algo {meta.get('algo')!r}, not {algo!r}")
    saved, wanted = _learning(meta.get("config")), _learning(config)
    if saved != wanted:
        differ = sorted(k for k in set(saved or {}) | set(wanted) if (saved or {}).get(k) != wanted.get(k))
        raise ConfigError(f"{what} was written under another config (keys that differ: "
                          f"{', '.join(differ[:8]) or 'its layout'}); resume with the run's own config.yaml, "
                          "or start the run over")
    atomic.remove_orphans(where)  # this run's own folder, resumed: what its killed writes left
    tensors = os.path.join(where, meta["files"]["tensors"])
    weights = sum(p.numel() * p.element_size() for m in modules.values() if hasattr(m, "parameters")
                  for p in m.parameters())
    try:
        # networks and Adam's two moments per weight, and the optimisers' small bookkeeping
        if os.path.getsize(tensors) > 4 * weights + (1 << 20):
            raise ConfigError(f"{tensors} is larger than this learner's networks and optimisers can be")
        states = torch.load(tensors, map_location="cpu", weights_only=True)
        for name, module in modules.items():
            module.load_state_dict(states[name])
        rows = _read_memory(os.path.join(where, meta["files"]["memory"]), buffers)
    except (OSError, KeyError, ValueError, TypeError, RuntimeError, EOFError, pickle.UnpicklingError,
            zipfile.BadZipFile) as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"{what} is damaged ({first_line(exc)}); start the run over") from None
    return meta["counters"], rows


def _read_memory(path: str, buffers: dict[str, np.ndarray]) -> dict[str, int]:
    """Read each ``<name>.npy`` member of the archive straight into ``buffers[name]``; the rows read into each."""
    rows = {}
    with zipfile.ZipFile(path) as archive:
        for name, buffer in buffers.items():
            info = archive.getinfo(f"{name}.npy")
            if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 0x1:
                raise ValueError(f"{name}.npy is compressed or encrypted; checkpoints store arrays plainly")
            with archive.open(info) as stream:
                version = np.lib.format.read_magic(stream)
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, fortran, dtype = read_header(stream)
                if (dtype != buffer.dtype or fortran or len(shape) != buffer.ndim or shape[1:] != buffer.shape[1:]
                        or not 0 <= shape[0] <= len(buffer)):
                    raise ValueError(f"{name}.npy holds {dtype}{list(shape)}; this learner's buffer is "
                                     f"{buffer.dtype}[at most {len(buffer)}, {', '.join(map(str, buffer.shape[1:]))}]")
                target = buffer[:shape[0]]
                view, done = memoryview(target.reshape(-1).view(np.uint8)), 0
                while done < target.nbytes:  # in chunks: never a second copy of a large memory
                    chunk = stream.read(min(1 << 24, target.nbytes - done))
                    if not chunk:
                        break
                    view[done:done + len(chunk)] = chunk
                    done += len(chunk)
                if done != target.nbytes or stream.read(1):
                    raise ValueError(f"{name}.npy does not hold exactly the {target.nbytes:,} bytes its header says")
            rows[name] = int(shape[0])
    return rows


def _learning(config) -> dict | None:
    """A config without the keys that say where a run lives (a run directory may move between sittings)."""
    return {k: v for k, v in config.items() if k not in ("out_dir", "run_name")} if isinstance(config, dict) else None


def damaged(run_dir: str, exc: BaseException) -> ConfigError:
    """The error for a checkpoint whose contents do not fit the learner."""
    return ConfigError(f"the checkpoint in {folder(run_dir)} does not fit this learner ({first_line(exc)}); "
                       "start the run over")


def check_ring(run_dir: str, name: str, ring, capacity: int, rows: int) -> tuple[int, int]:
    """A memory's (size, cursor) from the counters, checked against its capacity and the rows read."""
    if (not isinstance(ring, list) or len(ring) != 2 or not all(isinstance(x, int) and not isinstance(x, bool)
                                                                 for x in ring)
            or not 0 <= ring[0] <= capacity or not 0 <= ring[1] < max(capacity, 1) or ring[0] != rows):
        raise damaged(run_dir, ValueError(f"{name}: size and cursor {ring!r} do not fit its {capacity:,} rows "
                                          f"({rows:,} stored)"))
    return ring[0], ring[1]
