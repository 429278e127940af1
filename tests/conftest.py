import os
import sys

# tests/invariants.py is a helper module shared by several test files
sys.path.insert(0, os.path.dirname(__file__))


import subprocess
import textwrap

import pytest

#: Memory a hostile input may add to a process beyond what its imports took (issue: refuse under 50 MB;
#: the limit leaves room for the lazy imports and thread stacks of a refusal, not for the attack's gigabytes).
HOSTILE_EXTRA_MB = 400
HOSTILE_TIMEOUT_S = 120


def _run_bounded(code: str, preload: tuple[str, ...] = (), extra_mb: int = HOSTILE_EXTRA_MB,
                 timeout: float = HOSTILE_TIMEOUT_S, cwd: str | None = None) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh Python whose address space may grow by at most ``extra_mb`` after importing
    ``preload``; a regression then fails (MemoryError, a kill, or the timeout) instead of exhausting the machine."""
    limit = textwrap.dedent(f"""
        import importlib, resource
        for _name in {list(preload)!r}:
            importlib.import_module(_name)
        with open('/proc/self/status') as _fh:
            _vm = next(int(line.split()[1]) for line in _fh if line.startswith('VmSize:')) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (_vm + {extra_mb} * 2**20, resource.RLIM_INFINITY))
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(os.path.dirname(__file__)),
                                                        os.environ.get("PYTHONPATH", "")])}
    try:
        return subprocess.run([sys.executable, "-c", limit + textwrap.dedent(code)], capture_output=True,
                              text=True, timeout=timeout, cwd=cwd, env=env)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"a hostile input ran past {timeout} s: {code[:200]!r}") from exc


@pytest.fixture
def run_bounded():
    """``run_bounded(code, preload=(modules...), extra_mb=..., timeout=...)``: ``code`` in a memory-capped subprocess."""
    return _run_bounded


@pytest.fixture
def one_torch_thread():
    """One torch thread for the test, as on shared cores; torch's count is put back after it."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
