// The observation row of one seat, as uno_env/observation.py's ObservationEncoder.encode_into writes it, for
// every variant (the Classic family's blocks and the variants' own). The layout is not computed here: Python hands the encoder's block
// table over (ObservationEncoder.layout(): name -> (start, size)), so there is one declaration of it.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "engine.hpp"

namespace uno {

struct ObsLayout {
    int size = 0;   // floats per row
    int kinds = 0;  // card kinds (the hand, discard and revealed blocks)
    // the start of each block of the encoder's table
    int hand = 0, top_card = 0, colour = 0, phase = 0, deciding = 0, turn = 0, direction = 0, hand_sizes = 0;
    int seats = 0, penalty = 0, draw_pile = 0, discard = 0, revealed = 0, revealed_by = 0, scores = 0;
    int history = 0;
    // one relative seat's entry of the history block: its length and where each field starts in it
    int history_per_seat = 0, voids = 0, last_colour = 0, one_card = 0, two_cards = 0;
    // the variants' blocks (-1: the rules have none): Flex's power cards, Attack's hit stack, Flip's back faces
    // and last duel, with what they need of the rules (variants/flex.py, attack.py, flip.py: PowerBlock, HitBlock,
    // BackFacesBlock, DuelBlock)
    int power = -1, hits = -1, flip = -1, duel = -1;
    int max_players = 0, faces_per_side = 0;
    std::vector<int> face_index;       // Flip: a face kind's entry among its side's faces
    std::vector<uint8_t> optimus_kind; // Flip: the duel kinds that are Optimus (the others are Megatron)
    std::vector<int> phase_slot;  // per core phase (uno_env.state.Phase order): its one-hot entry, -1: none
    // the divisors, as Python divides: float64 quotients stored as float32
    double hand_size = 1.0, deck_size = 1.0, target_score = 1.0;
};

// The discard block of one game, kept between its rows: the pile as last counted and its counts per kind. A pile
// only grows between two rows of a game, unless it was reshuffled or dealt again: the cards already counted are
// checked to be the pile's first ones (one memcmp) and only the cards after them are counted; any other pile is
// counted afresh.
struct DiscardCounts {
    std::vector<int> pile;
    std::vector<float> counts;
    void update(const std::vector<int> &discard, int kinds);
};

// The layout from ObservationEncoder.layout()'s dict, checked against the rules (sizes, bounds, no block the
// core does not write).
ObsLayout layout_from(const pybind11::dict &table, const Rules &g);

// Write `seat`'s observation of `s` into `row` (layout.size floats), as encode_into does; `discard` is the game's
// DiscardCounts (none: the pile is counted here).
void encode_row(const ObsLayout &layout, const State &s, int seat, float *row, DiscardCounts *discard = nullptr);

}  // namespace uno
