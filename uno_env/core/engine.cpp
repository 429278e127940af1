// The turn machine, mirroring uno_env/turn.py and the handlers of uno_env/game.py function by function
// (same names, same order of agenda pushes and random draws). Read the Python first: it is the reference.
#include "engine.hpp"

#include <algorithm>
#include <numeric>

#include "random.hpp"

namespace uno {


namespace {

inline int mod(int a, int n) { return ((a % n) + n) % n; }

const Step END_TURN_STEP{END_TURN, 0, 0, 0, 0, 2};
const Step RESPOND_STEP{RESPOND, 0, 0, 0, 0, 1};

inline Step step1(int code, int a) { return Step{code, a, 0, 0, 0, 2}; }

void end_round(const Rules &g, State &s, int winner);
void after_colour(const Rules &g, State &s, int p, int kind, int count, bool response);

// ------------------------------------------------------------------ seats

int seat_after(const Rules &g, const State &s, int p, int k = 1) {
    if (!g.elimination) return mod(p + k * s.direction, s.n);
    int q = p;
    for (int i = 0; i < k; ++i) {
        q = mod(q + s.direction, s.n);
        while (s.eliminated[q]) q = mod(q + s.direction, s.n);
    }
    return q;
}

int players_in(const Rules &g, const State &s) {
    if (!g.elimination) return s.n;
    int out = 0;
    for (auto e : s.eliminated) out += e;
    return s.n - out;
}

// ------------------------------------------------------------------ placing cards

void card_left_hand(State &s, int p, int kind, int count = 1) {
    for (auto &e : s.shown)
        if (e.holder == p && e.counts[kind]) e.counts[kind] = std::max(0, e.counts[kind] - count);
}

void show_cards(State &s, int observer, int holder, const std::vector<int> &counts) {
    std::vector<Shown> kept;
    for (auto &e : s.shown)
        if (e.observer != observer || e.holder != holder) kept.push_back(e);
    kept.push_back(Shown{observer, holder, counts});
    s.shown.swap(kept);
}

void note_placement(const Rules &g, State &s, int p, int kind) {
    if (!s.shown.empty()) card_left_hand(s, p, kind);
    if (g.is_wild[kind]) {
        s.last_played[p] = 4;
    } else {
        int c = g.colour_of[kind];
        s.last_played[p] = c;
        s.voids[p] &= ~(1 << c);
    }
}

}  // namespace

// (declared in engine.hpp: the sampler recomputes a challenge's verdict with it)
bool holds_colour(const Rules &g, const State &s, int seat, int colour, int playing) {
    const auto &hand = s.hands[seat];
    for (int k : g.kinds_of_colour[colour])
        if (hand[k]) return true;
    if (g.wild_counts_as_match)
        for (int k : g.wild_kinds)
            if (hand[k] > (k == playing ? 1 : 0)) return true;
    if (g.flexable_counts && s.power[seat])  // Flex AMB-A10: a flex card it could have played by flex colour
        for (int k : g.kinds_of_flex_colour[colour])
            if (hand[k]) return true;
    return false;
}

namespace {

// variants/flex.py's flex_turn_plays: FLEX-mode play ids legal for seat p now, ascending
void flex_turn_plays(const Rules &g, const State &s, int p, std::vector<int> &acts) {
    if (!s.power[p]) return;
    const auto &hand = s.hands[p];
    for (int k : g.flex_playable_on[s.discard.back() * 4 + s.colour])
        if (hand[k]) acts.push_back(g.flex0 + k);
    for (int k : g.flex_wild_kinds)
        if (hand[k] && !(g.flex_restricted[k] && holds_colour(g, s, p, s.colour, k))) acts.push_back(g.flex0 + k);
}

inline bool plays_on(const Rules &g, const State &s, int kind) {
    // kind in g.playable_on[top][colour]
    int top = s.discard.back();
    return g.is_wild[kind] || g.colour_of[kind] == s.colour ||
           (!g.is_wild[top] && g.rank_of[kind] == g.rank_of[top]);
}

// ------------------------------------------------------------------ drawing

inline int face(const Rules &g, int code, int side) {
    return side == 0 ? code / g.num_kinds : code % g.num_kinds;
}

bool reshuffle(const Rules &g, State &s) {
    if (s.discard.size() <= 1) return false;
    if (g.flip) {  // variants/flip.py: the physical cards, active sides down (AMB-B24)
        std::vector<int> rest(s.physical_discard.begin(), s.physical_discard.end() - 1);
        rng_shuffle(s.rng, rest);
        s.physical_draw = rest;
        s.draw_pile.resize(rest.size());
        for (std::size_t i = 0; i < rest.size(); ++i) s.draw_pile[i] = face(g, rest[i], s.side);
        int top = s.discard.back(), ptop = s.physical_discard.back();
        s.discard.assign(1, top);
        s.physical_discard.assign(1, ptop);
        return true;
    }
    std::vector<int> rest(s.discard.begin(), s.discard.end() - 1);
    rng_shuffle(s.rng, rest);
    int top = s.discard.back();
    s.draw_pile.swap(rest);
    s.discard.assign(1, top);
    return true;
}

int press_times(const Rules &g, State &s, int seat, int count);

int draw_one(const Rules &g, State &s, int seat);

int draw_cards(const Rules &g, State &s, int seat, int count) {
    if (g.attack) return press_times(g, s, seat, count);  // Attack's draw_cards hook: launcher presses
    if (g.flip) {  // Flip's: one physical card at a time
        int got = 0;
        while (got < count && draw_one(g, s, seat) >= 0) ++got;
        return got;
    }
    auto &hand = s.hands[seat];
    int got = 0;
    while (got < count) {
        if (s.draw_pile.empty() && !reshuffle(g, s)) break;  // exhaustion: the rest is forfeited
        hand[s.draw_pile.back()] += 1;
        s.draw_pile.pop_back();
        ++got;
    }
    if (got) {
        s.hand_size[seat] += got;
        s.progress = true;
    }
    return got;
}

int draw_one(const Rules &g, State &s, int seat) {
    if (s.draw_pile.empty() && !reshuffle(g, s)) return -1;
    int kind = s.draw_pile.back();
    s.draw_pile.pop_back();
    if (g.flip) {
        s.physical_hands[seat].push_back(s.physical_draw.back());
        s.physical_draw.pop_back();
    }
    s.hands[seat][kind] += 1;
    s.hand_size[seat] += 1;
    s.progress = true;
    return kind;
}

void draw_until_colour(const Rules &g, State &s, int seat, int colour, bool wild_satisfies) {
    while (true) {
        int kind = draw_one(g, s, seat);
        if (kind < 0) return;
        if (g.colour_of[kind] == colour || (wild_satisfies && g.is_wild[kind])) return;
    }
}

void penalty_draw(const Rules &g, State &s, int seat) { draw_cards(g, s, seat, g.uno_penalty); }

// ---- Attack's launcher (variants/attack.py)

int burst(const Rules &g, State &s, int remaining) {
    int k;
    if (!s.launcher_script.empty()) {
        k = s.launcher_script.front();
        s.launcher_script.erase(s.launcher_script.begin());
    } else if (g.launcher_model == GEOMETRIC) {
        if (rng_random(s.launcher_rng) >= g.p_fire)
            k = 0;
        else
            k = static_cast<int>(std::min<int64_t>(rng_geometric(s.launcher_rng, 1.0 - g.q), g.max_burst));
    } else if (g.launcher_model == CATEGORICAL) {
        double u = rng_random(s.launcher_rng);  // np.searchsorted(cumulative, u, side="right")
        k = static_cast<int>(std::upper_bound(g.cumulative.begin(), g.cumulative.end(), u) - g.cumulative.begin());
    } else if (g.launcher_model == FIXED) {
        k = g.fixed_k;
    } else {
        k = 0;
    }
    return std::min(k, remaining);
}

int press(const Rules &g, State &s, int seat) {
    auto &pile = s.draw_pile;
    if (pile.empty()) return 0;
    int k = burst(g, s, static_cast<int>(pile.size()));
    if (k || g.empty_press_progress) s.progress = true;
    auto &hand = s.hands[seat];
    for (int i = 0; i < k; ++i) {
        hand[pile.back()] += 1;
        pile.pop_back();
    }
    s.hand_size[seat] += k;
    return k;
}

int press_times(const Rules &g, State &s, int seat, int count) {
    int got = 0;
    for (int i = 0; i < count; ++i) {
        if (s.draw_pile.empty()) break;  // no reload during an obligation (AMB-C2)
        got += press(g, s, seat);
    }
    return got;
}

void reload_if_empty(const Rules &g, State &s) {
    if (s.draw_pile.empty()) reshuffle(g, s);
}

// ------------------------------------------------------------------ draw penalties

bool can_respond_with(const Rules &g, const State &s, const Penalty &pen, int kind) {
    if (g.attack) return true;  // Mass Hit: any hit card answers a hit (§2.4)
    int effect = g.effect_of[kind];
    int top = s.discard.back();
    bool free_ = g.madness && g.madness_free;
    if (effect == DRAW_TWO) {
        if (g.stacking == 0 || (pen.last_effect == WILD_DRAW_FOUR && g.stacking != 3)) return false;
        if (free_ || (g.madness && g.effect_of[top] == WILD_DRAW_FOUR)) return true;
        if (g.is_wild[top]) return g.colour_of[kind] == s.colour;
        return g.colour_of[kind] == s.colour || g.rank_of[kind] == g.rank_of[top];
    }
    if (effect == WILD_DRAW_FOUR) {
        if (g.stacking == 0 || g.stacking == 1) return false;
        if (g.stacking == 2 && pen.last_effect != WILD_DRAW_FOUR) return false;
        return g.bluffing || !holds_colour(g, s, pen.target, s.colour, kind);
    }
    if (!g.madness) return false;
    if (free_ || g.effect_of[top] == WILD_DRAW_FOUR) return true;
    return g.colour_of[kind] == s.colour || g.rank_of[kind] == g.rank_of[top];
}

void response_actions(const Rules &g, const State &s, std::vector<int> &acts) {
    const Penalty &pen = s.penalty;
    const auto &hand = s.hands[pen.target];
    acts.clear();
    for (int k : g.response_kinds)
        if (hand[k] && can_respond_with(g, s, pen, k)) acts.push_back(k);
    if (pen.has_challenge) acts.push_back(g.challenge);
    acts.push_back(g.accept);
}

// Whether the penalty's target has something to decide (more than "accept").
bool has_response(const Rules &g, const State &s) {
    const Penalty &pen = s.penalty;
    if (pen.has_challenge) return true;
    const auto &hand = s.hands[pen.target];
    for (int k : g.response_kinds)
        if (hand[k] && can_respond_with(g, s, pen, k)) return true;
    return false;
}

void pay(const Rules &g, State &s, int seat, const Penalty &pen, int extra) {
    if (pen.until >= 0) draw_until_colour(g, s, seat, pen.until, g.until_wild_satisfies);
    draw_cards(g, s, seat, pen.total + extra);
}

void absorb(const Rules &g, State &s) {
    Penalty pen = s.penalty;
    s.has_penalty = false;
    pay(g, s, pen.target, pen, 0);
    s.next_seat = pen.resume >= 0 ? pen.resume : seat_after(g, s, pen.target);
}

void await_response(const Rules &g, State &s, bool final_) {
    if (final_ || !has_response(g, s))
        absorb(g, s);
    else
        s.agenda.push_back(RESPOND_STEP);
}

void add_penalty(const Rules &g, State &s, int p, int amount, int effect, bool has_challenge, bool guilty,
                 bool final_, int target = -1, int resume = -1, int until = -1) {
    if (target < 0) target = seat_after(g, s, p);
    if (!s.has_penalty) {
        s.has_penalty = true;
        s.penalty = Penalty{};
        Penalty &pen = s.penalty;
        pen.total = amount;
        pen.target = target;
        pen.last_effect = effect;
        pen.has_challenge = has_challenge;
        pen.offender = has_challenge ? p : 0;
        pen.guilty = guilty;
        pen.resume = resume;
        pen.until = until;
        pen.origin = p;
    } else {
        Penalty &pen = s.penalty;
        pen.total += amount;
        pen.target = target;
        pen.last_effect = effect;
        if (pen.deflected) {
            pen.has_challenge = false;
        } else {
            pen.has_challenge = has_challenge;
            if (has_challenge) {
                pen.offender = p;
                pen.guilty = guilty;
            }
        }
        pen.resume = resume;
        pen.cards += 1;
    }
    await_response(g, s, final_);
}

void deflect(const Rules &g, State &s, int p, bool final_) {
    Penalty &pen = s.penalty;
    pen.target = seat_after(g, s, p);
    pen.has_challenge = false;
    pen.deflected = true;
    await_response(g, s, final_);
}

void challenge(const Rules &g, State &s, int challenger) {
    Penalty pen = s.penalty;
    s.has_penalty = false;
    int offender = pen.offender;
    bool guilty = pen.guilty;
    s.reveals[challenger] = Reveal{true, offender, s.hands[offender]};
    show_cards(s, challenger, offender, s.hands[offender]);
    if (guilty) {
        pay(g, s, offender, pen, 0);
        s.next_seat = challenger;
    } else {
        pay(g, s, challenger, pen, g.challenge_fail_extra);
        s.next_seat = seat_after(g, s, challenger);
    }
    if (pen.resume >= 0 && (guilty || pen.resume != challenger)) s.next_seat = pen.resume;
}

// ------------------------------------------------------------------ effects (the Classic family's table)

void effect_number(const Rules &g, State &s, int p, int, int, bool) {
    s.next_seat = g.elimination ? seat_after(g, s, p) : mod(p + s.direction, s.n);
}

void effect_skip(const Rules &g, State &s, int p, int, int count, bool final_) {
    if (s.has_penalty) {
        deflect(g, s, p, final_);
        return;
    }
    s.next_seat = seat_after(g, s, p, count + 1);
}

void effect_reverse(const Rules &g, State &s, int p, int, int count, bool final_) {
    if (final_ && !s.has_penalty) return;
    if (count % 2) s.direction = -s.direction;
    if (s.has_penalty) {
        deflect(g, s, p, final_);
        return;
    }
    if (g.reverse_as_skip && players_in(g, s) == 2)
        s.next_seat = seat_after(g, s, p, count + 1);
    else
        s.next_seat = seat_after(g, s, p);
}

void effect_draw_two(const Rules &g, State &s, int p, int, int count, bool final_) {
    add_penalty(g, s, p, 2 * count, DRAW_TWO, false, false, final_);
}

void effect_wild_draw_four(const Rules &g, State &s, int p, int, int, bool final_) {
    bool has = false, guilty = false;
    if (g.bluffing && !final_) {
        has = true;
        guilty = holds_colour(g, s, p, s.ref_colour);
    }
    add_penalty(g, s, p, 4, WILD_DRAW_FOUR, has, guilty, final_);
}

// ---- Flex (variants/flex.py)

void others_draw(const Rules &g, State &s, int p, int count) {
    for (int i = 1; i < s.n; ++i) draw_cards(g, s, mod(p + i * s.direction, s.n), count);
}

void target_draws(const Rules &g, State &s, int p, int count, bool final_) {
    if (!(final_ && s.target == p)) draw_cards(g, s, s.target, count);
}

void effect_flex_skip(const Rules &g, State &s, int p, int kind, int count, bool final_) {
    if (s.flex_play)
        s.next_seat = p;
    else
        effect_skip(g, s, p, kind, count, final_);
}

void effect_flex_reverse(const Rules &g, State &s, int p, int kind, int count, bool final_) {
    if (s.flex_play) {
        if (final_) return;
        s.direction = -s.direction;
        s.next_seat = mod(p + 2 * s.direction, s.n);
    } else {
        effect_reverse(g, s, p, kind, count, final_);
    }
}

void effect_flex_draw_two(const Rules &g, State &s, int p, int kind, int count, bool final_) {
    if (s.flex_play) {
        others_draw(g, s, p, 1);
        s.next_seat = mod(p + s.direction, s.n);
    } else {
        effect_draw_two(g, s, p, kind, count, final_);
    }
}

void effect_target_draw_two(const Rules &g, State &s, int p, int, int, bool final_) {
    if (s.flex_play) target_draws(g, s, p, 2, final_);
    s.next_seat = mod(p + s.direction, s.n);
}

void effect_all_draw(const Rules &g, State &s, int p, int, int, bool) {
    if (s.flex_play) others_draw(g, s, p, 2);
    s.next_seat = mod(p + s.direction, s.n);
}

void effect_flex_w4f(const Rules &g, State &s, int p, int kind, int count, bool final_) {
    if (!s.flex_play) {
        effect_wild_draw_four(g, s, p, kind, count, final_);
    } else if (g.flex_w4f_restricted && !(final_ && s.target == p)) {
        bool has = g.bluffing && s.target != p;
        bool guilty = has && holds_colour(g, s, p, s.ref_colour);
        add_penalty(g, s, p, 4, WILD_DRAW_FOUR, has, guilty, final_, s.target, mod(p + s.direction, s.n));
    } else {
        target_draws(g, s, p, 4, final_);
        s.next_seat = mod(p + s.direction, s.n);
    }
}

// ---- Flip (variants/flip.py)

// FlipCards.take: the card with that active face and the smallest code leaves the seat's physical hand
int take(const Rules &g, State &s, int seat, int kind) {
    auto &cards = s.physical_hands[seat];
    int best = -1;
    for (int i = 0; i < static_cast<int>(cards.size()); ++i)
        if (face(g, cards[i], s.side) == kind && (best < 0 || cards[i] < cards[best])) best = i;
    if (best < 0) throw std::logic_error("a seat holds no physical card with that face");
    int code = cards[best];
    cards.erase(cards.begin() + best);
    return code;
}

void place(const Rules &g, State &s, int p, int kind, bool drawn) {
    auto &cards = s.physical_hands[p];
    if (drawn && !cards.empty() && face(g, cards.back(), s.side) == kind) {
        s.physical_discard.push_back(cards.back());
        cards.pop_back();
    } else {
        s.physical_discard.push_back(take(g, s, p, kind));
    }
}

void flip_over(const Rules &g, State &s) {
    int side = 1 - s.side;
    s.side = side;
    s.shown.clear();
    std::reverse(s.physical_discard.begin(), s.physical_discard.end());
    std::reverse(s.physical_draw.begin(), s.physical_draw.end());
    s.discard.resize(s.physical_discard.size());
    for (std::size_t i = 0; i < s.physical_discard.size(); ++i) s.discard[i] = face(g, s.physical_discard[i], side);
    s.draw_pile.resize(s.physical_draw.size());
    for (std::size_t i = 0; i < s.physical_draw.size(); ++i) s.draw_pile[i] = face(g, s.physical_draw[i], side);
    for (int q = 0; q < s.n; ++q) {
        std::fill(s.hands[q].begin(), s.hands[q].end(), 0);
        for (int c : s.physical_hands[q]) s.hands[q][face(g, c, side)] += 1;
    }
}

void effect_flip(const Rules &g, State &s, int p, int, int, bool final_) {
    s.next_seat = mod(p + s.direction, s.n);
    if (final_ && !g.last_card_flip_resolves) return;
    flip_over(g, s);
    int top = s.discard.back();
    if (g.is_wild[top]) {
        if (!final_) s.agenda.push_back(step1(COLOUR, p));
    } else {
        s.colour = g.colour_of[top];
        s.colour_declarer = -1;
    }
}

void effect_restricted_draw(const Rules &g, State &s, int p, int amount, int effect, bool final_, int until) {
    bool has = g.bluffing && !final_;
    bool guilty = has && holds_colour(g, s, p, s.ref_colour);
    add_penalty(g, s, p, amount, effect, has, guilty, final_, -1, -1, until);
}

// ---- Attack (variants/attack.py)

void effect_discard_all(const Rules &g, State &s, int p, int kind, int, bool) {
    auto &hand = s.hands[p];
    std::vector<int> moved;
    for (int k : g.kinds_of_colour[g.colour_of[kind]])
        if (hand[k]) {
            moved.insert(moved.end(), hand[k], k);
            card_left_hand(s, p, k, hand[k]);
            hand[k] = 0;
        }
    if (!moved.empty()) {
        s.hand_size[p] -= static_cast<int>(moved.size());
        s.discard.insert(s.discard.end() - 1, moved.begin(), moved.end());  // beneath the Discard All
    }
    s.next_seat = seat_after(g, s, p);
}

void hit(const Rules &g, State &s, int p, int hits, int effect, bool final_, int target = -1, int single_resume = -1) {
    int resume;
    if (!s.has_penalty)
        resume = single_resume;
    else  // a stack of 2+ hit cards (AMB-C4)
        resume = g.mass_hit_after_first ? seat_after(g, s, s.penalty.origin) : -1;
    add_penalty(g, s, p, hits, effect, false, false, final_, target, resume);
}

void effect_wild_attack(const Rules &g, State &s, int p, int, int, bool final_) {
    int t = s.target;
    if (final_ && t == p) {
        s.next_seat = seat_after(g, s, p);
        return;
    }
    int resume = g.wild_attack_resume == SECOND_FROM_ATTACKER  ? seat_after(g, s, p, 2)
                 : g.wild_attack_resume == NEXT_AFTER_ATTACKER ? seat_after(g, s, p)
                                                               : seat_after(g, s, t);
    hit(g, s, p, 2, WILD_ATTACK, final_, t, resume);
}

void power_updates(const Rules &g, State &s, int p, int kind) {
    auto &power = s.power;
    if (s.flex_play) power[p] = 0;
    if (g.flip_icon[kind]) power[p] = !power[p];
    if (g.effect_of[kind] == WILD_ALL_FLIP)
        for (auto &v : power) v = !v;
    if (std::none_of(power.begin(), power.end(), [](uint8_t v) { return v != 0; }))
        std::fill(power.begin(), power.end(), 1);
}

void apply_effect(const Rules &g, State &s, int p, int kind, int count, bool final_) {
    switch (g.handler[kind]) {
        case H_NUMBER: effect_number(g, s, p, kind, count, final_); break;
        case H_SKIP: effect_skip(g, s, p, kind, count, final_); break;
        case H_REVERSE: effect_reverse(g, s, p, kind, count, final_); break;
        case H_DRAW_TWO: effect_draw_two(g, s, p, kind, count, final_); break;
        case H_WILD: effect_number(g, s, p, kind, count, final_); break;  // effect_wild: the same arithmetic
        case H_WILD_DRAW_FOUR: effect_wild_draw_four(g, s, p, kind, count, final_); break;
        case H_FLEX_SKIP: effect_flex_skip(g, s, p, kind, count, final_); break;
        case H_FLEX_REVERSE: effect_flex_reverse(g, s, p, kind, count, final_); break;
        case H_FLEX_DRAW_TWO: effect_flex_draw_two(g, s, p, kind, count, final_); break;
        case H_TARGET_DRAW_TWO: effect_target_draw_two(g, s, p, kind, count, final_); break;
        case H_ALL_DRAW: effect_all_draw(g, s, p, kind, count, final_); break;
        case H_FLEX_W4F: effect_flex_w4f(g, s, p, kind, count, final_); break;
        case H_DISCARD_ALL: effect_discard_all(g, s, p, kind, count, final_); break;
        case H_HIT_ONE: hit(g, s, p, 1, HIT_ONE, final_); break;
        case H_HIT_TWO: hit(g, s, p, 2, HIT_TWO, final_); break;
        case H_WILD_ATTACK: effect_wild_attack(g, s, p, kind, count, final_); break;
        case H_DRAW_ONE: add_penalty(g, s, p, 1, DRAW_ONE, false, false, final_); break;
        case H_DRAW_FIVE: add_penalty(g, s, p, 5, DRAW_FIVE, false, false, final_); break;
        case H_SKIP_EVERYONE: s.next_seat = p; break;
        case H_FLIP: effect_flip(g, s, p, kind, count, final_); break;
        case H_WILD_DRAW_TWO: effect_restricted_draw(g, s, p, 2, WILD_DRAW_TWO, final_, -1); break;
        case H_WILD_DRAW_COLOUR: effect_restricted_draw(g, s, p, 0, WILD_DRAW_COLOUR, final_, s.colour); break;
        default: throw std::logic_error("the compiled core has no handler for this card's effect");
    }
}

// ------------------------------------------------------------------ placement

void after_colour(const Rules &g, State &s, int p, int kind, int count, bool response) {
    bool final_ = s.hand_size[p] == 0;
    bool one_left = s.hand_size[p] == 1;
    if (!response) s.agenda.push_back(END_TURN_STEP);
    apply_effect(g, s, p, kind, count, final_);
    if (g.flex) power_updates(g, s, p, kind);  // after_effect: Flex's power cards (§2.2)
    s.flex_play = false;
    if (final_ || s.hand_size[p] == 0) {
        end_round(g, s, p);
        return;
    }
    if (g.jump_in) {
        if (g.jump_in_wild || !g.is_wild[kind]) {
            s.has_jump = true;
            s.jump_kind = kind;
            s.jump_placer = p;
        } else {
            s.has_jump = false;
        }
    }
    if ((one_left || s.hand_size[p] == 1) && g.uno_asks && !(g.flip && g.duel_kind[kind]))
        s.agenda.push_back(step1(UNO, p));  // (Flip's duels call UNO before their effect: early_call_kinds)
}

void resolve_placement(const Rules &g, State &s, int p, int kind, int count, bool response = false) {
    if (g.is_wild[kind]) {
        s.agenda.push_back(Step{AFTER_PLACE, p, kind, count, response ? 1 : 0, 5});
        // wild_steps: the colour declaration (Flex: a targeted FLEX wild's target first, then the colour)
        if (g.flip && g.duel_kind[kind]) {
            // Flip: a duel wild's target, the player's UNO call, then the duel; none on its last card (AMB-B15)
            if (s.hand_size[p] > 0) {
                s.agenda.push_back(Step{DUEL, p, kind, 0, 0, 3});
                if (s.hand_size[p] == 1 && g.uno_asks) s.agenda.push_back(step1(UNO, p));
                s.agenda.push_back(step1(TARGET, p));
            }
        } else {
            // (Attack: a Wild Attack's colour first, then its target)
            if (g.attack && g.attack_kind[kind]) s.agenda.push_back(step1(TARGET, p));
            s.agenda.push_back(step1(COLOUR, p));
            if (s.flex_play && g.flex_target[kind]) s.agenda.push_back(step1(TARGET, p));
        }
    } else {
        s.colour = g.colour_of[kind];
        s.colour_declarer = -1;
        after_colour(g, s, p, kind, count, response);
    }
    run(g, s);
}

void play_card(const Rules &g, State &s, int p, int kind, bool response = false, bool flex = false,
               bool drawn = false) {
    note_placement(g, s, p, kind);
    s.ref_colour = s.colour;
    s.flex_play = flex;
    s.hands[p][kind] -= 1;
    s.hand_size[p] -= 1;
    s.discard.push_back(kind);
    if (g.flip) place(g, s, p, kind, drawn);  // the physical card (and its other face) goes along
    s.progress = true;
    resolve_placement(g, s, p, kind, 1, response);
}

// ------------------------------------------------------------------ round end

int hand_points(const Rules &g, const State &s, int seat) {
    int total = 0;
    const auto &hand = s.hands[seat];
    for (int k = 0; k < g.num_kinds; ++k)
        if (hand[k]) total += hand[k] * g.points_of[k];
    return total;
}

void finish(State &s) {
    s.is_over = true;
    s.phase = GAME_OVER;
    s.current_seat = -1;
    s.agenda.clear();
    s.has_waiting = false;
    s.legal_valid = false;
}

int match_leader(const Rules &g, const State &s) {
    bool any = false;
    int best = 0;
    for (int q = 0; q < s.n; ++q) {
        if (s.eliminated[q]) continue;
        int v = s.scores[q];
        if (!any || (g.winner_takes ? v > best : v < best)) best = v;
        any = true;
    }
    int leader = -1, count = 0;
    for (int q = 0; q < s.n; ++q)
        if (s.scores[q] == best && !s.eliminated[q]) {
            leader = q;
            ++count;
        }
    return count == 1 ? leader : -1;
}

void deal_round(const Rules &g, State &s);

void next_round(const Rules &g, State &s, int last_winner) {
    int n = s.n;
    if (g.dealer_rotation == 1)
        s.dealer = static_cast<int>(rng_integers(s.rng, n));
    else if (g.dealer_rotation == 2 && last_winner >= 0)
        s.dealer = last_winner;
    else
        s.dealer = (s.dealer + 1) % n;
    while (s.eliminated[s.dealer]) s.dealer = (s.dealer + 1) % n;
    s.round_index += 1;
    deal_round(g, s);
}

void end_round(const Rules &g, State &s, int winner) {
    int n = s.n;
    s.agenda.clear();
    s.has_penalty = false;
    s.has_multi = false;
    s.has_jump = false;
    std::vector<int> points(n, 0);
    if (winner >= 0) {
        std::vector<int> values(n);
        for (int q = 0; q < n; ++q) values[q] = hand_points(g, s, q);
        if (g.winner_takes) {
            points[winner] = std::accumulate(values.begin(), values.end(), 0);
        } else {
            points = values;
            points[winner] = 0;
        }
        for (int q = 0; q < n; ++q) s.scores[q] += points[q];
    }
    s.round_points = points;
    s.round_winner = winner;
    s.blocked = winner < 0;
    if (g.elimination) {
        for (int q = 0; q < n; ++q)
            if (!s.eliminated[q] && s.scores[q] >= g.target_score) s.eliminated[q] = 1;
        std::vector<int> alive;
        for (int q = 0; q < n; ++q)
            if (!s.eliminated[q]) alive.push_back(q);
        if (alive.size() >= 2) {
            next_round(g, s, winner);
            return;
        }
        s.winner = alive[0];
    } else if (g.match) {
        if (*std::max_element(s.scores.begin(), s.scores.end()) < g.target_score) {
            next_round(g, s, winner);
            return;
        }
        s.winner = match_leader(g, s);
    } else {
        s.winner = winner;
    }
    finish(s);
}

void deal_round(const Rules &g, State &s) {
    int n = s.n;
    s.discard.clear();
    for (auto &h : s.hands) std::fill(h.begin(), h.end(), 0);
    std::fill(s.hand_size.begin(), s.hand_size.end(), 0);
    if (g.flip) {  // FlipCards.new_round: shuffle the physical cards, A faces up, then deal one at a time
        if (s.deck_cards.empty()) {
            if (g.rng_pairing) {
                std::vector<int> order(g.d_faces.size());
                std::iota(order.begin(), order.end(), 0);
                rng_shuffle(s.rng, order);  // rng.permutation(len(d_faces))
                for (std::size_t i = 0; i < order.size(); ++i)
                    s.deck_cards.push_back(g.a_faces[i] * g.num_kinds + g.d_faces[order[i]]);
                std::sort(s.deck_cards.begin(), s.deck_cards.end());
            } else {
                s.deck_cards = g.fixed_pairing;
            }
        }
        s.side = 0;
        std::vector<int> order(s.deck_cards.size());
        std::iota(order.begin(), order.end(), 0);
        rng_shuffle(s.rng, order);
        s.physical_draw.resize(order.size());
        s.draw_pile.resize(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            s.physical_draw[i] = s.deck_cards[order[i]];
            s.draw_pile[i] = s.physical_draw[i] / g.num_kinds;
        }
        s.physical_discard.clear();
        s.physical_hands.assign(n, {});
        s.has_duel = false;
        for (int i = 0; i < g.hand_size * n; ++i) draw_one(g, s, (s.dealer + 1 + i) % n);
        s.direction = 1;
        s.has_penalty = false;
        for (auto &r : s.reveals) r = Reveal{};
        s.shown.clear();
        std::fill(s.power.begin(), s.power.end(), 1);
        s.idle_turns = 0;
        s.progress = false;
        s.colour_declarer = -1;
        start_round(g, s);
        return;
    }
    s.draw_pile = g.deck_array;  // rng.permutation(deck_array): a copy, shuffled
    rng_shuffle(s.rng, s.draw_pile);
    std::vector<int> seats;
    for (int i = 0; i < n; ++i) {
        int q = (s.dealer + 1 + i) % n;
        if (!s.eliminated[q]) seats.push_back(q);
    }
    int m = static_cast<int>(seats.size());
    for (int i = 0; i < g.hand_size * m; ++i) {
        int seat = seats[i % m];
        s.hands[seat][s.draw_pile.back()] += 1;
        s.draw_pile.pop_back();
        s.hand_size[seat] += 1;
    }
    s.direction = 1;
    s.has_penalty = false;
    for (auto &r : s.reveals) r = Reveal{};
    s.shown.clear();
    std::fill(s.power.begin(), s.power.end(), 1);
    s.idle_turns = 0;
    s.progress = false;
    s.colour_declarer = -1;
    start_round(g, s);
}

// ------------------------------------------------------------------ agenda steps

// Each returns true when the step waits for a decision (Python: returns the step), with `out` the
// step recorded as `waiting`.
bool step_after_place(const Rules &g, State &s, const Step &st, Step &) {
    after_colour(g, s, st.a, st.b, st.c, st.d != 0);
    return false;
}

bool step_colour(const Rules &, State &s, const Step &st, Step &out) {
    s.phase = CHOOSE_COLOUR;
    s.current_seat = st.a;
    out = st;
    return true;
}

bool step_uno(const Rules &, State &s, const Step &st, Step &out) {
    s.phase = UNO_CALL;
    s.current_seat = st.a;
    out = st;
    return true;
}

bool step_catch(const Rules &, State &s, const Step &st, Step &out) {
    int p = st.a, i = st.b;
    int q = mod(p + i * s.direction, s.n);
    if (s.eliminated[q]) {
        if (i + 1 < s.n) s.agenda.push_back(Step{CATCH_STEP, p, i + 1, 0, 0, 3});
        return false;
    }
    s.phase = CATCH;
    s.current_seat = q;
    out = st;
    return true;
}

bool step_respond(const Rules &g, State &s, const Step &st, Step &out) {
    response_actions(g, s, s.legal);
    if (s.legal.size() == 1) {
        absorb(g, s);
        return false;
    }
    s.phase = s.legal[0] < g.num_kinds ? STACK_RESPONSE : CHALLENGE_OR_ACCEPT;
    s.current_seat = s.penalty.target;
    s.legal_valid = true;
    out = st;
    return true;
}

bool step_end_turn(const Rules &g, State &s, const Step &st, Step &out) {
    if (s.has_jump) {
        int kind = s.jump_kind, placer = s.jump_placer;
        int n = s.n;
        int i = st.a;
        while (i < n) {
            int q = mod(s.next_seat + i * s.direction, n);
            ++i;
            if (q != placer && s.hands[q][kind]) {
                s.phase = JUMP_IN;
                s.current_seat = q;
                out = Step{END_TURN, i, 0, 0, 0, 2};
                return true;
            }
        }
        s.has_jump = false;
    }
    if (s.progress) {
        s.idle_turns = 0;
    } else {
        s.idle_turns += 1;
        if (s.idle_turns >= players_in(g, s)) {
            end_round(g, s, -1);
            return false;
        }
    }
    s.progress = false;
    int seat = s.next_seat;
    s.turn_seat = s.current_seat = seat;
    s.phase = TURN;
    if (g.attack) reload_if_empty(g, s);  // on_turn_start: Attack reloads an empty launcher
    out = st;
    return true;
}

bool step_start_turn(const Rules &g, State &s, const Step &st, Step &out) {
    s.turn_seat = s.current_seat = st.a;
    s.phase = TURN;
    s.progress = false;
    if (g.attack) reload_if_empty(g, s);
    out = st;
    return true;
}

bool step_target(const Rules &, State &s, const Step &st, Step &out) {
    s.phase = CHOOSE_TARGET;
    s.current_seat = st.a;
    out = st;
    return true;
}

// ---- Flip's own steps (variants/flip.py: _duel, _optimus_place)

void numbers_of(const Rules &g, const State &s, int seat, std::vector<int> &out) {
    out.clear();
    const auto &hand = s.hands[seat];
    for (int k : g.number_kinds) out.insert(out.end(), hand[k], k);
}

void hand_kinds(const State &s, int seat, std::vector<int> &out) {
    out.clear();
    const auto &hand = s.hands[seat];
    for (int k = 0; k < static_cast<int>(hand.size()); ++k) out.insert(out.end(), hand[k], k);
}

bool step_duel(const Rules &g, State &s, const Step &st, Step &) {
    int p = st.a, kind = st.b, t = s.target;
    const auto &value = g.number_value;
    std::vector<int> np, nt;
    numbers_of(g, s, p, np);
    numbers_of(g, s, t, nt);
    if (g.effect_of[kind] == OPTIMUS) {
        auto best = [&](const std::vector<int> &nums) {  // max(..., key=value) : the first maximal one
            int b = -1;
            for (int k : nums)
                if (b < 0 || value[k] > value[b]) b = k;
            return b;
        };
        int best_p = best(np), best_t = best(nt);
        int winner = (best_t < 0 || (best_p >= 0 && value[best_p] >= value[best_t])) ? p : t;
        s.has_duel = true;
        s.duel_kind = kind;
        s.duel_p = p;
        s.duel_t = t;
        s.duel_shown_p = best_p >= 0 ? std::vector<int>{best_p} : std::vector<int>{};
        s.duel_shown_t = best_t >= 0 ? std::vector<int>{best_t} : std::vector<int>{};
        for (auto [seat, b] : {std::pair<int, int>{p, best_p}, std::pair<int, int>{t, best_t}})
            if (b >= 0) {
                std::vector<int> one(g.num_kinds, 0);
                one[b] = 1;
                show_cards(s, -1, seat, one);
            }
        s.agenda.push_back(step1(COLOUR, winner));
        s.agenda.push_back(Step{OPTIMUS_PLACE_STEP, winner, 0, 0, 0, 3});
        return false;
    }
    int missing = g.megatron_missing_loses ? 0 : 1000000;
    int low_p = missing, low_t = missing;
    if (!np.empty()) {
        low_p = value[np[0]];
        for (int k : np) low_p = std::min(low_p, value[k]);
    }
    if (!nt.empty()) {
        low_t = value[nt[0]];
        for (int k : nt) low_t = std::min(low_t, value[k]);
    }
    s.has_duel = true;
    s.duel_kind = kind;
    s.duel_p = p;
    s.duel_t = t;
    hand_kinds(s, p, s.duel_shown_p);
    hand_kinds(s, t, s.duel_shown_t);
    show_cards(s, -1, p, s.hands[p]);
    show_cards(s, -1, t, s.hands[t]);
    int loser = low_p < low_t ? p : t;
    draw_cards(g, s, loser, 2);
    s.agenda.push_back(step1(COLOUR, loser == p ? t : p));
    return false;
}

void placeable(const Rules &g, const State &s, int w, std::vector<int> &acts) {
    const auto &hand = s.hands[w];
    if (!g.optimus_place_requires_match) {
        for (int k = 0; k < g.num_kinds; ++k)
            if (hand[k]) acts.push_back(k);
        return;
    }
    if (s.discard.size() < 2) {
        for (int k = 0; k < g.num_kinds; ++k)
            if (hand[k] && (g.is_wild[k] || g.colour_of[k] == s.ref_colour)) acts.push_back(k);
        return;
    }
    int under = s.discard[s.discard.size() - 2];
    int colour = g.is_wild[under] ? s.ref_colour : g.colour_of[under];
    for (int k : g.playable_on[under * 4 + colour])
        if (hand[k]) acts.push_back(k);
}

void placement_done(const Rules &g, State &s, int w, int placed) {
    if (placed && s.hand_size[w] == 1 && g.uno_asks) s.agenda.push_back(step1(UNO, w));
}

bool step_optimus_place(const Rules &g, State &s, const Step &st, Step &out) {
    int w = st.a, placed = st.b;
    if (placed < 2 && s.hand_size[w] > 1) {
        std::vector<int> can;
        placeable(g, s, w, can);
        if (!can.empty()) {
            s.phase = OPTIMUS_PLACE;
            s.current_seat = w;
            out = st;
            return true;
        }
    }
    placement_done(g, s, w, placed);
    return false;
}

void on_optimus_place(const Rules &g, State &s, int a) {
    int w = s.waiting.a, placed = s.waiting.b;
    if (a == g.pass) {
        placement_done(g, s, w, placed);
    } else {
        s.hands[w][a] -= 1;
        s.hand_size[w] -= 1;
        card_left_hand(s, w, a);
        s.discard.insert(s.discard.end() - 1, a);
        int code = take(g, s, w, a);
        s.physical_discard.insert(s.physical_discard.end() - 1, code);
        s.progress = true;
        s.agenda.push_back(Step{OPTIMUS_PLACE_STEP, w, placed + 1, 0, 0, 3});
    }
    run(g, s);
}

// ------------------------------------------------------------------ decisions (Game._on_*)

}  // namespace

// Game._drawn_card_plays: its regular play, and (Flex) its FLEX play, into `acts`; whether there is one
// (declared in engine.hpp: the sampler pins a drawn card that could be played)
bool drawn_card_plays(const Rules &g, const State &s, int p, int kind, std::vector<int> *acts) {
    bool any = false;
    if (plays_on(g, s, kind) && (g.bluffing || !g.restricted[kind] || !holds_colour(g, s, p, s.colour, kind))) {
        any = true;
        if (acts) acts->push_back(kind);
    }
    if (g.flex) {
        std::vector<int> flex;
        flex_turn_plays(g, s, p, flex);
        if (std::find(flex.begin(), flex.end(), g.flex0 + kind) != flex.end()) {
            any = true;
            if (acts) acts->push_back(g.flex0 + kind);
        }
    }
    return any;
}

namespace {

void offer_drawn(State &s, int kind) {
    s.drawn_kind = kind;
    s.phase = PLAY_OR_KEEP_DRAWN;
}

void draw_action(const Rules &g, State &s, int p, bool forced) {
    int n = s.n;
    int top = s.discard.back();
    if (n == 2 && g.wild_miss_draw == 2 && g.is_wild[top] && s.colour_declarer != -1 && s.colour_declarer != p) {
        draw_cards(g, s, p, 2);
    } else if (g.draw_until_playable && forced) {
        bool first = true;
        while (true) {
            int kind = draw_one(g, s, p);
            if (kind < 0) break;
            if (drawn_card_plays(g, s, p, kind)) {
                if (first)
                    offer_drawn(s, kind);
                else
                    play_card(g, s, p, kind, false, false, true);
                return;
            }
            first = false;
        }
    } else {
        int kind = draw_one(g, s, p);
        if (kind >= 0 && drawn_card_plays(g, s, p, kind)) {
            offer_drawn(s, kind);
            return;
        }
    }
    s.next_seat = mod(p + s.direction, n);
    s.agenda.push_back(END_TURN_STEP);
    run(g, s);
}

bool starts_multi_play(const Rules &g, const State &s, int p, int kind) {
    if (!g.multi_effect[kind]) return false;
    if (!g.multi_any_legal && g.colour_of[kind] != s.colour) return false;
    int held = 0;
    for (int k : g.kinds_of_rank[g.rank_of[kind]]) held += s.hands[p][k];
    return held >= 2;
}

void on_turn(const Rules &g, State &s, int a, std::size_t num_legal) {
    int p = s.current_seat;
    if (a == g.draw) {
        if (g.attack) {  // Attack's draw_action: one press, and the turn is over whatever fired (AMB-C15)
            press(g, s, p);
            s.next_seat = seat_after(g, s, p);
            s.agenda.push_back(END_TURN_STEP);
            run(g, s);
        } else {
            draw_action(g, s, p, num_legal == 1);
        }
        return;
    }
    if (a >= g.num_kinds) {  // a FLEX-mode play
        play_card(g, s, p, a - g.flex0, false, true);
        return;
    }
    if (g.multi_play && starts_multi_play(g, s, p, a)) {
        note_placement(g, s, p, a);
        s.ref_colour = s.colour;
        s.hands[p][a] -= 1;
        s.hand_size[p] -= 1;
        s.discard.push_back(a);
        s.colour = g.colour_of[a];
        s.progress = true;
        s.has_multi = true;
        s.multi_rank = g.rank_of[a];
        s.multi_placed = 1;
        s.phase = MULTI_PLAY;
        return;
    }
    play_card(g, s, p, a);
}

void on_colour(const Rules &g, State &s, int a) {
    s.colour = a - g.colour0;
    s.colour_declarer = s.current_seat;
    run(g, s);
}

void on_play_or_keep(const Rules &g, State &s, int a) {
    int p = s.current_seat;
    s.drawn_kind = -1;
    if (a == g.pass) {
        s.next_seat = mod(p + s.direction, s.n);
        s.agenda.push_back(END_TURN_STEP);
        run(g, s);
    } else if (a >= g.num_kinds) {
        play_card(g, s, p, a - g.flex0, false, true, true);
    } else {
        play_card(g, s, p, a, false, false, true);
    }
}

void on_target(const Rules &g, State &s, int a) {
    int p = s.current_seat;
    s.target = a == g.self_target ? p : mod(p + a - g.target0 + 1, s.n);
    run(g, s);
}

void on_response(const Rules &g, State &s, int a) {
    int t = s.current_seat;
    if (a == g.accept) {
        absorb(g, s);
        run(g, s);
    } else if (a == g.challenge) {
        challenge(g, s, t);
        run(g, s);
    } else {
        s.turn_seat = t;
        play_card(g, s, t, a, true);
    }
}

void on_uno_call(const Rules &g, State &s, int a) {
    int p = s.current_seat;
    if (a == g.no_call) {
        if (g.uno_decide)
            penalty_draw(g, s, p);
        else
            s.agenda.push_back(Step{CATCH_STEP, p, 1, 0, 0, 3});
    }
    run(g, s);
}

void on_catch(const Rules &g, State &s, int a) {
    int p = s.waiting.a, i = s.waiting.b;
    if (a == g.catch_)
        penalty_draw(g, s, p);
    else if (i + 1 < s.n)
        s.agenda.push_back(Step{CATCH_STEP, p, i + 1, 0, 0, 3});
    run(g, s);
}

void on_jump_in(const Rules &g, State &s, int a) {
    int q = s.current_seat;
    if (a == g.pass) {
        s.agenda.push_back(s.waiting);
        run(g, s);
        return;
    }
    s.has_jump = false;
    s.turn_seat = q;
    play_card(g, s, q, a);
}

void on_multi_play(const Rules &g, State &s, int a) {
    int p = s.current_seat;
    int rank = s.multi_rank, placed = s.multi_placed;
    if (a != g.pass) {
        note_placement(g, s, p, a);
        s.hands[p][a] -= 1;
        s.hand_size[p] -= 1;
        s.discard.push_back(a);
        s.colour = g.colour_of[a];
        placed += 1;
        s.multi_placed = placed;
        for (int k : g.kinds_of_rank[rank])
            if (s.hands[p][k]) return;  // more cards of the rank: keep deciding
    }
    s.has_multi = false;
    resolve_placement(g, s, p, s.discard.back(), placed);
}

void compute_legal(const Rules &g, const State &s, std::vector<int> &acts) {
    int p = s.current_seat;
    acts.clear();
    switch (s.phase) {
        case TURN: {
            const auto &hand = s.hands[p];
            for (int k : g.playable_on[s.discard.back() * 4 + s.colour])
                if (hand[k] && (g.bluffing || !g.restricted[k] || !holds_colour(g, s, p, s.colour, k)))
                    acts.push_back(k);
            if (g.flex) flex_turn_plays(g, s, p, acts);
            acts.push_back(g.draw);
            return;
        }
        case CHOOSE_COLOUR:
            for (int c = 0; c < 4; ++c) acts.push_back(g.colour0 + c);
            return;
        case PLAY_OR_KEEP_DRAWN:
            drawn_card_plays(g, s, p, s.drawn_kind, &acts);
            acts.push_back(g.pass);
            return;
        case CHOOSE_TARGET:
            for (int off = 1; off < s.n; ++off)
                if (!s.eliminated[(p + off) % s.n]) acts.push_back(g.target0 + off - 1);
            if (g.self_target_allowed) acts.push_back(g.self_target);
            return;
        case CHALLENGE_OR_ACCEPT:
        case STACK_RESPONSE:
            response_actions(g, s, acts);
            return;
        case UNO_CALL:
            acts = {g.call, g.no_call};
            return;
        case CATCH:
            acts = {g.catch_, g.pass};
            return;
        case JUMP_IN:
            acts = {s.jump_kind, g.pass};
            return;
        case MULTI_PLAY: {
            const auto &hand = s.hands[p];
            for (int k : g.kinds_of_rank[s.multi_rank])
                if (hand[k]) acts.push_back(k);
            if (g.multi_any_subset || s.multi_placed == 1) acts.push_back(g.pass);
            return;
        }
        case OPTIMUS_PLACE:
            placeable(g, s, p, acts);
            acts.push_back(g.pass);
            return;
        default:
            return;
    }
}

}  // namespace

// ------------------------------------------------------------------ public

void State::resize(const Rules &r) {
    n = r.num_players;
    hands.assign(n, std::vector<int>(r.num_kinds, 0));
    hand_size.assign(n, 0);
    reveals.assign(n, Reveal{});
    scores.assign(n, 0);
    round_points.assign(n, 0);
    power.assign(n, 1);
    eliminated.assign(n, 0);
    voids.assign(n, 0);
    last_played.assign(n, -1);
}

// turn.number_starter (Flex AMB-A13): turn starters until a number card is on top
void number_starter(const Rules &g, State &s) {
    auto &pile = s.draw_pile;
    int kind = -1;
    while (true) {
        kind = pile.back();
        pile.pop_back();
        s.discard.push_back(kind);
        if (g.flip) {  // the physical card goes along
            s.physical_discard.push_back(s.physical_draw.back());
            s.physical_draw.pop_back();
        }
        if (g.effect_of[kind] == NUMBER || pile.empty()) break;
    }
    s.direction = 1;
    int first = (s.dealer + 1) % s.n;
    s.agenda.push_back(step1(START_TURN, first));
    if (g.is_wild[kind])
        s.agenda.push_back(step1(COLOUR, first));
    else
        s.colour = g.colour_of[kind];
}

void start_round_classic(const Rules &g, State &s) {
    auto &pile = s.draw_pile;
    int n = s.n, dealer = s.dealer;
    int kind = -1;
    std::size_t tries = pile.size();
    bool found = false;
    for (std::size_t i = 0; i < tries; ++i) {
        kind = pile.back();
        pile.pop_back();
        if (g.effect_of[kind] != WILD_DRAW_FOUR) {
            found = true;
            break;
        }
        pile.insert(pile.begin(), kind);  // a WD4 starter goes to the bottom of the draw pile
    }
    if (!found) throw std::invalid_argument("start: the draw pile holds only Wild Draw Fours");
    s.discard.push_back(kind);
    int effect = g.effect_of[kind];
    s.direction = 1;
    int first = (dealer + 1) % n;
    if (effect == WILD || effect == WILD_DRAW_FOUR) {
        s.agenda.push_back(step1(START_TURN, first));
        s.agenda.push_back(step1(COLOUR, first));
        return;
    }
    s.colour = g.colour_of[kind];
    if (effect == REVERSE) {
        s.direction = -1;
        first = dealer;
    } else if (effect == SKIP) {
        first = (dealer + 2) % n;
    } else if (effect == DRAW_TWO) {
        draw_cards(g, s, (dealer + 1) % n, 2);
        first = (dealer + 2) % n;
    }
    s.agenda.push_back(step1(START_TURN, first));
}

void build_tables(Rules &g) {
    g.playable_on.assign(static_cast<std::size_t>(g.num_kinds) * 4, {});
    for (int top = 0; top < g.num_kinds; ++top)
        for (int c = 0; c < 4; ++c)
            for (int k = 0; k < g.num_kinds; ++k)
                if (g.is_wild[k] || g.colour_of[k] == c || (!g.is_wild[top] && g.rank_of[k] == g.rank_of[top]))
                    g.playable_on[top * 4 + c].push_back(k);
}

// variants/attack.py's start_round: a Wild Attack starter goes back into the launcher (AMB-C5)
void attack_starter(const Rules &g, State &s) {
    if (s.launcher_rng == nullptr) {  // the launcher's own stream, derived once from the game's
        s.launcher_rng.seed(rng_integers_2_63(s.rng));  // numpy.random.default_rng(seed)
        s.launcher_owner.reset();
    }
    auto &pile = s.draw_pile;
    int dealer = s.dealer;
    bool other = std::any_of(pile.begin(), pile.end(), [&](int k) { return g.effect_of[k] != WILD_ATTACK; });
    int kind;
    while (true) {
        kind = pile.back();
        pile.pop_back();
        if (g.effect_of[kind] != WILD_ATTACK || pile.empty() || !other) break;
        auto at = rng_integers(s.rng, static_cast<int64_t>(pile.size()) + 1);
        pile.insert(pile.begin() + at, kind);
    }
    s.discard.push_back(kind);
    int effect = g.effect_of[kind];
    s.direction = 1;
    int first = seat_after(g, s, dealer);
    if (g.is_wild[kind]) {
        s.agenda.push_back(step1(START_TURN, first));
        s.agenda.push_back(step1(COLOUR, first));
        return;
    }
    s.colour = g.colour_of[kind];
    if (effect == REVERSE) {
        s.direction = -1;
        first = g.reverse_starter_right ? seat_after(g, s, dealer) : dealer;
    } else if (effect == SKIP) {
        first = seat_after(g, s, dealer, 2);
    } else if (effect == HIT_ONE || effect == HIT_TWO) {
        press_times(g, s, first, effect == HIT_ONE ? 1 : 2);
        first = seat_after(g, s, dealer, 2);
    }
    s.agenda.push_back(step1(START_TURN, first));
}

void start_round(const Rules &g, State &s) {
    if (g.starter == ATTACK_STARTER)
        attack_starter(g, s);
    else if (g.starter == NUMBER_STARTER)
        number_starter(g, s);
    else
        start_round_classic(g, s);
}

void run(const Rules &g, State &s) {
    while (!s.agenda.empty()) {
        Step st = s.agenda.back();
        s.agenda.pop_back();
        Step out;
        bool waits = false;
        switch (st.code) {
            case AFTER_PLACE: waits = step_after_place(g, s, st, out); break;
            case COLOUR: waits = step_colour(g, s, st, out); break;
            case UNO: waits = step_uno(g, s, st, out); break;
            case CATCH_STEP: waits = step_catch(g, s, st, out); break;
            case RESPOND: waits = step_respond(g, s, st, out); break;
            case END_TURN: waits = step_end_turn(g, s, st, out); break;
            case START_TURN: waits = step_start_turn(g, s, st, out); break;
            case TARGET: waits = step_target(g, s, st, out); break;
            case DUEL: waits = step_duel(g, s, st, out); break;
            case OPTIMUS_PLACE_STEP: waits = step_optimus_place(g, s, st, out); break;
            default: throw std::logic_error("unknown agenda step code");
        }
        if (waits) {
            s.has_waiting = true;
            s.waiting = out;
            return;
        }
    }
    s.has_waiting = false;
}

void new_game(const Rules &g, State &s) {
    s.resize(g);
    s.dealer = static_cast<int>(rng_integers(s.rng, g.num_players));
    deal_round(g, s);
    run(g, s);
}

const std::vector<int> &legal_actions(const Rules &g, State &s) {
    if (!s.legal_valid) {
        if (s.is_over)
            s.legal.clear();
        else
            compute_legal(g, s, s.legal);
        s.legal_valid = true;
    }
    return s.legal;
}

bool step(const Rules &g, State &s, int action) {
    if (s.is_over) return false;
    const auto &legal = legal_actions(g, s);
    if (std::find(legal.begin(), legal.end(), action) == legal.end()) return false;
    std::size_t num_legal = legal.size();
    s.legal_valid = false;
    int phase = s.phase;
    int side = s.side, round_index = s.round_index;
    switch (phase) {
        case TURN:
            if (action == g.draw) s.voids[s.current_seat] |= 1 << s.colour;
            on_turn(g, s, action, num_legal);
            break;
        case CHOOSE_COLOUR: on_colour(g, s, action); break;
        case PLAY_OR_KEEP_DRAWN: on_play_or_keep(g, s, action); break;
        case CHALLENGE_OR_ACCEPT:
        case STACK_RESPONSE: on_response(g, s, action); break;
        case UNO_CALL: on_uno_call(g, s, action); break;
        case CATCH: on_catch(g, s, action); break;
        case JUMP_IN: on_jump_in(g, s, action); break;
        case MULTI_PLAY: on_multi_play(g, s, action); break;
        case CHOOSE_TARGET: on_target(g, s, action); break;
        case OPTIMUS_PLACE: on_optimus_place(g, s, action); break;
        default: throw std::logic_error("no handler for this phase in the compiled core");
    }
    if (s.side != side || s.round_index != round_index) {
        std::fill(s.voids.begin(), s.voids.end(), 0);
        std::fill(s.last_played.begin(), s.last_played.end(), -1);
    }
    s.steps += 1;
    if (!s.is_over && s.steps >= g.max_steps) {
        s.truncated = true;
        s.winner = g.match ? match_leader(g, s) : -1;
        finish(s);
    }
    return true;
}

}  // namespace uno
