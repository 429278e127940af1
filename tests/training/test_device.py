"""``device: auto|cpu|cuda`` for the native PPO: where the learner's network learns; acting stays on the CPU.

This machine has no GPU, so ``auto`` must be ``cpu`` here and give the same run, ``cuda`` must be one
clear config error before anything is written, and the path a GPU run takes (a CPU copy that acts and
exports, the learning network apart, the weights copied back after every update) is run with both
copies on the CPU and must learn exactly what one network learns.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from agents import load as load_agent
from train.config import ConfigError, TrainConfig
from train.ppo import device as devices
from train.ppo import trainer as native_ppo
from uno_env import Game

TINY = dict(algo="ppo", gamma=1.0, total_timesteps=2_000, num_games=16, n_steps=32, batch_size=256, n_epochs=2,
            net_arch=[32, 32], snapshot_every=1_000, max_snapshots=2, eval_every=100_000, eval_games=2,
            torch_threads=1, run_name="run")


def _cfg(tmp_path, **kw) -> TrainConfig:
    return TrainConfig.from_dict({**TINY, "out_dir": str(tmp_path / "runs"), **kw})


def _weights(summary: dict) -> list[np.ndarray]:
    return load_agent(summary["run_dir"] + "/policy", Game()).policy.weights


def _network(summary: dict) -> dict:
    return torch.load(summary["checkpoint"], map_location="cpu", weights_only=True)["net"]


def _same_run(a: dict, b: dict) -> bool:
    same_policy = all(np.array_equal(x, y) for x, y in zip(_weights(a), _weights(b)))
    net_a, net_b = _network(a), _network(b)
    return a["timesteps"] == b["timesteps"] and same_policy and all(torch.equal(net_a[k], net_b[k]) for k in net_a)


def test_auto_is_the_cpu_here_and_trains_the_same_run(tmp_path):
    assert devices.resolve("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert devices.resolve("cpu") == torch.device("cpu")
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: auto is cuda, another run")
    cpu = native_ppo.train(_cfg(tmp_path / "cpu", device="cpu"), progress=False)
    auto = native_ppo.train(_cfg(tmp_path / "auto", device="auto"), progress=False)
    assert _same_run(cpu, auto)


def test_cuda_without_a_gpu_is_one_config_error_before_anything_is_written(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    cfg = _cfg(tmp_path, device="cuda")
    with pytest.raises(ConfigError, match=r"'device' = 'cuda', but torch sees no CUDA.*device: auto.*device: cpu"):
        native_ppo.train(cfg, progress=False)
    assert not os.path.exists(tmp_path / "runs")


def test_an_unknown_device_names_the_allowed_ones(tmp_path):
    with pytest.raises(ConfigError, match="'device' = 'gpu' is not allowed; allowed: auto, cpu, cuda"):
        native_ppo.train(_cfg(tmp_path, device="gpu"), progress=False)


def test_the_sb3_path_refuses_a_device():
    with pytest.raises(ConfigError, match="'device' needs algo: ppo"):
        TrainConfig.from_dict({"algo": "sb3", "device": "auto"})


@pytest.mark.parametrize("overlap", [False, True])
def test_a_separate_acting_copy_learns_exactly_what_one_network_learns(tmp_path, monkeypatch, overlap):
    # a GPU run's layout with both copies on the CPU: the learning network apart, the acting copy getting its
    # weights after every update, snapshots and the export read from it
    plain = native_ppo.train(_cfg(tmp_path / "plain", overlap_update=overlap), progress=False)
    split = []

    def place(self):
        self._split_acting_copy(torch.device("cpu"))
        split.append(self.acting is not self.net)

    monkeypatch.setattr(native_ppo.Learner, "_place_on_device", place)
    apart = native_ppo.train(_cfg(tmp_path / "apart", overlap_update=overlap), progress=False)
    assert split == [True]
    assert _same_run(plain, apart)
    snapshots = sorted(os.listdir(os.path.join(apart["run_dir"], "snapshots")))
    assert snapshots == sorted(os.listdir(os.path.join(plain["run_dir"], "snapshots"))) and snapshots
