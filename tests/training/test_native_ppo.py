"""The native PPO (``algo: ppo``): it learns, it is deterministic, it resumes, its config is checked."""
from __future__ import annotations

import os

import numpy as np
import pytest

from agents import load as load_agent
from train.ppo import trainer as native_ppo
from train.config import ConfigError, TrainConfig
from train.evaluation.stats import head_to_head
from uno_env import Game
from uno_env.vector import VectorGames
from paths import DATA  # tests/paths.py

pytestmark = pytest.mark.slow  # trains native PPO runs: left out of make test-quick

#: The earlier SB3 agent shipped as pretrained:attack-2p, kept as the example of observation layout 1.
SB3_ATTACK_2P = os.path.join(DATA, "sb3-attack-2p")

TINY = dict(algo="ppo", gamma=1.0, total_timesteps=12_000, num_games=32, n_steps=64, batch_size=256, n_epochs=4,
            net_arch=[64, 64], snapshot_every=4_000, eval_every=100_000, eval_games=20, run_name="native")


def _cfg(tmp_path, **kw) -> TrainConfig:
    return TrainConfig.from_dict({**TINY, "out_dir": str(tmp_path / "runs"), **kw})


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("native")
    return native_ppo.train(_cfg(tmp), progress=False), tmp


def test_a_short_run_beats_random_clearly(trained):
    summary, _ = trained
    game = Game("classic", num_players=2)
    agent = load_agent(summary["run_dir"] + "/policy", game)
    result = head_to_head(game, lambda i: agent, lambda i: load_agent("random", game, seed=i), 400, seed=123)
    assert result["ci95"][0] > 0.65, result  # 50% is no learning; 12,000 decisions reach about 75%


def test_the_export_loads_everywhere_a_policy_does(trained):
    summary, _ = trained
    agent = load_agent(summary["run_dir"] + "/policy", Game("classic", num_players=2))
    assert agent.policy.metadata["training_steps"] == summary["timesteps"] >= TINY["total_timesteps"]


def test_same_seed_same_collected_batch_and_weights(tmp_path):
    a = native_ppo.train(_cfg(tmp_path / "a", total_timesteps=2_000, eval_games=2), progress=False)
    b = native_ppo.train(_cfg(tmp_path / "b", total_timesteps=2_000, eval_games=2), progress=False)
    wa = load_agent(a["run_dir"] + "/policy", Game()).policy.weights
    wb = load_agent(b["run_dir"] + "/policy", Game()).policy.weights
    assert a["timesteps"] == b["timesteps"] and all(np.array_equal(x, y) for x, y in zip(wa, wb))


def test_resume_continues_from_the_saved_step(tmp_path):
    first = native_ppo.train(_cfg(tmp_path, total_timesteps=2_000, eval_games=2), progress=False)
    more = native_ppo.train(_cfg(tmp_path, total_timesteps=4_000, eval_games=2), resume=first["run_dir"],
                            progress=False)
    assert more["timesteps"] >= 4_000 and more["trained_timesteps"] == more["timesteps"] - first["timesteps"]
    eval_rows = (tmp_path / "runs" / "native" / "eval.csv").read_text().splitlines()
    again = native_ppo.train(_cfg(tmp_path, total_timesteps=4_000, eval_games=2), resume=first["run_dir"],
                             progress=False)  # already finished: nothing to train, no new eval rows
    assert again["trained_timesteps"] == 0 and again["evaluation"] == more["evaluation"]
    assert (tmp_path / "runs" / "native" / "eval.csv").read_text().splitlines() == eval_rows
    with pytest.raises(ConfigError, match="already holds a training run"):
        native_ppo.train(_cfg(tmp_path, total_timesteps=2_000), progress=False)


@pytest.mark.parametrize("bad, message", [({"algo": "a2c"}, "allowed: sb3, ppo"),
                                          ({"self_play_games": 1.5}, "must be in \\[0, 1\\]"),
                                          ({"num_games": 0}, "'num_games' must be >= 1"),
                                          ({"num_game": 8}, "did you mean 'num_games'")])
def test_bad_native_config_is_a_clear_error(tmp_path, bad, message):
    with pytest.raises(ConfigError, match=message):
        _cfg(tmp_path, **bad)


def test_one_policy_trains_at_two_table_sizes_and_plays_both(tmp_path):
    summary = native_ppo.train(_cfg(tmp_path, total_timesteps=3_000, table_sizes=[2, 4], eval_games=4),
                               progress=False)
    policy = summary["run_dir"] + "/policy"
    assert load_agent(policy, Game()).policy.metadata["table_sizes"] == [2, 4]
    four = Game("classic", num_players=4)
    agent = load_agent(policy, four)  # no strict_rules=False needed at a size it trained at
    result = head_to_head(four, lambda i: agent, lambda i: load_agent("random", four, seed=i), 8, seed=1)
    assert result["games"] == 8
    assert {"random", "heuristic", "random@4p", "heuristic@4p"} <= set(summary["evaluation"])
    from agents.policy_file import PolicyFileError
    with pytest.raises(PolicyFileError, match="2/4 players \\(the game has 3\\)"):
        load_agent(policy, Game("classic", num_players=3))


def test_ctrl_c_stops_with_a_resumable_checkpoint_and_a_policy(tmp_path, monkeypatch):
    import signal

    calls = {"n": 0}
    real_step = VectorGames.step

    def step_then_interrupt(self, actions):
        calls["n"] += 1
        if calls["n"] == 100:  # as if the user pressed Ctrl-C once, mid-collection
            signal.raise_signal(signal.SIGINT)
        return real_step(self, actions)

    monkeypatch.setattr(VectorGames, "step", step_then_interrupt)
    # the test process's own handler may have been changed by an earlier test in this worker: start from Python's
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        summary = native_ppo.train(_cfg(tmp_path, total_timesteps=50_000, eval_games=2), progress=False)
        restored = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert summary["interrupted"] and summary["timesteps"] < 50_000
    assert load_agent(summary["run_dir"] + "/policy", Game()).policy.metadata["training_steps"] == summary["timesteps"]
    assert restored is signal.default_int_handler  # the handler is restored
    monkeypatch.setattr(VectorGames, "step", real_step)
    more = native_ppo.train(_cfg(tmp_path, total_timesteps=summary["timesteps"] + 2_000, eval_games=2),
                            resume=summary["run_dir"], progress=False)
    assert more["timesteps"] >= summary["timesteps"] + 2_000 and not more["interrupted"]


@pytest.mark.parametrize("bad, message", [({"table_sizes": [2, 11]}, "players"),
                                          ({"table_sizes": [3, 4]}, "must include num_players = 2"),
                                          ({"algo": "sb3", "table_sizes": [2, 4]}, "needs algo: ppo")])
def test_bad_table_sizes_are_clear_errors(tmp_path, bad, message):
    from uno_env.errors import RuleError

    with pytest.raises((ConfigError, RuleError), match=message):
        _cfg(tmp_path, **bad)


def test_collector_worker_processes_give_the_same_run_every_time(tmp_path):
    runs = [native_ppo.train(_cfg(tmp_path / name, total_timesteps=2_000, eval_games=2, collector_workers=2,
                                  table_sizes=[2, 3]), progress=False) for name in ("a", "b")]
    weights = [load_agent(r["run_dir"] + "/policy", Game()).policy.weights for r in runs]
    assert runs[0]["timesteps"] == runs[1]["timesteps"] >= 2_000
    assert all(np.array_equal(x, y) for x, y in zip(*weights))


def test_resume_refuses_another_runs_directory_and_a_run_without_a_native_checkpoint(tmp_path):
    first = native_ppo.train(_cfg(tmp_path, total_timesteps=1_000, eval_games=2), progress=False)
    with pytest.raises(ConfigError, match="that is the run in"):
        native_ppo.train(_cfg(tmp_path, run_name="other", total_timesteps=2_000), resume=first["run_dir"],
                         progress=False)
    (tmp_path / "runs" / "empty" / "checkpoints").mkdir(parents=True)
    with pytest.raises(ConfigError, match="no native PPO checkpoint"):
        native_ppo.train(_cfg(tmp_path, run_name="empty"), resume=str(tmp_path / "runs" / "empty"), progress=False)
    with pytest.raises(ConfigError, match="does not fit this config's network"):
        native_ppo.train(_cfg(tmp_path, net_arch=[8], total_timesteps=2_000), resume=first["run_dir"],
                         progress=False)


def test_collector_flags_games_cut_at_max_steps_and_trajectories_pay_their_reward(tmp_path):
    from train.collect.collector import Collector
    from train.ppo.trajectories import Trajectories

    cfg = _cfg(tmp_path, rule_options={"max_steps": 3}, self_play_games=1.0)
    collector = Collector(cfg, 0, [4])
    request = collector.reset(seed=0)
    finished = []
    for _ in range(3):
        request = collector.step(np.array([np.flatnonzero(m)[0] for m in request.mask]))
        finished += request.finished
    assert len(finished) == 4 and all(truncated for *_, truncated in finished)
    assert all(rewards == [0.0, 0.0] for _, _, rewards, _ in finished)  # the engine's own: no winner
    trajectories = Trajectories(gamma=1.0, lam=1.0, layout=[[(1, 2)]])  # one collector: one 2-player game
    for step in range(3):
        zero = np.zeros(1, dtype=np.float32)
        trajectories.add(0, np.array([[0, 0, step % 2]]), np.zeros((1, 1), np.float32), np.ones((1, 1), np.int8),
                         np.zeros(1, np.int64), zero, zero)
    trajectories.finish((0, 3, 0, 0), 0, 0, 0, [cfg.truncation_reward] * 2)
    returns = trajectories.take()[5]
    assert [round(float(r), 6) for r in returns] == [-1.0, -1.0, -1.0]  # every seat's steps learn -1


def test_init_from_starts_a_new_run_from_another_runs_network(trained, tmp_path):
    summary, _ = trained
    game = Game("classic", num_players=2)
    source = load_agent(summary["run_dir"] + "/policy", game).policy.weights
    # a step size too small to move the weights: the fine-tuned run's export is the source network
    tuned = native_ppo.train(_cfg(tmp_path, init_from=summary["run_dir"], learning_rate=1e-12,
                                  total_timesteps=500, eval_games=2, seed=5), progress=False)
    assert 500 <= tuned["timesteps"] < summary["timesteps"]  # the step count starts afresh
    weights = load_agent(tuned["run_dir"] + "/policy", game).policy.weights
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(weights, source))
    fresh = native_ppo.train(_cfg(tmp_path, run_name="fresh", learning_rate=1e-12, total_timesteps=500,
                                  eval_games=2, seed=5), progress=False)
    assert not np.allclose(load_agent(fresh["run_dir"] + "/policy", game).policy.weights[0], source[0])
    # the checkpoint file itself and the checkpoints/ folder name the same network
    for where in ("checkpoints", f"checkpoints/{native_ppo.CHECKPOINT}"):
        again = native_ppo.train(_cfg(tmp_path, run_name=where.replace("/", "-"),
                                      init_from=f"{summary['run_dir']}/{where}", learning_rate=1e-12,
                                      total_timesteps=500, eval_games=2), progress=False)
        assert np.allclose(load_agent(again["run_dir"] + "/policy", game).policy.weights[0], source[0], atol=1e-6)


def test_bad_init_from_is_a_clear_error_that_creates_nothing(trained, tmp_path):
    summary, _ = trained
    with pytest.raises(ConfigError, match="nothing to start from there; allowed: a native PPO run directory"):
        native_ppo.train(_cfg(tmp_path, init_from=str(tmp_path / "nowhere")), progress=False)
    assert not (tmp_path / "runs").exists()
    with pytest.raises(ConfigError, match="does not fit this config's network"):
        native_ppo.train(_cfg(tmp_path, init_from=summary["run_dir"], net_arch=[8]), progress=False)
    junk = tmp_path / "junk.pt"
    junk.write_text("not a checkpoint")
    with pytest.raises(ConfigError, match="is not a native PPO checkpoint"):
        native_ppo.train(_cfg(tmp_path, run_name="junk", init_from=str(junk)), progress=False)
    with pytest.raises(ConfigError, match="'init_from' needs algo: ppo"):
        TrainConfig.from_dict({"algo": "sb3", "init_from": summary["run_dir"]})
    with pytest.raises(ConfigError, match="set one of them"):
        _cfg(tmp_path, init_from=summary["run_dir"], teacher="ismcts")
    # exported policy files: a shipped name that does not exist, another network, another variant
    with pytest.raises(ConfigError, match=r"no pretrained policy 'klassic' \(did you mean 'classic'\?\); shipped: "):
        native_ppo.train(_cfg(tmp_path, init_from="pretrained:klassic"), progress=False)
    with pytest.raises(ConfigError, match=r"hidden layers \[128, 128\]; this config's network is tanh with net_arch"):
        native_ppo.train(_cfg(tmp_path, run_name="arch", init_from="pretrained:classic"), progress=False)
    with pytest.raises(ConfigError, match="policy does not fit this game: variant 'flip'"):
        native_ppo.train(_cfg(tmp_path, run_name="variant", init_from="pretrained:flip", net_arch=[128, 128]),
                         progress=False)
    exported_only = tmp_path / "sb3-run"
    load_agent("pretrained:classic", Game("classic", num_players=2)).policy.save(str(exported_only / "policy"))
    with pytest.raises(ConfigError, match="that run's exported policy is .*sb3-run/policy"):
        native_ppo.train(_cfg(tmp_path, run_name="sb3", init_from=str(exported_only)), progress=False)
    with pytest.raises(ConfigError, match="'critic_warmup_steps' = -1 must be >= 0"):
        _cfg(tmp_path, critic_warmup_steps=-1)


def test_init_from_a_policy_file_loads_its_actor_and_the_warmup_holds_it(trained, tmp_path):
    summary, _ = trained
    game = Game("classic", num_players=2)
    source = load_agent(summary["run_dir"] + "/policy", game).policy.weights
    # every way of naming the file; a real step size, but the whole run is critic warm-up: the actor is held
    for k, name in enumerate(("policy", "policy.npz", "policy.json")):
        held = native_ppo.train(_cfg(tmp_path, run_name=f"held{k}", init_from=f"{summary['run_dir']}/{name}",
                                     critic_warmup_steps=10_000, total_timesteps=1_000, eval_games=2),
                                progress=False)
        weights = load_agent(held["run_dir"] + "/policy", game).policy.weights
        assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(weights, source))
    # without the warm-up the same run moves the actor
    moved = native_ppo.train(_cfg(tmp_path, run_name="moved", init_from=f"{summary['run_dir']}/policy",
                                  total_timesteps=1_000, eval_games=2), progress=False)
    assert not np.allclose(load_agent(moved["run_dir"] + "/policy", game).policy.weights[0], source[0], atol=1e-6)
    # a shipped policy, fine-tuned at another table size than it was trained for
    shipped = load_agent("pretrained:classic", Game("classic", num_players=2)).policy.weights
    tuned = native_ppo.train(_cfg(tmp_path, run_name="shipped", init_from="pretrained:classic", num_players=3,
                                  net_arch=[128, 128], critic_warmup_steps=10_000, total_timesteps=500,
                                  eval_games=2), progress=False)
    weights = load_agent(tuned["run_dir"] + "/policy", Game("classic", num_players=3)).policy.weights
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(weights, shipped))


def test_init_from_an_older_observation_layout_keeps_its_behaviour(tmp_path):
    # the earlier SB3 attack-2p (shipped until the native specialist replaced it) reads observation layout 1,
    # a prefix of today's; the fine-tune reads today's
    game = Game("attack", num_players=2)
    old = load_agent(SB3_ATTACK_2P, game)
    assert old.policy.metadata["observation_layout_version"] == 1
    run = native_ppo.train(_cfg(tmp_path, variant="attack", init_from=SB3_ATTACK_2P, net_arch=[256, 256],
                                critic_warmup_steps=10_000, total_timesteps=300, eval_games=2), progress=False)
    new = load_agent(run["run_dir"] + "/policy", game)
    assert new.policy.metadata["observation_layout_version"] > 1
    observations = np.random.default_rng(0).random((16, new.policy.weights[0].shape[0]), dtype=np.float32)
    assert np.allclose(new.logits(observations), old.logits(observations), atol=1e-4)


def test_torch_threads_bounds_the_learner_during_the_run_and_is_restored_after(tmp_path, monkeypatch):
    import torch

    seen = []
    update = native_ppo.ppo_update

    def counting_update(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return update(*args, **kwargs)

    monkeypatch.setattr(native_ppo, "ppo_update", counting_update)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        native_ppo.train(_cfg(tmp_path, total_timesteps=2_000, eval_games=2, torch_threads=1), progress=False)
        assert seen and set(seen) == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("load, threads, hinted", [(1.0, 2, True), (0.1, 2, False), (3.0, 1, False)])
def test_a_busy_machine_gets_the_torch_threads_hint(monkeypatch, load, threads, hinted):
    monkeypatch.setattr(native_ppo.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(native_ppo.os, "getloadavg", lambda: (load, load, load))
    hint = native_ppo.busy_machine_hint(threads)
    assert (hint is not None) == hinted
    if hinted:
        assert "torch_threads: 1" in hint and f"load {load:.1f} on 2 cores" in hint
