"""The native PPO (``algo: ppo``): it learns, it is deterministic, it resumes, its config is checked."""
from __future__ import annotations

import numpy as np
import pytest

from agents import load as load_agent
from train import native_ppo
from train.config import ConfigError, TrainConfig
from train.evaluation.stats import head_to_head
from uno_env import Game

TINY = dict(algo="ppo", total_timesteps=12_000, num_games=32, n_steps=64, batch_size=256, n_epochs=4,
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
    with pytest.raises(ConfigError, match="already holds a training run"):
        native_ppo.train(_cfg(tmp_path, total_timesteps=2_000), progress=False)


@pytest.mark.parametrize("bad, message", [({"algo": "a2c"}, "allowed: sb3, ppo"),
                                          ({"self_play_games": 1.5}, "must be in \\[0, 1\\]"),
                                          ({"num_games": 0}, "'num_games' must be >= 1"),
                                          ({"num_game": 8}, "did you mean 'num_games'")])
def test_bad_native_config_is_a_clear_error(tmp_path, bad, message):
    with pytest.raises(ConfigError, match=message):
        _cfg(tmp_path, **bad)
