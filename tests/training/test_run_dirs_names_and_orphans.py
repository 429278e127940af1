"""A training run's directory: its name never leads out of ``out_dir``, and the temporary files of writes
killed outright (SIGKILL) are removed on start, resume and the next checkpoint, those of live writers kept."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import yaml

from train import atomic, resumable, run_dirs
from train.app.cli import main
from train.config import ConfigError, TrainConfig
from train.rllib.trainer import RllibConfig
from train.sb3 import checkpoint as sb3_checkpoint

from paths import ROOT  # tests/paths.py

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}

# --------------------------------------------------------------------------- run_name is one folder name

ESCAPES = ["../../elsewhere", "..", ".", "a/b", "a\\b", "/tmp/elsewhere", "runs/../../x", "C:x", ".hidden", "-flag",
           "two words", "tab\tname", "new\nline", "nul\0name", "x" * 201]


@pytest.mark.parametrize("cls", [TrainConfig, RllibConfig])
@pytest.mark.parametrize("name", ESCAPES)
def test_a_run_name_that_is_not_one_folder_name_is_refused(cls, name):
    with pytest.raises(ConfigError) as info:
        cls.from_dict({"run_name": name})
    message = str(info.value)
    assert "\n" not in message and "'run_name'" in message and "one folder name inside out_dir" in message


@pytest.mark.parametrize("name", ["", "ppo-classic-4p", "nfsp-flip-2p-small-step", "slice3", "v1.2_b+c=d@e,f",
                                  "échecs-2p", "_x", "x" * 200])
def test_sensible_run_names_are_taken(name, tmp_path):
    cfg = TrainConfig.from_dict({"run_name": name, "out_dir": str(tmp_path)})
    assert cfg.name == (name or "classic-2p-seed0")
    assert os.path.dirname(os.path.join(cfg.out_dir, cfg.name)) == str(tmp_path)


def test_a_config_made_without_validation_is_still_refused_its_run_directory():
    with pytest.raises(ConfigError, match="'run_name' = '../../elsewhere' must be one folder name"):
        TrainConfig(run_name="../../elsewhere").name


def _escaping_trainer(tmp_path, monkeypatch) -> str:
    """A trainer module that fails at once: were the config taken, ``uno-env train`` would write config.yaml
    into the run directory before calling it."""
    (tmp_path / "escape_probe_trainer.py").write_text("def train(run):\n    raise RuntimeError('trained')\n",
                                                      encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "escape_probe_trainer:train"


@pytest.mark.parametrize("absolute", [False, True])
def test_uno_env_train_writes_nothing_outside_out_dir(tmp_path, monkeypatch, capsys, absolute):
    """The issue's case: ``run_name: ../../elsewhere`` (or an absolute path) put the run outside out_dir."""
    target = tmp_path / "elsewhere"
    out_dir = tmp_path / "deep" / "runs"
    name = str(target) if absolute else "../../elsewhere"
    config = tmp_path / "escape.yaml"
    config.write_text(yaml.safe_dump({"algo": _escaping_trainer(tmp_path, monkeypatch), "out_dir": str(out_dir),
                                      "run_name": name, "total_timesteps": 10}), encoding="utf-8")
    assert main(["train", "--config", str(config), "--no-progress"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("uno-env train: error: "), lines
    assert str(config) in lines[0] and "'run_name'" in lines[0] and "one folder name inside out_dir" in lines[0]
    assert not target.exists() and not out_dir.exists()


def test_a_run_directory_renamed_past_what_a_run_name_allows_is_refused_on_resume(tmp_path):
    cfg = TrainConfig.from_dict({"out_dir": str(tmp_path), "run_name": "good"})
    run_dirs.prepare_run_dir(cfg, str(tmp_path / "good"))
    os.rename(tmp_path / "good", tmp_path / "my run")
    with pytest.raises(ConfigError, match=r"--resume: the run directory .*'my run'.* rename the folder"):
        run_dirs.saved_config(str(tmp_path / "my run"))
    os.rename(tmp_path / "my run", tmp_path / "my-run")
    assert run_dirs.saved_config(str(tmp_path / "my-run")).name == "my-run"


# --------------------------------------------------------------------------- temporary files of killed writes


_KILLED_WRITER = """
import os, signal, sys
from train import atomic
with atomic.atomic_open(sys.argv[1], "wb") as fh:
    fh.write(b"half a checkpoint" * 1000)
    fh.flush()
    os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would: no cleanup runs
"""

_LIVE_WRITER = """
import sys
from train import atomic
with atomic.atomic_open(sys.argv[1], "wb") as fh:
    fh.write(b"being written")
    fh.flush()
    print("writing", flush=True)
    sys.stdin.readline()  # held open until the test lets it finish
print("done", flush=True)
"""


def _killed_write(path) -> str:
    """Kill a process writing ``path`` through ``train.atomic``; the name of the temporary file it left."""
    before = set(os.listdir(os.path.dirname(path)))
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(path)], env=ENV, capture_output=True, text=True)
    assert done.returncode == -9, done.stderr
    (left,) = set(os.listdir(os.path.dirname(path))) - before
    assert atomic.TEMP_NAME.fullmatch(left) and not os.path.exists(path)
    return left


def _dead_pid() -> int:
    """The process id of a process that has exited (and been reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def _run(tmp_path, name="run") -> tuple[TrainConfig, str]:
    cfg = TrainConfig.from_dict({"out_dir": str(tmp_path / "runs"), "run_name": name})
    run_dir = str(tmp_path / "runs" / name)
    os.makedirs(os.path.join(run_dir, "checkpoints"))
    return cfg, run_dir


def test_temporary_names_carry_their_writer_s_process_id(tmp_path):
    with atomic.atomic_open(str(tmp_path / "step_5.zip"), "wb") as fh:
        (name,) = os.listdir(tmp_path)
        fh.write(b"x")
    match = atomic.TEMP_NAME.fullmatch(name)
    assert match and int(match["pid"]) == os.getpid() and name.startswith(".step_5.zip.")
    assert os.listdir(tmp_path) == ["step_5.zip"]


def test_a_fresh_start_removes_what_a_killed_write_left(tmp_path):
    cfg, run_dir = _run(tmp_path)
    folder = os.path.join(run_dir, "checkpoints")
    left = _killed_write(os.path.join(folder, "memory-3.npz"))
    run_dirs.prepare_run_dir(cfg, run_dir)
    assert left not in os.listdir(folder)


def test_only_dead_writers_temporary_files_in_the_checkpoint_folder_are_removed(tmp_path):
    cfg, run_dir = _run(tmp_path)
    folder = os.path.join(run_dir, "checkpoints")
    dead = _dead_pid()
    outside = tmp_path / "precious"
    outside.write_text("keep", encoding="utf-8")
    orphans = [f".step_100.zip.{dead}.abc_1234.tmp", f".policy.{dead}.k2j4h6g8.tmp.npz",
               f".latest.json.{dead}.q1w2e3r4.tmp"]
    kept = ["step_100.zip", "latest.json", ".step_200.zip.abcdefgh.tmp",  # an earlier version's: writer unknown
            f".step_300.zip.{os.getpid()}.abcdefgh.tmp",  # this process's own
            f".step_400.zip.{dead}.abcdefgh.tmpx", f"step_500.zip.{dead}.abcdefgh.tmp", "notes.tmp"]
    for name in orphans + kept:
        (tmp_path / "runs" / "run" / "checkpoints" / name).write_bytes(b"x")
    os.mkdir(os.path.join(folder, f".folder.{dead}.abcdefgh.tmp"))
    os.symlink(outside, os.path.join(folder, f".link.{dead}.abcdefgh.tmp"))
    beside = [os.path.join(run_dir, orphans[0]), os.path.join(run_dir, "snapshots", orphans[0])]
    os.makedirs(os.path.join(run_dir, "snapshots"))
    for path in beside:
        open(path, "wb").close()
    run_dirs.prepare_run_dir(cfg, run_dir)
    assert sorted(os.listdir(folder)) == sorted(kept + [f".folder.{dead}.abcdefgh.tmp", f".link.{dead}.abcdefgh.tmp"])
    assert outside.read_text(encoding="utf-8") == "keep" and all(os.path.exists(p) for p in beside)


def test_a_live_writer_in_another_process_keeps_its_file_and_finishes(tmp_path):
    cfg, run_dir = _run(tmp_path)
    folder = os.path.join(run_dir, "checkpoints")
    target = os.path.join(folder, "learner-2.pt")
    writer = subprocess.Popen([sys.executable, "-c", _LIVE_WRITER, target], env=ENV, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline() == "writing\n"
        (writing,) = os.listdir(folder)
        run_dirs.prepare_run_dir(cfg, run_dir)
        assert atomic.remove_orphans(folder) == [] and os.listdir(folder) == [writing]
        writer.stdin.write("go\n")
        writer.stdin.flush()
        assert writer.stdout.readline() == "done\n"
    finally:
        writer.stdin.close()
        writer.wait()
    assert writer.returncode == 0 and os.listdir(folder) == ["learner-2.pt"]
    with open(target, "rb") as fh:
        assert fh.read() == b"being written"


class _Model:
    """What ``save_checkpoint`` needs of an SB3 model."""

    def save(self, fh):
        fh.write(b"weights")


def test_the_next_sb3_checkpoint_removes_a_killed_write_s_file(tmp_path):
    _, run_dir = _run(tmp_path)
    folder = os.path.join(run_dir, "checkpoints")
    left = _killed_write(os.path.join(folder, "step_64.zip"))
    sb3_checkpoint.save_checkpoint(_Model(), run_dir, 128)
    assert sorted(os.listdir(folder)) == ["latest.json", "step_128.zip"], left


def _learner_state():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    return {"net": torch.nn.Linear(3, 2)}, {"replay": np.arange(12, dtype=np.float32).reshape(4, 3)}


def test_a_value_learner_s_next_checkpoint_and_its_resume_remove_killed_writes(tmp_path):
    """``train/resumable.py``: the memory file a SIGKILL cut is the size of the replay memory (GBs in a real run)."""
    _, run_dir = _run(tmp_path)
    folder = resumable.folder(run_dir)
    modules, arrays = _learner_state()
    first = _killed_write(os.path.join(folder, "memory-1.npz"))
    resumable.save(run_dir, "dqn", {"lr": 1}, {"segment": 1, "decisions": 8}, modules, arrays)
    assert sorted(os.listdir(folder)) == ["learner-1.pt", "learner.json", "memory-1.npz"], first
    second = _killed_write(os.path.join(folder, "memory-2.npz"))
    buffers = {"replay": np.zeros((4, 3), np.float32)}
    counters, rows = resumable.load(run_dir, "dqn", {"lr": 1}, modules, buffers)
    assert counters["decisions"] == 8 and rows == {"replay": 4} and np.array_equal(buffers["replay"], arrays["replay"])
    assert second not in os.listdir(folder)
