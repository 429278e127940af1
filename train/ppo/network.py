"""The native PPO's network and its update: the actor-critic MLPs, a batch as arrays, the PPO epochs.

Both the learner (``train/ppo/trainer.py``) and the overlapped updater process (``train/ppo/updater.py``)
build the network and run the update from here.
"""
from __future__ import annotations

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


def ppo_update(net, optimiser, arrays: tuple, cfg, rng: np.random.Generator, train_actor: bool = True):
    """PPO epochs over one batch (``batch_arrays``); returns the last minibatch's losses and entropy.

    The losses are ``(policy, value, hand prediction or None)``; ``cfg`` is the run's ``TrainConfig``.
    """
    import torch

    b_obs, b_mask, b_act, b_logp, b_adv, b_ret = (torch.from_numpy(a) for a in arrays)
    order = np.arange(len(b_act))
    for _ in range(cfg.n_epochs):
        rng.shuffle(order)
        for lo in range(0, len(order), cfg.batch_size):
            mb = torch.from_numpy(order[lo:lo + cfg.batch_size])
            logits, value, hands = net.predict(b_obs[mb], b_mask[mb])
            logp_all = torch.log_softmax(logits, -1)
            logp = logp_all.gather(1, b_act[mb][:, None]).squeeze(-1)
            ratio = torch.exp(logp - b_logp[mb])
            adv = b_adv[mb]
            adv = (adv - adv.mean()) / (adv.std(unbiased=False) + 1e-8)
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)).mean()
            v_loss = 0.5 * ((value - b_ret[mb]) ** 2).mean()
            entropy = -(logp_all.exp() * logp_all.clamp(min=-1e8)).sum(-1).mean()
            # actor and critic share no weights: the value loss alone leaves the actor's gradients empty
            loss = pg_loss + 0.5 * v_loss - cfg.ent_coef * entropy if train_actor else 0.5 * v_loss
            if hands is not None:  # the auxiliary target: the other seats' cards, right after the observation
                held = b_obs[mb][:, net.obs_size:net.obs_size + net.hands_size]
                hand_loss = ((hands - held) ** 2).sum(-1).mean()  # squared error of a row's whole block
                if train_actor:
                    loss = loss + cfg.hand_prediction_coef * hand_loss
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            optimiser.step()
    return (pg_loss.item(), v_loss.item(), hand_loss.item() if hands is not None else None), entropy.item()
