// The random draws the engine makes, each exactly as numpy's Generator method makes it (numpy's own C
// distribution functions, on the state's bit generator), so both engines consume one stream alike.
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

}  // namespace uno
