// The observation encoder of the core: uno_env/observation.py's encode_into, block for block (read it first).
#include "observe.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace py = pybind11;

namespace uno {

namespace {

using Span = std::pair<int, int>;  // (start, size)

// The blocks this encoder writes, and the size each must have: K card kinds, 4 colours, or 0 for "at least
// one entry per seat" (the variant's maximum table, M), or -1 for the phase block (checked on its own).
enum Need { KINDS = -2, PER_SEAT = 0, PHASES = -1 };
const std::pair<const char *, int> BLOCKS[] = {
    {"hand", KINDS},       {"top_card", KINDS},   {"colour", 4},         {"phase", PHASES},
    {"deciding", PER_SEAT}, {"turn", PER_SEAT},   {"direction", 1},      {"hand_sizes", PER_SEAT},
    {"seats", PER_SEAT},   {"penalty", 3},        {"draw_pile", 1},      {"discard", KINDS},
    {"revealed", KINDS},   {"revealed_by", PER_SEAT}, {"scores", PER_SEAT}, {"history", PER_SEAT},
};
const std::pair<const char *, int> HISTORY_FIELDS[] = {{"voids", 4}, {"last_colour", 5}, {"one_card", 1},
                                                       {"two_cards", 1}};

[[noreturn]] void bad(const std::string &what) { throw std::invalid_argument("observation layout: " + what); }

// The variants' blocks, and whether the rules have each (a block of another variant is refused).
const std::pair<const char *, bool Rules::*> VARIANT_BLOCKS[] = {
    {"power", &Rules::flex}, {"hits", &Rules::attack}, {"flip", &Rules::flip}, {"duel", &Rules::flip}};

void read_variant_blocks(const py::dict &table, std::map<std::string, Span> &blocks, const Rules &g, ObsLayout &L) {
    const int k = g.num_kinds;
    L.max_players = table.contains("max_players") ? table["max_players"].cast<int>() : 0;
    const int m = L.max_players;
    if (m < g.num_players || m > 64) bad("max_players must be the variant's largest table (at least these rules' seats)");
    int *start_of[] = {&L.power, &L.hits, &L.flip, &L.duel};
    int i = 0;
    for (const auto &b : VARIANT_BLOCKS) {
        int &start = *start_of[i++];
        auto it = blocks.find(b.first);
        if (it == blocks.end()) {
            if (g.*(b.second)) bad(std::string("block '") + b.first + "' is missing (these rules have it)");
            continue;
        }
        if (!(g.*(b.second))) bad(std::string("block '") + b.first + "' does not belong to these rules");
        start = it->second.first;
    }
    auto need = [&](const char *name, int start, int size) {
        if (start >= 0 && blocks[name].second != size)
            bad(std::string("block '") + name + "' has " + std::to_string(blocks[name].second) + " entries; these "
                "rules need " + std::to_string(size));
    };
    need("power", L.power, m);
    need("hits", L.hits, 2 + m);
    need("duel", L.duel, 2 + 2 * m + 2 * k);
    if (L.flip >= 0) {
        L.faces_per_side = table["faces_per_side"].cast<int>();
        L.face_index = table["face_index"].cast<std::vector<int>>();
        L.optimus_kind = table["optimus_kinds"].cast<std::vector<uint8_t>>();
        const int f = L.faces_per_side;
        if (f < 1 || f > k) bad("faces_per_side must be 1 to the number of card kinds");
        if (static_cast<int>(L.face_index.size()) != k || static_cast<int>(L.optimus_kind.size()) != k)
            bad("face_index and optimus_kinds need one entry per card kind");
        for (int x : L.face_index)
            if (x < 0 || x >= f) bad("a face index lies outside its side's faces");
        need("flip", L.flip, 1 + m * f);
    }
}

std::map<std::string, Span> spans(const py::dict &d, const char *what) {
    std::map<std::string, Span> out;
    for (auto item : d) out[item.first.cast<std::string>()] = item.second.cast<Span>();
    if (out.empty()) bad(std::string("no ") + what);
    return out;
}

inline int mod(int a, int n) { return ((a % n) + n) % n; }

}  // namespace

ObsLayout layout_from(const py::dict &table, const Rules &g) {
    ObsLayout L;
    L.size = table["size"].cast<int>();
    L.kinds = g.num_kinds;
    if (L.size < 1 || L.size > (1 << 20)) bad("size must be 1 to 1048576 floats");
    auto blocks = spans(table["blocks"].cast<py::dict>(), "blocks");
    std::string known;
    for (const auto &b : BLOCKS) known += std::string(known.empty() ? "" : ", ") + b.first;
    for (const auto &b : blocks) {
        bool ours = std::any_of(std::begin(BLOCKS), std::end(BLOCKS), [&](const auto &k) { return b.first == k.first; });
        bool variant = std::any_of(std::begin(VARIANT_BLOCKS), std::end(VARIANT_BLOCKS),
                                   [&](const auto &k) { return b.first == k.first; });
        if (!ours && !variant)
            bad("block '" + b.first + "' is a block the compiled encoder does not write (it writes " + known +
                ", and the variants' power, hits, flip and duel)");
        auto [start, size] = b.second;
        if (start < 0 || size < 1 || start + size > L.size)
            bad("block '" + b.first + "' does not lie within the row of " + std::to_string(L.size) + " floats");
    }
    int hps = 0;
    auto fields = spans(table["history_fields"].cast<py::dict>(), "history fields");
    for (const auto &f : fields) hps = std::max(hps, f.second.first + f.second.second);
    int *field_at[] = {&L.voids, &L.last_colour, &L.one_card, &L.two_cards};
    int i = 0;
    for (const auto &f : HISTORY_FIELDS) {
        auto it = fields.find(f.first);
        if (it == fields.end() || it->second.second != f.second || it->second.first < 0)
            bad(std::string("the history field '") + f.first + "' must have " + std::to_string(f.second) + " entries");
        *field_at[i++] = it->second.first;
    }
    L.history_per_seat = hps;
    int *start_of[] = {&L.hand,  &L.top_card,  &L.colour,  &L.phase,    &L.deciding, &L.turn,
                       &L.direction, &L.hand_sizes, &L.seats, &L.penalty, &L.draw_pile, &L.discard,
                       &L.revealed, &L.revealed_by, &L.scores, &L.history};
    i = 0;
    for (const auto &b : BLOCKS) {
        auto it = blocks.find(b.first);
        if (it == blocks.end()) bad(std::string("block '") + b.first + "' is missing");
        int size = it->second.second, need = b.second;
        bool fits = need == KINDS      ? size == g.num_kinds
                    : need == PER_SEAT ? size >= (std::string(b.first) == "history" ? hps : 1) * g.num_players
                    : need == PHASES   ? true
                                       : size == need;
        if (!fits) bad(std::string("block '") + b.first + "' has " + std::to_string(size) + " entries, which does "
                       "not fit these rules (" + std::to_string(g.num_kinds) + " card kinds, " +
                       std::to_string(g.num_players) + " seats)");
        *start_of[i++] = it->second.first;
    }
    read_variant_blocks(table, blocks, g, L);
    L.phase_slot = table["phase_slots"].cast<std::vector<int>>();
    int phases = blocks["phase"].second;
    if (static_cast<int>(L.phase_slot.size()) != NUM_PHASES) bad("phase_slots needs one entry per phase");
    for (int slot : L.phase_slot)
        if (slot < -1 || slot >= phases) bad("a phase slot lies outside the phase block");
    L.hand_size = table["hand_size"].cast<int>();
    L.deck_size = table["deck_size"].cast<int>();
    L.target_score = table["target_score"].cast<int>();
    if (L.hand_size <= 0 || L.deck_size <= 0 || L.target_score <= 0)
        bad("hand_size, deck_size and target_score must be above 0");
    return L;
}

void DiscardCounts::update(const std::vector<int> &discard, int kinds) {
    std::size_t seen = pile.size();
    if (static_cast<int>(counts.size()) == kinds && discard.size() >= seen &&
        std::equal(pile.begin(), pile.end(), discard.begin())) {
        for (std::size_t i = seen; i < discard.size(); ++i) counts[discard[i]] += 1.0f;
        pile.insert(pile.end(), discard.begin() + static_cast<std::ptrdiff_t>(seen), discard.end());
        return;
    }
    counts.assign(kinds, 0.0f);
    for (int kind : discard) counts[kind] += 1.0f;
    pile = discard;
}

// BackFacesBlock: the active side, each opponent's cards by the face seat does not see played (never its own
// hand's), the draw pile's top back face.
void encode_flip(const ObsLayout &L, const State &s, int seat, float *out) {
    const int n = s.n, k = L.kinds, f = L.faces_per_side, other = 1 - s.side;
    auto face = [&](int code) { return other == 0 ? code / k : code % k; };
    out[0] = static_cast<float>(s.side);
    for (int r = 1; r < n; ++r) {
        float *base = out + 1 + (r - 1) * f;
        for (int c : s.physical_hands[(seat + r) % n]) base[L.face_index[face(c)]] += 1.0f;
    }
    if (!s.physical_draw.empty()) out[1 + (L.max_players - 1) * f + L.face_index[face(s.physical_draw.back())]] = 1.0f;
}

void encode_row(const ObsLayout &L, const State &s, int seat, float *row, DiscardCounts *discard) {
    const int n = s.n, kinds = L.kinds;
    if (s.discard.empty()) throw std::logic_error("observation: the discard pile is empty");
    std::fill(row, row + L.size, 0.0f);
    const int *hand = s.hands[seat].data();
    float *to = row + L.hand;
    for (int k = 0; k < kinds; ++k) to[k] = static_cast<float>(hand[k]);  // local pointers: a vectorised loop
    row[L.top_card + s.discard.back()] = 1.0f;
    row[L.colour + s.colour] = 1.0f;
    if (s.current_seat == seat) {
        // only the deciding seat sees the decision (encode_into says why)
        int slot = L.phase_slot[s.phase];
        if (slot < 0) throw std::logic_error("observation: the phase has no entry in the phase block");
        row[L.phase + slot] = 1.0f;
        row[L.deciding] = 1.0f;
    }
    row[L.turn + mod(s.turn_seat - seat, n)] = 1.0f;
    row[L.direction] = static_cast<float>(s.direction);
    for (int r = 0; r < n; ++r) {
        int q = (seat + r) % n;
        // Python divides ints into a float64 and numpy stores it as float32: the same two roundings here
        row[L.hand_sizes + r] = static_cast<float>(s.hand_size[q] / L.hand_size);
        row[L.seats + r] = 1.0f;
        row[L.scores + r] = static_cast<float>(s.scores[q] / L.target_score);
    }
    if (s.has_penalty) {
        row[L.penalty] = static_cast<float>(s.penalty.total / 4.0);
        row[L.penalty + 1] = s.penalty.target == seat ? 1.0f : 0.0f;
        row[L.penalty + 2] = s.penalty.has_challenge ? 1.0f : 0.0f;
    }
    row[L.draw_pile] = static_cast<float>(static_cast<double>(s.draw_pile.size()) / L.deck_size);
    // counts per kind, exact in float32 (far below 2**24)
    if (discard != nullptr) {
        discard->update(s.discard, L.kinds);
        std::copy(discard->counts.begin(), discard->counts.end(), row + L.discard);
    } else {
        for (int kind : s.discard) row[L.discard + kind] += 1.0f;
    }
    const Reveal &shown = s.reveals[seat];
    if (shown.set) {
        const int *counts = shown.counts.data();
        to = row + L.revealed;
        for (int k = 0, m = std::min(static_cast<int>(shown.counts.size()), kinds); k < m; ++k)
            to[k] = static_cast<float>(counts[k]);
        row[L.revealed_by + mod(shown.seat - seat, n)] = 1.0f;
    }
    if (L.power >= 0)
        for (int r = 0; r < n; ++r) row[L.power + r] = s.power[(seat + r) % n] ? 1.0f : 0.0f;
    if (L.hits >= 0 && s.has_penalty) {
        row[L.hits] = static_cast<float>(s.penalty.total);
        row[L.hits + 1] = static_cast<float>(s.penalty.cards);
        row[L.hits + 2 + mod(s.penalty.target - seat, n)] = 1.0f;
    }
    if (L.flip >= 0) encode_flip(L, s, seat, row + L.flip);
    if (L.duel >= 0 && s.has_duel) {
        float *out = row + L.duel;
        const int m = L.max_players;
        out[L.optimus_kind[s.duel_kind] ? 0 : 1] = 1.0f;
        out[2 + mod(s.duel_p - seat, n)] = 1.0f;
        out[2 + m + mod(s.duel_t - seat, n)] = 1.0f;
        for (int c : s.duel_shown_p) out[2 + 2 * m + c] += 1.0f;
        for (int c : s.duel_shown_t) out[2 + 2 * m + kinds + c] += 1.0f;
    }
    for (int r = 0; r < n; ++r) {
        int q = (seat + r) % n;
        float *base = row + L.history + L.history_per_seat * r;
        int voids = s.voids[q];
        for (int c = 0; c < 4; ++c)
            if (voids >> c & 1) base[L.voids + c] = 1.0f;
        if (s.last_played[q] >= 0) base[L.last_colour + s.last_played[q]] = 1.0f;
        int size = s.hand_size[q];
        if (size == 1)
            base[L.one_card] = 1.0f;
        else if (size == 2)
            base[L.two_cards] = 1.0f;
    }
}

}  // namespace uno
