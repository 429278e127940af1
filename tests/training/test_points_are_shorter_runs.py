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
from tiny_configs import BUDGET_PPO  # tests/tiny_configs.py

pytestmark = pytest.mark.usefixtures("one_torch_thread")

LEAGUE = {"random": 0.5, "heuristic": 0.3, "self": 0.2}
#: Tiny runs of each trainer, and the budget B of the shorter run (the longer one trains 2B). Each B is one at which
#: a shorter run once ended otherwise: on a pass without an update (the example, DQN, NFSP: no report there, so
#: the longer run saved B after one more update), or a last round past budget + batch_size rows (DMC's ring,
#: sized by the budget, wrapped).
# exploration_fraction 0: the DQN's (and so NFSP's) epsilon schedule stretches over the run's budget, so with
# any other value a 2B run explores otherwise before B than a B run does, by design (docs/plug-ins.md)
CASES = {
    "example": (dict(algo="pg_plugin:train", opponents={"random": 0.5, "heuristic": 0.5},
                     settings={"games": 16, "batch": 128}), 600),
    "dqn": (dict(algo="dqn", num_games=8, net_arch=[32], batch_size=32, learning_starts=64, train_freq=16,
                 exploration_fraction=0.0, opponents=LEAGUE), 550),
    "nfsp": (dict(algo="nfsp", num_games=8, net_arch=[32], batch_size=32, learning_starts=64, train_freq=16,
                  anticipatory=0.5, exploration_fraction=0.0, opponents=LEAGUE), 500),
    "dmc": (dict(algo="dmc", num_games=8, net_arch=[32], batch_size=64, dmc_actors=0, opponents=LEAGUE), 300),
    "ppo": ({k: v for k, v in BUDGET_PPO.items() if k not in ("run_name", "time_limit_minutes", "seed")}, 512),
    "sb3": (dict(algo="sb3", n_envs=1, n_steps=64, batch_size=64, n_epochs=1, net_arch=[16], snapshot_every=1000,
                 eval_every=100_000, eval_games=2, opponents={"random": 1.0}), 128),
}


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
