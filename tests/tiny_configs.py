"""Tiny training configs the training and benchmark tests share (a helper module, not a test module)."""
from __future__ import annotations

from train.config import TrainConfig

#: A four-player native PPO of a few thousand decisions (hand prediction, oracle guiding tests).
FOUR_PLAYER_PPO = dict(algo="ppo", gamma=1.0, total_timesteps=3_000, num_games=16, n_steps=32, batch_size=256,
                       n_epochs=2, net_arch=[32, 32], snapshot_every=100_000, eval_every=100_000, eval_games=4,
                       run_name="run", num_players=4)

#: A tiny native PPO for the sample-budget protocol: 2,048 decisions take a few seconds.
BUDGET_PPO = dict(algo="ppo", variant="classic", num_players=2, seed=99, total_timesteps=50, time_limit_minutes=3.0,
                  gamma=1.0, num_games=16, n_steps=16, batch_size=256, n_epochs=2, net_arch=[16], snapshot_every=1024,
                  eval_every=10**6, eval_games=2, run_name="ignored")


CONTRACT_LEAGUE = {"random": 0.5, "heuristic": 0.3, "self": 0.2}
#: Tiny runs of every trainer through the contract (tests/training/: test_points_are_shorter_runs.py,
#: test_contract_counts_and_seeds.py), and the budget B of the shorter run (the longer one trains 2B). Each B
#: is one at which a shorter run once ended otherwise: on a pass without an update (the example, DQN, NFSP: no
#: report there, so the longer run saved B after one more update), or a last round past budget + batch_size rows
#: (DMC's ring, sized by the budget, wrapped).
# exploration_fraction 0: the DQN's (and so NFSP's) epsilon schedule stretches over the run's budget, so with
# any other value a 2B run explores otherwise before B than a B run does, by design (docs/plug-ins.md)
CONTRACT_CASES = {
    "example": (dict(algo="pg_plugin:train", opponents={"random": 0.5, "heuristic": 0.5},
                     settings={"games": 16, "batch": 128}), 600),
    "dqn": (dict(algo="dqn", num_games=8, net_arch=[32], batch_size=32, learning_starts=64, train_freq=16,
                 exploration_fraction=0.0, opponents=CONTRACT_LEAGUE), 550),
    "nfsp": (dict(algo="nfsp", num_games=8, net_arch=[32], batch_size=32, learning_starts=64, train_freq=16,
                  anticipatory=0.5, exploration_fraction=0.0, opponents=CONTRACT_LEAGUE), 500),
    "dmc": (dict(algo="dmc", num_games=8, net_arch=[32], batch_size=64, dmc_actors=0, opponents=CONTRACT_LEAGUE),
            300),
    "ppo": ({k: v for k, v in BUDGET_PPO.items() if k not in ("run_name", "time_limit_minutes", "seed")}, 512),
    "sb3": (dict(algo="sb3", n_envs=1, n_steps=64, batch_size=64, n_epochs=1, net_arch=[16], snapshot_every=1000,
                 eval_every=100_000, eval_games=2, opponents={"random": 1.0}), 128),
}


def config_in(tmp_path, base: dict, **kw) -> TrainConfig:
    """``base`` with ``kw`` changed, writing its runs under ``tmp_path/runs``."""
    return TrainConfig.from_dict({**base, "out_dir": str(tmp_path / "runs"), **kw})


def cut_at(run_algorithm, decisions: int, error: type[BaseException]):
    """``run_algorithm`` (train.algorithm's signature) stopped by ``error`` once a run reports ``decisions``:
    a run killed or Ctrl-C'd part-way, after the checkpoints written before that count."""
    def cut(cfg, run_dir, report=None, progress=False, resume=False, **options):
        def hook(reached, export):
            report(reached, export)
            if reached >= decisions:
                raise error
        return run_algorithm(cfg, run_dir, report=hook, progress=progress, resume=resume, **options)
    return cut


def spied(run_algorithm, calls: list):
    """``run_algorithm`` appending, for each call, ``{"resume": flag, "first": the first count it reports}`` to
    ``calls``: whether a command asked to resume, and whether the run started past zero."""
    def spy(cfg, run_dir, report=None, progress=False, resume=False, **options):
        call = {"resume": resume, "first": None}
        calls.append(call)

        def hook(reached, export):
            if call["first"] is None:
                call["first"] = reached
            if report is not None:
                report(reached, export)
        return run_algorithm(cfg, run_dir, report=hook, progress=progress, resume=resume, **options)
    return spy
