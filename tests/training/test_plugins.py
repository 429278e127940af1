"""The trainer plug-in contract (train/algorithm.py) end to end with the documented example, examples/pg_plugin.py."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest
import yaml

import agents
from agents.policy_file import PolicyAgent, PolicyFile
from train.algorithm import TrainingRun, resolve_trainer, run_algorithm
from train.app.cli import main
from train.config import ConfigError, TrainConfig
from uno_env import Game
from uno_env.observation import ObservationEncoder

from paths import ROOT  # tests/paths.py

EXAMPLE = dict(algo="pg_plugin:train", variant="classic", num_players=2, total_timesteps=1_500,
               opponents={"random": 0.5, "heuristic": 0.5}, settings={"games": 16, "batch": 128}, eval_games=20)


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch):
    """The example imports as ``pg_plugin`` (a user's own module would be on their PYTHONPATH the same way)."""
    monkeypatch.syspath_prepend(os.path.join(ROOT, "examples"))


def _config(tmp_path, **kw) -> str:
    path = tmp_path / "plugin.yaml"
    path.write_text(yaml.safe_dump({**EXAMPLE, "out_dir": str(tmp_path / "runs"), **kw}), encoding="utf-8")
    return str(path)


def test_uno_env_train_runs_a_module_callable_trainer_and_evaluates_its_policy(tmp_path, capsys):
    assert main(["train", "--config", _config(tmp_path, run_name="pg"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "random" in out and "heuristic" in out and "uno-env eval" in out
    policy = agents.load(str(tmp_path / "runs" / "pg" / "policy"), Game("classic", 2))
    assert policy.policy.metadata["training_steps"] >= 1_500  # the budget, counted as the contract says
    saved = yaml.safe_load((tmp_path / "runs" / "pg" / "config.yaml").read_text(encoding="utf-8"))
    assert saved["algo"] == "pg_plugin:train" and saved["settings"] == {"games": 16, "batch": 128}


def test_the_hook_sees_rising_counts_up_to_the_budget_and_a_seed_repeats_its_policy(tmp_path):
    cfg = TrainConfig.from_yaml(_config(tmp_path))
    runs = []
    for name in ("a", "b"):
        counts = []
        path = run_algorithm(cfg, str(tmp_path / name), report=lambda d, export: counts.append((d, export())))
        runs.append((counts, PolicyFile.read(path)))
    (counts, policy), (_, again) = runs
    steps = [d for d, _ in counts]
    assert steps == sorted(steps) and steps[-1] >= cfg.total_timesteps and len(steps) >= 2
    assert all(isinstance(p, PolicyFile) for _, p in counts)
    assert all(np.array_equal(x, y) for x, y in zip(policy.weights, again.weights))  # same seed, same policy
    other = run_algorithm(TrainConfig.from_dict({**cfg.to_dict(), "seed": 1}), str(tmp_path / "c"))
    assert not all(np.array_equal(x, y) for x, y in zip(policy.weights, PolicyFile.read(other).weights))


def test_the_example_plays_a_search_opponent_through_its_state(tmp_path, monkeypatch):
    """A league ``ismcts:...`` seat is asked with ``act_state`` (it reads the game state), not ``act``."""
    from agents.search import ISMCTSAgent

    asked = []
    act_state = ISMCTSAgent.act_state
    monkeypatch.setattr(ISMCTSAgent, "act_state", lambda self, state: asked.append(state) or act_state(self, state))
    cfg = TrainConfig.from_dict({**EXAMPLE, "total_timesteps": 200, "opponents": {"ismcts:iterations=4": 1.0},
                                 "settings": {"games": 4, "batch": 32}})
    policy = PolicyFile.read(run_algorithm(cfg, str(tmp_path / "run")))
    assert policy.metadata["training_steps"] >= 200 and asked  # trained to the budget against the search


def test_the_trainer_gets_the_task_budget_seed_league_and_settings(tmp_path, monkeypatch):
    seen = {}

    def spy(run: TrainingRun):
        seen["run"] = run
        return "no such policy"

    import pg_plugin

    monkeypatch.setattr(pg_plugin, "spy", spy, raising=False)
    cfg = TrainConfig.from_dict({**EXAMPLE, "algo": "pg_plugin:spy", "num_players": 4, "seed": 7,
                                 "opponents": {"pretrained:classic": 1.0, "heuristic": 0.5}})
    with pytest.raises(ConfigError, match="not a saved policy file"):
        run_algorithm(cfg, str(tmp_path / "spy"))
    run = seen["run"]
    assert (run.variant, run.num_players, run.table_sizes, run.budget, run.seed) == ("classic", 4, (4,), 1_500, 7)
    assert run.settings == {"games": 16, "batch": 128} and run.game().num_players == 4
    assert run.league == {"pretrained:classic": 1.0, "heuristic": 0.5}
    opponent = run.opponent("pretrained:classic", run.game(), seed=0)  # any agent spec is a league opponent
    state = run.game().new_state(0)
    obs, mask = ObservationEncoder(run.game()).encode(state, state.current_seat), run.game().legal_action_mask(state)
    assert isinstance(opponent, PolicyAgent) and mask[opponent.act(obs, mask)]  # it plays a four-seat table
    with_options = TrainConfig.from_dict({**EXAMPLE, "algo": "pg_plugin:spy", "num_players": 3,
                                          "rule_options": {"stacking": "same_value"}})
    with pytest.raises(ConfigError):
        run_algorithm(with_options, str(tmp_path / "spy3"))
    assert seen["run"].rules().to_dict()["options"]["stacking"] == "same_value"


def test_a_league_opponent_must_fit_the_table():
    with pytest.raises(ConfigError, match="opponents: policy does not fit this game: 2/4 players"):
        TrainConfig.from_dict({**EXAMPLE, "num_players": 3, "opponents": {"pretrained:classic": 1.0}})
    with pytest.raises(ConfigError, match="opponents: agent spec 'pg_plugin:nothing_here'"):
        TrainConfig.from_dict({**EXAMPLE, "opponents": {"pg_plugin:nothing_here": 1.0}})


@pytest.mark.parametrize("algo, words", [
    ("no_such_module_here:train", "cannot import module 'no_such_module_here'"),
    ("pg_plugin:no_such_function", "has no 'no_such_function'"),
    ("pg_plugin:np", "is not callable"),
])
def test_a_bad_algo_is_one_line(algo, words, tmp_path, capsys):
    assert main(["train", "--config", _config(tmp_path, algo=algo), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_the_config_refuses_an_algo_that_is_no_trainer_and_settings_for_a_built_in():
    with pytest.raises(ConfigError, match="allowed: sb3, ppo, dqn, nfsp, dmc, or module:callable"):
        TrainConfig.from_dict({"algo": "not an algo"})
    with pytest.raises(ConfigError, match="'settings' is for a module:callable algo"):
        TrainConfig.from_dict({"algo": "ppo", "settings": {"lr": 1}})
    assert resolve_trainer("ppo").__module__ == "train.ppo.algorithm"


def test_a_trainer_returning_something_else_is_refused(tmp_path, monkeypatch):
    import pg_plugin

    monkeypatch.setattr(pg_plugin, "wrong", lambda run: 42, raising=False)
    cfg = TrainConfig.from_dict({**EXAMPLE, "algo": "pg_plugin:wrong"})
    with pytest.raises(ConfigError, match="returned int; a trainer returns a PolicyFile"):
        run_algorithm(cfg, str(tmp_path / "wrong"))


@pytest.mark.slow  # trains and scores under the sample-budget protocol
def test_the_sample_budget_protocol_runs_a_plug_in(tmp_path):
    out = str(tmp_path / "protocol")
    assert main(["benchmark", "--train", _config(tmp_path), "--budget", "1000", "--seeds", "1", "--points", "2",
                 "--games-per-task", "4", "--budget-games-per-task", "4", "--workers", "1", "--no-progress",
                 "--out", out]) == 0
    results = json.loads(open(os.path.join(out, "results.json"), encoding="utf-8").read())
    assert results["algo"] == "pg_plugin:train" and results["points"]
    record_dir = os.path.join(out, "runs")
    (run,) = os.listdir(record_dir)
    record = json.loads(open(os.path.join(record_dir, run, "budget-training.json"), encoding="utf-8").read())
    assert record["algo"] == "pg_plugin:train" and record["trained_decisions"] >= 1000
    assert set(record["points"]) == {"500", "1000"} and record["seconds"] > 0
