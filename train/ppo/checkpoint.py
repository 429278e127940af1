"""The native PPO's checkpoint file, and what a run can start from (``init_from``).

A checkpoint (``checkpoints/native.pt``) holds the network's weights, the optimiser's state and the
step count, as tensors and numbers only: loading uses ``torch.load(..., weights_only=True)``, so
nothing is unpickled. A new run can start from another run's checkpoint (actor and critic) or from
an exported policy file (its weights become the actor; the critic starts untrained).
"""
from __future__ import annotations

import os
import pickle

import numpy as np

from agents import AgentSpecError, pretrained_path
from agents.policy_file import PolicyFile, PolicyFileError, strip_extension
from uno_env import Game
from uno_env.observation import OBSERVATION_LAYOUT_VERSION, ObservationEncoder

from train import atomic
from train.config import ConfigError, TrainConfig
from train.errors import first_line

CHECKPOINT = "native.pt"


def init_source(init_from: str) -> str | PolicyFile:
    """What ``init_from`` names: a native PPO checkpoint's path, or an exported policy file (read, not yet fitted)."""
    policy_base = None
    if init_from.startswith("pretrained:"):
        try:
            policy_base = pretrained_path(init_from.split(":", 1)[1])
        except AgentSpecError as exc:
            raise ConfigError(f"init_from {init_from!r}: {exc}") from None
    elif not init_from.endswith((".npz", ".json")):
        for path in (os.path.join(init_from, "checkpoints", CHECKPOINT), os.path.join(init_from, CHECKPOINT),
                     init_from):
            if os.path.isfile(path):
                return path
    if policy_base is None:
        base = strip_extension(init_from)
        if os.path.isfile(base + ".npz") and os.path.isfile(base + ".json"):
            policy_base = base
    if policy_base is None:
        hint = ""
        if os.path.isfile(os.path.join(init_from, "policy.json")):  # e.g. an SB3 run: no native checkpoint
            hint = f" (that run's exported policy is {os.path.join(init_from, 'policy')})"
        raise ConfigError(f"init_from {init_from!r}: nothing to start from there{hint}; allowed: a native PPO "
                          f"run directory, its checkpoints/ directory or its {CHECKPOINT} (actor and critic), "
                          "or an exported policy file <name>.npz + <name>.json or pretrained:<name> (its actor "
                          "only)")
    try:
        return PolicyFile.read(policy_base)
    except PolicyFileError as exc:
        raise ConfigError(f"init_from {init_from!r}: {exc}") from None


def load_actor(net, policy: PolicyFile, what: str, cfg: TrainConfig, game: Game) -> None:
    """Copy an exported policy's weights into the actor (the critic keeps its fresh initialisation)."""
    import torch

    try:
        policy.check_game(game, strict_rules=False)  # variant, layouts and sizes; any table size or rule options
    except PolicyFileError as exc:
        raise ConfigError(f"{what}: {exc}") from None
    meta = policy.metadata
    if policy.network != "mlp":  # Q(s, a) of the observation and an action's features: no actor to start from
        raise ConfigError(f"{what}: an {policy.network} policy (algo: dmc) cannot start a PPO network; "
                          "init_from takes a policy of logits (algo: ppo, sb3, nfsp) or a native run")
    hidden = list(meta.get("layers") or [])[1:-1]
    if meta.get("activation") != "tanh" or hidden != list(cfg.net_arch):
        raise ConfigError(f"{what}: the policy is a {meta.get('activation')} network with hidden layers {hidden}; "
                          f"this config's network is tanh with net_arch {list(cfg.net_arch)} (set net_arch to "
                          "the policy's layers)")
    weights = [np.asarray(w, dtype=np.float32) for w in policy.weights]
    size = ObservationEncoder(game).size
    if meta.get("observation_layout_version") != OBSERVATION_LAYOUT_VERSION:
        # an older layout is a prefix of today's: zero weights on the newer features keep its behaviour
        weights[0] = np.vstack([weights[0], np.zeros((size - weights[0].shape[0], weights[0].shape[1]), np.float32)])
    if net.oracle_size:  # oracle guiding: the actor's inputs on the hidden-card block start at zero
        weights[0] = np.vstack([weights[0], np.zeros((net.oracle_size, weights[0].shape[1]), np.float32)])
    linears = [m for m in net.actor if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():
        for k, layer in enumerate(linears):
            layer.weight.copy_(torch.from_numpy(weights[2 * k].T))
            layer.bias.copy_(torch.from_numpy(weights[2 * k + 1]))


def load(net, path: str, what: str, cfg: TrainConfig, obs_size: int, num_actions: int) -> dict:
    """Load a native checkpoint's network into ``net`` (tensors and numbers only, nothing unpickled)."""
    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        weights = dict(state["net"])
        own = net.state_dict()
        # a plain critic starting a privileged one: zero weights on the privileged block, so it starts
        # out estimating exactly as before and learns to use the block (the reverse does not fit)
        _fit_first_layer(weights, own, "critic.0.weight", obs_size, narrow=False)
        # oracle guiding's inputs after the observation: a run without them starts them at zero (it
        # plays exactly as before); a run with them hands on the observation's weights only
        _fit_first_layer(weights, own, "actor.0.weight", obs_size, narrow=True)
        for key in ("hands.weight", "hands.bias"):  # the hand prediction head is a training aid only:
            if key in own and key not in weights:    # a net with one starts it afresh from a net without,
                weights[key] = own[key]
            elif key not in own:                     # and a net without one drops it
                weights.pop(key, None)
        net.load_state_dict(weights)
    except (RuntimeError, KeyError, ValueError, TypeError, EOFError, OSError, pickle.UnpicklingError,
            AttributeError, IndexError) as exc:
        if isinstance(exc, EOFError) or (os.path.isfile(path) and os.path.getsize(path) == 0):
            raise ConfigError(f"{what}: {path} is empty or cut short (not a complete native PPO checkpoint); "
                              "start the run over with --fresh, or give another checkpoint") from None
        raise ConfigError(f"{what}: {path} does not fit this config's network (net_arch {cfg.net_arch}, "
                          f"{obs_size} observation floats, {num_actions} actions) or is not a native PPO "
                          f"checkpoint: {first_line(exc)}") from None
    return state


def _fit_first_layer(weights: dict, own: dict, key: str, obs_size: int, narrow: bool) -> None:
    """Fit a saved first layer that reads the observation (and maybe a block after it) to this net's inputs.

    A layer reading the observation alone gets zero weights on this net's extra inputs; with
    ``narrow``, a layer reading more than this net's observation-only layer keeps the observation's
    weights. Any other mismatch is left for ``load_state_dict`` to refuse.
    """
    import torch

    first, wanted = weights.get(key), own[key]
    if first is None or first.shape[0] != wanted.shape[0] or first.shape[1] == wanted.shape[1]:
        return
    if first.shape[1] == obs_size:
        weights[key] = torch.cat([first, first.new_zeros(first.shape[0], wanted.shape[1] - obs_size)], 1)
    elif narrow and wanted.shape[1] == obs_size:
        weights[key] = first[:, :obs_size]


def save(net, optimiser, steps: int, path: str) -> None:
    """Write the network, the optimiser's state and the step count to ``path`` atomically."""
    import torch

    atomic.remove_orphans(os.path.dirname(path))  # what a killed earlier write left (train/atomic.py)
    with atomic.atomic_open(path, "wb", encoding=None) as fh:
        torch.save({"net": net.state_dict(), "optimiser": optimiser.state_dict(), "steps": steps}, fh)


def saved_steps(path: str) -> int | None:
    """The decision count a native checkpoint was saved at, or None when there is none or it cannot be read."""
    import torch

    if not os.path.isfile(path):
        return None
    try:
        steps = torch.load(path, map_location="cpu", weights_only=True)["steps"]
        return int(steps) if not isinstance(steps, bool) and int(steps) >= 0 else None
    except (RuntimeError, KeyError, ValueError, TypeError, EOFError, OSError, pickle.UnpicklingError,
            AttributeError, IndexError):
        return None
