"""Exported policies: an MLP's weights in ``<name>.npz`` plus ``<name>.json`` metadata, run with numpy.

No training framework is needed to write, load or run one, and nothing is unpickled: the metadata
is JSON and the weights are read member by member from the ``.npz`` (a zip of ``.npy`` arrays)
without ``numpy.load``. The forward pass is the MaskablePPO actor: ``tanh`` hidden layers, then
logits; illegal actions are masked out and the deterministic action is the arg-max.

A second, versioned kind of network (metadata ``network: action-value``; absent means the MLP above,
so every earlier file reads exactly as before): Q(s, a), the same kind of MLP with one output, on the
observation followed by the action's row of a feature table (``num_actions`` x F, float32,
``uno_env/action_features.py``) stored in the ``.npz`` as the member after the weights. The agent
plays the arg-max of Q over the legal actions (``docs/algorithms/dmc.md``).

Metadata keys: ``format`` ("uno-env-policy"), ``format_version``, ``variant``, ``num_players``,
``table_sizes`` (every player count it was trained at; optional, default ``[num_players]``), ``rule_options``,
``observation_layout_version``, ``observation_size``, ``action_layout_version``, ``num_actions``,
``activation``, ``layers`` (sizes), ``training_steps``, ``evaluation``, ``config``; ``num_players``
must be one of the ``table_sizes``. Loading checks them against the game the policy will play and
refuses a mismatch.

A policy file may come from anyone, so reading one is bounded before anything is inflated: the
``.json`` is at most ``MAX_METADATA_BYTES``; its ``layers`` at most ``MAX_LAYERS`` sizes of at most
``MAX_LAYER_SIZE``, ``MAX_WEIGHT_ELEMENTS`` numbers in all, and they must agree with its
``observation_size`` and ``num_actions``; the ``.npz`` must hold exactly ``p0.npy``, ``p1.npy``, ...
(stored or deflated, not encrypted), each a plain float or integer array whose ``.npy`` header
gives the shape ``layers`` needs, and then exactly the bytes of that shape are read, every float of
them finite (no NaN or infinity). An action-value
file's table is one member more, of shape ``num_actions`` x ``action_features`` from the metadata,
counted with the weights against ``MAX_WEIGHT_ELEMENTS`` (so its ``layers`` hold at most
``MAX_LAYERS - 1`` sizes). Anything else
is a one-line ``PolicyFileError`` naming the file.

The modules, each importing only those before it:

- ``limits.py``: ``PolicyFileError`` and the bounds above;
- ``metadata.py``: the ``.json`` half: its keys, bounded reading and checks, ``jsonable`` (rule options as stored);
- ``archive.py``: the ``.npz`` half: the bounded reader of its zip and ``.npy`` members;
- ``policy.py``: ``PolicyFile`` (read, save, check against a game), ``PolicyAgent``, ``load_policy``;
- ``writer.py``: a new ``PolicyFile`` from numpy arrays and a ``Game`` (``policy_file_from_weights``);
  ``train/export.py`` turns torch networks into those arrays.
"""
from __future__ import annotations

from .limits import (
                     MAX_DIRECTORY_BYTES,
                     MAX_LAYER_SIZE,
                     MAX_LAYERS,
                     MAX_MEMBERS,
                     MAX_METADATA_BYTES,
                     MAX_NPY_HEADER_BYTES,
                     MAX_TABLE_SIZE,
                     MAX_WEIGHT_ELEMENTS,
                     PolicyFileError,
)
from .metadata import ACTION_VALUE, ACTIVATIONS, FORMAT, FORMAT_VERSION, READABLE_LAYOUT_VERSIONS, jsonable
from .policy import ActionValueScorer, PolicyAgent, PolicyFile, load_policy, strip_extension
from .writer import policy_file_from_weights, policy_metadata

__all__ = ["PolicyFile", "PolicyAgent", "PolicyFileError", "load_policy", "strip_extension",
           "policy_file_from_weights", "policy_metadata", "jsonable",
           "FORMAT", "FORMAT_VERSION", "ACTIVATIONS", "ACTION_VALUE", "ActionValueScorer", "READABLE_LAYOUT_VERSIONS",
           "MAX_METADATA_BYTES", "MAX_LAYERS", "MAX_LAYER_SIZE", "MAX_WEIGHT_ELEMENTS", "MAX_TABLE_SIZE",
           "MAX_NPY_HEADER_BYTES", "MAX_DIRECTORY_BYTES", "MAX_MEMBERS"]
