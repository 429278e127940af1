"""The algorithms ``algo:`` may name, one record each: the one module that interprets an ``algo`` value.

``lookup(algo)`` gives the ``Algorithm`` record of a built-in name or of a ``module:callable`` plug-in
(the plug-in contract, ``train/algorithm.py``); the rest of the project asks the record, never the name:

- ``settings``: its own part of ``TrainConfig`` (``train/config.py``); ``shares``: the parts it reads that
  other algorithms read too. A part's ``exclusive`` settings are refused under an algo that reads none of
  them (``users``). A plug-in has none: its ``settings:`` mapping is handed to it as it is.
- ``entry``: its contract entry ``train(run)``, as ``module:callable`` (``load`` imports it).
- ``resumable``: the entry continues an interrupted run from its own checkpoint (the protocol then keeps
  an interrupted seed's directory). A plug-in says so with ``resumable = True`` on its callable.
- ``ray``: ``uno-env train --ray`` runs it on Ray.
- ``own_door``: the trainer ``uno-env train`` runs directly instead of the entry, for its own summary,
  checkpoints and ``--resume`` (the two PPO paths, for now); ``None``: the contract alone.

Adding an algorithm: its settings dataclass as one more base of ``TrainConfig``, and its record here.

The built-ins' modules are named as strings, imported when used: this module sits with ``config.py`` at
the top of ``train/``, which imports no algorithm's room (``tests/project/test_layout.py``), and torch
stays unimported until a trainer runs. Each target is a module path a reader can open.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

from train.config import (DmcSettings, DqnSettings, NativePpoSettings, NfspSettings, PpoLossSettings, Sb3Settings,
                          ValueLearnerSettings)
from train.config_model import ConfigError

#: How ``algo``'s plug-in form is named in error messages.
TRAINER_FORM = ("module:callable (a Python callable train(run) that returns the trained PolicyFile or the path of "
                "a saved one, e.g. mypkg.learners:train; docs/plug-ins.md)")


@dataclass(frozen=True)
class Algorithm:
    """What ``algo: <name>`` means: its settings, its entry, whether it resumes, whether it runs on Ray."""

    name: str
    """The ``algo`` value: a built-in name, or a plug-in's ``module:callable``."""
    entry: str
    """``module:callable`` of its contract entry ``train(run) -> PolicyFile | path``."""
    settings: type | None = None
    """Its own part of ``TrainConfig`` (None: a plug-in, whose hyperparameters are its ``settings:`` mapping)."""
    shares: tuple[type, ...] = ()
    """Parts of ``TrainConfig`` it reads besides its own, which other algorithms read too."""
    resumable: bool = False
    """Its entry resumes an interrupted run from the checkpoint it wrote into ``run_dir``."""
    ray: bool = False
    """``uno-env train --ray`` runs it (its collectors as Ray actors)."""
    own_door: str | None = None
    """``module:callable`` of the trainer ``uno-env train`` runs directly: ``train(cfg, resume=, progress=,
    progress_interval=[, ray_address=])`` returning its summary; None: ``uno-env train`` runs the entry."""
    trainer: Callable | None = field(default=None, compare=False, repr=False)
    """A plug-in's callable, imported when its record was made (a built-in's is imported by ``load``)."""

    @property
    def parts(self) -> tuple[type, ...]:
        """Every part of ``TrainConfig`` it reads settings from."""
        return ((self.settings,) if self.settings is not None else ()) + self.shares

    @property
    def plug_in(self) -> bool:
        return self.settings is None

    def load(self) -> Callable:
        """The contract entry ``train(run)``."""
        return self.trainer if self.trainer is not None else _import(self.entry)

    def load_own_door(self) -> Callable | None:
        """The trainer ``uno-env train`` runs directly (``own_door``), or None."""
        return _import(self.own_door) if self.own_door else None


#: The built-in algorithms by ``algo`` name (this order is the one error messages list them in).
BUILTIN: dict[str, Algorithm] = {a.name: a for a in (
    Algorithm("ppo", "train.ppo.algorithm:train", NativePpoSettings, (PpoLossSettings,), ray=True,
              own_door="train.ppo.trainer:train"),
    Algorithm("sb3", "train.sb3.algorithm:train", Sb3Settings, (PpoLossSettings,), own_door="train.sb3.trainer:train"),
    Algorithm("dqn", "train.dqn.algorithm:train", DqnSettings, (ValueLearnerSettings,), resumable=True),
    # NFSP's best response is the DQN: it reads DqnSettings too
    Algorithm("nfsp", "train.nfsp.algorithm:train", NfspSettings, (DqnSettings, ValueLearnerSettings), resumable=True),
    Algorithm("dmc", "train.dmc.algorithm:train", DmcSettings, (ValueLearnerSettings,), resumable=True),
)}


def _import(target: str) -> Callable:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def names() -> list[str]:
    """The built-in ``algo`` names."""
    return list(BUILTIN)


def users(part: type) -> list[str]:
    """The built-in algorithms that read ``part``'s settings (empty: a part every algorithm may set)."""
    return [a.name for a in BUILTIN.values() if part in a.parts]


def on_ray() -> list[str]:
    """The algorithms ``--ray`` runs."""
    return [a.name for a in BUILTIN.values() if a.ray]


def own_door(algo: str) -> Callable | None:
    """The trainer ``uno-env train`` runs directly for ``algo`` (a built-in's own door), or None (no plug-in has one)."""
    builtin = BUILTIN.get(algo)
    return builtin.load_own_door() if builtin is not None else None


def lookup(algo: str) -> Algorithm:
    """The record of ``algo``: a built-in name, or a ``module:callable`` plug-in (imported now)."""
    if algo in BUILTIN:
        return BUILTIN[algo]
    return plug_in(algo)


def plug_in(target: str) -> Algorithm:
    """The record of a ``module:callable`` trainer; a ConfigError in one line if it is none or cannot be imported."""
    from agents import AgentSpecError

    from train.agent_specs import CALLABLE_SPEC, resolve_callable

    builtins = ", ".join(BUILTIN)
    if CALLABLE_SPEC.match(target) is None:
        raise ConfigError(f"algo {target!r} is neither a built-in algorithm ({builtins}) nor a "
                          "module:callable (e.g. mypkg.learners:train)")
    try:
        # a trainer is imported as any Python module is: a file beside the config is not found by itself
        trainer = resolve_callable(target, "algo", TRAINER_FORM, f"{builtins}, or {TRAINER_FORM}",
                                   path_hint="; the config's own folder is not searched")
    except AgentSpecError as exc:
        raise ConfigError(str(exc)) from None
    return Algorithm(target, target, resumable=getattr(trainer, "resumable", False) is True, trainer=trainer)
