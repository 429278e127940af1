"""The algorithms ``algo:`` may name, one record each: the one module that interprets an ``algo`` value.

``lookup(algo)`` gives the ``Algorithm`` record of a built-in name or of a ``module:callable`` plug-in
(the plug-in contract, ``train/algorithm.py``); the rest of the project asks the record, never the name:

- ``settings``: its own part of ``TrainConfig`` (``train/config.py``); ``shares``: the parts it reads that
  other algorithms read too. A part's ``exclusive`` settings are refused under an algo that reads none of
  them (``users``). A plug-in has none: its ``settings:`` mapping is handed to it as it is.
- ``entry``: its contract entry ``train(run)`` (``train/<algo>/algorithm.py``), imported plainly below.
- ``resumable``: the entry continues an interrupted run exactly from its ``train/resumable.py`` checkpoint
  (the protocol then keeps an interrupted seed's directory). A plug-in says so with ``resumable = True``.
- ``own_checkpoints``: the entry keeps checkpoints of its own format and checks ``--resume`` itself (the
  two PPO paths): ``uno-env train --resume`` continues it, not exactly, so the protocol starts it over.
- ``ray``: ``uno-env train --ray`` runs it on Ray (the entry gets the address as ``run.ray_address``).

Every algorithm, these flags aside, runs the same way: ``train/algorithm.py``'s ``train_algorithm``.

Adding an algorithm: its settings dataclass as one more base of ``TrainConfig``, and its record here.

The entries are imported plainly, so a reader (or a tool) follows ``algo: dqn`` from here to
``train/dqn/algorithm.py``: the one import from the top of ``train/`` into the algorithms' rooms
(``tests/project/test_layout.py`` names it). An entry module imports only the contract's types
(``train/contract.py``) at its top and its trainer, and so torch, inside its function: importing the
registry loads no trainer, and ``uno-env --help`` no torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from train.config import (DmcSettings, DqnSettings, NativePpoSettings, NfspSettings, PpoLossSettings, Sb3Settings,
                          ValueLearnerSettings)
from train.config_model import ConfigError
from train.dmc.algorithm import train as dmc
from train.dqn.algorithm import train as dqn
from train.nfsp.algorithm import train as nfsp
from train.ppo.algorithm import train as ppo
from train.sb3.algorithm import train as sb3

#: How ``algo``'s plug-in form is named in error messages.
TRAINER_FORM = ("module:callable (a Python callable train(run) that returns the trained PolicyFile or the path of "
                "a saved one, e.g. mypkg.learners:train; docs/plug-ins.md)")


@dataclass(frozen=True)
class Algorithm:
    """What ``algo: <name>`` means: its settings, its entry, whether it resumes, whether it runs on Ray."""

    name: str
    """The ``algo`` value: a built-in name, or a plug-in's ``module:callable``."""
    entry: Callable
    """Its contract entry ``train(run) -> PolicyFile | path`` (a plug-in's: the callable its name imports)."""
    settings: type | None = None
    """Its own part of ``TrainConfig`` (None: a plug-in, whose hyperparameters are its ``settings:`` mapping)."""
    shares: tuple[type, ...] = ()
    """Parts of ``TrainConfig`` it reads besides its own, which other algorithms read too."""
    resumable: bool = False
    """Its entry resumes an interrupted run exactly from the checkpoint it wrote into ``run_dir``
    (``train/resumable.py``'s ``learner.json``)."""
    own_checkpoints: bool = False
    """Its entry keeps checkpoints of its own and checks ``run.resume_from`` and the run directory itself."""
    ray: bool = False
    """``uno-env train --ray`` runs it (its collectors as Ray actors)."""

    @property
    def parts(self) -> tuple[type, ...]:
        """Every part of ``TrainConfig`` it reads settings from."""
        return ((self.settings,) if self.settings is not None else ()) + self.shares

    @property
    def plug_in(self) -> bool:
        return self.settings is None

    def load(self) -> Callable:
        """The contract entry ``train(run)``."""
        return self.entry

    @property
    def continues(self) -> bool:
        """Whether ``uno-env train --resume`` continues an interrupted run of it."""
        return self.resumable or self.own_checkpoints


#: The built-in algorithms by ``algo`` name (this order is the one error messages list them in).
BUILTIN: dict[str, Algorithm] = {a.name: a for a in (
    Algorithm("ppo", ppo, NativePpoSettings, (PpoLossSettings,), own_checkpoints=True, ray=True),
    Algorithm("sb3", sb3, Sb3Settings, (PpoLossSettings,), own_checkpoints=True),
    Algorithm("dqn", dqn, DqnSettings, (ValueLearnerSettings,), resumable=True),
    # NFSP's best response is the DQN: it reads DqnSettings too
    Algorithm("nfsp", nfsp, NfspSettings, (DqnSettings, ValueLearnerSettings), resumable=True),
    Algorithm("dmc", dmc, DmcSettings, (ValueLearnerSettings,), resumable=True),
)}


def names() -> list[str]:
    """The built-in ``algo`` names."""
    return list(BUILTIN)


def users(part: type) -> list[str]:
    """The built-in algorithms that read ``part``'s settings (empty: a part every algorithm may set)."""
    return [a.name for a in BUILTIN.values() if part in a.parts]


def on_ray() -> list[str]:
    """The algorithms ``--ray`` runs."""
    return [a.name for a in BUILTIN.values() if a.ray]


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
    return Algorithm(target, trainer, resumable=getattr(trainer, "resumable", False) is True)
