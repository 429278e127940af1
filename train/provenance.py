"""Where a results file came from: package version, commit, suite, rules, command line and machine.

``provenance()`` is the block ``uno-env benchmark`` (``results.json``) and ``uno-env exploit``
(``exploit.json``) record under ``"provenance"``, so a number cited from a file names what produced it
(docs/benchmark.md, "Citing numbers"). Gathering never fails and never waits long: what cannot be
found out (no git, not a checkout, no torch, no /proc/cpuinfo) is None.

- ``uno_env_version``: ``uno_env.__version__``.
- ``commit``, ``commit_dirty``: the git commit of the checkout this package runs from, and whether
  its tracked files differ from it; None outside a checkout (an installed package).
- ``suite``: ``{name, version, definition_digest}`` of the suite played (None for a run of one table).
- ``rules_digest``: ``digest`` of the full rule sets played (every option, defaults included), so an
  engine change of a default shows; ``task_rules_digests``: one per task of a suite.
- ``command``: the command line (``sys.argv``, the program's directory left out).
- ``machine``: CPU model, cores, platform, Python, numpy, torch and its threads.
- ``engine``: whether the compiled core is built, the backend asked for, the backends the tables used.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import warnings
from importlib import metadata

import numpy as np

import uno_env
from uno_env import core

#: The checkout this package runs from, when it runs from one (``train/`` is at its top).
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Seconds a git command may take: a hung or slow git must not hold up writing results.
GIT_TIMEOUT = 2.0
_HEX_COMMIT = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # sha1 or sha256 object names


def digest(value) -> str:
    """The sha256 (hex) of ``value``'s canonical JSON (sorted keys, no spaces): the same data, the same digest."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rules_digest(rules) -> str:
    """The digest of a ``RuleSet``: variant, players and every option's value."""
    return digest(rules.to_dict())


def provenance(suite=None, command: list[str] | None = None, *, rules=None, root: str | None = None) -> dict:
    """The provenance block of a results file.

    ``suite``: the suite played (a ``train.benchmark.suite.Suite``), or ``rules``: the one ``RuleSet`` of a
    run outside a suite (``uno-env exploit``). ``command``: the command line (default ``sys.argv``).
    ``root``: the folder whose git commit is recorded (default: the checkout holding this package).
    """
    tables = [t.rules() for t in suite.tasks] if suite is not None else [rules] if rules is not None else []
    commit, dirty = git_commit(root)
    per_task = {t.task_id: rules_digest(r) for t, r in zip(suite.tasks, tables)} if suite is not None else None
    return {
        "uno_env_version": uno_env.__version__,
        "commit": commit,
        "commit_dirty": dirty,
        "suite": None if suite is None else {"name": suite.name, "version": getattr(suite, "version", None),
                                             "definition_digest": getattr(suite, "definition_digest", None)},
        # a suite's digest covers each task's rules by its id; one table's is that table's rules alone
        "rules_digest": (digest({t.task_id: r.to_dict() for t, r in zip(suite.tasks, tables)}) if suite is not None
                         else rules_digest(rules) if rules is not None else None),
        "task_rules_digests": per_task,
        "command": command_line(sys.argv if command is None else command),
        "machine": machine(),
        "engine": engine(tables),
    }


def command_line(argv: list[str]) -> list[str]:
    """``argv`` with the program's directory dropped (``uno-env``, not a home folder's venv path)."""
    argv = [str(a) for a in argv]
    return [os.path.basename(argv[0]), *argv[1:]] if argv else []


def git_commit(root: str | None = None) -> tuple[str | None, bool | None]:
    """The commit checked out at ``root`` and whether tracked files differ from it; (None, None) outside a checkout.

    ``root`` itself must hold ``.git``: an installed package inside some other repository is not that
    repository's code. Without a usable ``git`` (missing, too slow, refusing the folder's owner) the
    commit is read from ``.git`` and whether it is modified stays None.
    """
    root = REPO_ROOT if root is None else root
    if not os.path.exists(os.path.join(root, ".git")):
        return None, None
    commit = _git(root, "rev-parse", "--verify", "HEAD")
    if commit is None or not _HEX_COMMIT.fullmatch(commit):
        return _read_head(root), None
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return commit, None if status is None else bool(status)


def _git(root: str, *args: str) -> str | None:
    """A git command's output, or None on any failure."""
    try:
        done = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, timeout=GIT_TIMEOUT,
                              stdin=subprocess.DEVNULL, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _small_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(1 << 20)
    except OSError:
        return None


def _read_head(root: str) -> str | None:
    """The commit ``HEAD`` names, read from the files (a ``.git`` folder, or a worktree's ``gitdir:`` file)."""
    git_dir = os.path.join(root, ".git")
    if os.path.isfile(git_dir):
        pointer = (_small_text(git_dir) or "").strip()
        if not pointer.startswith("gitdir:"):
            return None
        git_dir = os.path.join(root, pointer[len("gitdir:"):].strip())
    head = (_small_text(os.path.join(git_dir, "HEAD")) or "").strip()
    if not head.startswith("ref:"):
        return head if _HEX_COMMIT.fullmatch(head) else None
    ref = head[len("ref:"):].strip()
    common = os.path.join(git_dir, (_small_text(os.path.join(git_dir, "commondir")) or ".").strip())
    for folder in (git_dir, common):
        loose = (_small_text(os.path.join(folder, ref)) or "").strip()
        if _HEX_COMMIT.fullmatch(loose):
            return loose
    for line in (_small_text(os.path.join(common, "packed-refs")) or "").splitlines():
        name, _, packed_ref = line.partition(" ")
        if packed_ref.strip() == ref and _HEX_COMMIT.fullmatch(name):
            return name
    return None


def cpu_model() -> str | None:
    """The CPU's model name (``/proc/cpuinfo`` on Linux, else what ``platform`` knows)."""
    for line in (_small_text("/proc/cpuinfo") or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Hardware", "cpu model") and value.strip():
            return value.strip()
    return platform.processor() or platform.machine() or None


def machine() -> dict:
    """The host: CPU model, cores (all, and those this process may use), platform, Python, numpy and torch."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = None
    # torch's threads matter only where torch computed something: read them from a loaded torch, and
    # only name the installed version otherwise (importing torch to ask would cost seconds)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch_version, threads = str(getattr(torch, "__version__", None)), _torch_threads(torch)
    else:
        try:
            torch_version = metadata.version("torch")
        except (metadata.PackageNotFoundError, ValueError):
            torch_version = None
        threads = None
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "usable_cores": usable, "platform": platform.platform(),
            "python": platform.python_version(), "numpy": np.__version__, "torch": torch_version,
            "torch_threads": threads}


def _torch_threads(torch) -> int | None:
    try:
        return int(torch.get_num_threads())
    except Exception:  # a half-imported or stubbed torch: the record goes on without it
        return None


def engine(tables: list) -> dict:
    """The rules engine: whether the compiled core is built, ``$UNO_ENV_BACKEND``, the backends ``tables`` use."""
    used = set()
    # the backend a default Game of each table gets; its "core not built" warning was shown by the games already
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rules in tables:
            try:
                used.add(core.resolve(None, rules))
            except uno_env.RuleError:  # a bad $UNO_ENV_BACKEND: the games could not have run on it
                pass
    return {"core_available": core.available(), "requested": os.environ.get(core.ENV_VAR) or None,
            "backends": sorted(used)}


def brief(record: dict | None) -> str:
    """A few words for a table cell: ``0.1.0 6e7d26e`` (``-dirty`` when modified); ``-`` without provenance."""
    if not record:
        return "-"
    commit = record.get("commit")
    text = f"{record.get('uno_env_version')}"
    if commit:
        text += f" {commit[:7]}" + ("-dirty" if record.get("commit_dirty") else "")
    return text


def describe(record: dict | None) -> str:
    """One sentence for a report: version and commit, rules digest, machine and engine."""
    if not record:
        return "Provenance: not recorded (a file written before results recorded it)."
    m, e = record.get("machine") or {}, record.get("engine") or {}
    commit = record.get("commit")
    where = (f"commit {commit[:12]}" + (" with uncommitted changes" if record.get("commit_dirty") else "")
             if commit else "not from a git checkout")
    rules = record.get("rules_digest")
    torch = f"torch {m['torch']}" + (f" ({m['torch_threads']} threads)" if m.get("torch_threads") else "") \
        if m.get("torch") else "no torch"
    return (f"Provenance: uno-env {record.get('uno_env_version')}, {where}"
            + (f"; rules digest {rules[:12]}" if rules else "")
            + f"; {m.get('cpu') or 'unknown CPU'}, {m.get('cores') or '?'} cores, {torch}"
            + (f"; engine {'+'.join(e['backends'])}" if e.get("backends") else "") + ".")


__all__ = ["GIT_TIMEOUT", "REPO_ROOT", "brief", "command_line", "cpu_model", "describe", "digest", "engine",
           "git_commit", "machine", "provenance", "rules_digest"]
