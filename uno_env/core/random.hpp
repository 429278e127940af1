// The random draws the engine makes, each exactly as numpy's Generator method makes it (numpy's own C
// distribution functions, on the state's bit generator), so both engines consume one stream alike.
//
// A state's generator is either a numpy Generator's bit generator (handed over from Python) or a PCG64 the
// core holds itself (`Pcg64`: numpy's PCG64 and SeedSequence, bit for bit), so that dealing a seeded game,
// copying a state and seeding Attack's launcher need no Python object; Python gets an equal numpy Generator
// the first time it asks for one (uno_env/core/module.cpp), and from then on both draw from that one.
#pragma once

#include <cstdint>
#include <vector>

extern "C" {
#include "numpy/random/bitgen.h"
}

namespace uno {

// Generator.integers(n) for a scalar int64 draw in [0, n)
int64_t rng_integers(bitgen_t *rng, int64_t n);
// Generator.shuffle of a list (and of a 1-d array; permutation = copy + shuffle): Fisher-Yates from the end
void rng_shuffle(bitgen_t *rng, std::vector<int> &items);
// Generator.random()
double rng_random(bitgen_t *rng);
// Generator.integers(2**63) (an unsigned draw in [0, 2**63))
uint64_t rng_integers_2_63(bitgen_t *rng);
// Generator.geometric(p)
int64_t rng_geometric(bitgen_t *rng, double p);

// numpy.random.PCG64 (XSL-RR 128/64, the same 32-bit buffering), behind numpy's bitgen_t interface.
struct Pcg64 {
    bitgen_t bg{};  // bg.state points at this object: copies re-point it
    unsigned __int128 state = 0, inc = 0;
    int has_uint32 = 0;
    uint32_t uinteger = 0;

    Pcg64();
    Pcg64(const Pcg64 &other);
    Pcg64 &operator=(const Pcg64 &other);
    void seed(const std::vector<uint32_t> &entropy);  // as PCG64(SeedSequence(entropy)) seeds itself
    void seed(uint64_t value);                        // PCG64(value), value >= 0
};

// numpy's PCG64 state read from (or written to) one of its bit generators; false unless `bg` is a numpy
// PCG64 whose layout the module checked when it loaded (check_numpy_pcg64).
bool load_numpy_pcg64(const bitgen_t *bg, Pcg64 &out);
bool store_numpy_pcg64(const Pcg64 &in, bitgen_t *bg);
// Called once with a numpy PCG64 and its state as numpy reports it: enables the two above if they agree.
bool check_numpy_pcg64(bitgen_t *bg, unsigned __int128 state, unsigned __int128 inc, int has_uint32,
                       uint32_t uinteger);

// What a state draws from: its own PCG64 or a numpy bit generator owned on the Python side.
struct RngSlot {
    Pcg64 own;
    bool owned = false;
    bitgen_t *ptr = nullptr;

    RngSlot() = default;
    RngSlot(const RngSlot &o) : own(o.own), owned(o.owned), ptr(o.owned ? &own.bg : o.ptr) {}
    RngSlot &operator=(const RngSlot &o) {
        own = o.own;
        owned = o.owned;
        ptr = o.owned ? &own.bg : o.ptr;
        return *this;
    }
    RngSlot &operator=(bitgen_t *external) {  // draw from a numpy bit generator (kept alive by the caller)
        owned = false;
        ptr = external;
        return *this;
    }
    operator bitgen_t *() const { return ptr; }
    void seed(uint64_t value) {  // a new PCG64(value) of the state's own
        own.seed(value);
        owned = true;
        ptr = &own.bg;
    }
    // an exact copy of `from`'s stream as a generator of this slot's own; false if it cannot be read
    bool copy_of(const RngSlot &from) {
        if (from.owned) {
            own = from.own;
        } else if (from.ptr == nullptr || !load_numpy_pcg64(from.ptr, own)) {
            return false;
        }
        owned = true;
        ptr = &own.bg;
        return true;
    }
};

}  // namespace uno
