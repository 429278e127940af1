"""Hostile input files and values: each attack is refused in one line (exit 2) or a clear exception, within bounded
memory (``run_bounded``: a memory-capped subprocess, so a regression fails instead of exhausting the machine).

Covers YAML alias bombs in rule options, rules files, training configs and deck manifests; the one YAML reader's
limits (size, UTF-8, empty files, nesting, long integers); ``eval --resume`` with damaged rows; empty checkpoints;
training without torch; and record files read lazily with bounded lines.
"""
from __future__ import annotations

import json
import os

import pytest

from train.app.cli import main
from train.evaluation import tournament
from train.evaluation.stream import STREAM_FILE
from uno_env import Game, RuleError, RuleSet
from uno_env.safe_yaml import MAX_YAML_BYTES, YamlFileError
from paths import ROOT  # tests/paths.py

#: Nine levels of nine-fold aliases: 389 bytes that stand for 9**9 (387 million) words once expanded.
ALIAS_CHAIN = "[&a [x,x,x,x,x,x,x,x,x], " + ", ".join(
    f"&{b} [{', '.join([f'*{a}'] * 9)}]" for a, b in zip("abcdefgh", "bcdefghi")) + "]"
#: The longest an error line of the command line may be here (a message repeats only short prefixes).
MAX_LINE = 2000


def _cli(run_bounded, argv, preload=("train.app.cli",), prelude="", **kw):
    """Run ``uno-env argv`` in a memory-capped subprocess; returns the CompletedProcess."""
    code = f"import sys\n{prelude}\nfrom train.app.cli import main\nsys.exit(main({argv!r}))\n"
    return run_bounded(code, preload=preload, **kw)


def _refused(done, command: str, *words: str) -> str:
    """Exit status 2 and exactly one short ``uno-env <command>: error:`` line on stderr naming ``words``."""
    lines = done.stderr.splitlines()
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith(f"uno-env {command}: error: "), done.stderr[-2000:]
    assert len(lines[0]) <= MAX_LINE, lines[0][:300]
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


# -- 1: YAML aliases never expand -------------------------------------------------------------------------------

def test_the_alias_chain_is_small_and_nested():
    assert len(ALIAS_CHAIN) < 400 and ALIAS_CHAIN.count("*") == 72


def test_an_alias_chain_in_an_option_value_is_refused_in_one_line(run_bounded):
    done = _cli(run_bounded, ["demo", "--option", f"stacking={ALIAS_CHAIN}"])
    _refused(done, "demo", "--option 'stacking=", "not a plain value", "flat list of numbers")


def test_the_web_servers_options_are_read_by_the_same_bounded_parser(run_bounded):
    done = run_bounded(f"""
        from train.errors import UsageError
        from train.app.serve.session import rules_from_request
        try:
            rules_from_request({{"variant": "classic", "players": 2, "options": ["stacking={ALIAS_CHAIN}"]}})
        except UsageError as exc:
            print(len(str(exc)), str(exc)[:60])
    """, preload=("train.app.serve.session",))
    assert done.returncode == 0, done.stderr[-2000:]
    size, text = done.stdout.split(" ", 1)
    assert int(size) < MAX_LINE and text.startswith("--option 'stacking=")


@pytest.mark.parametrize("value, kind", [
    ("any", "any"), ("on", True), ("off", False), ("3", 3), ("0.25", 0.25), ("3e-4", 3e-4), ("[0.5, 0.5]", [0.5, 0.5]),
    ("'on'", "on"), ("runs/my deck.yaml", "runs/my deck.yaml"), ("[]", []), ("-2", -2)])
def test_option_values_are_plain_scalars_or_a_flat_list_of_numbers(value, kind):
    from train.rule_args import parse_options

    assert parse_options([f"k={value}"]) == {"k": kind}


@pytest.mark.parametrize("value", ["[[1]]", "{a: 1}", "a: b", "*a", "&a 1", "[1, x]", "!!str x", "|", "x" * 1025,
                                   "[" + ", ".join(["1"] * 65) + "]", "a\nb"])
def test_option_values_that_are_not_plain_are_usage_errors(value):
    from train.errors import UsageError
    from train.rule_args import parse_options

    with pytest.raises(UsageError, match="--option") as caught:
        parse_options([f"stacking={value}"])
    assert len(str(caught.value)) < MAX_LINE and "\n" not in str(caught.value)


def test_a_rule_options_error_repeats_only_a_short_prefix_of_the_value():
    for value in ("x" * 10**6, list(range(10**5)), {"k" * 10**5: 1}, 10**5000):
        with pytest.raises(RuleError) as caught:
            RuleSet.create("classic", 2, {"stacking": value})
        assert len(str(caught.value)) < 500


def _alias_rules(path, chain=ALIAS_CHAIN):
    path.write_text(f"variant: classic\nnum_players: 2\noptions:\n  stacking: {chain}\n", encoding="utf-8")
    assert path.stat().st_size < 700
    return str(path)


def test_an_alias_chain_in_a_rules_file_is_refused_by_demo(run_bounded, tmp_path):
    rules = _alias_rules(tmp_path / "rules.yaml")
    _refused(_cli(run_bounded, ["demo", "--rules", rules]), "demo", rules, "line 4", "anchor (&a) is not allowed")


def test_an_alias_chain_in_a_training_config_is_refused_by_train(run_bounded, tmp_path):
    config = tmp_path / "train.yaml"
    config.write_text(f"algo: ppo\nrule_options:\n  stacking: {ALIAS_CHAIN}\n", encoding="utf-8")
    _refused(_cli(run_bounded, ["train", "--config", str(config)]), "train", str(config), "line 3",
             "anchor (&a) is not allowed")


def test_an_alias_chain_in_a_deck_manifest_is_a_rule_error(run_bounded, tmp_path):
    manifest = tmp_path / "flex.yaml"
    manifest.write_text(f"name: flex\ncolours: [R, G, B, Y]\ncoloured: {ALIAS_CHAIN}\n", encoding="utf-8")
    done = run_bounded(f"""
        from uno_env import Game, RuleError
        try:
            Game("flex", 2, **{{"flex.deck_manifest": {str(manifest)!r}}})
        except RuleError as exc:
            print(str(exc)[:2000])
    """, preload=("uno_env",))
    assert done.returncode == 0 and "anchor (&a) is not allowed" in done.stdout, done.stderr[-2000:]


def _read_with(reader: str, path: str):
    """Read ``path`` with one of the project's YAML readers."""
    if reader == "rules":
        return RuleSet.from_yaml(path)
    if reader == "train":
        from train.config import TrainConfig
        return TrainConfig.from_yaml(path)
    if reader == "rllib":
        from train.rllib.trainer import RllibConfig
        return RllibConfig.from_yaml(path)
    if reader == "deck":
        from uno_env.cards import load_deck_file
        return load_deck_file(path)
    if reader == "saved-run":
        from train.run_dirs import saved_config
        os.replace(path, os.path.join(os.path.dirname(path), "config.yaml"))
        return saved_config(os.path.dirname(path))
    raise AssertionError(reader)


READERS = ["rules", "train", "rllib", "deck", "saved-run"]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("text, words", [
    ("variant: &v classic\nnum_players: 2\n", ["line 1", "anchor (&v)"]),
    ("variant: classic\nseed: 1\nname: *v\n", ["line 3", "alias (*v)"]),
    ("", ["is empty", "expected "]),
    ("# only a comment\n\n", ["is empty"]),
    ("variant: classic\nseed: " + "9" * 500 + "\n", ["line 2", "an integer of 500 characters"]),
    ("x: " + "[" * 40 + "]" * 40 + "\n", ["nested more than 32 deep"]),
    ("variant: classic\nbad: [1, 2\n", ["invalid YAML at line"]),
])
def test_every_yaml_reader_refuses_anchors_aliases_empty_files_and_more(tmp_path, reader, text, words):
    path = tmp_path / "f.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(YamlFileError) as caught:
        _read_with(reader, str(path))
    message = str(caught.value)
    assert "\n" not in message and len(message) < 500 and ("f.yaml" in message or "config.yaml" in message)
    for word in words:
        assert word in message, (word, message)


@pytest.mark.parametrize("reader", READERS)
def test_every_yaml_reader_refuses_a_file_over_the_size_limit_and_bytes_that_are_not_utf8(tmp_path, reader):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"variant: classic\n" + b"# padding\n" * (MAX_YAML_BYTES // 10))
    with pytest.raises(YamlFileError, match=f"larger than {MAX_YAML_BYTES:,} bytes"):
        _read_with(reader, str(big))
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"variant: classic\nname: caf\xe9\n")
    with pytest.raises(YamlFileError, match=r"\.yaml: line 2: not UTF-8 text \(byte 0xe9"):
        _read_with(reader, str(latin))


def test_no_module_reads_yaml_but_through_the_safe_reader():
    root = str(ROOT)
    offenders = []
    for folder in ("uno_env", "train", "agents"):
        for base, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if name.endswith(".py") and name != "safe_yaml.py":
                    text = open(os.path.join(base, name), encoding="utf-8").read()
                    if "yaml.safe_load" in text or "yaml.load(" in text or "yaml.full_load" in text:
                        offenders.append(os.path.join(base, name))
    assert offenders == []


def test_a_huge_yaml_file_is_never_read_whole(run_bounded, tmp_path):
    huge = tmp_path / "huge.yaml"
    with open(huge, "wb") as fh:  # a sparse gigabyte: nothing on disk, everything if read
        fh.write(b"variant: classic\nnum_players: 2\nname: ")
        fh.truncate(2**30)
    _refused(_cli(run_bounded, ["demo", "--rules", str(huge)], extra_mb=200), "demo", "larger than 1,000,000 bytes")


# -- 8: one line instead of a traceback ---------------------------------------------------------------------------

def test_a_rules_file_that_is_not_utf8_is_refused_in_one_line(tmp_path, capsys):
    rules = tmp_path / "rules.yaml"
    rules.write_bytes(b"\xff\xfe v\x00a\x00r\x00")
    for argv in (["demo", "--rules", str(rules)], ["train", "--config", str(rules)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and "not UTF-8 text" in err and str(rules) in err


def test_an_empty_rules_file_or_training_config_is_refused_instead_of_the_defaults(tmp_path, capsys):
    empty = tmp_path / "empty.yaml"
    empty.write_text("\n# nothing here\n")
    assert main(["demo", "--rules", str(empty)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and f"{empty} is empty" in captured.err and "variant, num_players" in captured.err
    assert main(["train", "--config", str(empty)]) == 2
    assert f"{empty} is empty" in capsys.readouterr().err


def test_an_empty_native_checkpoint_is_refused_in_one_line(tmp_path, capsys):
    run = tmp_path / "runs" / "tiny"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "native.pt").write_bytes(b"")
    config = tmp_path / "tiny.yaml"
    config.write_text(f"algo: ppo\nrun_name: tiny\nout_dir: {tmp_path / 'runs'}\nnum_games: 4\nn_steps: 4\n"
                      "net_arch: [8]\ntotal_timesteps: 64\n")
    assert main(["train", "--config", str(config), "--resume", str(run), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "native.pt is empty or cut short" in err, err


def test_training_without_torch_names_the_extra_to_install(run_bounded, tmp_path):
    config = tmp_path / "ppo.yaml"
    config.write_text(f"algo: ppo\nout_dir: {tmp_path / 'runs'}\ntotal_timesteps: 64\nnum_games: 4\n")
    done = _cli(run_bounded, ["train", "--config", str(config), "--no-progress"],
                prelude="sys.modules['torch'] = None  # a plain install: import torch fails")
    _refused(done, "train", "torch is missing", "pip install 'uno-env[train]'")
    assert not (tmp_path / "runs").exists()


# -- 9: records are read lazily, one bounded line at a time -------------------------------------------------------

def _one_game_record(path) -> None:
    from uno_env.records import Recorder

    game = Game("classic", num_players=2)
    rec, state = Recorder(game, 1, ["a", "b"], str(path)), game.new_state(1)
    while not state.is_over:
        rec.step(state, game.legal_actions(state)[0])


def test_replay_of_one_game_stops_reading_at_that_game(run_bounded, tmp_path):
    record = tmp_path / "games.jsonl"
    _one_game_record(record)
    with open(record, "ab") as fh:  # game 1's header, then a gigabyte without a newline (sparse on disk)
        fh.write(open(record, "rb").readline())
        fh.truncate(fh.tell() + 2**30)
    done = _cli(run_bounded, ["replay", str(record), "--game", "0"], extra_mb=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("game 0: classic, 2 players, seed 1; P0=a, P1=b")
    # the whole file: game 0 and game 1's header replay; the gigabyte line is refused after 1 MiB of it
    done = _cli(run_bounded, ["replay", str(record)], extra_mb=300)
    _refused(done, "replay", str(record), "is longer than 1,048,576 characters")


def test_read_records_is_lazy_and_keeps_its_signature():
    import io

    from uno_env.records import RecordError, Recorder, read_records, stream_records

    text = io.StringIO()
    game = Game("classic", num_players=2)
    rec, state = Recorder(game, 3, ["a", "b"]), game.new_state(3)
    while not state.is_over:
        rec.step(state, game.legal_actions(state)[0])
    rec.finish(state).write(text)
    head = text.getvalue()
    source = io.StringIO(head + head + '{"type": "game", broken\n')
    records = read_records(source)
    first = next(records)  # read up to game 1's header: the broken line after game 1 is not reached
    assert isinstance(first.actions, list) and first.outcome is not None
    with pytest.raises(RecordError, match="line .*: not JSON"):
        next(records)  # game 1 ends where the broken line begins
    streamed = stream_records(io.StringIO(head + head))
    assert [len(list(r.actions)) for r in streamed] == [len(first.actions)] * 2


# -- 7: eval --resume with damaged rows ----------------------------------------------------------------------------

EVAL = ["eval", "--agents", "random", "greedy", "--games", "8", "--seed", "2", "--workers", "1", "--no-progress"]


def test_eval_resume_drops_damaged_rows_with_a_warning_and_plays_their_games_again(tmp_path, capsys, monkeypatch):
    assert main(EVAL + ["--out", str(tmp_path / "whole")]) == 0
    lines = (tmp_path / "whole" / STREAM_FILE).read_text().splitlines()
    rows = [json.loads(line) for line in lines[1:]]
    assert [r["index"] for r in rows] == list(range(8))

    cut = tmp_path / "cut"
    cut.mkdir()
    no_points = {k: v for k, v in rows[1].items() if k not in ("round_points", "hand_points")}
    bad_type = {**rows[2], "winner": "P0", "hand_points": [10**400, 0]}
    wrong_index = {**rows[3], "index": 99}
    wrong_seating = {**rows[4], "seating": [0, 0]}
    damaged = [lines[0], json.dumps(rows[0]), json.dumps(no_points), json.dumps(bad_type), json.dumps(wrong_index),
               json.dumps(wrong_seating), '{"index": 5, "seating": [', json.dumps(rows[6]),
               json.dumps({**rows[6], "winner": 1 - rows[6]["winner"] if rows[6]["winner"] in (0, 1) else 0}),
               "[1, 2, 3]", "null", json.dumps(rows[7])[:30]]  # the last line torn (no newline)
    (cut / STREAM_FILE).write_text("\n".join(damaged))
    played = []
    real_play = tournament.play_job
    monkeypatch.setattr(tournament, "play_job", lambda job: (played.append(job[0]), real_play(job))[1])
    capsys.readouterr()
    assert main(EVAL + ["--out", str(cut), "--resume"]) == 0
    captured = capsys.readouterr()
    assert sorted(played) == [1, 2, 3, 4, 5, 7]
    warnings = [line for line in captured.err.splitlines() if "warning" in line]
    assert "Traceback" not in captured.err
    for number, words in [(3, "'round_points'"), (4, "'winner'"), (5, "game index 99"), (6, "seating"),
                          (7, "not JSON"), (9, "game 6 again (kept from line 8)"), (10, "not a game's row"),
                          (11, "not a game's row")]:
        assert any(f"line {number}: " in w and words in w for w in warnings), (number, warnings)
    assert len(warnings) == 8
    assert json.load(open(tmp_path / "whole" / "results.json")) == json.load(open(cut / "results.json"))
    kept = [json.loads(line) for line in (cut / STREAM_FILE).read_text().splitlines()[1:]]
    assert sorted(r["index"] for r in kept) == list(range(8))  # every game once


def test_eval_resume_names_at_most_ten_damaged_lines(tmp_path, capsys):
    assert main(EVAL + ["--out", str(tmp_path)]) == 0
    header = (tmp_path / STREAM_FILE).read_text().splitlines()[0]
    (tmp_path / STREAM_FILE).write_text(header + "\n" + "not json\n" * 25)
    capsys.readouterr()
    assert main(EVAL + ["--out", str(tmp_path), "--resume"]) == 0
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 11 and "15 more damaged lines dropped" in err


@pytest.mark.slow  # writes and bounds a file of hundreds of MB
def test_eval_resume_skips_an_overlong_line_without_reading_it_whole(run_bounded, tmp_path):
    assert main(EVAL + ["--out", str(tmp_path)]) == 0
    path = tmp_path / STREAM_FILE
    header = path.read_text().splitlines()[0]
    with open(path, "w") as fh:
        fh.write(header + "\n")
        fh.truncate(len(header) + 1 + 2**30)  # a sparse gigabyte without a newline
    done = _cli(run_bounded, EVAL + ["--out", str(tmp_path), "--resume"], extra_mb=350, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "line 2: longer than 16,777,216 characters" in done.stderr


# -- review: absurd numbers on the command line and in configs ----------------------------------------------------

@pytest.mark.parametrize("flag, value, words", [("--games", "1000000000000", "at most 1,000,000"),
                                                ("--workers", "100000", "at most 256"),
                                                ("--seed", "-1", "--seed must be a whole number, 0 or more")])
def test_eval_refuses_absurd_numbers_at_once(run_bounded, tmp_path, flag, value, words):
    argv = ["eval", "--agents", "random", "greedy", "--out", str(tmp_path), "--no-progress", flag, value]
    _refused(_cli(run_bounded, argv), "eval", words)


@pytest.mark.parametrize("key, value", [("num_games", 10**9), ("n_envs", 10**6), ("net_arch", [10**9]),
                                        ("truncation_reward", float("nan")), ("learning_rate", 10**400)])
def test_training_configs_refuse_sizes_no_machine_has(key, value):
    from train.config import ConfigError, TrainConfig

    with pytest.raises(ConfigError) as caught:
        TrainConfig.from_dict({"algo": "ppo", key: value})
    assert len(str(caught.value)) < 500


@pytest.mark.parametrize("entry, words", [
    ({"notation": "{colour}{label:>999999999}"}, "nothing else inside the braces"),
    ({"count": 10**9}, "has count"),
    ({"glyphs": [1, 2]}, "malformed"),
])
def test_deck_manifests_refuse_format_bombs_huge_counts_and_bad_shapes(run_bounded, tmp_path, entry, words):
    manifest = tmp_path / "deck.yaml"
    card = {"label": "1", "rank": "1", "effect": "number", "points": 1, "count": 2, **entry}
    manifest.write_text(json.dumps({"name": "t", "colours": ["R", "G"], "coloured": [card], "wild": []}))
    done = run_bounded(f"""
        from uno_env import RuleError
        from uno_env.cards import load_deck_file
        try:
            load_deck_file({str(manifest)!r})
        except RuleError as exc:
            print(str(exc)[:2000])
    """, preload=("uno_env",))
    assert done.returncode == 0 and words in done.stdout, (done.stdout, done.stderr[-2000:])


def test_a_huge_latest_json_is_treated_as_damaged(tmp_path):
    from train.sb3.checkpoint import _latest

    (tmp_path / "latest.json").write_text(json.dumps({"path": "step_1.zip", "pad": "x" * 100_000}))
    path, problem = _latest(str(tmp_path))
    assert path is None and "damaged latest.json" in problem
    for name in ("step_" + "9" * 5000 + ".zip", "step_\u00b2.zip"):  # int() refuses both
        (tmp_path / "latest.json").write_text(json.dumps({"path": name}))
        path, problem = _latest(str(tmp_path))
        assert path is None and "not a step_<N>.zip" in problem and len(problem) < 200


def test_option_float_values_must_be_finite():
    for value in (float("nan"), float("inf"), 10**400):
        with pytest.raises(RuleError):
            RuleSet.create("attack", 2, {"attack.p_fire": value})


def test_yaml_file_error_is_a_yaml_error_and_a_uno_error():
    import yaml

    from uno_env import UnoError

    assert issubclass(YamlFileError, yaml.YAMLError) and issubclass(YamlFileError, UnoError)


def test_a_games_row_must_have_every_field_with_its_type():
    from train.evaluation.stream import check_row

    seatings = [(0, 1), (1, 0)]
    good = {"index": 1, "seating": [1, 0], "winner": 0, "round_points": [5, 0], "hand_points": [0, 5],
            "truncated": False}
    assert check_row({**good, "extra": 1}, seatings, record=False) == (good, "")
    for change in ({"round_points": [10**400, 0]}, {"hand_points": [float("nan"), 0]}, {"round_points": [True, 0]},
                   {"hand_points": [1]}, {"winner": 2}, {"winner": True}, {"truncated": 0}, {"index": 2},
                   {"index": "1"}, {"seating": [0, 1]}, {"record": []}):
        row, problem = check_row({**good, **change}, seatings, record=False)
        assert row is None and problem and len(problem) < 300, change
    row, problem = check_row(good, seatings, record=True)
    assert row is None and "--record" in problem


def test_a_runs_own_csv_files_damaged_or_huge_do_not_stop_it(tmp_path):
    from train.run_dirs import append_eval, append_progress

    result = {"random": {"games": 4, "win_rate": 0.5, "ci95": (0.1, 0.9)}}
    fresh = tmp_path / "fresh.csv"
    append_eval(str(fresh), 10, result)
    append_eval(str(fresh), 20, result)
    assert fresh.read_text().splitlines() == ["timesteps,opponent,games,win_rate,ci95_low,ci95_high",
                                              "10,random,4,0.5000,0.1000,0.9000", "20,random,4,0.5000,0.1000,0.9000"]
    damaged = tmp_path / "eval.csv"
    damaged.write_bytes(b"timesteps,opp\xff\n")
    append_eval(str(damaged), 10, result)
    assert damaged.read_bytes().startswith(b"timesteps,opp\xff\n10,random")
    progress = tmp_path / "progress.csv"
    progress.write_bytes(b"\xff" * 100_000)  # a first line that is neither short nor UTF-8
    append_progress(str(progress), {"steps": 1, "loss": 0.5, "unused": None})
    assert progress.read_bytes().endswith(b"\xff1,0.5\r\n")
