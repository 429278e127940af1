"""Golden results: the baseline agents' games on every benchmark task replay exactly (tests/data/golden).

The files hold every game ``random``, ``greedy`` and ``heuristic`` play on the suite (train/benchmark/golden.py).
test-quick replays the first games of every task, on the Python engine and on the compiled core where it
covers the task; make test replays every game. A mismatch names the task, the agent, the game and its seed
and what differed; a deliberate change of outcomes regenerates the files and the suite's references in the
same commit (the failure says how).
"""
import json

import pytest

from uno_env import core

from train.benchmark import golden
from train.benchmark.suite import DEFAULT_SUITE, get_suite
from train.evaluation.worker import init_worker, play_job

SUITE = get_suite(DEFAULT_SUITE)
TASK_IDS = SUITE.task_ids()
QUICK_GAMES = 6  # per task and agent: both seats at two players, six of the 24 seatings at four
NATIVE_GAMES = 48  # the core plays these agents' games several times slower: every seating twice, not every game
NATIVE_TASKS = [t.task_id for t in SUITE.tasks if core.covers(t.rules())]


def _task(task_id):
    return next(t for t in SUITE.tasks if t.task_id == task_id)


def _replay(task_id: str, games: int, backend: str) -> None:
    task = _task(task_id)
    if backend == "native":
        assert core.available(), core.why_unavailable()
    stored = golden.read_golden(SUITE, task)
    found = []
    for agent in golden.GOLDEN_AGENTS:
        played = golden.play_golden_games(task, agent, 0, min(games, task.games), backend)
        found += golden.differences(task, agent, stored[agent][:len(played)], played)
    shown = found[:10] + ([f"... {len(found) - 10} more games differ"] if len(found) > 10 else [])
    assert not found, (f"{backend} engine: the golden games of {task_id} changed:\n" + "\n".join(shown) + "\n"
                       + golden.regenerate_advice(SUITE))


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_first_games_of_every_task_replay_exactly(task_id):
    _replay(task_id, QUICK_GAMES, "python")


@pytest.mark.parametrize("task_id", NATIVE_TASKS)
def test_first_games_replay_exactly_on_the_compiled_core(task_id):
    _replay(task_id, QUICK_GAMES, "native")


@pytest.mark.slow
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_every_game_of_every_task_replays_exactly(task_id):
    _replay(task_id, _task(task_id).games, "python")


@pytest.mark.slow
@pytest.mark.parametrize("task_id", NATIVE_TASKS)
def test_a_full_rotation_replays_exactly_on_the_compiled_core(task_id):
    _replay(task_id, NATIVE_GAMES, "native")


def test_the_files_hold_every_game_and_agree_with_the_references():
    """Every task's file is this suite's, holds every game of each agent with its win count, and the suite's
    reference win rates (train/benchmark/references) are these games' wins: a change regenerates both."""
    references = json.load(open(SUITE.references_path(), encoding="utf-8"))["tasks"]
    for task in SUITE.tasks:
        with open(golden.golden_path(task), encoding="utf-8") as fh:
            head = json.load(fh)
        assert head["suite"] == SUITE.name and isinstance(head["uno_env_version"], str)
        rows = golden.read_golden(SUITE, task)
        for agent in golden.GOLDEN_AGENTS:
            assert len(rows[agent]) == task.games
            assert [r[0] for r in rows[agent]] == [task.seed + i for i in range(task.games)]
            assert head["agents"][agent]["wins"] == golden.agent_wins(rows[agent])
        for agent in ("random", "heuristic"):
            said, won = references[task.task_id][agent]["wins"], golden.agent_wins(rows[agent])
            assert said == won, (f"{task.task_id}: the references say {agent} wins {said}, the golden games {won}; "
                                 f"{golden.regenerate_advice(SUITE)}")


@pytest.mark.parametrize("task_id", ["classic-2p", "flip-4p"])
def test_golden_games_are_the_benchmark_games(task_id):
    """The tournament worker the benchmark plays through gives every stored game's seating, winner and points."""
    task = _task(task_id)
    stored = golden.read_golden(SUITE, task)
    seatings = [tuple(row[1]) for row in stored["heuristic"][:4]]
    for agent in golden.GOLDEN_AGENTS:
        specs = task.lineup(agent)
        init_worker(task.rules().to_dict(), specs)
        for index, seating in enumerate(seatings):
            result = play_job((index, task.seed, seating, False))
            seed, seats, winner, _, points, _ = stored[agent][index]
            assert (seed, seats, winner, points) == (task.seed + index, result["seating"], result["winner"],
                                                     result["round_points"])


def _tiny_suite(tmp_path):
    """Four games of classic-2p, written to tmp_path: a file to tamper with."""
    suite = SUITE.only(["classic-2p"]).with_games_per_task(4)
    played = golden.play_suite(suite, workers=1, backend="python")
    golden.write_golden(suite, played, str(tmp_path))
    return suite, played


def test_written_files_read_back_and_a_changed_game_is_named(tmp_path, capsys):
    suite, played = _tiny_suite(tmp_path)
    task = suite.tasks[0]
    assert golden.read_golden(suite, task, str(tmp_path)) == played["classic-2p"]
    assert golden.check(suite, workers=1, folder=str(tmp_path)) == []
    path = golden.golden_path(task, str(tmp_path))
    stored = json.load(open(path, encoding="utf-8"))
    row = stored["agents"]["heuristic"]["games"][3]
    row[2] = 1 - row[2]  # the other seat won
    row[5] = "0" * 16
    json.dump(stored, open(path, "w", encoding="utf-8"))
    found = golden.check(suite, workers=1, folder=str(tmp_path))
    assert found == [f"task classic-2p, agent heuristic, game 3 (seed 10003): winner {row[2]} -> {1 - row[2]}; "
                     f"actions '{'0' * 16}' -> '{played['classic-2p']['heuristic'][3][5]}' (stored -> replayed)"]


@pytest.mark.parametrize("damage, message", [
    (lambda s: s.replace('"uno-env-golden-games"', '"other"'), "format 'other' version 1, not uno-env-golden-games"),
    (lambda s: s.replace('"seed": 10000', '"seed": 5'), "not uno-suite-v1's task classic-2p as defined now"),
    (lambda s: s[:len(s) // 2], "invalid JSON"),
    (lambda s: s.replace('"greedy"', '"greedier"'), "agents lacks 'greedy'"),
    (lambda s: " " * (golden.MAX_GOLDEN_BYTES + 1), "larger than"),
])
def test_a_damaged_file_is_one_line_with_the_command_to_regenerate(tmp_path, damage, message):
    suite, _ = _tiny_suite(tmp_path)
    path = golden.golden_path(suite.tasks[0], str(tmp_path))
    text = open(path, encoding="utf-8").read()
    open(path, "w", encoding="utf-8").write(damage(text))
    with pytest.raises(golden.GoldenError, match=message) as info:
        golden.read_golden(suite, suite.tasks[0], str(tmp_path))
    assert "\n" not in str(info.value) and str(info.value).endswith(f"{golden.COMMAND} --suite uno-suite-v1")


def test_a_stored_row_of_the_wrong_shape_is_named(tmp_path):
    task = SUITE.tasks[0]
    played = golden.play_golden_games(task, "random", 0, 2)
    assert golden.differences(task, "random", [played[0], [1, 2]], played) == [
        "task classic-2p, agent random, game 1 (seed 10001): the stored row [1, 2] is not "
        "[seed, seating, winner, decisions, round_points, actions]"]


def test_command_line_checks_and_refuses_bad_input(tmp_path, capsys):
    _tiny_suite(tmp_path)
    assert golden.main(["--check", "--tasks", "classic-2p", "--games", "2", "--workers", "1",
                        "--out", str(tmp_path)]) == 2  # the tiny file is for a 4-game task: named, with the fix
    out = capsys.readouterr()
    assert "made for suite" in out.err and "python -m train.benchmark.golden --suite uno-suite-v1" in out.err
    assert golden.main(["--check", "--tasks", "classic-2p", "--games", "2", "--workers", "1"]) == 0
    assert "is as stored" in capsys.readouterr().out
    for argv, message in [(["--games", "3"], "--games N (1 or more) goes with --check"),
                          (["--check", "--tasks", "nope"], "suite 'uno-suite-v1' has no task 'nope'; tasks: "),
                          (["--backend", "native"], "--backend goes with --check"),
                          (["--check", "--workers", "0"], "--workers must be from 1 to 64; got 0"),
                          (["--suite", "v9"], "unknown suite 'v9'")]:
        assert golden.main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, (argv, err)
