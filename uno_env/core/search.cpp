// IS-MCTS in the core: the twin of agents/search.py's ISMCTSAgent.root_visits, its RolloutPolicy and the leaf
// models of agents/leaf_value.py, so one search runs without a call back into Python.
//
// Read the Python first: it is the reference, and its docstrings say why the search is built as it is. Every
// function here mirrors the Python one of the same name, drawing from the search's numpy Generator in the same
// order (Generator.random() for the rollout's tie-breaks, integers(n) for its random picks), and doing its
// arithmetic in the same order in doubles, so a seed gives the same tree and the same visits on either side
// (tests/agents/test_native_search.py). A world is sampled as sampling.sample_hidden(share_rng=True) samples it
// (sample.cpp); the fitted leaf model's weights are fitted in Python and handed over.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "binding.hpp"
#include "engine.hpp"
#include "observe.hpp"
#include "random.hpp"
#include "sample.hpp"

namespace py = pybind11;

namespace uno {
namespace {

// agents/leaf_value.py's KindIndex: which kinds are wild, coloured action cards, or of each colour.
struct KindIndex {
    int num_kinds = 0;
    std::vector<uint8_t> is_wild, is_number;
    std::vector<int> colour_of;  // -1 for a wild
    std::vector<int> wild_kinds, action_kinds;
    std::array<std::vector<int>, 4> kinds_by_colour;

    explicit KindIndex(const Rules &g) : num_kinds(g.num_kinds) {
        for (int i = 0; i < num_kinds; ++i) {
            bool wild = g.is_wild[i] != 0;
            is_wild.push_back(wild);
            colour_of.push_back(wild ? -1 : g.colour_of[i]);
            is_number.push_back(g.effect_of[i] == NUMBER);
            if (wild) wild_kinds.push_back(i);
            if (!wild && g.effect_of[i] != NUMBER) action_kinds.push_back(i);
            // the Python counts colours 0..3 only; a kind of another colour is in no list
            if (!wild && g.colour_of[i] >= 0 && g.colour_of[i] < 4) kinds_by_colour[g.colour_of[i]].push_back(i);
        }
    }

    std::array<int, 4> colour_counts(const std::vector<int> &hand) const {
        std::array<int, 4> counts{};
        for (int c = 0; c < 4; ++c)
            for (int kind : kinds_by_colour[c]) counts[c] += hand[kind];
        return counts;
    }
};

bool contains(const std::vector<int> &items, int value) {
    return std::find(items.begin(), items.end(), value) != items.end();
}

// agents/search.py's RolloutPolicy: shed cards, keep wilds for last, call, catch.
struct RolloutPolicy {
    const Rules &g;
    KindIndex kinds;

    explicit RolloutPolicy(const Rules &rules) : g(rules), kinds(rules) {}

    int choose(const State &s, const std::vector<int> &legal, bitgen_t *rng) const {
        if (legal.size() == 1) return legal[0];
        int phase = s.phase;
        if (phase == TURN || phase == STACK_RESPONSE || phase == JUMP_IN || phase == PLAY_OR_KEEP_DRAWN)
            return play(s, legal, rng);
        if (phase == CHOOSE_COLOUR) {
            auto counts = kinds.colour_counts(s.hands[s.current_seat]);
            int best = static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin());
            int a = g.colour0 + best;
            return contains(legal, a) ? a : legal[pick(rng, legal.size())];
        }
        if (phase == UNO_CALL && contains(legal, g.call)) return g.call;
        if (phase == CATCH && contains(legal, g.catch_)) return g.catch_;
        if (phase == CHALLENGE_OR_ACCEPT && contains(legal, g.accept)) return g.accept;
        if (phase == MULTI_PLAY) {
            for (int a : legal)
                if (a != g.pass) return a;
            return legal[0];
        }
        if (phase == OPTIMUS_PLACE) {
            for (int a : legal)
                if (a < kinds.num_kinds && !kinds.is_wild[a]) return a;
            return g.pass;
        }
        return legal[pick(rng, legal.size())];
    }

    static std::size_t pick(bitgen_t *rng, std::size_t n) {
        return static_cast<std::size_t>(rng_integers(rng, static_cast<int64_t>(n)));
    }

    // RolloutPolicy._play: a coloured card of the colour held most (action cards first, then a random
    // tie-break: one random() per coloured card, in legal order), else a random wild, else accept/pass/draw.
    int play(const State &s, const std::vector<int> &legal, bitgen_t *rng) const {
        int first_coloured = -1, coloured = 0, wilds = 0;
        for (int a : legal) {
            int kind = kind_of(a);
            if (kind < 0) continue;
            if (kinds.is_wild[kind]) {
                ++wilds;
            } else if (coloured++ == 0) {
                first_coloured = a;
            }
        }
        if (coloured == 1) return first_coloured;
        if (coloured > 1) {
            auto counts = kinds.colour_counts(s.hands[s.current_seat]);
            int best = -1, best_count = 0;
            bool best_action = false;
            double best_tie = 0.0;
            for (int a : legal) {
                int kind = kind_of(a);
                if (kind < 0 || kinds.is_wild[kind]) continue;
                int count = counts[kinds.colour_of[kind]];
                bool action = !kinds.is_number[kind];
                double tie = rng_random(rng);  // drawn for every coloured card, as max(key=...) evaluates each
                if (best < 0 || count > best_count ||
                    (count == best_count && (action > best_action || (action == best_action && tie > best_tie)))) {
                    best = a, best_count = count, best_action = action, best_tie = tie;
                }
            }
            return best;
        }
        if (wilds > 0) {
            std::size_t chosen = pick(rng, static_cast<std::size_t>(wilds));
            for (int a : legal) {
                int kind = kind_of(a);
                if (kind >= 0 && kinds.is_wild[kind] && chosen-- == 0) return a;
            }
        }
        int first_other = -1;
        for (int a : legal)
            if (kind_of(a) < 0 && first_other < 0) first_other = a;
        for (int fallback : {g.accept, g.pass, g.draw})  // take the penalty, decline, or draw (never challenge)
            for (int a : legal)
                if (a == fallback && kind_of(a) < 0) return a;
        return first_other;
    }

    // the card kind an action places (a regular or a FLEX play), or -1
    int kind_of(int a) const {
        const int k = kinds.num_kinds;
        if (a < k) return a;
        return (g.flex0 >= 0 && a < 2 * k) ? a - g.flex0 : -1;
    }
};

// leaf_value._results: expected results (winner +1, the others -1/(n-1)) from per-seat scores.
void results(const std::vector<double> &scores, const State &s, std::vector<double> &out) {
    const int n = s.n;
    double top = *std::max_element(scores.begin(), scores.end());
    out.assign(static_cast<std::size_t>(n), 0.0);
    double total = 0.0;
    for (int i = 0; i < n; ++i) {
        out[i] = s.eliminated[i] ? 0.0 : std::exp(scores[i] - top);
        total += out[i];
    }
    double lose = 1.0 / (n - 1);
    for (int i = 0; i < n; ++i) out[i] = out[i] / total * (1.0 + lose) - lose;
}

constexpr int NUM_FEATURES = 8;  // leaf_value.FEATURES

// LeafModel.features: seat i's row of leaf_value.FEATURES in `s`.
void features(const KindIndex &kinds, const State &s, int i, double *row) {
    const int n = s.n, size = s.hand_size[i];
    const std::vector<int> &hand = s.hands[i];
    auto by_colour = kinds.colour_counts(hand);
    int wild = 0, action = 0, held = 0;
    for (int kind : kinds.wild_kinds) wild += hand[kind];
    for (int kind : kinds.action_kinds) action += hand[kind];
    for (int c : by_colour) held += c != 0;
    int current = (s.colour >= 0 && s.colour < 4) ? by_colour[s.colour] : 0;
    int until = (((i - s.current_seat) * s.direction) % n + n) % n;
    const double out[NUM_FEATURES] = {static_cast<double>(size), std::log1p(static_cast<double>(size)),
                                      static_cast<double>(wild), static_cast<double>(action),
                                      static_cast<double>(held), static_cast<double>(until),
                                      static_cast<double>(current), size == 1 ? 1.0 : 0.0};
    std::copy(out, out + NUM_FEATURES, row);
}

// leaf_value.estimate (no weights) or LeafModel.__call__ (the fitted weights over FEATURES).
struct LeafModel {
    const KindIndex &kinds;
    std::vector<double> weights;  // empty: estimate
    mutable std::vector<double> scores;

    void operator()(const State &s, std::vector<double> &out) const {
        const int n = s.n;
        scores.assign(static_cast<std::size_t>(n), 0.0);
        double row[NUM_FEATURES];
        for (int i = 0; i < n; ++i) {
            if (weights.empty()) {
                scores[i] = -0.5 * s.hand_size[i];
                continue;
            }
            features(kinds, s, i, row);
            double score = 0.0;  // LeafModel.score: left to right
            for (int j = 0; j < NUM_FEATURES; ++j) score += weights[j] * row[j];
            scores[i] = score;
        }
        results(scores, s, out);
    }
};

// leaf_value.fit's games: `games` rollout-policy games dealt from seeds first_seed + i; before each decision
// the state is kept with chance sample_rate (one random() of `rng` per decision, then the rollout policy's
// draws), as every seat's feature row and whether it is out; the rows of games that ended without a winner
// are dropped. Returns the rows kept (rows: kept x seats x features, off: kept x seats, winners: kept).
long long fit_rows(const Rules &g, uint64_t first_seed, int games, double sample_rate, bitgen_t *rng,
                   std::vector<double> &rows, std::vector<uint8_t> &off, std::vector<int64_t> &winners) {
    RolloutPolicy rollout(g);
    const int n = g.num_players;
    std::vector<int> acts;
    long long kept_total = 0;
    for (int i = 0; i < games; ++i) {
        State s;
        s.rng.seed(first_seed + static_cast<uint64_t>(i));  // Game.new_state(first_seed + i)
        new_game(g, s);
        std::size_t start = winners.size(), rows_start = rows.size(), off_start = off.size();
        while (!s.is_over) {
            if (rng_random(rng) < sample_rate) {
                for (int q = 0; q < n; ++q) {
                    double row[NUM_FEATURES];
                    features(rollout.kinds, s, q, row);
                    rows.insert(rows.end(), row, row + NUM_FEATURES);
                    off.push_back(s.eliminated[q]);
                }
                winners.push_back(-1);
            }
            acts = legal_actions(g, s);
            step(g, s, rollout.choose(s, acts, rng));
        }
        if (s.winner < 0) {  // a truncated game says nothing about who wins
            winners.resize(start), rows.resize(rows_start), off.resize(off_start);
            continue;
        }
        std::fill(winners.begin() + static_cast<std::ptrdiff_t>(start), winners.end(), s.winner);
        kept_total += static_cast<long long>(winners.size() - start);
    }
    return kept_total;
}

// State.returns: the winner +1, every other seat -1/(n-1); all 0 without a winner.
void returns(const State &s, std::vector<double> &out) {
    const int n = s.n;
    out.assign(static_cast<std::size_t>(n), 0.0);
    if (s.winner < 0) return;
    double lose = -1.0 / (n - 1);
    for (int i = 0; i < n; ++i) out[i] = i == s.winner ? 1.0 : lose;
}

// _Node: the seat whose decision led here, its visits, the sum of that seat's results, the iterations in which
// the decision was legal, and the children by (seat, action).
struct Node {
    int seat = -1, visits = 0, avail = 0;
    double total = 0.0;
    std::vector<std::pair<int, int>> children;  // (seat * num_actions + action, node index)
};

struct Options {
    int iterations = 300, rollout_depth = 8, first = -1, tree_depth = 0;
    double time = 0.0, c = 1.0, void_weight = 1.0, prior_weight = 3.0;
    bool opponents_rollout = false;
    std::vector<double> prior;  // per action (the root's legal ones), empty without a guide
    std::vector<double> kind_weights;  // belief_of: players x kinds, row-major; empty deals uniformly
};

// PolicyOpponent (opponents=policy): the other seats' tree decisions by a policy network that reads only the
// deciding seat's own observation, in doubles as the Python twin computes them.
struct PolicyOpponent {
    ObsLayout layout;
    bool relu = false;
    std::vector<std::vector<double>> weights, biases;  // weights[i]: inputs x outputs, row-major (numpy's h @ w)
    std::vector<int> inputs, outputs;
    std::vector<float> row;
    std::vector<double> h, next;

    bool active() const { return !weights.empty(); }

    int choose(const State &world, const std::vector<int> &legal) {
        row.assign(static_cast<std::size_t>(layout.size), 0.0f);
        encode_row(layout, world, world.current_seat, row.data(), nullptr);
        h.assign(row.begin(), row.begin() + inputs[0]);  // a layout-1 policy reads the row's prefix
        const std::size_t last = weights.size() - 1;
        for (std::size_t i = 0; i < weights.size(); ++i) {
            const int in = inputs[i], out = outputs[i];
            const double *w = weights[i].data();
            // row by row, each output's sum still in input order; the observation's zeros are skipped (most of it)
            next.assign(static_cast<std::size_t>(out), 0.0);
            for (int k = 0; k < in; ++k) {
                const double hk = h[k];
                if (hk == 0.0) continue;
                const double *wk = w + static_cast<std::size_t>(k) * out;
                for (int j = 0; j < out; ++j) next[j] += hk * wk[j];
            }
            for (int j = 0; j < out; ++j) {
                next[j] += biases[i][j];
                if (i != last) next[j] = relu ? std::max(next[j], 0.0) : std::tanh(next[j]);
            }
            h.swap(next);
        }
        int best = legal[0];
        for (int a : legal)  // the highest logit; the lowest action among equal ones
            if (h[a] > h[best] || (h[a] == h[best] && a < best)) best = a;
        return best;
    }
};

int find_child(const Node &node, int key) {
    for (const auto &kv : node.children)
        if (kv.first == key) return kv.second;
    return -1;
}

// ISMCTSAgent.root_visits: one search from `source` for its deciding seat; visits per action of the root,
// and the iterations run.
int root_visits(const Rules &g, const State &source, bitgen_t *rng, const Options &opts, const LeafModel &leaf,
                PolicyOpponent &policy, std::vector<long long> &visits) {
    using clock = std::chrono::steady_clock;
    const int me = source.current_seat, num_actions = g.num_actions;
    RolloutPolicy rollout(g);
    std::vector<Node> nodes(1);  // the root
    nodes.reserve(static_cast<std::size_t>(std::min(opts.iterations, 1 << 16)) + 1);  // at most one node an iteration
    const bool biased = !opts.prior.empty();
    const bool timed = opts.time > 0;
    // capped at a year: a larger time (any finite one is allowed) would overflow the clock's nanoseconds
    const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                             std::chrono::duration<double>(timed ? std::min(opts.time, 3.2e7) : 0.0));
    State world;
    std::vector<int> acts, fresh, path;
    std::vector<double> result;
    int done = 0;
    for (done = 1; done <= opts.iterations; ++done) {
        world = source;  // ISMCTSAgent.world: sample_hidden(share_rng=True)
        world.rng = rng;
        world.launcher_rng = source.launcher_rng != nullptr ? rng : nullptr;
        sample_hidden_into(g, source, world, me, rng, opts.void_weight,
                           opts.kind_weights.empty() ? nullptr : opts.kind_weights.data());
        int node = 0;
        path.clear();
        while (!world.is_over) {  // selection, then one expansion
            acts = legal_actions(g, world);
            int p = world.current_seat;
            if (acts.size() == 1) {
                step(g, world, acts[0]);
                continue;
            }
            int obvious = world.phase == UNO_CALL ? g.call : world.phase == CATCH ? g.catch_ : -1;
            if (obvious >= 0 && contains(acts, obvious)) {
                step(g, world, obvious);
                continue;
            }
            if (opts.opponents_rollout && p != me) {
                step(g, world, rollout.choose(world, acts, rng));
                continue;
            }
            if (policy.active() && p != me) {  // opponents=policy: in the tree only, the rollouts as before
                step(g, world, policy.choose(world, acts));
                continue;
            }
            if (opts.tree_depth > 0 && static_cast<int>(path.size()) >= opts.tree_depth) break;  // the rollout plays on
            fresh.clear();
            for (int a : acts) {
                int child = find_child(nodes[node], p * num_actions + a);
                if (child < 0)
                    fresh.push_back(a);
                else
                    nodes[child].avail += 1;
            }
            if (!fresh.empty()) {
                int a;
                if (node == 0 && opts.first >= 0 && contains(fresh, opts.first)) {
                    a = opts.first;
                } else {
                    a = rollout.choose(world, acts, rng);  // the rollout policy's choice is tried first
                    if (!contains(fresh, a)) a = fresh[RolloutPolicy::pick(rng, fresh.size())];
                }
                int child = static_cast<int>(nodes.size());
                nodes.emplace_back();
                nodes[child].seat = p;
                nodes[child].avail = 1;
                nodes[node].children.emplace_back(p * num_actions + a, child);
                step(g, world, a);
                path.push_back(child);
                break;
            }
            int best = -1, best_child = -1;
            double best_score = -std::numeric_limits<double>::infinity();
            const bool at_root = biased && node == 0;
            for (int a : acts) {
                int child = find_child(nodes[node], p * num_actions + a);
                const Node &ch = nodes[child];
                double score = ch.total / ch.visits + opts.c * std::sqrt(std::log(static_cast<double>(ch.avail)) /
                                                                         ch.visits);
                if (at_root) score += opts.prior_weight * opts.prior[a] / (ch.visits + 1);
                if (score > best_score) best = a, best_child = child, best_score = score;
            }
            node = best_child;
            step(g, world, best);
            path.push_back(node);
        }
        for (int moves = 0; !world.is_over && moves < opts.rollout_depth; ++moves) {  // rollout
            acts = legal_actions(g, world);
            step(g, world, rollout.choose(world, acts, rng));
        }
        if (world.is_over)
            returns(world, result);
        else
            leaf(world, result);
        for (int i : path) {
            nodes[i].visits += 1;
            nodes[i].total += result[nodes[i].seat];
        }
        if (timed && clock::now() >= deadline) break;
    }
    if (done > opts.iterations) done = opts.iterations;
    visits.assign(static_cast<std::size_t>(num_actions), 0);
    for (const auto &kv : nodes[0].children)
        if (kv.first / num_actions == me) visits[kv.first % num_actions] = nodes[kv.second].visits;
    return done;
}

// The opponents' policy from its layers (weights, bias, weights, bias, ...: float64 arrays as numpy's h @ w + b
// reads them) and the observation layout; every size checked against the next layer, the layout and the actions.
PolicyOpponent policy_opponent(const Rules &g, const py::list &layers, bool relu, const py::object &layout) {
    PolicyOpponent policy;
    if (layers.size() == 0) return policy;
    auto bad = [](const std::string &why) { return std::invalid_argument("ismcts_root_visits: opponent_layers " + why); };
    if (layers.size() % 2 != 0 || layers.size() > 32) throw bad("alternate weights and biases, at most 16 layers");
    if (layout.is_none()) throw bad("need the observation layout (layout=ObservationEncoder.layout())");
    policy.layout = layout_from(layout.cast<py::dict>(), g);
    policy.relu = relu;
    int width = policy.layout.size;
    std::size_t total = 0;  // weights in all: a policy file's network is far smaller than this cap (64 MB of doubles)
    for (std::size_t i = 0; i < layers.size(); i += 2) {
        auto w = py::cast<py::array_t<double, py::array::c_style | py::array::forcecast>>(layers[i]);
        auto b = py::cast<py::array_t<double, py::array::c_style | py::array::forcecast>>(layers[i + 1]);
        if (w.ndim() != 2 || b.ndim() != 1 || b.shape(0) != w.shape(1) || w.shape(1) < 1 || w.shape(1) > 4096)
            throw bad("layer " + std::to_string(i / 2) + " is not a (inputs, outputs) matrix of at most 4,096 "
                      "outputs with a bias of outputs");
        const int in = static_cast<int>(w.shape(0)), out = static_cast<int>(w.shape(1));
        if (i == 0 ? (in < 1 || in > width) : in != width)
            throw bad("layer " + std::to_string(i / 2) + " reads " + std::to_string(in) + " inputs where " +
                      std::to_string(width) + " are given");
        total += static_cast<std::size_t>(w.size());
        if (total > (std::size_t{1} << 23)) throw bad("hold more than 8,388,608 weights in all");
        policy.weights.emplace_back(w.data(), w.data() + w.size());
        policy.biases.emplace_back(b.data(), b.data() + b.size());
        policy.inputs.push_back(in);
        policy.outputs.push_back(out);
        width = out;
    }
    if (width != g.num_actions)
        throw bad("end in " + std::to_string(width) + " outputs, not one per action (" + std::to_string(g.num_actions) + ")");
    return policy;
}

}  // namespace
}  // namespace uno

void bind_search(py::module_ &m) {
    using namespace uno;
    m.def(
        "ismcts_root_visits",
        [](const Rules &g, const CoreState &source, py::object generator, int iterations, double time, double c,
           int rollout_depth, double void_weight, bool opponents_rollout, std::vector<double> leaf_weights,
           std::vector<double> prior, double prior_weight, int first, int tree_depth, py::list opponent_layers,
           bool opponent_relu, py::object layout, std::vector<double> kind_weights) {
            check_shapes(g, source.s);
            if (iterations < 1) throw std::invalid_argument("ismcts_root_visits: iterations must be >= 1");
            if (rollout_depth < 1) throw std::invalid_argument("ismcts_root_visits: rollout_depth must be >= 1");
            if (!(time >= 0.0) || !(c >= 0.0) || !(prior_weight >= 0.0) || !std::isfinite(time) ||
                !std::isfinite(c) || !std::isfinite(prior_weight))
                throw std::invalid_argument("ismcts_root_visits: time, c and prior_weight are finite and >= 0");
            if (!(void_weight >= 0.0 && void_weight <= 1.0))
                throw std::invalid_argument("ismcts_root_visits: void_weight is a weight in [0, 1]");
            if (!leaf_weights.empty() && leaf_weights.size() != 8)
                throw std::invalid_argument("ismcts_root_visits: leaf_weights holds 8 weights (or none: hand sizes)");
            if (!prior.empty() && static_cast<int>(prior.size()) != g.num_actions)
                throw std::invalid_argument("ismcts_root_visits: prior holds one probability per action (or none)");
            if (first < -1 || first >= g.num_actions)
                throw std::invalid_argument("ismcts_root_visits: first is an action id or -1");
            if (tree_depth < 0) throw std::invalid_argument("ismcts_root_visits: tree_depth must be >= 0");
            if (source.s.is_over) throw std::invalid_argument("ismcts_root_visits: the game is over");
            if (!kind_weights.empty()) {
                if (g.flip) throw std::invalid_argument("ismcts_root_visits: kind_weights applies to one-sided decks");
                if (kind_weights.size() != static_cast<std::size_t>(g.num_players) * g.num_kinds)
                    throw std::invalid_argument(
                        "ismcts_root_visits: kind_weights holds players x kinds weights (or none)");
                for (double w : kind_weights)
                    if (!(w >= 0.0) || !std::isfinite(w))
                        throw std::invalid_argument("ismcts_root_visits: kind_weights are finite and >= 0");
            }
            Options opts;
            opts.iterations = iterations, opts.time = time, opts.c = c, opts.rollout_depth = rollout_depth;
            opts.void_weight = void_weight, opts.opponents_rollout = opponents_rollout;
            opts.prior = std::move(prior), opts.prior_weight = prior_weight, opts.first = first;
            opts.tree_depth = tree_depth, opts.kind_weights = std::move(kind_weights);
            KindIndex kinds(g);
            LeafModel leaf{kinds, std::move(leaf_weights), {}};
            PolicyOpponent policy = policy_opponent(g, opponent_layers, opponent_relu, layout);
            std::vector<long long> visits;
            int done = root_visits(g, source.s, bitgen_of(generator), opts, leaf, policy, visits);
            py::array_t<long long> out(static_cast<py::ssize_t>(visits.size()));
            std::copy(visits.begin(), visits.end(), out.mutable_data());
            return py::make_tuple(out, done);
        },
        py::arg("rules"), py::arg("source"), py::arg("generator"), py::arg("iterations"), py::arg("time"),
        py::arg("c"), py::arg("rollout_depth"), py::arg("void_weight"), py::arg("opponents_rollout"),
        py::arg("leaf_weights"), py::arg("prior"), py::arg("prior_weight"), py::arg("first"), py::arg("tree_depth") = 0,
        py::arg("opponent_layers") = py::list(), py::arg("opponent_relu") = false, py::arg("layout") = py::none(),
        py::arg("kind_weights") = std::vector<double>(),
        "agents/search.py's ISMCTSAgent.root_visits in the core: (the visits of each of the deciding seat's "
        "actions at the root, the iterations run), drawing from `generator` as the Python search does.");
    m.def(
        "leaf_fit_rows",
        [](const Rules &g, uint64_t first_seed, int games, double sample_rate, py::object generator) {
            // each kept state holds players x 8 doubles: 100,000 games stay within a few hundred MB
            if (games < 0 || games > 100000) throw std::invalid_argument("leaf_fit_rows: games is 0 to 100,000");
            if (!(sample_rate >= 0.0 && sample_rate <= 1.0))
                throw std::invalid_argument("leaf_fit_rows: sample_rate is a chance in [0, 1]");
            std::vector<double> rows;
            std::vector<uint8_t> off;
            std::vector<int64_t> winners;
            fit_rows(g, first_seed, games, sample_rate, bitgen_of(generator), rows, off, winners);
            const py::ssize_t m = static_cast<py::ssize_t>(winners.size()), n = g.num_players;
            py::array_t<double> x(std::vector<py::ssize_t>{m, n, static_cast<py::ssize_t>(NUM_FEATURES)});
            py::array_t<bool> out(std::vector<py::ssize_t>{m, n});
            py::array_t<int64_t> y(std::vector<py::ssize_t>{m});
            std::copy(rows.begin(), rows.end(), x.mutable_data());
            std::transform(off.begin(), off.end(), out.mutable_data(), [](uint8_t v) { return v != 0; });
            std::copy(winners.begin(), winners.end(), y.mutable_data());
            return py::make_tuple(x, out, y);
        },
        py::arg("rules"), py::arg("first_seed"), py::arg("games"), py::arg("sample_rate"), py::arg("generator"),
        "agents/leaf_value.py's fit: the feature rows (kept, seats, features), the seats out (kept, seats) and "
        "the winners (kept) of `games` rollout-policy games, drawing from `generator` as the Python fit does.");
}
