"""Policies that act in the environments: ``act(observation, action_mask) -> int``.

``agents.load(spec, game)`` is the one loader used by evaluation, play and training:

- ``random``: uniformly random legal actions;
- ``greedy``: highest-value legal card, most-held colour;
- ``heuristic``: the strongest rule-based player (``agents/rule_based.py``);
- ``pretrained:<name>``: a policy shipped in ``agents/pretrained`` (e.g. ``pretrained:classic-2p``);
- a path to an exported policy (``<name>.npz`` + ``<name>.json``, see ``agents/policy_file.py``).
"""
from __future__ import annotations

from uno_env import Game

import os

from .base import Agent, RandomAgent
from .policy_file import PolicyAgent, PolicyFileError, _strip, load_policy
from .rule_based import GreedyAgent, HeuristicAgent

BUILTIN = {"random": RandomAgent, "greedy": GreedyAgent, "heuristic": HeuristicAgent}

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "HeuristicAgent", "PolicyAgent", "PolicyFileError",
           "load", "pretrained_names", "BUILTIN"]

PRETRAINED_DIR = os.path.join(os.path.dirname(__file__), "pretrained")


def pretrained_names() -> list[str]:
    """Names usable as ``pretrained:<name>``."""
    if not os.path.isdir(PRETRAINED_DIR):
        return []
    return sorted(f[:-5] for f in os.listdir(PRETRAINED_DIR) if f.endswith(".json"))


def load(spec: str, game: Game | None = None, seed: int | None = None, strict_rules: bool = True) -> Agent:
    """An agent from a spec string; all but ``random`` need the ``game`` whose observations they read."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string; allowed: {_allowed()}")
    if spec == "random":
        return RandomAgent(seed)
    if game is None:
        raise ValueError(f"agent {spec!r} reads observations of a game: pass game=Game(...)")
    if spec in BUILTIN:
        return BUILTIN[spec](game, seed)
    if spec.startswith("pretrained:"):
        name = spec.split(":", 1)[1]
        if name not in pretrained_names():
            raise ValueError(f"no pretrained policy {name!r}; shipped: {', '.join(pretrained_names()) or 'none'}")
        return load_policy(os.path.join(PRETRAINED_DIR, name), game, strict_rules=strict_rules, seed=seed)
    base = _strip(spec)
    if os.path.exists(base + ".json") or os.path.exists(base + ".npz"):
        return load_policy(base, game, strict_rules=strict_rules, seed=seed)
    raise ValueError(f"unknown agent spec {spec!r}; allowed: {_allowed()}")


def _allowed() -> str:
    return f"{', '.join(BUILTIN)}, pretrained:<name> ({', '.join(pretrained_names()) or 'none shipped'}), " \
           "or a path to an exported policy"
