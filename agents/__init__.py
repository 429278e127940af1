"""Policies that act in the environments: ``act(observation, action_mask) -> int``.

``agents.load(spec, game)`` is the one loader used by evaluation, play and training:

- ``random``: uniformly random legal actions;
- ``greedy``: highest-value legal card, most-held colour;
- ``heuristic``: the strongest rule-based player (``agents/rule_based.py``).
"""
from __future__ import annotations

from uno_env import Game

from .base import Agent, RandomAgent
from .rule_based import GreedyAgent, HeuristicAgent

BUILTIN = {"random": RandomAgent, "greedy": GreedyAgent, "heuristic": HeuristicAgent}

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "HeuristicAgent", "load", "BUILTIN"]


def load(spec: str, game: Game | None = None, seed: int | None = None) -> Agent:
    """An agent from a spec string; rule-based agents need the ``game`` whose observations they read."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string; allowed: {', '.join(BUILTIN)}")
    if spec == "random":
        return RandomAgent(seed)
    if spec in BUILTIN:
        if game is None:
            raise ValueError(f"agent {spec!r} reads observations of a game: pass game=Game(...)")
        return BUILTIN[spec](game, seed)
    raise ValueError(f"unknown agent spec {spec!r}; allowed: {', '.join(BUILTIN)}")
