"""The native PPO cut into segments (``segment_every``): a run resumed at a segment's end is the uninterrupted run."""
from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from agents.policy_file import PolicyFile
from train.algorithm import run_algorithm
from train.config import ConfigError, TrainConfig
from train.contract import Interrupted
from train.ppo.checkpoint import saved_steps

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


def _same_weights(one: str, other: str) -> bool:
    """Whether two policy files hold the same arrays (as many, each equal)."""
    a, b = PolicyFile.read(one).weights, PolicyFile.read(other).weights
    assert len(a) == len(b) > 0
    return all(np.array_equal(x, y) for x, y in zip(a, b))


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


@pytest.mark.parametrize("workers, eval_every", [(0, 700), (2, 10**6)])
def test_a_run_resumed_at_a_segment_end_learns_what_the_uninterrupted_run_learns(tmp_path, workers, eval_every):
    cfg = _config(tmp_path, collector_workers=workers, eval_every=eval_every)  # 700: evaluations inside segments
    whole = run_algorithm(cfg, str(tmp_path / "whole"))
    resumed, counts = _killed_then_resumed(cfg, str(tmp_path / "cut"), kill_at=2_300)
    assert _same_weights(whole, resumed)
    # the second sitting started at the second segment's end, not at zero nor where it was killed
    restart = next(i for i in range(1, len(counts)) if counts[i] < counts[i - 1])
    assert 2_000 < counts[restart] < counts[restart - 1]


def test_without_segments_a_resumed_run_is_not_the_uninterrupted_one(tmp_path):
    """What segments buy: with ``segment_every: 0`` a resumed run learns from games dealt afresh mid-run."""
    cfg = _config(tmp_path, segment_every=0, eval_every=1_000)  # a checkpoint about every 1,000 decisions
    whole = run_algorithm(cfg, str(tmp_path / "whole"))
    resumed, _ = _killed_then_resumed(cfg, str(tmp_path / "cut"), kill_at=2_300)
    assert not _same_weights(whole, resumed)


def test_segments_change_nothing_until_the_first_segment_ends(tmp_path):
    plain = run_algorithm(_config(tmp_path, segment_every=0, total_timesteps=900), str(tmp_path / "plain"))
    cut = run_algorithm(_config(tmp_path, total_timesteps=900), str(tmp_path / "cut"))
    assert _same_weights(plain, cut)


def test_a_run_in_segments_checkpoints_at_segment_ends_only(tmp_path):
    """Killed inside its first segment, a run has no checkpoint: resuming it is refused, naming what is missing."""
    run_dir = str(tmp_path / "early")
    with pytest.raises(Killed):
        run_algorithm(_config(tmp_path, eval_every=300), run_dir,
                      report=lambda d, export: (_ for _ in ()).throw(Killed) if d >= 600 else None)
    assert not os.path.exists(os.path.join(run_dir, "checkpoints", "native.pt"))
    with pytest.raises(ConfigError, match="a run in segments writes its first at the end of its first segment "
                                          "\\(1,000 decisions\\); start it over with --fresh"):
        run_algorithm(_config(tmp_path), run_dir, resume=True)


def test_a_stop_during_the_update_that_ends_a_segment_keeps_that_segments_checkpoint(tmp_path):
    """Ctrl-C while the batch that crosses a segment's end is learned: the batch was whole, so its checkpoint is
    the uninterrupted run's, and is written before the run stops."""
    run_dir, counts = str(tmp_path / "stopped"), []

    def ctrl_c_at_the_first_segment_end(decisions, export):
        counts.append(decisions)
        if decisions >= 1_000 and len([c for c in counts if c >= 1_000]) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # the trainer's first-Ctrl-C handler: stop after this update

    with pytest.raises(Interrupted):
        run_algorithm(_config(tmp_path), run_dir, report=ctrl_c_at_the_first_segment_end)
    assert counts[-1] >= 1_000 and counts[-2] < 1_000  # it stopped right after the segment's end
    assert saved_steps(os.path.join(run_dir, "checkpoints", "native.pt")) == counts[-1]


def test_segments_shorter_than_the_minimum_are_refused_naming_it(tmp_path):
    with pytest.raises(ConfigError, match="'segment_every' must be 0 \\(no segments\\) or at least 1,000 decisions"):
        _config(tmp_path, segment_every=999)


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
