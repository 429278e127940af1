"""A policy file in memory (``PolicyFile``: read, saved, checked against a game) and the agent playing it.

The forward pass of an MLP policy (no ``network`` key) is the MaskablePPO actor: ``tanh`` (or
``relu``) hidden layers, then logits; illegal actions are masked out and the deterministic action
is the arg-max.

An action-value policy (``network: action-value``, written by ``algo: dmc``) holds Q(s, a): the
same MLP, one output, on the observation followed by the action's row of the feature table the
file stores (``PolicyFile.action_features``, ``uno_env/action_features.py``). The agent scores each
legal action and plays the arg-max; sampled (``deterministic=False``), it draws from the softmax of
Q / ``ACTION_VALUE_TEMPERATURE``. ``logits`` gives Q of every action (what a search's prior reads).
The first layer is split: its observation half runs once per observation, its feature half once
per file (``action_value_scores``), so scoring every legal action costs about one hidden layer each.
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
from .metadata import (
    ACTIVATIONS,
    READABLE_LAYOUT_VERSIONS,
    check_declared_sizes,
    check_metadata,
    check_players,
    is_action_value,
    is_int,
    jsonable,
    network_sizes,
    read_metadata,
)

#: The softmax temperature of a sampled action-value policy (its Q values are game results, -1 to 1).
ACTION_VALUE_TEMPERATURE = 0.1


@dataclass
class PolicyFile:
    """Weights and metadata of an exported policy."""

    weights: list[np.ndarray]   # W0, b0, W1, b1, ..., W_out, b_out (W: in x out)
    metadata: dict[str, Any] = field(default_factory=dict)
    action_features: np.ndarray | None = None
    """An action-value policy's feature table (num_actions x F), stored after the weights; None for an MLP."""

    def save(self, path: str) -> tuple[str, str]:
        """Write ``<path>.npz`` and ``<path>.json`` (``path`` without extension); returns both paths."""
        base = strip_extension(path)
        os.makedirs(os.path.dirname(base) or ".", exist_ok=True)
        arrays = list(self.weights) + ([] if self.action_features is None else [self.action_features])
        np.savez(base + ".npz", **{f"p{i}": w.astype(np.float32) for i, w in enumerate(arrays)})
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
        extra = (((meta["num_actions"], meta["action_features"]), "the action-feature table"),) \
            if is_action_value(meta) else ()
        weights = read_weights(base + ".npz", layers, lambda: check_declared_sizes(meta, layers, base + ".json"), extra)
        if extra:
            return cls(weights[:-1], meta, weights[-1])
        return cls(weights, meta)

    @property
    def network(self) -> str:
        """``mlp`` (observation to logits) or ``action-value`` (Q of the observation and an action's features)."""
        return self.metadata.get("network", "mlp")

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
        inputs, outputs = network_sizes(m, size, game.num_actions)
        if layers[0] != inputs or layers[-1] != outputs:
            problems.append(f"network input/output sizes {short_repr(layers[0])}/{short_repr(layers[-1])} (the game "
                            f"needs {short_repr(inputs)}/{outputs})")
        if is_action_value(m):
            table = self.action_features
            wanted = (game.num_actions, m.get("action_features"))
            if table is None or getattr(table, "shape", None) != wanted:
                problems.append(f"action-feature table of shape {short_repr(getattr(table, 'shape', None))} (the "
                                f"game needs {wanted})")
        elif self.action_features is not None:
            problems.append("an action-feature table without network: action-value")
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
    """Plays an exported policy: arg-max (or sampled) masked logits of the MLP, or Q values of an action-value one."""

    name = "policy"

    def __init__(self, policy: PolicyFile, deterministic: bool = True, seed: int | None = None):
        self.policy = policy
        self.deterministic = deterministic
        self.activation = ACTIVATIONS[policy.metadata.get("activation", "tanh")]
        self.rng = np.random.default_rng(seed)
        self.scorer = ActionValueScorer(policy.weights, policy.action_features, self.activation) \
            if is_action_value(policy.metadata) else None

    def seed(self, seed: int | None) -> None:
        """Restart the sampling generator."""
        self.rng = np.random.default_rng(seed)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one observation (or a batch); an action-value policy's Q of every action."""
        h = np.asarray(observation, dtype=np.float32)
        if self.scorer is not None:
            return self.scorer.all_actions(h)
        w = self.policy.weights
        if self.policy.metadata.get("observation_layout_version") == 1:
            h = h[..., :w[0].shape[0]]  # a layout-1 policy reads the prefix of today's observation
        last = len(w) // 2 - 1
        for i in range(last):
            h = self.activation(h @ w[2 * i] + w[2 * i + 1])
        return h @ w[2 * last] + w[2 * last + 1]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The policy's action among the legal ones."""
        if self.scorer is not None:
            legal = np.flatnonzero(np.asarray(action_mask))
            if len(legal) == 0:  # as the MLP's arg-max over nothing legal: action 0
                return 0
            q = self.scorer.scores(np.asarray(observation, dtype=np.float32)[None], np.zeros(len(legal), np.int64),
                                   legal).astype(np.float64)
            if self.deterministic:
                return int(legal[np.argmax(q)])
            p = np.exp((q - q.max()) / ACTION_VALUE_TEMPERATURE)
            return int(legal[self.rng.choice(len(p), p=p / p.sum())])
        z = self.logits(observation).astype(np.float64)
        z[np.asarray(action_mask) == 0] = -np.inf
        if self.deterministic:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(self.rng.choice(len(p), p=p))


class ActionValueScorer:
    """Q(s, a) of an action-value network (relu or tanh MLP on concat(observation, features[a])) with numpy.

    ``weights``: W0, b0, ..., W_out (h x 1), b_out (1,); ``features``: the (num_actions x F) table. W0's
    rows split into the observation's and the features': ``features @ W0_features + b0`` is computed
    once here, and each observation's half once per observation, however many actions it scores.
    Observations wider than the network reads (an older layout's policy) are cut to its prefix.
    """

    def __init__(self, weights: list[np.ndarray], features: np.ndarray, activation):
        w = [np.asarray(x, dtype=np.float32) for x in weights]
        features = np.asarray(features, dtype=np.float32)
        self.obs_size = w[0].shape[0] - features.shape[1]
        self.first_obs = w[0][:self.obs_size]
        self.first_actions = features @ w[0][self.obs_size:] + w[1]  # (num_actions, hidden): one row per action
        self.rest = w[2:]
        self.activation = activation
        self.num_actions = features.shape[0]

    def scores(self, obs: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Q(obs[rows[j]], actions[j]) for every j: obs is (B, D), rows and actions index the pairs scored."""
        h = obs[:, :self.obs_size] @ self.first_obs
        h = self.activation(h[rows] + self.first_actions[actions])
        last = len(self.rest) // 2 - 1
        for i in range(last):
            h = self.activation(h @ self.rest[2 * i] + self.rest[2 * i + 1])
        return (h @ self.rest[2 * last] + self.rest[2 * last + 1])[:, 0]

    def all_actions(self, obs: np.ndarray) -> np.ndarray:
        """Q of every action for one observation (A,) or a batch (B, A)."""
        batch = obs.reshape(-1, obs.shape[-1])
        rows = np.repeat(np.arange(len(batch)), self.num_actions)
        actions = np.tile(np.arange(self.num_actions), len(batch))
        q = self.scores(batch, rows, actions).reshape(len(batch), self.num_actions)
        return q[0] if obs.ndim == 1 else q

    def best(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The arg-max of Q over each row's legal actions (mask: (B, A), at least one legal per row)."""
        rows, actions = np.nonzero(mask)
        q = np.full(mask.shape, -np.inf, dtype=np.float32)
        q[rows, actions] = self.scores(obs, rows, actions)
        return q.argmax(1)


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
