"""The ``<name>.json`` half of a policy file: its keys, the bounded reading of it and the checks of its values.

Metadata keys: ``format`` ("uno-env-policy"), ``format_version``, ``variant``, ``num_players``,
``table_sizes`` (every player count it was trained at, ``num_players`` among them; optional, default
``[num_players]``), ``rule_options``, ``observation_layout_version``, ``observation_size``,
``action_layout_version``, ``num_actions``, ``activation``, ``layers`` (sizes), ``training_steps``,
``evaluation``, ``config``.

The network's kind, ``network``: absent for the MLP from observation to logits (every file written
before there was another kind), or ``"action-value"`` for a Q(s, a) network (``algo: dmc``): its
``layers`` run from ``observation_size + action_features`` inputs to 1 output, and two more keys
say what it reads about an action: ``action_features`` (F, the width of the feature table the
``.npz`` holds after the weights, ``num_actions`` x F) and ``action_features_version``
(``uno_env.action_features.ACTION_FEATURES_VERSION`` when written; the stored table is what plays).
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from uno_env.errors import short_repr
from uno_env.observation import OBSERVATION_LAYOUT_VERSION

from .limits import MAX_LAYER_SIZE, MAX_LAYERS, MAX_METADATA_BYTES, MAX_TABLE_SIZE, MAX_WEIGHT_ELEMENTS, PolicyFileError

FORMAT = "uno-env-policy"
FORMAT_VERSION = 1
#: The hidden layers' activations a policy may name, by name.
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}
#: Observation layouts a policy file may have been exported for (1 is a prefix of 2, see observation.py).
READABLE_LAYOUT_VERSIONS = (1, OBSERVATION_LAYOUT_VERSION)
#: ``network`` of an action-value policy: Q(s, a) of the observation and the action's features.
ACTION_VALUE = "action-value"


def jsonable(options: dict) -> dict:
    """``options`` as the metadata holds them, after a JSON round trip (tuples become lists): what loading compares."""
    return json.loads(json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}))


def is_int(value: Any, low: int, high: int) -> bool:
    """Whether ``value`` is a whole number (not a bool) from ``low`` to ``high``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def read_metadata(path: str) -> dict:
    """The JSON object of a policy's metadata file, or PolicyFileError saying what is wrong with it."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_METADATA_BYTES + 1)
    except FileNotFoundError:
        raise PolicyFileError(f"no policy metadata at {path} (a policy is <name>.npz + <name>.json)") from None
    except OSError as exc:
        raise PolicyFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_METADATA_BYTES:
        raise PolicyFileError(f"{path} is larger than {MAX_METADATA_BYTES:,} bytes: not the metadata of a policy "
                              "file (a few KB)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PolicyFileError(f"{path} is not a text (JSON) file") from None
    if not text.strip():
        raise PolicyFileError(f"{path} is empty (an interrupted export?); export the policy again")
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PolicyFileError(f"{path} is not valid JSON: {exc}") from None
    except RecursionError:
        raise PolicyFileError(f"{path} is not usable JSON: nested too deeply") from None
    except ValueError:  # an int past Python's limit on digits
        raise PolicyFileError(f"{path} is not usable JSON: a number with too many digits") from None
    if not isinstance(meta, dict):
        raise PolicyFileError(f"{path} holds a JSON {type(meta).__name__}, not the object of an {FORMAT} file")
    return meta


def check_metadata(meta: dict, path: str) -> list[int]:
    """The network's ``layers`` once the metadata's format, sizes and activation are sane; else PolicyFileError."""
    if meta.get("format") != FORMAT:
        raise PolicyFileError(f"{path} is not an {FORMAT} file (format = {short_repr(meta.get('format'))})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise PolicyFileError(f"{path} has format_version {short_repr(meta.get('format_version'))}; "
                              f"this version reads {FORMAT_VERSION}")
    layers = meta.get("layers")
    if not (isinstance(layers, list) and 2 <= len(layers) <= MAX_LAYERS
            and all(is_int(n, 1, MAX_LAYER_SIZE) for n in layers)):
        raise PolicyFileError(f"{path}: layers {short_repr(layers)} must be a list of 2 to {MAX_LAYERS} whole "
                              f"numbers, each 1 to {MAX_LAYER_SIZE:,} (the network's input, hidden and output sizes)")
    total = sum(a * b + b for a, b in zip(layers, layers[1:]))
    if total > MAX_WEIGHT_ELEMENTS:
        raise PolicyFileError(f"{path}: layers {layers} make {total:,} weights and biases; a policy file holds at "
                              f"most {MAX_WEIGHT_ELEMENTS:,}")
    for key in ("observation_size", "num_actions"):
        if not is_int(meta.get(key), 1, MAX_LAYER_SIZE):
            raise PolicyFileError(f"{path}: {key} {short_repr(meta.get(key))} must be a whole number, 1 to "
                                  f"{MAX_LAYER_SIZE:,}")
    activation = meta.get("activation")
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise PolicyFileError(f"{path}: activation {short_repr(activation)}; allowed: {', '.join(ACTIVATIONS)}")
    check_players(meta, f"{path}: ")
    if "network" in meta:
        check_action_value(meta, layers, total, path)
    return layers


def is_action_value(meta: dict) -> bool:
    """Whether the metadata describes an action-value network (else the MLP of observation to logits)."""
    return meta.get("network") == ACTION_VALUE


def check_action_value(meta: dict, layers: list[int], total: int, path: str) -> None:
    """Refuse a ``network`` other than ``action-value``, or an action-value network whose sizes do not fit."""
    if not is_action_value(meta):
        raise PolicyFileError(f"{path}: network {short_repr(meta.get('network'))}; this version reads the MLP "
                              f"(no 'network' key) or {ACTION_VALUE!r}")
    width = meta.get("action_features")
    if not is_int(width, 1, MAX_LAYER_SIZE):
        raise PolicyFileError(f"{path}: action_features {short_repr(width)} must be a whole number, 1 to "
                              f"{MAX_LAYER_SIZE:,} (the width of the action-feature table)")
    if not is_int(meta.get("action_features_version"), 1, 1 << 30):
        raise PolicyFileError(f"{path}: action_features_version {short_repr(meta.get('action_features_version'))} "
                              "must be a whole number, 1 or more")
    if len(layers) > MAX_LAYERS - 1:  # one member of the .npz is the feature table
        raise PolicyFileError(f"{path}: an action-value network has at most {MAX_LAYERS - 1} layer sizes; "
                              f"layers {short_repr(layers)} has {len(layers)}")
    table = meta["num_actions"] * width
    if total + table > MAX_WEIGHT_ELEMENTS:
        raise PolicyFileError(f"{path}: layers {layers} and a {meta['num_actions']} x {width} action-feature table "
                              f"make {total + table:,} numbers; a policy file holds at most {MAX_WEIGHT_ELEMENTS:,}")


def check_players(meta: dict, where: str) -> None:
    """Refuse a ``num_players`` or ``table_sizes`` that names no sane player count, or a ``num_players`` (the
    home table) that is not among the ``table_sizes`` (every count it was trained at, the home table included)."""
    players = meta.get("num_players")
    if players is not None and not is_int(players, 1, MAX_TABLE_SIZE):
        raise PolicyFileError(f"{where}num_players {short_repr(players)} must be a player count, 1 to {MAX_TABLE_SIZE}")
    sizes = meta.get("table_sizes")
    if sizes is not None and not (isinstance(sizes, list) and len(sizes) <= MAX_TABLE_SIZE
                                  and all(is_int(n, 1, MAX_TABLE_SIZE) for n in sizes)):
        raise PolicyFileError(f"{where}table_sizes {short_repr(sizes)} must be a list of player counts, each 1 to "
                              f"{MAX_TABLE_SIZE}")
    if players is not None and sizes and players not in sizes:
        raise PolicyFileError(f"{where}num_players {players} is not one of its table_sizes {short_repr(sizes)}; the "
                              "table sizes are every player count it was trained at, num_players (its home table) "
                              "among them")


def network_sizes(meta: dict, observation_size: int, num_actions: int) -> tuple:
    """The input and output sizes the network of ``meta`` needs in a game of these observations and actions."""
    if is_action_value(meta):
        width = meta.get("action_features")
        return (observation_size + width if is_int(width, 1, MAX_LAYER_SIZE) else None), 1
    return observation_size, num_actions


def check_declared_sizes(meta: dict, layers: list[int], path: str) -> None:
    """Refuse a network whose input and output sizes are not the observation size and action count declared."""
    if is_action_value(meta):
        if layers[0] != meta["observation_size"] + meta["action_features"] or layers[-1] != 1:
            raise PolicyFileError(f"{path}: action-value network input/output sizes {layers[0]}/{layers[-1]} are "
                                  f"not observation_size + action_features = {meta['observation_size']} + "
                                  f"{meta['action_features']} and 1")
        return
    if layers[0] != meta["observation_size"] or layers[-1] != meta["num_actions"]:
        raise PolicyFileError(f"{path}: network input/output sizes {layers[0]}/{layers[-1]} do not match the "
                              f"observation size {meta['observation_size']} and {meta['num_actions']} actions it "
                              "declares")
