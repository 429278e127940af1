"""What a newcomer following the README meets in the first hour: printed commands that run as printed, a
tournament table that does not contradict itself, the web extra installed one way, a docs site that works
from disk, a time left that settles, and wording that fits its counts (issue 68, "newcomer walls")."""
from __future__ import annotations

import io
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
from types import SimpleNamespace

import pytest
import yaml
from paths import ROOT  # tests/paths.py

from train.app import eval_command, train_command
from train.app.cli import build_parser, command_name
from train.app.play.demo import outcome_line
from train.app.play.terminal import REVERSE_AS_SKIP, Terminal, play_session
from train.config import TrainConfig
from train.errors import UsageError
from train.evaluation.report import markdown, ranked, ranking_notes
from train.evaluation.tournament import run_tournament
from train.progress import Progress, RateMeter, format_duration
from uno_env import RuleSet

README = (ROOT / "README.md").read_text(encoding="utf-8")


# -- 1: the commands uno-env prints run as printed in a fresh shell

@pytest.fixture
def venv_program(tmp_path, monkeypatch):
    """A checkout in tmp_path whose .venv/bin/uno-env is the running program, with .venv not activated."""
    program = tmp_path / ".venv" / "bin" / "uno-env"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(program), "train"])
    monkeypatch.setenv("PATH", str(elsewhere))
    return program


def _runnable(command: str) -> bool:
    """Whether a fresh shell in the working directory finds the program a printed command starts with."""
    program = shlex.split(command)[0]
    found = program if os.sep in program else shutil.which(program)
    return bool(found) and os.path.isfile(found) and os.access(found, os.X_OK)


def test_printed_commands_name_the_virtualenv_program_when_uno_env_is_not_on_path(venv_program):
    cfg = TrainConfig.from_dict({"variant": "classic", "num_players": 2})
    steps = train_command.next_steps(cfg, "runs/quick").splitlines()
    evaluate, play = (line.split(": ", 1)[1] for line in steps[1:])
    assert evaluate.startswith(".venv/bin/uno-env eval --variant classic") and play.startswith(".venv/bin/uno-env play")
    args = SimpleNamespace(config="quick", timesteps=None, out_dir=None, seed=None, ray=None)
    resume = train_command.resume_command(args, "runs/quick")
    tournament = eval_command.resume_command(SimpleNamespace(
        variant="classic", players=2, agents=["heuristic", "random"], games=10, seed=0, workers=1, out="out",
        record=None, ray=None, option=[]))
    for command in (evaluate, play, resume, tournament):
        assert _runnable(command), command


def test_printed_commands_use_the_bare_name_when_it_is_the_one_on_path(venv_program, monkeypatch):
    monkeypatch.setenv("PATH", str(venv_program.parent))
    assert command_name() == "uno-env"
    cfg = TrainConfig.from_dict({"variant": "classic", "num_players": 2})
    assert "  play against it: uno-env play --variant classic" in train_command.next_steps(cfg, "runs/quick")


def test_another_uno_env_on_path_is_not_the_one_printed(venv_program, monkeypatch, tmp_path):
    other = tmp_path / "elsewhere" / "uno-env"
    other.write_text("#!/bin/sh\n", encoding="utf-8")
    other.chmod(0o755)
    assert command_name() == os.path.join(".venv", "bin", "uno-env")
    monkeypatch.chdir(tmp_path / "elsewhere")  # the program is outside the working directory: its whole path
    assert command_name() == str(venv_program)


# -- 2: the tournament table ranks by win rate, and says where the ratings or head to head differ

def _agent(name: str, wins: int, games: int, ordinal: float, ci: tuple[float, float]) -> dict:
    return {"agent": name, "spec": name, "games": games, "wins": wins, "win_rate": wins / games,
            "win_rate_ci95": list(ci), "mean_points": 0.0, "mean_points_left": 0.0,
            "rating": {"system": "openskill-plackett-luce", "mu": ordinal + 3, "sigma": 1.0, "ordinal": ordinal},
            "games_per_seat": [games // 2, games // 2]}


def _issue_summary() -> dict:
    """The newcomer's table: a trained quick rated above heuristic at 71.6% against 75.9%, 153-180 head to head."""
    agents = [_agent("quick", 716, 1000, 30.1, (0.687, 0.743)), _agent("heuristic", 759, 1000, 29.4, (0.732, 0.785)),
              _agent("random", 25, 1000, 10.0, (0.017, 0.037))]
    return {"rules": {"variant": "classic", "num_players": 2}, "games": 1500, "agents": agents,
            "truncated_games": 0,
            "head_to_head": {"agents": ["quick", "heuristic", "random"],
                             "wins": [[0, 153, 563], [180, 0, 579], [4, 2, 0]]}}


def _table_order(text: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^\| (\w+) \| \d+ \| [\d.]+% \|", text, flags=re.M)]


def test_the_table_ranks_by_win_rate_and_says_why_the_ratings_differ():
    text = markdown(_issue_summary())
    assert _table_order(text) == ["heuristic", "quick", "random"]
    assert "Ranked by win rate." in text
    note = next(line for line in text.splitlines() if "ratings put quick above heuristic" in line)
    assert "within noise" in note and "heuristic 75.9%, quick 71.6%" in note


def test_no_note_where_every_measure_agrees():
    summary = _issue_summary()
    summary["agents"][0]["rating"]["ordinal"] = 28.0
    assert ranking_notes(summary) == []
    assert "ratings put" not in markdown(summary) and "won the games" not in markdown(summary)


def test_a_head_to_head_against_the_ranking_is_noted_with_whether_it_is_noise():
    summary = _issue_summary()
    summary["head_to_head"]["wins"][0][1], summary["head_to_head"]["wins"][1][0] = 200, 133
    notes = ranking_notes(summary)
    assert any(n.startswith("quick won the games against heuristic 200-133") for n in notes)
    summary["agents"][0]["win_rate_ci95"] = [0.60, 0.70]  # apart: the note must not call it noise
    apart = [n for n in ranking_notes(summary) if n.startswith("quick won")]
    assert apart and "beyond noise" in apart[0] and "within noise" not in apart[0]


def test_a_real_tournament_table_never_contradicts_itself():
    summary = run_tournament(RuleSet.create("classic", 2), ["heuristic", "greedy", "random"], 60, seed=1,
                             workers=1, progress=False)
    rows = ranked(summary)
    assert [a["win_rate"] for a in rows] == sorted((a["win_rate"] for a in rows), reverse=True)
    notes = " ".join(ranking_notes(summary))
    names = summary["head_to_head"]["agents"]
    wins = summary["head_to_head"]["wins"]
    for i, above in enumerate(rows):
        for below in rows[i + 1:]:
            if below["rating"]["ordinal"] > above["rating"]["ordinal"]:
                assert f"ratings put {below['agent']} above {above['agent']}" in notes
            a, b = names.index(above["agent"]), names.index(below["agent"])
            if wins[b][a] > wins[a][b]:
                assert f"{below['agent']} won the games against {above['agent']}" in notes


# -- 3: the web extra one way, pinned through the constraints file

def test_the_readme_installs_the_web_extra_through_the_constraints_file():
    installs = re.findall(r"pip install[^`\n]*", README)
    assert installs and all("-c constraints.txt" in line for line in installs), installs
    assert "make serve" in README


def test_make_serve_installs_the_web_extra_through_the_constraints_file_then_serves():
    # under `make test` the outer make's flags would add "Entering directory" lines: this make stands alone
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}
    result = subprocess.run(["make", "--no-print-directory", "-n", "-B", "serve"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    install = next(i for i, line in enumerate(lines) if "pip install" in line and "[web]" in line)
    assert "-c constraints.txt" in lines[install]
    assert lines[-1].strip() == ".venv/bin/uno-env serve" and install < len(lines) - 1


# -- 4: the documentation site works opened from disk

def test_the_site_links_pages_as_files_so_it_works_from_disk(tmp_path):
    settings = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    kept = {key: settings[key] for key in ("site_name", "strict", "use_directory_urls") if key in settings}
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[install](install.md)\n", encoding="utf-8")
    (tmp_path / "docs" / "install.md").write_text("# Install\n\n[home](index.md)\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(kept), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                            cwd=tmp_path, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="install.html"' in home and (tmp_path / "site" / "install.html").is_file()


# -- 5: the time left settles

def _bursty_training(cycles: int = 300):
    """(work, seconds) slices of a training run: 8,192 steps a second, and every 50 s a 10 s evaluation pause."""
    for cycle in range(1, cycles + 1):
        yield 8192, 1.0
        if cycle % 50 == 0:
            yield 0, 10.0


def test_the_rate_settles_on_a_bursty_sequence():
    slices = list(_bursty_training())
    mean = sum(w for w, _ in slices) / sum(s for _, s in slices)
    meter, elapsed, seen = RateMeter(horizon=120.0), 0.0, []
    for work, seconds in slices:
        meter.add(work, seconds)
        elapsed += seconds
        if elapsed >= 120:
            seen.append(meter.rate)
    assert all(abs(rate / mean - 1) < 0.12 for rate in seen), (min(seen), max(seen), mean)
    # the same sequence swings a rate that follows each slice (tqdm's default) from 0 to 8,192 a second
    swinging = [w / s for w, s in slices]
    assert min(swinging) == 0 and max(swinging) > 1.1 * mean


def test_the_rate_follows_a_machine_that_gets_busier():
    meter = RateMeter(horizon=120.0)
    for _ in range(600):
        meter.add(1000, 1.0)
    assert meter.rate == pytest.approx(1000)
    for _ in range(600):  # five horizons at half the speed
        meter.add(500, 1.0)
    assert meter.rate == pytest.approx(500, rel=0.02)
    assert RateMeter().rate == 0.0 and not math.isnan(RateMeter().rate)


class _TerminalStream(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_shows_the_settled_rate():
    now = [0.0]
    bar = Progress("train", 10_000_000, "steps", "samples/s", stream=_TerminalStream(), clock=lambda: now[0])
    try:
        assert bar.bar is not None
        done = 0
        for work, seconds in _bursty_training(120):
            now[0] += seconds
            done += work
            bar.set(done)
        assert bar.bar.format_dict["rate"] == pytest.approx(bar.meter.rate)
    finally:
        bar.close()


def test_progress_lines_print_the_settled_rate_and_time_left():
    now = [0.0]
    stream = io.StringIO()
    bar = Progress("train", 4_000_000, "steps", "samples/s", interval=30, stream=stream, clock=lambda: now[0])
    done, printed = 0, []
    for work, seconds in _bursty_training(200):
        now[0] += seconds
        done += work
        lines = len(stream.getvalue().splitlines())
        bar.set(done)
        if len(stream.getvalue().splitlines()) > lines:
            printed.append((bar.meter.rate, done))
    lines = stream.getvalue().splitlines()
    assert len(lines) == len(printed) > 5
    for line, (rate, done) in zip(lines, printed):
        assert f" {rate:,.0f} samples/s, eta " in line
        assert f"eta {format_duration((4_000_000 - done) / rate)}" in line


# -- 6: wording

def _session(players: int, opponents: list[str], options: dict | None = None) -> str:
    out = io.StringIO()
    play_session(RuleSet.create("classic", players, options or {}), opponents, 0, 3,
                 Terminal(io.StringIO("quit\n"), out, colour=False))
    return out.getvalue()


def test_the_opponent_count_is_singular_when_it_is_one():
    with pytest.raises(UsageError, match=r"^2 players need 1 opponent \(or one spec for all\), got 2"):
        _session(2, ["random", "random"])
    with pytest.raises(UsageError, match=r"^3 players need 2 opponents \(or"):
        _session(3, ["random", "random", "random"])


def test_counts_of_one_read_in_the_singular():
    cfg = TrainConfig.from_dict({"variant": "classic", "num_players": 2, "algo": "dqn"})
    assert train_command._interrupted(cfg, "runs/none", 1).startswith("train: interrupted after 1 decision;")
    assert "after 2,048 decisions;" in train_command._interrupted(cfg, "runs/none", 2048)
    assert outcome_line(SimpleNamespace(winner=0, steps=1, round_points=[0, 0])).endswith("after 1 decision; "
                                                                                           "round points [0, 0]")
    summary = _issue_summary()
    summary["truncated_games"] = 1
    assert "1 game was truncated at the step cap" in markdown(summary)
    summary["truncated_games"] = 3
    assert "3 games were truncated at the step cap" in markdown(summary)


def test_debug_is_placed_the_same_in_the_readme_and_the_help():
    form = "uno-env --debug <command>"
    assert form in README
    assert form in " ".join(build_parser().format_help().split())


# -- 8: a Reverse at a two-player table

def test_a_two_player_game_says_a_reverse_acts_as_a_skip():
    assert REVERSE_AS_SKIP in _session(2, ["random"]).splitlines()[1]
    assert REVERSE_AS_SKIP not in _session(3, ["random"])
    assert REVERSE_AS_SKIP not in _session(2, ["random"], {"two_player_reverse_as_skip": False})
