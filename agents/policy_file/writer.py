"""A new policy file from an MLP's numpy arrays and the ``Game`` it was trained for: no training framework needed.

The trainers turn their networks into numpy arrays (``train/export.py``) and call
``policy_file_from_weights``; it writes the metadata ``PolicyFile.check_game`` reads back and
refuses a network the reader would refuse. ``PolicyFile.save`` then writes the pair.
With ``action_features`` (a num_actions x F table, ``uno_env.action_features``) the network is an
action-value one (``network: action-value``): Q(s, a) on concat(observation, features[a]), one output.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from uno_env import Game
from uno_env.action_features import ACTION_FEATURES_VERSION
from uno_env.actions import ACTION_LAYOUT_VERSION
from uno_env.observation import OBSERVATION_LAYOUT_VERSION, ObservationEncoder

from .archive import layer_shapes
from .metadata import ACTION_VALUE, FORMAT, FORMAT_VERSION, check_declared_sizes, check_metadata, jsonable
from .policy import PolicyFile

#: How a new policy file names itself in the errors of the reader's checks.
_NEW = "the new policy file"


def policy_metadata(game: Game, layers: list[int], training_steps: int, evaluation: dict | None = None,
                    config: dict | None = None, table_sizes: list[int] | None = None,
                    activation: str = "tanh", action_features: int | None = None) -> dict:
    """The metadata of a policy for ``game`` whose network has sizes ``layers`` (input, hidden, output).

    ``action_features``: F, for an action-value network (its keys are added; none for an MLP)."""
    meta = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "variant": game.rules.variant, "num_players": game.num_players,
        "table_sizes": sorted(set(table_sizes or [game.num_players])),
        "rule_options": jsonable(game.rules.changed_options()),  # the form check_game compares against
        "observation_layout_version": OBSERVATION_LAYOUT_VERSION,
        "observation_size": ObservationEncoder(game).size,
        "action_layout_version": ACTION_LAYOUT_VERSION, "num_actions": game.num_actions,
        "activation": activation, "layers": list(layers), "training_steps": int(training_steps),
        "evaluation": evaluation or {}, "config": config or {},
    }
    if action_features is not None:
        meta.update(network=ACTION_VALUE, action_features=int(action_features),
                    action_features_version=ACTION_FEATURES_VERSION)
    return meta


def policy_file_from_weights(weights: Sequence[np.ndarray], game: Game, training_steps: int,
                             evaluation: dict | None = None, config: dict | None = None,
                             table_sizes: list[int] | None = None, activation: str = "tanh",
                             action_features: np.ndarray | None = None) -> PolicyFile:
    """A policy file for ``game`` from an MLP's arrays ``W0, b0, W1, b1, ...`` (W: in x out; logits last).

    ``activation``: the hidden layers' (``tanh`` or ``relu``). ``table_sizes``: every player count the
    policy was trained at (default: ``game``'s alone); it may play at each of them without relaxing
    the rule check. The arrays are copied. A ``ValueError`` if the arrays are not such an MLP, or
    (``PolicyFileError``) if the reader would refuse the file: a network too large, or one whose
    input and output sizes are not ``game``'s observation size and action count.

    ``action_features``: an action-value network's feature table (``game.num_actions`` x F); the
    network then reads observation_size + F inputs and has one output, Q(s, a).
    """
    arrays = [np.array(w, order="C") for w in weights]
    layers = _layers_of(arrays)
    table = None
    if action_features is not None:
        table = np.array(action_features, dtype=np.float32, order="C")
        if table.ndim != 2 or table.shape[0] != game.num_actions:
            raise ValueError(f"an action-feature table is num_actions x F ({game.num_actions} x F); got shape "
                             f"{table.shape}")
    meta = policy_metadata(game, layers, training_steps, evaluation, config, table_sizes, activation,
                           None if table is None else table.shape[1])
    check_metadata(meta, _NEW)
    check_declared_sizes(meta, layers, _NEW)
    return PolicyFile(arrays, meta, table)


def _layers_of(arrays: list[np.ndarray]) -> list[int]:
    """The sizes (input, hidden, output) of the MLP whose weights and biases are ``arrays``; else ValueError."""
    if len(arrays) < 2 or len(arrays) % 2 or arrays[0].ndim != 2:
        raise ValueError(f"a policy's weights are W0, b0, W1, b1, ... (W: in x out); got {len(arrays)} arrays "
                         f"of shapes {[a.shape for a in arrays]}")
    layers = [arrays[0].shape[0]] + [w.shape[1] if w.ndim == 2 else -1 for w in arrays[::2]]
    shapes = [a.shape for a in arrays]
    if shapes != layer_shapes(layers):
        raise ValueError(f"arrays of shapes {shapes} are not the weights and biases of one MLP: W0, b0, W1, b1, ... "
                         "with each W (in x out) and b (out,) following on from the one before")
    if any(a.dtype.kind not in "fiu" for a in arrays):
        raise ValueError(f"a policy's weights are float or integer arrays; got dtypes "
                         f"{sorted({str(a.dtype) for a in arrays})}")
    return layers
