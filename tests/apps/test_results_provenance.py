"""Results that cite themselves: the provenance block of results.json, and the leaderboard that shows and checks it."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess

import pytest

import uno_env
from paths import ROOT  # tests/paths.py
from train.app.cli import main
from train.benchmark.leaderboard import leaderboard_markdown, read_results
from train.benchmark.runner import build_results, write_results
from train.benchmark.suite import UNO_SUITE_V1, Suite
from train.errors import UsageError
from train.provenance import brief, digest, git_commit, provenance, rules_digest
from uno_env import RuleSet

HEX64 = re.compile(r"[0-9a-f]{64}")
#: A results file written before provenance existed (kept in the repository, read by docs/leaderboard.md).
OLD_RESULTS = os.path.join(ROOT, "docs", "leaderboard-results", "random", "results.json")


def _check_block(block: dict) -> None:
    """Every field there, with its type (what docs/benchmark.md's "Citing numbers" lists)."""
    assert block["uno_env_version"] == uno_env.__version__
    assert block["commit"] is None or re.fullmatch(r"[0-9a-f]{40}([0-9a-f]{24})?", block["commit"])
    assert block["commit_dirty"] in (None, True, False)
    assert HEX64.fullmatch(block["rules_digest"])
    assert block["command"] and all(isinstance(a, str) for a in block["command"])
    assert os.sep not in block["command"][0]  # the program's name, not a home folder's path
    m = block["machine"]
    assert isinstance(m["cpu"], str) and m["cpu"] and isinstance(m["cores"], int) and m["cores"] >= 1
    assert m["usable_cores"] is None or 1 <= m["usable_cores"] <= m["cores"]
    assert {"platform", "python", "numpy", "torch", "torch_threads"} <= set(m)
    assert m["torch_threads"] is None or m["torch_threads"] >= 1
    e = block["engine"]
    assert isinstance(e["core_available"], bool) and e["backends"] and set(e["backends"]) <= {"native", "python"}


def test_a_fresh_results_json_records_its_provenance(tmp_path):
    out = tmp_path / "run"
    assert main(["benchmark", "--agent", "random", "--tasks", "classic-2p", "flip-2p", "--games-per-task", "2",
                 "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    block = json.loads((out / "results.json").read_text(encoding="utf-8"))["provenance"]
    _check_block(block)
    # a smoke run of a subset names the published suite version, and each task's full rules
    assert block["suite"] == {"name": "uno-suite-v1", "version": 1,
                              "definition_digest": UNO_SUITE_V1.definition_digest}
    tasks = {t.task_id: t for t in UNO_SUITE_V1.tasks}
    assert block["task_rules_digests"] == {i: rules_digest(tasks[i].rules()) for i in ("classic-2p", "flip-2p")}
    # the commit of the checkout the package runs from, when it is one
    if shutil.which("git") and os.path.exists(os.path.join(ROOT, ".git")):
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
        if head.returncode == 0:
            assert block["commit"] == head.stdout.strip()
    assert "Provenance: uno-env " in (out / "results.md").read_text(encoding="utf-8")


def test_outside_a_checkout_the_commit_is_none_without_error(tmp_path, monkeypatch):
    assert git_commit(str(tmp_path)) == (None, None)
    block = provenance(root=str(tmp_path), command=["/home/me/.venv/bin/uno-env", "exploit", "--agent", "random"],
                       rules=RuleSet.create("classic", 2))
    assert block["commit"] is None and block["commit_dirty"] is None
    assert block["command"] == ["uno-env", "exploit", "--agent", "random"]
    assert block["suite"] is None and block["task_rules_digests"] is None
    assert block["rules_digest"] == rules_digest(RuleSet.create("classic", 2))
    _check_block(block)
    # without git at all the commit is read from .git itself; a damaged .git gives None, never an error
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    commit = "0123456789abcdef0123456789abcdef01234567"
    (tmp_path / ".git" / "refs" / "heads").mkdir(parents=True)
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / ".git" / "refs" / "heads" / "main").write_text(commit + "\n")
    assert git_commit(str(tmp_path)) == (commit, None)
    os.remove(tmp_path / ".git" / "refs" / "heads" / "main")
    (tmp_path / ".git" / "packed-refs").write_text(f"# pack-refs with: peeled\n{commit} refs/heads/main\n")
    assert git_commit(str(tmp_path)) == (commit, None)
    (tmp_path / ".git" / "HEAD").write_text("garbage")
    assert git_commit(str(tmp_path)) == (None, None)


def test_digests_are_canonical_and_the_suite_version_survives_smoke_runs():
    # sorted keys, no spaces: simple to recompute anywhere
    assert digest({"b": 1, "a": [1, 2]}) == hashlib.sha256(b'{"a":[1,2],"b":1}').hexdigest()
    classic = RuleSet.create("classic", 2)
    assert rules_digest(classic) == rules_digest(RuleSet.create("classic", 2, {}))  # defaults spelled out or not
    assert rules_digest(classic) != rules_digest(RuleSet.create("classic", 2, {"stacking": "any"}))
    smoke = UNO_SUITE_V1.only(["classic-2p"]).with_games_per_task(4)
    assert smoke.definition_digest == UNO_SUITE_V1.definition_digest and smoke.version == 1
    changed = Suite("uno-suite-v1", UNO_SUITE_V1.tasks[:-1])
    assert changed.definition_digest != UNO_SUITE_V1.definition_digest


# ----------------------------------------------------------------------------- the leaderboard

def _results(tmp_path, name: str, wins: list[int], suite: Suite | None = None) -> str:
    """A tiny results folder, written as ``uno-env benchmark`` writes one (provenance included)."""
    suite = suite or UNO_SUITE_V1.only(["classic-2p", "flip-2p"]).with_games_per_task(10)
    rows = [{"games": 10, "wins": w, "win_rate": w / 10, "win_rate_ci95": [0.0, 1.0], "mean_points": 1.0,
             "truncated_games": 0} for w in wins]
    write_results(build_results(suite, name, rows, command=["uno-env", "benchmark", "--agent", name]),
                  str(tmp_path / name))
    return str(tmp_path / name)


def _edit(folder: str, change) -> None:
    path = os.path.join(folder, "results.json")
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    change(data)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh)


def test_the_leaderboard_shows_each_rows_provenance_and_reads_files_from_before_it(tmp_path, capsys):
    fresh = _results(tmp_path, "fresh", [3, 4])
    _edit(fresh, lambda d: d["provenance"].update(commit="abcdef0123456789abcdef0123456789abcdef01",
                                                  commit_dirty=True))
    assert "provenance" not in json.load(open(OLD_RESULTS, encoding="utf-8"))  # written before provenance
    assert main(["benchmark", "--leaderboard", fresh, OLD_RESULTS]) == 0
    table = capsys.readouterr().out
    assert "| provenance |" in table.splitlines()[4]
    rows = {line.split(" | ")[1]: line for line in table.splitlines() if re.match(r"\| \d ", line)}
    assert rows["`fresh` *"].endswith(f"| {uno_env.__version__} abcdef0-dirty |")
    assert rows["`random`"].endswith("| - |")  # the old file: shown, its provenance a dash
    assert "a file written before results recorded it" in table


def test_the_leaderboard_refuses_different_suite_versions_naming_the_files(tmp_path, capsys):
    v1 = _results(tmp_path, "v1", [3, 4])
    v2 = _results(tmp_path, "v2", [5, 6])
    _edit(v2, lambda d: (d.update(suite="uno-suite-v2"), d["provenance"]["suite"].update(name="uno-suite-v2",
                                                                                          version=2)))
    assert main(["benchmark", "--leaderboard", v1, v2, OLD_RESULTS]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "different suite versions" in err
    digest12 = UNO_SUITE_V1.definition_digest[:12]
    assert f"uno-suite-v1: {OLD_RESULTS}" in err  # the old file: its version is its suite name
    assert f"uno-suite-v1 (definition {digest12}): {os.path.join(v1, 'results.json')}" in err
    assert f"uno-suite-v2 (definition {digest12}): {os.path.join(v2, 'results.json')}" in err
    # the same name over another task list: a suite changed in place, refused as well
    changed = _results(tmp_path, "changed", [1, 1],
                       Suite("uno-suite-v1", UNO_SUITE_V1.tasks[:2]).with_games_per_task(10))
    with pytest.raises(UsageError, match="changed under one name") as refused:
        leaderboard_markdown([read_results(v1), read_results(changed)])
    assert os.path.join(changed, "results.json") in str(refused.value)
    # a file without provenance agrees with either definition of its name
    assert leaderboard_markdown([read_results(v1), read_results(OLD_RESULTS)]).startswith("# Leaderboard: uno-suite-v1")


def test_the_leaderboard_notes_a_task_whose_rules_differ_between_runs(tmp_path):
    a, b = _results(tmp_path, "a", [3, 4]), _results(tmp_path, "b", [5, 6])
    _edit(b, lambda d: d["provenance"]["task_rules_digests"].update({"flip-2p": "f" * 64}))
    table = leaderboard_markdown([read_results(a), read_results(b)])
    notes = [line for line in table.splitlines() if line.startswith("The rules of")]
    assert len(notes) == 1 and notes[0].startswith("The rules of flip-2p differ") and "`b`" in notes[0]


def test_a_damaged_provenance_block_is_one_line(tmp_path, capsys):
    run = _results(tmp_path, "a", [3, 4])
    _edit(run, lambda d: d["provenance"].update(commit=42))
    assert main(["benchmark", "--leaderboard", run]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "provenance.commit must be a string" in err


def test_exploit_rows_show_provenance(tmp_path, capsys):
    agents_run = _results(tmp_path, "heuristic", [5, 5])
    block = provenance(rules=RuleSet.create("classic", 2), command=["uno-env", "exploit"])
    folder = tmp_path / "x"
    folder.mkdir()
    best = {"start": "scratch", "decisions": 1000, "games": 200, "wins": 120, "win_rate": 0.6, "ci95": [0.55, 0.65]}
    (folder / "exploit.json").write_text(json.dumps(
        {"format": "uno-env-exploit", "version": 1, "target": "heuristic", "budget": 1000, "parity": 0.5,
         "task": {"variant": "classic", "players": 2, "rule_options": {}}, "best": best, "provenance": block}))
    assert main(["benchmark", "--leaderboard", agents_run, str(folder)]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| `heuristic` | classic"))
    assert row.endswith(f"| {brief(block)} |")
