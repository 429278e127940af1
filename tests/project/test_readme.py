"""The README's Python examples run as written (so they cannot drift from the code)."""
from __future__ import annotations

import re

import pytest
from paths import ROOT  # tests/paths.py

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_example_runs(index):
    # each block runs on its own, as a reader would paste it: it must import what it uses
    namespace: dict = {}
    exec(compile(BLOCKS[index], f"README.md python block {index}", "exec"), namespace)  # noqa: S102


def test_the_first_example_says_who_won(capsys):
    exec(compile(BLOCKS[0], "README.md python block 0", "exec"), {})  # noqa: S102
    assert re.fullmatch(r"winner: (player_[01]|nobody)\n", capsys.readouterr().out)
