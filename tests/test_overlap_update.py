"""``overlap_update``: the PPO update runs in a second process beside the next batch's collection."""
from __future__ import annotations

import csv
import math
import signal

import numpy as np
import pytest
import torch

from agents import load as load_agent
from train import native_ppo
from train.config import ConfigError, TrainConfig
from uno_env import Game
from uno_env.vector import VectorGames

TINY = dict(algo="ppo", gamma=1.0, total_timesteps=1, num_games=32, n_steps=32, batch_size=256, n_epochs=2,
            net_arch=[32, 32], snapshot_every=100_000, eval_every=100_000, eval_games=2, run_name="run")


def _cfg(tmp_path, **kw) -> TrainConfig:
    return TrainConfig.from_dict({**TINY, "out_dir": str(tmp_path / "runs"), **kw})


def _weights(summary: dict) -> list[np.ndarray]:
    return load_agent(summary["run_dir"] + "/policy", Game()).policy.weights


def _progress(summary: dict) -> list[dict]:
    with open(summary["run_dir"] + "/progress.csv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_one_update_is_the_same_overlapped_or_not(tmp_path):
    # the first batch is collected by the initial weights either way, and the updater starts from the
    # same weights, optimiser and minibatch generator as the learner would
    plain = native_ppo.train(_cfg(tmp_path / "plain"), progress=False)
    overlapped = native_ppo.train(_cfg(tmp_path / "overlap", overlap_update=True), progress=False)
    assert len(_progress(plain)) == len(_progress(overlapped)) == 1
    assert plain["timesteps"] == overlapped["timesteps"]
    assert all(np.array_equal(x, y) for x, y in zip(_weights(plain), _weights(overlapped)))


def test_later_batches_are_collected_one_update_late_and_the_run_repeats_itself(tmp_path):
    runs = [native_ppo.train(_cfg(tmp_path / name, total_timesteps=3_000, overlap_update=True), progress=False)
            for name in ("a", "b")]
    plain = native_ppo.train(_cfg(tmp_path / "plain", total_timesteps=3_000), progress=False)
    assert len(_progress(runs[0])) >= 2 and runs[0]["timesteps"] >= 3_000
    assert runs[0]["timesteps"] == runs[1]["timesteps"]
    assert all(np.array_equal(x, y) for x, y in zip(_weights(runs[0]), _weights(runs[1])))
    # from the second batch on the overlapped run's games were played by older weights: another run
    assert not all(np.array_equal(x, y) for x, y in zip(_weights(plain), _weights(runs[0])))


def test_the_checkpoint_holds_the_updaters_optimiser_and_resumes(tmp_path):
    first = native_ppo.train(_cfg(tmp_path, total_timesteps=3_000, overlap_update=True), progress=False)
    state = torch.load(first["checkpoint"], weights_only=True)
    done = [0] + [int(row["timesteps"]) for row in _progress(first)]
    minibatches = sum(TINY["n_epochs"] * math.ceil((b - a) / TINY["batch_size"]) for a, b in zip(done, done[1:]))
    # the learner's own optimiser never steps when overlapped: these Adam steps are the updater's
    assert state["steps"] == first["timesteps"] == done[-1]
    assert int(state["optimiser"]["state"][0]["step"]) == minibatches
    more = native_ppo.train(_cfg(tmp_path, total_timesteps=6_000, overlap_update=True), resume=first["run_dir"],
                            progress=False)
    assert more["timesteps"] >= 6_000 and more["trained_timesteps"] == more["timesteps"] - first["timesteps"]


def test_ctrl_c_keeps_the_update_in_flight_and_a_resumable_checkpoint(tmp_path, monkeypatch):
    calls = {"n": 0}
    real_step = VectorGames.step

    def step_then_interrupt(self, actions):
        calls["n"] += 1
        if calls["n"] == 80:  # as if the user pressed Ctrl-C once, while an update runs in the updater
            signal.raise_signal(signal.SIGINT)
        return real_step(self, actions)

    monkeypatch.setattr(VectorGames, "step", step_then_interrupt)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        summary = native_ppo.train(_cfg(tmp_path, total_timesteps=50_000, overlap_update=True), progress=False)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert summary["interrupted"] and 0 < summary["timesteps"] < 50_000
    assert torch.load(summary["checkpoint"], weights_only=True)["steps"] == summary["timesteps"]
    assert load_agent(summary["run_dir"] + "/policy", Game()).policy.metadata["training_steps"] == summary["timesteps"]
    monkeypatch.setattr(VectorGames, "step", real_step)
    more = native_ppo.train(_cfg(tmp_path, total_timesteps=summary["timesteps"] + 1_000, overlap_update=True),
                            resume=summary["run_dir"], progress=False)
    assert more["timesteps"] >= summary["timesteps"] + 1_000 and not more["interrupted"]


@pytest.mark.parametrize("bad, message", [({"algo": "sb3"}, "'overlap_update' needs algo: ppo"),
                                          ({"overlap_update": "yes"}, "overlap_update")])
def test_bad_overlap_update_is_a_clear_error(tmp_path, bad, message):
    with pytest.raises(ConfigError, match=message):
        _cfg(tmp_path, **{"overlap_update": True, **bad})
