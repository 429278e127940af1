"""The one MLP the value-based learners build (DQN, NFSP, DMC): ``Linear`` layers with an activation between.

``mlp([in, h1, h2, out])`` is ``Sequential(Linear(in, h1), act, Linear(h1, h2), act, Linear(h2, out))``: the
layers are created in that order with torch's default initialisation, so a network built from it under a
seed holds the same weights, under the same state-dict keys (``0.weight``, ``2.weight``, ...), as the
hand-written loops it replaced; checkpoints and seeded runs are unchanged (``tests/training/test_mlp.py``).
A policy file holds the ``Linear`` layers in order (``linears``) and names the activation.
"""
from __future__ import annotations

from torch import nn


def mlp(sizes: list[int], activation: type[nn.Module] = nn.ReLU, activate_last: bool = False) -> nn.Sequential:
    """``Linear`` layers through ``sizes`` (``len(sizes) - 1`` of them), ``activation`` after each but the last.

    ``activate_last``: the last layer is followed by the activation too (a trunk that heads are put on).
    ``sizes`` of one entry gives an empty ``Sequential``: the identity (a trunk with no hidden layer).
    """
    layers: list[nn.Module] = []
    for i, (width, size) in enumerate(zip(sizes, sizes[1:])):
        layers.append(nn.Linear(width, size))
        if activate_last or i < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


def linears(net: nn.Sequential) -> list[nn.Linear]:
    """The ``Linear`` layers of ``net`` in order: what a policy file stores (``train.export.linear_arrays``)."""
    return [m for m in net if isinstance(m, nn.Linear)]
