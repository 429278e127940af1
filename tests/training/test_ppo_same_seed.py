"""The same seed gives the same native PPO run: the first collected batch and the final network.

The references (``tests/data/ppo_reference/``, README.md there) were recorded by the trainer before it
became a ``Learner``; a change to the trainer that is not meant to change learning must keep them.
"""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from paths import DATA  # tests/paths.py

pytestmark = pytest.mark.slow  # trains four tiny runs: left out of make test-quick

REFERENCE = DATA / "ppo_reference"


def _recorder():
    """``tests/data/ppo_reference/record.py``: the runs' configs and how one is trained and captured."""
    spec = importlib.util.spec_from_file_location("ppo_reference_record", REFERENCE / "record.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORD = _recorder()


def assert_same_run(got: dict[str, np.ndarray], name: str) -> None:
    """Integer arrays exactly, float arrays up to another machine's rounding."""
    with np.load(REFERENCE / f"{name}.npz") as want:
        assert sorted(got) == sorted(want.files)
        for key in want.files:
            assert got[key].dtype == want[key].dtype, key
            if np.issubdtype(want[key].dtype, np.floating):
                np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-6, err_msg=key)
            else:
                np.testing.assert_array_equal(got[key], want[key], err_msg=key)


@pytest.mark.parametrize("name", sorted(RECORD.CONFIGS))
def test_the_same_seed_gives_the_recorded_batch_and_network(name, tmp_path):
    assert_same_run(RECORD.run(name, str(tmp_path)), name)


def test_a_run_that_learns_differently_is_caught(tmp_path):
    # 1% more step size: the first batch is still the same (collected before any update), the network is not
    with pytest.raises(AssertionError, match="net/"):
        assert_same_run(RECORD.run("plain", str(tmp_path), learning_rate=3.03e-4), "plain")
