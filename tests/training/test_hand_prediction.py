"""``hand_prediction_coef``: an auxiliary head on the actor predicts the other hands; the export is unchanged."""
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


def test_the_rows_carry_the_hidden_cards_for_the_head_and_the_critic_does_not_read_them(tmp_path):
    cfg = _cfg(tmp_path, hand_prediction_coef=0.5)
    game = Game("classic", 4)
    request = Collector(cfg, 0, [8]).reset(3)
    block = PrivilegedEncoder(game)
    size = request.obs.shape[1] - block.size
    net = build_network(size, game.num_actions, [32, 32], 0, block.hands_size, block.size)
    assert net.critic[0].in_features == size and net.hands.out_features == block.hands_size
    obs, mask = torch.from_numpy(request.obs), torch.from_numpy(request.mask)
    logits, value, hands = net.predict(obs, mask)
    hidden_changed = obs.clone()
    hidden_changed[:, size:] += 3.0  # other hands differ: the actor and the critic must not notice
    logits2, value2, hands2 = net.predict(hidden_changed, mask)
    assert torch.equal(logits, logits2) and torch.equal(value, value2) and torch.equal(hands, hands2)
    assert hands.shape == (len(request.obs), block.hands_size)


def test_a_hand_prediction_run_learns_the_hands_exports_a_plain_policy_and_repeats_itself(tmp_path):
    runs = [native_ppo.train(_cfg(tmp_path, run_name=f"h{k}", hand_prediction_coef=0.5, total_timesteps=12_000),
                             progress=False) for k in range(2)]
    game = Game("classic", 4)
    first, again = (load_agent(r["run_dir"] + "/policy", game).policy for r in runs)
    assert first.weights[0].shape[0] == first.metadata["observation_size"]
    assert len(first.weights) == 6  # two hidden layers and the logits: no head in the export
    assert all(np.array_equal(a, b) for a, b in zip(first.weights, again.weights))
    with open(runs[0]["run_dir"] + "/progress.csv", encoding="utf-8") as fh:
        losses = [float(row["hand_prediction_loss"]) for row in csv.DictReader(fh)]
    # the head starts far off (its outputs have nothing to do with hands) and learns the block
    assert np.mean(losses[-3:]) < 0.5 * np.mean(losses[:3])
    plain = native_ppo.train(_cfg(tmp_path, run_name="plain", total_timesteps=12_000), progress=False)
    # the same games and seeds: the auxiliary loss moves the actor's shared layers
    assert not np.allclose(load_agent(plain["run_dir"] + "/policy", game).policy.weights[0], first.weights[0])


def test_a_plain_run_starts_a_hand_prediction_run_and_back(tmp_path):
    source = native_ppo.train(_cfg(tmp_path, run_name="plain"), progress=False)
    tuned = native_ppo.train(_cfg(tmp_path, run_name="tuned", init_from=source["run_dir"], hand_prediction_coef=0.5,
                                  learning_rate=1e-12, total_timesteps=500), progress=False)
    saved = torch.load(tuned["checkpoint"], weights_only=True)["net"]
    assert "hands.weight" in saved
    game = Game("classic", 4)
    a, b = (load_agent(r["run_dir"] + "/policy", game).policy.weights for r in (source, tuned))
    assert all(np.allclose(x, y, atol=1e-6) for x, y in zip(a, b))
    back = native_ppo.train(_cfg(tmp_path, run_name="back", init_from=tuned["run_dir"], learning_rate=1e-12,
                                 total_timesteps=500), progress=False)
    assert "hands.weight" not in torch.load(back["checkpoint"], weights_only=True)["net"]


def test_resume_carries_the_head_and_goes_on_training_it(tmp_path):
    cfg = _cfg(tmp_path, hand_prediction_coef=0.5, total_timesteps=1_000)
    first = native_ppo.train(cfg, progress=False)
    head = torch.load(first["checkpoint"], weights_only=True)["net"]["hands.weight"]
    longer = _cfg(tmp_path, hand_prediction_coef=0.5, total_timesteps=2_000)
    native_ppo.train(longer, resume=first["run_dir"], progress=False)
    resumed = torch.load(first["checkpoint"], weights_only=True)
    assert resumed["steps"] >= 2_000 and not torch.equal(resumed["net"]["hands.weight"], head)


@pytest.mark.parametrize("value,message", [(-0.1, "'hand_prediction_coef' = -0.1 must be a number >= 0"),
                                           (float("inf"), "'hand_prediction_coef' = inf must be a finite number")])
def test_bad_hand_prediction_coef_is_a_clear_error(tmp_path, value, message):
    with pytest.raises(ConfigError, match=message):
        _cfg(tmp_path, hand_prediction_coef=value)


def test_hand_prediction_needs_the_native_trainer_without_a_teacher(tmp_path):
    with pytest.raises(ConfigError, match="'hand_prediction_coef' needs algo: ppo and no 'teacher'"):
        _cfg(tmp_path, hand_prediction_coef=0.1, teacher="ismcts")
    with pytest.raises(ConfigError, match="'hand_prediction_coef' needs algo: ppo"):
        TrainConfig.from_dict({"algo": "sb3", "hand_prediction_coef": 0.1})
    with pytest.raises(ConfigError, match="hand_prediction_coef"):
        _cfg(tmp_path, hand_prediction_coef="lots")
