"""The native PPO's network and its update: the actor-critic MLPs, a batch as arrays, the optimiser, the PPO epochs.

Both the learner (``train/ppo/trainer.py``) and the overlapped updater process (``train/ppo/updater.py``)
build the network and run the update from here. The update is kept near the time of its own matrix
products: each epoch gathers the shuffled batch once and cuts it into minibatches without copying,
Adam steps every parameter in one fused kernel (``make_optimiser``), and the entropy avoids a slow
path of torch's ``exp``; ``uno-env bench train`` times it against those products (docs/speed.md).
"""
from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np


def build_network(obs_size: int, num_actions: int, hidden: list[int], privileged_size: int = 0,
                  hands_size: int = 0, extra_size: int | None = None, oracle_size: int = 0):
    """Actor and critic MLPs (tanh): the actor is what gets exported.

    Rows may carry a hidden-card block of ``extra_size`` floats after the observation
    (``train/collect/privileged.py``; ``extra_size`` defaults to ``privileged_size``): the actor reads the first
    ``obs_size`` floats. With ``privileged_size`` the critic reads the block too. With ``hands_size``, a
    linear head on the actor's last hidden layer predicts the block's first ``hands_size`` floats
    (every other seat's cards), an auxiliary target for training only (``predict``). With
    ``oracle_size`` (oracle guiding) the rows end with the actor's own copy of the block, some of it
    zeroed, and the actor reads it after the observation; ``exported_actor`` leaves it out.
    """
    import torch
    from torch import nn

    extra_size = privileged_size if extra_size is None else extra_size

    def mlp(out: int, gain: float, size: int = obs_size) -> nn.Sequential:
        layers = []
        for width in hidden:
            layers += [nn.Linear(size, width), nn.Tanh()]
            size = width
        layers.append(nn.Linear(size, out))
        for layer in layers:
            if isinstance(layer, nn.Linear):  # orthogonal init, as in CleanRL's PPO
                nn.init.orthogonal_(layer.weight, np.sqrt(2))
                nn.init.zeros_(layer.bias)
        nn.init.orthogonal_(layers[-1].weight, gain)
        return nn.Sequential(*layers)

    class ActorCritic(nn.Module):
        def __init__(self):
            super().__init__()
            self.obs_size, self.hands_size, self.oracle_size = obs_size, hands_size, oracle_size
            self.actor = mlp(num_actions, 0.01, obs_size + oracle_size)
            self.critic = mlp(1, 1.0, obs_size + privileged_size)
            if hands_size:
                self.hands = nn.Linear(hidden[-1], hands_size)
                self.trunk = tuple(self.actor)[:-1]  # a plain tuple: not registered twice in the state dict

        def forward(self, obs, mask):
            logits, value, _ = self.predict(obs, mask)
            return logits, value

        def predict(self, obs, mask):
            """Masked logits, values, and the predicted hidden cards (None without the head)."""
            seen = obs[:, :obs_size] if extra_size else obs
            if oracle_size:  # the actor's copy of the hidden-card block closes the row
                seen = torch.cat([seen, obs[:, obs_size + extra_size:]], 1)
            value = self.critic(obs[:, :obs_size + privileged_size] if extra_size else obs).squeeze(-1)
            if not hands_size:
                return self.actor(seen).masked_fill(mask == 0, -1e9), value, None
            features = seen
            for layer in self.trunk:
                features = layer(features)
            return self.actor[-1](features).masked_fill(mask == 0, -1e9), value, self.hands(features)

        def exported_actor(self) -> list:
            """The actor's linear layers as a policy file holds them: reading the observation alone."""
            linears = [m for m in self.actor if isinstance(m, nn.Linear)]
            if oracle_size:  # oracle guiding's inputs are gone from the played policy
                first = nn.Linear(obs_size, linears[0].out_features)
                with torch.no_grad():
                    first.weight.copy_(linears[0].weight[:, :obs_size])
                    first.bias.copy_(linears[0].bias)
                linears[0] = first
            return linears

    return ActorCritic().to(torch.device("cpu"))


def batch_arrays(batch: list[tuple]) -> tuple[np.ndarray, ...]:
    """Finished decisions ``(obs, mask, action, logp, advantage, return)`` as arrays, in the same order."""
    return (np.stack([t[0] for t in batch]), np.stack([t[1] for t in batch]),
            np.array([t[2] for t in batch], dtype=np.int64), np.array([t[3] for t in batch], dtype=np.float32),
            np.array([t[4] for t in batch], dtype=np.float32), np.array([t[5] for t in batch], dtype=np.float32))


def make_optimiser(net, learning_rate: float):
    """The update's Adam (eps 1e-5) on ``net``, stepping every parameter in one fused kernel call.

    On the CPU torch's Adam defaults to a Python loop over the parameters (0.91 ms a step for the 12
    tensors of classic's 128x128 network, against 0.24 ms fused: docs/speed.md); the fused kernel does
    the same arithmetic. A state saved by a plain Adam would switch the kernel off when loaded, so
    loading keeps it on.
    """
    import torch

    optimiser = torch.optim.Adam(net.parameters(), lr=learning_rate, eps=1e-5, fused=True)
    optimiser.register_load_state_dict_post_hook(_keep_fused)
    return optimiser


def _keep_fused(optimiser) -> None:
    for group in optimiser.param_groups:
        group["fused"], group["foreach"] = True, None


class Minibatch(NamedTuple):
    """One minibatch of a batch's tensors (``batch_arrays``'s order), rows in the epoch's shuffled order."""

    obs: Any
    mask: Any
    action: Any
    logp: Any
    advantage: Any
    ret: Any


def epoch_minibatches(batch: tuple, order: np.ndarray, size: int) -> Iterator[Minibatch]:
    """The batch's tensors gathered once in ``order``, then cut into consecutive minibatches of ``size`` rows.

    The same minibatches as indexing every tensor with each ``order[lo:lo + size]``, with one gather per
    tensor per epoch instead of one per minibatch; the slices are views, not copies.
    """
    import torch

    index = torch.from_numpy(order).to(batch[0].device)
    shuffled = [tensor.index_select(0, index) for tensor in batch]
    for lo in range(0, len(order), size):
        yield Minibatch(*(tensor[lo:lo + size] for tensor in shuffled))


def ppo_losses(net, mb: Minibatch, cfg, train_actor: bool) -> tuple:
    """The minibatch's loss to minimise and its parts: ``(loss, policy, value, hand prediction or None, entropy)``.

    The value part is half the mean squared error, weighed by ``cfg.vf_coef`` in the loss.
    """
    import torch

    logits, value, hands = net.predict(mb.obs, mb.mask)
    logp_all = torch.log_softmax(logits, -1)
    logp = logp_all.gather(1, mb.action[:, None]).squeeze(-1)
    ratio = torch.exp(logp - mb.logp)
    adv = (mb.advantage - mb.advantage.mean()) / (mb.advantage.std(unbiased=False) + 1e-8)
    pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)).mean()
    v_loss = 0.5 * ((value - mb.ret) ** 2).mean()
    # softmax, not logp_all.exp(): torch's exp takes a slow path on every value that underflows (the
    # masked logits' -1e9), several times the time of the whole softmax
    entropy = -(torch.softmax(logits, -1) * logp_all.clamp(min=-1e8)).sum(-1).mean()
    # actor and critic share no weights: the value loss alone leaves the actor's gradients empty
    loss = pg_loss + cfg.vf_coef * v_loss - cfg.ent_coef * entropy if train_actor else cfg.vf_coef * v_loss
    hand_loss = None
    if hands is not None:  # the auxiliary target: the other seats' cards, right after the observation
        held = mb.obs[:, net.obs_size:net.obs_size + net.hands_size]
        hand_loss = ((hands - held) ** 2).sum(-1).mean()  # squared error of a row's whole block
        if train_actor:
            loss = loss + cfg.hand_prediction_coef * hand_loss
    return loss, pg_loss, v_loss, hand_loss, entropy


@functools.cache
def compiled_losses():
    """``ppo_losses`` through ``torch.compile`` (``update_compile``); compiled at its first call, once per process."""
    import torch

    return torch.compile(ppo_losses)


#: The parts of each minibatch's step, as ``ppo_update`` names them to its ``laps``.
UPDATE_PARTS = ("gather", "forward and loss", "backward", "gradient clipping", "optimiser step")


def ppo_update(net, optimiser, arrays: tuple, cfg, rng: np.random.Generator, train_actor: bool = True,
               laps=None):
    """PPO epochs over one batch (``batch_arrays``); returns the last minibatch's losses and entropy.

    The losses are ``(policy, value, hand prediction or None)``; ``cfg`` is the run's ``TrainConfig``
    (``update_bfloat16`` and ``update_compile`` choose how the loss is computed, ``ppo_max_grad_norm``
    the norm the gradient is clipped to). ``laps``, if given, is
    called with each part's name (``UPDATE_PARTS``) as it ends (``uno-env bench train`` times them).
    """
    import torch

    lap = laps or _no_lap
    parameters = list(net.parameters())
    device = parameters[0].device  # the CPU, or the GPU of ``device: cuda`` (no copy on the CPU)
    batch = tuple(torch.from_numpy(a).to(device) for a in arrays)
    losses_of = compiled_losses() if cfg.update_compile else ppo_losses
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=cfg.update_bfloat16)
    order = np.arange(len(arrays[2]))
    for _ in range(cfg.n_epochs):
        rng.shuffle(order)  # the same generator and calls as ever: the same minibatches for the same seed
        for mb in epoch_minibatches(batch, order, cfg.batch_size):
            lap("gather")
            with autocast:
                loss, pg_loss, v_loss, hand_loss, entropy = losses_of(net, mb, cfg, train_actor)
            lap("forward and loss")
            optimiser.zero_grad()
            loss.backward()
            lap("backward")
            torch.nn.utils.clip_grad_norm_(parameters, cfg.ppo_max_grad_norm)
            lap("gradient clipping")
            optimiser.step()
            lap("optimiser step")
    return (pg_loss.item(), v_loss.item(), hand_loss.item() if hand_loss is not None else None), entropy.item()


def _no_lap(part: str) -> None:
    pass
