"""The rules tests run against both backends: each quick test twice, as ``[python]`` and ``[native]``.

The ``[native]`` run sets ``UNO_ENV_BACKEND=native``, so every ``Game`` a test builds for a variant the
compiled core covers runs on the core (uno_env/core), and every scenario spec goes state_from_spec ->
core -> to_spec. Tests marked ``python_engine`` edit the Python engine's state directly (white-box
tests of its internals) and run on it alone, as does a module whose ``ENGINE_BACKENDS`` says so (one that
names its backends itself); ``slow`` simulations run on the Python engine here and are
compared with the core by tests/rules/test_native_differential.py.
"""
import pytest

from uno_env import core


def pytest_generate_tests(metafunc):
    if "engine_backend" not in metafunc.fixturenames:
        return
    marks = {m.name for m in metafunc.definition.iter_markers()}
    both = "slow" not in marks and "python_engine" not in marks
    backends = getattr(metafunc.module, "ENGINE_BACKENDS", ("python", "native")) if both else ("python",)
    metafunc.parametrize("engine_backend", list(backends), indirect=True)


@pytest.fixture(autouse=True)
def engine_backend(request, monkeypatch):
    backend = request.param
    if backend == "native":
        assert core.available(), core.why_unavailable()
    monkeypatch.setenv(core.ENV_VAR, backend)
    return backend
