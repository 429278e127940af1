"""Turn a trained torch network into a framework-free policy file (``agents/policy_file/``).

Only the torch part lives here: a MaskablePPO model or an actor's ``Linear`` layers become numpy
arrays; ``agents.policy_file.policy_file_from_weights`` writes the metadata for the game.
"""
from __future__ import annotations

import numpy as np

from agents.policy_file import PolicyFile, policy_file_from_weights
from uno_env import Game


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
                             config: dict | None = None, table_sizes: list[int] | None = None,
                             activation: str = "tanh") -> PolicyFile:
    """A policy file from an actor's torch ``Linear`` layers (``activation`` between them, logits last) for ``game``.

    ``activation``: the hidden layers' activation, ``tanh`` (the PPO paths') or ``relu``; the file records
    it and the reader applies it after every layer but the last (another name is a ``PolicyFileError``).
    ``table_sizes``: every player count the policy was trained at (default: ``game``'s alone); it may
    play at each of them without relaxing the rule check.
    """
    return policy_file_from_weights(linear_arrays(linears), game, training_steps, evaluation, config,
                                    table_sizes=table_sizes, activation=activation)


def linear_arrays(linears: list) -> list[np.ndarray]:
    """The numpy arrays ``W0, b0, W1, b1, ...`` (W: in x out) of torch ``Linear`` layers, first to last."""
    arrays: list[np.ndarray] = []
    for lin in linears:
        arrays.append(lin.weight.detach().cpu().numpy().T)
        arrays.append(lin.bias.detach().cpu().numpy())
    return arrays
