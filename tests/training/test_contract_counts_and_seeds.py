"""The contract checks instead of trusting (issue 70): the games a run hands out count the learner's decisions,
``run_algorithm`` refuses a run whose reports disagree with them or that trained past its budget, and the same
seed gives the same policy file for every built-in and the example (``check_same_seed``).

Each trust failure is a trainer here built on the shipped example: it steps the run's games as the example
does, and lies in one way. On the code before the count, every one of them passed.
"""
from __future__ import annotations

import os
import time

import numpy as np
import pytest

from train.algorithm import check_same_seed, train_algorithm
from train.config import ConfigError, TrainConfig
from train.counting import CountedGames, Tally, audit

from paths import ROOT  # tests/paths.py
from tiny_configs import CONTRACT_CASES  # tests/tiny_configs.py: one tiny run of each trainer

pytestmark = pytest.mark.usefixtures("one_torch_thread")

EXAMPLE = dict(algo="pg_plugin:train", variant="classic", num_players=2, total_timesteps=400, seed=5,
               opponents={"random": 1.0}, settings={"games": 8, "batch": 64})


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch):
    """The example imports as ``pg_plugin``, as in tests/training/test_plugins.py."""
    monkeypatch.syspath_prepend(os.path.join(ROOT, "examples"))


class _Run:
    """A trainer's run with some of its members replaced (``TrainingRun.games`` is a method: no dataclass field)."""

    def __init__(self, run, **members):
        self._run, self._members = run, members

    def __getattr__(self, name):
        return self._members[name] if name in self._members else getattr(self._run, name)


def _example(run, **members):
    import pg_plugin

    return pg_plugin.train(_Run(run, **members))


def _over_trains(run):
    """Trains four times its budget and reports a quarter of its count (issue 70: it passed as 'trained 20,005')."""
    return _example(run, budget=4 * run.budget, report=lambda d, export: run.report(d // 4, export))


def _over_trains_openly(run):
    """Trains four times its budget and says so."""
    return _example(run, budget=4 * run.budget)


def _over_claims(run):
    """Reports twice the decisions it took."""
    return _example(run, budget=run.budget // 2, report=lambda d, export: run.report(2 * d, export))


def _holds_no_seat(run):
    """Steps the run's games but marks no seat as its own: its games count nothing it reports."""
    return _example(run, games=lambda n, learner_seats=None: run.games(n))


def _ignores_its_seed(run):
    """Seeds itself from the clock instead of the run (issue 70: it passed)."""
    seed = time.time_ns() % 2**31
    return _example(run, seed=seed, generator=lambda: np.random.default_rng(seed))


def _own_games(run):
    """Builds its own games (as written before the run handed them out): nothing checks its count."""
    from uno_env.vector import VectorGames

    return _example(run, games=lambda n, learner_seats=None: VectorGames(n, rules=run.rules()))


@pytest.fixture
def liars(monkeypatch):
    """The trainers above as ``pg_plugin:<name>`` (a user's module on the Python path is found the same way)."""
    import pg_plugin

    for trainer in (_over_trains, _over_trains_openly, _over_claims, _holds_no_seat, _ignores_its_seed, _own_games):
        monkeypatch.setattr(pg_plugin, trainer.__name__.lstrip("_"), trainer, raising=False)


def _config(tmp_path, **kw) -> TrainConfig:
    return TrainConfig.from_dict({**EXAMPLE, "out_dir": str(tmp_path), "run_name": "run", **kw})


@pytest.mark.usefixtures("liars")
@pytest.mark.parametrize("trainer, words", [
    ("over_trains", ["last reported 4", "a report is one of the two, give or take one batch"]),
    ("over_trains_openly", ["trained on 1,6", "learner decisions (its games' count) for a budget of 400"]),
    ("over_claims", ["reported", "decisions while its games had counted"]),
    ("holds_no_seat", ["reported", "while its games had counted 0 learner decisions"]),
])
def test_a_run_that_trains_past_its_budget_or_misreports_is_refused_in_one_line(trainer, words, tmp_path):
    with pytest.raises(ConfigError) as caught:
        train_algorithm(_config(tmp_path, algo=f"pg_plugin:{trainer}"), str(tmp_path / "run"))
    message = str(caught.value)
    assert all(w in message for w in words) and "\n" not in message, message
    assert "run.games" in message and "docs/plug-ins.md" in message
    assert not os.path.exists(tmp_path / "run" / "policy.json")  # nothing passed off as trained


@pytest.mark.usefixtures("liars")
def test_a_trainer_that_ignores_its_seed_fails_the_same_seed_check(tmp_path):
    with pytest.raises(ConfigError, match=r"two runs with seed 5 gave different policies \(array 0, .*run\.seed"):
        check_same_seed(_config(tmp_path, algo="pg_plugin:ignores_its_seed"), str(tmp_path))


@pytest.mark.usefixtures("liars")
def test_a_trainer_on_games_of_its_own_is_not_counted_and_says_so(tmp_path):
    trained = train_algorithm(_config(tmp_path, algo="pg_plugin:own_games"), str(tmp_path / "run"))
    assert trained.counted is None and trained.reported >= 400


@pytest.mark.parametrize("trainer", list(CONTRACT_CASES))
def test_every_trainer_gives_the_same_policy_file_for_the_same_seed_and_reports_its_games_count(trainer, tmp_path):
    if trainer == "sb3":
        pytest.importorskip("sb3_contrib")
    base, budget = CONTRACT_CASES[trainer]
    cfg = TrainConfig.from_dict({"variant": "classic", "num_players": 2, "seed": 3, **base,
                                 "total_timesteps": budget})
    trained = check_same_seed(cfg, str(tmp_path))
    assert trained.counted is not None  # its games came from the run
    taken, finished = trained.counted
    assert finished <= trained.reported <= taken and trained.reported >= budget


def test_the_games_count_the_learners_seats_only_with_one_sum_per_step():
    games = CountedGames(6, learner_seats=1, variant="classic", num_players=3)
    seat, _, mask = games.reset(seed=0)
    rng = np.random.default_rng(0)
    mine = ended_mine = 0
    open_rows = np.zeros(6, dtype=int)
    for _ in range(400):
        deciding = seat == 1
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        seat, _, mask, _, terminated, truncated = games.step(actions)
        mine += int(deciding.sum())
        open_rows += deciding
        ended = terminated | truncated
        ended_mine += int(open_rows[ended].sum())
        open_rows[ended] = 0
    assert games.counts() == (mine, ended_mine) and 0 < ended_mine < mine
    with pytest.raises(ValueError, match=r"learner_seats must be seats 0\.\.2"):
        CountedGames(2, learner_seats=3, variant="classic", num_players=3)


def test_a_tally_adds_its_games_and_the_latest_counts_of_each_worker():
    tally = Tally(base=(100, 90))
    tally.receive(("actor", 0), (10, 5))
    tally.receive(("actor", 0), (20, 8))  # a worker's totals replace its last ones
    tally.receive(("actor", 1), (7, 7))
    assert tally.used and tally.counts() == (127, 105)


def test_the_allowance_is_one_reported_batch_so_reporting_rarely_widens_nothing():
    # one report at the end with the budget, after four budgets of games: its batch is the budget, not the games'
    assert "last reported 1,000" in audit("x", 1_000, [(1_000, 4_000, 4_000)], end=(4_000, 4_000))
    assert audit("x", 1_000, [(500, 520, 480), (1_010, 1_040, 1_010)], end=(1_040, 1_010)) is None
    assert "last reported 600" in audit("x", 9_000, [(300, 300, 300), (600, 2_000, 1_500)], end=(2_000, 1_500))
    assert audit("x", 1_000, [(600, 3_000, 600), (1_050, 4_000, 1_050)], end=(4_000, 1_050)) is None  # PPO, DMC
    # resumed at 1,000 (the tally starts from the checkpoint): its batch is the 100 since, not 1,100
    assert audit("x", 1_000, [(1_100, 1_100, 1_100)], start=1_000, end=(1_100, 1_100)) is None
    assert "last reported" in audit("x", 1_000, [(1_100, 1_400, 1_400)], start=1_000, end=(1_400, 1_400))


def _benchmark(tmp_path, algo: str) -> int:
    """``uno-env benchmark --train`` of the example's config under ``algo``, one seed, a handful of games."""
    import yaml

    from train.app.cli import main

    tmp_path.mkdir()
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({**EXAMPLE, "algo": algo, "total_timesteps": 300}), encoding="utf-8")
    return main(["benchmark", "--train", str(config), "--budget", "300", "--seeds", "1", "--points", "1",
                 "--games-per-task", "2", "--budget-games-per-task", "2", "--workers", "1", "--no-progress",
                 "--out", str(tmp_path / "bench")])


@pytest.mark.usefixtures("liars")
def test_the_protocol_refuses_an_over_trained_run_and_marks_an_uncounted_one(tmp_path, capsys):
    assert _benchmark(tmp_path / "over", "pg_plugin:over_trains") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "a report is one of the two" in err, err
    assert _benchmark(tmp_path / "own", "pg_plugin:own_games") == 0
    summary = (tmp_path / "own" / "bench" / "results.md").read_text(encoding="utf-8")
    assert "Not counted: the trainer stepped no games of its run" in summary
    assert _benchmark(tmp_path / "example", "pg_plugin:train") == 0
    summary = (tmp_path / "example" / "bench" / "results.md").read_text(encoding="utf-8")
    assert "Its games counted 30" in summary  # the example counts every decision it takes: its report, 300 and up


def test_the_same_seed_check_takes_a_config_file_or_a_mapping_and_names_what_else_it_got(tmp_path):
    """What a plug-in author has at hand (issue 70's held-out plug-in passed a path and a dict and got AttributeError)."""
    path = tmp_path / "mine.yaml"
    path.write_text("\n".join(f"{k}: {v!r}" if isinstance(v, str) else f"{k}: {v}" for k, v in EXAMPLE.items()))
    from_file = check_same_seed(str(path), str(tmp_path / "file"))
    from_mapping = check_same_seed(dict(EXAMPLE), str(tmp_path / "mapping"))
    assert from_file.reported == from_mapping.reported >= 400
    with pytest.raises(ConfigError, match="a TrainConfig, a config file's path or a mapping; got int"):
        check_same_seed(3, str(tmp_path))
