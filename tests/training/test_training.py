"""Training pipeline: config validation, a short self-play run with every output, and resuming."""
from __future__ import annotations

import csv
import os

import pytest
import yaml

import agents
from train.config import ConfigError, TrainConfig
from train.evaluation.stats import format_table
from train.sb3.trainer import train
from uno_env import Game
from uno_env.observation import ObservationEncoder

pytestmark = pytest.mark.slow  # trains PPO runs (native and SB3): left out of make test-quick


def _tiny(tmp_path, **kw) -> TrainConfig:
    base = dict(total_timesteps=512, n_envs=2, n_steps=128, batch_size=128, n_epochs=1, net_arch=[32, 32],
                snapshot_every=256, eval_every=256, eval_games=4, out_dir=str(tmp_path), run_name="smoke")
    return TrainConfig.from_dict({**base, **kw})


def test_short_self_play_run_writes_every_output_and_resumes(tmp_path):
    cfg = _tiny(tmp_path)
    summary = train(cfg, progress=False)
    run = tmp_path / "smoke"
    assert summary["timesteps"] >= 512
    saved = yaml.safe_load(open(run / "config.yaml"))
    assert {k: saved[k] for k in cfg.to_dict()} == cfg.to_dict()
    assert saved["resolved_rules"]["options"]["uno_call"] == "always"
    assert (run / "progress.csv").exists() and any(f.startswith("events.out.tfevents") for f in os.listdir(run))
    rows = list(csv.DictReader(open(run / "eval.csv")))
    assert {r["opponent"] for r in rows} == {"random", "heuristic"} and len(rows) >= 4
    assert (run / "checkpoints" / "latest.json").exists()
    game = Game("classic", num_players=2)
    agent = agents.load(str(run / "policy"), game)
    assert agent.policy.metadata["training_steps"] == summary["timesteps"]
    assert set(agent.policy.metadata["evaluation"]) == {"random", "heuristic"}
    assert "random" in format_table(summary) and "samples/s" in format_table(summary)

    assert len(os.listdir(run / "snapshots")) >= 2
    progress_rows = len(open(run / "progress.csv").readlines())
    resumed = train(_tiny(tmp_path, total_timesteps=1024), resume=str(run), progress=False)
    assert resumed["timesteps"] >= 1024
    assert len(open(run / "progress.csv").readlines()) == progress_rows  # earlier log kept
    assert any(d.startswith("resumed-") for d in os.listdir(run))


@pytest.mark.parametrize("variant", ["flex", "flip", "attack"])
def test_variant_self_play_smoke_run(tmp_path, variant):
    summary = train(_tiny(tmp_path, variant=variant, num_players=3, run_name=f"{variant}-smoke"), progress=False)
    assert summary["timesteps"] >= 512
    game = Game(variant, num_players=3)
    agent = agents.load(str(tmp_path / f"{variant}-smoke" / "policy"), game)
    assert agent.policy.metadata["variant"] == variant
    s = game.new_state(0)
    enc = ObservationEncoder(game)
    while not s.is_over:  # the exported policy plays every decision of the variant legally
        game.step(s, agent.act(enc.encode(s, s.current_seat), game.legal_action_mask(s)))


@pytest.mark.parametrize("data, words", [
    ({"learning_rat": 0.1}, "unknown training config key"),
    ({"n_envs": "2"}, "must be int"),
    ({"n_envs": 0}, "must be >= 1"),
    ({"net_arch": [64, -1]}, "net_arch"),
    ({"opponents": {"expert": 1.0}}, "opponents"),
    ({"opponents": {"self": 1.0}}, "at least one agent besides self"),
    ({"rule_options": {"stacking": "lots"}}, "stacking"),
    ({"num_players": 11}, "num_players"),
    ({"gamma": 7.0}, "gamma"),
    ({"max_snapshots": 0}, "max_snapshots"),
    ({"time_limit_minutes": -1.0}, "time_limit_minutes"),
    ({"net_arch": [64, True]}, "net_arch"),
    ({"torch_threads": -1}, "torch_threads"),
])

def test_bad_training_configs(data, words):
    with pytest.raises((ConfigError, ValueError), match=words):
        TrainConfig.from_dict(data)


def test_float_written_without_a_dot_in_yaml_is_read():
    assert TrainConfig.from_dict({"learning_rate": "3e-4"}).learning_rate == 3e-4


def test_shipped_configs_load():
    import glob

    files = glob.glob("configs/train/*.yaml")
    assert files
    for path in files:
        TrainConfig.from_yaml(path)


def test_resume_refuses_unknown_checkpoint(tmp_path):
    with pytest.raises(ConfigError, match="step_<N>.zip"):
        train(_tiny(tmp_path), resume=str(tmp_path / "model.pkl"), progress=False)
    with pytest.raises(ConfigError, match="latest.json"):
        train(_tiny(tmp_path), resume=str(tmp_path), progress=False)
