"""Exported policies: an MLP's weights in ``<name>.npz`` plus ``<name>.json`` metadata, run with numpy.

No training framework is needed to load or run one, and nothing is unpickled: the weights are
read with ``numpy.load(..., allow_pickle=False)`` and the metadata is JSON. The forward pass is the
MaskablePPO actor: ``tanh`` hidden layers, then logits; illegal actions are masked out and the
deterministic action is the arg-max.

Metadata keys: ``format`` ("uno-env-policy"), ``format_version``, ``variant``, ``num_players``,
``table_sizes`` (every player count it was trained at; optional, default ``[num_players]``), ``rule_options``, ``observation_layout_version``, ``observation_size``, ``action_layout_version``,
``num_actions``, ``activation``, ``layers`` (sizes), ``training_steps``, ``evaluation``, ``config``.
Loading checks them against the game the policy will play and refuses a mismatch.
"""
from __future__ import annotations

import json
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env import Game
from uno_env.actions import ACTION_LAYOUT_VERSION
from uno_env.observation import OBSERVATION_LAYOUT_VERSION, ObservationEncoder

#: Observation layouts a policy file may have been exported for (1 is a prefix of 2, see observation.py).
READABLE_LAYOUT_VERSIONS = (1, OBSERVATION_LAYOUT_VERSION)

FORMAT = "uno-env-policy"
FORMAT_VERSION = 1
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}


class PolicyFileError(ValueError):
    """A policy file that cannot be read, or does not fit the game it is used in."""


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
        """Read a policy file pair without checking it against any game."""
        base = strip_extension(path)
        meta = _read_metadata(base + ".json")
        if meta.get("format") != FORMAT:
            raise PolicyFileError(f"{base}.json is not an {FORMAT} file (format = {meta.get('format')!r})")
        if meta.get("format_version") != FORMAT_VERSION:
            raise PolicyFileError(f"{base}.json has format_version {meta.get('format_version')!r}; "
                                  f"this version reads {FORMAT_VERSION}")
        weights = _read_weights(base + ".npz")
        layers = meta.get("layers")
        if not isinstance(layers, list) or len(weights) != 2 * (len(layers) - 1):
            raise PolicyFileError(f"{base}: {len(weights)} weight arrays do not fit layers {layers!r}")
        for i in range(len(layers) - 1):
            w, b = weights[2 * i], weights[2 * i + 1]
            if w.shape != (layers[i], layers[i + 1]) or b.shape != (layers[i + 1],):
                raise PolicyFileError(f"{base}: layer {i} has shapes {w.shape}, {b.shape}; expected "
                                      f"({layers[i]}, {layers[i + 1]}) and ({layers[i + 1]},)")
        if meta.get("activation") not in ACTIVATIONS:
            raise PolicyFileError(f"{base}: activation {meta.get('activation')!r}; allowed: {', '.join(ACTIVATIONS)}")
        return cls(weights, meta)

    def check_game(self, game: Game, strict_rules: bool = True) -> None:
        """Raise PolicyFileError if this policy was not made for ``game``'s observations and actions."""
        m = self.metadata
        problems = []
        if m.get("variant") != game.rules.variant:
            problems.append(f"variant {m.get('variant')!r} (the game is {game.rules.variant!r})")
        version = m.get("observation_layout_version")
        if version not in READABLE_LAYOUT_VERSIONS:
            problems.append(f"observation layout version {version!r} (this package reads "
                            f"{', '.join(map(str, READABLE_LAYOUT_VERSIONS))})")
        if m.get("action_layout_version") != ACTION_LAYOUT_VERSION:
            problems.append(f"action layout version {m.get('action_layout_version')!r} "
                            f"(this package writes {ACTION_LAYOUT_VERSION})")
        encoder = ObservationEncoder(game)
        size = encoder.size_of(version) if version in READABLE_LAYOUT_VERSIONS else encoder.size
        if m.get("observation_size") != size:
            problems.append(f"observation size {m.get('observation_size')!r} (the game's is {size})")
        if m.get("num_actions") != game.num_actions:
            problems.append(f"{m.get('num_actions')!r} actions (the game has {game.num_actions})")
        layers = m.get("layers") or [None]
        if layers[0] != size or layers[-1] != game.num_actions:
            problems.append(f"network input/output sizes {layers[0]}/{layers[-1]} (the game needs {size}/"
                            f"{game.num_actions})")
        # what strict_rules=False relaxes; suggested only when nothing else is wrong, since it cannot fix the rest
        relaxable = []
        if strict_rules:
            sizes = m.get("table_sizes") or [m.get("num_players")]
            if not isinstance(sizes, list):
                raise PolicyFileError(f"table_sizes {sizes!r} in the policy's metadata must be a list of player counts")
            if game.num_players not in sizes:
                relaxable.append(f"{'/'.join(map(str, sizes))} players (the game has {game.num_players})")
            if m.get("rule_options", {}) != _jsonable(game.rules.changed_options()):
                relaxable.append(f"rule options {m.get('rule_options')!r} (the game's are "
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


def _read_metadata(path: str) -> dict:
    """The JSON object of a policy's metadata file, or PolicyFileError saying what is wrong with it."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise PolicyFileError(f"no policy metadata at {path} (a policy is <name>.npz + <name>.json)") from None
    except UnicodeDecodeError:
        raise PolicyFileError(f"{path} is not a text (JSON) file") from None
    except OSError as exc:
        raise PolicyFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not text.strip():
        raise PolicyFileError(f"{path} is empty (an interrupted export?); export the policy again")
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PolicyFileError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(meta, dict):
        raise PolicyFileError(f"{path} holds a JSON {type(meta).__name__}, not the object of an {FORMAT} file")
    return meta


def _read_weights(path: str) -> list[np.ndarray]:
    """The weight arrays ``p0, p1, ...`` of a policy's ``.npz``, or PolicyFileError saying what is wrong."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except FileNotFoundError:
        raise PolicyFileError(f"no policy weights at {path}") from None
    except OSError as exc:
        raise PolicyFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not head:
        raise PolicyFileError(f"{path} is empty (an interrupted export?); export the policy again")
    # checked here: numpy would call any non-zip file pickled data and suggest allow_pickle
    if head != b"PK\x03\x04":
        raise PolicyFileError(f"{path} is not a readable weight file: not an .npz (zip) archive")
    try:
        with np.load(path, allow_pickle=False) as data:
            weights = [data[f"p{i}"] for i in range(len(data.files))]
    except (ValueError, KeyError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise PolicyFileError(f"{path} is not a readable weight file (truncated or damaged?): {exc}") from None
    for i, w in enumerate(weights):
        # a member that is not an .npy comes back as raw bytes
        if not isinstance(w, np.ndarray) or w.dtype.kind not in "fiu":
            raise PolicyFileError(f"{path} is not a readable weight file: p{i} is not a numeric array")
    return weights


def strip_extension(path: str) -> str:
    """A policy file's base path: ``path`` without a trailing ``.npz`` or ``.json``."""
    for ext in (".npz", ".json"):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def _jsonable(options: dict) -> dict:
    return json.loads(json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}))
