// The binding: uno_env.core._core, the compiled engine's Python face (used by uno_env/core/native.py).
//
// `Rules` is built once per Game from its tables (a dict: uno_env/core/native.py, rules_tables);
// `CoreState` holds one game and a reference to its numpy Generator, whose bit generator the core draws
// from. States go to and from plain dicts whose keys are uno_env.state.State's slots, so a Python State can
// be built from a native one (to_spec, sample_hidden) and the other way round (state_from_spec).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <string>

#include "binding.hpp"
#include "engine.hpp"
#include "random.hpp"

namespace py = pybind11;
using namespace uno;

void bind_batch(py::module_ &m);  // batch.cpp: many games stepped per call (uno_env/vector.py's native path)
void bind_agents(py::module_ &m);  // agents.cpp: random and greedy deciding many rows per call
void bind_sample(py::module_ &m);  // sample.cpp: the hidden-information sampler (uno_env/sampling.py)
void bind_search(py::module_ &m);  // search.cpp: IS-MCTS's tree loop (agents/search.py)

namespace uno {

namespace {

using u128 = unsigned __int128;

py::object py_u128(u128 v) {
    py::int_ hi(static_cast<uint64_t>(v >> 64)), lo(static_cast<uint64_t>(v));
    return hi.attr("__lshift__")(64).attr("__or__")(lo);
}

u128 u128_of(const py::handle &v) {
    py::int_ mask(~uint64_t{0});
    auto lo = v.attr("__and__")(mask).cast<uint64_t>();
    auto hi = v.attr("__rshift__")(64).cast<uint64_t>();
    return (static_cast<u128>(hi) << 64) | lo;
}

}  // namespace

py::object numpy_generator(const Pcg64 &p) {
    auto random = py::module_::import("numpy.random");
    py::object bitgen = random.attr("PCG64")(0);  // seeded with 0, not from OS entropy: overwritten at once
    auto *bg = static_cast<bitgen_t *>(PyCapsule_GetPointer(bitgen.attr("capsule").ptr(), "BitGenerator"));
    if (bg == nullptr) throw py::error_already_set();
    if (!store_numpy_pcg64(p, bg)) {
        py::dict inner, state;
        inner["state"] = py_u128(p.state);
        inner["inc"] = py_u128(p.inc);
        state["bit_generator"] = "PCG64";
        state["state"] = inner;
        state["has_uint32"] = p.has_uint32;
        state["uinteger"] = p.uinteger;
        bitgen.attr("state") = state;
    }
    return random.attr("Generator")(bitgen);
}

py::object copy_generator(const RngSlot &slot, const py::object &generator) {
    Pcg64 copy;
    if (slot.owned) return numpy_generator(slot.own);
    if (slot.ptr != nullptr && load_numpy_pcg64(slot.ptr, copy)) return numpy_generator(copy);
    return py::module_::import("uno_env.state").attr("_copy_generator")(generator);  // another bit generator
}

// Attack's launcher generator: a numpy Generator owned by the state (through launcher_owner)
void own_launcher(State &s, py::object generator) {
    s.launcher_rng = bitgen_of(generator);
    s.launcher_owner = std::shared_ptr<void>(new py::object(std::move(generator)), [](void *p) {
        py::gil_scoped_acquire gil;
        delete static_cast<py::object *>(p);
    });
}

std::unique_ptr<CoreState> clone_onto(const CoreState &c, py::object generator, py::object launcher) {
    auto cs = std::make_unique<CoreState>();
    cs->s = c.s;
    attach(*cs, std::move(generator));
    cs->s.launcher_rng = nullptr;
    cs->s.launcher_owner.reset();
    if (!launcher.is_none()) own_launcher(cs->s, std::move(launcher));
    return cs;
}

std::unique_ptr<CoreState> clone_seeded(const CoreState &c, bitgen_t *seeder) {
    auto cs = std::make_unique<CoreState>();
    cs->s = c.s;
    cs->s.rng.seed(rng_integers_2_63(seeder));
    if (c.s.launcher_rng != nullptr) {
        cs->s.launcher_owner.reset();
        cs->s.launcher_rng.seed(rng_integers_2_63(seeder));
    }
    return cs;
}

py::object generator_of(CoreState &cs) {
    if (cs.s.rng.owned) attach(cs, numpy_generator(cs.s.rng.own));
    return cs.generator;
}

void check_pcg64_layout() {
    auto random = py::module_::import("numpy.random");
    py::object generator = random.attr("Generator")(random.attr("PCG64")(20261206));
    generator.attr("integers")(1000, py::arg("dtype") = "int32");  // leaves half a 64-bit draw buffered
    py::dict state = generator.attr("bit_generator").attr("state");
    py::dict inner = state["state"];
    check_numpy_pcg64(bitgen_of(generator), u128_of(inner["state"]), u128_of(inner["inc"]),
                      state["has_uint32"].cast<int>(), state["uinteger"].cast<uint32_t>());
}

}  // namespace uno

namespace {

template <typename T>
std::vector<T> vec(const py::dict &d, const char *key) {
    return d[key].cast<std::vector<T>>();
}

std::vector<int> ivec(const py::dict &d, const char *key) { return vec<int>(d, key); }

std::vector<uint8_t> bvec(const py::dict &d, const char *key) {
    std::vector<uint8_t> out;
    for (auto v : d[key]) out.push_back(v.cast<bool>() ? 1 : 0);
    return out;
}

Rules rules_from(const py::dict &d) {
    Rules r;
    r.num_players = d["num_players"].cast<int>();
    r.num_kinds = d["num_kinds"].cast<int>();
    r.hand_size = d["hand_size"].cast<int>();
    r.colour_of = ivec(d, "colour_of");
    r.rank_of = ivec(d, "rank_of");
    r.effect_of = ivec(d, "effect_of");
    r.points_of = ivec(d, "points_of");
    r.is_wild = bvec(d, "is_wild");
    r.restricted = bvec(d, "restricted");
    r.multi_effect = bvec(d, "multi_effect");
    r.kinds_of_colour = d["kinds_of_colour"].cast<std::vector<std::vector<int>>>();
    r.kinds_of_rank = d["kinds_of_rank"].cast<std::vector<std::vector<int>>>();
    r.wild_kinds = ivec(d, "wild_kinds");
    r.response_kinds = ivec(d, "response_kinds");
    r.deck_array = ivec(d, "deck_array");
    r.handler = ivec(d, "handler");
    r.starter = d["starter"].cast<int>();
    r.flex = d["flex"].cast<bool>();
    r.flexable_counts = d["flexable_counts"].cast<bool>();
    r.self_target_allowed = d["self_target_allowed"].cast<bool>();
    r.flex_w4f_restricted = d["flex_w4f_restricted"].cast<bool>();
    r.flip_icon = bvec(d, "flip_icon");
    r.flex_target = bvec(d, "flex_target");
    r.flex_restricted = bvec(d, "flex_restricted");
    r.kinds_of_flex_colour = d["kinds_of_flex_colour"].cast<std::vector<std::vector<int>>>();
    r.flex_playable_on = d["flex_playable_on"].cast<std::vector<std::vector<int>>>();
    r.flex_wild_kinds = ivec(d, "flex_wild_kinds");
    r.attack = d["attack"].cast<bool>();
    if (r.attack) {
        r.empty_press_progress = d["empty_press_progress"].cast<bool>();
        r.mass_hit_after_first = d["mass_hit_after_first"].cast<bool>();
        r.reverse_starter_right = d["reverse_starter_right"].cast<bool>();
        r.launcher_model = d["launcher_model"].cast<int>();
        r.max_burst = d["max_burst"].cast<int>();
        r.fixed_k = d["fixed_k"].cast<int>();
        r.wild_attack_resume = d["wild_attack_resume"].cast<int>();
        r.p_fire = d["p_fire"].cast<double>();
        r.q = d["q"].cast<double>();
        r.cumulative = d["cumulative"].cast<std::vector<double>>();
        if (r.launcher_model < GEOMETRIC || r.launcher_model > SCRIPTED || r.wild_attack_resume < 0 ||
            r.wild_attack_resume > NEXT_AFTER_TARGET)
            throw std::invalid_argument("rules tables: an unknown launcher model or Wild Attack resume rule");
    }
    r.attack_kind = bvec(d, "attack_kind");
    r.flip = d["flip"].cast<bool>();
    r.duel_kind = bvec(d, "duel_kind");
    if (r.flip) {
        r.rng_pairing = d["rng_pairing"].cast<bool>();
        r.megatron_missing_loses = d["megatron_missing_loses"].cast<bool>();
        r.optimus_place_requires_match = d["optimus_place_requires_match"].cast<bool>();
        r.last_card_flip_resolves = d["last_card_flip_resolves"].cast<bool>();
        r.until_wild_satisfies = d["until_wild_satisfies"].cast<bool>();
        r.fixed_pairing = ivec(d, "fixed_pairing");
        r.a_faces = ivec(d, "a_faces");
        r.d_faces = ivec(d, "d_faces");
        r.number_kinds = ivec(d, "number_kinds");
        r.number_value = ivec(d, "number_value");
        if (r.a_faces.size() != r.d_faces.size() || r.number_value.size() != static_cast<std::size_t>(r.num_kinds))
            throw std::invalid_argument("rules tables: Flip's faces do not pair");
        long long codes = static_cast<long long>(r.num_kinds) * r.num_kinds;
        for (int c : r.fixed_pairing)
            if (c < 0 || c >= codes) throw std::invalid_argument("rules tables: a physical card out of range");
    }
    r.draw = d["draw"].cast<int>();
    r.colour0 = d["colour0"].cast<int>();
    r.target0 = d["target0"].cast<int>();
    r.self_target = d["self_target"].cast<int>();
    r.flex0 = d["flex0"].cast<int>();
    r.challenge = d["challenge"].cast<int>();
    r.accept = d["accept"].cast<int>();
    r.call = d["call"].cast<int>();
    r.no_call = d["no_call"].cast<int>();
    r.catch_ = d["catch"].cast<int>();
    r.pass = d["pass"].cast<int>();
    r.num_actions = d["num_actions"].cast<int>();
    r.uno_asks = d["uno_asks"].cast<bool>();
    r.uno_decide = d["uno_decide"].cast<bool>();
    r.bluffing = d["bluffing"].cast<bool>();
    r.winner_takes = d["winner_takes"].cast<bool>();
    r.match = d["match"].cast<bool>();
    r.elimination = d["elimination"].cast<bool>();
    r.reverse_as_skip = d["reverse_as_skip"].cast<bool>();
    r.draw_until_playable = d["draw_until_playable"].cast<bool>();
    r.jump_in = d["jump_in"].cast<bool>();
    r.jump_in_wild = d["jump_in_wild"].cast<bool>();
    r.multi_play = d["multi_play"].cast<bool>();
    r.multi_any_legal = d["multi_any_legal"].cast<bool>();
    r.multi_any_subset = d["multi_any_subset"].cast<bool>();
    r.madness = d["madness"].cast<bool>();
    r.madness_free = d["madness_free"].cast<bool>();
    r.wild_counts_as_match = d["wild_counts_as_match"].cast<bool>();
    r.target_score = d["target_score"].cast<int>();
    r.max_steps = d["max_steps"].cast<int>();
    r.wild_miss_draw = d["wild_miss_draw"].cast<int>();
    r.uno_penalty = d["uno_penalty"].cast<int>();
    r.challenge_fail_extra = d["challenge_fail_extra"].cast<int>();
    r.dealer_rotation = d["dealer_rotation"].cast<int>();
    r.stacking = d["stacking"].cast<int>();
    auto n = static_cast<std::size_t>(r.num_kinds);
    if (r.colour_of.size() != n || r.rank_of.size() != n || r.effect_of.size() != n || r.points_of.size() != n ||
        r.is_wild.size() != n || r.restricted.size() != n || r.multi_effect.size() != n || r.handler.size() != n ||
        r.flip_icon.size() != n || r.flex_target.size() != n || r.flex_restricted.size() != n ||
        r.attack_kind.size() != n || r.duel_kind.size() != n)
        throw std::invalid_argument("rules tables: every per-kind table must have num_kinds entries");
    if (r.kinds_of_colour.size() != 4 || r.kinds_of_flex_colour.size() != 4 ||
        (r.flex && r.flex_playable_on.size() != n * 4))
        throw std::invalid_argument("rules tables: four colours, and one FLEX table row per top card and colour");
    for (int h : r.handler)
        if (h < 0 || h >= NUM_HANDLERS) throw std::invalid_argument("rules tables: an unknown effect handler");
    auto kind_ok = [&](int k) { return k >= 0 && k < r.num_kinds; };
    auto check = [&](const std::vector<int> &v) {
        for (int k : v)
            if (!kind_ok(k)) throw std::invalid_argument("rules tables: a card kind out of range");
    };
    for (const auto *lists : {&r.kinds_of_colour, &r.kinds_of_rank, &r.kinds_of_flex_colour, &r.flex_playable_on})
        for (const auto &v : *lists) check(v);
    check(r.wild_kinds);
    check(r.response_kinds);
    check(r.deck_array);
    check(r.flex_wild_kinds);
    check(r.a_faces);
    check(r.d_faces);
    check(r.number_kinds);
    for (int k = 0; k < r.num_kinds; ++k)
        if (r.rank_of[k] < 0 || r.rank_of[k] >= static_cast<int>(r.kinds_of_rank.size()) || r.colour_of[k] < -1 ||
            r.colour_of[k] >= 4)
            throw std::invalid_argument("rules tables: a rank or colour out of range");
    std::size_t cards = r.flip ? r.a_faces.size() : r.deck_array.size();
    if (r.num_players < 2 || r.hand_size * r.num_players > static_cast<int>(cards))
        throw std::invalid_argument("rules tables: the deck cannot deal every seat a hand");
    build_tables(r);
    return r;
}

// ------------------------------------------------------------------ states as dicts (State's slot names)

py::tuple step_tuple(const Step &st) {
    py::list items;
    int vals[5] = {st.code, st.a, st.b, st.c, st.d};
    for (int i = 0; i < st.len; ++i) {
        if (st.code == AFTER_PLACE && i == 4)
            items.append(py::bool_(vals[i] != 0));
        else
            items.append(vals[i]);
    }
    return py::tuple(items);
}

Step step_from(const py::handle &h) {
    auto t = h.cast<py::tuple>();
    Step st;
    st.len = static_cast<int>(t.size());
    if (st.len < 1 || st.len > 5) throw std::invalid_argument("agenda step: 1 to 5 items");
    int *vals[5] = {&st.code, &st.a, &st.b, &st.c, &st.d};
    for (int i = 0; i < st.len; ++i) *vals[i] = py::int_(t[i]).cast<int>();
    if (st.code < AFTER_PLACE || st.code > OPTIMUS_PLACE_STEP)
        throw std::invalid_argument("agenda step: unknown step code");
    return st;
}

py::object opt_int(int v) { return v < 0 ? py::object(py::none()) : py::object(py::int_(v)); }

// The launcher's generator as Python sees it: the core's own is handed over as a numpy Generator the first
// time it is asked for, and both draw from that one from then on.
py::object launcher_generator(CoreState &cs) {
    State &s = cs.s;
    if (s.launcher_rng.owned) own_launcher(s, numpy_generator(s.launcher_rng.own));
    if (!s.launcher_owner) return py::none();
    return *static_cast<py::object *>(s.launcher_owner.get());
}

py::dict to_dict(CoreState &cs) {
    const State &s = cs.s;
    py::dict d;
    d["num_players"] = s.n;
    d["hands"] = s.hands;
    d["hand_size"] = s.hand_size;
    d["draw_pile"] = s.draw_pile;
    d["discard"] = s.discard;
    d["colour"] = s.colour;
    d["direction"] = s.direction;
    d["turn_seat"] = s.turn_seat;
    d["current_seat"] = s.current_seat;
    d["phase"] = s.phase;
    py::list agenda;
    for (const auto &st : s.agenda) agenda.append(step_tuple(st));
    d["agenda"] = agenda;
    d["waiting"] = s.has_waiting ? py::object(step_tuple(s.waiting)) : py::object(py::none());
    d["next_seat"] = s.next_seat;
    if (s.has_penalty) {
        const Penalty &p = s.penalty;
        py::object chal = p.has_challenge ? py::object(py::make_tuple(p.offender, py::bool_(p.guilty)))
                                          : py::object(py::none());
        d["penalty"] = py::make_tuple(p.total, p.target, p.last_effect, chal, p.resume, p.until, p.origin, p.cards,
                                      py::bool_(p.deflected));
    } else {
        d["penalty"] = py::none();
    }
    d["drawn_kind"] = s.drawn_kind;
    d["multi"] = s.has_multi ? py::object(py::make_tuple(s.multi_rank, s.multi_placed)) : py::object(py::none());
    d["jump"] = s.has_jump ? py::object(py::make_tuple(s.jump_kind, s.jump_placer)) : py::object(py::none());
    d["ref_colour"] = s.ref_colour;
    d["colour_declarer"] = s.colour_declarer;
    py::list reveals;
    for (const auto &r : s.reveals)
        reveals.append(r.set ? py::object(py::make_tuple(r.seat, py::tuple(py::cast(r.counts))))
                             : py::object(py::none()));
    d["reveals"] = reveals;
    d["winner"] = opt_int(s.winner);
    d["is_over"] = s.is_over;
    d["truncated"] = s.truncated;
    d["blocked"] = s.blocked;
    d["scores"] = s.scores;
    d["round_points"] = s.round_points;
    d["round_winner"] = opt_int(s.round_winner);
    d["dealer"] = s.dealer;
    d["round_index"] = s.round_index;
    d["steps"] = s.steps;
    d["idle_turns"] = s.idle_turns;
    d["progress"] = s.progress;
    py::list power, eliminated;
    for (auto v : s.power) power.append(py::bool_(v != 0));
    for (auto v : s.eliminated) eliminated.append(py::bool_(v != 0));
    d["power"] = power;
    d["eliminated"] = eliminated;
    d["flex_play"] = s.flex_play;
    d["target"] = s.target;
    d["side"] = s.side;
    d["voids"] = s.voids;
    d["last_played"] = s.last_played;
    py::list shown;
    for (const auto &e : s.shown) {
        py::list entry;
        entry.append(e.observer);
        entry.append(e.holder);
        entry.append(py::cast(e.counts));
        shown.append(entry);
    }
    d["shown"] = shown;
    d["legal"] = s.legal_valid ? py::object(py::cast(s.legal)) : py::object(py::none());
    d["launcher_rng"] = launcher_generator(cs);
    d["launcher_script"] = s.launcher_script;
    d["deck_cards"] = py::tuple(py::cast(s.deck_cards));
    d["physical_draw"] = s.physical_draw;
    d["physical_discard"] = s.physical_discard;
    d["physical_hands"] = s.physical_hands;
    d["duel"] = s.has_duel ? py::object(py::make_tuple(s.duel_kind, s.duel_p, s.duel_t,
                                                       py::tuple(py::cast(s.duel_shown_p)),
                                                       py::tuple(py::cast(s.duel_shown_t))))
                           : py::object(py::none());
    return d;
}

void check_seat(int v, int n, const char *what, bool allow_none = false) {
    if ((allow_none && v == -1) || (v >= 0 && v < n)) return;
    throw std::invalid_argument(std::string("state: ") + what + " is not a seat of the table");
}

void from_dict(const Rules &g, CoreState &cs, const py::dict &d) {
    State &s = cs.s;
    s.resize(g);
    int n = g.num_players, k = g.num_kinds;
    if (d["num_players"].cast<int>() != n) throw std::invalid_argument("state: player count differs from the rules'");
    s.hands = d["hands"].cast<std::vector<std::vector<int>>>();
    if (static_cast<int>(s.hands.size()) != n) throw std::invalid_argument("state: one hand per seat");
    for (auto &h : s.hands)
        if (static_cast<int>(h.size()) != k) throw std::invalid_argument("state: a hand holds one count per kind");
    s.hand_size = ivec(d, "hand_size");
    s.draw_pile = ivec(d, "draw_pile");
    s.discard = ivec(d, "discard");
    for (int c : s.draw_pile)
        if (c < 0 || c >= k) throw std::invalid_argument("state: a draw-pile card is not a kind of the deck");
    for (int c : s.discard)
        if (c < 0 || c >= k) throw std::invalid_argument("state: a discard card is not a kind of the deck");
    s.colour = d["colour"].cast<int>();
    s.direction = d["direction"].cast<int>();
    s.turn_seat = d["turn_seat"].cast<int>();
    s.current_seat = d["current_seat"].cast<int>();
    s.phase = d["phase"].cast<int>();
    if (s.phase < 0 || s.phase >= NUM_PHASES || (s.phase == OPTIMUS_PLACE && !g.flip))
        throw std::invalid_argument("state: a phase the compiled core does not handle");
    check_seat(s.turn_seat, n, "turn_seat");
    check_seat(s.current_seat, n, "current_seat", true);
    s.agenda.clear();
    for (auto h : d["agenda"]) s.agenda.push_back(step_from(h));
    s.has_waiting = !d["waiting"].is_none();
    if (s.has_waiting) s.waiting = step_from(d["waiting"]);
    s.next_seat = d["next_seat"].cast<int>();
    s.has_penalty = !d["penalty"].is_none();
    if (s.has_penalty) {
        auto t = d["penalty"].cast<py::tuple>();
        Penalty &p = s.penalty;
        p.total = t[0].cast<int>();
        p.target = t[1].cast<int>();
        check_seat(p.target, n, "penalty target");
        p.last_effect = t[2].cast<int>();
        p.has_challenge = !t[3].is_none();
        if (p.has_challenge) {
            auto c = t[3].cast<py::tuple>();
            p.offender = c[0].cast<int>();
            check_seat(p.offender, n, "challenge offender");
            p.guilty = c[1].cast<bool>();
        }
        p.resume = t[4].cast<int>();
        p.until = t[5].cast<int>();
        p.origin = t[6].cast<int>();
        p.cards = t[7].cast<int>();
        p.deflected = t[8].cast<bool>();
    }
    s.drawn_kind = d["drawn_kind"].cast<int>();
    s.has_multi = !d["multi"].is_none();
    if (s.has_multi) {
        auto m = d["multi"].cast<py::sequence>();
        s.multi_rank = m[0].cast<int>();
        s.multi_placed = m[1].cast<int>();
        if (s.multi_rank < 0 || s.multi_rank >= static_cast<int>(g.kinds_of_rank.size()))
            throw std::invalid_argument("state: multi-play rank out of range");
    }
    s.has_jump = !d["jump"].is_none();
    if (s.has_jump) {
        auto j = d["jump"].cast<py::tuple>();
        s.jump_kind = j[0].cast<int>();
        s.jump_placer = j[1].cast<int>();
        if (s.jump_kind < 0 || s.jump_kind >= k) throw std::invalid_argument("state: jump-in kind out of range");
    }
    s.ref_colour = d["ref_colour"].cast<int>();
    s.colour_declarer = d["colour_declarer"].cast<int>();
    int i = 0;
    for (auto r : d["reveals"]) {
        if (i >= n) throw std::invalid_argument("state: one reveal per seat");
        if (r.is_none()) {
            s.reveals[i] = Reveal{};
        } else {
            auto t = r.cast<py::tuple>();
            s.reveals[i] = Reveal{true, t[0].cast<int>(), t[1].cast<std::vector<int>>()};
        }
        ++i;
    }
    s.winner = d["winner"].is_none() ? -1 : d["winner"].cast<int>();
    s.is_over = d["is_over"].cast<bool>();
    s.truncated = d["truncated"].cast<bool>();
    s.blocked = d["blocked"].cast<bool>();
    s.scores = ivec(d, "scores");
    s.round_points = ivec(d, "round_points");
    s.round_winner = d["round_winner"].is_none() ? -1 : d["round_winner"].cast<int>();
    s.dealer = d["dealer"].cast<int>();
    s.round_index = d["round_index"].cast<int>();
    s.steps = d["steps"].cast<int>();
    s.idle_turns = d["idle_turns"].cast<int>();
    s.progress = d["progress"].cast<bool>();
    s.power = bvec(d, "power");
    s.eliminated = bvec(d, "eliminated");
    s.flex_play = d["flex_play"].cast<bool>();
    s.target = d["target"].cast<int>();
    s.side = d["side"].cast<int>();
    s.voids = ivec(d, "voids");
    s.last_played = ivec(d, "last_played");
    s.shown.clear();
    for (auto e : d["shown"]) {
        auto t = e.cast<py::sequence>();
        s.shown.push_back(Shown{t[0].cast<int>(), t[1].cast<int>(), t[2].cast<std::vector<int>>()});
    }
    s.legal_valid = false;
    s.launcher_rng = nullptr;
    s.launcher_owner.reset();
    if (d.contains("launcher_rng") && !d["launcher_rng"].is_none())
        own_launcher(s, py::reinterpret_borrow<py::object>(d["launcher_rng"]));
    s.launcher_script = d.contains("launcher_script") ? ivec(d, "launcher_script") : std::vector<int>{};
    for (int k : s.launcher_script)
        if (k < 0) throw std::invalid_argument("state: a scripted burst below 0");
    if (g.attack && s.launcher_rng == nullptr) throw std::invalid_argument("state: an Attack game needs its launcher");
    if (g.flip) {
        long long codes = static_cast<long long>(k) * k;
        auto codes_ok = [&](const std::vector<int> &v) {
            for (int c : v)
                if (c < 0 || c >= codes) throw std::invalid_argument("state: a physical card out of range");
        };
        s.deck_cards = ivec(d, "deck_cards");
        s.physical_draw = ivec(d, "physical_draw");
        s.physical_discard = ivec(d, "physical_discard");
        s.physical_hands = d["physical_hands"].cast<std::vector<std::vector<int>>>();
        codes_ok(s.deck_cards);
        codes_ok(s.physical_draw);
        codes_ok(s.physical_discard);
        if (static_cast<int>(s.physical_hands.size()) != n) throw std::invalid_argument("state: one physical hand per seat");
        for (const auto &h : s.physical_hands) codes_ok(h);
        if (s.physical_draw.size() != s.draw_pile.size() || s.physical_discard.size() != s.discard.size())
            throw std::invalid_argument("state: the physical piles must match the piles");
        if (s.side != 0 && s.side != 1) throw std::invalid_argument("state: side is 0 (A) or 1 (D)");
        s.has_duel = !d["duel"].is_none();
        if (s.has_duel) {
            auto t = d["duel"].cast<py::tuple>();
            s.duel_kind = t[0].cast<int>();
            s.duel_p = t[1].cast<int>();
            s.duel_t = t[2].cast<int>();
            s.duel_shown_p = t[3].cast<std::vector<int>>();
            s.duel_shown_t = t[4].cast<std::vector<int>>();
        }
    }
    if (static_cast<int>(s.hand_size.size()) != n || static_cast<int>(s.scores.size()) != n ||
        static_cast<int>(s.round_points.size()) != n || static_cast<int>(s.power.size()) != n ||
        static_cast<int>(s.eliminated.size()) != n || static_cast<int>(s.voids.size()) != n ||
        static_cast<int>(s.last_played.size()) != n)
        throw std::invalid_argument("state: a per-seat list does not have one entry per seat");
    if (!s.is_over && s.discard.empty()) throw std::invalid_argument("state: a game in progress needs a top card");
    if (s.colour < 0 || s.colour >= 4 || s.ref_colour < 0 || s.ref_colour >= 4)
        throw std::invalid_argument("state: colour out of range");
}

// The benchmark's policies (train/benchmark/contenders.py's chooser), each pick int(u * n) from one uniform
// draw as UniformPicker.pick makes it: "matched" to RLCard's random agent, or "uniform" over the legal ids.
int choose(const Rules &g, const std::vector<int> &legal, bitgen_t *picker, bool matched) {
    auto pick = [&](std::size_t n) { return legal[static_cast<std::size_t>(rng_random(picker) * n)]; };
    std::size_t n = legal.size();
    if (!matched) return pick(n);
    int last = legal.back();
    if (last == g.draw) return n > 1 ? pick(n - 1) : g.draw;
    if (last == g.pass) return legal[0];
    if (last == g.accept) return g.accept;
    return pick(n);
}

int play_out(const Rules &g, State &s, bitgen_t *picker, bool matched) {
    int decisions = 0;
    while (!s.is_over) {
        int action = choose(g, legal_actions(g, s), picker, matched);
        step(g, s, action);
        ++decisions;
    }
    return decisions;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "The compiled twin of the uno_env engine (Classic family); see uno_env/core/native.py.";
    m.attr("numpy_version") = UNO_CORE_NUMPY_VERSION;  // the numpy whose random library is linked in

    py::class_<Rules>(m, "Rules")
        .def(py::init(&rules_from), py::arg("tables"))
        .def_readonly("num_actions", &Rules::num_actions)
        .def_readonly("num_players", &Rules::num_players);

    py::class_<CoreState>(m, "CoreState")
        .def_property_readonly("current_seat", [](const CoreState &c) { return c.s.current_seat; })
        .def_property_readonly("phase_index", [](const CoreState &c) { return c.s.phase; })
        .def_property_readonly("is_over", [](const CoreState &c) { return c.s.is_over; })
        .def_property_readonly("winner", [](const CoreState &c) { return opt_int(c.s.winner); })
        .def_property_readonly("truncated", [](const CoreState &c) { return c.s.truncated; })
        .def_property_readonly("blocked", [](const CoreState &c) { return c.s.blocked; })
        .def_property_readonly("steps", [](const CoreState &c) { return c.s.steps; })
        .def_property_readonly("side", [](const CoreState &c) { return c.s.side; })
        .def_property_readonly("num_players", [](const CoreState &c) { return c.s.n; })
        .def_property_readonly("has_launcher", [](const CoreState &c) { return c.s.launcher_rng != nullptr; })
        .def_property_readonly("generator", &generator_of)
        .def_property_readonly("launcher_generator", &launcher_generator);
    check_pcg64_layout();

    bind_batch(m);
    bind_agents(m);
    bind_sample(m);
    bind_search(m);

    m.def("new_state", [](const Rules &g, py::object generator) {
        auto cs = std::make_unique<CoreState>();
        attach(*cs, std::move(generator));
        new_game(g, cs->s);
        return cs;
    });
    m.def("state_from_dict", [](const Rules &g, const py::dict &d, py::object generator) {
        auto cs = std::make_unique<CoreState>();
        from_dict(g, *cs, d);
        attach(*cs, std::move(generator));
        return cs;
    });
    m.def(
        "new_state_seeded",
        [](const Rules &g, uint64_t seed) {
            // Game.new_state(seed): numpy.random.Generator(PCG64(seed)), held by the core
            auto cs = std::make_unique<CoreState>();
            cs->s.rng.seed(seed);
            new_game(g, cs->s);
            return cs;
        },
        py::arg("rules"), py::arg("seed"));
    m.def("state_to_dict", &to_dict);
    m.def(
        "generator_copy", [](const CoreState &c) { return copy_generator(c.s.rng, c.generator); },
        "A new numpy Generator at the state's generator's position (the state's is not handed over).");
    m.def("clone", &clone_onto, py::arg("state"), py::arg("generator"), py::arg("launcher"),
          "A copy of a state drawing from `generator` (and its launcher from `launcher`, None: no launcher).");
    m.def(
        "clone_exact",
        [](const CoreState &c) {
            // Python's State.clone(): the generators copied exactly; in the core unless one is a Python one
            // of another kind than PCG64
            auto cs = std::make_unique<CoreState>();
            cs->s = c.s;
            if (!cs->s.rng.copy_of(c.s.rng)) attach(*cs, copy_generator(c.s.rng, c.generator));
            if (c.s.launcher_rng != nullptr) {
                cs->s.launcher_owner.reset();
                if (!cs->s.launcher_rng.copy_of(c.s.launcher_rng)) {
                    auto *owner = static_cast<py::object *>(c.s.launcher_owner.get());
                    own_launcher(cs->s, copy_generator(c.s.launcher_rng, *owner));
                }
            }
            return cs;
        },
        "An exact copy of a state, its generators copied too.");
    m.def(
        "clone_seeded", [](const CoreState &c, py::object seeder) { return clone_seeded(c, bitgen_of(seeder)); },
        "A copy of a state on new generators seeded from `seeder` (as sample_hidden seeds them).");
    m.def(
        "clone_many",
        [](const CoreState &c, int count) {
            // what a search inside the core pays per copy (bench search): `count` exact copies, one kept at a time
            if (count < 0) throw std::invalid_argument("clone_many: count must be >= 0");
            State copy;
            long long steps = 0;
            for (int i = 0; i < count; ++i) {
                copy = c.s;
                if (!copy.rng.copy_of(c.s.rng)) throw std::invalid_argument("clone_many: the state's generator is not a PCG64");
                if (c.s.launcher_rng != nullptr && !copy.launcher_rng.copy_of(c.s.launcher_rng))
                    throw std::invalid_argument("clone_many: the launcher's generator is not a PCG64");
                steps += copy.steps;
            }
            return steps;
        },
        py::arg("state"), py::arg("count"), "`count` exact copies of a state inside the core (bench search).");
    m.def("legal_actions", [](const Rules &g, CoreState &c) { return legal_actions(g, c.s); });
    m.def("legal_action_mask", [](const Rules &g, CoreState &c, py::array_t<int8_t> out) {
        if (out.ndim() != 1 || out.shape(0) != g.num_actions)
            throw std::invalid_argument("mask: a 1-d int8 array of num_actions entries is needed");
        auto m = out.mutable_unchecked<1>();
        for (py::ssize_t i = 0; i < m.shape(0); ++i) m(i) = 0;
        for (int a : legal_actions(g, c.s)) m(a) = 1;
    });
    m.def("step", [](const Rules &g, CoreState &c, int action) { return step(g, c.s, action); });
    m.def(
        "play_out",
        [](const Rules &g, CoreState &c, py::object picker, bool matched) {
            return play_out(g, c.s, bitgen_of(picker), matched);
        },
        "Play a game to its end in the core with the benchmark's policy; returns the decisions taken.");
    m.def(
        "play_games",
        [](const Rules &g, int games, py::object dealer, py::object picker, bool matched) {
            // whole games per call: each dealt from the next draws of `dealer` (one continuing stream)
            bitgen_t *deal = bitgen_of(dealer), *pick = bitgen_of(picker);
            State s;
            long long decisions = 0;
            for (int i = 0; i < games; ++i) {
                s = State{};
                s.rng = deal;
                new_game(g, s);
                decisions += play_out(g, s, pick, matched);
            }
            return decisions;
        },
        "Play `games` whole games in the core; returns the decisions taken.");
    m.def("play_random", [](const Rules &g, CoreState &c, py::object chooser_generator) {
        // whole games in the core: uniformly random legal actions (Generator.integers(len(legal)) each)
        bitgen_t *bg = bitgen_of(chooser_generator);
        int decisions = 0;
        while (!c.s.is_over) {
            const auto &legal = legal_actions(g, c.s);
            auto pick = rng_integers(bg, static_cast<int64_t>(legal.size()));
            step(g, c.s, legal[static_cast<std::size_t>(pick)]);
            ++decisions;
        }
        return decisions;
    });
}
