"""One door (issue 70): ``uno-env train`` runs the PPO paths through the contract entry (``train_algorithm``) as it
runs every other algorithm; their record is the common one (counted decisions), their summary, ``--resume`` and
``--ray`` still work, and the registry has no door of its own for them."""
from __future__ import annotations

import os

import pytest
import yaml

from train import registry
from train.app import train_command
from train.app.cli import main

from tiny_configs import CONTRACT_CASES, cut_at  # tests/tiny_configs.py

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _config(tmp_path, algo: str, **kw) -> str:
    base, budget = CONTRACT_CASES[algo]
    path = tmp_path / f"{algo}.yaml"
    path.write_text(yaml.safe_dump({**base, "variant": "classic", "num_players": 2, "total_timesteps": budget,
                                    "eval_games": 2, "out_dir": str(tmp_path / "runs"), "run_name": algo, **kw}),
                    encoding="utf-8")
    return str(path)


def _recording(records: list):
    """``train_algorithm`` appending the record of each run it returns to ``records``."""
    real = train_command.train_algorithm

    def spy(*args, **kwargs):
        records.append(real(*args, **kwargs))
        return records[-1]
    return spy


def test_no_algorithm_has_a_door_of_its_own():
    assert not any(hasattr(a, "own_door") for a in registry.BUILTIN.values()) and not hasattr(registry, "own_door")
    assert {a.name for a in registry.BUILTIN.values() if a.own_checkpoints} == {"ppo", "sb3"}
    assert all(a.continues for a in registry.BUILTIN.values())  # every built-in takes uno-env train --resume


@pytest.mark.parametrize("algo", ["ppo", "sb3"])
def test_uno_env_train_runs_the_ppo_paths_through_the_contract(algo, tmp_path, monkeypatch, capsys):
    records = []
    monkeypatch.setattr(train_command, "train_algorithm", _recording(records))
    assert main(["train", "--config", _config(tmp_path, algo), "--no-progress"]) == 0
    out = capsys.readouterr().out
    (trained,) = records
    run = tmp_path / "runs" / algo
    # the common record: its games counted the learner's decisions, and the trainer's summary rides along
    assert trained.counted is not None and trained.counted[0] >= trained.reported > 0
    assert trained.path == str(run / "policy") and trained.summary["evaluation"]
    # what users read and the files they find, as before
    assert f"trained to step {trained.summary['timesteps']:,}" in out and f"policy: {run}/policy.npz" in out
    assert "heuristic" in out and "next steps:" in out
    for name in ("config.yaml", "policy.npz", "policy.json", "eval.csv"):
        assert (run / name).exists(), name
    assert os.listdir(run / "checkpoints")


def test_ppo_interrupted_through_the_door_says_how_to_resume_and_resumes_from_its_checkpoint(tmp_path, monkeypatch,
                                                                                            capsys):
    config = _config(tmp_path, "ppo", total_timesteps=1_500)
    # Ctrl-C after the first report: the PPO saves its checkpoint and policy, the command prints the resume command
    monkeypatch.setattr(train_command, "train_algorithm", cut_at(train_command.train_algorithm, 1, KeyboardInterrupt))
    assert main(["train", "--config", config, "--no-progress"]) == 130
    out = capsys.readouterr().out
    run = tmp_path / "runs" / "ppo"
    assert "(interrupted: not evaluated)" in out and f"saved {run / 'checkpoints' / 'native.pt'}" in out
    resume = out.strip().splitlines()[-1].removeprefix("train: resume with: ").split()
    assert resume[1:] == ["train", "--config", config, "--resume", str(run / "checkpoints")]
    monkeypatch.undo()
    records = []
    monkeypatch.setattr(train_command, "train_algorithm", _recording(records))
    assert main([*resume[1:], "--no-progress"]) == 0
    (trained,) = records
    # the sitting's count starts at its checkpoint's step (the run's tally base), so its reports pass the audit
    assert trained.summary["timesteps"] >= 1_500 and 0 < trained.summary["trained_timesteps"] < trained.reported
    assert trained.counted[0] >= trained.reported == trained.summary["timesteps"]


def test_ray_reaches_the_native_ppo_through_the_run(tmp_path, monkeypatch, capsys):
    from train.ppo import trainer

    seen, real = [], trainer.train

    def without_ray(cfg, ray_address=None, **kw):  # the address as the trainer gets it; the run itself local
        seen.append(ray_address)
        return real(cfg, **kw)

    monkeypatch.setattr(trainer, "train", without_ray)
    assert main(["train", "--config", _config(tmp_path, "ppo"), "--no-progress", "--ray", "ray://head:10001"]) == 0
    assert seen == ["ray://head:10001"]
    capsys.readouterr()
    # a run through the contract on Ray is refused under an algorithm the registry does not run there
    from train.algorithm import train_algorithm
    from train.config import ConfigError, TrainConfig

    cfg = TrainConfig.from_yaml(_config(tmp_path, "dqn"))
    with pytest.raises(ConfigError, match="does not run on Ray"):
        train_algorithm(cfg, str(tmp_path / "r"), ray_address="local")


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_a_built_in_gets_the_validated_config_without_validating_it_again(algo, tmp_path, monkeypatch):
    from train.algorithm import train_algorithm
    from train.config import TrainConfig

    cfg = TrainConfig.from_yaml(_config(tmp_path, algo))
    validated = []
    real = TrainConfig.validate
    monkeypatch.setattr(TrainConfig, "validate", lambda self: (validated.append(self.algo), real(self))[1])
    trained = train_algorithm(cfg, str(tmp_path / "elsewhere" / "run"))
    assert validated == []  # it was: TrainConfig -> dict -> TrainingRun -> TrainConfig, validated again
    # the copy it got writes into the run's directory and leaves the caller's config as it was
    assert trained.path == str(tmp_path / "elsewhere" / "run" / "policy")
    assert cfg.run_name == algo and cfg.out_dir == str(tmp_path / "runs")
