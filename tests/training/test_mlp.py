"""The shared MLP (``train/mlp.py``) builds the DQN, NFSP and DMC networks exactly as their hand-written loops did.

The loops are kept below as they were written in each trainer: built under the same torch seed, the
networks on the shared helper hold the same tensors under the same state-dict keys (old checkpoints load),
leave torch's generator where the loops left it (what a seeded run draws next is unchanged) and compute
the same outputs. Fast: small networks, no training.
"""
from __future__ import annotations

import pytest
import torch
from torch import nn

from train.dmc import network as dmc_network
from train.dmc import trainer as dmc_trainer
from train.dqn import network as dqn_network
from train.dqn import trainer as dqn_trainer
from train.mlp import linears, mlp
from train.nfsp import network as nfsp_network
from train.nfsp import trainer as nfsp_trainer

OBS, ACTIONS, FEATURES = 23, 11, 7
HIDDEN = [[], [16], [32, 16], [8, 8, 8]]


def relu_layers(width: int, hidden: list[int]) -> tuple[list, int]:
    """The hand-written loop the trainers had: Linear + ReLU per hidden size, in order; and the last width."""
    layers = []
    for size in hidden:
        layers += [nn.Linear(width, size), nn.ReLU()]
        width = size
    return layers, width


class LoopDQN(nn.Module):
    """The DQN's ``QNetwork.__init__`` before the shared helper (its forward lives in the new class)."""

    def __init__(self, obs_size, num_actions, hidden):
        super().__init__()
        layers, width = relu_layers(obs_size, hidden)
        self.trunk = nn.Sequential(*layers)
        self.value = nn.Linear(width, 1)
        self.advantage = nn.Linear(width, num_actions)
        nn.init.zeros_(self.advantage.weight)
        nn.init.zeros_(self.advantage.bias)


class LoopNFSP(nn.Module):
    """NFSP's ``AveragePolicy.__init__`` before the shared helper."""

    def __init__(self, obs_size, num_actions, hidden):
        super().__init__()
        layers, width = relu_layers(obs_size, hidden)
        self.net = nn.Sequential(*layers, nn.Linear(width, num_actions))


class LoopDMC(nn.Module):
    """DMC's ``QNetwork.__init__`` before the shared helper."""

    def __init__(self, obs_size, feature_size, hidden):
        super().__init__()
        layers, width = relu_layers(obs_size + feature_size, hidden)
        layers.append(nn.Linear(width, 1))
        nn.init.zeros_(layers[-1].weight)
        nn.init.zeros_(layers[-1].bias)
        self.mlp = nn.Sequential(*layers)


def _built(cls, *args, seed=1234):
    """The module built under ``seed``, and torch's generator state right after (what a run draws next from)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        net = cls(*args)
        return net, torch.get_rng_state()


def _assert_same(new, new_rng, old, old_rng):
    new_state, old_state = new.state_dict(), old.state_dict()
    assert list(new_state) == list(old_state)  # the same keys in the same order: checkpoints load as before
    for key in old_state:
        assert new_state[key].dtype == old_state[key].dtype and torch.equal(new_state[key], old_state[key]), key
    assert [type(m) for m in new.modules()][1:] == [type(m) for m in old.modules()][1:]  # the same activations
    assert torch.equal(new_rng, old_rng)


@pytest.mark.parametrize("hidden", HIDDEN)
def test_dqn_network_is_the_loops(hidden):
    new, new_rng = _built(dqn_network.QNetwork, OBS, ACTIONS, hidden)
    _assert_same(new, new_rng, *_built(LoopDQN, OBS, ACTIONS, hidden))
    obs = torch.randn(5, OBS)
    legal = torch.rand(5, ACTIONS) < 0.5
    old = _built(LoopDQN, OBS, ACTIONS, hidden)[0]
    assert torch.equal(new.advantages(obs), old.advantage(old.trunk(obs)))
    assert new(obs, legal).shape == (5, ACTIONS)


@pytest.mark.parametrize("hidden", HIDDEN)
def test_nfsp_average_policy_is_the_loops(hidden):
    new, new_rng = _built(nfsp_network.AveragePolicy, OBS, ACTIONS, hidden)
    old, old_rng = _built(LoopNFSP, OBS, ACTIONS, hidden)
    _assert_same(new, new_rng, old, old_rng)
    obs = torch.randn(5, OBS)
    assert torch.equal(new.net(obs), old.net(obs))


@pytest.mark.parametrize("hidden", HIDDEN)
def test_dmc_network_is_the_loops(hidden):
    new, new_rng = _built(dmc_network.QNetwork, OBS, FEATURES, hidden)
    old, old_rng = _built(LoopDMC, OBS, FEATURES, hidden)
    _assert_same(new, new_rng, old, old_rng)
    obs, features = torch.randn(5, OBS), torch.randn(5, FEATURES)
    assert torch.equal(new(obs, features), old.mlp(torch.cat([obs, features], dim=1)).squeeze(1))
    assert len(new.arrays()) == 2 * (len(hidden) + 1)


def test_an_old_checkpoint_loads_strictly():
    """A state dict saved from the loop-built networks loads into the new ones with no key missing or left over."""
    for new_cls, old_cls, size in [(dqn_network.QNetwork, LoopDQN, ACTIONS),
                                   (nfsp_network.AveragePolicy, LoopNFSP, ACTIONS),
                                   (dmc_network.QNetwork, LoopDMC, FEATURES)]:
        old = _built(old_cls, OBS, size, [16, 8], seed=5)[0]
        new = new_cls(OBS, size, [16, 8])
        new.load_state_dict(old.state_dict(), strict=True)
        assert all(torch.equal(a, b) for a, b in zip(new.state_dict().values(), old.state_dict().values()))


def test_the_trainers_build_the_shared_networks():
    assert dqn_trainer.QNetwork is dqn_network.QNetwork
    assert nfsp_trainer.AveragePolicy is nfsp_network.AveragePolicy
    assert dmc_trainer.QNetwork is dmc_network.QNetwork


def test_mlp_layers():
    net = mlp([4, 3, 2], activation=nn.Tanh)
    assert [type(m) for m in net] == [nn.Linear, nn.Tanh, nn.Linear]
    assert [type(m) for m in mlp([4, 3], activate_last=True)] == [nn.Linear, nn.ReLU]
    assert len(mlp([4])) == 0 and len(mlp([4], activate_last=True)) == 0  # no layer: the identity
    assert [(m.in_features, m.out_features) for m in linears(net)] == [(4, 3), (3, 2)]
