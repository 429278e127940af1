"""``oracle_guiding_steps``: the actor sees the hidden cards early on, then less, then never; the export reads the observation."""
from __future__ import annotations

import csv

import numpy as np
import pytest
import torch

from agents import load as load_agent
from train.ppo import trainer as native_ppo
from train.collect.collector import Collector
from train.config import ConfigError, TrainConfig
from train.ppo.network import build_network
from train.collect.privileged import PrivilegedEncoder
from uno_env import Game
from tiny_configs import FOUR_PLAYER_PPO, config_in  # tests/tiny_configs.py

pytestmark = pytest.mark.slow  # trains PPO runs: left out of make test-quick

TINY = FOUR_PLAYER_PPO


def _cfg(tmp_path, **kw) -> TrainConfig:
    return config_in(tmp_path, TINY, **kw)


def _progress(run_dir: str) -> list[dict]:
    with open(run_dir + "/progress.csv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_keep_probability_is_one_then_falls_linearly_to_zero(tmp_path):
    cfg = _cfg(tmp_path, oracle_guiding_steps=[1_000, 3_000])
    assert [cfg.oracle_keep(s) for s in (0, 999, 1_000, 2_000, 2_500, 3_000, 10**9)] == [1, 1, 1, 0.5, 0.25, 0, 0]
    assert _cfg(tmp_path).oracle_keep(0) == 0.0  # off: the actor never sees the block
    assert _cfg(tmp_path, oracle_guiding_steps=[0, 1]).oracle_keep(0) == 1.0


def test_the_actor_reads_its_own_copy_of_the_block_and_the_export_reads_the_observation_alone(tmp_path):
    cfg = _cfg(tmp_path, oracle_guiding_steps=[1, 2])
    game = Game("classic", 4)
    request = Collector(cfg, 0, [8]).reset(3)
    block = PrivilegedEncoder(game)
    size = request.obs.shape[1] - block.size
    net = build_network(size, game.num_actions, [32, 32], 0, 0, block.size, block.size)
    with torch.no_grad():
        net.actor[0].weight[:, size:] = torch.randn(32, block.size)  # inputs on the block that matter
    mask = torch.from_numpy(request.mask)
    shown = torch.from_numpy(np.concatenate([request.obs, request.obs[:, size:]], axis=1))
    hidden_gone = shown.clone()
    hidden_gone[:, -block.size:] = 0.0
    full_changed = hidden_gone.clone()
    full_changed[:, size:size + block.size] += 3.0  # the critic's copy: the actor must not read it
    logits_shown, _ = net(shown, mask)
    logits_gone, value_gone = net(hidden_gone, mask)
    logits_changed, value_changed = net(full_changed, mask)
    assert not torch.allclose(logits_shown, logits_gone)  # the actor reads its copy
    assert torch.equal(logits_gone, logits_changed) and torch.equal(value_gone, value_changed)
    # the played policy: the observation's weights only, the same logits as the net once the block is gone
    exported = net.exported_actor()
    assert exported[0].in_features == size
    features = torch.from_numpy(request.obs[:, :size])
    for layer in exported[:-1]:
        features = torch.tanh(layer(features))
    assert torch.allclose(exported[-1](features).masked_fill(mask == 0, -1e9), logits_gone, atol=1e-5)


def test_an_oracle_run_drops_the_block_exports_a_plain_policy_and_repeats_itself(tmp_path):
    runs = [native_ppo.train(_cfg(tmp_path, run_name=f"o{k}", oracle_guiding_steps=[2_000, 4_000],
                                  privileged_critic=True, total_timesteps=6_000), progress=False)
            for k in range(2)]
    game = Game("classic", 4)
    first, again = (load_agent(r["run_dir"] + "/policy", game).policy for r in runs)
    assert first.weights[0].shape[0] == first.metadata["observation_size"]
    assert all(np.array_equal(a, b) for a, b in zip(first.weights, again.weights))
    rows = _progress(runs[0]["run_dir"])
    keep = [(int(r["timesteps"]), float(r["oracle_keep"])) for r in rows]
    assert keep[0][1] == 1.0 and keep[-1] == (keep[-1][0], 0.0)
    assert all(a >= b for (_, a), (_, b) in zip(keep, keep[1:]))  # the schedule only goes down
    assert any(0 < k < 1 for _, k in keep)
    # the saved network's weights on the block were trained while it was shown
    saved = torch.load(runs[0]["checkpoint"], weights_only=True)["net"]["actor.0.weight"]
    assert saved.shape[1] == first.metadata["observation_size"] + PrivilegedEncoder(game).size
    assert saved[:, first.metadata["observation_size"]:].abs().sum() > 0


def test_a_plain_run_starts_an_oracle_run_playing_as_before_and_back(tmp_path):
    source = native_ppo.train(_cfg(tmp_path, run_name="plain"), progress=False)
    tuned = native_ppo.train(_cfg(tmp_path, run_name="tuned", init_from=source["run_dir"], learning_rate=1e-12,
                                  oracle_guiding_steps=[10_000, 20_000], total_timesteps=500), progress=False)
    game = Game("classic", 4)
    saved = torch.load(tuned["checkpoint"], weights_only=True)["net"]["actor.0.weight"]
    size = saved.shape[1] - PrivilegedEncoder(game).size
    assert saved[:, size:].abs().max() < 1e-9  # the block's weights start at zero (the step size is ~0)
    a, b = (load_agent(r["run_dir"] + "/policy", game).policy.weights for r in (source, tuned))
    assert all(np.allclose(x, y, atol=1e-6) for x, y in zip(a, b))
    back = native_ppo.train(_cfg(tmp_path, run_name="back", init_from=tuned["run_dir"], learning_rate=1e-12,
                                 total_timesteps=500), progress=False)
    assert torch.load(back["checkpoint"], weights_only=True)["net"]["actor.0.weight"].shape[1] == size
    c = load_agent(back["run_dir"] + "/policy", game).policy.weights
    assert all(np.allclose(x, y, atol=1e-6) for x, y in zip(a, c))


def test_an_exported_policy_starts_an_oracle_run(tmp_path):
    source = native_ppo.train(_cfg(tmp_path, run_name="plain"), progress=False)
    tuned = native_ppo.train(_cfg(tmp_path, run_name="tuned", init_from=source["run_dir"] + "/policy",
                                  learning_rate=1e-12, oracle_guiding_steps=[10_000, 20_000], total_timesteps=500),
                             progress=False)
    game = Game("classic", 4)
    a, b = (load_agent(r["run_dir"] + "/policy", game).policy.weights for r in (source, tuned))
    assert all(np.allclose(x, y, atol=1e-6) for x, y in zip(a, b))


def test_the_league_win_rate_is_logged_and_an_older_log_keeps_its_columns(tmp_path):
    cfg = _cfg(tmp_path, num_players=2, self_play_games=0.0, opponents={"random": 1.0}, total_timesteps=4_000)
    run = native_ppo.train(cfg, progress=False)
    rows = _progress(run["run_dir"])
    assert "oracle_keep" not in rows[0] and "hand_prediction_loss" not in rows[0]
    games = sum(int(r["league_games"]) for r in rows)
    assert games > 0
    rates = [float(r["league_win_rate"]) for r in rows if r["league_win_rate"]]
    assert rates and all(0.0 <= x <= 1.0 for x in rates)
    wins = sum(round(int(r["league_games"]) * float(r["league_win_rate"])) for r in rows if r["league_win_rate"])
    assert 0 < wins < games  # a barely trained policy against random wins some and loses some
    # a run's log written before these columns existed goes on with its own columns when resumed
    path = run["run_dir"] + "/progress.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write("timesteps,seconds,policy_loss,value_loss,entropy\n1,0.1,0.0,0.0,1.0\n")
    native_ppo.train(_cfg(tmp_path, num_players=2, self_play_games=0.0, opponents={"random": 1.0},
                          total_timesteps=6_000), resume=run["run_dir"], progress=False)
    with open(path, encoding="utf-8") as fh:
        lines = list(csv.reader(fh))
    assert lines[0] == ["timesteps", "seconds", "policy_loss", "value_loss", "entropy"]
    assert len(lines) > 2 and all(len(line) == 5 for line in lines)


@pytest.mark.parametrize("value", [[5], [3, 2], [0, 0], [-1, 4], [1.5, 3], "soon", [True, 3], [1, 2, 3]])
def test_bad_oracle_guiding_steps_are_a_clear_error(tmp_path, value):
    with pytest.raises(ConfigError, match="oracle_guiding_steps"):
        _cfg(tmp_path, oracle_guiding_steps=value)


def test_oracle_guiding_needs_the_native_trainer_without_a_teacher(tmp_path):
    with pytest.raises(ConfigError, match="'oracle_guiding_steps' needs algo: ppo and no 'teacher'"):
        _cfg(tmp_path, oracle_guiding_steps=[1, 2], teacher="ismcts")
    with pytest.raises(ConfigError, match="'oracle_guiding_steps' needs algo: ppo"):
        TrainConfig.from_dict({"algo": "sb3", "oracle_guiding_steps": [1, 2]})
