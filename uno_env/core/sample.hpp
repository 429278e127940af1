// The hidden-information sampler (sample.cpp, the twin of uno_env/sampling.py), as the search calls it.
#pragma once

#include "engine.hpp"

namespace uno {

// sampling.sample_hidden after the copy `t` of `s` is made (with its generators): what `seat` cannot see,
// redrawn from `rng`. kind_weights: null, or players x kinds (row-major).
void sample_hidden_into(const Rules &g, const State &s, State &t, int seat, bitgen_t *rng, double void_weight,
                        const double *kind_weights);

// A state the binding hands over must be one of `g`'s rules (players, kinds, the per-seat lists the sampler and the
// search index by seat): std::invalid_argument otherwise.
void check_shapes(const Rules &g, const State &s);

}  // namespace uno
