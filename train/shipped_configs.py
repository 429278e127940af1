"""The YAML configs shipped inside the package, reachable by name from any working directory.

``uno-env train --config quick`` (or ``classic``, ``flip-2p``, ...), ``uno-env benchmark --train quick`` and
``uno-env demo --rules classic-house`` name a shipped config instead of a path. In a source checkout
``train/configs`` is a link to the top-level ``configs/`` folder (so ``configs/train/quick.yaml`` paths keep
working and there is one copy); ``python -m build`` copies the files behind it into the sdist and the wheel
as package data of ``train``.
"""
from __future__ import annotations

import os
from importlib import resources

from uno_env.errors import did_you_mean

from train.config import ConfigError

KINDS = ("train", "rules")  # configs/train: training runs; configs/rules: rule presets
LABELS = {"train": "training", "rules": "rule"}


def shipped_names(kind: str) -> list[str]:
    """The names of the shipped configs of one kind (``train`` or ``rules``), sorted."""
    if kind not in KINDS:
        raise ValueError(f"config kind {kind!r} is not one of {', '.join(KINDS)}")
    folder = resources.files("train") / "configs" / kind
    if not folder.is_dir():
        return []
    return sorted(entry.name.removesuffix(".yaml") for entry in folder.iterdir() if entry.name.endswith(".yaml"))


def resolve(value: str, kind: str) -> str:
    """A config argument as a file path: an existing file as given, a bare name as the shipped config of that name."""
    if os.path.exists(value) or os.sep in value or "/" in value or value.endswith((".yaml", ".yml")):
        return value  # a path: opening it reports a missing file with its name
    names = shipped_names(kind)
    if value not in names:
        raise ConfigError(f"no file or shipped {LABELS[kind]} config named {value!r}"
                          f"{did_you_mean(value, names)}; give a YAML file's path or one of: {', '.join(names)}")
    return str(resources.files("train") / "configs" / kind / f"{value}.yaml")
