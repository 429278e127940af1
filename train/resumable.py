"""The checkpoint of a value-based learner (DQN, NFSP, DMC), and the segments that make resuming exact.

A run is cut into segments of ``checkpoint_every`` learner decisions. Each segment starts its games
afresh, dealt and seated from ``(seed, segment)``, with a Generator of that seed too; only the
learner's state (networks, optimisers, memories, counters) carries over. At the end of every
segment but the last the learner writes its state, and ``resume`` starts the next segment from
it: the games a resumed run plays are the ones the uninterrupted run plays, so the same seed gives
the same policy whether or not a run was interrupted (tested). A segment's unfinished games are
dropped at its end, both times alike: a few hundred decisions a segment.

Files, in ``<run_dir>/checkpoints/``, each written atomically, ``learner.json`` last so it never
names state that is not complete on disk:

- ``learner.pt``: the torch state dicts (networks and optimisers), read with ``weights_only=True``;
- ``memory.npz``: the replay memories as numpy arrays, read with ``allow_pickle=False``;
- ``learner.json``: the decision count and the other counters, the segment, the config the run was
  started with (a resume under another config is refused, naming the keys that differ).

Nothing read here is unpickled; a damaged or foreign checkpoint is one error line.
"""
from __future__ import annotations

import json
import os
import pickle
import zipfile

import numpy as np

from train import atomic
from train.checkpoints import first_line
from train.config import ConfigError

META, TENSORS, MEMORY = "learner.json", "learner.pt", "memory.npz"
FORMAT = "uno-env-learner-checkpoint"
#: Bytes ``learner.json`` may hold (counters and the config: a few kB).
MAX_META_BYTES = 1 << 20


def segment_seed(seed: int, segment: int) -> np.random.SeedSequence:
    """The seed of segment ``segment`` of a run seeded ``seed`` (segment 0: the run's own seed, as before segments)."""
    return np.random.SeedSequence(seed if segment == 0 else [seed, segment])


def folder(run_dir: str) -> str:
    """Where a learner's checkpoint lives."""
    return os.path.join(run_dir, "checkpoints")


def exists(run_dir: str) -> bool:
    """Whether ``run_dir`` holds a complete learner checkpoint."""
    return os.path.isfile(os.path.join(folder(run_dir), META))


def save(run_dir: str, algo: str, config: dict, counters: dict, modules: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write the learner's state: ``modules`` (name -> object with ``state_dict``), ``arrays``, ``counters``."""
    import torch

    where = folder(run_dir)
    os.makedirs(where, exist_ok=True)
    with atomic.atomic_open(os.path.join(where, TENSORS), "wb") as fh:
        torch.save({name: m.state_dict() for name, m in modules.items()}, fh)
    with atomic.atomic_open(os.path.join(where, MEMORY), "wb") as fh:
        np.savez(fh, **arrays)
    atomic.write_json(os.path.join(where, META), {"format": FORMAT, "version": 1, "algo": algo,
                                                  "counters": counters, "config": config})


def load(run_dir: str, algo: str, config: dict, modules: dict) -> tuple[dict, dict[str, np.ndarray]]:
    """Load the state ``save`` wrote into ``modules``; the counters and the arrays. Refuses another algo or config."""
    import torch

    where = folder(run_dir)
    meta_path = os.path.join(where, META)
    what = f"the checkpoint in {where}"
    try:
        if os.path.getsize(meta_path) > MAX_META_BYTES:
            raise ConfigError(f"{meta_path} is larger than {MAX_META_BYTES:,} bytes: not a learner checkpoint")
        with open(meta_path, encoding="utf-8") as fh:
            meta = json.load(fh)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{what} cannot be read ({first_line(exc)}); start the run over") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or not isinstance(meta.get("counters"), dict):
        raise ConfigError(f"{meta_path} is not a learner checkpoint written by uno-env")
    if meta.get("algo") != algo:
        raise ConfigError(f"{what} is of algo {meta.get('algo')!r}, not {algo!r}")
    saved, config = _learning(meta.get("config")), _learning(config)
    if saved != config:
        differ = sorted(k for k in set(saved or {}) | set(config) if (saved or {}).get(k) != config.get(k))
        raise ConfigError(f"{what} was written under another config (keys that differ: "
                          f"{', '.join(differ[:8]) or 'its layout'}); resume with the run's own config.yaml, "
                          "or start the run over")
    try:
        states = torch.load(os.path.join(where, TENSORS), map_location="cpu", weights_only=True)
        for name, module in modules.items():
            module.load_state_dict(states[name])
        with np.load(os.path.join(where, MEMORY), allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except (OSError, KeyError, ValueError, TypeError, RuntimeError, EOFError, pickle.UnpicklingError,
            zipfile.BadZipFile) as exc:
        raise ConfigError(f"{what} is damaged ({first_line(exc)}); start the run over") from None
    return meta["counters"], arrays


def _learning(config) -> dict | None:
    """A config without the keys that say where a run lives (a run directory may move between sittings)."""
    return {k: v for k, v in config.items() if k not in ("out_dir", "run_name")} if isinstance(config, dict) else None


def damaged(run_dir: str, exc: BaseException) -> ConfigError:
    """The error for a checkpoint whose contents do not fit the learner."""
    return ConfigError(f"the checkpoint in {folder(run_dir)} does not fit this learner ({first_line(exc)}); "
                       "start the run over")
