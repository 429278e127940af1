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
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "binding.hpp"
#include "random.hpp"

namespace py = pybind11;
using namespace uno;

namespace {

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
        // every index read below must lie inside the row and the mask
        auto inside = [](int start, int size, int limit) { return start >= 0 && size >= 0 && start + size <= limit; };
        const int n = num_kinds;
        if (n <= 0 || static_cast<int>(colour_of.size()) != n || static_cast<int>(is_wild.size()) != n ||
            static_cast<int>(effect_of.size()) != n || static_cast<int>(points_of.size()) != n ||
            phase_of_slot.empty() || max_players < 2 || num_colours <= 0 ||
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
    }

    int kind_of(int action) const { return action < num_kinds ? action : action - flex0; }
    bool is_flex(int action) const { return action >= num_kinds; }
};

int pick(bitgen_t *rng, int n) { return static_cast<int>(rng_integers(rng, n)); }

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
    std::vector<double> counts(v.num_colours, 0.0);
    for (int k = 0; k < v.num_kinds; ++k)
        if (!v.is_wild[k]) counts[v.colour_of[k]] += obs[v.hand_start + k];
    double most = counts[0];
    for (double c : counts) most = c > most ? c : most;
    std::vector<int> best;
    for (int c = 0; c < v.num_colours; ++c)
        if (counts[c] == most) best.push_back(c);
    return best[pick(rng, static_cast<int>(best.size()))];
}

// _RuleBased.choose_target: the opponent with the fewest cards; ties at random (integers(len(best))).
int choose_target(const RuleView &v, const float *obs, const int8_t *mask, bitgen_t *rng) {
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
    std::vector<int> legal, plays;
    for (int a = 0; a < v.num_actions; ++a)
        if (mask[a]) {
            legal.push_back(a);
            if (a < v.draw) plays.push_back(a);
        }
    if (legal.empty()) throw std::runtime_error("greedy: the mask has no legal action");
    if (legal.size() == 1) return legal[0];
    const float *ph = obs + v.phase_start;
    int slot = 0;  // np.argmax: the first largest entry
    for (int i = 1; i < static_cast<int>(v.phase_of_slot.size()); ++i)
        if (ph[i] > ph[slot]) slot = i;
    switch (v.phase_of_slot[slot]) {
        case R_COLOUR: return v.colour0 + choose_colour(v, obs, rng);
        case R_UNO_CALL: return v.call;
        case R_CATCH: return v.catch_;
        case R_CHALLENGE: return v.accept;  // greedy never challenges
        case R_TARGET: return choose_target(v, obs, mask, rng);
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

int act_random(int num_actions, const int8_t *mask, bitgen_t *rng) {
    std::vector<int> legal;
    for (int a = 0; a < num_actions; ++a)
        if (mask[a]) legal.push_back(a);
    if (legal.empty()) throw std::runtime_error("random: the mask has no legal action");
    return legal[pick(rng, static_cast<int>(legal.size()))];
}

}  // namespace

void bind_agents(py::module_ &m) {
    py::class_<RuleView>(m, "RuleView", "The layouts a rule-based agent reads (agents/view.py), checked on entry.")
        .def(py::init<const py::dict &>());
    m.def(
        "act_greedy",
        [](const RuleView &v, py::array_t<float, py::array::c_style> obs, py::array_t<int8_t, py::array::c_style> mask,
           py::object generator, py::array_t<int64_t, py::array::c_style> out) {
            if (obs.ndim() != 2 || mask.ndim() != 2 || out.ndim() != 1 || obs.shape(0) != mask.shape(0) ||
                out.shape(0) != obs.shape(0) || obs.shape(1) != v.obs_size || mask.shape(1) != v.num_actions)
                throw std::invalid_argument("act_greedy: expected obs (R, " + std::to_string(v.obs_size) +
                                            ") float32, mask (R, " + std::to_string(v.num_actions) +
                                            ") int8 and out (R,) int64, C-contiguous");
            bitgen_t *rng = bitgen_of(generator);
            const float *o = obs.data();
            const int8_t *mk = mask.data();
            int64_t *dst = out.mutable_data();
            for (py::ssize_t r = 0; r < obs.shape(0); ++r)
                dst[r] = act_greedy(v, o + r * v.obs_size, mk + r * v.num_actions, rng);
        },
        "GreedyAgent.act for every row, in order, drawing from its Generator; writes out.");
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
