"""DMC's action-value network (``QNetwork``): Q(s, a), a relu MLP on the observation followed by the action's
feature row (``uno_env/action_features.py``), one output; ``train/dmc/trainer.py`` fits it to game results.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from train.export import linear_arrays
from train.mlp import linears, mlp


class QNetwork(nn.Module):
    """Q(s, a): a relu MLP on the observation followed by the action's feature row, one output."""

    def __init__(self, obs_size: int, feature_size: int, hidden: list[int]):
        super().__init__()
        self.mlp = mlp([obs_size + feature_size, *hidden, 1])
        # every Q equal at the start: the untrained greedy policy plays the first legal action (a card when it
        # holds one) instead of a favourite of its random weights, which is often the always-legal draw
        nn.init.zeros_(self.mlp[-1].weight)
        nn.init.zeros_(self.mlp[-1].bias)

    def forward(self, obs: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        """Q of each (observation, action features) row pair: shape (B,)."""
        return self.mlp(torch.cat([obs, features], dim=1)).squeeze(1)

    def arrays(self) -> list[np.ndarray]:
        """The network as numpy arrays W0, b0, W1, b1, ... (W: in x out), copied: what actors and policy files hold."""
        return [a.copy() for a in linear_arrays(linears(self.mlp))]
