"""Where the native PPO's learner network and its update run: ``device: auto|cpu|cuda`` in the config.

The games, the rule-based opponents and the acting forward passes stay on the CPU in every case: the
learner answers each collector's request (tens to a few hundred rows) with a CPU copy of the network
and the collector's CPU sampling generator, so a step never waits for a transfer to and from the GPU,
and the same weights sample the same actions whatever the device. The network that learns, its
optimiser and the PPO update run on ``device``; after each update its weights are copied into the
acting copy (``Learner._publish``), once per batch.
"""
from __future__ import annotations

from train.config import ConfigError

DEVICES = ("auto", "cpu", "cuda")


def resolve(setting: str):
    """The ``torch.device`` of ``device: <setting>``: ``auto`` is ``cuda`` when torch sees one, else ``cpu``.

    An unknown name, or ``cuda`` when torch sees no CUDA device, is a ``ConfigError`` saying what to set.
    """
    import torch

    if setting not in DEVICES:
        raise ConfigError(f"training config 'device' = {setting!r} is not allowed; allowed: {', '.join(DEVICES)}")
    cuda = torch.cuda.is_available()
    if setting == "cuda" and not cuda:
        raise ConfigError("training config 'device' = 'cuda', but torch sees no CUDA device here "
                          f"(torch {torch.__version__}, CUDA build: {torch.version.cuda or 'no'}); "
                          "set device: auto (the GPU when there is one) or device: cpu")
    return torch.device("cuda" if setting == "cuda" or (setting == "auto" and cuda) else "cpu")
