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

namespace {
bool shuffle_inline(bitgen_t *rng, std::vector<int> &items);
}

void rng_shuffle(bitgen_t *rng, std::vector<int> &items) {
    if (shuffle_inline(rng, items)) return;  // a PCG64: the same draws without a call per card
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

// ------------------------------------------------------------------ PCG64 and SeedSequence, as numpy has them
namespace uno {
namespace {

using u128 = unsigned __int128;
constexpr u128 PCG_MULTIPLIER = (static_cast<u128>(0x2360ED051FC65DA4ULL) << 64) | 0x4385DF649FCCF645ULL;

inline uint64_t pcg64_next64_of(Pcg64 &p) {  // pcg_setseq_128_xsl_rr_64_random_r: step, then output
    p.state = p.state * PCG_MULTIPLIER + p.inc;
    auto hi = static_cast<uint64_t>(p.state >> 64), lo = static_cast<uint64_t>(p.state);
    unsigned rot = static_cast<unsigned>(p.state >> 122);
    uint64_t x = hi ^ lo;
    return (x >> rot) | (x << ((64 - rot) & 63));
}

uint64_t next_uint64(void *st) { return pcg64_next64_of(*static_cast<Pcg64 *>(st)); }

uint32_t next_uint32(void *st) {  // numpy buffers the high half of a 64-bit draw for the next 32-bit one
    auto &p = *static_cast<Pcg64 *>(st);
    if (p.has_uint32) {
        p.has_uint32 = 0;
        return p.uinteger;
    }
    uint64_t next = pcg64_next64_of(p);
    p.has_uint32 = 1;
    p.uinteger = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next & 0xffffffffULL);
}

double next_double(void *st) {
    return static_cast<double>(pcg64_next64_of(*static_cast<Pcg64 *>(st)) >> 11) * (1.0 / 9007199254740992.0);
}

// numpy/random/bit_generator.pyx: SeedSequence's hash constants
constexpr uint32_t INIT_A = 0x43b0d7e5, MULT_A = 0x931e8875, INIT_B = 0x8b51f9dd, MULT_B = 0x58f38ded;
constexpr uint32_t MIX_MULT_L = 0xca01f9dd, MIX_MULT_R = 0x4973f715, XSHIFT = 16, POOL_SIZE = 4;

inline uint32_t hashmix(uint32_t value, uint32_t &hash_const) {
    value ^= hash_const;
    hash_const *= MULT_A;
    value *= hash_const;
    value ^= value >> XSHIFT;
    return value;
}

inline uint32_t mix(uint32_t x, uint32_t y) {
    uint32_t result = MIX_MULT_L * x - MIX_MULT_R * y;
    result ^= result >> XSHIFT;
    return result;
}

// the numpy PCG64 layout (numpy/random/src/pcg64/pcg64.h), trusted only after check_numpy_pcg64 agreed
struct NumpyPcg128 {
    u128 state, inc;
};
struct NumpyPcg64State {
    NumpyPcg128 *pcg_state;
    int has_uint32;
    uint32_t uinteger;
};
uint64_t (*numpy_pcg64_next64)(void *) = nullptr;  // set once the layout is checked

// numpy's random_interval (masked rejection: the smallest all-ones mask >= max, 32-bit draws below 2**32)
inline uint64_t interval(Pcg64 &p, uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    uint64_t value;
    if (max <= 0xffffffffULL) {
        while ((value = (next_uint32(&p) & mask)) > max) {
        }
    } else {
        while ((value = (pcg64_next64_of(p) & mask)) > max) {
        }
    }
    return value;
}

// Generator.shuffle on a PCG64 (the core's own, or numpy's read and written back): the draws of
// random_interval, inlined; false for another bit generator
bool shuffle_inline(bitgen_t *rng, std::vector<int> &items) {
    Pcg64 *p = nullptr;
    Pcg64 local;
    bool numpy = false;
    if (rng->next_uint64 == next_uint64) {
        p = static_cast<Pcg64 *>(rng->state);
    } else if (load_numpy_pcg64(rng, local)) {
        p = &local;
        numpy = true;
    } else {
        return false;
    }
    for (std::ptrdiff_t i = static_cast<std::ptrdiff_t>(items.size()) - 1; i >= 1; --i) {
        auto j = static_cast<std::ptrdiff_t>(interval(*p, static_cast<uint64_t>(i)));
        std::swap(items[i], items[j]);
    }
    if (numpy) store_numpy_pcg64(local, rng);
    return true;
}

}  // namespace

Pcg64::Pcg64() {
    bg.state = this;
    bg.next_uint64 = next_uint64;
    bg.next_uint32 = next_uint32;
    bg.next_double = next_double;
    bg.next_raw = next_uint64;
}

Pcg64::Pcg64(const Pcg64 &o) : Pcg64() { *this = o; }

Pcg64 &Pcg64::operator=(const Pcg64 &o) {
    state = o.state;
    inc = o.inc;
    has_uint32 = o.has_uint32;
    uinteger = o.uinteger;
    return *this;  // bg stays pointed at this object
}

void Pcg64::seed(const std::vector<uint32_t> &entropy) {
    // SeedSequence(entropy).pool: mix_entropy
    uint32_t pool[POOL_SIZE];
    uint32_t hash_const = INIT_A;
    for (uint32_t i = 0; i < POOL_SIZE; ++i) pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0, hash_const);
    for (uint32_t src = 0; src < POOL_SIZE; ++src)
        for (uint32_t dst = 0; dst < POOL_SIZE; ++dst)
            if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src], hash_const));
    for (std::size_t src = POOL_SIZE; src < entropy.size(); ++src)
        for (uint32_t dst = 0; dst < POOL_SIZE; ++dst) pool[dst] = mix(pool[dst], hashmix(entropy[src], hash_const));
    // generate_state(4, uint64): 8 words cycling over the pool, read as 4 little-endian uint64
    uint32_t words[8];
    uint32_t hash_b = INIT_B;
    for (int i = 0; i < 8; ++i) {
        uint32_t v = pool[i % POOL_SIZE] ^ hash_b;
        hash_b *= MULT_B;
        v *= hash_b;
        v ^= v >> XSHIFT;
        words[i] = v;
    }
    uint64_t val[4];
    for (int i = 0; i < 4; ++i) val[i] = static_cast<uint64_t>(words[2 * i]) | (static_cast<uint64_t>(words[2 * i + 1]) << 32);
    // pcg64_set_seed(seed = val[0:2], inc = val[2:4]): pcg_setseq_128_srandom_r
    u128 initstate = (static_cast<u128>(val[0]) << 64) | val[1];
    u128 initseq = (static_cast<u128>(val[2]) << 64) | val[3];
    state = 0;
    inc = (initseq << 1) | 1;
    state = state * PCG_MULTIPLIER + inc;
    state += initstate;
    state = state * PCG_MULTIPLIER + inc;
    has_uint32 = 0;
    uinteger = 0;
}

void Pcg64::seed(uint64_t value) {
    // SeedSequence's entropy from an int: its 32-bit words, least significant first ([0] for 0)
    std::vector<uint32_t> entropy{static_cast<uint32_t>(value & 0xffffffffULL)};
    if (value >> 32) entropy.push_back(static_cast<uint32_t>(value >> 32));
    seed(entropy);
}

bool load_numpy_pcg64(const bitgen_t *bg, Pcg64 &out) {
    if (numpy_pcg64_next64 == nullptr || bg->next_uint64 != numpy_pcg64_next64) return false;
    const auto *st = static_cast<const NumpyPcg64State *>(bg->state);
    out.state = st->pcg_state->state;
    out.inc = st->pcg_state->inc;
    out.has_uint32 = st->has_uint32;
    out.uinteger = st->uinteger;
    return true;
}

bool store_numpy_pcg64(const Pcg64 &in, bitgen_t *bg) {
    if (numpy_pcg64_next64 == nullptr || bg->next_uint64 != numpy_pcg64_next64) return false;
    auto *st = static_cast<NumpyPcg64State *>(bg->state);
    st->pcg_state->state = in.state;
    st->pcg_state->inc = in.inc;
    st->has_uint32 = in.has_uint32;
    st->uinteger = in.uinteger;
    return true;
}

bool check_numpy_pcg64(bitgen_t *bg, u128 state, u128 inc, int has_uint32, uint32_t uinteger) {
    const auto *st = static_cast<const NumpyPcg64State *>(bg->state);
    if (st == nullptr || st->pcg_state == nullptr) return false;
    bool same = st->pcg_state->state == state && st->pcg_state->inc == inc && st->has_uint32 == has_uint32 &&
                st->uinteger == uinteger;
    if (!same) return false;
    // and the twin draws what numpy draws from there (the caller's generator moves on by these draws)
    Pcg64 twin;
    twin.state = state;
    twin.inc = inc;
    twin.has_uint32 = has_uint32;
    twin.uinteger = uinteger;
    for (int i = 0; i < 8; ++i) {
        bool as32 = i % 3 == 1;
        uint64_t a = as32 ? bg->next_uint32(bg->state) : bg->next_uint64(bg->state);
        uint64_t b = as32 ? twin.bg.next_uint32(twin.bg.state) : twin.bg.next_uint64(twin.bg.state);
        if (a != b) return false;
    }
    numpy_pcg64_next64 = bg->next_uint64;
    return true;
}

}  // namespace uno
