// Wrappers over numpy's C distributions (numpy/random/lib/libnpyrandom.a), with numpy's own signatures.
#include "random.hpp"

#include "numpy/random/distributions.h"

namespace uno {

int64_t rng_integers(bitgen_t *rng, int64_t n) {
    uint64_t out = 0;
    // Generator.integers(0, n) for int64: rng = n - 1, Lemire's method (use_masked=False)
    random_bounded_uint64_fill(rng, 0, static_cast<uint64_t>(n - 1), 1, false, &out);
    return static_cast<int64_t>(out);
}

void rng_shuffle(bitgen_t *rng, std::vector<int> &items) {
    for (std::ptrdiff_t i = static_cast<std::ptrdiff_t>(items.size()) - 1; i >= 1; --i) {
        auto j = static_cast<std::ptrdiff_t>(random_interval(rng, static_cast<uint64_t>(i)));
        std::swap(items[i], items[j]);
    }
}

double rng_random(bitgen_t *rng) { return random_standard_uniform(rng); }

uint64_t rng_integers_2_63(bitgen_t *rng) {
    uint64_t out = 0;
    random_bounded_uint64_fill(rng, 0, (uint64_t{1} << 63) - 1, 1, false, &out);
    return out;
}

int64_t rng_geometric(bitgen_t *rng, double p) { return random_geometric(rng, p); }

}  // namespace uno
