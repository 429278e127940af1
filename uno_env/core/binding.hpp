// What the binding's files share: a game held for Python (CoreState) and the bridge to numpy's bit generators.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

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

// A new numpy Generator whose PCG64 draws exactly as `p` would from here.
pybind11::object numpy_generator(const Pcg64 &p);
// A new numpy Generator at the position of `slot` (its own PCG64, or `generator`, the numpy one it draws from).
pybind11::object copy_generator(const RngSlot &slot, const pybind11::object &generator);
// The numpy Generator a state draws from: the core's own is handed over the first time Python asks for it
// (a Generator at its position, which the state draws from from then on, so Python and core share one stream).
pybind11::object generator_of(CoreState &cs);
// Attack's launcher drawing from a numpy Generator, which the state keeps alive (launcher_owner).
void own_launcher(State &s, pybind11::object generator);
// Python's State.clone(rng): a copy drawing from `generator`, its launcher from `launcher` (None: none).
std::unique_ptr<CoreState> clone_onto(const CoreState &c, pybind11::object generator, pybind11::object launcher);
// The copy sample_hidden makes without share_rng: its generator PCG64(seeder.integers(2**63)), then the
// launcher's the same way (Attack), both held by the core.
std::unique_ptr<CoreState> clone_seeded(const CoreState &c, bitgen_t *seeder);
// Checks once that numpy's PCG64 is laid out as the core reads it; until then states are copied through Python.
void check_pcg64_layout();

}  // namespace uno
