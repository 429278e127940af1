"""``privileged_critic``: the critic sees other hands and the next draws; the actor and the export do not."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import load as load_agent
from train.ppo import trainer as native_ppo
from train.collect.collector import Collector
from train.config import ConfigError, TrainConfig
from train.collect.privileged import PEEK, PrivilegedEncoder
from uno_env import Game

pytestmark = pytest.mark.slow  # trains PPO runs: left out of make test-quick

TINY = dict(algo="ppo", gamma=1.0, total_timesteps=3_000, num_games=16, n_steps=32, batch_size=256, n_epochs=2,
            net_arch=[32, 32], snapshot_every=100_000, eval_every=100_000, eval_games=4, run_name="run")


def _cfg(tmp_path, **kw) -> TrainConfig:
    return TrainConfig.from_dict({**TINY, "out_dir": str(tmp_path / "runs"), **kw})


@pytest.mark.parametrize("variant,players", [("classic", 3), ("flip", 4), ("attack", 2)])
def test_the_critic_block_holds_the_other_hands_and_next_draws_after_an_unchanged_observation(tmp_path, variant,
                                                                                             players):
    plain = Collector(_cfg(tmp_path, variant=variant, num_players=players), 0, [8])
    privileged = Collector(_cfg(tmp_path, variant=variant, num_players=players, privileged_critic=True), 0, [8])
    game = Game(variant, players)
    encoder = PrivilegedEncoder(game)
    size, k = plain.reset(3).obs.shape[1], game.num_kinds
    request = privileged.reset(3)
    for _ in range(5):  # a few steps in, so hands and piles have moved
        assert np.array_equal(request.obs[:, :size], plain._request([]).obs)
        assert request.obs.shape[1] == size + encoder.size
        for row, (_, i, seat) in zip(request.obs, request.keys.tolist()):
            s = privileged.tables[0].games.states[i]
            block = row[size:]
            for r in range(1, game.variant.max_players):
                expected = s.hands[(seat + r) % players] if r < players else np.zeros(k)
                assert np.array_equal(block[(r - 1) * k:r * k], expected)
            assert np.array_equal(block[-k:], np.bincount(s.draw_pile[-PEEK:], minlength=k))
        actions = np.array([np.flatnonzero(m)[0] for m in request.mask])
        plain.step(actions)
        request = privileged.step(actions)


def test_a_privileged_run_exports_a_plain_policy_and_repeats_itself(tmp_path):
    runs = [native_ppo.train(_cfg(tmp_path, run_name=f"p{k}", privileged_critic=True, num_players=4),
                             progress=False) for k in range(2)]
    game = Game("classic", 4)
    first, again = (load_agent(r["run_dir"] + "/policy", game).policy for r in runs)
    assert first.weights[0].shape[0] == first.metadata["observation_size"]  # the actor reads the observation only
    assert all(np.array_equal(a, b) for a, b in zip(first.weights, again.weights))
    plain = native_ppo.train(_cfg(tmp_path, run_name="plain", num_players=4), progress=False)
    # the same games and seeds: only the critic's inputs differ, and through the advantages the actor with them
    assert not np.allclose(load_agent(plain["run_dir"] + "/policy", game).policy.weights[0], first.weights[0])


def test_a_plain_run_starts_a_privileged_one_with_zero_weights_on_the_block(tmp_path):
    source = native_ppo.train(_cfg(tmp_path, run_name="plain"), progress=False)
    tuned = native_ppo.train(_cfg(tmp_path, run_name="tuned", init_from=source["run_dir"], privileged_critic=True,
                                  learning_rate=1e-12, total_timesteps=500), progress=False)
    before = torch.load(source["checkpoint"], weights_only=True)["net"]["critic.0.weight"]
    after = torch.load(tuned["checkpoint"], weights_only=True)["net"]["critic.0.weight"]
    size = before.shape[1]
    assert after.shape[1] == size + PrivilegedEncoder(Game("classic", 2)).size
    assert torch.allclose(after[:, :size], before, atol=1e-6)
    assert torch.count_nonzero(after[:, size:].abs() > 1e-6) == 0
    game = Game("classic", 2)
    a, b = (load_agent(r["run_dir"] + "/policy", game).policy.weights for r in (source, tuned))
    assert all(np.allclose(x, y, atol=1e-6) for x, y in zip(a, b))
    # the other way round does not fit: a privileged critic cannot be narrowed
    with pytest.raises(ConfigError, match="does not fit this config's network"):
        native_ppo.train(_cfg(tmp_path, run_name="back", init_from=tuned["run_dir"]), progress=False)


def test_privileged_critic_needs_the_native_trainer_without_a_teacher(tmp_path):
    with pytest.raises(ConfigError, match="'privileged_critic' needs algo: ppo and no 'teacher'"):
        _cfg(tmp_path, privileged_critic=True, teacher="ismcts")
    with pytest.raises(ConfigError, match="'privileged_critic' needs algo: ppo"):
        TrainConfig.from_dict({"algo": "sb3", "privileged_critic": True})
    with pytest.raises(ConfigError, match="'privileged_critic' = 'yes' must be bool"):
        _cfg(tmp_path, privileged_critic="yes")
