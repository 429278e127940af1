"""Packaging metadata that a user meets at install time."""
from __future__ import annotations

import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


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
