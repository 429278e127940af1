"""Hostile command-line options, lock files, cached chunks and scenario-spec keys: each is refused at once
with one short line (the CLI: status 2, ``<prog>: error: ...``; specs: a SpecError), never a traceback, a
hang or a huge allocation (``run_bounded``: a memory-capped subprocess, where a regression would hang or
eat memory)."""
from __future__ import annotations

import contextlib
import io
import os
import struct
import zipfile

import numpy as np
import pytest
import yaml
from numpy.lib import format as npy_format

from train.ppo import distill
from train.benchmark import budget, throughput
from train.benchmark.suite import UNO_SUITE_V1
from train.app.cli import main
from train.config import ConfigError, TrainConfig
from train.errors import UsageError
from train.app.play.terminal import Terminal, play_session
from train.scaleout import bench as scaleout_bench
from train.scaleout.tournament import MAX_REASON_CHARS, last_line
from uno_env import Game, RuleSet
from uno_env.cards import Effect
from uno_env.errors import SpecError

from tiny_configs import BUDGET_PPO

#: Characters an error line may have here: what was wrong, what is allowed, a short excerpt at most.
SHORT = 400
HUGE_NUMBER = "9" * 5000


def _one_line(err: str, prog: str, limit: int = SHORT) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err[:2000]
    assert lines[0].startswith(f"{prog}: error: "), lines[0][:400]
    assert len(lines[0]) <= limit and "Traceback" not in err, lines[0][:2000]
    return lines[0]


def _fails(argv, capsys, *words) -> str:
    """Run the CLI: status 2 and one short ``uno-env <command>: error:`` line naming ``words``."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refused the value
        code = exc.code
    assert code == 2
    line = _one_line(capsys.readouterr().err, f"uno-env {argv[0]}")
    for w in words:
        assert w in line, (w, line)
    return line


def _fails_bounded(run_bounded, argv, *words, preload=("train.app.cli",)) -> str:
    """As ``_fails``, in a memory-capped subprocess (a regression would train, search or allocate for ever)."""
    done = run_bounded(f"import sys\nfrom train.app.cli import main\nsys.exit(main({argv!r}))", preload=preload,
                       timeout=120)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    line = _one_line(done.stderr, f"uno-env {argv[0]}")
    for w in words:
        assert w in line, (w, line)
    return line


TINY = BUDGET_PPO  # tests/tiny_configs.py


def _config(folder) -> str:
    path = os.path.join(str(folder), "tiny.yaml")
    with open(path, "w", encoding="utf-8") as fh:
        yaml.safe_dump(TINY, fh)
    return path


# ----------------------------------------------------------------------------- uno-env benchmark

#: A config that does not exist: were a bad count let through, the run would stop at once, naming the config.
NO_CONFIG = "no-such-dir/no-such-config.yaml"


def test_benchmark_seeds_of_30_digits_is_refused_before_any_training(run_bounded):
    _fails_bounded(run_bounded, ["benchmark", "--train", "quick", "--budget", "1000", "--seeds", "9" * 30,
                                 "--out", "unused-out"], "--seeds", f"at most {budget.MAX_SEEDS}")


@pytest.mark.parametrize("flag, value, allowed", [
    ("--seeds", "101", "at most 100"), ("--seeds", "0", "1 or more"), ("--points", "101", "at most 100"),
    ("--points", HUGE_NUMBER, "at most 100"), ("--only-seed", "-1", "0 or more"), ("--only-seed", "100", "at most 99"),
    ("--workers", "257", "at most 256"), ("--games-per-task", "1000001", "at most 1,000,000"),
    ("--budget-games-per-task", HUGE_NUMBER, "at most 1,000,000")])
def test_benchmark_counts_are_bounded(capsys, tmp_path, flag, value, allowed):
    _fails(["benchmark", "--train", NO_CONFIG, "--budget", "1000", "--seeds", "1", flag, value,
            "--out", str(tmp_path / "out")], capsys, flag, allowed)


def test_benchmark_workers_are_bounded_for_an_agent_run_too(capsys, tmp_path):
    _fails(["benchmark", "--agent", "random", "--workers", "100000", "--out", str(tmp_path)], capsys,
           "--workers", "at most 256")


def test_a_budget_of_5000_digits_is_one_short_line(run_bounded):
    line = _fails_bounded(run_bounded, ["benchmark", "--train", NO_CONFIG, "--budget", HUGE_NUMBER, "--seeds", "1",
                                        "--out", "unused-out"], "--budget", "10,000,000,000")
    assert line.count("9") < 100


@pytest.mark.parametrize("text", [HUGE_NUMBER, "9" * 400 + ".5M", "10000000001", "20000M", "1e400", "-5", "0",
                                  "1.5", ["1M"], None, True])
def test_parse_decisions_refuses_out_of_range_and_odd_values(text):
    with pytest.raises(UsageError, match="--budget must be a whole number of decisions from 1 to") as info:
        budget.parse_decisions(text)
    assert len(str(info.value)) <= SHORT


def test_parse_decisions_still_reads_every_documented_form():
    assert [budget.parse_decisions(t) for t in ("2048", "1_000_000", "1,000,000", "500k", "1M", "2.5M", "10000M")] \
        == [2048, 1_000_000, 1_000_000, 500_000, 1_000_000, 2_500_000, budget.MAX_DECISIONS]


def test_make_plan_bounds_seeds_points_and_budgets(tmp_path):
    config = _config(tmp_path)
    for kwargs, words in ((dict(seeds=10**30), "--seeds must be 1 or more, at most 100"),
                          (dict(seeds=1, points=10**5), "--points must be 0 or more .*, at most 100"),
                          (dict(seeds=1, budgets=["1k"] * 21), "at most 20 times")):
        budgets = kwargs.pop("budgets", ["2048"])
        with pytest.raises(UsageError, match=words) as info:
            budget.make_plan(config, budgets, suite=UNO_SUITE_V1, out_dir=str(tmp_path / "out"), **kwargs)
        assert len(str(info.value)) <= SHORT


def _locked_plan(tmp_path, content: bytes) -> budget.Plan:
    plan = budget.make_plan(_config(tmp_path), ["2048"], 1, UNO_SUITE_V1, str(tmp_path / "out"))
    budget.prepare_out(plan)
    os.makedirs(plan.run_dir(0))
    with open(os.path.join(plan.run_dir(0), budget.TRAINING_LOCK), "wb") as fh:
        fh.write(content)
    return plan


@pytest.mark.parametrize("content", [HUGE_NUMBER.encode(), b"1" * 10_000_000, b"\xff\xfe" * 100, b"pid 12 here"])
def test_a_training_lock_that_is_not_a_process_id_is_refused_in_one_line(tmp_path, capsys, content):
    plan = _locked_plan(tmp_path, content)
    with pytest.raises(UsageError, match="does not hold a process id") as info:
        with budget._seed_lock(plan, 0):
            pass
    assert len(str(info.value)) <= SHORT
    assert os.path.exists(os.path.join(plan.run_dir(0), budget.TRAINING_LOCK))  # nothing wiped
    with contextlib.redirect_stdout(io.StringIO()):  # the CLI says the same in one line, status 2
        _fails(["benchmark", "--train", plan.config_file, "--budget", "2048", "--seeds", "1", "--workers", "1",
                "--no-progress", "--out", plan.out_dir], capsys, "does not hold a process id")


def test_a_training_lock_with_an_impossible_process_id_is_taken_over(tmp_path):
    plan = _locked_plan(tmp_path, b"99999999999999999999")  # 20 digits: os.kill would overflow
    with budget._seed_lock(plan, 0):
        with open(os.path.join(plan.run_dir(0), budget.TRAINING_LOCK), encoding="utf-8") as fh:
            assert fh.read() == str(os.getpid())


def test_a_killed_seeds_lock_is_taken_over_when_the_seed_resumes(tmp_path, monkeypatch):
    # a process killed hard leaves its lock; the resumed seed keeps its run directory, so the lock is still there
    plan = _locked_plan(tmp_path, b"99999999999999999999")
    kept = os.path.join(plan.run_dir(0), "checkpoint-stand-in")
    open(kept, "w").close()
    monkeypatch.setattr(budget, "resuming", lambda plan, seed: True)
    with budget._seed_lock(plan, 0):
        with open(os.path.join(plan.run_dir(0), budget.TRAINING_LOCK), encoding="utf-8") as fh:
            assert fh.read() == str(os.getpid())
        assert os.path.exists(kept)  # the run directory was resumed, not wiped
    assert not os.path.exists(os.path.join(plan.run_dir(0), budget.TRAINING_LOCK))


# ----------------------------------------------------------------------------- uno-env bench

def test_bench_net_of_a_billion_units_is_refused_before_building_it(run_bounded):
    _fails_bounded(run_bounded, ["bench", "train", "--net", "1000000000"], "--net", "at most 4,096")


def test_bench_positions_and_iterations_are_refused_before_searching(run_bounded):
    _fails_bounded(run_bounded, ["bench", "search", "--positions", "999999999"], "--positions", "at most 10,000")
    _fails_bounded(run_bounded, ["bench", "search", "--iterations", "999999999"], "--iterations", "at most 100,000")


@pytest.mark.parametrize("argv, words", [
    (["bench", "train", "--net", *["8"] * 17], ("--net lists 17 hidden layers", "at most 16")),
    (["bench", "train", "--native-steps", "1000000000"], ("--native-steps", "at most 10,000,000")),
    (["bench", "train", "--sb3-steps", HUGE_NUMBER], ("--sb3-steps", "at most 10,000,000")),
    (["bench", "search", "--rounds", "1001"], ("--rounds", "at most 1,000")),
    (["bench", "split", "--seconds", "1e6"], ("--seconds", "at most 3600")),
    (["bench", "split", "--seconds", "inf"], ("--seconds",)),
    (["bench", "engine", "--players", *["2"] * 17], ("--players lists 17", "at most 16"))])
def test_bench_options_are_bounded(capsys, argv, words):
    # (were a value let through, the unknown variant would stop the run at once)
    _fails([*argv, "--variant", "no-such-variant"], capsys, *words)


def test_bench_search_measure_checks_its_arguments(run_bounded):
    code = """
        from train.benchmark import search
        from train.errors import UsageError
        for args in ((10**9, 10, 1), (10, 10**9, 1), (10, 10, 0), (10, 10, True), (10, 10, 1001)):
            try:
                search.measure("classic", 2, *args)
            except UsageError as exc:
                print("REFUSED", exc)
    """
    done = run_bounded(code, preload=("train.benchmark.search",))
    assert done.returncode == 0, done.stderr[-2000:]
    refusals = done.stdout.splitlines()
    assert len(refusals) == 5 and all("must be a whole number from 1 to" in r and len(r) <= SHORT for r in refusals)


def test_bench_split_records_at_most_max_split_games(monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(throughput, "print_split", lambda variant, players, games, policy: seen.append(games))
    assert main(["bench", "split", "--seconds", "3600", "--players", "2"]) == 0
    assert seen == [throughput.MAX_SPLIT_GAMES]


# ----------------------------------------------------------------------------- python -m train.scaleout.bench

@pytest.mark.parametrize("argv, words", [(["--games", "9" * 30], ("--games", "at most 1,000,000")),
                                         (["--rounds", "101"], ("--rounds", "at most 100")),
                                         (["--games", "0"], ("--games", "1 or more"))])
def test_scaleout_bench_counts_are_bounded(capsys, argv, words):
    with pytest.raises(SystemExit) as info:  # (were a count let through, the bad agent would stop the run at once)
        scaleout_bench.main([*argv, "--agents", "no-such-agent", "random"])
    assert info.value.code == 2
    line = _one_line(capsys.readouterr().err, scaleout_bench.PROG)
    assert all(w in line for w in words), line


def test_scaleout_bench_bad_agent_is_one_line(capsys):
    # (the multiprocessing path is measured first: the bad spec fails before Ray starts)
    assert scaleout_bench.main(["--games", "2", "--rounds", "1", "--agents", "no-such-agent" * 1000, "random"]) == 2
    line = _one_line(capsys.readouterr().err, scaleout_bench.PROG, limit=1000)  # (it lists the allowed specs)
    assert "unknown agent spec" in line and line.count("no-such-agent") < 10


def test_a_ray_chunk_error_without_text_or_with_a_huge_one_is_cut_short():
    assert last_line(RuntimeError("")) == "no message"
    assert last_line(RuntimeError("first\n  \n" + "x" * 100_000 + "\n\n")) == "x" * MAX_REASON_CHARS + "..."


# ----------------------------------------------------------------------------- uno-env play / demo

@pytest.mark.parametrize("argv, words", [
    (["play", "--seat", "9" * 47], ("--seat", "at most 9")), (["play", "--seat", "-1"], ("--seat", "0 or more")),
    (["play", "--seed", "-1"], ("--seed", "0 or more")), (["play", "--seed", HUGE_NUMBER], ("--seed", "digits")),
    (["demo", "--seed", "-1"], ("--seed", "0 or more")), (["demo", "--seed", str(2**63)], ("--seed", "at most")),
    (["demo", "--seed", "9" * 45], ("--seed",))])
def test_play_and_demo_seats_and_seeds_are_bounded(capsys, argv, words):
    _fails(argv, capsys, *words)


def test_demo_takes_the_largest_seed(capsys):
    assert main(["demo", "--seed", str(2**63 - 1), "--players", "2"]) == 0
    assert f"seed {2**63 - 1}" in capsys.readouterr().out


def test_terminal_input_of_huge_lines_is_refused_briefly():
    inputs = HUGE_NUMBER + "\n" + "x" * 1_000_000 + "\n" + "y" * 300 + "\nquit\n"
    out = io.StringIO()
    term = Terminal(io.StringIO(inputs), out, colour=False)
    assert play_session(RuleSet.create("classic", 2), ["random"], 0, 1, term) is None
    refusals = [line for line in out.getvalue().splitlines() if "not an option here" in line]
    assert len(refusals) == 3 and all(len(line) <= SHORT for line in refusals), refusals


# ----------------------------------------------------------------------------- train/ppo/distill.py chunks

TEACHER = dict(algo="ppo", gamma=1.0, total_timesteps=1_000, num_games=16, n_steps=32, batch_size=256,
               net_arch=[64, 64], eval_every=100_000, eval_games=4, run_name="distilled", opponents={"heuristic": 1.0},
               teacher="ismcts:iterations=20", teacher_games=distill.CHUNK_GAMES, teacher_epochs=2)


def _shape() -> tuple[int, int]:
    g = Game("classic", 2)
    from uno_env.observation import ObservationEncoder

    return ObservationEncoder(g).size, g.num_actions


def _valid_arrays(rows: int = 3) -> dict[str, np.ndarray]:
    size, actions = _shape()
    target = np.zeros((rows, actions), np.float32)
    target[:, 0] = 1.0
    return {"obs": np.zeros((rows, size), np.float32), "mask": np.ones((rows, actions), np.int8), "target": target,
            "result": np.ones(rows, np.float32), "game": np.arange(rows, dtype=np.int64)}


def _npy(shape, dtype, data: bytes) -> bytes:
    buf = io.BytesIO()
    npy_format.write_array_header_1_0(buf, {"descr": npy_format.dtype_to_descr(np.dtype(dtype)),
                                            "fortran_order": False, "shape": tuple(shape)})
    return buf.getvalue() + data


def _write_zip(path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)


def _members(arrays: dict[str, np.ndarray]) -> dict[str, bytes]:
    return {f"{k}.npy": _npy(v.shape, v.dtype, v.tobytes()) for k, v in arrays.items()}


def _read(path):
    size, actions = _shape()
    return distill.read_chunk(str(path), range(0, distill.CHUNK_GAMES), size, actions, distill.CHUNK_GAMES * 5000)


def test_a_valid_chunk_reads_back(tmp_path):
    arrays = _valid_arrays()
    with open(tmp_path / "c.npz", "wb") as fh:
        np.savez_compressed(fh, **arrays)
    got = _read(tmp_path / "c.npz")
    assert all(np.array_equal(got[k], arrays[k]) and got[k].dtype == arrays[k].dtype for k in arrays)
    assert got["obs"].flags.writeable


def _hostile_chunks():
    size, actions = _shape()
    good = _members(_valid_arrays())
    nan = _valid_arrays()
    nan["result"][1] = np.nan
    far = _valid_arrays()
    far["game"][0] = 10**6
    return {
        "claims a billion rows": ({**good, "obs.npy": _npy((10**9, size), np.float32, b"\0" * 64)}, "examples"),
        "wrong width": ({**good, "obs.npy": _npy((3, size + 1), np.float32, b"\0" * 12 * (size + 1))}, "shape"),
        "object array": ({**good, "obs.npy": _npy((3,), object, b"\0" * 24)}, "not a numeric array"),
        "short data": ({**good, "mask.npy": good["mask.npy"][:-5]}, "bytes of data"),
        "extra member": ({**good, "evil.npy": good["game.npy"]}, "6 members"),
        "missing member": ({k: v for k, v in good.items() if k != "target.npy"}, "4 members"),
        "renamed member": ({**{k: v for k, v in good.items() if k != "target.npy"},
                            "../target.npy": good["target.npy"]}, "it holds"),
        "huge header": ({**good, "game.npy": b"\x93NUMPY\x02\x00" + struct.pack("<I", 10**8) + b" " * 100},
                        "header"),
        "not finite": (_members(nan), "not finite"),
        "another chunk's games": (_members(far), "game ids"),
    }


@pytest.mark.parametrize("case", list(_hostile_chunks()))
def test_a_hostile_chunk_is_refused_in_one_line(tmp_path, case):
    members, words = _hostile_chunks()[case]
    _write_zip(tmp_path / "c.npz", members)
    with pytest.raises(ConfigError, match=words) as info:
        _read(tmp_path / "c.npz")
    assert len(str(info.value)) <= SHORT + len(str(tmp_path)) and "\n" not in str(info.value)


@pytest.mark.parametrize("content", [b"", b"not a zip at all" * 100, b"PK\x03\x04" + b"\0" * 100])
def test_a_chunk_that_is_not_a_zip_is_refused(tmp_path, content):
    (tmp_path / "c.npz").write_bytes(content)
    with pytest.raises(ConfigError, match="not a labelled chunk of this run"):
        _read(tmp_path / "c.npz")


def test_a_zip_directory_of_a_million_members_is_refused_before_zipfile_reads_it(tmp_path):
    record = b"PK\x05\x06" + struct.pack("<HHHHLLH", 0, 0, 65535, 65535, 50_000_000, 0, 0)
    (tmp_path / "c.npz").write_bytes(b"PK\x03\x04" + b"\0" * 100 + record)
    with pytest.raises(ConfigError, match="65,535 members"):
        _read(tmp_path / "c.npz")


def test_label_reads_its_cached_chunks_bounded(run_bounded, tmp_path):
    """A chunk in the run's teacher folder whose header claims a huge array: refused before any allocation."""
    code = f"""
        import io, zipfile
        import numpy as np
        from numpy.lib import format as npy_format
        from train.ppo import distill
        from train.config import ConfigError, TrainConfig
        cfg = TrainConfig.from_dict({dict(TEACHER, out_dir=str(tmp_path / "runs"))!r})
        folder = {str(tmp_path / "teacher")!r}
        import os; os.makedirs(folder)
        distill._check_folder(cfg, folder)
        head = io.BytesIO()
        npy_format.write_array_header_1_0(head, {{"descr": "<f4", "fortran_order": False, "shape": (10**7, 405)}})
        with zipfile.ZipFile(os.path.join(folder, "chunk_00000.npz"), "w", zipfile.ZIP_DEFLATED) as z:
            for name in ("obs", "mask", "target", "result", "game"):
                z.writestr(name + ".npy", head.getvalue() + bytes(10**6))
        try:
            distill.label(cfg, folder, workers=1, progress=False)
        except ConfigError as exc:
            print("REFUSED", exc)
    """
    done = run_bounded(code, preload=("train.ppo.distill", "train.config", "agents", "uno_env"))
    assert done.returncode == 0 and "REFUSED" in done.stdout, done.stderr[-2000:]
    assert "examples" in done.stdout


def test_a_labelling_of_other_settings_is_a_config_error_repeating_only_short_values(tmp_path):
    cfg = TrainConfig.from_dict({**TEACHER, "out_dir": str(tmp_path / "runs")})
    folder = str(tmp_path / "teacher")
    os.makedirs(folder)
    with open(os.path.join(folder, distill.IDENTITY), "w", encoding="utf-8") as fh:
        fh.write('{"variant": "' + "x" * 1_000_000 + '"}')
    with pytest.raises(ConfigError, match="variant changed") as info:
        distill.label(cfg, folder, workers=1, progress=False)
    assert len(str(info.value)) <= SHORT + len(folder)
    os.remove(os.path.join(folder, distill.IDENTITY))
    _write_zip(os.path.join(folder, "chunk_00000.npz"), _members(_valid_arrays()))
    with pytest.raises(ConfigError, match="without labelling.json"):
        distill.label(cfg, folder, workers=1, progress=False)


# ----------------------------------------------------------------------------- scenario specs

def _all_but(g: Game, kinds: set[int]) -> tuple[list[str], list[str]]:
    """Every card of the deck not of ``kinds`` (split in two hands), and the cards of ``kinds``."""
    names = [g.deck.name_of[k] for k in range(g.num_kinds) for _ in range(g.deck.count_of[k]) if k not in kinds]
    chosen = [g.deck.name_of[k] for k in sorted(kinds) for _ in range(g.deck.count_of[k])]
    return names, chosen


def _spec_error(g: Game, spec: dict, *words) -> str:
    with pytest.raises(SpecError) as info:
        g.state_from_spec(spec)
    message = str(info.value)
    assert len(message) <= SHORT and "\n" not in message, message[:2000]
    for w in words:
        assert w in message, (w, message)
    return message


ELIM = dict(scoring_method="elimination", target_score=100)


@pytest.mark.parametrize("launcher, words", [
    ([0] * 4097, ("launcher lists 4,097 presses", "at most 4,096")),
    ([0, 1, 10**30], ("launcher[2]", "from 0 to 112")),
    ([0, 10**5000], ("launcher[1]", "bits")),
    ([0, -1], ("launcher[1] = -1",)),
    ([0, True], ("launcher[1] = True",)),
    ("x" * 1_000_000, ("launcher = 'xxx", "must be a list")),
    ({"a": 1}, ("must be a list",))])
def test_attack_launcher_is_bounded(launcher, words):
    _spec_error(Game("attack", 2), {"launcher": launcher}, *words)


def test_attack_launcher_of_the_limit_is_read():
    g = Game("attack", 2)
    s = g.state_from_spec({"launcher": [112] * 4096})
    assert len(s.launcher_script) == 4096


@pytest.mark.parametrize("eliminated, current, words", [
    ([False] * 1_000_000, 0, ("eliminated = [False, False", "list of 3")),
    ("y" * 1_000_000, 0, ("eliminated = 'yyy",)),
    ([False, False, True], "x" * 1_000_000, ("current",)),
    ([False, False, True], 10**30, ("current",)),
    ([False, False, True], 2, ("current = 2 is eliminated",))])
def test_attack_eliminated_is_echoed_briefly_and_a_bad_current_is_a_spec_error(eliminated, current, words):
    g = Game("attack", 3, **ELIM)
    hands = [7, 7, [] if isinstance(eliminated, list) and len(eliminated) == 3 and eliminated[2] else 7]
    _spec_error(g, {"eliminated": eliminated, "hands": hands, "current": current}, *words)


def test_attack_start_from_a_pile_of_wild_attacks_alone_ends(run_bounded):
    code = """
        from uno_env import Game
        from uno_env.cards import Effect
        g = Game("attack", 2)
        wild = {k for k in range(g.num_kinds) if g.effect_of[k] == Effect.WILD_ATTACK}
        names = [g.deck.name_of[k] for k in range(g.num_kinds) for _ in range(g.deck.count_of[k]) if k not in wild]
        pile = [g.deck.name_of[k] for k in wild for _ in range(g.deck.count_of[k])]
        s = g.state_from_spec({"hands": [names[:50], names[50:]], "draw_pile": pile, "discard": [], "start": True})
        print("TOP", g.to_spec(s)["discard"], sum(s.hand_size) + len(s.draw_pile) + len(s.discard))
    """
    done = run_bounded(code, preload=("uno_env",), timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "TOP ['WA'] 112" in done.stdout


def test_classic_start_from_a_pile_of_wild_draw_fours_alone_is_a_spec_error_not_a_duplicated_card():
    g = Game("classic", 2)
    rest, pile = _all_but(g, {k for k in range(g.num_kinds) if g.effect_of[k] == Effect.WILD_DRAW_FOUR})
    _spec_error(g, {"hands": [rest[:50], rest[50:]], "draw_pile": pile, "discard": [], "start": True},
                "only Wild Draw Fours")


@pytest.mark.parametrize("power, words", [
    (["z" * 1_000_000, True], ("power[0] = 'zzz", "true/✓ or false/✘")),
    ({"P0": True, "1": True, " 1 ": False}, ("mapping of at most 2 seats",)),
    ({f"P{i}": True for i in range(100_000)}, ("mapping of at most 2 seats",)),
    ({10**5000: True}, ("power: <an int of",)),
    ({"²": True}, ("power: '²' is not a seat",)),
    ({"9" * 5000: True}, ("power: '999", "is not a seat")),
    ([True] * 1_000_000, ("power = [True, True", "at most 2 entries"))])
def test_flex_power_is_echoed_briefly(power, words):
    _spec_error(Game("flex", 2), {"power": power}, *words)


@pytest.mark.parametrize("spec, words", [
    ({"side": "A" * 1_000_000}, ("side = 'AAA", "allowed: A")),
    ({"side": 10**5000}, ("side = <an int of",)),
    ({"colour": "R" * 1_000_000}, ("colour = 'RRR", "is not a colour of side A")),
    ({"colour": 10**5000}, ("colour = <an int of",)),
    ({"colour": ["R"] * 1_000_000}, ("colour = ['R', 'R'",))])
def test_flip_side_and_colour_are_echoed_briefly(spec, words):
    _spec_error(Game("flip", 2), spec, *words)


def test_flip_colour_of_the_side_is_still_read():
    g = Game("flip", 2)
    s = g.state_from_spec({"discard": ["R7"], "colour": "r"})
    assert g.to_spec(s)["colour"] == "R"

