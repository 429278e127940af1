"""Turn a MaskablePPO policy into a framework-free policy file (``agents/policy_file.py``)."""
from __future__ import annotations

import numpy as np

from agents.policy_file import FORMAT, FORMAT_VERSION, PolicyFile, _jsonable
from uno_env import Game
from uno_env.actions import ACTION_LAYOUT_VERSION
from uno_env.observation import OBSERVATION_LAYOUT_VERSION, ObservationEncoder


def policy_file_from_model(model, game: Game, training_steps: int, evaluation: dict | None = None,
                           config: dict | None = None) -> PolicyFile:
    """Weights of the actor (MLP extractor's policy net + action head) with metadata for ``game``."""
    import torch

    policy = model.policy
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    activations = {type(m).__name__ for m in policy.mlp_extractor.policy_net if not isinstance(m, torch.nn.Linear)}
    if activations - {"Tanh"}:
        raise ValueError(f"only tanh MLP policies are exported, got activations {sorted(activations)}")
    linears.append(policy.action_net)
    return policy_file_from_linears(linears, game, training_steps, evaluation, config)


def policy_file_from_linears(linears: list, game: Game, training_steps: int, evaluation: dict | None = None,
                             config: dict | None = None, table_sizes: list[int] | None = None) -> PolicyFile:
    """A policy file from an actor's torch ``Linear`` layers (tanh between them, logits last) for ``game``.

    ``table_sizes``: every player count the policy was trained at (default: ``game``'s alone); it may
    play at each of them without relaxing the rule check.
    """
    weights: list[np.ndarray] = []
    for lin in linears:
        weights.append(lin.weight.detach().cpu().numpy().T.copy())
        weights.append(lin.bias.detach().cpu().numpy().copy())
    layers = [linears[0].in_features] + [lin.out_features for lin in linears]
    meta = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "variant": game.rules.variant, "num_players": game.num_players,
        "table_sizes": sorted(set(table_sizes or [game.num_players])),
        "rule_options": _jsonable(game.rules.changed_options()),  # the form check_game compares against
        "observation_layout_version": OBSERVATION_LAYOUT_VERSION,
        "observation_size": ObservationEncoder(game).size,
        "action_layout_version": ACTION_LAYOUT_VERSION, "num_actions": game.num_actions,
        "activation": "tanh", "layers": layers, "training_steps": int(training_steps),
        "evaluation": evaluation or {}, "config": config or {},
    }
    return PolicyFile(weights, meta)
