"""A training run's directory on disk: making it, refusing to train over a run it holds, finding it again from
``--resume``, reading its saved config, clearing it, its frozen snapshots and its logs (``eval.csv``, ``progress.csv``).

What each algorithm keeps in its ``checkpoints/`` is its own module's: SB3's ``step_<N>.zip`` in
``train/sb3/checkpoint.py``, the native PPO's in ``train/ppo/checkpoint.py``, a value learner's in
``train/resumable.py``. Snapshots newer than the step a run resumes from are left out.
"""
from __future__ import annotations

import csv
import io
import os
import shutil
import sys

import yaml

from uno_env import Game
from uno_env.errors import RuleError, short_repr
from uno_env.safe_yaml import load_file

from train import atomic
from train.config import RUN_NAME_ALLOWED, ConfigError, TrainConfig, run_name_problem

#: Bytes of ``eval.csv`` rewritten whole when a row is added (a few KB in a real run); beyond, rows are appended.
MAX_EVAL_BYTES = 16 * 2**20
#: Bytes of ``progress.csv``'s first line read at most (its column names; a longer one is damaged).
MAX_HEADER_BYTES = 64 * 1024


def step_of(name: str, ext: str) -> int | None:
    """N of ``step_<N><ext>``, the name of a snapshot or a checkpoint, else None (temporary files and anything else)."""
    digits = name[5:-len(ext)] if name.startswith("step_") and name.endswith(ext) else ""
    if digits.isascii() and digits.isdigit() and len(digits) <= 18:  # not '²' (isdigit, but no int) nor 10**5000
        return int(digits)
    return None


def _saved_snapshots(run_dir: str, up_to: int | None = None) -> list[str]:
    """Snapshot base paths in step order, those after step ``up_to`` left out."""
    folder = os.path.join(run_dir, "snapshots")
    names = os.listdir(folder) if os.path.isdir(folder) else []
    found = sorted((step, f) for f in names if (step := step_of(f, ".json")) is not None)
    return [os.path.join(folder, f[:-5]) for step, f in found if up_to is None or step <= up_to]


def pool_snapshots(run_dir: str, step: int, keep: int) -> list[str]:
    """The snapshots the pool held at ``step``: newer ones (from a run that went further) are ignored."""
    newer = len(_saved_snapshots(run_dir)) - len(_saved_snapshots(run_dir, step))
    if newer:
        print(f"train: ignoring {newer} snapshot(s) newer than step {step:,} in {run_dir}/snapshots "
              f"(they are rewritten as training passes them again)", file=sys.stderr)
    return _saved_snapshots(run_dir, step)[-keep:]


def run_dir_of(resume: str) -> str:
    """The run directory a ``--resume`` path points into (a run directory, its checkpoints/ or a step_<N>.zip)."""
    path = os.path.normpath(resume)
    if os.path.isdir(os.path.join(path, "checkpoints")):
        return path
    if os.path.isfile(path):
        path = os.path.dirname(path)
    return os.path.dirname(path) if os.path.basename(path) == "checkpoints" else path


def holds_run(run_dir: str) -> bool:
    """Whether ``run_dir`` holds a run that a new one would overwrite: its exported policy (every algorithm writes
    ``policy.json`` at the end) or any checkpoint (the native PPO's ``native.pt``, SB3's ``step_<N>.zip``, a value
    learner's ``learner.json``: every file in ``checkpoints/`` but a killed write's hidden temporary one)."""
    folder = os.path.join(run_dir, "checkpoints")
    names = os.listdir(folder) if os.path.isdir(folder) else []
    return os.path.isfile(os.path.join(run_dir, "policy.json")) or any(not name.startswith(".") for name in names)


def refuse_over_run(run_dir: str, resume_with: str | None) -> None:
    """Refuse to start a new run into ``run_dir`` when it holds one (``holds_run``), for every algorithm alike.

    ``resume_with``: what ``--resume`` takes to continue that run, or None when it cannot be continued (a finished
    run of a trainer without checkpoints). ``--fresh`` (``clear_run``) is the way to start over on purpose."""
    if not holds_run(run_dir):
        return
    resume = f"continue it with --resume {resume_with}, or " if resume_with else ""
    raise ConfigError(f"{run_dir} already holds a training run; {resume}train into another run_name or --out-dir, "
                      "or start it over with --fresh")


def saved_config(run_dir: str) -> TrainConfig:
    """The config a run saved beside it (``config.yaml``), pointing at that run directory wherever it now is."""
    path = os.path.join(run_dir, "config.yaml")
    if not os.path.isdir(run_dir):
        raise ConfigError(f"--resume: no run directory {run_dir}; give a run directory, its checkpoints/ "
                          "or a checkpoint file")
    if not os.path.exists(path):
        raise ConfigError(f"--resume: {run_dir} has no config.yaml; give the config that started the run with --config")
    data = load_file(path, "a training config (a mapping of its keys)")
    if not isinstance(data, dict):
        raise ConfigError(f"{path} is not a training config (a mapping of its keys)")
    data.pop("resolved_rules", None)  # written for readers; the rule options above say the same
    name = os.path.basename(os.path.abspath(run_dir))
    if run_name_problem(name):  # a folder renamed since (or the root): the run directory's name is its run_name
        raise ConfigError(f"--resume: the run directory {short_repr(run_dir)} cannot be resumed under its name "
                          f"{short_repr(name)}; a run name is {RUN_NAME_ALLOWED}: rename the folder")
    data.update(out_dir=os.path.dirname(os.path.abspath(run_dir)), run_name=name)
    try:
        return TrainConfig.from_dict(data)
    except (ConfigError, RuleError) as exc:
        raise type(exc)(f"{path}: {exc}") from None


def clear_run(run_dir: str) -> None:
    """Delete a run directory (refusing anything that does not look like one: it needs checkpoints/ or config.yaml)."""
    if not os.path.isdir(run_dir):
        return
    if not (os.path.isdir(os.path.join(run_dir, "checkpoints")) or os.path.exists(os.path.join(run_dir, "config.yaml"))):
        raise ConfigError(f"--fresh: {run_dir} is not a training run directory (no checkpoints/ or config.yaml); "
                          "nothing was deleted")
    shutil.rmtree(run_dir)


def append_eval(path: str, steps: int, result: dict) -> None:
    """Add an evaluation's rows (one per opponent) to a run's ``eval.csv``."""
    # the small file is rewritten whole and replaced, so a crash never leaves a torn last row; its bytes are
    # kept as they are (a damaged file is not decoded), and one grown past MAX_EVAL_BYTES is appended to instead
    size = os.path.getsize(path) if os.path.exists(path) else 0
    old = b""
    if 0 < size <= MAX_EVAL_BYTES:
        with open(path, "rb") as fh:
            old = fh.read(MAX_EVAL_BYTES + 1)
    buf = io.StringIO()
    w = csv.writer(buf)
    if not size:
        w.writerow(["timesteps", "opponent", "games", "win_rate", "ci95_low", "ci95_high"])
    for opp, r in result.items():
        w.writerow([steps, opp, r["games"], f"{r['win_rate']:.4f}", f"{r['ci95'][0]:.4f}", f"{r['ci95'][1]:.4f}"])
    if size > MAX_EVAL_BYTES:
        with open(path, "ab") as fh:
            fh.write(buf.getvalue().encode("utf-8"))
        return
    with atomic.atomic_open(path, "wb", encoding=None) as fh:
        fh.write(old + buf.getvalue().encode("utf-8"))


def append_progress(path: str, row: dict) -> None:
    """Append one line to a run's ``progress.csv``; columns whose value is None are not this run's.

    A resumed run keeps the columns its file began with (a file from an older version has fewer).
    """
    columns, header = None, True
    if os.path.exists(path) and os.path.getsize(path) > 0:
        header = False  # a damaged first line (too long, not UTF-8, not CSV): this run's own columns, no header
        with open(path, "rb") as fh:
            first = fh.readline(MAX_HEADER_BYTES + 1)
        if len(first) <= MAX_HEADER_BYTES:
            try:
                columns = next(csv.reader([first.decode("utf-8")]), None)
            except (UnicodeDecodeError, csv.Error):
                columns = None
    with open(path, "a", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        if not columns:
            columns = [key for key, value in row.items() if value is not None]
            if header:
                w.writerow(columns)
        w.writerow([row.get(key) if row.get(key) is not None else "" for key in columns])


def prepare_run_dir(cfg, run_dir: str) -> Game:
    """Make a run's folders and write its resolved ``config.yaml``; returns the game at its home table.

    Every run started or resumed here first removes what writes killed mid-way (SIGKILL, a power cut) left in
    its ``checkpoints/``: their temporary files, as large as a checkpoint (``atomic.remove_orphans``)."""
    for sub in ("checkpoints", "snapshots"):
        os.makedirs(os.path.join(run_dir, sub), exist_ok=True)
    atomic.remove_orphans(os.path.join(run_dir, "checkpoints"))
    game = Game(cfg.variant, cfg.num_players, **cfg.rule_options)
    resolved = {**cfg.to_dict(), "run_name": cfg.name, "resolved_rules": game.rules.to_dict()}
    atomic.write_text(os.path.join(run_dir, "config.yaml"), yaml.safe_dump(resolved, sort_keys=False))
    return game
