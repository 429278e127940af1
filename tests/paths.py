"""Where the tests find the repository and their data, wherever in tests/ the test module lives."""
from __future__ import annotations

import pathlib

TESTS = pathlib.Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
