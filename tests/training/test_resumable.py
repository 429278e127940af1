"""Checkpoints of the value-based learners (DQN, NFSP, DMC; train/resumable.py): a resumed run is the uninterrupted one."""
from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest
from tiny_configs import cut_at, spied

from agents.policy_file import PolicyFile
from train import resumable
from train.algorithm import is_resumable, run_algorithm
from train.config import ConfigError, TrainConfig

pytestmark = pytest.mark.usefixtures("one_torch_thread")

LEAGUE = {"random": 0.5, "heuristic": 0.3, "self": 0.2}
#: Tiny runs cut into segments of 500 decisions (three segments, two checkpoints).
TINY = {
    "dqn": dict(algo="dqn", total_timesteps=1_500, num_games=8, net_arch=[32], batch_size=32, learning_starts=64,
                train_freq=4, checkpoint_every=500, opponents=LEAGUE),
    "nfsp": dict(algo="nfsp", total_timesteps=1_500, num_games=8, net_arch=[32], batch_size=32, learning_starts=64,
                 train_freq=4, anticipatory=0.5, checkpoint_every=500, opponents=LEAGUE),
    "dmc": dict(algo="dmc", total_timesteps=1_500, num_games=8, net_arch=[32], batch_size=64, dmc_actors=0,
                checkpoint_every=500, opponents=LEAGUE),
}


class Interrupted(Exception):
    """Stands for a run killed part-way."""


def _config(algo: str, tmp_path, **kw) -> TrainConfig:
    return TrainConfig.from_dict({"variant": "classic", "num_players": 2, **TINY[algo], "out_dir": str(tmp_path),
                                  **kw})


def _weights(path: str) -> list[np.ndarray]:
    return PolicyFile.read(path).weights


def _interrupted_then_resumed(cfg: TrainConfig, run_dir: str, stop_after: int) -> tuple[str, list[int]]:
    """Train until ``stop_after`` decisions are reported, then resume; the policy and every count reported."""
    counts = []

    def stop(decisions, export):
        counts.append(decisions)
        if decisions >= stop_after:
            raise Interrupted

    with pytest.raises(Interrupted):
        run_algorithm(cfg, run_dir, report=stop)
    assert resumable.exists(run_dir)
    path = run_algorithm(cfg, run_dir, report=lambda d, export: counts.append(d), resume=True)
    return path, counts


@pytest.mark.parametrize("algo", ["dqn", "nfsp", "dmc"])
def test_a_run_resumed_from_its_checkpoint_learns_what_the_uninterrupted_run_learns(algo, tmp_path):
    cfg = _config(algo, tmp_path)
    whole = run_algorithm(cfg, str(tmp_path / "whole"))
    resumed, counts = _interrupted_then_resumed(cfg, str(tmp_path / "cut"), stop_after=1_100)
    assert all(np.array_equal(a, b) for a, b in zip(_weights(whole), _weights(resumed)))
    # the second sitting starts at the last checkpoint (1,000 decisions in), not at zero
    restart = next(i for i in range(1, len(counts)) if counts[i] < counts[i - 1])
    assert 1_000 <= counts[restart] < counts[restart - 1]
    meta = json.loads(open(os.path.join(tmp_path, "cut", "checkpoints", "learner.json"), encoding="utf-8").read())
    assert meta["algo"] == algo and meta["counters"]["segment"] == 2 and meta["counters"]["decisions"] >= 1_000


@pytest.mark.parametrize("algo", ["dqn", "dmc"])
def test_without_resume_or_without_a_checkpoint_a_run_starts_from_zero(algo, tmp_path):
    cfg = _config(algo, tmp_path)
    whole = run_algorithm(cfg, str(tmp_path / "a"))
    again = run_algorithm(cfg, str(tmp_path / "a"))  # a checkpoint is there, but resume was not asked
    fresh = run_algorithm(cfg, str(tmp_path / "b"), resume=True)  # asked, but nothing to resume
    assert all(np.array_equal(a, b) for a, b in zip(_weights(whole), _weights(again)))
    assert all(np.array_equal(a, b) for a, b in zip(_weights(whole), _weights(fresh)))


def test_checkpoint_every_zero_writes_none_and_the_builtins_say_they_resume(tmp_path):
    run_algorithm(_config("dqn", tmp_path, checkpoint_every=0), str(tmp_path / "none"))
    assert not resumable.exists(str(tmp_path / "none"))
    assert all(is_resumable(a) for a in ("dqn", "nfsp", "dmc")) and not any(is_resumable(a) for a in ("ppo", "sb3"))


def test_a_resume_under_another_config_or_from_a_damaged_checkpoint_is_one_error(tmp_path):
    cfg = _config("dqn", tmp_path)
    run_dir = str(tmp_path / "run")
    run_algorithm(cfg, run_dir)
    other = TrainConfig.from_dict({**cfg.to_dict(), "learning_rate": 0.01})
    with pytest.raises(ConfigError, match="another config .*learning_rate") as refused:
        run_algorithm(other, run_dir, resume=True)
    assert "does not fit" not in str(refused.value)  # one message, not one wrapped in another
    with pytest.raises(ConfigError, match="of algo 'dqn', not 'dmc'"):
        run_algorithm(_config("dmc", tmp_path), run_dir, resume=True)
    meta = resumable.read_meta(run_dir)
    memory = os.path.join(run_dir, "checkpoints", meta["files"]["memory"])
    assert sorted(os.listdir(os.path.join(run_dir, "checkpoints"))) == sorted([*meta["files"].values(), "learner.json"])
    intact = open(memory, "rb").read()
    # a member of another shape than the learner's buffer: refused before anything is read into it
    np.savez(memory, **{"replay.obs": np.zeros((3, 7), np.float32)})
    with pytest.raises(ConfigError, match=r"damaged .*replay.obs.npy holds float32\[3, 7\]"):
        run_algorithm(cfg, run_dir, resume=True)
    with open(memory, "wb") as fh:
        fh.write(intact[:100])
    with pytest.raises(ConfigError, match="damaged"):
        run_algorithm(cfg, run_dir, resume=True)
    with open(os.path.join(run_dir, "checkpoints", "learner.json"), "w", encoding="utf-8") as fh:
        fh.write("[1, 2")
    with pytest.raises(ConfigError, match="cannot be read"):
        run_algorithm(cfg, run_dir, resume=True)


@pytest.mark.slow
def test_dmc_segments_with_an_actor_process_give_the_weights_of_the_in_process_actor(tmp_path):
    local = run_algorithm(_config("dmc", tmp_path), str(tmp_path / "local"))
    process = run_algorithm(_config("dmc", tmp_path, dmc_actors=1), str(tmp_path / "process"))
    assert all(np.array_equal(a, b) for a, b in zip(_weights(local), _weights(process)))


def test_uno_env_train_resume_continues_a_dqn_run_and_refuses_what_it_cannot(tmp_path, capsys, monkeypatch):
    import yaml

    from train.app import train_command
    from train.app.cli import command_name, main

    config = tmp_path / "dqn.yaml"
    config.write_text(yaml.safe_dump({**TINY["dqn"], "variant": "classic", "num_players": 2, "eval_games": 4,
                                      "out_dir": str(tmp_path / "runs"), "run_name": "d"}), encoding="utf-8")
    assert main(["train", "--config", str(config), "--no-progress"]) == 0
    whole = _weights(str(tmp_path / "runs" / "d" / "policy"))
    # the run's checkpoint is the one before its last segment: resuming it trains that segment again, alike
    calls = []
    monkeypatch.setattr(train_command, "train_algorithm", spied(train_command.train_algorithm, calls))
    assert main(["train", "--resume", str(tmp_path / "runs" / "d"), "--no-progress"]) == 0
    assert all(np.array_equal(a, b) for a, b in zip(whole, _weights(str(tmp_path / "runs" / "d" / "policy"))))
    # the same weights as a run from zero: what shows it resumed is where its counts start
    assert len(calls) == 1 and calls[0]["resume"] is True and calls[0]["first"] > 1_000
    monkeypatch.undo()
    capsys.readouterr()
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump({**TINY["dqn"], "out_dir": str(tmp_path / "runs"), "run_name": "x"}),
                     encoding="utf-8")
    assert main(["train", "--config", str(other), "--resume", str(tmp_path / "runs" / "d"), "--no-progress"]) == 2
    assert "names another run than the config's" in capsys.readouterr().err
    config.write_text(yaml.safe_dump({**TINY["dqn"], "checkpoint_every": 0, "out_dir": str(tmp_path / "runs"),
                                      "run_name": "e"}), encoding="utf-8")
    assert main(["train", "--config", str(config), "--no-progress"]) == 0
    assert main(["train", "--resume", str(tmp_path / "runs" / "e"), "--no-progress"]) == 2
    assert "holds no checkpoint of a dqn run" in capsys.readouterr().err
    config.write_text(yaml.safe_dump({"algo": "examples.pg_plugin:train", "total_timesteps": 200, "eval_games": 2,
                                      "out_dir": str(tmp_path / "runs"), "run_name": "p"}), encoding="utf-8")
    assert main(["train", "--config", str(config), "--resume", str(tmp_path / "runs" / "p"), "--no-progress"]) == 2
    assert "examples.pg_plugin:train has none" in capsys.readouterr().err


def test_a_checkpoint_cut_while_written_leaves_the_previous_one_whole(tmp_path, monkeypatch):
    cfg = _config("dqn", tmp_path)
    whole = run_algorithm(cfg, str(tmp_path / "whole"))
    run_dir, savez, calls = str(tmp_path / "cut"), np.savez, []

    def cut_second(*args, **kw):  # the second checkpoint dies in the middle of its memory file
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return savez(*args, **kw)

    monkeypatch.setattr(resumable.np, "savez", cut_second)
    with pytest.raises(KeyboardInterrupt):
        run_algorithm(cfg, run_dir)
    monkeypatch.undo()
    assert resumable.read_meta(run_dir)["counters"]["segment"] == 1  # still the first, complete checkpoint
    resumed = run_algorithm(cfg, run_dir, resume=True)
    assert all(np.array_equal(a, b) for a, b in zip(_weights(whole), _weights(resumed)))


def test_ctrl_c_in_uno_env_train_says_how_to_resume_and_the_command_continues_the_run(tmp_path, capsys,
                                                                                       monkeypatch):
    import yaml

    from train.app import train_command
    from train.app.cli import command_name, main

    config = tmp_path / "dqn.yaml"
    config.write_text(yaml.safe_dump({**TINY["dqn"], "variant": "classic", "num_players": 2, "eval_games": 4,
                                      "out_dir": str(tmp_path / "runs"), "run_name": "d"}), encoding="utf-8")
    assert main(["train", "--config", str(config), "--out-dir", str(tmp_path / "whole"), "--no-progress"]) == 0
    ctrl_c_at_1100 = cut_at(train_command.train_algorithm, 1_100, KeyboardInterrupt)
    monkeypatch.setattr(train_command, "train_algorithm", ctrl_c_at_1100)
    capsys.readouterr()
    assert main(["train", "--config", str(config), "--no-progress"]) == 130
    text = capsys.readouterr().out
    run_dir = str(tmp_path / "runs" / "d")
    assert re.search(r"last checkpoint \(at 1,0[0-9]{2} decisions\) is in ", text)
    command = text.strip().splitlines()[-1].removeprefix("train: resume with: ").split()
    assert command == [command_name(), "train", "--resume", run_dir]  # as it runs here (train/app/cli.py)
    monkeypatch.undo()
    calls = []
    monkeypatch.setattr(train_command, "train_algorithm", spied(train_command.train_algorithm, calls))
    assert main([*command[1:], "--no-progress"]) == 0
    assert all(np.array_equal(a, b) for a, b in zip(_weights(str(tmp_path / "whole" / "d" / "policy")),
                                                    _weights(os.path.join(run_dir, "policy"))))
    assert calls[0]["resume"] is True and calls[0]["first"] > 1_000  # from the checkpoint, not from zero
    monkeypatch.undo()

    plug_in = tmp_path / "pg.yaml"
    plug_in.write_text(yaml.safe_dump({"algo": "examples.pg_plugin:train", "total_timesteps": 2_000,
                                       "out_dir": str(tmp_path / "runs"), "run_name": "p"}), encoding="utf-8")
    monkeypatch.setattr(train_command, "train_algorithm", ctrl_c_at_1100)
    assert main(["train", "--config", str(plug_in), "--no-progress"]) == 130
    assert "examples.pg_plugin:train writes no checkpoints, so no policy was saved" in capsys.readouterr().out
