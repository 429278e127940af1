"""``agents.load``: every agent from a spec string, and the shipped policies it can name.

The top of ``agents/``: it builds on every other module here (the rule-based players, the search, policy
files) and none of them imports it. A search's ``prior=`` is loaded here and handed to the search already
built, so the search itself opens no file and never reaches back up to this loader.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable

from uno_env import Game
from uno_env.errors import did_you_mean, short_repr

from .base import Agent, RandomAgent
from .levels import LEVELS, PREFIX as LEVEL_PREFIX, LevelError, is_level, level_of
from .policy_file import PolicyFileError, load_policy, strip_extension
from .rule_based import GreedyAgent, HeuristicAgent
from .search import ISMCTSAgent, SearchOptionError, parse_options

BUILTIN = {"random": RandomAgent, "greedy": GreedyAgent, "heuristic": HeuristicAgent}

__all__ = ["AgentSpecError", "BUILTIN", "PRETRAINED_DIR", "display_name", "load", "pretrained_for",
           "pretrained_names", "pretrained_path"]

PRETRAINED_DIR = os.path.join(os.path.dirname(__file__), "pretrained")


class AgentSpecError(ValueError):
    """An agent spec that names no built-in agent, shipped policy or policy file."""


def pretrained_names() -> list[str]:
    """Names usable as ``pretrained:<name>``."""
    if not os.path.isdir(PRETRAINED_DIR):
        return []
    return sorted(f[:-5] for f in os.listdir(PRETRAINED_DIR) if f.endswith(".json"))


def pretrained_for(game: Game) -> str:
    """The shipped policy the spec ``pretrained`` plays in ``game``: the variant's native specialist for
    this player count (``<variant>-<n>p``, trained by the native PPO) when one is shipped, else ``<variant>``."""
    specialist = f"{game.rules.variant}-{game.num_players}p"
    if specialist in pretrained_names():
        with open(os.path.join(PRETRAINED_DIR, specialist + ".json"), encoding="utf-8") as fh:
            if json.load(fh).get("config", {}).get("algo") == "ppo":  # not the earlier SB3 agents
                return specialist
    return game.rules.variant


def pretrained_path(name: str) -> str:
    """The policy file path (without extension) of the shipped policy ``name``; AgentSpecError if none."""
    shipped = pretrained_names()
    if name not in shipped:
        raise AgentSpecError(f"no pretrained policy {short_repr(name)}{did_you_mean(name, shipped)}; "
                             f"shipped: {', '.join(shipped) or 'none'}")
    return os.path.join(PRETRAINED_DIR, name)


def load(spec: str, game: Game | None = None, seed: int | None = None, strict_rules: bool = True,
         resolve_path: Callable[[str], str] | None = None) -> Agent:
    """An agent from a spec string; all but ``random`` need the ``game`` whose observations they read.

    ``resolve_path``: called with every policy-file path the spec names (the spec itself or a search's
    ``prior=``) before any file is looked at; it returns the path to open or raises (e.g. for a path
    outside an allowed folder). Without it, paths are opened as given.
    """
    if not isinstance(spec, str) or not spec:
        raise AgentSpecError(f"agent spec must be a non-empty string, got {short_repr(spec)}; allowed: {_allowed()}")
    if spec == "random":
        return RandomAgent(seed)
    if spec in BUILTIN:
        _need_game(spec, game)
        return BUILTIN[spec](game, seed)
    if is_level(spec):  # a named strength: the spec it stands for
        try:
            level = level_of(spec)
        except LevelError as exc:
            raise AgentSpecError(str(exc)) from None
        return load(level.spec, game, seed=seed, strict_rules=strict_rules, resolve_path=resolve_path)
    if spec == "ismcts" or spec.startswith("ismcts:"):
        _need_game(spec, game)
        options = parse_options(spec[len("ismcts:"):])  # every option checked before the prior is opened
        guide = _search_prior(options["prior"], game, seed, resolve_path)
        opponent = _search_prior(options["opponent_policy"], game, seed, resolve_path, "opponent_policy") \
            if options["opponents"] == "policy" else None
        return ISMCTSAgent(game, seed, guide=guide, opponent_guide=opponent, **options)
    if spec == "pretrained":  # the game's own variant (its specialist for this table size, if shipped)
        _need_game(spec, game)
        spec = f"pretrained:{pretrained_for(game)}"
    if spec.startswith("pretrained:"):
        path = pretrained_path(spec.split(":", 1)[1])
        _need_game(spec, game)
        return load_policy(path, game, strict_rules=strict_rules, seed=seed)
    if resolve_path is not None:  # nothing on disk is looked at before the resolver has accepted the path
        path = resolve_path(spec)
        _need_game(spec, game)
        return load_policy(strip_extension(path), game, strict_rules=strict_rules, seed=seed)
    base = strip_extension(spec)
    if os.path.exists(base + ".json") or os.path.exists(base + ".npz"):
        _need_game(spec, game)
        return load_policy(base, game, strict_rules=strict_rules, seed=seed)
    if _looks_like_path(spec):
        hint = ""
        if os.path.isfile(os.path.join(spec, "policy.json")):  # a training run's directory was given
            hint = f" (a training run's policy is {os.path.join(spec, 'policy')})"
        raise PolicyFileError(f"no such file: {base}(.npz/.json){hint}; an exported policy is a "
                              "<name>.npz + <name>.json pair")
    known = [*BUILTIN, "ismcts", "pretrained", *(f"pretrained:{n}" for n in pretrained_names()),
             *(LEVEL_PREFIX + name for name in LEVELS)]
    raise AgentSpecError(f"unknown agent spec {short_repr(spec)}{did_you_mean(spec, known)}; allowed: {_allowed()}")


def display_name(spec: str) -> str:
    """A short label of an agent spec: a path's file stem, or its folder's name for a training run's ``<run>/policy``; other specs as given."""
    if not (any(sep in spec for sep in {os.sep, "/"}) or spec.endswith((".npz", ".json"))):
        return spec
    path = spec.rstrip("/" + os.sep)
    for ext in (".npz", ".json"):
        path = path.removesuffix(ext)
    stem = os.path.basename(path)
    if stem == "policy":  # `uno-env train` exports runs/<name>/policy: the run's name says which
        return os.path.basename(os.path.dirname(os.path.abspath(path))) or stem
    return stem


def _search_prior(spec: str, game: Game, seed: int | None, resolve_path: Callable[[str], str] | None,
                  option: str = "prior"):
    """The policy an ``ismcts`` spec's ``prior=`` (or ``opponent_policy=``) names, loaded (through
    ``resolve_path``), or None for ``none``."""
    if spec == "none" and option == "prior":
        return None
    allowed = "none, pretrained" if option == "prior" else "pretrained"
    not_a_policy = SearchOptionError(f"ismcts option {option}={short_repr(spec)} is not a policy: allowed {allowed}, "
                                     "pretrained:<name> or a policy file path")
    if spec in BUILTIN or spec == "ismcts" or spec.startswith("ismcts:"):
        raise not_a_policy  # refused before it is built (a nested search would be built in full first)
    guide = load(spec, game, seed=seed, resolve_path=resolve_path)
    if not hasattr(guide, "logits"):
        raise not_a_policy
    return guide


def _need_game(spec: str, game: Game | None) -> None:
    # a programming error, not bad input: a plain ValueError
    if game is None:
        raise ValueError(f"agent {spec!r} reads observations of a game: pass game=Game(...)")


def _looks_like_path(spec: str) -> bool:
    seps = {os.sep, "/"} | ({os.altsep} if os.altsep else set())
    return any(s in spec for s in seps) or spec.endswith((".npz", ".json"))


def _allowed() -> str:
    return f"{', '.join(BUILTIN)}, ismcts[:key=value,...], level:<{'|'.join(LEVELS)}>, pretrained (the game's variant), pretrained:<name> ({', '.join(pretrained_names()) or 'none shipped'}), " \
           "or a path to an exported policy"
