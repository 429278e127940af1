"""What a person sees when their input is wrong: one line from the CLI, did-you-mean hints, clear
policy-file errors, readable help, and the terminal game's own help, drawn cards and ending."""
from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import agents
from uno_env.errors import did_you_mean
from agents import AgentSpecError, PolicyFileError
from agents.policy_file import PolicyFile
from train.app.play import demo
from train.app.cli import DOMAIN_ERRORS, build_parser, main
from train.config import ConfigError, TrainConfig
from train.app.play.demo import step_line
from train.app.play.terminal import Terminal, outcome_text, play_session
from uno_env import Game, RuleError, RuleSet
from uno_env.records import RecordError

PRETRAINED = agents.PRETRAINED_DIR


def _fails(argv, capsys, *words):
    """Run the CLI, expect status 2 and exactly one ``uno-env <command>: error:`` line naming ``words``."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    command = next(a for a in argv if not a.startswith("-"))
    assert lines[0].startswith(f"uno-env {command}: error: "), err
    for w in words:
        assert w in lines[0], (w, err)
    return lines[0]


@pytest.fixture
def policy(tmp_path):
    """A copy of the shipped classic-2p policy to damage; returns its base path."""
    for ext in ("npz", "json"):
        shutil.copy(os.path.join(PRETRAINED, f"classic-2p.{ext}"), tmp_path / f"p.{ext}")
    return str(tmp_path / "p")


# ----------------------------------------------------------------------------- 1. one line, status 2

def test_rule_errors_print_one_line(capsys):
    _fails(["demo", "--option", "stackin=any"], capsys, "unknown rule option 'stackin'", "did you mean 'stacking'")
    _fails(["demo", "--players", "11"], capsys, "range 2..10")
    _fails(["play", "--variant", "uno-deluxe"], capsys, "uno-deluxe", "classic")


def test_usage_errors_print_one_line(capsys):
    _fails(["demo", "--option", "stacking"], capsys, "--option expects KEY=VALUE", "'stacking'")
    _fails(["demo", "--option", "stacking=[any"], capsys, "--option 'stacking=[any'")
    _fails(["play", "--seat", "5"], capsys, "--seat must be 0..1", "got 5")
    _fails(["play", "--players", "3", "--opponents", "random", "greedy", "heuristic"], capsys,
           "3 players need 2 opponents", "got 3")


@pytest.mark.parametrize("argv, command, words", [
    (["eval", "--agents", "heuristic", "random", "--games", "abc"], "eval", ["--games", "invalid int value: 'abc'"]),
    (["eval", "--agents", "heuristic", "random", "--bogus"], "eval", ["unrecognized arguments: --bogus"]),
    (["bench", "train", "--minibatch", "0"], "bench", ["--minibatch", "got 0"]),
    (["train", "--timesteps", "abc"], "train", ["--timesteps"]),
])
def test_argument_errors_print_one_line_naming_the_command(argv, command, words, capsys):
    """What argparse refuses is one line too, from the sub-command it was given to, with no usage block."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"uno-env {command}: error: "), lines
    assert all(w in lines[0] for w in words) and f"see 'uno-env {command} --help'" in lines[0]


def test_resuming_a_run_that_does_not_exist_says_so(tmp_path, capsys):
    _fails(["train", "--resume", str(tmp_path / "nowhere")], capsys, "no run directory", "nowhere")


def test_agent_spec_errors_print_one_line(tmp_path, capsys):
    _fails(["play", "--opponents", "heuristc"], capsys, "unknown agent spec 'heuristc'", "did you mean 'heuristic'")
    _fails(["play", "--opponents", "pretrained:clasic-2p"], capsys, "did you mean 'classic-2p'")
    _fails(["play", "--opponents", str(tmp_path / "runs" / "policy")], capsys, "no such file: ")
    _fails(["eval", "--agents", "greedy", "genius", "--games", "2", "--workers", "1", "--no-progress",
            "--out", str(tmp_path / "out")], capsys, "unknown agent spec 'genius'", "random, greedy, heuristic")
    _fails(["play", "--opponents", "ismcts:depth=3"], capsys, "ismcts option 'depth=3'", "allowed: iterations")
    _fails(["eval", "--agents", "ismcts:void_weight=2", "heuristic", "--games", "2", "--workers", "1", "--no-progress",
            "--out", str(tmp_path / "out2")], capsys, "void_weight='2' is out of range")


def test_file_errors_print_one_line(tmp_path, capsys):
    missing = str(tmp_path / "nothing.yaml")
    _fails(["demo", "--rules", missing], capsys, "no such file or directory", missing)
    _fails(["train", "--config", missing], capsys, "no such file or directory", missing)
    _fails(["replay", str(tmp_path / "games.jsonl")], capsys, "no such file or directory")
    _fails(["replay", str(tmp_path)], capsys, "is a directory")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    _fails(["replay", str(empty)], capsys, "holds no game records")
    shutil.copy(os.path.join(PRETRAINED, "classic-2p.npz"), tmp_path / "binary.jsonl")
    _fails(["replay", str(tmp_path / "binary.jsonl")], capsys, "not a text (JSON-lines) record file")


def test_replay_game_index_out_of_range(tmp_path, capsys):
    record = str(tmp_path / "r.jsonl")
    game = Game("classic", num_players=2)
    from uno_env.records import Recorder

    rec, state = Recorder(game, 1, ["a", "b"], record), game.new_state(1)
    while not state.is_over:
        rec.step(state, game.legal_actions(state)[0])
    _fails(["replay", record, "--game", "3"], capsys, "--game 3", "the file has 1 game (0..0)")
    lines = open(record).read().count("\n")
    with open(record, "a") as fh:
        fh.write('{"type": "game", broken\n')
    _fails(["replay", record], capsys, f"{record}: line {lines + 1}: not JSON")


def test_malformed_yaml_names_file_line_and_column(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("variant: classic\nopponents:\n  heuristic: 1\n n_envs: 2\n")
    line = _fails(["train", "--config", str(bad)], capsys, str(bad), "line 4, column 2")
    assert "expected <block end>" in line
    _fails(["demo", "--rules", str(bad)], capsys, str(bad), "line 4, column 2")


def test_config_errors_name_the_file(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("totl_timesteps: 100\n")
    _fails(["train", "--config", str(cfg)], capsys, f"{cfg}: unknown training config key 'totl_timesteps'",
           "did you mean 'total_timesteps'")
    cfg.write_text("rule_options:\n  stackin: any\n")
    _fails(["train", "--config", str(cfg)], capsys, f"{cfg}: unknown rule option 'stackin'")
    _fails(["train", "--timesteps", "0"], capsys, "'total_timesteps' must be >= 1")
    rules = tmp_path / "r.yaml"
    rules.write_text("variant: classic\nnum_players: 2\noptions:\n  stackin: any\n")
    _fails(["demo", "--rules", str(rules)], capsys, f"{rules}: unknown rule option 'stackin'")


def test_policy_file_errors_print_one_line(policy, capsys):
    open(policy + ".npz", "wb").close()
    _fails(["play", "--opponents", policy], capsys, f"{policy}.npz is empty")


def test_a_sub_commands_exit_message_gets_the_same_form(monkeypatch, capsys):
    def run(args):
        raise SystemExit("demo: give at least two agents")

    monkeypatch.setattr(demo, "run", run)
    assert _fails(["demo"], capsys) == "uno-env demo: error: give at least two agents"


def test_debug_flag_and_environment_variable_show_the_traceback(monkeypatch, capsys):
    monkeypatch.delenv("UNO_ENV_DEBUG", raising=False)
    with pytest.raises(RuleError, match="stackin"):
        main(["--debug", "demo", "--option", "stackin=any"])
    monkeypatch.setenv("UNO_ENV_DEBUG", "1")
    with pytest.raises(RuleError, match="stackin"):
        main(["demo", "--option", "stackin=any"])
    monkeypatch.setenv("UNO_ENV_DEBUG", "0")
    assert main(["demo", "--option", "stackin=any"]) == 2


def test_interrupt_prints_one_line_and_exits_130(monkeypatch, capsys):
    def run(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(demo, "run", run)
    assert main(["demo"]) == 130
    assert capsys.readouterr().err == "uno-env demo: interrupted\n"
    with pytest.raises(KeyboardInterrupt):
        main(["--debug", "demo"])


@pytest.mark.parametrize("bug", [ZeroDivisionError("division by zero"), KeyError("x"), TypeError("t"),
                                 ValueError("a plain ValueError is not input's fault")])
def test_bugs_keep_their_traceback(monkeypatch, bug):
    def run(args):
        raise bug

    monkeypatch.setattr(demo, "run", run)
    with pytest.raises(type(bug)):
        main(["demo"])


def test_domain_errors_are_the_input_errors():
    for error in (RuleError, ConfigError, AgentSpecError, PolicyFileError, RecordError, FileNotFoundError,
                  OSError):
        assert issubclass(error, DOMAIN_ERRORS), error
    import yaml

    assert issubclass(yaml.YAMLError, DOMAIN_ERRORS)
    for bug in (ValueError, KeyError, TypeError, AttributeError):
        assert not issubclass(bug, DOMAIN_ERRORS), bug


def test_installed_entry_point_prints_one_line_and_status_2():
    cmd = [sys.executable, "-m", "train.app.cli", "demo", "--option", "stackin=any"]
    env = {k: v for k, v in os.environ.items() if k != "UNO_ENV_DEBUG"}
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert out.returncode == 2
    assert out.stderr.startswith("uno-env demo: error: unknown rule option 'stackin'")
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    out = subprocess.run(cmd, capture_output=True, text=True, env={**env, "UNO_ENV_DEBUG": "1"})
    assert out.returncode == 1 and "Traceback" in out.stderr and "RuleError" in out.stderr


# ----------------------------------------------------------------------------- 2. did you mean

def test_agent_specs_suggest_the_closest_name():
    game = Game("classic", num_players=2)
    with pytest.raises(AgentSpecError, match=r"unknown agent spec 'heuristc' \(did you mean 'heuristic'\?\)"):
        agents.load("heuristc", game)
    with pytest.raises(AgentSpecError, match=r"no pretrained policy 'clasic-2p' \(did you mean 'classic-2p'\?\)"):
        agents.load("pretrained:clasic-2p", game)
    with pytest.raises(AgentSpecError) as err:
        agents.load("smart", game)
    assert "did you mean" not in str(err.value)  # nothing close: no guess


def test_config_keys_and_opponents_suggest_the_closest_name():
    with pytest.raises(ConfigError, match=r"'totl_timesteps' \(did you mean 'total_timesteps'\?\)"):
        TrainConfig.from_dict({"totl_timesteps": 5})
    with pytest.raises(ConfigError) as err:
        TrainConfig.from_dict({"sed": 1, "zzz": 2})
    assert "'sed' (did you mean 'seed'?)" in str(err.value) and "'zzz';" in str(err.value)
    with pytest.raises(ConfigError, match=r"opponents: unknown agent spec 'heuristc' \(did you mean 'heuristic'\?\)"):
        TrainConfig.from_dict({"opponents": {"heuristc": 1.0}})


def test_did_you_mean_helper():
    assert did_you_mean("greedi", agents.BUILTIN) == " (did you mean 'greedy'?)"
    assert did_you_mean("xyzzy", agents.BUILTIN) == ""


# ----------------------------------------------------------------------------- 3. policy files

def test_empty_and_damaged_weight_files(policy):
    good = open(policy + ".npz", "rb").read()
    for content, words in ((b"", "is empty"), (good[: len(good) // 2], "not a readable weight file"),
                           (good[:100], "truncated or damaged"),
                           (b"hello, not numpy", "not an .npz (zip) archive")):
        with open(policy + ".npz", "wb") as fh:
            fh.write(content)
        with pytest.raises(PolicyFileError, match=re.escape(words)) as err:
            PolicyFile.read(policy)
        assert "allow_pickle" not in str(err.value)  # never suggest unpickling a policy


def test_weight_archive_with_damaged_members(policy):
    buf = io.BytesIO()
    np.save(buf, np.zeros((10, 10), np.float32))
    for name, member in (("p0.npy", buf.getvalue()[:200]), ("p0.npy", b""), ("p0.txt", b"text")):
        with zipfile.ZipFile(policy + ".npz", "w") as z:
            z.writestr(name, member)
        with pytest.raises(PolicyFileError, match="not a readable weight file"):
            PolicyFile.read(policy)


@pytest.mark.parametrize("content, words", [
    (b"", "is empty"), (b"  \n", "is empty"), (b"[1, 2]", "holds a JSON list"), (b'"policy"', "holds a JSON str"),
    (b"{not json", "is not valid JSON"), (b"\x93NUMPY\xff\xfe", "not a text (JSON) file")])
def test_empty_and_wrong_metadata_files(policy, content, words):
    with open(policy + ".json", "wb") as fh:
        fh.write(content)
    with pytest.raises(PolicyFileError, match=re.escape(words)):
        PolicyFile.read(policy)


def test_metadata_path_that_is_a_directory(policy):
    os.remove(policy + ".json")
    os.mkdir(policy + ".json")
    with pytest.raises(PolicyFileError, match="cannot read"):
        PolicyFile.read(policy)


def test_a_path_spec_to_nothing_says_no_such_file(tmp_path):
    game = Game("classic", num_players=2)
    base = str(tmp_path / "runs" / "x" / "policy")
    for spec in (base, base + ".npz", base + ".json"):
        with pytest.raises(PolicyFileError, match=re.escape(f"no such file: {base}(.npz/.json)")):
            agents.load(spec, game)
    with pytest.raises(PolicyFileError, match=re.escape("no such file: policy(.npz/.json)")):
        agents.load("policy.npz", game)  # no separator, but the extension says it is a file
    with pytest.raises(AgentSpecError, match="unknown agent spec 'policy'"):
        agents.load("policy", game)


def test_a_run_directory_points_at_its_policy(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    for ext in ("npz", "json"):
        shutil.copy(os.path.join(PRETRAINED, f"classic-2p.{ext}"), run / f"policy.{ext}")
    with pytest.raises(PolicyFileError, match=re.escape(f"a training run's policy is {run / 'policy'}")):
        agents.load(str(run), Game("classic", num_players=2))


def test_strict_rules_is_suggested_only_where_it_helps():
    with pytest.raises(PolicyFileError) as err:  # another variant: strict_rules=False cannot help
        agents.load("pretrained:classic-2p", Game("alphabet", num_players=2))
    assert "variant 'classic'" in str(err.value) and "strict_rules" not in str(err.value)
    with pytest.raises(PolicyFileError) as err:  # another variant and player count: still no
        agents.load("pretrained:classic-2p", Game("alphabet", num_players=3))
    assert "3)" in str(err.value) and "strict_rules" not in str(err.value)
    with pytest.raises(PolicyFileError, match="2 players .*strict_rules=False"):  # only the player count
        agents.load("pretrained:classic-2p", Game("classic", num_players=3))
    with pytest.raises(PolicyFileError, match="rule options .*strict_rules=False"):  # only an option
        agents.load("pretrained:classic-2p", Game("classic", num_players=2, stacking="any"))
    agents.load("pretrained:classic-2p", Game("classic", num_players=3), strict_rules=False)


# ----------------------------------------------------------------------------- 4. demo colour

def test_demo_names_a_colour_being_chosen():
    game = Game("classic", num_players=2)
    state = game.state_from_spec({"discard": ["R7"], "hands": [["W", "G1"], 3]})
    game.step(state, "play W")
    assert state.phase == "CHOOSE_COLOUR"
    line = step_line(game, state, 0, "TURN", "play W")
    assert "colour to be chosen" in line and "None" not in line


def test_demo_output_never_prints_colour_none(capsys):
    assert main(["demo", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "play W" in out and "colour to be chosen" in out
    assert "None" not in out


# ----------------------------------------------------------------------------- 5, 6. help

def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_top_level_help_is_plain_text_with_an_epilog(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "``" not in out
    assert "uno-env <command> --help" in out and "--debug" in out and "status 2" in out
    epilog = out.split("examples:", 1)[1]
    for name in _subcommands(build_parser()):
        assert f"uno-env {name} " in epilog, name


def _default_text(default) -> str:
    return " ".join(map(str, default)) if isinstance(default, (list, tuple)) else str(default)


def _has_real_default(action: argparse.Action) -> bool:
    # None, a flag's False and an empty repeatable list say nothing worth printing
    d = action.default
    return d is not None and d is not argparse.SUPPRESS and action.nargs != 0 and d != []


@pytest.mark.parametrize("command", ["(top level)", "train", "eval", "play", "replay", "demo", "bench"])
def test_every_option_has_help_and_shows_its_default(command):
    parser = build_parser()
    sub = parser if command == "(top level)" else _subcommands(parser)[command]
    missing, no_default = [], []
    for action in sub._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = "/".join(action.option_strings) or action.dest
        if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
            missing.append(name)
            continue
        formatter = sub._get_formatter()
        formatter.add_argument(action)
        rendered = " ".join(formatter.format_help().split())
        if _has_real_default(action) and f"(default: {_default_text(action.default)})" not in rendered:
            no_default.append(f"{name}: {rendered}")
    assert not missing, f"uno-env {command}: options without help: {missing}"
    assert not no_default, f"uno-env {command}: defaults not shown: {no_default}"


def test_options_without_a_default_do_not_say_none():
    text = " ".join(_subcommands(build_parser())["demo"].format_help().split())
    assert "(default: None)" not in text and "(default: [])" not in text and "(default: False)" not in text
    assert "(default: classic)" in text and "(default: 4)" in text


# ----------------------------------------------------------------------------- 7. play

def _play(inputs: str, seed: int = 3, **kw):
    out = io.StringIO()
    term = Terminal(io.StringIO(inputs), out, colour=False)
    winner = play_session(RuleSet.create(kw.pop("variant", "classic"), kw.pop("players", 2), kw.pop("options", {})),
                          kw.pop("opponents", ["random"]), kw.pop("seat", 0), seed, term)
    return winner, out.getvalue()


def test_play_help_lists_commands_and_action_forms():
    _, text = _play("help\nquit\n")
    after = text.split("> ", 1)[1]
    for words in ("quit", "help", "play <card>", "draw", "colour <R|Y|G|B>", "pass", "a card"):
        assert words in after, words
    assert after.count("1) ") == 1 and "you left the game" in after  # the options are listed again
    _, text = _play("?\nquit\n")
    assert "play <card>" in text.split("> ", 1)[1]


def test_play_names_the_card_the_person_drew():
    _, text = _play("draw\nquit\n")
    drew = re.search(r"^  you drew (\S+)$", text, re.M)
    assert drew, text
    card = drew.group(1)
    Game("classic", num_players=2).parse_card(card)  # a real card name
    before, after = re.findall(r"^your hand: (.*)$", text, re.M)[-2:]
    assert sorted(after.split()) == sorted(before.split() + [card])
    assert "  you +1 card" not in text


def test_play_counts_but_never_names_opponents_draws():
    _, text = _play("1\n" * 600, players=3, opponents=["random"], seed=5)
    assert re.search(r"^  P\d \+\d+ cards?$", text, re.M)  # opponents drew, shown as counts
    for line in text.splitlines():
        if "drew" in line:
            assert line.startswith("  you drew "), line


def test_play_says_plainly_who_won():
    _, text = _play("1\n" * 400)
    assert re.search(r"^Game over: (you win with \d+ points|P1 wins with \d+ points; you lose)$", text, re.M)
    game = Game("classic", num_players=2)
    state = game.state_from_spec({"discard": ["R7"], "hands": [["R3"], ["B9", "G2"]]})
    game.step(state, "play R3")
    points = state.round_points[0]
    assert points > 0
    assert outcome_text(game, state, 0) == f"Game over: you win with {points} points"
    assert outcome_text(game, state, 1) == f"Game over: P0 wins with {points} points; you lose"


# -- found by the review of the first-hour fixes

def test_debug_flag_also_works_after_the_command(capsys):
    with pytest.raises(RuleError):
        main(["demo", "--debug", "--option", "stacking=bogus"])


@pytest.mark.parametrize("argv, expected", [
    (["eval", "--agents", "random", "random", "--workers", "0"], "argument --workers: must be 1 or more"),
    (["eval", "--agents", "random", "random", "--progress-interval", "-5"], "must be 0 or more"),
    (["bench", "engine", "--seconds", "0"], "must be above 0"),
])
def test_out_of_range_numbers_are_refused(argv, expected, capsys):
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2 and expected in capsys.readouterr().err


def test_bench_refuses_a_bad_variant_before_printing_a_table(capsys):
    assert main(["bench", "engine", "--variant", "classc", "--seconds", "0.1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "did you mean 'classic'?" in captured.err


def test_did_you_mean_for_variants_case_and_top_level_rule_options(tmp_path, capsys):
    assert "did you mean 'random'?" in str(pytest.raises(AgentSpecError, agents.load, "RANDOM", Game()).value)
    rules = tmp_path / "rules.yaml"
    rules.write_text("variant: classic\nstacking: any\n")
    assert main(["demo", "--rules", str(rules)]) == 2
    assert "rule options go under 'options:'" in capsys.readouterr().err


def test_play_help_names_the_colours_of_the_active_flip_side():
    from train.app.play.terminal import help_lines
    from uno_env import load_scenario

    game, state = load_scenario({"variant": "flip", "players": 2, "side": "D", "discard": ["D:Pk5"],
                                 "hands": [["D:Pk7", "D:Tl2"], 3]})
    text = "\n".join(help_lines(game, game.legal_action_strings(state), state))
    assert "colour <Pk|Tl|Or|Pu>" in text and "colour <R|" not in text


def test_play_names_a_policy_opponent_by_its_run(tmp_path):
    run = tmp_path / "runs" / "my-run"
    run.mkdir(parents=True)
    PolicyFile.read(os.path.join(agents.PRETRAINED_DIR, "classic-2p")).save(str(run / "policy"))
    term = Terminal(io.StringIO("quit\n"), io.StringIO(), colour=False)
    play_session(RuleSet.create("classic", 2), [str(run / "policy")], 0, 0, term)
    assert "P1: my-run" in term.out.getvalue() and str(run) not in term.out.getvalue()


def test_play_takes_every_agent_spec_eval_takes_a_module_callable_included():
    term = Terminal(io.StringIO("quit\n"), io.StringIO(), colour=False)
    play_session(RuleSet.create("classic", 2), ["benchmark_agents:make_lowest_legal_agent"], 1, 0, term)
    assert "P0: benchmark_agents:make_lowest_legal_agent" in term.out.getvalue()
