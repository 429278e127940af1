"""The native PPO cut into segments (``segment_every``): a run resumed at a segment's end is the uninterrupted run."""
from __future__ import annotations

import os

import numpy as np
import pytest

from agents.policy_file import PolicyFile
from train.algorithm import run_algorithm
from train.config import ConfigError, TrainConfig

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("one_torch_thread")]  # trains native PPO runs

#: Three segments of 1,000 decisions; opponents that draw from their own generators (random, the search)
#: and frozen snapshots of the learner, so every generator a segment reseeds is exercised.
SEGMENTED = dict(algo="ppo", variant="classic", num_players=2, seed=5, gamma=1.0, total_timesteps=3_000, num_games=16,
                 n_steps=16, batch_size=128, n_epochs=2, net_arch=[32], snapshot_every=700, eval_every=10**6,
                 eval_games=2, self_play_games=0.25, segment_every=1_000,
                 opponents={"random": 0.4, "ismcts:iterations=8": 0.3, "self": 0.3})


class Killed(Exception):
    """Stands for a run killed part-way (nothing after it runs: no last checkpoint)."""


def _config(tmp_path, **kw) -> TrainConfig:
    return TrainConfig.from_dict({**SEGMENTED, "out_dir": str(tmp_path), **kw})


def _killed_then_resumed(cfg: TrainConfig, run_dir: str, kill_at: int) -> tuple[str, list[int]]:
    """Train until a report reaches ``kill_at`` decisions, then resume; the policy and every count reported."""
    counts = []

    def kill(decisions, export):
        counts.append(decisions)
        if decisions >= kill_at:
            raise Killed

    with pytest.raises(Killed):
        run_algorithm(cfg, run_dir, report=kill)
    path = run_algorithm(cfg, run_dir, report=lambda d, export: counts.append(d), resume=True)
    return path, counts


@pytest.mark.parametrize("workers", [0, 2])
def test_a_run_resumed_at_a_segment_end_learns_what_the_uninterrupted_run_learns(tmp_path, workers):
    cfg = _config(tmp_path, collector_workers=workers)
    whole = run_algorithm(cfg, str(tmp_path / "whole"))
    resumed, counts = _killed_then_resumed(cfg, str(tmp_path / "cut"), kill_at=2_300)
    assert all(np.array_equal(a, b) for a, b in zip(PolicyFile.read(whole).weights, PolicyFile.read(resumed).weights))
    # the second sitting started at the second segment's end, not at zero nor where it was killed
    restart = next(i for i in range(1, len(counts)) if counts[i] < counts[i - 1])
    assert 2_000 < counts[restart] < counts[restart - 1]


def test_without_segments_a_resumed_run_is_not_the_uninterrupted_one(tmp_path):
    """What segments buy: with ``segment_every: 0`` a resumed run learns from games dealt afresh mid-run."""
    cfg = _config(tmp_path, segment_every=0, eval_every=1_000)  # a checkpoint about every 1,000 decisions
    whole = run_algorithm(cfg, str(tmp_path / "whole"))
    resumed, _ = _killed_then_resumed(cfg, str(tmp_path / "cut"), kill_at=2_300)
    assert not all(np.array_equal(a, b) for a, b in zip(PolicyFile.read(whole).weights,
                                                        PolicyFile.read(resumed).weights))


def test_segments_change_nothing_until_the_first_segment_ends(tmp_path):
    plain = run_algorithm(_config(tmp_path, segment_every=0, total_timesteps=900), str(tmp_path / "plain"))
    cut = run_algorithm(_config(tmp_path, total_timesteps=900), str(tmp_path / "cut"))
    assert all(np.array_equal(a, b) for a, b in zip(PolicyFile.read(plain).weights, PolicyFile.read(cut).weights))


def test_a_run_in_segments_checkpoints_at_segment_ends_only(tmp_path):
    """Killed inside its first segment, a run has no checkpoint: resuming it is refused, naming what is missing."""
    run_dir = str(tmp_path / "early")
    with pytest.raises(Killed):
        run_algorithm(_config(tmp_path, eval_every=300), run_dir,
                      report=lambda d, export: (_ for _ in ()).throw(Killed) if d >= 600 else None)
    assert not os.path.exists(os.path.join(run_dir, "checkpoints", "native.pt"))
    with pytest.raises(ConfigError, match="no native PPO checkpoint"):
        run_algorithm(_config(tmp_path), run_dir, resume=True)


def test_segments_and_an_overlapped_update_are_refused_in_one_line(tmp_path):
    with pytest.raises(ConfigError, match="'segment_every' and 'overlap_update' cannot both be set"):
        _config(tmp_path, overlap_update=True)
    with pytest.raises(ConfigError, match="segment_every"):
        _config(tmp_path, algo="dqn", net_arch=[32], opponents={"random": 1.0})


def test_ctrl_c_inside_a_segment_says_where_the_run_resumes_from(tmp_path, monkeypatch, capsys):
    import yaml

    from tiny_configs import cut_at  # tests/tiny_configs.py
    from train.app import train_command
    from train.app.cli import main

    config = tmp_path / "segments.yaml"
    config.write_text(yaml.safe_dump({**SEGMENTED, "out_dir": str(tmp_path / "runs"), "run_name": "cut"}),
                      encoding="utf-8")
    run = tmp_path / "runs" / "cut"
    real = train_command.train_algorithm
    # Ctrl-C inside the first segment: no checkpoint yet, so nothing to resume
    monkeypatch.setattr(train_command, "train_algorithm", cut_at(real, 500, KeyboardInterrupt))
    assert main(["train", "--config", str(config), "--no-progress"]) == 130
    out = capsys.readouterr().out
    assert "no checkpoint yet" in out and "resume with" not in out and (run / "policy.npz").exists()
    # inside the third: the checkpoint of the second segment's end, and the command that resumes from it
    monkeypatch.setattr(train_command, "train_algorithm", cut_at(real, 2_300, KeyboardInterrupt))
    assert main(["train", "--config", str(config), "--no-progress", "--fresh"]) == 130
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("train: interrupted at step"))
    assert "its last checkpoint, at the segment's end at step 2," in line and str(run / "checkpoints") in line
    assert out.strip().splitlines()[-1].startswith("train: resume with:")
