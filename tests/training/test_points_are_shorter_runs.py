"""A point saved inside a longer run is the policy a shorter run stopped there ends with (docs/plug-ins.md).

For every trainer that reports through the contract (the built-ins and the documented example): train
with budget B and with budget 2B, same seed, the protocol's point saver on both; the policy saved at B
in the longer run is the shorter run's final policy, array for array.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from agents.policy_file import PolicyFile
from train.algorithm import run_algorithm
from train.benchmark.budget import PointSaver, point_path
from train.config import TrainConfig

from paths import ROOT  # tests/paths.py
from tiny_configs import CONTRACT_CASES as CASES  # tests/tiny_configs.py: one tiny run of each trainer

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch):
    """The example imports as ``pg_plugin``, as in tests/training/test_plugins.py."""
    monkeypatch.syspath_prepend(os.path.join(ROOT, "examples"))


def _train(base: dict, budget: int, targets: list[int], run_dir: str) -> tuple[str, PointSaver]:
    cfg = TrainConfig.from_dict({"variant": "classic", "num_players": 2, "seed": 3, **base,
                                 "total_timesteps": budget, "out_dir": os.path.dirname(run_dir),
                                 "run_name": os.path.basename(run_dir)})
    saver = PointSaver(run_dir, targets)
    return run_algorithm(cfg, run_dir, report=saver), saver


@pytest.mark.parametrize("trainer", list(CASES))
def test_the_policy_saved_at_a_point_of_a_longer_run_is_the_shorter_runs_final_policy(trainer, tmp_path):
    if trainer == "sb3":
        pytest.importorskip("sb3_contrib")
    base, b = CASES[trainer]
    short, _ = _train(base, b, [b], str(tmp_path / "short"))
    _, saver = _train(base, 2 * b, [b, 2 * b], str(tmp_path / "long"))
    final, point = PolicyFile.read(short), PolicyFile.read(point_path(str(tmp_path / "long"), b))
    # saved at the decision count the shorter run stopped at, with its weights
    assert point.metadata["training_steps"] == final.metadata["training_steps"] == saver.saved[b]
    assert all(np.array_equal(x, y) for x, y in zip(final.weights, point.weights, strict=True))
