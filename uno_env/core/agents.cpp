// The rule-based agents `random` and `greedy` (agents/base.py, agents/rule_based.py) deciding many rows per call.
//
// Each reads what its Python twin reads: the observation row (decoded as agents/view.py decodes it) and the
// legal-action mask, and draws from the agent's own numpy Generator in the same order (Generator.integers(n),
// and choice(array), which is array[integers(n)]), so a row gets the same action on either side. The rows are
// decided in order, as the Python agent would decide them one after another.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "binding.hpp"
#include "random.hpp"

namespace py = pybind11;
using namespace uno;

namespace {

// colour counts per colour index (np.bincount's length: num_colours, at most MAX_COLOURS)
constexpr int MAX_COLOURS = 16;
using Counts = std::array<double, MAX_COLOURS>;

// The phases _RuleBased.act tells apart (any other phase takes the TURN branch, as in Python).
enum RulePhase { R_TURN, R_COLOUR, R_UNO_CALL, R_CATCH, R_CHALLENGE, R_TARGET, R_KEEP, R_OPTIMUS, R_JUMP, R_STACK, R_MULTI };

// One game's observation layout and action layout as the rule-based agents read them (agents/view.py).
struct RuleView {
    int obs_size = 0, num_actions = 0;
    int hand_start = 0, num_kinds = 0, phase_start = 0, hand_sizes_start = 0, max_players = 0;
    float hand_size = 0;
    std::vector<int> phase_of_slot;  // RulePhase of each entry of the phase block
    int flex0 = -1, draw = 0, colour0 = 0, target0 = -1, num_targets = 0, self_target = -1;
    int challenge = 0, accept = 0, call = 0, catch_ = 0, pass = 0;
    std::vector<int> colour_of, is_wild, effect_of;
    std::vector<double> points_of;
    int num_colours = 0, number_effect = 0;
    // what the heuristic reads besides (agents/rule_based.py HeuristicAgent; -1: the block is absent)
    int top_start = 0, discard_start = 0, seats_start = 0, direction_at = 0, power_start = -1, flip_start = -1;
    int faces_per_side = 0;
    std::vector<int> flip_icon, is_draw, is_tempo, is_attacking, hit_order, is_strong;
    int optimus = 0, flip = 0, discard_all = 0, megatron = 0, wild_all_flip = 0, wild_all_draw = 0;
    int wild_target_draw_two = 0, wild_draw_four = 0, flex_draw_two = 0, flex_skip = 0, flex_reverse = 0;

    static int take(const py::dict &d, const char *key) { return d[key].cast<int>(); }

    explicit RuleView(const py::dict &d) {
        obs_size = take(d, "obs_size");
        num_actions = take(d, "num_actions");
        hand_start = take(d, "hand_start");
        num_kinds = take(d, "num_kinds");
        phase_start = take(d, "phase_start");
        hand_sizes_start = take(d, "hand_sizes_start");
        max_players = take(d, "max_players");
        hand_size = static_cast<float>(take(d, "hand_size"));
        phase_of_slot = d["phase_of_slot"].cast<std::vector<int>>();
        flex0 = take(d, "flex0");
        draw = take(d, "draw");
        colour0 = take(d, "colour0");
        target0 = take(d, "target0");
        num_targets = take(d, "num_targets");
        self_target = take(d, "self_target");
        challenge = take(d, "challenge");
        accept = take(d, "accept");
        call = take(d, "call");
        catch_ = take(d, "catch");
        pass = take(d, "pass");
        colour_of = d["colour_of"].cast<std::vector<int>>();
        is_wild = d["is_wild"].cast<std::vector<int>>();
        effect_of = d["effect_of"].cast<std::vector<int>>();
        points_of = d["points_of"].cast<std::vector<double>>();
        num_colours = take(d, "num_colours");
        number_effect = take(d, "number_effect");
        top_start = take(d, "top_start");
        discard_start = take(d, "discard_start");
        seats_start = take(d, "seats_start");
        direction_at = take(d, "direction_at");
        power_start = take(d, "power_start");
        flip_start = take(d, "flip_start");
        faces_per_side = take(d, "faces_per_side");
        for (auto [key, field] : {std::pair<const char *, std::vector<int> *>{"flip_icon", &flip_icon},
                                  {"is_draw", &is_draw}, {"is_tempo", &is_tempo}, {"is_attacking", &is_attacking},
                                  {"hit_order", &hit_order}, {"is_strong", &is_strong}})
            *field = d[key].cast<std::vector<int>>();
        optimus = take(d, "optimus");
        flip = take(d, "flip");
        discard_all = take(d, "discard_all");
        megatron = take(d, "megatron");
        wild_all_flip = take(d, "wild_all_flip");
        wild_all_draw = take(d, "wild_all_draw");
        wild_target_draw_two = take(d, "wild_target_draw_two");
        wild_draw_four = take(d, "wild_draw_four");
        flex_draw_two = take(d, "flex_draw_two");
        flex_skip = take(d, "flex_skip");
        flex_reverse = take(d, "flex_reverse");
        // every index read below must lie inside the row and the mask
        auto inside = [](int start, int size, int limit) { return start >= 0 && size >= 0 && start + size <= limit; };
        const int n = num_kinds;
        if (n <= 0 || static_cast<int>(colour_of.size()) != n || static_cast<int>(is_wild.size()) != n ||
            static_cast<int>(effect_of.size()) != n || static_cast<int>(points_of.size()) != n ||
            phase_of_slot.empty() || max_players < 2 || num_colours <= 0 || num_colours > MAX_COLOURS ||
            !inside(hand_start, n, obs_size) || !inside(phase_start, static_cast<int>(phase_of_slot.size()), obs_size) ||
            !inside(hand_sizes_start, max_players, obs_size) || !inside(0, n, draw) ||
            (flex0 >= 0 && !inside(flex0, n, draw)) || !inside(draw, 1, num_actions) ||
            !inside(colour0, 4, num_actions) ||
            (num_targets > 0 && (!inside(target0, num_targets, num_actions) || num_targets >= max_players)) ||
            (self_target >= 0 && !inside(self_target, 1, num_actions)))
            throw std::invalid_argument("rule-based view: a layout entry lies outside the observation or the actions");
        for (int a : {challenge, accept, call, catch_, pass})
            if (!inside(a, 1, num_actions)) throw std::invalid_argument("rule-based view: an action id out of range");
        for (int k = 0; k < n; ++k)
            if (!is_wild[k] && (colour_of[k] < 0 || colour_of[k] >= num_colours))
                throw std::invalid_argument("rule-based view: a card colour outside the colours");
        for (int p : phase_of_slot)
            if (p < R_TURN || p > R_MULTI) throw std::invalid_argument("rule-based view: an unknown phase code");
        for (const auto *field : {&flip_icon, &is_draw, &is_tempo, &is_attacking, &hit_order, &is_strong})
            if (static_cast<int>(field->size()) != n)
                throw std::invalid_argument("rule-based view: a per-kind table of the wrong length");
        if (!inside(top_start, n, obs_size) || !inside(discard_start, n, obs_size) ||
            !inside(seats_start, max_players, obs_size) || !inside(direction_at, 1, obs_size) ||
            (power_start >= 0 && !inside(power_start, max_players, obs_size)) ||
            (flip_start >= 0 && (faces_per_side <= 0 || 2 * faces_per_side != n ||
                                 !inside(flip_start, 1 + (max_players - 1) * faces_per_side, obs_size))))
            throw std::invalid_argument("rule-based view: a heuristic block lies outside the observation");
    }

    int kind_of(int action) const { return action < num_kinds ? action : action - flex0; }
    bool is_flex(int action) const { return action >= num_kinds; }
};

int pick(bitgen_t *rng, int n) { return static_cast<int>(rng_integers(rng, n)); }

// agents/view.py's colour_counts: the cards per colour of a per-kind block (the hand, the discard pile), wilds
// excluded, summed in kind order as np.bincount does
Counts counts_per_colour(const RuleView &v, const float *block) {
    Counts counts{};
    for (int k = 0; k < v.num_kinds; ++k)
        if (!v.is_wild[k]) counts[v.colour_of[k]] += block[k];
    return counts;
}

// What _RuleBased.act reads first: the legal ids and the card plays of the mask (into the caller's reused
// buffers), and the phase the row shows (np.argmax of the phase block: the first largest entry)
int read_row(const RuleView &v, const float *obs, const int8_t *mask, std::vector<int> &legal, std::vector<int> &plays,
             const char *who) {
    legal.clear();
    plays.clear();
    for (int a = 0; a < v.num_actions; ++a)
        if (mask[a]) {
            legal.push_back(a);
            if (a < v.draw) plays.push_back(a);
        }
    if (legal.empty()) throw std::runtime_error(std::string(who) + ": the mask has no legal action");
    const float *ph = obs + v.phase_start;
    int slot = 0;
    for (int i = 1; i < static_cast<int>(v.phase_of_slot.size()); ++i)
        if (ph[i] > ph[slot]) slot = i;
    return v.phase_of_slot[slot];
}

// GreedyAgent.choose_play: the highest points, a FLEX action effect over its regular play; the first of equals.
int greedy_play(const RuleView &v, const std::vector<int> &plays) {
    if (plays.empty()) throw std::runtime_error("greedy: no card play to choose from");
    int best = plays[0];
    double best_score = -INFINITY;
    for (int a : plays) {
        int k = v.kind_of(a);
        double score = v.points_of[k] + ((v.is_flex(a) && v.effect_of[k] != v.number_effect) ? 0.5 : 0.0);
        if (score > best_score) best = a, best_score = score;
    }
    return best;
}

// _RuleBased.choose_colour: the colour held most (wilds excluded); ties by choice() among the equals.
int choose_colour(const RuleView &v, const float *obs, bitgen_t *rng) {
    Counts counts = counts_per_colour(v, obs + v.hand_start);
    double most = counts[0];
    for (int c = 1; c < v.num_colours; ++c) most = counts[c] > most ? counts[c] : most;
    std::vector<int> best;
    for (int c = 0; c < v.num_colours; ++c)
        if (counts[c] == most) best.push_back(c);
    return best[pick(rng, static_cast<int>(best.size()))];
}

// _RuleBased.choose_target: the opponent with the fewest cards; ties at random (integers(len(best))).
int choose_target_fewest(const RuleView &v, const float *obs, const int8_t *mask, bitgen_t *rng) {
    std::vector<std::pair<int, int>> options, opponents;  // (action, relative offset)
    for (int i = 0; i < v.num_targets; ++i)
        if (mask[v.target0 + i]) options.emplace_back(v.target0 + i, i + 1);
    if (v.self_target >= 0 && mask[v.self_target]) options.emplace_back(v.self_target, 0);
    for (const auto &o : options)
        if (o.second != 0) opponents.push_back(o);
    if (opponents.empty()) opponents = options;
    if (opponents.empty()) throw std::runtime_error("greedy: no target to choose from");
    auto size_of = [&](int off) {  // np.rint(obs * hand_size) in float32
        return static_cast<int>(std::nearbyint(obs[v.hand_sizes_start + off] * v.hand_size));
    };
    int fewest = size_of(opponents[0].second);
    for (const auto &o : opponents) fewest = std::min(fewest, size_of(o.second));
    std::vector<int> best;
    for (const auto &o : opponents)
        if (size_of(o.second) == fewest) best.push_back(o.first);
    return best[pick(rng, static_cast<int>(best.size()))];
}

int act_greedy(const RuleView &v, const float *obs, const int8_t *mask, bitgen_t *rng) {
    thread_local std::vector<int> legal, plays;  // reused row after row: no allocation per decision
    const int phase = read_row(v, obs, mask, legal, plays, "greedy");
    if (legal.size() == 1) return legal[0];
    switch (phase) {
        case R_COLOUR: return v.colour0 + choose_colour(v, obs, rng);
        case R_UNO_CALL: return v.call;
        case R_CATCH: return v.catch_;
        case R_CHALLENGE: return v.accept;  // greedy never challenges
        case R_TARGET: return choose_target_fewest(v, obs, mask, rng);
        case R_KEEP: return greedy_play(v, plays);  // greedy always plays the drawn card
        case R_OPTIMUS: {
            if (plays.empty()) return v.pass;
            int best = plays[0];
            for (int a : plays)  // as np.argmax(points_of[plays]): indexed by the action id (no FLEX plays here)
                if (v.points_of.at(a) > v.points_of.at(best)) best = a;
            return best;
        }
        case R_JUMP: return plays.at(0);
        case R_STACK:
            if (!plays.empty()) return greedy_play(v, plays);
            return v.accept;
        case R_MULTI: return plays.empty() ? v.pass : greedy_play(v, plays);
        default:
            if (!plays.empty()) return greedy_play(v, plays);
            return mask[v.draw] ? v.draw : legal[0];
    }
}

// A value as the Python heuristic holds it: a Python float (double), or a numpy float32 once a float32 entered
// the sum (Flex's Wild All Flip term, Flip's strong backs). Under numpy's rules a Python float meeting a
// float32 is taken as a float32 first, in sums and in comparisons alike.
struct Num {
    double v = 0.0;
    bool f32 = false;
};
Num py(double x) { return {x, false}; }
Num f32(float x) { return {static_cast<double>(x), true}; }
Num add(Num a, Num b) {
    if (a.f32 || b.f32) return f32(static_cast<float>(a.v) + static_cast<float>(b.v));
    return py(a.v + b.v);
}
bool greater(Num a, Num b) {
    if (a.f32 || b.f32) return static_cast<float>(a.v) > static_cast<float>(b.v);
    return a.v > b.v;
}

struct Heuristic {
    const RuleView &v;
    const float *obs;
    const int8_t *mask;
    bitgen_t *rng;

    int size_of(int off) const { return static_cast<int>(std::nearbyint(obs[v.hand_sizes_start + off] * v.hand_size)); }
    int num_players() const {  // int(obs[seats].sum()): a float32 sum of 0/1 entries
        float total = 0;
        for (int i = 0; i < v.max_players; ++i) total += obs[v.seats_start + i];
        return static_cast<int>(total);
    }
    int direction() const { return obs[v.direction_at] >= 0 ? 1 : -1; }
    int next_opponent_size() const {
        int n = num_players(), d = direction();
        for (int r = 1; r < n; ++r) {
            int size = size_of((((r * d) % n) + n) % n);
            if (size) return size;
        }
        return 0;
    }
    int hand_total() const {
        float total = 0;
        for (int k = 0; k < v.num_kinds; ++k) total += obs[v.hand_start + k];
        return static_cast<int>(total);
    }
    Counts colour_counts(int start) const { return counts_per_colour(v, obs + start); }
    int argmax_block(int start, int size) const {
        int best = 0;
        for (int i = 1; i < size; ++i)
            if (obs[start + i] > obs[start + best]) best = i;
        return best;
    }

    Num flip_value(bool threat) const {
        int n = num_players();
        int nxt = ((direction() % n) + n) % n;
        const int f = v.faces_per_side;
        const float *backs = obs + v.flip_start + 1 + (nxt - 1) * f;
        const bool side_d = static_cast<int>(obs[v.flip_start]) == 1;
        bool any = false;
        float strong = 0;  // Python's sum(): 0 + float32 entries, a float32 once one is added
        for (int i = 0; i < f; ++i)
            if (backs[i] != 0) {
                int kind = side_d ? i : i + f;
                if (v.is_strong[kind]) {
                    strong += backs[i];
                    any = true;
                }
            }
        if (any && strong != 0) return f32(-6.0f * strong);
        return py(threat ? 8.0 : 2.0);
    }

    Num flex_value(int a, int k, int effect, int n, bool near_out) const {
        const float *power = obs + v.power_start;
        float others_green = 0;
        for (int i = 1; i < n; ++i) others_green += power[i];
        Num value = py(0.0);
        if (v.flip_icon[k]) value = add(value, py(power[0] == 0 ? 4.0 : (others_green != 0 ? -3.0 : 0.0)));
        if (effect == v.wild_all_flip) {
            float nm1 = static_cast<float>(n - 1);
            float t = 4.0f * (others_green - (nm1 - others_green)) / static_cast<float>(std::max(n - 1, 1)) +
                      (power[0] == 0 ? 6.0f : -6.0f);
            value = add(value, f32(t));
        }
        if (!v.is_flex(a)) return value;
        value = add(value, py(-6.0));
        if (effect == v.wild_all_draw)
            value = add(value, py(14.0 + 4.0 * (n - 2)));
        else if (effect == v.wild_target_draw_two || effect == v.wild_draw_four)
            value = add(value, py(14.0 + (near_out ? 8.0 : 0.0)));
        else if (effect == v.flex_draw_two)
            value = add(value, py(n == 2 ? -8.0 : 2.0 * (n - 1) - 2.0));
        else if (effect == v.flex_skip || effect == v.flex_reverse)
            value = add(value, py(n == 2 ? -10.0 : (effect == v.flex_skip ? 4.0 : 1.0)));
        return value;
    }

    int choose_play(const std::vector<int> &plays) const {
        if (plays.empty()) throw std::runtime_error("heuristic: no card play to choose from");
        Counts counts = colour_counts(v.hand_start);
        bool threat = next_opponent_size() <= 2;
        int n_hand = hand_total();
        bool has_power = v.power_start >= 0;
        int n = 0;
        bool near_out = false;
        if (has_power) {
            n = num_players();
            int fewest = size_of(1);
            for (int off = 1; off < n; ++off) fewest = std::min(fewest, size_of(off));
            near_out = threat || (n > 1 && fewest <= 2);
        }
        int best = plays[0];
        Num best_score = py(-INFINITY);
        for (int a : plays) {
            int k = v.kind_of(a);
            int effect = v.effect_of[k];
            Num score = py(0.0);
            if (v.is_wild[k]) {
                score = py(-30.0);
                if (v.is_attacking[k])
                    score = add(score, py(threat ? 25.0 : -5.0));
                else if (effect == v.optimus)
                    score = add(score, py(n_hand >= 4 ? 6.0 : 0.0));
            } else {
                int c = v.colour_of[k];
                score = add(score, py(2.0 * counts[c]));
                score = add(score, py(0.1 * v.points_of[k]));
                if (v.is_tempo[k]) {
                    score = add(score, py(threat ? 12.0 : 1.0));
                    if (v.is_draw[k]) score = add(score, py(3.0));
                }
            }
            if (has_power) score = add(score, flex_value(a, k, effect, n, near_out));
            if (effect == v.flip)
                score = add(score, flip_value(threat));
            else if (effect == v.discard_all)
                score = add(score, py(4.0 * (counts[v.colour_of[k]] - 1)));
            if (n_hand <= 2 && v.is_wild[k]) score = add(score, py(40.0));
            score = add(score, py(rng_random(rng) * 0.01));
            if (greater(score, best_score)) best = a, best_score = score;
        }
        return best;
    }

    int choose_response(const std::vector<int> &plays) const {
        if (v.hit_order[v.kind_of(plays.at(0))] < 0) return choose_play(plays);
        // min by (order, a random number drawn per play in order): the first smallest
        int best = -1;
        int best_order = 0;
        double best_r = 0;
        for (int a : plays) {
            int order = v.hit_order[v.kind_of(a)];
            if (order < 0) throw std::runtime_error("heuristic: a hit answer that is not a hit card");
            double r = rng_random(rng);
            if (best < 0 || order < best_order || (order == best_order && r < best_r)) best = a, best_order = order, best_r = r;
        }
        return best;
    }

    int choose_placement(const std::vector<int> &plays) const {
        Counts counts = colour_counts(v.hand_start);
        int best = plays.at(0);
        double best_score = -INFINITY;
        for (int k : plays) {  // indexed by the action id, as in Python (no FLEX plays in Flip)
            double score = v.is_wild.at(k) ? -100.0 : -3.0 * counts[v.colour_of.at(k)] + 0.1 * v.points_of.at(k);
            if (score > best_score) best = k, best_score = score;
        }
        return best;
    }

    int choose_target() const {
        std::vector<std::pair<int, int>> options;
        for (int i = 0; i < v.num_targets; ++i)
            if (mask[v.target0 + i]) options.emplace_back(v.target0 + i, i + 1);
        if (v.self_target >= 0 && mask[v.self_target]) options.emplace_back(v.self_target, 0);
        if (v.effect_of[argmax_block(v.top_start, v.num_kinds)] == v.megatron) {
            double lowest = 10;  // min(numbers, default=10)
            bool any = false;
            for (int k = 0; k < v.num_kinds; ++k)
                if (obs[v.hand_start + k] != 0 && v.effect_of[k] == v.number_effect) {
                    lowest = any ? std::min(lowest, v.points_of[k]) : v.points_of[k];
                    any = true;
                }
            if (lowest > 5) {  // max by (hand size, a random number per option in order): the first largest
                if (options.empty()) throw std::runtime_error("heuristic: no target to choose from");
                int best = -1, best_size = 0;
                double best_r = 0;
                for (const auto &o : options) {
                    int size = size_of(o.second);
                    double r = rng_random(rng);
                    if (best < 0 || size > best_size || (size == best_size && r > best_r))
                        best = o.first, best_size = size, best_r = r;
                }
                return best;
            }
        }
        return choose_target_fewest(v, obs, mask, rng);
    }

    int choose_colour() const {
        Counts held = colour_counts(v.hand_start), seen = colour_counts(v.discard_start);
        int best = 0;
        double best_value = 0;
        for (int c = 0; c < v.num_colours; ++c) {  // held * 100 - seen + random(len(held)) * 0.01, argmax
            double value = held[c] * 100 - seen[c] + rng_random(rng) * 0.01;
            if (c == 0 || value > best_value) best = c, best_value = value;
        }
        return best;
    }

    bool should_challenge() const {
        int n = num_players();
        int offender = size_of((((-direction()) % n) + n) % n);
        double p_colour = 1.0 - std::pow(0.75, static_cast<double>(std::max(offender, 0)));
        return 0.5 * p_colour > 0.2;
    }

    bool play_drawn(int kind) const {
        if (!v.is_wild[kind]) return true;
        return hand_total() <= 3 || next_opponent_size() <= 2;
    }

    int act() const {
        thread_local std::vector<int> legal, plays;  // reused row after row: no allocation per decision
        const int phase = read_row(v, obs, mask, legal, plays, "heuristic");
        if (legal.size() == 1) return legal[0];
        switch (phase) {
            case R_COLOUR: return v.colour0 + choose_colour();
            case R_UNO_CALL: return v.call;
            case R_CATCH: return v.catch_;
            case R_CHALLENGE: return should_challenge() ? v.challenge : v.accept;
            case R_TARGET: return choose_target();
            case R_KEEP: {
                int a = choose_play(plays);
                return play_drawn(v.kind_of(a)) ? a : v.pass;
            }
            case R_OPTIMUS: return plays.empty() ? v.pass : choose_placement(plays);
            case R_JUMP: return plays.at(0);
            case R_STACK:
                if (!plays.empty()) return choose_response(plays);
                return (mask[v.challenge] && should_challenge()) ? v.challenge : v.accept;
            case R_MULTI: return plays.empty() ? v.pass : choose_play(plays);
            default:
                if (!plays.empty()) return choose_play(plays);
                return mask[v.draw] ? v.draw : legal[0];
        }
    }
};

int act_random(int num_actions, const int8_t *mask, bitgen_t *rng) {
    // legal[pick(count)] without building the list: count the legal ids, then walk to the picked one
    int count = 0;
    for (int a = 0; a < num_actions; ++a) count += mask[a] != 0;
    if (count == 0) throw std::runtime_error("random: the mask has no legal action");
    int left = pick(rng, count);
    for (int a = 0;; ++a)
        if (mask[a] && left-- == 0) return a;
}

using Rows = py::array_t<float, py::array::c_style>;
using Masks = py::array_t<int8_t, py::array::c_style>;
using Actions = py::array_t<int64_t, py::array::c_style>;

// Every row of obs and mask decided in order by decide(row, mask row, generator), after the shapes are checked.
template <typename Decide>
void decide_rows(const char *name, const RuleView &v, Rows &obs, Masks &mask, const py::object &generator, Actions &out,
                 Decide decide) {
    if (obs.ndim() != 2 || mask.ndim() != 2 || out.ndim() != 1 || obs.shape(0) != mask.shape(0) ||
        out.shape(0) != obs.shape(0) || obs.shape(1) != v.obs_size || mask.shape(1) != v.num_actions)
        throw std::invalid_argument(std::string(name) + ": expected obs (R, " + std::to_string(v.obs_size) +
                                    ") float32, mask (R, " + std::to_string(v.num_actions) +
                                    ") int8 and out (R,) int64, C-contiguous");
    bitgen_t *rng = bitgen_of(generator);
    int64_t *dst = out.mutable_data();
    for (py::ssize_t r = 0; r < obs.shape(0); ++r)
        dst[r] = decide(obs.data() + r * v.obs_size, mask.data() + r * v.num_actions, rng);
}

}  // namespace

void bind_agents(py::module_ &m) {
    py::class_<RuleView>(m, "RuleView", "The layouts a rule-based agent reads (agents/view.py), checked on entry.")
        .def(py::init<const py::dict &>());
    m.def(
        "act_greedy",
        [](const RuleView &v, Rows obs, Masks mask, py::object generator, Actions out) {
            decide_rows("act_greedy", v, obs, mask, generator, out, [&v](const float *o, const int8_t *mk, bitgen_t *rng) {
                return act_greedy(v, o, mk, rng);
            });
        },
        "GreedyAgent.act for every row, in order, drawing from its Generator; writes out.");
    m.def(
        "act_heuristic",
        [](const RuleView &v, Rows obs, Masks mask, py::object generator, Actions out) {
            decide_rows("act_heuristic", v, obs, mask, generator, out, [&v](const float *o, const int8_t *mk, bitgen_t *rng) {
                return Heuristic{v, o, mk, rng}.act();
            });
        },
        "HeuristicAgent.act for every row, in order, drawing from its Generator; writes out.");
    m.def(
        "act_random",
        [](py::array_t<int8_t, py::array::c_style> mask, py::object generator, py::array_t<int64_t, py::array::c_style> out) {
            if (mask.ndim() != 2 || out.ndim() != 1 || out.shape(0) != mask.shape(0))
                throw std::invalid_argument("act_random: expected mask (R, A) int8 and out (R,) int64, C-contiguous");
            bitgen_t *rng = bitgen_of(generator);
            const int A = static_cast<int>(mask.shape(1));
            const int8_t *mk = mask.data();
            int64_t *dst = out.mutable_data();
            for (py::ssize_t r = 0; r < mask.shape(0); ++r) dst[r] = act_random(A, mk + r * A, rng);
        },
        "RandomAgent.act for every row, in order, drawing from its Generator; writes out.");
}
