"""``algo: module:callable`` that cannot be had, through ``uno-env train --config X``: one line each, saying
what a trainer is (``train(run)``, not an agent's ``callable(game, seed)``) and where its module is imported
from, and naming the file and line when the module itself fails (a syntax error, an import inside it)."""
from __future__ import annotations

import pytest
import yaml

from train.app.cli import main


def _config(tmp_path, algo: str) -> str:
    path = tmp_path / "trainer.yaml"
    path.write_text(yaml.safe_dump({"algo": algo, "out_dir": str(tmp_path / "runs"), "total_timesteps": 10}),
                    encoding="utf-8")
    return str(path)


def _one_line(argv, capsys, *words) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"uno-env {argv[0]}: error: "), err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """Write a module into a folder on the Python path: ``modules(name, source)``."""
    folder = tmp_path / "on_path"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))

    def write(name: str, source: str) -> str:
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
        return str(folder / f"{name}.py")
    return write


def test_a_missing_trainer_module_says_what_a_trainer_is_and_where_it_is_imported_from(tmp_path, capsys):
    line = _one_line(["train", "--config", _config(tmp_path, "algo_errors_nowhere:train")], capsys,
                     "algo 'algo_errors_nowhere:train': cannot import module 'algo_errors_nowhere'",
                     "no such module on the Python path", "PYTHONPATH", "config's own folder is not searched",
                     "train(run)", "ppo, sb3, dqn, nfsp, dmc")
    assert "callable(game, seed)" not in line and "heuristic" not in line  # the agent specs' forms


def test_a_trainer_file_beside_the_config_is_not_imported_by_itself(tmp_path, capsys):
    (tmp_path / "algo_errors_beside.py").write_text("def train(run):\n    raise RuntimeError\n", encoding="utf-8")
    _one_line(["train", "--config", _config(tmp_path, "algo_errors_beside:train")], capsys,
              "no such module on the Python path", "PYTHONPATH", "config's own folder is not searched")


@pytest.mark.parametrize("source, line_no, words", [
    ("def train(run)\n    return None\n", 1, ["expected ':'"]),
    ("import os\n\ndef train(run):\nreturn None\n", 4, ["expected an indented block"]),
])
def test_a_trainer_with_a_syntax_error_is_one_line_naming_its_file_and_line(tmp_path, capsys, modules, source,
                                                                               line_no, words):
    path = modules("algo_errors_syntax", source)
    _one_line(["train", "--config", _config(tmp_path, "algo_errors_syntax:train")], capsys,
              "algo 'algo_errors_syntax:train': cannot import module 'algo_errors_syntax'",
              f"a syntax error in {path}, line {line_no}", *words)


def test_a_trainer_whose_own_import_fails_is_one_line_naming_its_file_and_line(tmp_path, capsys, modules):
    path = modules("algo_errors_needs", "import os\nimport algo_errors_absent_dependency\n\ndef train(run):\n"
                                        "    pass\n")
    line = _one_line(["train", "--config", _config(tmp_path, "algo_errors_needs:train")], capsys,
                     "cannot import module 'algo_errors_needs'", "No module named 'algo_errors_absent_dependency'",
                     f"({path}, line 2)")
    assert "PYTHONPATH" not in line  # the module was found: its own import is what failed


def test_a_syntax_error_in_a_module_the_trainer_imports_names_that_file(tmp_path, capsys, modules):
    helper = modules("algo_errors_helper", "x = (\n")
    modules("algo_errors_outer", "import algo_errors_helper\n\ndef train(run):\n    pass\n")
    _one_line(["train", "--config", _config(tmp_path, "algo_errors_outer:train")], capsys,
              f"a syntax error in {helper}, line 1")


def test_a_name_the_trainer_module_lacks_is_said_as_algo(tmp_path, capsys, modules):
    modules("algo_errors_named", "def other(run):\n    pass\n\nvalue = 3\n")
    _one_line(["train", "--config", _config(tmp_path, "algo_errors_named:train")], capsys,
              "algo 'algo_errors_named:train': module 'algo_errors_named' has no 'train'")
    _one_line(["train", "--config", _config(tmp_path, "algo_errors_named:value")], capsys,
              "algo 'algo_errors_named:value': algo_errors_named.value is not callable")


def test_an_agent_module_with_a_syntax_error_is_one_line_too(tmp_path, capsys, modules):
    """The same resolver reads ``uno-env eval``'s module:callable agents: its forms, not a trainer's."""
    path = modules("algo_errors_agent", "def make(game, seed)\n    pass\n")
    _one_line(["eval", "--agents", "algo_errors_agent:make", "random", "--games", "2", "--workers", "1",
               "--no-progress"], capsys, "agent spec 'algo_errors_agent:make'", f"a syntax error in {path}, line 1")
    line = _one_line(["eval", "--agents", "algo_errors_no_agent:make", "random", "--games", "2", "--workers", "1",
                      "--no-progress"], capsys, "no such module on the Python path", "callable(game, seed)")
    assert "train(run)" not in line
