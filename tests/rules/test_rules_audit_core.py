"""Audit of the common core, Classic / Alphabet / Xiangqi and the house rules HR-1..HR-6 against the
rules contract (docs/rules.md). Every test names the docs/rules.md section it checks.

The first block pins a divergence the audit found (a last-card Reverse turned the direction;
fixed). The rest pins down contract behaviour that the scenario tables in
``test_rules_scenarios.py`` / ``test_rules_regressions.py`` do not already cover.

Conventions as docs/rules.md §6: ``uno_call = always``, ``draw_rule = draw_one``, house rules off,
``restricted_wild_bluffing = true``; P0 acts unless ``current`` says otherwise.
"""
from __future__ import annotations

from collections import Counter

import pytest

from uno_env import Game
from uno_env.errors import IllegalActionError, RuleError


# --------------------------------------------------------------------------- helpers

def new(spec: dict, **options):
    """Game and state of a scenario spec (``options`` are added to the spec's own)."""
    spec = dict(spec)
    opts = {**(spec.get("options") or {}), **options}
    spec["options"] = opts
    n = spec.get("players") or len(spec["hands"])
    game = Game(spec.get("variant", "classic"), num_players=n, **opts)
    return game, game.state_from_spec(spec)


def do(game, state, *actions):
    for action in actions:
        game.step(state, game.action_from_string(action, state))
    return state


def hand(game, state, seat):
    return Counter(game.hand_cards(state, seat))


def cards(game, names):
    return Counter(game.card_name(game.parse_card(c)) for c in names)


def spec_of(game, state):
    return game.to_spec(state)


FILL4 = [["Y1", "Y2"], ["B2", "B3"], ["Y6", "B8"]]  # P1..P3: no red, no 5/7/9, no draw or action cards


# =========================================================================== divergences found by the audit (fixed)

@pytest.mark.parametrize("players,options,hands,actions", [
    # a single Reverse as the last card
    (4, {}, [["RR"], *FILL4], ["play RR"]),
    (3, {}, [["RR"], ["Y1", "Y2"], ["B2", "B3"]], ["play RR"]),
    # HR-3: three Reverses as the last cards (odd count: a resolved effect would flip the direction)
    (4, {"multi_play": "on"}, [["RR", "BR", "GR"], *FILL4], ["play RR", "play BR", "play GR"]),
], ids=["4p", "3p", "multi_play_3_reverses"])
def test_last_card_reverse_is_not_resolved(players, options, hands, actions):
    """docs/rules.md §1.9 CORE-24: "Skips, reverses and the Optimus/Megatron duels are not resolved."

    A Reverse that empties its player's hand ends the round; its direction change is not carried
    out, so the direction stays +1.
    """
    game, s = new({"players": players, "discard": ["R7"], "hands": hands}, **options)
    do(game, s, *actions)
    assert s.is_over and s.winner == 0
    assert s.direction == 1, "the last card's Reverse was resolved (direction flipped)"
    assert spec_of(game, s)["direction"] == 1


# =========================================================================== §1.2 setting up a round

@pytest.mark.parametrize("variant,hand_size", [("classic", 7), ("alphabet", 14), ("xiangqi", 7)])
def test_new_state_deal_and_first_player(variant, hand_size):
    """docs/rules.md §1.2 CORE-2/CORE-4, §2.5, §2.6: H cards each; with a number starter the player left of the
    dealer starts clockwise."""
    game = Game(variant, num_players=4)
    plain = 0
    for seed in range(30):
        s = game.new_state(seed)
        top = s.discard[-1]
        if game.effect_of[top] != 0:  # only plain number / letter / piece starters here
            continue
        plain += 1
        assert s.hand_size == [hand_size] * 4
        assert s.current_seat == (s.dealer + 1) % 4 and s.direction == 1 and s.phase == "TURN"
    assert plain > 0


@pytest.mark.parametrize("variant,counts,points", [
    ("classic", {"R0": 1, "R5": 2, "RS": 2, "RR": 2, "R+2": 2, "W": 4, "W4": 4},
     {"R0": 0, "R9": 9, "BS": 20, "GR": 20, "Y+2": 20, "W": 50, "W4": 50}),
    ("alphabet", {"R-A": 2, "B-Z": 2, "GS": 4, "YR": 4, "R+2": 4, "W": 8, "W4": 8},
     {"R-A": 1, "G-M": 13, "B-Z": 26, "GS": 30, "YR": 30, "R+2": 30, "W": 60, "W4": 60}),
    ("xiangqi", {"R-帥": 1, "G-將": 1, "Y-仕": 2, "B-卒": 5, "RS": 2, "R+2": 2, "W": 4, "W4": 4},
     {"R-帥": 10, "B-將": 10, "G-士": 5, "Y-相": 5, "R-俥": 5, "B-馬": 5, "G-包": 5, "Y-兵": 2, "GS": 20,
      "W": 50, "W4": 50}),
])
def test_deck_composition_and_card_values(variant, counts, points):
    """docs/rules.md §2.1 (108 cards), §2.5 (272 itemised cards, AMB-D1), §2.6 (96 cards): copies and points."""
    game = Game(variant, num_players=2)
    total = {"classic": 108, "alphabet": 272, "xiangqi": 96}[variant]
    assert game.deck.size == total == sum(game.deck.count_of)
    for card, n in counts.items():
        assert game.deck.count_of[game.parse_card(card)] == n, card
    for card, v in points.items():
        assert game.points_of[game.parse_card(card)] == v, card


@pytest.mark.parametrize("top,legal", [
    ("R-R", {"play G-R", "play W", "draw"}),   # letter R matches letter R, not the Reverse
    ("RR", {"play GR", "play W", "draw"}),     # Reverse matches Reverse, not the letter R
    ("R-W", {"play B-W", "play W", "draw"}),   # letter W matches letter W; the wild matches anything
])
def test_alphabet_letters_r_and_w_are_not_reverse_and_wild(top, legal):
    """docs/rules.md §2.5 matching ("颜色或字母或功能相同的牌或万能牌") with §0.3 notation (R-Q letters, RR, W)."""
    game, s = new({"variant": "alphabet", "players": 3, "discard": [top],
                   "hands": [["G-R", "GR", "B-W", "W"], ["Y-B"], ["Y-C"]]})
    assert set(game.legal_action_strings(s)) == legal


# =========================================================================== §1.5 drawing

def test_reshuffle_in_the_middle_of_a_draw_two():
    """docs/rules.md §1.5 CORE-11: "Multi-card draws reshuffle mid-draw as often as needed"; the top card stays."""
    game, s = new({"players": 3, "unplaced": "discard", "discard": ["G3", "B4", "R7"], "draw_pile": ["Y9"],
                   "hands": [["R+2", "G1"], ["Y1", "Y2"], ["B1", "B2"]]})
    before = len(spec_of(game, s)["discard"])
    do(game, s, "play R+2")
    sp = spec_of(game, s)
    assert sp["discard"] == ["R+2"]  # every other discard went into the new draw pile
    assert len(sp["hands"][1]) == 4 and "Y9" in sp["hands"][1]
    assert len(sp["draw_pile"]) == before - 1  # all `before` discards reshuffled, minus the one drawn
    assert s.current_seat == 2


def test_exhaustion_forfeits_the_rest_of_a_penalty():
    """docs/rules.md §1.5 CORE-12: with nothing left to draw "the remaining draws are forfeited"; the victim still
    loses the turn."""
    # 108 = 1 on the pile + 2 to draw + P0 2 + P1 2 + P2 101
    game, s = new({"players": 3, "discard": ["G5"], "draw_pile": ["Y7", "Y8"],
                   "hands": [["W4", "R2"], ["Y1", "Y2"], 101]})
    do(game, s, "play W4", "colour B", "accept")
    # Y7, Y8, then G5 from the reshuffled discard (the W4 stays on top); the fourth draw is forfeited
    assert hand(game, s, 1) == cards(game, ["Y1", "Y2", "Y7", "Y8", "G5"])
    assert spec_of(game, s)["discard"] == ["W4"] and spec_of(game, s)["draw_pile"] == []
    assert s.current_seat == 2 and s.phase == "TURN" and not s.is_over


def test_draw_until_playable_stops_when_the_piles_run_dry():
    """docs/rules.md §3 HR-5 step 3: "If the piles are exhausted first, the turn ends (CORE-12)"."""
    game, s = new({"players": 3, "discard": ["R7"], "draw_pile": ["Y1", "G2"],
                   "hands": [["G3", "B5"], 51, 52]}, draw_rule="draw_until_playable")
    do(game, s, "draw")
    assert hand(game, s, 0) == cards(game, ["G3", "B5", "Y1", "G2"])
    assert s.current_seat == 1 and s.phase == "TURN" and spec_of(game, s)["discard"] == ["R7"]


# =========================================================================== §1.7 restricted wilds

def test_wd4_holding_only_number_and_symbol_matches_is_innocent():
    """docs/rules.md §1.7 CORE-16: "Holding cards that match only by number/symbol does not violate it"."""
    game, s = new({"players": 3, "discard": ["R7", "R+2"], "hands": [["W4", "G7", "B+2"], ["Y1", "Y2"], ["B1"]]})
    do(game, s, "play W4", "colour G", "challenge")
    assert len(game.hand_cards(s, 1)) == 2 + 6 and hand(game, s, 0) == cards(game, ["G7", "B+2"])
    assert s.current_seat == 2


def test_wd4_holding_a_coloured_action_card_of_the_reference_colour_is_guilty():
    """docs/rules.md §1.7 CORE-16/18: any held card of the reference colour (an action card too) makes it guilty."""
    game, s = new({"players": 3, "discard": ["G5"], "hands": [["W4", "GS", "B1"], ["Y1", "Y2"], ["B2"]]})
    do(game, s, "play W4", "colour B", "challenge")
    assert len(game.hand_cards(s, 0)) == 2 + 4 and hand(game, s, 1) == cards(game, ["Y1", "Y2"])
    assert s.current_seat == 1 and spec_of(game, s)["colour"] == "B"


@pytest.mark.parametrize("variant,held", [("alphabet", ["W", "R-C"]), ("xiangqi", ["W", "R-兵"])])
def test_alphabet_xiangqi_held_wilds_do_not_count(variant, held):
    """docs/rules.md §1.7 CORE-16 (Alphabet, Xiangqi: "no"), §4.6 AMB-D5: a held wild is no colour match."""
    top = {"alphabet": "G-Q", "xiangqi": "G-卒"}[variant]
    game, s = new({"variant": variant, "players": 3, "discard": [top],
                   "hands": [["W4", *held], 4, 4]})
    do(game, s, "play W4", "colour Y", "challenge")
    assert len(game.hand_cards(s, 1)) == 4 + 6 and s.current_seat == 2


def test_wd4_victim_counter_clockwise():
    """docs/rules.md §1.7 CORE-18: the victim is next(p); with dir = -1 that is the seat to the right."""
    game, s = new({"players": 4, "direction": -1, "discard": ["G5"],
                   "hands": [["W4", "R2"], ["Y1", "Y2"], ["Y3", "Y4"], ["Y5", "Y6"]]})
    do(game, s, "play W4", "colour B")
    assert s.phase == "CHALLENGE_OR_ACCEPT" and s.current_seat == 3
    do(game, s, "challenge")  # innocent: P3 draws 6 and loses the turn
    assert len(game.hand_cards(s, 3)) == 8 and s.current_seat == 2 and s.direction == -1


# =========================================================================== §1.8 UNO call

def test_uno_call_after_playing_the_drawn_card():
    """docs/rules.md §1.8 CORE-20/22: a PLAY_DRAWN that leaves one card owes the call (`decide`)."""
    game, s = new({"players": 3, "discard": ["R7"], "draw_pile": ["R9"],
                   "hands": [["G1"], ["Y1", "Y2"], ["B1", "B2"]]}, uno_call="decide")
    do(game, s, "draw", "play R9")
    assert s.phase == "UNO_CALL" and s.current_seat == 0
    do(game, s, "no-call")
    assert len(game.hand_cards(s, 0)) == 3 and s.current_seat == 1


def test_explicit_call_and_catch_poll_come_before_the_stack_decision():
    """docs/rules.md §1.6 step 7 / AMB-G11: call and catch poll precede another player's stack decision."""
    game, s = new({"players": 4, "discard": ["R7"], "draw_pile": ["Y8", "Y9"],
                   "hands": [["R+2", "G1"], ["B+2", "Y1"], ["Y3", "Y4"], ["Y5", "Y6"]]},
                  stacking="any", uno_call="explicit")
    do(game, s, "play R+2")
    assert s.phase == "UNO_CALL" and s.current_seat == 0
    do(game, s, "no-call")
    assert s.phase == "CATCH" and s.current_seat == 1
    do(game, s, "catch")
    assert hand(game, s, 0) == cards(game, ["G1", "Y8", "Y9"])
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 1
    assert set(game.legal_action_strings(s)) == {"play B+2", "accept"}


# =========================================================================== §1.9 last card

def test_last_card_skip_ends_the_round_and_scores():
    """docs/rules.md §1.9 CORE-23/24 and §1.10 CORE-25: the Skip is not resolved, the winner takes the rest."""
    game, s = new({"players": 4, "discard": ["R7"], "hands": [["RS"], ["R5", "GS"], ["B0", "Y9"], ["W"]]})
    do(game, s, "play RS")
    assert s.is_over and s.winner == 0 and list(s.round_points) == [25 + 9 + 50, 0, 0, 0]
    assert s.returns == [1.0, -1 / 3, -1 / 3, -1 / 3]


def test_last_card_plain_wild_still_declares_its_colour():
    """docs/rules.md §1.9 CORE-24: "A wild played as the last card still takes its colour declaration"."""
    game, s = new({"players": 3, "discard": ["R7"], "hands": [["W"], ["Y1", "Y2"], ["B1"]]})
    do(game, s, "play W")
    assert s.phase == "CHOOSE_COLOUR" and s.current_seat == 0 and not s.is_over
    do(game, s, "colour G")
    assert s.is_over and s.winner == 0 and spec_of(game, s)["colour"] == "G"


# =========================================================================== §1.10 matches

def test_match_next_round_rotates_the_dealer_and_resets_the_direction():
    """docs/rules.md §1.2 CORE-1/CORE-4 (AMB-G4 clockwise rotation), §1.10 CORE-25 (cumulative scores)."""
    game, s = new({"players": 4, "dealer": 0, "direction": -1, "discard": ["R7"],
                   "hands": [["R3"], ["R5", "GS"], ["B0", "Y9"], ["Y1"]]}, match=True)
    do(game, s, "play R3")
    assert not s.is_over and s.scores == [25 + 9 + 1, 0, 0, 0]
    assert s.round_index == 1 and s.dealer == 1
    assert sum(s.hand_size) == 28 and len(s.discard) == 1
    assert game.effect_of[s.discard[-1]] == 0, "seed 0 deals a number starter in round 2"
    assert s.direction == 1 and s.current_seat == 2 and s.phase == "TURN"  # left of the new dealer


def test_match_dealer_rotation_winner():
    """docs/rules.md §4.1 AMB-G4: `dealer_rotation = winner` gives the next deal to the round winner."""
    game, s = new({"players": 3, "dealer": 0, "current": 2, "discard": ["R7"],
                   "hands": [["Y1", "Y2"], ["B1", "B2"], ["R3"]]}, match=True, dealer_rotation="winner")
    do(game, s, "play R3")
    assert s.round_index == 1 and s.dealer == 2 and s.scores == [0, 0, 6]


def test_blocked_round_in_a_match_scores_nothing_and_deals_again():
    """docs/rules.md §1.5 CORE-12: a blocked round has no winner and nobody scores; the match goes on."""
    game, s = new({"players": 3, "scores": [10, 20, 5], "discard": ["R5"],
                   "hands": [["G3", "B6"], 52, 53]}, match=True)
    do(game, s, "draw", "draw", "draw")
    assert not s.is_over and s.scores == [10, 20, 5] and s.round_index == 1
    assert sum(s.hand_size) == 21 and s.dealer == 1


@pytest.mark.parametrize("method,winner", [("winner_takes", 1), ("penalty_low", 2)])
def test_match_stopped_before_the_target(method, winner):
    """docs/rules.md §1.10 CORE-26 / AMB-F7: a match stopped early goes to the highest (method 1) / lowest
    (method 2) total."""
    game, s = new({"players": 3, "scores": [10, 20, 5], "discard": ["R5"],
                   "hands": [["G3", "B6"], 52, 53]}, match=True, max_steps=2, scoring_method=method)
    do(game, s, "draw", "draw")
    assert s.is_over and s.truncated and s.winner == winner


def test_penalty_low_alphabet_values():
    """docs/rules.md §1.10 CORE-26 with §2.5 values (letters by ordinal, functions 30, wilds 60)."""
    game, s = new({"variant": "alphabet", "players": 3, "discard": ["R-Q"],
                   "hands": [["R-B"], ["B-Z", "YR", "W"], ["G+2", "R-A"]]}, scoring_method="penalty_low")
    do(game, s, "play R-B")
    assert s.is_over and s.winner == 0 and list(s.round_points) == [0, 26 + 30 + 60, 30 + 1]


# =========================================================================== §1.11 / §1.12 starters

@pytest.mark.parametrize("starter,first,direction,p_hand", [
    ("RS", 1, 1, 7),    # P0 = next(dealer) skipped: the dealer plays first
    ("R+2", 1, 1, 9),   # P0 draws 2 and is skipped
    ("RR", 1, -1, 7),   # the dealer plays first, dir = -1
])
def test_two_player_starters(starter, first, direction, p_hand):
    """docs/rules.md §1.12 / §2.1 starter rules with n = 2 (CORE-28: Skip / Draw Two return the turn)."""
    game, s = new({"players": 2, "start": True, "dealer": 1, "draw_pile": [starter], "hands": [7, 7]})
    assert s.current_seat == first and s.direction == direction and s.phase == "TURN"
    assert s.hand_size == [p_hand, 7]


def test_starter_skip_three_players():
    """docs/rules.md §1.12 / AMB-F3: Skip starter -> advance(dealer, 2) starts."""
    game, s = new({"players": 3, "start": True, "dealer": 2, "draw_pile": ["GS"], "hands": [7, 7, 7]})
    assert s.current_seat == 1 and s.direction == 1 and s.hand_size == [7, 7, 7]


@pytest.mark.parametrize("variant", ["alphabet", "xiangqi"])
@pytest.mark.parametrize("starter,first,direction,drawn,phase", [
    ("RR", 2, -1, 0, "TURN"),
    ("BS", 0, 1, 0, "TURN"),
    ("Y+2", 0, 1, 2, "TURN"),
    ("W", 3, 1, 0, "CHOOSE_COLOUR"),
])
def test_alphabet_xiangqi_starters_as_classic(variant, starter, first, direction, drawn, phase):
    """docs/rules.md §2.5 / §2.6 / AMB-D3: "other starters as Classic" (dealer P2, n = 4)."""
    h = 14 if variant == "alphabet" else 7
    game, s = new({"variant": variant, "players": 4, "start": True, "dealer": 2, "draw_pile": [starter],
                   "hands": [h] * 4})
    assert s.current_seat == first and s.direction == direction and s.phase == phase
    assert s.hand_size[3] == h + drawn


def test_xiangqi_wd4_starter_goes_to_the_bottom():
    """docs/rules.md §2.6 ("as Alphabet") / §1.12: a +4 starter is put back under the draw pile."""
    game, s = new({"variant": "xiangqi", "players": 4, "start": True, "dealer": 0, "draw_pile": ["W4", "B-馬"],
                   "hands": [7, 7, 7, 7]})
    sp = spec_of(game, s)
    assert sp["discard"] == ["B-馬"] and sp["colour"] == "B" and sp["draw_pile"][-1] == "W4"
    assert s.current_seat == 1 and len(sp["draw_pile"]) == 96 - 28 - 1


# =========================================================================== HR-1 stacking

def test_stacking_two_players():
    """docs/rules.md §3 HR-1 step 2 with n = 2: the absorber loses the turn, the other player plays."""
    game, s = new({"players": 2, "discard": ["R7"], "draw_pile": ["Y7", "Y8", "Y9", "B9"],
                   "hands": [["R+2", "G1", "G2"], ["B+2", "Y1"]]}, stacking="any")
    do(game, s, "play R+2", "play B+2")
    assert hand(game, s, 0) == cards(game, ["G1", "G2", "Y7", "Y8", "Y9", "B9"])
    assert s.current_seat == 1 and s.phase == "TURN" and spec_of(game, s)["colour"] == "B"


def test_same_value_wd4_on_wd4_guilty_challenge_pays_the_whole_stack():
    """docs/rules.md §3 HR-1 steps 2-3 (AMB-G9): guilty -> the stacked WD4's player draws T = 8, the challenger
    plays normally; the reference colour is the colour declared by the WD4 underneath."""
    game, s = new({"players": 4, "discard": ["G5"],
                   "hands": [["W4", "R1"], ["W4", "Y1", "B2"], ["R3", "R4"], ["R5", "R6"]]}, stacking="same_value")
    do(game, s, "play W4", "colour Y")
    assert set(game.legal_action_strings(s)) == {"play W4", "challenge", "accept"}
    do(game, s, "play W4", "colour B", "challenge")
    assert len(game.hand_cards(s, 1)) == 2 + 8 and hand(game, s, 2) == cards(game, ["R3", "R4"])
    assert s.current_seat == 2 and s.phase == "TURN" and spec_of(game, s)["colour"] == "B"


def test_multi_played_draw_twos_can_be_stacked_on():
    """docs/rules.md §3 HR-3 step 5 + HR-1: k Draw Twos make a pending 2k that the target may stack on."""
    game, s = new({"players": 4, "discard": ["R5"],
                   "hands": [["R+2", "B+2", "G1"], ["G+2", "Y1"], ["Y2", "Y3"], ["Y4", "Y6"]]},
                  multi_play="on", stacking="any")
    do(game, s, "play R+2", "play B+2")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 1
    do(game, s, "play G+2")
    assert len(game.hand_cards(s, 2)) == 2 + 6 and s.current_seat == 3


# =========================================================================== HR-2 jump-in

def test_jump_in_poll_order_starts_at_the_next_player():
    """docs/rules.md §3 HR-2 step 3: eligible players are asked in turn order from the player who would act next."""
    game, s = new({"players": 4, "discard": ["R7"], "hands": [["W", "G1"], ["Y5", "Y6"], ["W", "Y9"], ["W", "B1"]]},
                  jump_in="on", jump_in_allow_wild=True)
    do(game, s, "play W", "colour B")
    assert s.phase == "JUMP_IN" and s.current_seat == 2
    do(game, s, "pass")
    assert s.phase == "JUMP_IN" and s.current_seat == 3
    do(game, s, "play W", "colour G")
    assert spec_of(game, s)["colour"] == "G" and hand(game, s, 3) == cards(game, ["B1"])


def test_jump_in_reverse_acts_from_the_jumper_seat():
    """docs/rules.md §3 HR-2 step 4: full effects from q's seat; play continues from q."""
    game, s = new({"players": 4, "discard": ["R7"],
                   "hands": [["RR", "G1"], ["Y5", "Y6"], ["RR", "Y9", "B1"], ["Y1", "Y2"]]}, jump_in="on")
    do(game, s, "play RR")
    assert s.phase == "JUMP_IN" and s.current_seat == 2 and s.direction == -1
    do(game, s, "play RR")
    assert s.direction == 1 and s.current_seat == 3 and s.phase == "TURN"


def test_jump_in_leaving_one_card_owes_the_call():
    """docs/rules.md §3 HR-2 step 4: "UNO obligation applies" to the jumper (§5.2 H3)."""
    game, s = new({"players": 4, "discard": ["G2"],
                   "hands": [["G7", "G1", "B1"], ["Y5", "Y6"], ["G7", "Y9"], ["Y1", "Y2"]]},
                  jump_in="on", uno_call="decide")
    do(game, s, "play G7", "play G7")
    assert s.phase == "UNO_CALL" and s.current_seat == 2
    do(game, s, "no-call")
    assert len(game.hand_cards(s, 2)) == 3 and s.current_seat == 3


def test_jump_in_with_the_last_card_wins():
    """docs/rules.md §3 HR-2 + §1.9 CORE-23: a jump-in that empties the hand wins the round."""
    game, s = new({"players": 3, "discard": ["R5"], "hands": [["R9", "B1", "B2"], ["Y1", "Y2"], ["R9"]]},
                  jump_in="on")
    do(game, s, "play R9", "play R9")
    assert s.is_over and s.winner == 2
    assert list(s.round_points) == [0, 0, (1 + 2) + (1 + 2)]  # P0 B1 B2, P1 Y1 Y2


def test_jump_in_two_players_draw_two():
    """docs/rules.md §3 HR-2 with n = 2: the Draw Two victim may jump in with the identical card (CORE-28)."""
    game, s = new({"players": 2, "discard": ["R7"], "draw_pile": ["Y7", "Y8", "B7", "B8"],
                   "hands": [["R+2", "Y5", "Y6"], ["R+2", "G2"]]}, jump_in="on")
    do(game, s, "play R+2")
    assert s.phase == "JUMP_IN" and s.current_seat == 1 and len(game.hand_cards(s, 1)) == 4
    do(game, s, "play R+2")
    assert hand(game, s, 0) == cards(game, ["Y5", "Y6", "B7", "B8"]) and s.current_seat == 1


# =========================================================================== HR-3 multi-play

def test_multi_play_emptying_the_hand_wins_without_a_call():
    """docs/rules.md §1.8 CORE-20 ("A placement that empties the hand needs no call") with HR-3."""
    game, s = new({"players": 3, "discard": ["R5"], "hands": [["R9", "B9"], ["Y1", "Y2"], ["G1", "G3"]]},
                  multi_play="on", uno_call="decide")
    do(game, s, "play R9", "play B9")
    assert s.is_over and s.winner == 0 and list(s.round_points) == [7, 0, 0]


def test_multi_play_three_reverses_flip_once():
    """docs/rules.md §3 HR-3 step 5: k Reverses flip the direction k times (net: parity)."""
    game, s = new({"players": 4, "discard": ["R5"], "hands": [["RR", "BR", "GR", "Y1"], ["Y2"], ["Y3"], ["Y4"]]},
                  multi_play="on")
    do(game, s, "play RR", "play BR", "play GR")
    assert s.direction == -1 and s.current_seat == 3 and spec_of(game, s)["colour"] == "G"


def test_xiangqi_multi_play_across_paired_characters():
    """docs/rules.md §2.6 (帥 and 將 are one class) + HR-3: they form one rank for multi-play."""
    game, s = new({"variant": "xiangqi", "players": 4, "discard": ["R-兵"],
                   "hands": [["R-帥", "G-將", "B-卒"], ["Y-仕"], ["Y-相"], ["Y-俥"]]}, multi_play="on")
    do(game, s, "play R-GEN")
    assert s.phase == "MULTI_PLAY" and set(game.legal_action_strings(s)) == {"play G-將", "pass"}
    do(game, s, "play G-GEN")
    assert spec_of(game, s)["colour"] == "G" and s.current_seat == 1 and hand(game, s, 0) == cards(game, ["B-卒"])


# =========================================================================== HR-4 madness

def test_madness_reverse_three_players():
    """docs/rules.md §3 HR-4 steps 2 and 4: the Reverse sends the penalty back; turn -> next(absorber) in the new
    direction."""
    game, s = new({"players": 3, "discard": ["R7"], "hands": [["R+2", "Y5", "Y6"], ["RR", "G2"], ["Y3", "B4"]]},
                  madness="on")
    do(game, s, "play R+2", "play RR")
    assert len(game.hand_cards(s, 0)) == 4 and s.direction == -1 and s.current_seat == 2


def test_madness_skip_matching_by_symbol_deflects_again():
    """docs/rules.md §3 HR-4 step 2 (normal colour rule = CORE-9): a Skip matches a Skip on top by symbol."""
    game, s = new({"players": 4, "discard": ["R7"],
                   "hands": [["R+2", "Y5"], ["RS", "Y1"], ["GS", "B4"], ["Y6", "Y7"]]}, madness="on")
    do(game, s, "play R+2", "play RS")
    assert s.current_seat == 2 and set(game.legal_action_strings(s)) == {"play GS", "accept"}
    do(game, s, "play GS")
    assert len(game.hand_cards(s, 3)) == 4 and s.current_seat == 0 and spec_of(game, s)["colour"] == "G"


def test_madness_two_players_skip_returns_the_penalty():
    """docs/rules.md §3 HR-4 step 2 with n = 2: Skip passes the penalty to next(t) = its player."""
    game, s = new({"players": 2, "discard": ["R7"], "draw_pile": ["Y7", "Y8"],
                   "hands": [["R+2", "Y5", "Y6"], ["RS", "G2"]]}, madness="on")
    do(game, s, "play R+2", "play RS")
    assert hand(game, s, 0) == cards(game, ["Y5", "Y6", "Y7", "Y8"]) and s.current_seat == 1


@pytest.mark.parametrize("variant", ["classic", "flex", "flip", "attack"])
def test_illegal_action_policy_is_mask_only(variant):
    """§1.14: the engine masks illegal actions (`illegal_action_policy = mask`, default); the penalising policy
    of HR-7 is not implemented, so asking for it is a clear error naming the allowed value."""
    game = Game(variant, num_players=3, illegal_action_policy="mask")
    assert game.rules.options["illegal_action_policy"] == "mask"
    with pytest.raises(RuleError, match="illegal_action_policy.*allowed values: mask"):
        Game(variant, num_players=3, illegal_action_policy="penalise")
    state = game.new_state(seed=3)
    illegal = next(a for a in range(game.num_actions) if a not in game.legal_actions(state))
    before = game.to_spec(state)
    with pytest.raises(IllegalActionError):
        game.step(state, illegal)
    assert game.to_spec(state) == before
