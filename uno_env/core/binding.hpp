// What the binding's files share: a game held for Python (CoreState) and the bridge to numpy's bit generators.
#pragma once

#include <pybind11/pybind11.h>

#include "engine.hpp"

namespace uno {

// One game and a reference to its numpy Generator, which keeps the bit generator (s.rng) alive.
struct CoreState {
    State s;
    pybind11::object generator;
};

// The bitgen_t of a numpy Generator (its bit generator's capsule).
inline bitgen_t *bitgen_of(const pybind11::object &generator) {
    pybind11::object capsule = generator.attr("bit_generator").attr("capsule");
    auto *bg = static_cast<bitgen_t *>(PyCapsule_GetPointer(capsule.ptr(), "BitGenerator"));
    if (bg == nullptr) throw pybind11::error_already_set();
    return bg;
}

inline void attach(CoreState &cs, pybind11::object generator) {
    cs.s.rng = bitgen_of(generator);
    cs.generator = std::move(generator);
}

}  // namespace uno
