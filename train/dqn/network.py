"""The DQN's dueling Q-network (``QNetwork``): a relu trunk, a value head V(s) and an advantage head A(s, a).

Q(s, a) = V(s) + A(s, a) - the mean of A over the legal actions; the trunk with the advantage head is the
exported policy (``train/dqn/trainer.py``'s ``export_policy``). NFSP's best response is this network too.
"""
from __future__ import annotations

import torch
from torch import nn

from train.mlp import mlp


class QNetwork(nn.Module):
    """The dueling Q-network: a relu trunk, a value head and an advantage head."""

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int]):
        super().__init__()
        # created trunk, value, advantage: the order the weights are drawn in, kept for seeded runs
        self.trunk = mlp([obs_size, *hidden], activate_last=True)
        width = hidden[-1] if hidden else obs_size
        self.value = nn.Linear(width, 1)
        self.advantage = nn.Linear(width, num_actions)
        # all advantages equal at the start: the untrained greedy policy plays the first legal action, not
        # a random network's favourite, which is often the always-legal draw (and then games stall)
        nn.init.zeros_(self.advantage.weight)
        nn.init.zeros_(self.advantage.bias)

    def advantages(self, obs: torch.Tensor) -> torch.Tensor:
        """A(s, .) for a batch of observations: the greedy policy's scores, what the policy file holds."""
        return self.advantage(self.trunk(obs))

    def forward(self, obs: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        """Q(s, .) = V(s) + A(s, .) - the mean of A over the legal actions (the illegal entries mean nothing)."""
        hidden = self.trunk(obs)
        adv = self.advantage(hidden)
        legal = legal.float()
        mean = (adv * legal).sum(1, keepdim=True) / legal.sum(1, keepdim=True).clamp(min=1.0)
        return self.value(hidden) + adv - mean
