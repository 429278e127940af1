"""NFSP's average policy (``AveragePolicy``): a relu MLP whose masked logits are a softmax over the legal actions.

Its best response is the DQN's network (``train/dqn/network.py``); ``train/nfsp/trainer.py`` trains both.
"""
from __future__ import annotations

import torch
from torch import nn

from train.mlp import mlp


class AveragePolicy(nn.Module):
    """The average policy: a relu MLP whose masked logits are a softmax over the legal actions."""

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int]):
        super().__init__()
        self.net = mlp([obs_size, *hidden, num_actions])

    def forward(self, obs: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        """Log-probabilities of the actions, illegal ones at -inf."""
        return torch.log_softmax(self.net(obs).masked_fill(~legal, -torch.inf), dim=1)
