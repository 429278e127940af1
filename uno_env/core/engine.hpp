// The compiled twin of the Python engine (uno_env/turn.py, uno_env/game.py, uno_env/variants/classic.py).
//
// Every function here mirrors the Python function of the same name, step for step: the same agenda
// steps pushed in the same order, the same random draws from the same numpy bit generator (through
// numpy's own C distributions, numpy/random/lib/libnpyrandom.a), so a seed gives the same game in both.
// The Python engine is the reference; tests/rules/test_native_differential.py is the guard.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" {
#include "numpy/random/bitgen.h"
}

#include "random.hpp"

namespace uno {

// The order of uno_env.state.Phase.
enum Phase : int {
    TURN, CHOOSE_COLOUR, PLAY_OR_KEEP_DRAWN, CHALLENGE_OR_ACCEPT, STACK_RESPONSE, UNO_CALL, CATCH, JUMP_IN,
    MULTI_PLAY, GAME_OVER, CHOOSE_TARGET, OPTIMUS_PLACE, NUM_PHASES
};

// uno_env.cards.Effect (those the core's variants use).
enum Effect : int {
    NUMBER = 0, SKIP = 1, REVERSE = 2, DRAW_TWO = 3, WILD = 4, WILD_DRAW_FOUR = 5,
    FLEX_SKIP = 6, FLEX_REVERSE = 7, FLEX_DRAW_TWO = 8, WILD_ALL_FLIP = 9, WILD_TARGET_DRAW_TWO = 10,
    WILD_ALL_DRAW = 11, DRAW_ONE = 12, DRAW_FIVE = 13, SKIP_EVERYONE = 14, FLIP = 15, OPTIMUS = 16,
    WILD_DRAW_TWO = 17, MEGATRON = 18, WILD_DRAW_COLOUR = 19, DISCARD_ALL = 20, HIT_ONE = 21, HIT_TWO = 22, WILD_ATTACK = 23
};

// The Python effect handler each card kind runs (Game.effect_fn_of): uno_env/core/native.py maps every
// handler function the core mirrors to one of these, and a game with any other is not covered.
enum Handler : int {
    H_NUMBER, H_SKIP, H_REVERSE, H_DRAW_TWO, H_WILD, H_WILD_DRAW_FOUR,                   // turn.effect_*
    H_FLEX_SKIP, H_FLEX_REVERSE, H_FLEX_DRAW_TWO, H_TARGET_DRAW_TWO, H_ALL_DRAW, H_FLEX_W4F,  // variants/flex.py
    H_DISCARD_ALL, H_HIT_ONE, H_HIT_TWO, H_WILD_ATTACK,                                    // variants/attack.py
    H_DRAW_ONE, H_DRAW_FIVE, H_SKIP_EVERYONE, H_FLIP, H_WILD_DRAW_TWO, H_WILD_DRAW_COLOUR,   // variants/flip.py
    NUM_HANDLERS
};

// The variant's starter rule (VariantDef.start_round).
enum Starter : int { CLASSIC_STARTER, NUMBER_STARTER, ATTACK_STARTER };

// Attack's launcher models (attack.launcher_model).
enum LauncherModel : int { GEOMETRIC, CATEGORICAL, FIXED, SCRIPTED };
// attack.wild_attack_resume
enum WildAttackResume : int { SECOND_FROM_ATTACKER, NEXT_AFTER_ATTACKER, NEXT_AFTER_TARGET };

// Agenda step codes of uno_env/turn.py, then Flip's own (variants/flip.py: DUEL, OPTIMUS_PLACE_STEP).
enum StepCode : int { AFTER_PLACE, COLOUR, UNO, CATCH_STEP, RESPOND, END_TURN, START_TURN, TARGET, DUEL,
                      OPTIMUS_PLACE_STEP };

// One agenda step: Python's tuple (code, a, b, c, d) of `len` elements.
struct Step {
    int code = 0, a = 0, b = 0, c = 0, d = 0;
    int len = 1;
};

struct Penalty {
    int total = 0, target = 0, last_effect = 0;
    bool has_challenge = false;
    int offender = 0;
    bool guilty = false;
    int resume = -1, until = -1, origin = -1, cards = 1;
    bool deflected = false;
};

// What one seat was shown of another's hand (State.reveals), and what is still shown (State.shown).
struct Reveal {
    bool set = false;
    int seat = 0;
    std::vector<int> counts;
};
struct Shown {
    int observer = 0, holder = 0;
    std::vector<int> counts;
};

// The immutable tables and options of one rule set (uno_env.game.Game), filled from Python.
struct Rules {
    int num_players = 2, num_kinds = 0, num_colours = 4, hand_size = 7;
    std::vector<int> colour_of, rank_of, effect_of, points_of;
    std::vector<uint8_t> is_wild, restricted, multi_effect;
    std::vector<std::vector<int>> kinds_of_colour, kinds_of_rank;
    std::vector<int> wild_kinds, response_kinds, deck_array;
    std::vector<int> handler;  // per kind: its Handler
    std::vector<std::vector<int>> playable_on;  // [top * 4 + colour] -> kinds placeable (Game.playable_on)
    int starter = CLASSIC_STARTER;
    // Flex (variants/flex.py): FLEX-mode plays, power cards, targeted wilds
    bool flex = false, flexable_counts = false, self_target_allowed = false, flex_w4f_restricted = false;
    std::vector<uint8_t> flip_icon, flex_target, flex_restricted;
    std::vector<std::vector<int>> kinds_of_flex_colour;
    std::vector<std::vector<int>> flex_playable_on;  // [top * 4 + colour] -> kinds playable FLEX
    std::vector<int> flex_wild_kinds;
    // Attack (variants/attack.py): the card launcher, hits, Wild Attack's target
    bool attack = false, empty_press_progress = true, mass_hit_after_first = true, reverse_starter_right = true;
    int launcher_model = GEOMETRIC, max_burst = 10, fixed_k = 1, wild_attack_resume = SECOND_FROM_ATTACKER;
    double p_fire = 0.5, q = 0.5;
    std::vector<double> cumulative;  // categorical model: the cumulative burst probabilities (numpy's)
    std::vector<uint8_t> attack_kind;  // kinds that are a Wild Attack
    // Flip (variants/flip.py): two-sided physical cards (code a * K + d), duels, Optimus placements
    bool flip = false, rng_pairing = true, megatron_missing_loses = false, optimus_place_requires_match = false;
    bool last_card_flip_resolves = true, until_wild_satisfies = false;
    std::vector<int> fixed_pairing, a_faces, d_faces, number_kinds, number_value;
    std::vector<uint8_t> duel_kind;
    // action layout
    int draw = 0, colour0 = 0, target0 = -1, self_target = -1, flex0 = -1;
    int challenge = 0, accept = 0, call = 0, no_call = 0, catch_ = 0, pass = 0, num_actions = 0;
    // options
    bool uno_asks = false, uno_decide = false, bluffing = true, winner_takes = true, match = false;
    bool elimination = false, reverse_as_skip = true, draw_until_playable = false, jump_in = false;
    bool jump_in_wild = false, multi_play = false, multi_any_legal = false, multi_any_subset = false;
    bool madness = false, madness_free = false, wild_counts_as_match = false;
    int target_score = 500, max_steps = 5000, wild_miss_draw = 1, uno_penalty = 2, challenge_fail_extra = 2;
    int dealer_rotation = 0;  // 0 clockwise, 1 random, 2 winner
    int stacking = 0;         // 0 off, 1 draw_two_only, 2 same_value, 3 any
};

struct State {
    int n = 2;
    std::vector<std::vector<int>> hands;
    std::vector<int> hand_size, draw_pile, discard;
    int colour = 0, direction = 1, turn_seat = 0, current_seat = 0, phase = TURN;
    std::vector<Step> agenda;
    bool has_waiting = false;
    Step waiting;
    int next_seat = 0;
    bool has_penalty = false;
    Penalty penalty;
    int drawn_kind = -1;
    bool has_multi = false;
    int multi_rank = 0, multi_placed = 0;
    bool has_jump = false;
    int jump_kind = 0, jump_placer = 0;
    int ref_colour = 0, colour_declarer = -1;
    std::vector<Reveal> reveals;
    int winner = -1;  // -1: None
    bool is_over = false, truncated = false, blocked = false;
    std::vector<int> scores, round_points;
    int round_winner = -1;  // -1: None
    int dealer = 0, round_index = 0, steps = 0, idle_turns = 0;
    bool progress = false;
    std::vector<uint8_t> power;
    bool flex_play = false;
    int target = -1, side = 0;
    std::vector<uint8_t> eliminated;
    std::vector<int> voids, last_played;
    std::vector<Shown> shown;
    RngSlot rng;  // the state's generator: its own PCG64 or a numpy bit generator owned on the Python side
    // Attack: the launcher's own generator (a numpy one kept alive by launcher_owner) and a spec's scripted bursts
    RngSlot launcher_rng;
    std::shared_ptr<void> launcher_owner;
    std::vector<int> launcher_script;
    // Flip: the game's physical cards and where each is (piles in the same order as the faces above)
    std::vector<int> deck_cards, physical_draw, physical_discard;
    std::vector<std::vector<int>> physical_hands;
    bool has_duel = false;  // the last duel: (kind, originator, target, shown_o, shown_t)
    int duel_kind = 0, duel_p = 0, duel_t = 0;
    std::vector<int> duel_shown_p, duel_shown_t;
    // cached legal actions of the current decision
    bool legal_valid = false;
    std::vector<int> legal;

    void resize(const Rules &r);
};

class IllegalAction : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The facade's operations (uno_env.game.Game).
void new_game(const Rules &g, State &s);  // dealer drawn, round dealt, starter resolved
const std::vector<int> &legal_actions(const Rules &g, State &s);
bool step(const Rules &g, State &s, int action);  // false (state unchanged) when the action is not legal
void run(const Rules &g, State &s);
void start_round(const Rules &g, State &s);
void build_tables(Rules &g);  // the tables the core derives from the ones it is given (playable_on)
// turn.holds_colour: whether `seat` holds a card matching `colour` (a restricted wild's verdict), not
// counting one copy of `playing`; Game._drawn_card_plays: whether the card just drawn could be played (and how)
bool holds_colour(const Rules &g, const State &s, int seat, int colour, int playing = -1);
bool drawn_card_plays(const Rules &g, const State &s, int p, int kind, std::vector<int> *acts = nullptr);

}  // namespace uno
