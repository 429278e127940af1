"""The compiled core: a C++ twin of the Python engine, and the switch between the two backends.

``Game(..., backend="native"|"python")`` chooses per game; ``UNO_ENV_BACKEND=native|python`` sets the
default for a whole process. The Python engine (``uno_env/turn.py``, ``game.py``, the variants) is the
reference a reader studies; the core (``engine.cpp``, bound in ``module.cpp``) mirrors it function by
function and draws from the same numpy bit generator through numpy's own C distributions, so a seed
gives the same game on either. ``tests/rules/test_native_differential.py`` plays both side by side.

What the core covers: every variant (``classic``, ``alphabet``, ``xiangqi``, ``flex``, ``flip``,
``attack``) with every rule option, every phase, the starter rules, the reshuffle, the step cap, scoring
and matches, on the variants' own decks. A replacement deck manifest (``<variant>.deck_manifest``) runs
on the Python engine: asking for ``backend="native"`` there is refused with a clear error, and
``UNO_ENV_BACKEND=native`` uses the core only where it covers the rules.

The core is the default wherever the extension is built and covers the rules. The extension is built by
``pip install`` (``setup.py``); without it the package works on the Python engine and says once how to
build the core. ``UNO_ENV_BACKEND=python`` (or ``backend="python"``) keeps a process on the reference.
"""
from __future__ import annotations

import importlib
import os
import warnings

import numpy as np

BACKENDS = ("native", "python")
#: Variants the compiled core implements (uno_env/core/engine.cpp).
NATIVE_VARIANTS = frozenset(("classic", "alphabet", "xiangqi", "flex", "flip", "attack"))
ENV_VAR = "UNO_ENV_BACKEND"

_why_missing = ""
try:
    _core = importlib.import_module("._core", __name__)
except ImportError as exc:
    _core = None  # not built (a source checkout without `pip install`)
    _why_missing = f"the compiled core is not built ({exc}); build it with `pip install -e .` (needs a C++ compiler)"
else:
    if _core.numpy_version != np.__version__:
        # it links numpy's random library statically: another numpy may draw differently
        _why_missing = (f"the compiled core was built against numpy {_core.numpy_version} but numpy "
                        f"{np.__version__} is installed; rebuild it with `pip install -e .`")
        _core = None

_told = False


def available() -> bool:
    """Whether the compiled core is built and usable with the installed numpy."""
    return _core is not None


def why_unavailable() -> str:
    """Why the core cannot be used ('' when it can)."""
    return _why_missing


def covers(rules) -> bool:
    """Whether the core implements this rule set (its variant, with the variant's own deck)."""
    if rules.variant not in NATIVE_VARIANTS:
        return False
    return not any(key.endswith("deck_manifest") and value != "proposed" for key, value in rules.options.items())


def resolve(backend: str | None, rules) -> str:
    """The backend a Game of ``rules`` runs on: ``backend`` if given, else ``$UNO_ENV_BACKEND``, else native.

    An explicit ``backend="native"`` is refused where the core is missing or does not cover the rules.
    The default (and ``UNO_ENV_BACKEND=native``) asks for the core only where it can serve: rules it does
    not cover run on the Python engine, and a missing core says once how to build it.
    """
    global _told
    from ..errors import RuleError

    if backend is not None:
        if backend not in BACKENDS:
            raise RuleError(f"backend {backend!r} is not allowed; allowed: {', '.join(BACKENDS)}")
        if backend == "native":
            if _core is None:
                raise RuleError(f"backend='native': {_why_missing}")
            if not covers(rules):
                raise RuleError(f"backend='native': the compiled core does not cover the {rules.variant!r} rules "
                                f"yet (it covers {', '.join(sorted(NATIVE_VARIANTS))}, with their own decks); "
                                f"use backend='python'")
        return backend
    wanted = os.environ.get(ENV_VAR, "").strip().lower() or "native"
    if wanted not in BACKENDS:
        raise RuleError(f"{ENV_VAR}={wanted!r} is not allowed; allowed: {', '.join(BACKENDS)}")
    if wanted == "python":
        return "python"
    if _core is None:
        if not _told:
            warnings.warn(f"{_why_missing}; using the Python engine (same games, slower; "
                          f"{ENV_VAR}=python silences this)", RuntimeWarning, stacklevel=3)
            _told = True
        return "python"
    return "native" if covers(rules) else "python"
