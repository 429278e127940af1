"""``uno-env benchmark``: the uno-suite-v1 definition, the aggregate math, runs, agent specs and the leaderboard."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from agents import AgentSpecError, ISMCTSAgent, PolicyAgent
from train.agent_specs import is_callable_spec, load_agent
from train.benchmark.aggregate import (aggregate, bootstrap_iqm_interval, interquartile_mean,
                                       normalised_score)
from train.benchmark.leaderboard import leaderboard_markdown
from train.benchmark import suite as suite_module
from train.benchmark.runner import build_results, measure_references, run_suite, write_references, write_results
from train.benchmark.suite import SUITES, UNO_SUITE_V1, get_suite
from train.app.cli import main
from train.errors import UsageError
from train.evaluation.tournament import run_tournament
from uno_env import Game, RuleSet

CALLABLE_AGENT = "benchmark_agents:make_lowest_legal_agent"  # tests/benchmark_agents.py


# ----------------------------------------------------------------------------- the suite

def test_suite_v1_has_the_documented_tasks():
    tasks = {t.task_id: t for t in UNO_SUITE_V1.tasks}
    assert list(tasks) == ["classic-2p", "alphabet-2p", "xiangqi-2p", "flex-2p", "flip-2p", "attack-2p",
                           "classic-4p", "flex-4p", "flip-4p", "attack-4p", "classic-2p-house"]
    assert [t.seed for t in UNO_SUITE_V1.tasks] == [10_000 * k for k in range(1, 12)]
    for t in UNO_SUITE_V1.tasks:
        assert t.opponents == ("heuristic",) * (t.players - 1)
        assert t.games == 1200 and t.games % t.rotation_length() == 0
        assert t.rules().num_players == t.players  # the options are valid for the variant
    house = tasks["classic-2p-house"].rules().options
    assert [house[k] for k in ("stacking", "jump_in", "multi_play", "uno_call")] == ["any", "on", "on", "decide"]
    assert tasks["classic-4p"].rotation_length() == 24 and tasks["classic-2p"].rotation_length() == 2


def test_smoke_game_counts_round_up_to_whole_rotations_and_are_not_official():
    smoke = UNO_SUITE_V1.only(["classic-2p", "flip-4p"]).with_games_per_task(5)
    assert [(t.task_id, t.games) for t in smoke.tasks] == [("classic-2p", 6), ("flip-4p", 24)]
    assert UNO_SUITE_V1.official and not smoke.official
    with pytest.raises(UsageError, match="classic-2p"):
        UNO_SUITE_V1.only(["clasic-2p"])


def test_bad_suite_name_lists_the_allowed_names(tmp_path, capsys):
    with pytest.raises(UsageError, match="allowed: uno-suite-v1"):
        get_suite("uno-suite-v9")
    assert main(["benchmark", "--agent", "random", "--suite", "uno-suite-v9", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown suite 'uno-suite-v9'" in err and "uno-suite-v1" in err
    assert set(SUITES) == {"uno-suite-v1"}


def test_reference_win_rates_cover_every_task_and_order_random_below_heuristic():
    refs = UNO_SUITE_V1.references()
    assert set(refs) == set(UNO_SUITE_V1.task_ids())
    for task_id, rates in refs.items():
        assert 0 <= rates["random"] < rates["heuristic"] <= 1, task_id


# ----------------------------------------------------------------------------- aggregate math

def test_normalised_score_is_zero_at_random_and_one_at_heuristic():
    scores = normalised_score([0.1, 0.5, 0.3, 0.7], [0.1, 0.1, 0.1, 0.1], [0.5, 0.5, 0.5, 0.5])
    np.testing.assert_allclose(scores, [0.0, 1.0, 0.5, 1.5])
    with pytest.raises(ValueError, match="undefined"):
        normalised_score([0.3], [0.2], [0.2])


def test_interquartile_mean_drops_a_quarter_at_each_end():
    assert interquartile_mean([5, 1, 3, 100, 2, 4, 0, -50]) == pytest.approx(2.5)  # mean of 1, 2, 3, 4
    assert interquartile_mean(list(range(11))) == pytest.approx(5.0)  # 2 dropped at each end: 2..8
    assert interquartile_mean([0, 0, 0, 0, 0, 0, 0, 0, 0, 1000, 1000]) == pytest.approx(0.0)
    assert interquartile_mean([1, 2, 6]) == pytest.approx(3.0)  # fewer than 4: nothing dropped
    np.testing.assert_allclose(interquartile_mean([[0, 1, 2, 9], [4, 4, 4, -9]], axis=-1), [1.5, 4.0])


def test_bootstrap_interval_is_reproducible_and_contains_the_estimate():
    wins, games = [30, 55, 10, 80, 45], [100, 100, 100, 100, 100]
    random_rates, heuristic_rates = [0.05, 0.1, 0.0, 0.2, 0.05], [0.5, 0.5, 0.25, 0.6, 0.5]
    first = bootstrap_iqm_interval(wins, games, random_rates, heuristic_rates, samples=2000, seed=3)
    again = bootstrap_iqm_interval(wins, games, random_rates, heuristic_rates, samples=2000, seed=3)
    other = bootstrap_iqm_interval(wins, games, random_rates, heuristic_rates, samples=2000, seed=4)
    assert first == again and first != other
    result = aggregate(wins, games, random_rates, heuristic_rates, samples=2000, seed=3)
    assert result["iqm_ci95"] == list(first)
    assert first[0] < result["iqm"] < first[1]
    more_games = bootstrap_iqm_interval([w * 10 for w in wins], [g * 10 for g in games], random_rates,
                                        heuristic_rates, samples=2000, seed=3)
    assert more_games[1] - more_games[0] < first[1] - first[0]


def test_bootstrap_of_certain_outcomes_is_a_single_point():
    low, high = bootstrap_iqm_interval([10, 0, 10, 0], [10, 10, 10, 10], [0.0] * 4, [0.5] * 4, samples=500)
    assert low == high == pytest.approx(interquartile_mean([2.0, 0.0, 2.0, 0.0]))


def test_heuristic_scores_one_and_random_zero_against_the_references():
    refs = json.loads(open(UNO_SUITE_V1.references_path(), encoding="utf-8").read())["tasks"]
    for agent, expected in (("heuristic", 1.0), ("random", 0.0)):
        rows = [{"games": refs[t][agent]["games"], "wins": refs[t][agent]["wins"],
                 "win_rate": refs[t][agent]["win_rate"], "win_rate_ci95": [0, 1], "mean_points": 0.0,
                 "truncated_games": 0} for t in UNO_SUITE_V1.task_ids()]
        results = build_results(UNO_SUITE_V1, agent, rows)
        assert [t["normalised_score"] for t in results["tasks"]] == pytest.approx([expected] * 11)
        assert results["aggregate"]["iqm"] == pytest.approx(expected)


# ----------------------------------------------------------------------------- runs

def test_the_whole_suite_runs_end_to_end_at_a_tiny_game_count(tmp_path, capsys):
    out = tmp_path / "random"
    assert main(["benchmark", "--agent", "random", "--games-per-task", "2", "--workers", "1", "--no-progress",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "not comparable" in printed and "| classic-2p-house |" in printed and "IQM of normalised scores" in printed
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["suite"] == "uno-suite-v1" and results["agent"] == "random" and results["official"] is False
    assert [t["id"] for t in results["tasks"]] == UNO_SUITE_V1.task_ids()
    assert [t["games"] for t in results["tasks"]] == [2] * 6 + [24] * 4 + [2]
    for t in results["tasks"]:
        low, high = t["win_rate_ci95"]
        assert 0 <= low <= t["win_rate"] <= high <= 1 and t["wins"] == round(t["win_rate"] * t["games"])
        assert "normalised_score" in t
    low, high = results["aggregate"]["iqm_ci95"]
    assert low <= results["aggregate"]["iqm"] <= high
    assert (out / "results.md").read_text(encoding="utf-8").startswith("# Benchmark: `random` on uno-suite-v1")


@pytest.mark.parametrize("spec", ["random", CALLABLE_AGENT])
def test_results_are_identical_for_one_and_two_workers(spec):
    suite = UNO_SUITE_V1.only(["flip-2p", "attack-4p"]).with_games_per_task(4)
    one = run_suite(suite, spec, workers=1, progress=False)
    two = run_suite(suite, spec, workers=2, progress=False)
    assert one == two and [row["games"] for row in one] == [4, 24]


def test_the_row_kept_is_the_agent_under_test_not_an_opponent():
    suite = UNO_SUITE_V1.only(["attack-4p"]).with_games_per_task(24)
    task = suite.tasks[0]
    summary = run_tournament(task.rules(), task.lineup("random"), task.games, task.seed, workers=1, progress=False)
    by_spec = {row["agent"]: row for row in summary["agents"]}
    assert set(by_spec) == {"random", "heuristic", "heuristic#2", "heuristic#3"}
    assert by_spec["random"]["wins"] != by_spec["heuristic#3"]["wins"]  # the rows can be told apart
    row = run_suite(suite, "random", workers=1, progress=False)[0]
    assert (row["games"], row["wins"]) == (by_spec["random"]["games"], by_spec["random"]["wins"])


def test_a_callable_agent_plays_the_suite(tmp_path):
    suite = UNO_SUITE_V1.only(["classic-2p"]).with_games_per_task(6)
    rows = run_suite(suite, CALLABLE_AGENT, workers=1, out_dir=str(tmp_path), progress=False)
    assert rows[0]["games"] == 6 and (tmp_path / "games" / "classic-2p" / "games-played.jsonl").exists()
    header = json.loads((tmp_path / "games" / "classic-2p" / "games-played.jsonl").read_text().splitlines()[0])
    assert header["agents"] == [CALLABLE_AGENT, "heuristic"]


def test_an_agent_keeping_something_else_under_policy_plays_a_tournament(tmp_path):
    # the stream fingerprints policy files only; a wrapper's own `policy` attribute is not one
    rules = RuleSet.create("classic", 2)
    wrapped = run_tournament(rules, ["benchmark_agents:make_wraps_policy_agent", "heuristic"], 4, seed=3, workers=1,
                             progress=False, out_dir=str(tmp_path / "a"))
    plain = run_tournament(rules, ["pretrained:classic-2p", "heuristic"], 4, seed=3, workers=1, progress=False,
                           out_dir=str(tmp_path / "b"))
    header = json.loads((tmp_path / "a" / "games-played.jsonl").read_text().splitlines()[0])
    assert header["policies"] == {}
    assert [row["wins"] for row in wrapped["agents"]] == [row["wins"] for row in plain["agents"]]


def test_resume_of_a_finished_run_gives_the_same_results(tmp_path, capsys):
    argv = ["benchmark", "--agent", "greedy", "--tasks", "xiangqi-2p", "--games-per-task", "4", "--workers", "1",
            "--no-progress", "--out", str(tmp_path)]
    assert main(argv) == 0
    first = _without_provenance(tmp_path / "results.json")
    assert main(argv + ["--resume"]) == 0
    assert "resuming: 4 of 4 games already played" in capsys.readouterr().out
    # the numbers are the same; the provenance (command line, machine) may legitimately differ
    assert _without_provenance(tmp_path / "results.json") == first


def _without_provenance(path) -> dict:
    results = json.loads(path.read_text(encoding="utf-8"))
    assert "provenance" in results
    return {k: v for k, v in results.items() if k != "provenance"}


def test_references_are_measured_written_and_read_back(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(suite_module, "REFERENCES_DIR", str(tmp_path))
    suite = UNO_SUITE_V1.only(["classic-2p"]).with_games_per_task(8)
    references = measure_references(suite, workers=1, progress=False)
    assert write_references(references, suite.references_path()) == str(tmp_path / "uno-suite-v1.json")
    rates = suite.references()["classic-2p"]
    assert rates == {agent: references["tasks"]["classic-2p"][agent]["win_rate"] for agent in ("random", "heuristic")}
    for agent, expected in (("random", 0.0), ("heuristic", 1.0)):
        results = build_results(suite, agent, run_suite(suite, agent, workers=1, progress=False))
        assert results["tasks"][0]["normalised_score"] == pytest.approx(expected)
    assert main(["benchmark", "--make-references", "--games-per-task", "2"]) == 2
    assert "measures the official suite" in capsys.readouterr().err


# ----------------------------------------------------------------------------- agent specs

def test_callable_specs_are_told_apart_from_built_in_specs_with_a_colon():
    game = Game(RuleSet.create("classic", 2, {}))
    assert not is_callable_spec("pretrained:classic") and not is_callable_spec("ismcts:iterations=5")
    assert not is_callable_spec("heuristic") and not is_callable_spec("runs/x/policy")
    assert is_callable_spec("mypkg.bots:make_agent") and is_callable_spec(CALLABLE_AGENT)
    assert is_callable_spec("ismcts_bots:make")  # only the exact ismcts forms go to agents.load
    assert isinstance(load_agent("ismcts:iterations=5", game, seed=1), ISMCTSAgent)
    assert isinstance(load_agent("pretrained:classic-2p", game, seed=1), PolicyAgent)
    agent = load_agent(CALLABLE_AGENT, game, seed=7)
    assert agent.game is game and agent.seed == 7


@pytest.mark.parametrize("spec, words", [
    ("nonsense", ["unknown agent spec 'nonsense'", "heuristic", "module:callable"]),
    ("no_such_module_here:make", ["cannot import module 'no_such_module_here'", "module:callable"]),
    ("benchmark_agents:missing", ["has no 'missing'"]),
    ("benchmark_agents:make_nothing", ["returned int", "act(observation, action_mask)"]),
])
def test_bad_agent_specs_print_one_clear_line(spec, words, tmp_path, capsys):
    with pytest.raises(AgentSpecError):
        load_agent(spec, Game(RuleSet.create("classic", 2, {})))
    assert main(["benchmark", "--agent", spec, "--tasks", "classic-2p", "--games-per-task", "2", "--workers", "1",
                 "--no-progress", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("uno-env benchmark: error:")
    for word in words:
        assert word in err
    assert not (tmp_path / "results.json").exists()


def test_a_policy_for_one_variant_is_refused_naming_the_task(tmp_path, capsys):
    assert main(["benchmark", "--agent", "pretrained:classic-2p", "--tasks", "classic-2p", "flip-2p",
                 "--games-per-task", "2", "--workers", "1", "--no-progress", "--out", str(tmp_path)]) == 2
    assert "task flip-2p" in capsys.readouterr().err


# ----------------------------------------------------------------------------- leaderboard

def _tiny_results(tmp_path, name: str, wins: list[int], official: bool = False, suite: str = "uno-suite-v1"):
    smoke = UNO_SUITE_V1.only(["classic-2p", "flip-2p"]).with_games_per_task(10)
    rows = [{"games": 10, "wins": w, "win_rate": w / 10, "win_rate_ci95": [0.0, 1.0], "mean_points": 1.0,
             "truncated_games": 0} for w in wins]
    results = {**build_results(smoke, name, rows), "official": official, "suite": suite}
    write_results(results, str(tmp_path / name))
    return str(tmp_path / name)


def test_leaderboard_ranks_runs_by_iqm_and_marks_smoke_runs(tmp_path, capsys):
    weak = _tiny_results(tmp_path, "weak", [1, 0])
    strong = _tiny_results(tmp_path, "strong", [9, 8], official=True)
    target = tmp_path / "docs" / "leaderboard.md"
    assert main(["benchmark", "--leaderboard", weak, strong, "--write", str(target)]) == 0
    table = target.read_text(encoding="utf-8")
    assert table in capsys.readouterr().out
    rows = [line for line in table.splitlines() if line.startswith("| 1 ") or line.startswith("| 2 ")]
    assert rows[0].startswith("| 1 | `strong` |") and rows[1].startswith("| 2 | `weak` * |")
    assert "| 90.0% | 80.0% |" in rows[0] and "| classic-2p | flip-2p |" in table
    assert "not comparable" in table
    assert os.listdir(tmp_path / "docs") == ["leaderboard.md"]  # no learning curves to draw


def test_leaderboard_refuses_mixed_suites_and_files_that_are_not_results(tmp_path, capsys):
    first = _tiny_results(tmp_path, "a", [1, 2])
    second = _tiny_results(tmp_path, "b", [3, 4], suite="uno-suite-v2")
    with pytest.raises(UsageError, match="different suite versions"):
        leaderboard_markdown([json.loads(open(f"{d}/results.json").read()) for d in (first, second)])
    (tmp_path / "other.json").write_text('{"games": 3}', encoding="utf-8")
    assert main(["benchmark", "--leaderboard", str(tmp_path / "other.json")]) == 2
    assert "not a benchmark results file" in capsys.readouterr().err
    unfinished = tmp_path / "budget-unfinished"
    unfinished.mkdir()
    assert main(["benchmark", "--leaderboard", first, str(unfinished)]) == 2
    assert "no results.json" in capsys.readouterr().err
    (unfinished / "protocol.json").write_text("{}", encoding="utf-8")
    assert main(["benchmark", "--leaderboard", first, str(unfinished)]) == 2
    assert "sample-budget run not finished yet" in capsys.readouterr().err
    assert main(["benchmark", "--agent", "random", "--write", str(tmp_path / "x.md")]) == 2
    assert "--write goes with --leaderboard" in capsys.readouterr().err


def _exploit_file(tmp_path, name: str, target: str, win_rate: float, players: int = 2) -> str:
    results = {"format": "uno-env-exploit", "version": 1, "target": target,
               "task": {"variant": "classic", "players": players, "rule_options": {}}, "budget": 1_000_000,
               "parity": 1 / players, "best": {"start": "shipped", "decisions": 1_000_321, "games": 200,
                                               "wins": round(200 * win_rate), "win_rate": win_rate,
                                               "ci95": [win_rate - 0.05, win_rate + 0.05]}}
    (tmp_path / name).mkdir()
    (tmp_path / name / "exploit.json").write_text(json.dumps(results), encoding="utf-8")
    return str(tmp_path / name)


def test_leaderboard_shows_exploit_runs_as_a_best_response_column_where_agents_compare_and_a_section(tmp_path, capsys):
    agents_run = _tiny_results(tmp_path, "heuristic", [5, 5])
    results = json.loads((tmp_path / "heuristic" / "results.json").read_text(encoding="utf-8"))
    results["agent"] = "heuristic"
    (tmp_path / "heuristic" / "results.json").write_text(json.dumps(results), encoding="utf-8")
    pretrained = _tiny_results(tmp_path, "pretrained", [7, 7])
    results = json.loads((tmp_path / "pretrained" / "results.json").read_text(encoding="utf-8"))
    results["agent"] = "pretrained"
    (tmp_path / "pretrained" / "results.json").write_text(json.dumps(results), encoding="utf-8")
    runs = [agents_run, pretrained, _exploit_file(tmp_path, "x-heuristic", "heuristic", 0.612),
            # the policy the spec 'pretrained' plays at classic-2p: its row gets the figure
            _exploit_file(tmp_path, "x-shipped", "pretrained:classic-2p", 0.484),
            str(tmp_path / "x-greedy" / "exploit.json"),
            # only one agent of the table has a best response at four players: the section, not a column
            _exploit_file(tmp_path, "x-shipped-4p", "pretrained:classic-4p", 0.331, players=4)]
    _exploit_file(tmp_path, "x-greedy", "greedy", 0.747)  # given as the file: no agents row, the section only
    assert main(["benchmark", "--leaderboard", *runs]) == 0
    table = capsys.readouterr().out
    header = next(line for line in table.splitlines() if line.startswith("| rank"))
    assert header.endswith("| best response classic-2p 1M | provenance |")
    rows = {line.split("|")[2].strip(): line for line in table.splitlines() if line.startswith("| 1 ")
            or line.startswith("| 2 ")}
    assert rows["`heuristic` *"].split(" | ")[-2] == "61.2%" and rows["`pretrained` *"].split(" | ")[-2] == "48.4%"
    section = table[table.index("## Approximate exploitability"):]
    assert "| `greedy` | classic-2p | 1M | shipped | 74.7% | 69.7% - 79.7% | 50% | 200 |" in section
    assert section.index("`greedy`") < section.index("`heuristic`") < section.index("`pretrained:classic-2p`")
    assert "| `pretrained:classic-4p` | classic-4p | 1M | shipped | 33.1% | 28.1% - 38.1% | 25% | 200 |" in section
    assert "best response classic-4p" not in header


def test_exploit_columns_keep_rule_options_apart():
    from train.benchmark.leaderboard import task_label

    plain = {"variant": "classic", "players": 2, "rule_options": {}}
    house = {"variant": "classic", "players": 2, "rule_options": {"stacking": "any", "draw_until_playable": True}}
    assert task_label(plain) == "classic-2p"
    assert task_label(house) == "classic-2p (draw_until_playable=true, stacking=any)"


def test_leaderboard_refuses_a_damaged_exploit_file_in_one_line(tmp_path, capsys):
    run = _exploit_file(tmp_path, "x", "heuristic", 0.6)
    data = json.loads((tmp_path / "x" / "exploit.json").read_text(encoding="utf-8"))
    data["best"]["win_rate"] = "high"
    (tmp_path / "x" / "exploit.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["benchmark", "--leaderboard", _tiny_results(tmp_path, "a", [1, 2]), run]) == 2
    err = capsys.readouterr().err
    assert "exploit.json" in err and "best.win_rate must be a number" in err and len(err.strip().splitlines()) == 1
    _exploit_file(tmp_path, "y", "heuristic", 0.6)
    assert main(["benchmark", "--leaderboard", str(tmp_path / "y")]) == 2
    assert "at least one uno-env benchmark result" in capsys.readouterr().err


def test_leaderboard_refuses_a_budget_results_file_without_its_runs_times_in_one_line(tmp_path, capsys):
    stored = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "leaderboard-results", "budget-dqn",
                          "results.json")
    with open(stored, encoding="utf-8") as fh:
        data = json.load(fh)
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "results.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["benchmark", "--leaderboard", str(tmp_path / "ok")]) == 0
    assert "min |" in capsys.readouterr().out  # the wall-clock column reads runs[].seconds
    for key, value in (("runs", None), ("budgets", None), ("runs", [{"seconds": "long"}])):
        broken = dict(data)
        if value is None:
            del broken[key]
        else:
            broken[key] = value
        (tmp_path / "bad").mkdir(exist_ok=True)
        (tmp_path / "bad" / "results.json").write_text(json.dumps(broken), encoding="utf-8")
        assert main(["benchmark", "--leaderboard", str(tmp_path / "bad")]) == 2
        err = capsys.readouterr().err
        assert key in err and len(err.strip().splitlines()) == 1
