// The hidden-information sampler, mirroring uno_env/sampling.py function by function (same names, the same
// random draws in the same order on the same numpy bit generator), so a sample of a native state is the
// sample the Python sampler makes of its twin. Read the Python first: it is the reference, its docstring
// says what stays and what is redrawn. NativeGame.sample_hidden (uno_env/core/native.py) validates the
// arguments, seeds and clones as sampling.sample_hidden does, then hands the copy to sample_hidden_into.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "binding.hpp"
#include "engine.hpp"
#include "random.hpp"
#include "sample.hpp"

namespace py = pybind11;

namespace uno {
namespace {

// Per seat, the counts per kind it is known to hold (Python's dict `known`); empty: no entry.
using Known = std::vector<std::vector<int>>;

struct Slot;      // _redeal_physical's slot: a hidden card to refill, by its back face
struct PairSlot;  // _redeal_unknown_pairing's slot: a card whose hidden face(s) are redrawn

void deal_uniform(State &t, std::vector<int> &pool, const std::vector<int> &need, bitgen_t *rng);
void deal_weighted(const Rules &g, State &t, const std::vector<int> &pool, const std::vector<int> &need, bitgen_t *rng,
                   double weight, const double *kind_weights);
void weighted_picks(std::vector<double> &left, int count, bitgen_t *rng, std::vector<int> &picks);
void faces_from_physical(const Rules &g, State &t, int seat);
bool fill(const Rules &g, const std::vector<int> &cards, const std::vector<int> &own_faces,
          const std::vector<Slot> &slots, int side, bitgen_t *rng, std::vector<int> &own_cards,
          std::vector<int> &placed, std::vector<int> &rest);

// FlipCards.face and FlipCards.code: physical card a * K + d
inline int face(const Rules &g, int code, int side) { return side == 0 ? code / g.num_kinds : code % g.num_kinds; }
inline int code(const Rules &g, int face, int back, int side) {
    return side == 0 ? face * g.num_kinds + back : back * g.num_kinds + face;
}

// rng.permutation(n).tolist(): numpy shuffles arange(n)
void permutation(bitgen_t *rng, std::size_t n, std::vector<int> &order) {
    order.resize(n);
    std::iota(order.begin(), order.end(), 0);
    rng_shuffle(rng, order);
}

// list.remove: the first copy of `value` goes (the state must hold it: a sampler's invariant)
void remove_first(std::vector<int> &items, int value) {
    auto at = std::find(items.begin(), items.end(), value);
    if (at == items.end()) throw std::logic_error("sample_hidden: a card to remove is not in the pool");
    items.erase(at);
}

// Generator.choice(len(weights), p=weights / sum) as numpy makes it: cdf = cumsum(p) (left to right),
// cdf /= cdf[-1], one random(), then cdf.searchsorted(u, side="right")
int choice(const std::vector<double> &weights, double sum, bitgen_t *rng) {
    std::vector<double> cdf(weights.size());
    double running = 0.0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        running += weights[i] / sum;
        cdf[i] = running;
    }
    double last = cdf.back();
    for (double &c : cdf) c /= last;
    double u = rng_random(rng);
    return static_cast<int>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
}

// Per other seat, the cards `seat` knows it holds (counts per kind), from State.shown.
Known known_cards(const Rules &g, const State &s, int seat) {
    Known known(static_cast<std::size_t>(s.n));
    for (const Shown &e : s.shown) {
        if (e.holder < 0 || e.holder >= s.n || static_cast<int>(e.counts.size()) != g.num_kinds)
            throw std::invalid_argument("state: a shown entry names no seat or does not count every kind");
        bool any = std::any_of(e.counts.begin(), e.counts.end(), [](int c) { return c != 0; });
        if (e.holder == seat || (e.observer != -1 && e.observer != seat) || !any) continue;
        auto &have = known[e.holder];
        // each reveal is a lower bound on what the holder still has; the larger one wins per kind
        if (have.empty()) {
            have = e.counts;
        } else {
            for (std::size_t k = 0; k < have.size(); ++k) have[k] = std::max(have[k], e.counts[k]);
        }
    }
    return known;
}

// A pending decision of another seat shows it holds a certain card: keep one such card with it; returns the
// pinned drawn card's kind, or -1.
int pin_pending_card(const Rules &g, const State &s, int seat, Known &known, bitgen_t *rng) {
    int p = s.current_seat;
    if (p == seat || p < 0) return -1;
    if (p >= s.n) throw std::invalid_argument("state: the deciding seat is not a seat of the table");
    int k_all = g.num_kinds;
    bool drawn = s.phase == PLAY_OR_KEEP_DRAWN && s.drawn_kind >= 0;
    std::vector<int> fits;
    int real;
    if (drawn) {
        if (s.drawn_kind >= k_all) throw std::invalid_argument("state: the drawn card is not a kind of the deck");
        for (int k = 0; k < k_all; ++k)
            if (drawn_card_plays(g, s, p, k)) fits.push_back(k);
        real = s.drawn_kind;
    } else if (s.phase == JUMP_IN && s.has_jump) {
        fits.assign(1, s.jump_kind);
        real = s.jump_kind;
    } else if (s.phase == MULTI_PLAY && s.has_multi) {
        fits = g.kinds_of_rank[s.multi_rank];
        real = -1;
        for (int k : fits)
            if (s.hands[p][k]) {
                real = k;
                break;
            }
    } else {
        return -1;
    }
    std::vector<int> have = known[p].empty() ? std::vector<int>(k_all, 0) : known[p];
    if (real < 0 || (!drawn && std::any_of(fits.begin(), fits.end(), [&](int k) { return have[k] != 0; })))
        return -1;
    int kind = real;
    if (!g.flip) {  // one-sided: drawn from the unseen cards that fit, weighted by how many are unseen
        std::vector<int> unseen(k_all, 0);
        for (int k : s.draw_pile) ++unseen[k];
        for (int h = 0; h < s.n; ++h) {
            if (h == seat) continue;
            const auto &mine = known[h];
            for (int k = 0; k < k_all; ++k) unseen[k] += s.hands[h][k] - (mine.empty() ? 0 : mine[k]);
        }
        std::vector<double> weights(k_all, 0.0);
        double sum = 0.0;  // of whole numbers: exact in any order, as numpy's pairwise sum
        for (int k : fits) weights[k] = std::max(unseen[k], 0);
        for (double w : weights) sum += w;
        if (sum > 0) kind = choice(weights, sum, rng);
    }
    ++have[kind];
    known[p] = have;
    return drawn ? kind : -1;
}

// One-sided cards: other hands (but their known cards) and the draw pile, from the unseen cards.
void redeal(const Rules &g, State &t, int seat, const Known &known, bitgen_t *rng, double void_weight,
            const double *kind_weights) {
    int n = t.n, k_all = g.num_kinds;
    std::vector<int> pool, need(n, 0);
    std::size_t cards = t.draw_pile.size();
    for (int size : t.hand_size) cards += static_cast<std::size_t>(std::max(size, 0));
    pool.reserve(cards);
    pool.assign(t.draw_pile.begin(), t.draw_pile.end());
    std::vector<int> pinned;  // kept cards the holder does not really hold (a pinned drawn card): taken from the pool
    for (int h = 0; h < n; ++h) {
        if (h == seat || !t.hand_size[h]) continue;
        auto &hand = t.hands[h];
        const auto &kept = known[h];
        if (kept.empty()) {
            for (int k = 0; k < k_all; ++k) pool.insert(pool.end(), std::max(hand[k], 0), k);
            need[h] = t.hand_size[h];
            std::fill(hand.begin(), hand.end(), 0);
        } else {
            int kept_total = 0;
            for (int k = 0; k < k_all; ++k) {
                int free = hand[k] - kept[k];
                if (free > 0)
                    pool.insert(pool.end(), free, k);
                else if (free < 0)
                    pinned.insert(pinned.end(), -free, k);
                kept_total += kept[k];
            }
            hand = kept;
            need[h] = t.hand_size[h] - kept_total;
        }
    }
    for (int k : pinned) remove_first(pool, k);
    bool voided = false;
    if (void_weight < 1.0)
        for (int h = 0; h < n; ++h) voided = voided || (need[h] && t.voids[h]);
    if (voided || kind_weights != nullptr) {
        deal_weighted(g, t, pool, need, rng, void_weight, kind_weights);
        return;
    }
    deal_uniform(t, pool, need, rng);
}

// Deal `pool` at random: need[h] cards to each hand in seat order, the rest to the draw pile.
void deal_uniform(State &t, std::vector<int> &pool, const std::vector<int> &need, bitgen_t *rng) {
    // [pool[i] for i in rng.permutation(len(pool))] is the pool shuffled in place: the same swaps, the same draws
    rng_shuffle(rng, pool);
    std::size_t pos = 0;
    for (int h = 0; h < t.n; ++h) {
        int count = need[h];
        if (!count) continue;
        // the hands' needs add up to the pool less the draw pile, unless the state's hand sizes are not its hands'
        if (count < 0 || pos + static_cast<std::size_t>(count) > pool.size())
            throw std::invalid_argument("state: a hand size does not match the cards its hand holds");
        auto &hand = t.hands[h];
        for (std::size_t i = pos; i < pos + static_cast<std::size_t>(count); ++i) ++hand[pool[i]];
        pos += static_cast<std::size_t>(count);
    }
    t.draw_pile.assign(pool.begin() + static_cast<std::ptrdiff_t>(pos), pool.end());
}

// Deal `pool` to the hands' `need`: the weighted seats first (with kind_weights every seat, else the void
// seats), each card with its row's weight for its kind, times `weight` if of a colour the seat is void in;
// then the other seats and the draw pile uniformly.
void deal_weighted(const Rules &g, State &t, const std::vector<int> &pool, const std::vector<int> &need, bitgen_t *rng,
                   double weight, const double *kind_weights) {
    int n = t.n, k_all = g.num_kinds;
    std::vector<uint8_t> free(pool.size(), 1);
    std::vector<int> uniform_need(need), idx, picks;
    std::vector<double> w;
    for (int h = 0; h < n; ++h) {
        int voids = weight < 1.0 ? t.voids[h] : 0;
        if (!need[h] || !(voids || kind_weights != nullptr)) continue;
        uniform_need[h] = 0;  // dealt here
        idx.clear();
        w.clear();
        for (std::size_t i = 0; i < pool.size(); ++i) {
            if (!free[i]) continue;
            int k = pool[i], colour = g.colour_of[k];
            bool void_ = !g.is_wild[k] && colour >= 0 && ((voids >> colour) & 1);
            double wi = void_ ? weight : 1.0;
            if (kind_weights != nullptr) wi = wi * kind_weights[static_cast<std::size_t>(h) * k_all + k];
            idx.push_back(static_cast<int>(i));
            w.push_back(wi);
        }
        weighted_picks(w, need[h], rng, picks);
        auto &hand = t.hands[h];
        for (int j : picks) {
            int chosen = idx[j];
            free[chosen] = 0;
            ++hand[pool[chosen]];
        }
    }
    std::vector<int> rest;
    for (std::size_t i = 0; i < pool.size(); ++i)
        if (free[i]) rest.push_back(pool[i]);
    deal_uniform(t, rest, uniform_need, rng);
}

// `count` positions of `left` drawn without replacement, each with a chance proportional to its weight among
// those left; the exact arithmetic of sampling._weighted_picks (its docstring), so both pick the same.
void weighted_picks(std::vector<double> &left, int count, bitgen_t *rng, std::vector<int> &picks) {
    std::size_t m = left.size();
    if (count < 0 || static_cast<std::size_t>(count) > m)
        throw std::invalid_argument("state: a hand needs more cards than are unseen");
    double largest = m ? *std::max_element(left.begin(), left.end()) : 0.0;
    if (largest > 0)
        for (double &v : left) v = v / largest;
    std::vector<uint8_t> taken(m, 0);
    std::vector<double> running(m);
    picks.clear();
    for (int pick = 0; pick < count; ++pick) {
        double total = 0.0;  // a picked card's 0.0 leaves every sum as it was
        for (std::size_t j = 0; j < m; ++j) {
            total += left[j];
            running[j] = total;
        }
        std::size_t i;
        if (total > 0) {
            double target = rng_random(rng) * total;
            i = static_cast<std::size_t>(std::upper_bound(running.begin(), running.end(), target) - running.begin());
            if (i == m)  // the target at the total (not reachable with random() < 1): the last positive weight
                for (std::size_t j = 0; j < m; ++j)
                    if (left[j] > 0) i = j;
        } else {  // no positive weight left: one integers(n) among the n cards left, in order
            auto rank = rng_integers(rng, static_cast<int64_t>(m) - pick);
            i = 0;
            for (std::size_t j = 0; j < m; ++j)
                if (!taken[j] && rank-- == 0) {
                    i = j;
                    break;
                }
        }
        picks.push_back(static_cast<int>(i));
        left[i] = 0.0;
        taken[i] = 1;
    }
}

struct Slot {
    int holder, index, back;  // holder -1: the draw pile's top
};

// Flip with the fixed pairing: refill every hidden slot with an unseen physical card showing what `seat` sees
// of it; own slots first (by active face), then the backs, redrawn up to 20 times when a back face runs short.
void redeal_physical(const Rules &g, State &t, int seat, const Known &known, bitgen_t *rng) {
    int side = t.side, other = 1 - t.side;
    std::vector<Slot> slots;
    std::vector<int> pool;
    for (int h = 0; h < t.n; ++h) {
        if (h == seat) continue;
        const auto &cards = t.physical_hands[h];
        std::vector<int> keep(known[h]);  // counts per active face still to keep
        for (std::size_t i = 0; i < cards.size(); ++i) {
            int f = face(g, cards[i], side);
            if (!keep.empty() && keep[f]) {
                --keep[f];
                continue;
            }
            slots.push_back(Slot{h, static_cast<int>(i), face(g, cards[i], other)});
            pool.push_back(cards[i]);
        }
    }
    const auto &draw = t.physical_draw;
    pool.insert(pool.end(), draw.begin(), draw.end());
    if (!draw.empty()) slots.push_back(Slot{-1, static_cast<int>(draw.size()) - 1, face(g, draw.back(), other)});
    const auto &own = t.physical_hands[seat];
    std::vector<int> own_faces, cards(pool), own_cards, placed, rest;
    for (int c : own) own_faces.push_back(face(g, c, side));
    cards.insert(cards.end(), own.begin(), own.end());
    bool filled = false;
    for (int attempt = 0; attempt < 20 && !filled; ++attempt)
        filled = fill(g, cards, own_faces, slots, side, rng, own_cards, placed, rest);
    if (!filled) {  // the own cards stay whole; the real cards fit their slots, so this fill cannot fail
        if (!fill(g, pool, {}, slots, side, rng, own_cards, placed, rest))
            throw std::logic_error("sample_hidden: the real cards do not fit their own back faces");
        own_cards = own;
    }
    auto &hands = t.physical_hands;
    hands[seat] = own_cards;
    int top = -1;
    for (std::size_t j = 0; j < slots.size(); ++j) {
        if (slots[j].holder < 0)
            top = placed[j];
        else
            hands[slots[j].holder][slots[j].index] = placed[j];
    }
    std::vector<int> order;
    permutation(rng, rest.size(), order);
    t.physical_draw.resize(rest.size());
    for (std::size_t i = 0; i < rest.size(); ++i) t.physical_draw[i] = rest[order[i]];
    if (top >= 0) t.physical_draw.push_back(top);
    faces_from_physical(g, t, seat);
}

struct PairSlot {
    int holder, index, active, back;  // holder -1: the draw pile; active, back: the face kept, or -1
};

// Flip with a pairing drawn per game: every card `seat` has not seen both faces of keeps the face it shows and
// gets its other face(s) at random from those faces of these cards that are not showing.
void redeal_unknown_pairing(const Rules &g, State &t, int seat, const Known &known, bitgen_t *rng) {
    int side = t.side, other = 1 - t.side;
    auto &hands = t.physical_hands;
    std::vector<PairSlot> slots;
    for (int h = 0; h < t.n; ++h) {
        std::vector<int> keep = h != seat ? known[h] : std::vector<int>{};
        for (std::size_t i = 0; i < hands[h].size(); ++i) {
            int c = hands[h][i], f = face(g, c, side);
            if (!keep.empty() && keep[f]) {
                --keep[f];
                continue;
            }
            int index = static_cast<int>(i);
            slots.push_back(h == seat ? PairSlot{h, index, f, -1} : PairSlot{h, index, -1, face(g, c, other)});
        }
    }
    const auto &draw = t.physical_draw;
    for (std::size_t i = 0; i < draw.size(); ++i)
        slots.push_back(PairSlot{-1, static_cast<int>(i), -1, i + 1 == draw.size() ? face(g, draw[i], other) : -1});
    std::vector<int> actives, backs;
    for (const auto &sl : slots) {
        int c = sl.holder >= 0 ? hands[sl.holder][sl.index] : draw[sl.index];
        actives.push_back(face(g, c, side));
        backs.push_back(face(g, c, other));
    }
    for (const auto &sl : slots) {  // the faces that are showing are not free to move
        if (sl.active >= 0) remove_first(actives, sl.active);
        if (sl.back >= 0) remove_first(backs, sl.back);
    }
    std::vector<int> order, shuffled;
    for (auto *faces : {&actives, &backs}) {
        permutation(rng, faces->size(), order);
        shuffled.resize(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) shuffled[i] = (*faces)[order[i]];
        faces->swap(shuffled);
    }
    std::vector<int> new_draw(draw);
    for (const auto &sl : slots) {
        int f = sl.active, b = sl.back;
        if (f < 0) {
            f = actives.back();
            actives.pop_back();
        }
        if (b < 0) {
            b = backs.back();
            backs.pop_back();
        }
        int c = code(g, f, b, side);
        if (sl.holder >= 0)
            hands[sl.holder][sl.index] = c;
        else
            new_draw[sl.index] = c;
    }
    t.physical_draw = new_draw;
    faces_from_physical(g, t, seat);
    auto &deck = t.deck_cards;
    deck.assign(t.physical_discard.begin(), t.physical_discard.end());
    deck.insert(deck.end(), new_draw.begin(), new_draw.end());
    for (const auto &h : hands) deck.insert(deck.end(), h.begin(), h.end());
    std::sort(deck.begin(), deck.end());
}

// The draw pile's and the other hands' active faces, from their redealt physical cards.
void faces_from_physical(const Rules &g, State &t, int seat) {
    int side = t.side;
    t.draw_pile.resize(t.physical_draw.size());
    for (std::size_t i = 0; i < t.physical_draw.size(); ++i) t.draw_pile[i] = face(g, t.physical_draw[i], side);
    for (int h = 0; h < t.n; ++h) {
        if (h == seat) continue;
        auto &hand = t.hands[h];
        std::fill(hand.begin(), hand.end(), 0);
        for (int c : t.physical_hands[h]) ++hand[face(g, c, side)];
    }
}

// One random assignment of `cards`: own slots by active face, then `slots` by back face; into own_cards,
// placed (one per slot) and rest; false when a back face ran short.
bool fill(const Rules &g, const std::vector<int> &cards, const std::vector<int> &own_faces,
          const std::vector<Slot> &slots, int side, bitgen_t *rng, std::vector<int> &own_cards,
          std::vector<int> &placed, std::vector<int> &rest) {
    int other = 1 - side;
    std::size_t k_all = static_cast<std::size_t>(g.num_kinds);
    std::vector<int> order;
    permutation(rng, cards.size(), order);
    std::vector<int> shuffled(cards.size());
    for (std::size_t i = 0; i < order.size(); ++i) shuffled[i] = cards[order[i]];
    std::vector<std::vector<int>> by_face(k_all);  // positions in `shuffled` per active face
    for (std::size_t pos = 0; pos < shuffled.size(); ++pos)
        by_face[face(g, shuffled[pos], side)].push_back(static_cast<int>(pos));
    std::vector<uint8_t> taken(shuffled.size(), 0);
    own_cards.clear();
    for (int f : own_faces) {
        auto &positions = by_face[f];
        if (positions.empty()) throw std::logic_error("sample_hidden: an own card's face is not among the cards");
        int pos = positions.back();
        positions.pop_back();
        taken[pos] = 1;
        own_cards.push_back(shuffled[pos]);
    }
    // cards per back face, the faces in the order they first turn up (a Python dict's order)
    std::vector<std::vector<int>> by_back(k_all);
    std::vector<int> back_order;
    for (std::size_t pos = 0; pos < shuffled.size(); ++pos) {
        if (taken[pos]) continue;
        auto &group = by_back[face(g, shuffled[pos], other)];
        if (group.empty()) back_order.push_back(face(g, shuffled[pos], other));
        group.push_back(shuffled[pos]);
    }
    placed.clear();
    for (const Slot &sl : slots) {
        auto &group = by_back[sl.back];
        if (group.empty()) return false;
        placed.push_back(group.back());
        group.pop_back();
    }
    rest.clear();
    for (int b : back_order) rest.insert(rest.end(), by_back[b].begin(), by_back[b].end());
    return true;
}

// Facts that followed from the redrawn cards: a pending challenge's verdict, another seat's drawn card.
void recheck_hidden_facts(const Rules &g, State &t, int seat, int drawn) {
    Penalty &pen = t.penalty;
    if (t.has_penalty && pen.has_challenge && pen.offender != seat)
        pen.guilty = holds_colour(g, t, pen.offender, t.ref_colour);
    int p = t.current_seat;
    if (p != seat && p >= 0) {
        if (t.phase == PLAY_OR_KEEP_DRAWN && drawn >= 0)
            t.drawn_kind = drawn;  // pinned to the drawer before the redeal
        t.legal_valid = false;  // the decider's legal actions depend on its redrawn hand
    }
}

}  // namespace

void sample_hidden_into(const Rules &g, const State &s, State &t, int seat, bitgen_t *rng, double void_weight,
                        const double *kind_weights) {
    Known known = known_cards(g, s, seat);
    int drawn = pin_pending_card(g, s, seat, known, rng);
    if (g.flip) {
        if (g.rng_pairing)
            redeal_unknown_pairing(g, t, seat, known, rng);
        else
            redeal_physical(g, t, seat, known, rng);
    } else {
        redeal(g, t, seat, known, rng, void_weight, kind_weights);
    }
    recheck_hidden_facts(g, t, seat, drawn);
}

// The binding hands the core states it did not check against the rules: their shapes must be the rules'.
void check_shapes(const Rules &g, const State &s) {
    bool ok = s.n == g.num_players && static_cast<int>(s.hands.size()) == s.n &&
              static_cast<int>(s.hand_size.size()) == s.n && static_cast<int>(s.voids.size()) == s.n &&
              static_cast<int>(s.eliminated.size()) == s.n &&
              (!g.flip || static_cast<int>(s.physical_hands.size()) == s.n);
    for (const auto &hand : s.hands) ok = ok && static_cast<int>(hand.size()) == g.num_kinds;
    if (!ok) throw std::invalid_argument("a state of other rules (players or kinds differ)");
}

}  // namespace uno

void bind_sample(py::module_ &m) {
    using namespace uno;
    m.def(
        "sample_hidden",
        [](const Rules &g, const CoreState &source, int seat, py::object generator, bool share_rng, double void_weight,
           py::object kind_weights) {
            check_shapes(g, source.s);
            if (seat < 0 || seat >= g.num_players)
                throw std::invalid_argument("sample_hidden: seat " + std::to_string(seat) + " is not a seat");
            if (!(void_weight >= 0.0 && void_weight <= 1.0))
                throw std::invalid_argument("sample_hidden: void_weight is a weight in [0, 1]");
            py::array_t<double, py::array::c_style | py::array::forcecast> weights;
            if (!kind_weights.is_none()) {
                if (g.flip) throw std::invalid_argument("sample_hidden: kind_weights applies to one-sided decks");
                weights = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(kind_weights);
                if (!weights || weights.ndim() != 2 || weights.shape(0) != g.num_players ||
                    weights.shape(1) != g.num_kinds)
                    throw std::invalid_argument("sample_hidden: kind_weights has shape (players, kinds)");
            }
            bitgen_t *rng = bitgen_of(generator);
            // uno_env/sampling.py: the copy first (drawing from `generator`, or on generators seeded from it)
            auto target = share_rng ? clone_onto(source, generator, source.s.launcher_rng != nullptr ? generator
                                                                                                  : py::none())
                                    : clone_seeded(source, rng);
            sample_hidden_into(g, source.s, target->s, seat, rng, void_weight,
                               kind_weights.is_none() ? nullptr : weights.data());
            return target;
        },
        py::arg("rules"), py::arg("source"), py::arg("seat"), py::arg("generator"), py::arg("share_rng"),
        py::arg("void_weight"), py::arg("kind_weights"),
        "uno_env.sampling.sample_hidden on a core state: a new state with what `seat` cannot see redrawn, "
        "drawing from `generator` in the same order.");
    m.def(
        "sample_many",
        [](const Rules &g, const CoreState &source, int seat, py::object generator, int count) {
            // what a search inside the core pays per sample (bench search): `count` samples, shared generator
            check_shapes(g, source.s);
            if (seat < 0 || seat >= g.num_players) throw std::invalid_argument("sample_many: seat is not a seat");
            if (count < 0) throw std::invalid_argument("sample_many: count must be >= 0");
            bitgen_t *rng = bitgen_of(generator);
            State world;
            long long cards = 0;
            for (int i = 0; i < count; ++i) {
                world = source.s;
                world.rng = rng;
                world.launcher_rng = source.s.launcher_rng != nullptr ? rng : nullptr;
                sample_hidden_into(g, source.s, world, seat, rng, 1.0, nullptr);
                cards += static_cast<long long>(world.draw_pile.size());
            }
            return cards;
        },
        py::arg("rules"), py::arg("source"), py::arg("seat"), py::arg("generator"), py::arg("count"),
        "`count` hidden-information samples of `source` for `seat` inside the core, drawing from `generator` "
        "(share_rng); returns the draw-pile cards dealt (bench search's in-core row).");
}
