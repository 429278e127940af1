"""Policies that act in the environments: ``act(observation, action_mask) -> int``.

``agents.load(spec, game)`` is the one loader used by evaluation, play and training
(``agents/loader.py``, re-exported here):

- ``random``: uniformly random legal actions;
- ``greedy``: highest-value legal card, most-held colour;
- ``heuristic``: the strongest rule-based player (``agents/rule_based.py``);
- ``ismcts`` or ``ismcts:<key>=<value>,...``: information-set Monte Carlo tree search
  (``agents/search.py``; e.g. ``ismcts:iterations=400``);
- ``level:easy``, ``level:medium``, ``level:hard``, ``level:expert``: opponents by strength, each a named
  spec of the above with its measured win rate against ``heuristic`` (``agents/levels.py``);
- ``pretrained:<name>``: a policy shipped in ``agents/pretrained`` (e.g. ``pretrained:classic``);
- ``pretrained``: the shipped policy of the game's own variant, so one spec plays a suite of tasks
  in several variants: the variant's native specialist for the table size (``pretrained:<variant>-<n>p``)
  where one is shipped, else ``pretrained:<variant>`` (``pretrained_for``);
- a path to an exported policy (``<name>.npz`` + ``<name>.json``, see ``agents/policy_file/``).

A spec that is not one of the names above is read as a path when it contains a path separator or
ends in ``.npz``/``.json`` (a missing file is then reported as such); anything else is an unknown
spec, reported with the closest known name.

``load(..., resolve_path=f)`` hands every policy-file path a spec names, at any depth (the spec
itself, or an ``ismcts`` spec's ``prior=``), to ``f`` before anything on disk is looked at: ``f``
returns the path to open or raises. A server uses it to keep requests inside one folder.

This file only gathers the package's public names; no module of ``agents/`` imports it
(``tests/project/test_layout.py``).
"""
from __future__ import annotations

from .base import Agent, RandomAgent, choose_action
from .loader import (BUILTIN, PRETRAINED_DIR, AgentSpecError, display_name, load, pretrained_for, pretrained_names,
                     pretrained_path)
from .policy_file import PolicyAgent, PolicyFileError, load_policy, strip_extension  # as before the loader moved
from .rule_based import GreedyAgent, HeuristicAgent
from .search import ISMCTSAgent, SearchOptionError, parse_options

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "HeuristicAgent", "PolicyAgent", "PolicyFileError",
           "AgentSpecError", "ISMCTSAgent", "SearchOptionError", "choose_action", "load", "pretrained_for",
           "pretrained_names",
           "display_name", "parse_options", "BUILTIN"]
