"""``uno-env benchmark --train``: the sample-budget protocol end to end, its determinism, resuming and bad input."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil

import numpy as np
import pytest
import yaml
from tiny_configs import BUDGET_PPO, cut_at

from agents.policy_file import PolicyFile

from train.app.cli import main
from train.benchmark import budget
from train.benchmark.budget_report import (curve_panels, curve_styles, leaderboard_section, plot_curves, t_interval,
                                          t_quantile_975)
from train.benchmark.runner import build_results, write_results
from train.benchmark.suite import HOUSE_RULES, UNO_SUITE_V1
from train.config import TrainConfig
from train.errors import UsageError
from train.ppo import trainer as native_ppo

pytestmark = pytest.mark.slow  # trains under the sample-budget protocol: left out of make test-quick

# a tiny native PPO: 2,048 decisions take a few seconds
TINY = BUDGET_PPO  # tests/tiny_configs.py
ARGS = ["--budget", "2048", "--seeds", "2", "--points", "2", "--games-per-task", "4", "--budget-games-per-task", "4",
        "--workers", "1", "--no-progress"]


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """One torch thread: on a busy 2-core machine a tiny net is many times faster so (results do not change)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _config(folder, name: str = "tiny", **kw) -> str:
    path = os.path.join(str(folder), f"{name}.yaml")
    os.makedirs(str(folder), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        yaml.safe_dump({**TINY, **kw}, fh)
    return path


def _run(config: str, out: str, *extra: str) -> tuple[int, str]:
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main(["benchmark", "--train", config, *ARGS, "--out", out, *extra])
    return code, stdout.getvalue()


def _weights(path: str) -> list[np.ndarray]:
    return PolicyFile.read(path).weights


def _copy_of(done, out: str) -> budget.Plan:
    """A copy of the finished tiny run in ``out``; its plan."""
    shutil.copytree(done["out"], out)
    return budget.make_plan(done["config"], ["2048"], 2, UNO_SUITE_V1, out)


def _agent_smoke_results(out: str) -> str:
    """A smoke run of ``heuristic`` on classic-2p (5 wins in 10 games) written to ``out``; ``out``."""
    rows = [{"games": 10, "wins": 5, "win_rate": 0.5, "win_rate_ci95": [0.2, 0.8], "mean_points": 1.0,
             "truncated_games": 0}]
    write_results(build_results(UNO_SUITE_V1.only(["classic-2p"]).with_games_per_task(10), "heuristic", rows), out)
    return out


def _points(out: str) -> dict:
    """The per-point results of a finished protocol run."""
    with open(os.path.join(out, "results.json"), encoding="utf-8") as fh:
        return json.load(fh)["points"]


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    """One tiny protocol run: 2 seeds, curve points at 1,024 and 2,048 decisions, 4 games per task."""
    tmp = tmp_path_factory.mktemp("budget")
    config = _config(tmp)
    out = str(tmp / "out")
    code, printed = _run(config, out)
    assert code == 0
    with open(os.path.join(out, "results.json"), encoding="utf-8") as fh:
        return {"config": config, "out": out, "printed": printed, "results": json.load(fh), "tmp": tmp}


def test_a_tiny_run_writes_results_curve_and_plot(done):
    results, out = done["results"], done["out"]
    assert results["format"] == "uno-env-budget-results" and results["algo"] == "ppo"
    assert results["tasks"] == ["classic-2p"]  # not classic-4p (trained at 2 players) nor the house rules
    assert not results["official"] and "2 seeds" in results["not_official"][0]
    assert [(p["target"], p["kind"]) for p in results["points"]] == [(1024, "curve"), (2048, "budget")]
    for point in results["points"]:
        assert [s["seed"] for s in point["seeds"]] == [0, 1] and point["games"] == {"classic-2p": 4}
        assert all(s["decisions"] >= point["target"] for s in point["seeds"])
        scores = [s["score"] for s in point["seeds"]]
        assert point["score_mean"] == pytest.approx(sum(scores) / 2)
        assert point["score_ci95"] == pytest.approx(t_interval(scores))
    low, high = (UNO_SUITE_V1.references()["classic-2p"][agent] for agent in ("random", "heuristic"))
    for s in results["points"][1]["seeds"]:  # one task: the IQM is that task's normalised score
        assert s["score"] == pytest.approx((s["win_rates"]["classic-2p"] - low) / (high - low))
    for run in results["runs"]:  # trained once to the budget; the budget point is where training stopped
        assert run["planned_decisions"] == 2048 and run["points"]["2048"] == run["trained_decisions"] >= 2048
        # the run directory relative to --out: the summary names no folder of the machine that wrote it
        assert run["run_dir"] == os.path.join("runs", f"tiny-budget2048-seed{run['seed']}")
        assert os.path.isdir(os.path.join(out, run["run_dir"]))
    with open(os.path.join(out, "curve.csv"), encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["point"], r["kind"], r["seed"]) for r in rows] == [
        ("1024", "curve", "0"), ("1024", "curve", "1"), ("2048", "budget", "0"), ("2048", "budget", "1")]
    assert [float(r["score"]) for r in rows] == pytest.approx(
        [s["score"] for p in results["points"] for s in p["seeds"]], abs=1e-4)
    with open(os.path.join(out, "curve.png"), "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    assert "| 2,048 |" in done["printed"] and "Not official" in done["printed"]


def test_the_budget_point_is_the_trainers_final_policy(done):
    run_dir = budget.make_plan(done["config"], ["2048"], 2, UNO_SUITE_V1, done["out"]).run_dir(0)
    final, point = _weights(os.path.join(run_dir, "policy")), _weights(budget.point_path(run_dir, 2048))
    assert all(np.array_equal(a, b) for a, b in zip(final, point, strict=True))


def test_a_curve_point_is_the_policy_of_a_run_stopped_there(done, tmp_path):
    cfg = TrainConfig.from_dict({**TINY, "seed": 0, "total_timesteps": 1024, "time_limit_minutes": 0.0,
                                 "out_dir": str(tmp_path), "run_name": "short"})
    short = native_ppo.train(cfg, progress=False)
    run_dir = budget.make_plan(done["config"], ["2048"], 2, UNO_SUITE_V1, done["out"]).run_dir(0)
    assert short["timesteps"] == done["results"]["points"][0]["seeds"][0]["decisions"]
    point = _weights(budget.point_path(run_dir, 1024))
    assert all(np.array_equal(a, b) for a, b in zip(_weights(short["run_dir"] + "/policy"), point, strict=True))


def test_the_same_seeds_give_the_same_results(done):
    out = str(done["tmp"] / "again")
    assert _run(done["config"], out)[0] == 0
    with open(os.path.join(out, "results.json"), encoding="utf-8") as fh:
        again = json.load(fh)
    assert again["points"] == done["results"]["points"]
    with open(os.path.join(out, "curve.csv"), "rb") as a, open(os.path.join(done["out"], "curve.csv"), "rb") as b:
        assert a.read() == b.read()


def test_a_rerun_trains_nothing_and_scores_only_what_is_missing(done, tmp_path, monkeypatch):
    out = str(tmp_path / "copy")
    plan = _copy_of(done, out)
    score_dir = os.path.join(plan.run_dir(1), "scores")
    missing = os.path.join(score_dir, "decisions_000000001024.json")
    kept = os.path.join(score_dir, "decisions_000000002048.json")
    os.remove(missing)
    os.remove(os.path.join(out, "results.json"))
    kept_mtime = os.stat(kept).st_mtime_ns

    def no_training(*args, **kwargs):
        raise AssertionError("a finished seed was trained again")

    monkeypatch.setattr(native_ppo, "train", no_training)
    assert _run(done["config"], out)[0] == 0
    assert os.path.exists(missing) and os.stat(kept).st_mtime_ns == kept_mtime
    assert _points(out) == done["results"]["points"]


def test_a_seed_interrupted_in_training_trains_again_from_the_start(done, tmp_path, monkeypatch):
    out = str(tmp_path / "copy")
    run_dir = _copy_of(done, out).run_dir(1)
    os.remove(os.path.join(run_dir, "budget-training.json"))  # as if stopped before training finished
    shutil.rmtree(os.path.join(run_dir, "scores"))
    seeds, train = [], native_ppo.train
    monkeypatch.setattr(native_ppo, "train", lambda cfg, **kw: seeds.append(cfg.seed) or train(cfg, **kw))
    assert _run(done["config"], out)[0] == 0
    assert seeds == [1]
    assert _points(out) == done["results"]["points"]


def test_seeds_run_one_at_a_time_give_the_same_results(done, tmp_path):
    out = str(tmp_path / "split")
    code, printed = _run(done["config"], out, "--only-seed", "1")
    assert code == 0 and "seed 0 still to run" in printed
    assert not os.path.exists(os.path.join(out, "results.json"))
    assert _run(done["config"], out, "--only-seed", "0")[0] == 0
    assert _points(out) == done["results"]["points"]


def test_a_seed_another_process_trains_is_refused_and_kept(done, tmp_path, capsys):
    import subprocess
    import sys

    out = str(tmp_path / "locked")
    run_dir = _copy_of(done, out).run_dir(1)
    os.remove(os.path.join(run_dir, "budget-training.json"))  # seed 1 as if still training ...
    lock = os.path.join(run_dir, budget.TRAINING_LOCK)
    with open(lock, "w", encoding="utf-8") as fh:
        fh.write(str(os.getppid()))  # ... by a process that runs
    assert _run(done["config"], out, "--only-seed", "1")[0] == 2
    assert f"seed 1 is being trained by process {os.getppid()}" in capsys.readouterr().err
    assert os.path.exists(os.path.join(run_dir, "points"))  # nothing wiped
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True).stdout.strip()
    with open(lock, "w", encoding="utf-8") as fh:
        fh.write(finished)  # a lock left by a process that has ended is taken over
    assert _run(done["config"], out, "--only-seed", "1")[0] == 0
    assert not os.path.exists(lock)
    assert _points(out) == done["results"]["points"]


def test_a_directory_of_another_protocol_or_other_files_is_refused(done, tmp_path, capsys):
    assert _run(done["config"], done["out"], "--points", "3")[0] == 2
    assert "holds a different budget protocol run (curve_points differ)" in capsys.readouterr().err
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine", encoding="utf-8")
    assert _run(done["config"], str(tmp_path / "other"))[0] == 2
    assert "holds no budget protocol run" in capsys.readouterr().err


@pytest.mark.parametrize("argv, words", [
    (["--train", "missing.yaml", "--budget", "1M", "--seeds", "3"], "no training config at missing.yaml"),
    (["--train", "{config}", "--budget", "0", "--seeds", "3"], "--budget must be a whole number"),
    (["--train", "{config}", "--budget", "lots", "--seeds", "3"], "--budget must be a whole number"),
    (["--train", "{config}", "--budget", "1M", "--seeds", "0"], "--seeds must be 1 or more"),
    (["--train", "{config}", "--budget", "1M"], "--train needs --seeds K"),
    (["--train", "{config}", "--seeds", "3"], "--train needs at least one --budget"),
    (["--train", "{config}", "--budget", "1M", "--seeds", "3", "--points", "-1"], "--points must be 0 or more"),
    (["--train", "{config}", "--budget", "1M", "--seeds", "3", "--tasks", "classic-2p"], "drop --tasks"),
    (["--train", "{stacking}", "--budget", "1M", "--seeds", "3"], "no task of uno-suite-v1 plays classic"),
    (["--agent", "random", "--seeds", "3"], "--seeds goes with --train"),
    (["--train", "{config}", "--budget", "1M", "--seeds", "3", "--only-seed", "3"],
     "--only-seed must be one of the seeds 0..2"),
    (["--agent", "random", "--only-seed", "0"], "--only-seed goes with --train"),
])
def test_bad_input_is_one_line_and_trains_nothing(argv, words, tmp_path, capsys):
    paths = {"config": _config(tmp_path), "stacking": _config(tmp_path, "stacking", rule_options={"stacking": "any"})}
    argv = [a.format(**paths) for a in argv]
    assert main(["benchmark", *argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1, err
    assert not os.path.exists(tmp_path / "out")


def test_budgets_read_suffixes_and_refuse_the_rest():
    assert [budget.parse_decisions(t) for t in ("2048", "1M", "10m", "2.5M", "500k", "1_000", "1,000")] == [
        2048, 1_000_000, 10_000_000, 2_500_000, 500_000, 1000, 1000]
    for bad in ("0", "-5", "1.5", "M", "1G", ""):
        with pytest.raises(UsageError, match="--budget"):
            budget.parse_decisions(bad)


def test_the_scored_tasks_follow_the_configs_variant_rules_and_player_counts():
    def ids(**kw):
        return [t.task_id for t in budget.scored_tasks(TrainConfig.from_dict({**TINY, **kw}), UNO_SUITE_V1)]

    assert ids() == ["classic-2p"]
    assert ids(table_sizes=[2, 4]) == ["classic-2p", "classic-4p"]
    assert ids(rule_options=dict(HOUSE_RULES)) == ["classic-2p-house"]
    assert ids(variant="flip", table_sizes=[2, 3]) == ["flip-2p"]
    assert ids(rule_options={"stacking": "any"}) == []


def test_curve_points_are_evenly_spaced_and_include_every_budget(tmp_path):
    plan = budget.make_plan(_config(tmp_path), ["1M", "10M", "3M"], 3, UNO_SUITE_V1, str(tmp_path / "o"), points=4)
    assert plan.targets() == [1_000_000, 2_500_000, 3_000_000, 5_000_000, 7_500_000, 10_000_000]
    assert [plan.kind(t) for t in (1_000_000, 2_500_000)] == ["budget", "curve"]
    assert [t.games for t in plan.point_suite(10_000_000).tasks] == [1200] and plan.not_official() == []
    assert [t.games for t in plan.point_suite(2_500_000).tasks] == [200]
    assert plan.seed_config(2).seed == 2 and plan.seed_config(2).time_limit_minutes == 0.0
    assert plan.seed_config(2).total_timesteps == 10_000_000


def test_settings_added_later_keep_a_protocol_runs_identity(tmp_path):
    """A run recorded before ``vf_coef`` and ``ppo_max_grad_norm`` existed is the same protocol at their defaults."""
    identity = budget.make_plan(_config(tmp_path), ["1M"], 1, UNO_SUITE_V1, str(tmp_path / "o")).identity()
    assert not {"vf_coef", "ppo_max_grad_norm"} & set(identity["config"])
    changed = budget.make_plan(_config(tmp_path, "other", vf_coef=1.0), ["1M"], 1, UNO_SUITE_V1,
                               str(tmp_path / "o")).identity()
    assert changed["config"] == {**identity["config"], "vf_coef": 1.0}


def test_t_interval_over_seeds():
    assert t_interval([0.0, 1.0, 2.0]) == pytest.approx([1 - 4.303 / 3 ** 0.5, 1 + 4.303 / 3 ** 0.5])
    assert t_interval([0.5]) is None
    assert t_quantile_975(1000) == pytest.approx(1.9623, abs=1e-3) and t_quantile_975(30) == 2.042


def test_the_leaderboard_adds_a_section_for_budget_runs(done, tmp_path, capsys):
    _agent_smoke_results(str(tmp_path / "agent"))
    assert main(["benchmark", "--leaderboard", str(tmp_path / "agent"), done["out"]]) == 0
    table = capsys.readouterr().out
    assert "| 1 | `heuristic` * |" in table and "## Learning algorithms: sample-budget protocol" in table
    budget_row = [line for line in table.splitlines() if line.startswith("| 2,048 |")]
    assert len(budget_row) == 1 and "| ppo | classic-2p | 2 |" in budget_row[0]


def test_the_sb3_path_saves_its_points_at_whole_rollouts(tmp_path):
    pytest.importorskip("sb3_contrib")
    config = _config(tmp_path, "sb3", algo="sb3", n_envs=1, n_steps=64, batch_size=64, n_epochs=1,
                     snapshot_every=1000, eval_every=100_000)
    out = str(tmp_path / "out")
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert main(["benchmark", "--train", config, "--budget", "100", "--seeds", "1", "--points", "2",
                     "--games-per-task", "2", "--budget-games-per-task", "2", "--workers", "1", "--no-progress",
                     "--out", out]) == 0
    with open(os.path.join(out, "results.json"), encoding="utf-8") as fh:
        results = json.load(fh)
    # budget 100 is rounded up to whole rollouts of 64: the points 50 and 100 are saved at 64 and 128
    assert [(p["target"], p["seeds"][0]["decisions"]) for p in results["points"]] == [(50, 64), (100, 128)]
    run_dir = budget.make_plan(config, ["100"], 1, UNO_SUITE_V1, out).run_dir(0)
    final, point = _weights(os.path.join(run_dir, "policy")), _weights(budget.point_path(run_dir, 100))
    assert all(np.array_equal(a, b) for a, b in zip(final, point, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(_weights(budget.point_path(run_dir, 50)), point))


@pytest.mark.parametrize("with_agents", [False, True])
def test_the_written_leaderboard_shows_the_budget_runs_learning_curves_in_one_figure(done, tmp_path, capsys,
                                                                                      with_agents):
    agent = _agent_smoke_results(str(tmp_path / "agent"))
    runs = [agent, done["out"]] if with_agents else [done["out"]]
    target = tmp_path / "docs" / "leaderboard.md"
    assert main(["benchmark", "--leaderboard", *runs, "--write", str(target)]) == 0
    figure = tmp_path / "docs" / "leaderboard-curves.png"
    assert str(figure) in capsys.readouterr().out
    with open(figure, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    page = target.read_text(encoding="utf-8")
    assert "![Learning curves of the runs above](<leaderboard-curves.png>)" in page
    assert ("| 1 | `heuristic` * |" in page) == with_agents
    # printed only: no figure and no link to one
    os.remove(figure)
    assert main(["benchmark", "--leaderboard", *runs]) == 0
    assert "![" not in capsys.readouterr().out and not figure.exists()


def _budget_run(config: str, tasks: list[str], scores: dict[int, float]) -> dict:
    """A budget-protocol result as leaderboard_section and plot_curves read it: one seed's point per budget."""
    points = [{"target": budget_, "kind": "budget", "decisions_mean": float(budget_), "score_mean": score,
               "score_ci95": None, "seeds": [{"seed": 0, "decisions": budget_, "score": score}]}
              for budget_, score in scores.items()]
    return {"config_file": config, "algo": "dqn", "tasks": tasks, "seeds": [0], "official": False,
            "suite": "uno-suite-v1", "points": points, "budgets": sorted(scores),
            "runs": [{"seed": 0, "seconds": 90.0 * max(scores) / 1_000}]}


def test_the_leaderboard_groups_learning_runs_by_task_and_draws_one_panel_per_task(tmp_path):
    four = _budget_run("b.yaml", ["classic-4p"], {1_000: 0.9, 10_000: 1.3})
    two_weak = _budget_run("a.yaml", ["classic-2p"], {1_000: 0.2, 10_000: 0.5})
    two_strong = _budget_run("c.yaml", ["classic-2p"], {1_000: 0.8})
    runs = [four, two_weak, two_strong]
    rows = [line for line in leaderboard_section(runs) if line.startswith("| 1") and "yaml" in line]
    # every classic-2p row (by budget, best first) comes before any classic-4p row, whatever their scores
    assert [(row.split(" | ")[0], row.split(" | ")[1]) for row in rows] == [
        ("| 1,000", "`c.yaml` *"), ("| 1,000", "`a.yaml` *"), ("| 10,000", "`a.yaml` *"),
        ("| 1,000", "`b.yaml` *"), ("| 10,000", "`b.yaml` *")]
    # a seed's whole run took 90 s per 1,000 decisions of its largest budget: on that row, in minutes
    assert [row.rsplit(" | ", 1)[1] for row in rows] == ["1.5 min |", "in the 10,000 run |", "15.0 min |",
                                                         "in the 10,000 run |", "15.0 min |"]
    assert [(tasks, [r["config_file"] for r in group]) for tasks, group in curve_panels(runs)] == [
        (("classic-2p",), ["a.yaml", "c.yaml"]), (("classic-4p",), ["b.yaml"])]
    figure = str(tmp_path / "curves.png")
    assert plot_curves(runs, figure) == figure  # matplotlib comes with the dev extra; it draws the panels above
    with open(figure, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_the_figure_keeps_two_configs_of_one_algorithm_apart():
    """One colour per algorithm; a second config of the same algorithm in a panel: that colour, another line style."""
    runs = [_budget_run("dqn-b.yaml", ["classic-2p"], {1_000: 0.8}),
            _budget_run("dqn-a.yaml", ["classic-2p"], {1_000: 0.1}),
            {**_budget_run("ppo.yaml", ["classic-2p"], {1_000: 0.9}), "algo": "ppo"}]
    styles = curve_styles(runs, ["dqn", "ppo"])
    a, b, ppo = ("dqn-a.yaml", 1_000), ("dqn-b.yaml", 1_000), ("ppo.yaml", 1_000)
    assert styles[a][0] == styles[b][0] != styles[ppo][0]
    assert styles[a][1] == styles[ppo][1] == "-" != styles[b][1]
    assert curve_styles(runs[:1], ["dqn", "ppo"]) == {b: ("C0", "-")}  # alone in its panel: solid


def test_the_figure_keeps_two_runs_of_one_config_apart():
    """One config run to 1M and again to 10M (its 1M point then differs): two lines, not one style drawn twice."""
    runs = [_budget_run("dqn.yaml", ["classic-2p"], {1_000: 0.8}),
            _budget_run("dqn.yaml", ["classic-2p"], {1_000: 0.7, 10_000: 1.0})]
    styles = curve_styles(runs, ["dqn"])
    assert set(styles) == {("dqn.yaml", 1_000), ("dqn.yaml", 10_000)}
    assert styles[("dqn.yaml", 1_000)] != styles[("dqn.yaml", 10_000)]


DQN_TINY = dict(algo="dqn", variant="classic", num_players=2, total_timesteps=1_500, num_games=8, net_arch=[32],
                batch_size=32, learning_starts=64, train_freq=4, checkpoint_every=500,
                opponents={"random": 0.5, "heuristic": 0.5}, eval_games=4)
DQN_ARGS = ["--budget", "1500", "--seeds", "1", "--points", "3", "--games-per-task", "4",
            "--budget-games-per-task", "4", "--workers", "1", "--no-progress"]


class _Killed(Exception):
    """Stands for a protocol run killed part-way through a seed's training."""


def test_a_seed_of_a_resumable_trainer_resumes_from_its_checkpoint_and_keeps_its_points(tmp_path, monkeypatch):
    config = str(tmp_path / "dqn.yaml")
    with open(config, "w", encoding="utf-8") as fh:
        yaml.safe_dump(DQN_TINY, fh)
    whole, cut = str(tmp_path / "whole"), str(tmp_path / "cut")
    assert main(["benchmark", "--train", config, *DQN_ARGS, "--out", whole]) == 0
    real = budget.train_algorithm
    sittings = []
    killed = cut_at(real, 1_100, _Killed)
    monkeypatch.setattr(budget, "train_algorithm", lambda *a, **kw: sittings.append(kw["resume"]) or killed(*a, **kw))
    with pytest.raises(_Killed):
        main(["benchmark", "--train", config, *DQN_ARGS, "--out", cut])
    monkeypatch.setattr(budget, "train_algorithm", lambda *a, **kw: sittings.append(kw["resume"]) or real(*a, **kw))
    assert main(["benchmark", "--train", config, *DQN_ARGS, "--out", cut]) == 0
    assert sittings == [False, True]
    assert _points(cut) == _points(whole)
    runs = {out: os.path.join(out, "runs", os.listdir(os.path.join(out, "runs"))[0]) for out in (whole, cut)}
    targets = [p["target"] for p in _points(whole)]
    assert targets == [500, 1000, 1500]
    for target in targets:  # the points of the first sitting kept, the later ones as uninterrupted
        assert all(np.array_equal(a, b) for a, b in zip(_weights(budget.point_path(runs[cut], target)),
                                                        _weights(budget.point_path(runs[whole], target))))
    with open(os.path.join(runs[cut], "budget-training.json"), encoding="utf-8") as fh:
        assert json.load(fh)["sittings"] == 2


def test_a_resumable_seed_that_lost_a_point_before_its_checkpoint_trains_again_from_the_start(tmp_path,
                                                                                             monkeypatch):
    config = str(tmp_path / "dqn.yaml")
    with open(config, "w", encoding="utf-8") as fh:
        yaml.safe_dump(DQN_TINY, fh)
    out = str(tmp_path / "cut")
    monkeypatch.setattr(budget, "train_algorithm", cut_at(budget.train_algorithm, 1_100, _Killed))
    with pytest.raises(_Killed):
        main(["benchmark", "--train", config, *DQN_ARGS, "--out", out])
    run_dir = os.path.join(out, "runs", os.listdir(os.path.join(out, "runs"))[0])
    os.remove(budget.point_path(run_dir, 500) + ".npz")  # the point at 500 decisions, before the checkpoint at 1,000
    plan = budget.make_plan(config, ["1500"], 1, UNO_SUITE_V1, out, points=3, curve_games=4, budget_games=4)
    assert budget.resumable.exists(run_dir) and not budget.resuming(plan, 0)
    monkeypatch.undo()
    assert main(["benchmark", "--train", config, *DQN_ARGS, "--out", out]) == 0
    with open(os.path.join(run_dir, "budget-training.json"), encoding="utf-8") as fh:
        assert json.load(fh)["sittings"] == 1  # trained again from the start, in one sitting


@pytest.mark.parametrize("settings, says", [
    (DQN_TINY, "resumes from its last checkpoint (one every 500 decisions)"),
    ({**DQN_TINY, "checkpoint_every": 0}, "trains again from the start: its config has checkpoint_every: 0"),
    (TINY, "trains again from the start: the protocol resumes only trainers whose resumed runs learn what "
           "uninterrupted ones do (resumable = True), and ppo is not one"),
])
def test_ctrl_c_says_what_the_next_run_does_with_the_interrupted_seed(settings, says, tmp_path, monkeypatch, capsys):
    config = str(tmp_path / "run.yaml")
    with open(config, "w", encoding="utf-8") as fh:
        yaml.safe_dump(settings, fh)

    def ctrl_c(*args, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(budget, "train_algorithm", ctrl_c)
    assert main(["benchmark", "--train", config, *DQN_ARGS, "--out", str(tmp_path / "out")]) == 130
    assert says in capsys.readouterr().out


def test_a_trainer_that_cannot_be_imported_is_refused_before_the_out_directory_records_it(tmp_path, capsys):
    config = _config(tmp_path, algo="examples.pg_plugin:trian")
    out = tmp_path / "out"
    assert main(["benchmark", "--train", config, *ARGS, "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "trian" in error and len(error.strip().splitlines()) == 1
    assert not out.exists()  # nothing recorded: the corrected config may use the same --out
