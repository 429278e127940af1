"""The compiled core (uno_env/core/): one C++ extension, built by `pip install` with pybind11.

Everything else about the package is in pyproject.toml. The core links numpy's random library
(numpy/random/lib/libnpyrandom.a) statically, so it draws exactly as the numpy it was built against;
uno_env/core/__init__.py refuses to load it under another numpy version (the Python engine is used).
"""
import glob
import os

import numpy as np
import pybind11
from setuptools import Extension, setup

numpy_dir = os.path.dirname(np.__file__)
core = Extension(
    "uno_env.core._core",
    sources=sorted(glob.glob("uno_env/core/*.cpp")),
    include_dirs=[pybind11.get_include(), np.get_include()],
    library_dirs=[os.path.join(numpy_dir, "random", "lib")],
    libraries=["npyrandom"],
    define_macros=[("UNO_CORE_NUMPY_VERSION", f'"{np.__version__}"')],
    # -ffp-contract=off: no fused multiply-adds, so the core's doubles round as Python's do (the search's scores)
    extra_compile_args=["-std=c++17", "-O3", "-g0", "-ffp-contract=off", "-fvisibility=hidden"],
    language="c++",
)
setup(ext_modules=[core])
