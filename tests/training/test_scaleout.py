"""Scaling out on Ray: tournaments as Ray tasks, collectors as Ray actors, RLlib's PPO through the AEC env.

One local Ray instance (2 CPUs, no dashboard) serves the whole module: Ray takes seconds to start.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest
import ray

from agents import load as load_agent
from train.ppo import trainer as native_ppo
from train.app.cli import main
from train.config import TrainConfig
from train.errors import UsageError
from train.evaluation import tournament, worker
from train.scaleout import require_ray
from uno_env import Game, RuleSet

pytestmark = pytest.mark.slow  # starts Ray: left out of make test-quick



@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _stream_indices(out_dir) -> list[int]:
    with open(os.path.join(out_dir, "games-played.jsonl"), encoding="utf-8") as fh:
        return [json.loads(line)["index"] for line in fh.read().splitlines()[1:]]


def test_a_tournament_on_ray_equals_the_local_one(tmp_path):
    from train.scaleout import tournament as ray_tournament

    rules = RuleSet.create("classic", 4)
    specs = ["pretrained:classic", "heuristic", "random"]  # a policy agent travels to the workers
    local = tournament.run_tournament(rules, specs, 24, seed=7, workers=1, progress=False, out_dir=str(tmp_path / "a"))
    on_ray = tournament.run_tournament(rules, specs, 24, seed=7, progress=False, out_dir=str(tmp_path / "b"),
                                       runner=ray_tournament.ray_runner("local", num_cpus=2))
    assert on_ray == local
    assert sorted(_stream_indices(tmp_path / "b")) == list(range(len(tournament.schedule(3, 4, 24))))


def test_a_lost_worker_s_chunk_is_played_again_and_counted_once(tmp_path):
    from train.scaleout import tournament as ray_tournament

    marker = str(tmp_path / "crashed")

    def crash_once(setup, jobs):  # the worker process dies mid-chunk the first time game 0's chunk runs
        if jobs[0][0] == 0 and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)
        return ray_tournament.play_chunk(setup, jobs)

    rules = RuleSet.create("classic", 2)
    specs = ["heuristic", "greedy"]
    jobs = [(i, 3, tuple(s), False) for i, s in enumerate(tournament.schedule(2, 2, 40))]
    loaded = {s: load_agent(s, Game(rules)) for s in specs}
    os.makedirs(tmp_path / "out")
    with open(tmp_path / "out" / "games-played.jsonl", "w", encoding="utf-8") as sink:
        sink.write("{}\n")
        played = ray_tournament.run_jobs(rules, specs, jobs, loaded, progress=False, sink=sink,
                                         task=ray.remote(max_retries=2)(crash_once))
    assert os.path.exists(marker)  # the crash did happen
    worker.init_worker(rules.to_dict(), specs)
    expected = [worker.play_job(job) for job in jobs]
    assert sorted(played, key=lambda r: r["index"]) == expected
    assert sorted(_stream_indices(tmp_path / "out")) == list(range(40))


TINY = dict(algo="ppo", gamma=1.0, total_timesteps=1_000, num_games=8, n_steps=32, batch_size=256, n_epochs=2,
            net_arch=[32, 32], snapshot_every=500, eval_every=100_000, eval_games=4, run_name="native")


def test_ray_collectors_train_like_the_local_collector_and_checkpoint(tmp_path):
    cfg = dict(TINY, ray_collectors=1)
    local = native_ppo.train(TrainConfig.from_dict({**cfg, "out_dir": str(tmp_path / "a")}), progress=False)
    on_ray = native_ppo.train(TrainConfig.from_dict({**cfg, "out_dir": str(tmp_path / "b")}), progress=False,
                              ray_address="local")
    assert on_ray["timesteps"] == local["timesteps"] >= 1_000
    assert os.path.exists(on_ray["checkpoint"])
    wa = load_agent(local["run_dir"] + "/policy", Game()).policy.weights
    wb = load_agent(on_ray["run_dir"] + "/policy", Game()).policy.weights
    assert all(np.array_equal(x, y) for x, y in zip(wa, wb))  # same games, seeds and answers: same weights


def test_two_ray_collectors_at_two_table_sizes_make_progress(tmp_path):
    cfg = TrainConfig.from_dict({**TINY, "ray_collectors": 2, "table_sizes": [2, 3], "snapshot_every": 300,
                                 "out_dir": str(tmp_path)})
    summary = native_ppo.train(cfg, progress=False, ray_address="local")
    assert summary["timesteps"] >= 1_000 and os.path.exists(summary["checkpoint"])
    with open(os.path.join(summary["run_dir"], "progress.csv"), encoding="utf-8") as fh:
        assert len(fh.read().splitlines()) >= 2  # a header and one row per update


def test_more_ray_collectors_than_games_is_refused(tmp_path):
    cfg = TrainConfig.from_dict({**TINY, "ray_collectors": 20, "out_dir": str(tmp_path)})
    with pytest.raises(ValueError, match="ray_collectors = 20"):
        native_ppo.train(cfg, progress=False, ray_address="local")


@pytest.mark.parametrize("variant,players", [("classic", 2), ("flip", 3)])
def test_rllib_ppo_trains_a_masked_policy_and_exports_it(tmp_path, variant, players):
    from train.rllib import trainer as rllib

    cfg = rllib.RllibConfig.from_dict({"variant": variant, "num_players": players, "iterations": 2,
                                       "train_batch_size": 300, "minibatch_size": 100, "num_epochs": 1,
                                       "net_arch": [32], "num_env_runners": 1 if variant == "classic" else 0,
                                       "eval_games": 6, "out_dir": str(tmp_path)})
    # the env raises on an illegal action, so finished iterations mean the masks were honoured
    summary = rllib.train(cfg, progress=False)
    assert summary["timesteps"] >= 600
    with open(os.path.join(summary["run_dir"], "progress.csv"), encoding="utf-8") as fh:
        assert len(fh.read().splitlines()) == 3
    assert os.path.isdir(summary["checkpoint"])
    game = Game(variant, num_players=players)
    agent = load_agent(summary["run_dir"] + "/policy", game)  # our policy.npz, checked against the game
    assert agent.policy.metadata["training_steps"] == summary["timesteps"]
    assert set(agent.policy.metadata["evaluation"]) == {"random", "heuristic"}


def test_the_multi_agent_env_plays_whole_games_and_pays_every_seat():
    from train.rllib.env import UnoMultiAgentEnv

    env = UnoMultiAgentEnv({"variant": "classic", "num_players": 3})
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=5)
    for _ in range(5_000):
        (agent, o), = obs.items()
        obs, rewards, terminated, truncated, _ = env.step({agent: rng.choice(np.flatnonzero(o["action_mask"]))})
        if terminated["__all__"] or truncated["__all__"]:
            break
        assert len(obs) == 1 and set(rewards) == set(obs)
    assert set(obs) == set(rewards) == {"player_0", "player_1", "player_2"}
    assert sorted(rewards.values()) == [-0.5, -0.5, 1.0]


def test_the_rl_module_gives_illegal_actions_no_probability():
    import torch
    from ray.rllib.core.columns import Columns

    from train.rllib.env import MaskedActorCritic, UnoMultiAgentEnv

    env = UnoMultiAgentEnv({"variant": "classic", "num_players": 2})
    module = MaskedActorCritic(observation_space=env.observation_spaces["player_0"],
                               action_space=env.action_spaces["player_0"], model_config={"hidden": [16]})
    obs, _ = env.reset(seed=1)
    (o,) = obs.values()
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in o.items()}}
    probs = torch.softmax(module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS], -1)[0].detach().numpy()
    assert probs[o["action_mask"] == 0].max() < 1e-12 and abs(probs.sum() - 1) < 1e-5
    assert module.compute_values(batch).shape == (1,)


def test_without_ray_the_flag_says_what_to_install(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if it were not installed
    with pytest.raises(UsageError, match=r"uno-env\[ray\]"):
        require_ray()
    status = main(["eval", "--agents", "random", "greedy", "--games", "2", "--out", str(tmp_path), "--ray"])
    assert status == 2 and "pip install 'uno-env[ray]'" in capsys.readouterr().err


def test_an_address_nobody_answers_on_is_refused_at_once():
    from train.scaleout.ray_session import _check_reachable

    with pytest.raises(UsageError, match="no Ray cluster answers there"):
        _check_reachable("127.0.0.1:1")
    with pytest.raises(UsageError, match="not an address"):
        _check_reachable("nonsense")
