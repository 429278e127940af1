"""What ``uno-env train`` and the protocol refuse of a run through the contract, in one line each (issue 70): a
trainer that returns without reporting, and a new run over a run its directory already holds."""
from __future__ import annotations

import os

import numpy as np
import pytest
import yaml

from agents.policy_file import policy_file_from_weights
from train.app.cli import main
from uno_env.observation import ObservationEncoder

from paths import ROOT  # tests/paths.py

pytestmark = pytest.mark.usefixtures("one_torch_thread")

PLUG_IN = dict(algo="pg_plugin:train", variant="classic", num_players=2, total_timesteps=300,
               opponents={"random": 1.0}, settings={"games": 8, "batch": 64}, eval_games=2)
DQN = dict(algo="dqn", variant="classic", num_players=2, total_timesteps=300, num_games=8, net_arch=[16],
           batch_size=32, learning_starts=64, opponents={"random": 1.0}, eval_games=2)


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch):
    """The example imports as ``pg_plugin``, as in tests/training/test_plugins.py."""
    monkeypatch.syspath_prepend(os.path.join(ROOT, "examples"))


def _config(tmp_path, base: dict, **kw) -> str:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({**base, "out_dir": str(tmp_path / "runs"), "run_name": "run", **kw}),
                    encoding="utf-8")
    return str(path)


def _silent(run):
    """A trainer that returns a (valid, untrained) policy at once, never calling ``run.report``."""
    game = run.game()
    size = ObservationEncoder(game).size
    return policy_file_from_weights([np.zeros((size, game.num_actions), np.float32),
                                     np.zeros(game.num_actions, np.float32)], game, 0)


def _short(run):
    """A trainer that reports 10 decisions of a larger budget and returns."""
    policy = _silent(run)
    run.report(10, lambda: policy)
    return policy


@pytest.fixture
def quick_trainers(monkeypatch):
    """``pg_plugin:silent`` and ``pg_plugin:short`` (a user's module on the Python path would be found the same way)."""
    import pg_plugin

    monkeypatch.setattr(pg_plugin, "silent", _silent, raising=False)
    monkeypatch.setattr(pg_plugin, "short", _short, raising=False)


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.usefixtures("quick_trainers")
def test_uno_env_train_refuses_a_trainer_that_never_reports(tmp_path, capsys):
    assert main(["train", "--config", _config(tmp_path, PLUG_IN, algo="pg_plugin:silent"), "--no-progress"]) == 2
    err = _one_error_line(capsys)
    assert "returned without reporting any policy" in err and "run.report(decisions, export)" in err
    assert not os.path.exists(tmp_path / "runs" / "run" / "policy.json")  # nothing passed off as trained


@pytest.mark.parametrize("trainer, words", [("silent", "returned without reporting any policy"),
                                             ("short", "returned having reported 10 decisions, before the point at 300")])
@pytest.mark.usefixtures("quick_trainers")
def test_the_protocol_refuses_a_trainer_that_never_reports_or_stops_short(trainer, words, tmp_path, capsys):
    out = str(tmp_path / "bench")
    config = _config(tmp_path, PLUG_IN, algo=f"pg_plugin:{trainer}")
    assert main(["benchmark", "--train", config, "--budget", "300", "--seeds", "1", "--points", "1",
                 "--games-per-task", "2", "--budget-games-per-task", "2", "--workers", "1", "--no-progress",
                 "--out", out]) == 2
    err = _one_error_line(capsys)
    assert words in err and "run.report(decisions, export)" in err


@pytest.mark.parametrize("base", [PLUG_IN, DQN], ids=["plug-in", "dqn"])
def test_a_finished_run_is_not_overwritten_by_the_same_command_but_fresh_starts_it_over(base, tmp_path, capsys):
    config = _config(tmp_path, base)
    policy = tmp_path / "runs" / "run" / "policy.npz"
    assert main(["train", "--config", config, "--no-progress"]) == 0
    before = policy.read_bytes()
    os.utime(policy, (0, 0))
    capsys.readouterr()
    assert main(["train", "--config", config, "--no-progress", "--seed", "1"]) == 2
    err = _one_error_line(capsys)
    assert "already holds a training run" in err and "--fresh" in err
    assert "--resume" not in err  # finished: nothing to continue
    assert policy.read_bytes() == before and os.stat(policy).st_mtime == 0  # untouched
    assert main(["train", "--config", config, "--no-progress", "--seed", "1", "--fresh"]) == 0
    assert policy.read_bytes() != before  # started over on purpose: seed 1's policy


def test_an_interrupted_dqn_run_is_refused_with_the_resume_that_continues_it(tmp_path, capsys):
    config = _config(tmp_path, DQN, checkpoint_every=100)
    assert main(["train", "--config", config, "--no-progress"]) == 0
    run_dir = tmp_path / "runs" / "run"
    for ext in (".json", ".npz"):  # as a run stopped after a checkpoint leaves it
        os.remove(run_dir / f"policy{ext}")
    capsys.readouterr()
    assert main(["train", "--config", config, "--no-progress"]) == 2
    assert f"continue it with --resume {run_dir}," in _one_error_line(capsys)
