"""Long jobs: progress lines when piped, Ctrl-C during training, atomic writes, robust resuming of
training and of tournaments, and what `uno-env train` / `uno-env eval` say along the way."""
from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import os
import sys
import re
import shutil
import signal

import pytest
import yaml
from stable_baselines3.common.callbacks import BaseCallback

import agents
import train.app.train_command as train_command
import train.sb3.trainer as ppo
import train.evaluation.tournament as tournament
from train import atomic, run_dirs
from train.app.cli import main
from train.config import ConfigError, TrainConfig
from train.progress import Progress, StopRequest, format_duration
from train.sb3 import checkpoint as sb3_checkpoint
from train.evaluation.report import _unique_names
from train.evaluation.tournament import STREAM_FILE, TournamentError, run_tournament
from uno_env import Game, RuleSet

pytestmark = pytest.mark.slow  # trains and interrupts long jobs: left out of make test-quick

PROGRESS_LINE = re.compile(r"^train: ([\d,]+)/([\d,]+) steps \(\d+\.\d%\) [\d,.]+ samples/s, (eta|done in|stopped)",
                           re.M)

# one environment (no worker processes), 256-step rollouts: 300 steps are rounded up to 512
TINY = dict(total_timesteps=300, n_envs=1, n_steps=256, batch_size=128, n_epochs=1, net_arch=[16, 16],
            snapshot_every=256, eval_every=256, eval_games=2, run_name="tiny")


def _config(tmp_path, **kw) -> str:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**TINY, "out_dir": str(tmp_path / "runs"), **kw}))
    return str(path)


def _counts(text: str) -> list[tuple[int, int]]:
    return [(int(a.replace(",", "")), int(b.replace(",", ""))) for a, b, _ in PROGRESS_LINE.findall(text)]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A tiny run through `uno-env train` with stdout piped: its output and every file it replaced atomically."""
    tmp = tmp_path_factory.mktemp("finished")
    replaced = []
    real_replace = os.replace
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out):
        mp.setattr(atomic.os, "replace", lambda src, dst: (replaced.append(dst), real_replace(src, dst))[1])
        status = main(["train", "--config", _config(tmp), "--progress-interval", "0"])
    return {"status": status, "out": out.getvalue(), "replaced": replaced, "run": tmp / "runs" / "tiny",
            "config": _config(tmp)}


# -- 1, 2: progress lines and their total

def test_progress_prints_lines_when_not_a_terminal_and_never_overshoots():
    now = [0.0]
    stream = io.StringIO()
    bar = Progress("train", 300_000, "steps", "samples/s", interval=30, stream=stream, clock=lambda: now[0])
    for step in range(1, 11):
        now[0] += 10.0
        bar.set(step * 15_200)
    bar.set(310_000)  # a caller overshooting its total is clamped
    now[0] += 10
    bar.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "train: 45,600/300,000 steps (15.2%) 1,520 samples/s, eta 2m47s"
    assert len(lines) == 4 and lines[-1].startswith("train: 300,000/300,000 steps (100.0%)")
    assert lines[-1].endswith("done in 1m50s")
    assert all(a <= b for a, b in _counts(stream.getvalue()))
    assert format_duration(3725) == "1h02m" and format_duration(59) == "59s"


def test_disabled_progress_prints_nothing():
    stream = io.StringIO()
    with Progress("eval", 10, "games", enabled=False, interval=0, stream=stream) as bar:
        bar.update(10)
    assert stream.getvalue() == ""


def test_training_prints_progress_lines_with_the_real_total(finished_run):
    assert finished_run["status"] == 0
    out = finished_run["out"]
    assert "total_timesteps 300 rounded up to 512 (whole rollouts of n_steps x n_envs = 256 steps)" in out
    assert out.count("rounded up to") == 1
    counts = _counts(out)
    assert len(counts) >= 3 and {total for _, total in counts} == {512}
    assert all(done <= total for done, total in counts)
    assert counts[-1] == (512, 512) and "done in" in out.splitlines()[[i for i, line in enumerate(
        out.splitlines()) if PROGRESS_LINE.match(line)][-1]]


def test_eval_prints_progress_lines_when_not_a_terminal(tmp_path, capsys):
    assert main(["eval", "--agents", "greedy", "random", "--games", "8", "--workers", "1", "--out", str(tmp_path),
                 "--progress-interval", "0"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("eval: ")]
    assert "eval: 1/8 games (12.5%)" in lines[0] and lines[-1].startswith("eval: 8/8 games (100.0%)")
    assert "done in" in lines[-1]


# -- 4: atomic writes

def test_every_training_output_is_replaced_atomically(finished_run):
    run = finished_run["run"]
    names = {os.path.relpath(p, run) for p in finished_run["replaced"]}
    for expected in ("config.yaml", "eval.csv", "policy.npz", "policy.json", "checkpoints/latest.json",
                     "checkpoints/step_256.zip", "checkpoints/step_512.zip",
                     "snapshots/step_0000000256.npz", "snapshots/step_0000000256.json"):
        assert expected in names
    leftovers = [f for _, _, files in os.walk(run) for f in files if f.endswith(".tmp") or ".tmp." in f]
    assert leftovers == []


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "latest.json"
    atomic.write_json(str(path), {"path": "step_1.zip"})
    with pytest.raises(TypeError):
        atomic.write_json(str(path), {"path": object()})  # fails half-way through writing
    assert json.loads(path.read_text()) == {"path": "step_1.zip"}
    assert os.listdir(tmp_path) == ["latest.json"]


# -- 9: what to do next

def test_train_ends_with_the_commands_to_evaluate_and_play(finished_run):
    out = finished_run["out"]
    policy = os.path.join(str(finished_run["run"]), "policy")
    assert f"uno-env eval --variant classic --players 2 --agents {policy} heuristic random" in out
    assert f"uno-env play --variant classic --players 2 --opponents {policy}" in out
    cfg = TrainConfig.from_dict({"rule_options": {"stacking": "any"}, "variant": "classic"})
    assert "--option stacking=any" in train_command.next_steps(cfg, "runs/x")


# -- 3: Ctrl-C

class _At(BaseCallback):
    """Calls ``action`` once, at the first step at or after ``step``."""

    def __init__(self, step: int, action):
        super().__init__()
        self.step, self.action, self.fired = step, action, False

    def _on_step(self) -> bool:
        if not self.fired and self.num_timesteps >= self.step:
            self.fired = True
            self.action()
        return True


def _raise_interrupt():
    raise KeyboardInterrupt


def test_ctrl_c_saves_a_checkpoint_and_the_policy_and_says_how_to_resume(tmp_path, capfd, monkeypatch):
    real_train = ppo.train
    # a real SIGINT to this process, as Ctrl-C sends: learning stops at the next step
    monkeypatch.setattr(ppo, "train", lambda cfg, callbacks=(), **kw: real_train(
        cfg, callbacks=[*callbacks, _At(100, lambda: os.kill(os.getpid(), signal.SIGINT))], **kw))
    config = _config(tmp_path, total_timesteps=2000)
    assert main(["train", "--config", config, "--progress-interval", "0"]) == 130
    captured = capfd.readouterr()  # the Ctrl-C notice is written straight to file descriptor 2
    run = tmp_path / "runs" / "tiny"
    steps = json.loads((run / "checkpoints" / "latest.json").read_text())["timesteps"]
    assert 100 <= steps < 256  # stopped in the first rollout, before the first evaluation
    assert (run / "checkpoints" / f"step_{steps}.zip").exists()
    policy = agents.load(str(run / "policy"), Game("classic", num_players=2))
    assert policy.policy.metadata["training_steps"] == steps and policy.policy.metadata["evaluation"] == {}
    assert f"uno-env train --config {config} --resume {run / 'checkpoints'}" in captured.out
    assert "(interrupted: not evaluated)" in captured.out and "stopping after this step" in captured.err
    assert all(done <= total for done, total in _counts(captured.out)) and "stopped after" in captured.out
    assert signal.getsignal(signal.SIGINT) is not None and StopRequest().previous is None

    cfg = TrainConfig.from_yaml(config)
    resumed = real_train(cfg, resume=str(run / "checkpoints"), progress=False)
    assert not resumed["interrupted"] and resumed["timesteps"] >= 2000
    assert resumed["evaluation"] and (run / f"resumed-{steps}").is_dir()


def test_keyboard_interrupt_inside_learning_with_worker_processes(tmp_path):
    cfg = TrainConfig.from_yaml(_config(tmp_path, n_envs=2, n_steps=128, total_timesteps=2000))
    summary = ppo.train(cfg, progress=False, callbacks=[_At(300, _raise_interrupt)])
    run = tmp_path / "runs" / "tiny"
    assert summary["interrupted"] and summary["evaluation"] == {}
    assert summary["checkpoint"] == str(run / "checkpoints" / f"step_{summary['timesteps']}.zip")
    assert (run / "policy.npz").exists() and sb3_checkpoint.find_checkpoint(str(run)) == summary["checkpoint"]


def _sigint_handler_in_child(conn):
    ppo._make_env(rules=RuleSet.create("classic", 2))
    conn.send(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_environment_workers_leave_ctrl_c_to_the_trainer():
    parent, child = multiprocessing.Pipe()
    proc = multiprocessing.get_context("fork").Process(target=_sigint_handler_in_child, args=(child,))
    proc.start()
    assert parent.recv() is True
    proc.join()
    # in the trainer's own process the handler stays (set it first: a shell's background job starts with
    # SIGINT ignored, which Python keeps)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        ppo._make_env(rules=RuleSet.create("classic", 2))
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


# -- 5: resuming a damaged run

def _copy(finished_run, tmp_path):
    run = tmp_path / "tiny"
    shutil.copytree(finished_run["run"], run)
    return run


@pytest.mark.parametrize("damage", ["missing", "garbage", "names-missing-file", "names-damaged-file"])
def test_resume_falls_back_to_the_newest_complete_checkpoint(finished_run, tmp_path, capsys, damage):
    run = _copy(finished_run, tmp_path)
    folder = run / "checkpoints"
    (folder / "step_9999.zip").write_bytes(b"PK\x03\x04 not really a zip")  # newest, but damaged
    latest = folder / "latest.json"
    if damage == "missing":
        latest.unlink()
    elif damage == "garbage":
        latest.write_text('{"timesteps": 512, "pa')
    elif damage == "names-missing-file":
        latest.write_text('{"timesteps": 700, "path": "step_700.zip"}')
    else:
        (folder / "step_512.zip").write_bytes((folder / "step_512.zip").read_bytes()[:1000])
    expected = "step_256.zip" if damage == "names-damaged-file" else "step_512.zip"
    assert sb3_checkpoint.find_checkpoint(str(run)) == str(folder / expected)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning" in err and f"newest complete checkpoint, {expected}" in err


def test_resume_with_a_damaged_latest_json_trains_on(finished_run, tmp_path, capsys):
    run = _copy(finished_run, tmp_path)
    (run / "checkpoints" / "latest.json").write_text("")
    cfg = TrainConfig.from_dict({**TINY, "out_dir": str(tmp_path), "total_timesteps": 512})
    summary = ppo.train(cfg, resume=str(run / "checkpoints"), progress=False)
    assert summary["timesteps"] == 512 and not summary["interrupted"]
    assert "damaged latest.json" in capsys.readouterr().err


def test_resume_refuses_when_nothing_is_usable(tmp_path):
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "step_5.zip").write_bytes(b"junk")
    with pytest.raises(ConfigError, match="no latest.json and no complete step_<N>.zip"):
        sb3_checkpoint.find_checkpoint(str(tmp_path))
    with pytest.raises(ConfigError, match="damaged"):
        sb3_checkpoint.find_checkpoint(str(tmp_path / "checkpoints" / "step_5.zip"))


def test_resume_ignores_snapshots_newer_than_its_step(finished_run, tmp_path, capsys):
    run = _copy(finished_run, tmp_path)
    # a snapshot from further on that cannot even be read: loading it would fail the run
    (run / "snapshots" / "step_0000000900.json").write_text("{not json")
    (run / "snapshots" / "step_0000000900.npz").write_bytes(b"junk")
    assert [os.path.basename(p) for p in run_dirs.pool_snapshots(str(run), 256, 5)] == ["step_0000000256"]
    assert "ignoring 2 snapshot(s) newer than step 256" in capsys.readouterr().err
    cfg = TrainConfig.from_dict({**TINY, "out_dir": str(tmp_path), "total_timesteps": 256})
    summary = ppo.train(cfg, resume=str(run / "checkpoints" / "step_256.zip"), progress=False)
    assert summary["timesteps"] == 256


# -- 6: tournaments keep what they played

AGENTS = ["heuristic", "greedy", "random"]


def _stream(out_dir) -> list[str]:
    return open(os.path.join(out_dir, STREAM_FILE), encoding="utf-8").read().splitlines()


def test_a_resumed_tournament_gives_the_results_of_an_uninterrupted_one(tmp_path, monkeypatch):
    rules = RuleSet.create("classic", 2)
    whole = run_tournament(rules, AGENTS, 24, seed=5, workers=1, progress=False, out_dir=str(tmp_path / "a"),
                           record_dir=str(tmp_path / "rec-a"))
    lines = _stream(tmp_path / "a")
    assert len(lines) == 25 and json.loads(lines[0])["games"] == 24
    assert [json.loads(line)["index"] for line in lines[1:]] == list(range(24))

    # killed after 7 games, in the middle of writing the 8th line
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / STREAM_FILE).write_text("\n".join(lines[:8]) + "\n" + lines[8][:40])
    played = []
    real_play = tournament.play_job
    monkeypatch.setattr(tournament, "play_job", lambda job: (played.append(job[0]), real_play(job))[1])
    resumed = run_tournament(rules, AGENTS, 24, seed=5, workers=1, progress=False, out_dir=str(tmp_path / "b"),
                             resume=True, record_dir=str(tmp_path / "rec-b"))
    assert played == list(range(7, 24))
    assert json.dumps(resumed, sort_keys=True) == json.dumps(whole, sort_keys=True)
    assert _stream(tmp_path / "b") == lines
    assert (tmp_path / "rec-a" / "games.jsonl").read_text() == (tmp_path / "rec-b" / "games.jsonl").read_text()


def test_resuming_with_more_workers_gives_the_same_results(tmp_path):
    rules = RuleSet.create("classic", 3)
    whole = run_tournament(rules, AGENTS, 12, seed=1, workers=1, progress=False)
    run_tournament(rules, AGENTS, 12, seed=1, workers=1, progress=False, out_dir=str(tmp_path))
    (tmp_path / STREAM_FILE).write_text("\n".join(_stream(tmp_path)[:4]) + "\n")
    resumed = run_tournament(rules, AGENTS, 12, seed=1, workers=2, progress=False, out_dir=str(tmp_path),
                             resume=True)
    assert json.dumps(resumed, sort_keys=True) == json.dumps(whole, sort_keys=True)


def test_resume_refuses_another_tournament(tmp_path):
    rules = RuleSet.create("classic", 2)
    run_tournament(rules, AGENTS, 6, seed=0, workers=1, progress=False, out_dir=str(tmp_path))
    for kw, words in [(dict(seed=1), "seed: 0 then, 1 now"), (dict(specs=["heuristic", "random"]), "agents"),
                      (dict(rules=RuleSet.create("classic", 2, {"stacking": "any"})), "rules"),
                      (dict(games=12), "number of games")]:
        args = {**dict(rules=rules, specs=AGENTS, games=6, seed=0), **kw}
        with pytest.raises(TournamentError, match=f"belongs to another tournament.*{re.escape(words)}"):
            run_tournament(args.pop("rules"), args.pop("specs"), args.pop("games"), workers=1, progress=False,
                           out_dir=str(tmp_path), resume=True, **args)


def test_an_unfinished_tournament_is_not_overwritten_without_resume(tmp_path):
    rules = RuleSet.create("classic", 2)
    run_tournament(rules, AGENTS, 6, seed=0, workers=1, progress=False, out_dir=str(tmp_path))
    run_tournament(rules, AGENTS, 6, seed=0, workers=1, progress=False, out_dir=str(tmp_path))  # finished: fine
    (tmp_path / STREAM_FILE).write_text("\n".join(_stream(tmp_path)[:3]) + "\n")
    with pytest.raises(TournamentError, match="2 of 6 games of an unfinished tournament: add --resume"):
        run_tournament(rules, AGENTS, 6, seed=0, workers=1, progress=False, out_dir=str(tmp_path))


def test_cli_eval_interrupted_then_resumed(tmp_path, capsys, monkeypatch):
    base = ["eval", "--agents", *AGENTS, "--games", "12", "--seed", "3", "--workers", "1", "--no-progress"]
    assert main(base + ["--out", str(tmp_path / "whole")]) == 0
    real_play = tournament.play_job

    def play_until_ctrl_c(job):
        if job[0] == 5:
            raise KeyboardInterrupt
        return real_play(job)

    monkeypatch.setattr(tournament, "play_job", play_until_ctrl_c)
    out = str(tmp_path / "cut")
    capsys.readouterr()
    assert main(base + ["--out", out]) == 130
    text = capsys.readouterr().out
    assert f"5 of 12 games kept in {os.path.join(out, STREAM_FILE)}" in text
    assert "--resume" in text.splitlines()[-1] and "uno-env eval --variant classic" in text
    monkeypatch.setattr(tournament, "play_job", real_play)
    assert main(base + ["--out", out, "--resume"]) == 0
    assert "resuming: 5 of 12 games already played" in capsys.readouterr().out
    assert json.load(open(tmp_path / "whole" / "results.json")) == json.load(open(os.path.join(out, "results.json")))


# -- 7: the game count

@pytest.mark.parametrize("games", ["0", "-3"])
def test_eval_refuses_a_game_count_below_one(tmp_path, capsys, games):
    try:
        status = main(["eval", "--agents", "greedy", "random", "--games", games, "--out", str(tmp_path)])
        message = capsys.readouterr().err
    except SystemExit as exc:  # a command line without a top-level error handler
        status, message = 2, str(exc.code)
    assert status == 2 and "--games must be a whole number of games, 1 or more" in message and games in message
    with pytest.raises(TournamentError, match="1 or more"):
        run_tournament(RuleSet.create("classic", 2), ["greedy", "random"], int(games), workers=1, progress=False)


def test_eval_says_when_the_game_count_is_rounded_up(tmp_path, capsys):
    assert main(["eval", "--agents", *AGENTS, "--games", "10", "--workers", "1", "--no-progress",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.count("--games 10 rounded up to 12 so every seat rotation is played equally") == 1
    assert main(["eval", "--agents", *AGENTS, "--games", "12", "--workers", "1", "--no-progress",
                 "--out", str(tmp_path)]) == 0
    assert "rounded up" not in capsys.readouterr().out


# -- 8: names in tournaments

def test_exported_policies_are_named_after_their_run():
    specs = ["runs/classic-2p/policy", "runs/flip-2p/policy.npz", "other/classic-2p/policy", "heuristic",
             "pretrained:classic-2p", "exports/mine.json", "heuristic"]
    assert _unique_names(specs) == ["classic-2p", "flip-2p", "classic-2p#2", "heuristic", "pretrained:classic-2p",
                                    "mine", "heuristic#2"]


# -- resuming the right run

def test_resume_without_config_continues_the_run_with_its_own_config(tmp_path, capsys):
    """The run's saved config.yaml is used: its network (net_arch 16x16 here, not the default) and directory."""
    assert main(["train", "--config", _config(tmp_path), "--no-progress"]) == 0
    run = tmp_path / "runs" / "tiny"
    capsys.readouterr()
    assert main(["train", "--resume", str(run / "checkpoints"), "--timesteps", "600", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "trained to step 768" in out and f"{run}/policy.npz" in out
    assert not (tmp_path / "runs" / "classic-2p-seed0").exists()


def test_resume_into_another_runs_config_is_refused_in_one_line(tmp_path, capsys):
    assert main(["train", "--config", _config(tmp_path), "--no-progress"]) == 0
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump({**TINY, "run_name": "other", "out_dir": str(tmp_path / "runs")}))
    capsys.readouterr()
    status = main(["train", "--config", str(other), "--resume", str(tmp_path / "runs" / "tiny" / "checkpoints")])
    err = capsys.readouterr().err
    assert status == 2 and "belongs to the run in" in err and len(err.strip().splitlines()) == 1


def test_training_again_into_a_finished_run_is_refused(tmp_path, capsys):
    assert main(["train", "--config", _config(tmp_path), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["train", "--config", _config(tmp_path), "--no-progress"]) == 2
    assert "already holds a training run; continue it with --resume" in capsys.readouterr().err


def test_training_without_the_training_extra_says_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if `pip install uno-env` without [train]
    assert main(["train", "--config", _config(tmp_path)]) == 2
    assert "pip install 'uno-env[train]'" in capsys.readouterr().err


def test_fresh_starts_a_finished_run_over(tmp_path, capsys):
    assert main(["train", "--config", _config(tmp_path), "--no-progress"]) == 0
    stale = tmp_path / "runs" / "tiny" / "checkpoints" / "step_99999.zip"
    stale.write_bytes(b"from an abandoned run")
    assert main(["train", "--config", _config(tmp_path), "--no-progress", "--fresh"]) == 0
    assert not stale.exists() and (tmp_path / "runs" / "tiny" / "policy.npz").exists()
    not_a_run = tmp_path / "runs" / "notes"
    not_a_run.mkdir()
    (not_a_run / "keep.txt").write_text("mine")
    assert main(["train", "--config", _config(tmp_path, run_name="notes"), "--fresh"]) == 2
    assert (not_a_run / "keep.txt").exists()
