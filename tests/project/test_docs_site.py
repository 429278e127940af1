"""The documentation site builds with warnings as errors, and its tutorials and examples run as written.

The tutorials' ```python and ```bash blocks run in page order in one empty directory (the bash blocks
with the project's ``uno-env`` on PATH), as a reader would run them; ```text blocks are not run.
"""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest
import yaml
from paths import ROOT  # tests/paths.py

DOCS = ROOT / "docs"
TUTORIALS = sorted((DOCS / "tutorials").glob("*.md"))
# pages of the site whose Python examples stand alone (each block runs by itself)
EXAMPLE_PAGES = ["index.md", "install.md", "variants.md", "engine.md", "agents.md", "training.md",
                 "evaluation.md", "playing.md", "speed.md", "layout.md", "packaging.md"]
BLOCK = re.compile(r"^```(python|bash)\n(.*?)^```", flags=re.S | re.M)
BIN = pathlib.Path(sys.executable).parent  # where this environment's uno-env and mkdocs live


def code_blocks(page: pathlib.Path) -> list[tuple[str, str]]:
    """The (language, code) of every ```python and ```bash block of a page, in order."""
    return BLOCK.findall(page.read_text(encoding="utf-8"))


def mkdocs_build(config: pathlib.Path, site: pathlib.Path, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of one config into ``site``."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # builds the whole site
def test_the_site_builds_with_warnings_as_errors(tmp_path):
    """Every page, link, anchor and API reference resolves (``make docs`` runs the same build)."""
    result = mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site", ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    api = (tmp_path / "site" / "api" / "engine.html").read_text(encoding="utf-8")
    assert "legal_action_mask" in api  # the reference is generated from the code, not empty
    missing = missing_local_targets(tmp_path / "site")
    assert not missing, missing


def missing_local_targets(site: pathlib.Path) -> list[str]:
    """Every image or link of the built site to a local file the site does not hold (excluded or absent).

    MkDocs reports such a target only at INFO level, so the strict build alone does not catch it."""
    target = re.compile(r'(?:src|href)="(?![a-zA-Z][a-zA-Z0-9+.-]*:)([^"#?]+)')
    missing = []
    for page in site.rglob("*.html"):
        for ref in target.findall(page.read_text(encoding="utf-8")):
            if ref.startswith("/") or ref.startswith("//"):
                continue
            path = (page.parent / ref).resolve()
            if not (path.is_file() or (path / "index.html").is_file()):
                missing.append(f"{page.relative_to(site)} -> {ref}")
    return sorted(set(missing))


def test_a_broken_link_or_anchor_fails_the_build(tmp_path):
    """The site's own validation settings turn a missing page or heading into a failed build."""
    settings = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    kept = {key: settings[key] for key in ("site_name", "strict", "validation", "markdown_extensions")}
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n## Here\n\n[fine](other.md#there)\n", encoding="utf-8")
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## There\n\n[fine](index.md#here)\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(kept), encoding="utf-8")
    assert mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site", tmp_path).returncode == 0
    for broken in ("[gone](missing.md)", "[gone](other.md#nowhere)"):
        (tmp_path / "docs" / "other.md").write_text(f"# Other\n\n## There\n\n{broken}\n", encoding="utf-8")
        result = mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site", tmp_path)
        target = broken[broken.index("(") + 1:-1]
        assert result.returncode != 0 and target in result.stdout + result.stderr, (broken, result.stderr)


def test_every_tutorial_has_code_that_runs():
    """Each of the four tutorials holds runnable blocks (so the test below checks something)."""
    names = {page.stem for page in TUTORIALS}
    assert {"train-first-agent", "evaluate-agent", "write-agent", "house-rule-and-deck"} <= names
    for page in TUTORIALS:
        assert len(code_blocks(page)) >= 3, page.name


@pytest.mark.slow  # a tiny training, tournaments and benchmark runs: tens of seconds each
@pytest.mark.parametrize("page", TUTORIALS, ids=[page.stem for page in TUTORIALS])
def test_tutorial_runs_in_order(page, tmp_path, monkeypatch):
    """A tutorial's blocks run one after the other in an empty directory, as its reader would run them."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # `python` started in that directory imports from it
    # one torch thread: the suite runs on both cores at once, and idle torch threads spinning for a core
    # slow a tiny network's training several times over (the tutorial's numbers do not depend on it)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1",
           "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONPATH", None)
    namespace: dict = {"__name__": "__tutorial__"}
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for index, (language, code) in enumerate(code_blocks(page)):
            where = f"{page.name} block {index} ({language})"
            if language == "bash":
                result = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=tmp_path, env=env,
                                        capture_output=True, text=True, timeout=300)
                assert result.returncode == 0, f"{where} failed:\n{code}\n{result.stdout}\n{result.stderr}"
            else:
                exec(compile(code, where, "exec"), namespace)  # noqa: S102 - the project's own documentation
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("page", EXAMPLE_PAGES)
def test_page_examples_run(page, tmp_path, monkeypatch):
    """The Python examples of the topic pages run, each by itself."""
    monkeypatch.chdir(tmp_path)
    for index, (language, code) in enumerate(code_blocks(DOCS / page)):
        if language == "python":
            exec(compile(code, f"{page} block {index}", "exec"), {"__name__": "__example__"})  # noqa: S102


def test_the_plug_in_pages_own_examples_run(tmp_path, monkeypatch):
    """docs/plug-ins.md's Python blocks run (the included example file is run by tests/training/test_plugins.py)."""
    pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    blocks = [code for language, code in code_blocks(DOCS / "plug-ins.md")
              if language == "python" and not code.startswith("--8<--")]
    assert blocks  # the export example
    for index, code in enumerate(blocks):
        exec(compile(code, f"plug-ins.md block {index}", "exec"), {"__name__": "__example__"})  # noqa: S102
