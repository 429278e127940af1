"""``overlap_update``: the PPO update runs in a second process beside the next batch's collection."""
from __future__ import annotations

import csv
import math
import signal

import numpy as np
import pytest
import torch

from agents import load as load_agent
from train.ppo import trainer as native_ppo
from train.config import ConfigError, TrainConfig
from uno_env import Game
from uno_env.vector import VectorGames

pytestmark = pytest.mark.slow  # trains with a second update process: left out of make test-quick

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


def _interrupted_then_resumed(tmp_path, monkeypatch, target, name: str, replacement) -> None:
    """Train with ``target.name`` replaced (it raises Ctrl-Cs), check the saved run agrees with itself, resume it."""
    real = getattr(target, name)
    monkeypatch.setattr(target, name, replacement)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        summary = native_ppo.train(_cfg(tmp_path, total_timesteps=50_000, overlap_update=True), progress=False)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert summary["interrupted"] and 0 < summary["timesteps"] < 50_000
    # the update in flight is kept: the checkpoint and the policy count the same decisions
    assert torch.load(summary["checkpoint"], weights_only=True)["steps"] == summary["timesteps"]
    assert load_agent(summary["run_dir"] + "/policy", Game()).policy.metadata["training_steps"] == summary["timesteps"]
    monkeypatch.setattr(target, name, real)
    more = native_ppo.train(_cfg(tmp_path, total_timesteps=summary["timesteps"] + 1_000, overlap_update=True),
                            resume=summary["run_dir"], progress=False)
    assert more["timesteps"] >= summary["timesteps"] + 1_000 and not more["interrupted"]


def test_ctrl_c_keeps_the_update_in_flight_and_a_resumable_checkpoint(tmp_path, monkeypatch):
    calls = {"n": 0}
    real_step = VectorGames.step

    def step_then_interrupt(self, actions):
        calls["n"] += 1
        if calls["n"] == 80:  # as if the user pressed Ctrl-C once, while an update runs in the updater
            signal.raise_signal(signal.SIGINT)
        return real_step(self, actions)

    _interrupted_then_resumed(tmp_path, monkeypatch, VectorGames, "step", step_then_interrupt)


def test_ctrl_c_pressed_three_times_while_the_updater_answers_still_saves(tmp_path, monkeypatch, capfd):
    from train.ppo.updater import UpdaterProcess

    calls = {"n": 0}
    real_reply = UpdaterProcess._reply

    def reply_under_ctrl_c(self):
        calls["n"] += 1
        if 2 <= calls["n"] <= 4:  # a Ctrl-C each time the learner waits for the updater: stop, then twice "at once"
            signal.raise_signal(signal.SIGINT)
        return real_reply(self)

    _interrupted_then_resumed(tmp_path, monkeypatch, UpdaterProcess, "_reply", reply_under_ctrl_c)
    assert "stopping as soon as the update process has answered" in capfd.readouterr().err


def test_the_learner_and_the_updater_split_the_threads(tmp_path, monkeypatch):
    # two processes with all of torch's threads each oversubscribe the cores (3.5 times slower, measured)
    from train.ppo.updater import UpdaterProcess

    before = torch.get_num_threads()
    seen, handed = [], []
    real_init = UpdaterProcess.__init__

    def recording_init(self, cfg, net_args, net, optimiser, rng, threads):
        handed.append(threads)
        real_init(self, cfg, net_args, net, optimiser, rng, threads)

    monkeypatch.setattr(UpdaterProcess, "__init__", recording_init)
    torch.set_num_threads(4)
    try:
        native_ppo.train(_cfg(tmp_path, total_timesteps=3_000, overlap_update=True), progress=False,
                         on_update=lambda steps, export: seen.append(torch.get_num_threads()))
        assert seen and set(seen) == {2} and handed == [2]  # the learner's half, and the updater's
        assert torch.get_num_threads() == 4  # and the caller's setting is back afterwards
    finally:
        torch.set_num_threads(before)


def test_an_updater_that_cannot_start_says_why(tmp_path):
    from train.ppo.network import build_network
    from train.ppo.updater import UpdaterProcess

    cfg = _cfg(tmp_path)
    net = build_network(10, 4, [8])
    optimiser = torch.optim.Adam(net.parameters())
    # the process builds a network of other sizes, so the weights it is handed do not fit
    updater = UpdaterProcess(cfg, (12, 4, [8]), net, optimiser, np.random.default_rng(0), 1)
    try:
        arrays = (np.zeros((4, 10), np.float32), np.ones((4, 4), np.int8), np.zeros(4, np.int64),
                  np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32))
        updater.submit(arrays, True)
        with pytest.raises(RuntimeError, match="updater process failed:(.|\n)*size mismatch"):
            updater.result()
    finally:
        updater.close()
    assert not updater.process.is_alive()


def test_a_shielded_block_holds_the_second_ctrl_c_until_it_ends():
    from train.progress import StopRequest

    stop = StopRequest()
    stop._handle(signal.SIGINT, None)  # the first Ctrl-C only asks to stop
    assert stop.requested
    with pytest.raises(KeyboardInterrupt):
        with stop.shielded():
            stop._handle(signal.SIGINT, None)  # held: the block runs to its end
            finished = True
    assert finished
    with stop.shielded(finishing=True):  # already stopping: held and then dropped
        stop._handle(signal.SIGINT, None)
    with pytest.raises(KeyboardInterrupt):  # outside a shield it stops at once, as before
        stop._handle(signal.SIGINT, None)


@pytest.mark.parametrize("bad, message", [({"algo": "sb3"}, "'overlap_update' needs algo: ppo"),
                                          ({"overlap_update": "yes"}, "overlap_update")])
def test_bad_overlap_update_is_a_clear_error(tmp_path, bad, message):
    with pytest.raises(ConfigError, match=message):
        _cfg(tmp_path, **{"overlap_update": True, **bad})
