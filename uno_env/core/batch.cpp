// Many games of one rule set stepped per call: the native path of uno_env/vector.py (VectorGames).
#include <pybind11/pybind11.h>

namespace py = pybind11;

void bind_batch(py::module_ &) {}
