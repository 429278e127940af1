"""A policy file in memory (``PolicyFile``: read, saved, checked against a game) and the agent playing it.

The forward pass is the MaskablePPO actor: ``tanh`` (or ``relu``) hidden layers, then logits;
illegal actions are masked out and the deterministic action is the arg-max.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env import Game
from uno_env.actions import ACTION_LAYOUT_VERSION
from uno_env.errors import short_repr
from uno_env.observation import OBSERVATION_LAYOUT_VERSION, ObservationEncoder

from .archive import read_weights
from .limits import PolicyFileError
from .metadata import (ACTIVATIONS, READABLE_LAYOUT_VERSIONS, check_declared_sizes, check_metadata, check_players,
                       is_int, jsonable, read_metadata)


@dataclass
class PolicyFile:
    """Weights and metadata of an exported policy."""

    weights: list[np.ndarray]   # W0, b0, W1, b1, ..., W_out, b_out (W: in x out)
    metadata: dict[str, Any] = field(default_factory=dict)

    def save(self, path: str) -> tuple[str, str]:
        """Write ``<path>.npz`` and ``<path>.json`` (``path`` without extension); returns both paths."""
        base = strip_extension(path)
        os.makedirs(os.path.dirname(base) or ".", exist_ok=True)
        np.savez(base + ".npz", **{f"p{i}": w.astype(np.float32) for i, w in enumerate(self.weights)})
        with open(base + ".json", "w", encoding="utf-8") as fh:
            json.dump(self.metadata, fh, indent=2, sort_keys=True)
        return base + ".npz", base + ".json"

    @classmethod
    def read(cls, path: str) -> "PolicyFile":
        """Read a policy file pair without checking it against any game; PolicyFileError (one line) if it cannot be.

        Every size is checked before the data it bounds is read (see ``agents.policy_file`` for the limits).
        """
        base = strip_extension(path)
        meta = read_metadata(base + ".json")
        layers = check_metadata(meta, base + ".json")
        weights = read_weights(base + ".npz", layers, lambda: check_declared_sizes(meta, layers, base + ".json"))
        return cls(weights, meta)

    def check_game(self, game: Game, strict_rules: bool = True) -> None:
        """Raise PolicyFileError if this policy was not made for ``game``'s observations and actions."""
        m = self.metadata
        problems = []
        if m.get("variant") != game.rules.variant:
            problems.append(f"variant {short_repr(m.get('variant'))} (the game is {game.rules.variant!r})")
        version = m.get("observation_layout_version")
        readable = is_int(version, 1, OBSERVATION_LAYOUT_VERSION) and version in READABLE_LAYOUT_VERSIONS
        if not readable:
            problems.append(f"observation layout version {short_repr(version)} (this package reads "
                            f"{', '.join(map(str, READABLE_LAYOUT_VERSIONS))})")
        if m.get("action_layout_version") != ACTION_LAYOUT_VERSION:
            problems.append(f"action layout version {short_repr(m.get('action_layout_version'))} "
                            f"(this package writes {ACTION_LAYOUT_VERSION})")
        encoder = ObservationEncoder(game)
        size = encoder.size_of(version) if readable else encoder.size
        if m.get("observation_size") != size:
            problems.append(f"observation size {short_repr(m.get('observation_size'))} (the game's is {size})")
        if m.get("num_actions") != game.num_actions:
            problems.append(f"{short_repr(m.get('num_actions'))} actions (the game has {game.num_actions})")
        layers = m.get("layers")
        layers = layers if isinstance(layers, list) and layers else [None]
        if layers[0] != size or layers[-1] != game.num_actions:
            problems.append(f"network input/output sizes {short_repr(layers[0])}/{short_repr(layers[-1])} (the game "
                            f"needs {size}/{game.num_actions})")
        # what strict_rules=False relaxes; suggested only when nothing else is wrong, since it cannot fix the rest
        relaxable = []
        if strict_rules:
            check_players(m, "the policy's metadata: ")
            sizes = m.get("table_sizes") or [m.get("num_players")]
            if game.num_players not in sizes:
                relaxable.append(f"{'/'.join(map(str, sizes))} players (the game has {game.num_players})")
            if m.get("rule_options", {}) != jsonable(game.rules.changed_options()):
                relaxable.append(f"rule options {short_repr(m.get('rule_options'))} (the game's are "
                                 f"{game.rules.changed_options()!r})")
        if problems or relaxable:
            # the command line always plays a policy at its own table; only the Python API can relax that
            hint = "" if problems else (" (a policy plays the player count and rule options it was trained for; "
                                        "from Python, agents.load(..., strict_rules=False) lets it play others "
                                        "of its variant)")
            raise PolicyFileError("policy does not fit this game: " + "; ".join(problems + relaxable) + hint)


class PolicyAgent:
    """Plays an exported policy: arg-max (or sampled) masked logits of the MLP."""

    name = "policy"

    def __init__(self, policy: PolicyFile, deterministic: bool = True, seed: int | None = None):
        self.policy = policy
        self.deterministic = deterministic
        self.activation = ACTIVATIONS[policy.metadata.get("activation", "tanh")]
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the sampling generator."""
        self.rng = np.random.default_rng(seed)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one observation (or a batch)."""
        h = np.asarray(observation, dtype=np.float32)
        w = self.policy.weights
        if self.policy.metadata.get("observation_layout_version") == 1:
            h = h[..., :w[0].shape[0]]  # a layout-1 policy reads the prefix of today's observation
        last = len(w) // 2 - 1
        for i in range(last):
            h = self.activation(h @ w[2 * i] + w[2 * i + 1])
        return h @ w[2 * last] + w[2 * last + 1]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The policy's action among the legal ones."""
        z = self.logits(observation).astype(np.float64)
        z[np.asarray(action_mask) == 0] = -np.inf
        if self.deterministic:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(self.rng.choice(len(p), p=p))


def load_policy(path: str, game: Game, strict_rules: bool = True, deterministic: bool = True,
                seed: int | None = None) -> PolicyAgent:
    """Read an exported policy, check it against ``game`` and return an agent playing it."""
    policy = PolicyFile.read(path)
    policy.check_game(game, strict_rules=strict_rules)
    return PolicyAgent(policy, deterministic=deterministic, seed=seed)


def strip_extension(path: str) -> str:
    """A policy file's base path: ``path`` without a trailing ``.npz`` or ``.json``."""
    for ext in (".npz", ".json"):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path
