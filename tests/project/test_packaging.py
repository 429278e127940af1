"""Packaging: the metadata a user meets at install time, one version everywhere, and a wheel that works alone."""
from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys
import tomllib
import zipfile

import pytest
from paths import ROOT  # tests/paths.py



def test_license_is_an_spdx_expression_with_its_file():
    """A license table is deprecated by setuptools (a warning on every install); an SPDX string is not."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    for name in project["license-files"]:
        assert "MIT License" in (ROOT / name).read_text(encoding="utf-8")


def test_the_published_torch_range_stays_loose():
    """The install pin lives in constraints.txt; the package itself accepts any torch from 2.3 on."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "torch>=2.3" in project["optional-dependencies"]["train"]
    assert "torch==2.13.0" in (ROOT / "constraints.txt").read_text(encoding="utf-8")


def source_version() -> str:
    """``__version__`` as written in uno_env/__init__.py (read without importing the package)."""
    tree = ast.parse((ROOT / "uno_env" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            return node.value.value
    raise AssertionError("uno_env/__init__.py has no __version__")


def test_one_version_everywhere():
    """pyproject reads the version from uno_env.__version__; the CLI prints it; the changelog has its section."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in pyproject["project"]["dynamic"] and "version" not in pyproject["project"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "uno_env.__version__"}
    import uno_env

    assert uno_env.__version__ == source_version()
    cli = subprocess.run([sys.executable, "-m", "train.app.cli", "--version"], cwd=ROOT, capture_output=True, text=True)
    assert cli.returncode == 0 and cli.stdout.strip() == f"uno-env {uno_env.__version__}", cli
    assert f"## {uno_env.__version__}" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_shipped_configs_are_the_top_level_ones():
    """train/configs links to configs/, so the packaged configs and the configs/... paths are the same files."""
    from train import shipped_configs

    assert (ROOT / "train" / "configs").resolve() == (ROOT / "configs").resolve()
    for kind in shipped_configs.KINDS:
        names = shipped_configs.shipped_names(kind)
        assert names == sorted(p.stem for p in (ROOT / "configs" / kind).glob("*.yaml")) and names
        assert pathlib.Path(shipped_configs.resolve(names[0], kind)).samefile(ROOT / "configs" / kind / f"{names[0]}.yaml")
    assert shipped_configs.resolve("configs/train/quick.yaml", "train") == "configs/train/quick.yaml"
    with pytest.raises(shipped_configs.ConfigError, match=r"named 'quik' \(did you mean 'quick'\?\).*classic-2p"):
        shipped_configs.resolve("quik", "train")


def test_a_shipped_rule_config_by_name_from_the_command_line(capsys):
    """`uno-env demo --rules classic-house` plays the shipped preset; an unknown name is one line, status 2."""
    from train.app.cli import main

    assert main(["demo", "--rules", "classic-house", "--seed", "0"]) == 0
    assert "stacking='any'" in capsys.readouterr().out
    assert main(["demo", "--rules", "house"]) == 2
    assert "no file or shipped rule config named 'house'" in capsys.readouterr().err


# Installed into the fresh environment: records every file a process opens under the source tree
# (sitecustomize runs in every Python process of that environment, the evaluation's workers too).
AUDIT = '''
import os, sys
_root, _log = os.environ.get("UNO_ENV_SOURCE_TREE"), os.environ.get("UNO_ENV_AUDIT_LOG")
if _root and _log:
    def _hook(event, args, _root=_root.rstrip("/") + "/", _log=_log):
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.abspath(os.fsdecode(args[0]))
            if path.startswith(_root):
                with open(_log, "a", encoding="utf-8") as fh:
                    fh.write(path + "\\n")
    sys.addaudithook(_hook)
'''


#: A seeded game on the compiled core, then the same on the Python engine: the backend and both outcomes.
NATIVE_GAME = """
from uno_env import Game
for backend in ("native", "python"):
    g = Game("classic", 3, backend=backend, stacking="any")
    s = g.new_state(7)
    while not s.is_over:
        g.step(s, g.legal_actions(s)[-1 if s.steps % 3 else 0])
    if backend == "native":
        print(g.backend)
    print(s.winner, s.steps, g.to_spec(s)["hands"])
"""


@pytest.mark.slow
def test_the_built_wheel_plays_from_a_fresh_environment(tmp_path):
    """python -m build, twine check, a fresh venv with the wheel, then a seeded game and a pretrained agent."""
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], cwd=tmp_path)
    wheels, sdists = list(dist.glob("*.whl")), list(dist.glob("*.tar.gz"))
    version = source_version()
    # a platform wheel: it carries the compiled core (uno_env/core/)
    assert len(wheels) == 1 and wheels[0].name.startswith(f"uno_env-{version}-cp3") and len(sdists) == 1, wheels
    run([sys.executable, "-m", "twine", "check", "--strict", *map(str, wheels + sdists)], cwd=tmp_path)
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = set(wheel.namelist())
    for needed in ("uno_env/decks/classic.yaml", "agents/pretrained/classic.npz", "agents/pretrained/classic.json",
                   "train/benchmark/references/uno-suite-v1.json", "train/configs/train/quick.yaml",
                   "train/configs/rules/classic-house.yaml"):
        assert needed in names, needed
    assert any(n.startswith("uno_env/core/_core") and n.endswith(".so") for n in names), "no compiled core"
    requires = [line for line in metadata_lines(wheels[0]) if line.startswith("Requires-Dist:")]
    assert not [r for r in requires if "torch" in r and "extra ==" not in r], requires  # torch only in an extra

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    python, uno_env_cmd = venv / "bin" / "python", venv / "bin" / "uno-env"
    run([str(python), "-m", "pip", "install", "--quiet", "-c", str(ROOT / "constraints.txt"), str(wheels[0])],
        cwd=tmp_path)
    site = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp_path)
    pathlib.Path(site.strip(), "sitecustomize.py").write_text(AUDIT, encoding="utf-8")

    work = tmp_path / "elsewhere"
    work.mkdir()
    audit_log = tmp_path / "opened-in-source-tree.txt"
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(UNO_ENV_SOURCE_TREE=str(ROOT), UNO_ENV_AUDIT_LOG=str(audit_log), NO_COLOR="1")

    where = run([str(python), "-c", "import uno_env, agents, train; print(uno_env.__version__); "
                 "print('\\n'.join(m.__file__ for m in (uno_env, agents, train)))"], cwd=work, env=env).split()
    assert where[0] == version and all(pathlib.Path(f).is_relative_to(venv) for f in where[1:]), where
    assert run([str(uno_env_cmd), "--version"], cwd=work, env=env).strip() == f"uno-env {version}"
    native = run([str(python), "-c", NATIVE_GAME], cwd=work, env=env).split()
    assert native[0] == "native" and native[1:] == run([sys.executable, "-c", NATIVE_GAME], cwd=ROOT).split()[1:]
    demo = run([str(uno_env_cmd), "demo", "--seed", "0"], cwd=work, env=env)
    assert demo == run([sys.executable, "-m", "train.app.cli", "demo", "--seed", "0"], cwd=ROOT)  # the same game
    run([str(uno_env_cmd), "demo", "--rules", "classic-house", "--seed", "1"], cwd=work, env=env)
    run([str(uno_env_cmd), "eval", "--agents", "pretrained:classic", "random", "--games", "4", "--out", "results"],
        cwd=work, env=env)
    results = json.loads((work / "results" / "results.json").read_text(encoding="utf-8"))
    assert {row["agent"]: row["games"] for row in results["agents"]} == {"pretrained:classic": 4, "random": 4}
    assert audit_log.exists() is False or audit_log.read_text(encoding="utf-8") == "", audit_log.read_text()


def run(command: list[str], cwd: pathlib.Path, env: dict | None = None) -> str:
    """Run a command; its stdout, or a failure showing what it printed."""
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def metadata_lines(wheel: pathlib.Path) -> list[str]:
    """The lines of a wheel's METADATA file."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return archive.read(name).decode("utf-8").splitlines()
