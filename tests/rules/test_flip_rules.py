"""Independent rule-conformance tests for UNO FLIP! Transformers (docs/rules.md §2.3, §4.4, §5.4, §6.4).

Every expected value below is computed from the rules document, never read back from the engine:
scenarios name every hand and every card that can be drawn, so no expectation depends on seeded
randomness. Each test's docstring starts with the rule it checks. The §6.7 invariants (card
conservation with fixed pairing, orientation of every card to the active side, colour consistency,
exactly one empty hand at the end) are asserted after every single step through ``Table.step``.

Notation: seats P0..P(n-1); ``next(i) = (i + dir) mod n``; the acting player is P0 unless stated.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from uno_env import Game
from uno_env.errors import IllegalActionError, UnoError
from uno_env.observation import ObservationEncoder

from flip_table import A, D, SIDE_COLOURS, DECK_SIZE, game, whole_cards, check_invariants, Table, table, nxt, phases_of, A_DRAW, D_DRAW, a_filler, d_filler  # the shared Flip table (tests/flip_table.py)

# =========================================================================== §6.4 scenarios

def test_T65_plus_one_next_draws_one_and_is_skipped():
    """T65 / §2.3 A-side +1: next player draws 1 and loses the turn; current = advance(p, 2)."""
    t = table(3, "A", ["A:R5"], [["A:R+1", "A:G9"], ["A:Y8", "A:B2"], ["A:G3", "A:B4"]], draw_pile=["A:Y6", "A:Y7"])
    t.step("play A:R+1")
    assert t.hand(1) == Counter(["A:Y8", "A:B2", "A:Y6"])
    assert t.sizes() == [1, 3, 2]
    assert (t.phase, t.current, t.colour) == ("TURN", 2, "R")


def test_T68_flip_D_to_A_turns_discard_and_draw_pile_and_hands():
    """T68 / AMB-B7, AMB-B8, AMB-B9: FLIP on side D -> side A; discard reversed (FLIP at the bottom),
    draw pile reversed, hands turned; the new top's action (+1) is not executed; current = next(p)."""
    t = table(3, "D", ["A:G+1|D:Tl3", "A:Y5|D:Pk6", "A:R2|D:Or4"],
              [["A:B9|D:Or-FLIP", "A:R8|D:Pu7"], ["A:Y2|D:Tl8", "A:G6|D:Pk9"], ["A:B3|D:Pu2", "A:Y4|D:Pk3"]],
              draw_pile=["A:G7|D:Tl1", "A:B8|D:Tl2"])
    before = t.spec()
    t.step("play D:Or-FLIP")
    after = t.spec()
    assert t.s.side == A and after["side"] == "A"
    assert after["discard"] == ["A:B9|D:Or-FLIP", "A:R2|D:Or4", "A:Y5|D:Pk6", "A:G+1|D:Tl3"]
    assert after["draw_pile"] == list(reversed(before["draw_pile"]))
    assert t.top == "A:G+1" and t.colour == "G"
    assert t.hand(0) == Counter(["A:R8"])
    assert t.hand(1) == Counter(["A:Y2", "A:G6"]) and t.hand(2) == Counter(["A:B3", "A:Y4"])
    assert t.sizes() == [1, 2, 2], "the new top's +1 must not be executed"
    assert (t.phase, t.current, t.s.direction) == ("TURN", 1, 1)


def test_T69_skip_everyone_four_players_fresh_turn():
    """T69 / §2.3 Skip Everyone: all others skipped, the player takes a fresh turn (n=4)."""
    t = table(4, "D", ["D:Tl4"], [["D:Tl-SE", "D:Pk2"]] + [d_filler(q) for q in (1, 2, 3)], draw_pile=D_DRAW)
    t.step("play D:Tl-SE")
    assert (t.phase, t.current) == ("TURN", 0)
    assert t.sizes() == [1, 2, 2, 2]
    assert "play D:Pk2" not in t.legal and "draw" in t.legal  # a fresh turn on D:Tl-SE (Pk2 does not match)


def test_T70_plus_five_next_draws_five_and_is_skipped():
    """T70 / §2.3 D-side +5: next draws 5 and loses the turn."""
    t = table(3, "D", ["D:Pk2"], [["D:Pk+5", "D:Tl9"], ["D:Or1", "D:Or2", "D:Pu3", "D:Pu4"], ["D:Tl7", "D:Or8"]],
              draw_pile=["D:Tl1", "D:Tl2", "D:Tl3", "D:Tl4", "D:Tl5", "D:Tl6"])
    t.step("play D:Pk+5")
    assert t.size(1) == 9
    assert t.hand(1) - Counter(["D:Or1", "D:Or2", "D:Pu3", "D:Pu4"]) == Counter(D_DRAW[:5])
    assert (t.phase, t.current) == ("TURN", 2)


W2_HANDS = lambda p0: [p0, ["A:G1", "A:G2", "A:Y3", "A:Y4", "A:G5"], ["A:Y8", "A:G8"]]  # noqa: E731
W2_DRAW = ["A:Y1", "A:Y2", "A:R6", "A:R7", "A:R8"]


def test_T71_wild_plus_two_challenge_innocent():
    """T71 / CORE-18, §2.3 Wild +2: innocent -> challenger draws 4 and loses the turn; colour stands."""
    t = table(3, "A", ["A:B4"], W2_HANDS(["W+2", "A:R3"]), draw_pile=W2_DRAW)
    t.step("play W+2")
    assert (t.phase, t.current) == ("CHOOSE_COLOUR", 0)
    t.step("colour R")
    assert (t.phase, t.current) == ("CHALLENGE_OR_ACCEPT", 1)
    assert set(t.legal) == {"challenge", "accept"}
    t.step("challenge")
    assert t.size(1) == 9 and t.hand(1) - Counter(W2_HANDS(0)[1]) == Counter(W2_DRAW[:4])
    assert t.hand(0) == Counter(["A:R3"])
    assert (t.phase, t.current, t.colour) == ("TURN", 2, "R")


def test_T73_wild_plus_two_accepted():
    """T73 / §2.3 Wild +2: ACCEPT -> victim draws 2 and loses the turn."""
    t = table(3, "A", ["A:B4"], W2_HANDS(["W+2", "A:R3"]), draw_pile=W2_DRAW)
    t.step("play W+2", "colour R", "accept")
    assert t.size(1) == 7 and t.hand(1) - Counter(W2_HANDS(0)[1]) == Counter(W2_DRAW[:2])
    assert t.size(0) == 1
    assert (t.phase, t.current, t.colour) == ("TURN", 2, "R")


def test_W2_challenge_guilty_offender_draws_two_challenger_plays():
    """CORE-18 / AMB-B20, §2.3: guilty -> offender draws 2, challenger draws 0 and takes a normal turn."""
    t = table(3, "A", ["A:B4"], W2_HANDS(["W+2", "A:B7"]), draw_pile=W2_DRAW)
    t.step("play W+2", "colour R", "challenge")
    assert t.hand(0) == Counter(["A:B7", "A:Y1", "A:Y2"])
    assert t.size(1) == 5
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "R")


WDC_P1 = ["D:Pk7", "D:Tl7", "D:Or7", "D:Pu7"]
WDC_DRAW = ["D:Pk1", "D:Tl5", "MEG", "D:Or2", "D:Pu3", "D:Tl9"]


def wdc_table(p0, top="D:Pu4", n=3, **options) -> Table:
    p1 = ["D:Pk7", "D:Tl7", "D:Or7", "D:Pu8"] if "D:Pu7" in p0 else WDC_P1
    hands = [p0, p1] + [["D:Pk8", "D:Tl8"]] * (n >= 3) + [["D:Or8", "D:Pu9"]] * (n >= 4)
    return table(n, "D", [top], hands, draw_pile=WDC_DRAW, **options)


def test_T74_wdc_accepted_draws_until_colour():
    """T74 / §2.3 WDC, AMB-B21: victim draws until a card of colour X (wild faces do not satisfy), loses turn."""
    t = wdc_table(["WDC", "D:Tl1"])
    t.step("play WDC", "colour Or")
    assert (t.phase, t.current) == ("CHALLENGE_OR_ACCEPT", 1)
    t.step("accept")
    assert t.size(1) == 8
    assert t.hand(1) - Counter(WDC_P1) == Counter(["D:Pk1", "D:Tl5", "MEG", "D:Or2"])
    assert t.spec()["draw_pile"][0].split("|")[D] == "D:Pu3"
    assert (t.phase, t.current, t.colour) == ("TURN", 2, "Or")


def test_T74b_wdc_wild_satisfies_option():
    """AMB-B21 option flip.wdc_wild_satisfies=true: a drawn wild ends the draw-until-colour."""
    t = wdc_table(["WDC", "D:Tl1"], **{"flip.wdc_wild_satisfies": True})
    t.step("play WDC", "colour Or", "accept")
    assert t.hand(1) - Counter(WDC_P1) == Counter(["D:Pk1", "D:Tl5", "MEG"])
    assert (t.phase, t.current, t.colour) == ("TURN", 2, "Or")


def test_T75_wdc_challenge_guilty():
    """T75 / §2.3 WDC step 4: guilty -> offender draws until X instead; challenger draws 0 and plays."""
    t = wdc_table(["WDC", "D:Pu7", "D:Tl1"])
    t.step("play WDC", "colour Or", "challenge")
    assert t.size(0) == 6
    assert t.hand(0) == Counter(["D:Pu7", "D:Tl1", "D:Pk1", "D:Tl5", "MEG", "D:Or2"])
    assert t.size(1) == 4
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "Or")


def test_WDC_challenge_innocent_until_colour_plus_two():
    """§2.3 WDC step 4 / AMB-B21: innocent -> challenger draws until X PLUS 2 cards and loses the turn."""
    t = wdc_table(["WDC", "D:Tl1"])
    t.step("play WDC", "colour Or", "challenge")
    assert t.size(1) == 10
    assert t.hand(1) - Counter(WDC_P1) == Counter(WDC_DRAW)
    assert t.size(0) == 1
    assert (t.phase, t.current, t.colour) == ("TURN", 2, "Or")


def test_T77_wdc_legal_with_same_symbol_card_and_challenge_fails():
    """T77 / CORE-16: WDC with only a same-symbol card (D:Tl+5 on D:Pu+5) is legal; a challenge fails."""
    strict = table(3, "D", ["D:Pu+5"], [["WDC", "D:Tl+5"], WDC_P1, ["D:Pk8", "D:Tl8"]], draw_pile=WDC_DRAW,
                   restricted_wild_bluffing=False)
    assert "play WDC" in strict.legal
    t = table(3, "D", ["D:Pu+5"], [["WDC", "D:Tl+5"], WDC_P1, ["D:Pk8", "D:Tl8"]], draw_pile=WDC_DRAW)
    t.step("play WDC", "colour Or", "challenge")
    assert t.hand(1) - Counter(WDC_P1) == Counter(WDC_DRAW)  # innocent: until Or, then 2 more
    assert (t.phase, t.current) == ("TURN", 2)


def test_T79_optimus_tie_originator_wins_places_two_and_calls_uno():
    """T79 / §2.3 Optimus: tie at 7 -> originator wins; places G3, B5 under the Optimus; UNO call; declares."""
    t = table(3, "A", ["A:R5"], [["OPT", "A:R7", "A:G3", "A:B5"], ["A:Y7", "A:B2"], ["A:Y9", "A:G8"]],
              draw_pile=A_DRAW, uno_call="explicit")
    t.step("play OPT")
    assert (t.phase, t.current) == ("CHOOSE_TARGET", 0)
    t.step("target P1")
    assert t.duel_names() == ("OPT", 0, 1, ["A:R7"], ["A:Y7"])
    assert (t.phase, t.current) == ("OPTIMUS_PLACE", 0)
    log = t.drive({"OPTIMUS_PLACE": ["play A:G3", "play A:B5"], "CHOOSE_COLOUR": ["colour B"],
                   "UNO_CALL": ["call"]})
    assert ("UNO_CALL", 0) in phases_of(log) and ("CHOOSE_COLOUR", 0) in phases_of(log)
    assert t.hand(0) == Counter(["A:R7"])
    assert t.discard[-3:] == ["A:G3", "A:B5", "OPT"]
    assert t.sizes() == [1, 2, 2]
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "B")


def test_T80_optimus_target_without_numbers_winner_with_one_card_places_nothing():
    """T80 / §2.3 Optimus: target without number cards -> originator wins; with 1 card it may place 0."""
    t = table(3, "A", ["A:R5"], [["OPT", "A:R3"], ["A:G+1", "A:BS"], ["A:Y9", "A:G8"]], draw_pile=A_DRAW,
              uno_call="explicit")
    t.step("play OPT", "target P1")
    assert (t.phase, t.current) == ("UNO_CALL", 0)  # the call for the placement comes before the duel
    t.step("call")
    assert t.duel_names() == ("OPT", 0, 1, ["A:R3"], [])
    log = t.drive({"OPTIMUS_PLACE": ["pass"], "CHOOSE_COLOUR": ["colour G"]})
    for ph, seat, _a, legal in log:
        if ph == "OPTIMUS_PLACE":
            assert legal == ("pass",), "the last card may never be placed under the Optimus"
    assert ("CHOOSE_COLOUR", 0) in phases_of(log) and ("UNO_CALL", 0) not in phases_of(log)  # asked once
    assert t.hand(0) == Counter(["A:R3"]) and t.sizes() == [1, 2, 2]
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "G")


def test_T82_megatron_originator_lowest_draws_two_target_declares():
    """T82 / §2.3 Megatron: both hands public; lowest 2 (P0) < 5 -> P0 draws 2; P1 declares; current=P1."""
    t = table(3, "D", ["D:Pk5"], [["MEG", "D:Pk2", "D:Tl8"], ["D:Or5", "D:Pu9"], ["D:Tl3", "D:Or6"]],
              draw_pile=["D:Tl1", "D:Tl2", "D:Tl4"])
    t.step("play MEG")
    assert (t.phase, t.current) == ("CHOOSE_TARGET", 0)
    t.step("target P1")
    assert t.duel_names() == ("MEG", 0, 1, ["D:Pk2", "D:Tl8"], ["D:Or5", "D:Pu9"])
    assert t.hand(0) == Counter(["D:Pk2", "D:Tl8", "D:Tl1", "D:Tl2"])
    assert t.size(1) == 2
    assert (t.phase, t.current) == ("CHOOSE_COLOUR", 1)
    assert set(t.legal) == {"colour Pk", "colour Tl", "colour Or", "colour Pu"}
    t.step("colour Pu")
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "Pu")


def test_T83_megatron_tie_target_draws_originator_declares():
    """T83 / §2.3 Megatron: tie -> originator wins, target draws 2; originator declares; current=P1."""
    t = table(3, "D", ["D:Pk5"], [["MEG", "D:Pk4"], ["D:Or4", "D:Tl6"], ["D:Tl3", "D:Or6"]],
              draw_pile=["D:Tl1", "D:Tl2", "D:Tl4"])
    t.step("play MEG", "target P1")
    assert t.hand(1) == Counter(["D:Or4", "D:Tl6", "D:Tl1", "D:Tl2"])
    assert (t.phase, t.current) == ("CHOOSE_COLOUR", 0)
    t.step("colour Tl")
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "Tl")
    assert t.sizes() == [1, 4, 2]


def test_T86_flip_as_last_card_scores_on_new_side():
    """T86 / AMB-B10, CORE-24: FLIP as last card -> flip performed (side D), round ends, D faces scored."""
    t = table(3, "A", ["A:Y4|D:Tl6", "A:G2|D:Pk1"],
              [["A:G-FLIP|D:Or9"], ["A:R7|WDC", "A:B1|D:Pu-SE"], ["A:Y9|D:Pk+5"]], draw_pile=A_DRAW)
    t.step("play A:G-FLIP")
    assert t.s.is_over and t.s.winner == 0 and t.phase == "GAME_OVER"
    assert t.s.side == D
    assert t.spec()["pending"]["round_points"] == [60 + 30 + 20, 0, 0]


def test_T86b_last_card_flip_not_resolved_option_scores_on_old_side():
    """AMB-B10 option flip.last_card_flip_resolves=false: no flip on the last card; A faces scored."""
    t = table(3, "A", ["A:Y4|D:Tl6", "A:G2|D:Pk1"],
              [["A:G-FLIP|D:Or9"], ["A:R7|WDC", "A:B1|D:Pu-SE"], ["A:Y9|D:Pk+5"]], draw_pile=A_DRAW,
              **{"flip.last_card_flip_resolves": False})
    t.step("play A:G-FLIP")
    assert t.s.is_over and t.s.winner == 0
    assert t.s.side == A
    assert t.spec()["pending"]["round_points"] == [7 + 1 + 9, 0, 0]


def test_T87_two_players_reverse_acts_as_skip():
    """T87 / CORE-28, AMB-B23: two players, Reverse -> the player plays again."""
    t = table(2, "A", ["A:R5"], [["A:RR", "A:G9"], a_filler(1)], draw_pile=A_DRAW)
    t.step("play A:RR")
    assert (t.phase, t.current) == ("TURN", 0)


# =========================================================================== every effect, 2/3/4 players, both dirs

EFFECT_CASES = [
    # (id, side, card, effect, draw count)
    ("A-number", "A", "A:R3", "number", 0),
    ("A-plus1", "A", "A:R+1", "draw", 1),
    ("A-skip", "A", "A:RS", "skip", 0),
    ("A-reverse", "A", "A:RR", "reverse", 0),
    ("A-flip", "A", "A:R-FLIP", "flip", 0),
    ("D-number", "D", "D:Pk3", "number", 0),
    ("D-plus5", "D", "D:Pk+5", "draw", 5),
    ("D-reverse", "D", "D:PkR", "reverse", 0),
    ("D-skip-everyone", "D", "D:Pk-SE", "skip_everyone", 0),
    ("D-flip", "D", "D:Pk-FLIP", "flip", 0),
]


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("cid,side,card,effect,k", EFFECT_CASES, ids=[c[0] for c in EFFECT_CASES])
def test_effect_table_by_player_count_and_direction(cid, side, card, effect, k, n):
    """§2.3 A-side / D-side effect tables, CORE-13..15, CORE-28 (n=2), §0.2 turn arithmetic, both directions."""
    for d in (1, -1):
        if side == "A":
            discard = ["A:Y7|D:Tl2", "A:R5"]   # bottom card's D face is the top after a FLIP
            hands = [[card, "A:G9"]] + [a_filler(q) for q in range(1, n)]
            draw = A_DRAW
            flip_colour = "Tl"
        else:
            discard = ["A:Y7|D:Or9", "D:Pk5"]
            hands = [[card, "D:Tl9"]] + [d_filler(q) for q in range(1, n)]
            draw = D_DRAW
            flip_colour = "Y"
        t = table(n, side, discard, hands, draw_pile=draw, direction=d)
        before = [t.hand(q) for q in range(n)]
        t.step(f"play {card}")
        msg = f"{cid}, n={n}, dir={d}"
        exp_sizes = [2] * n
        exp_sizes[0] = 1
        exp_dir = d
        if effect == "number":
            cur = nxt(0, 1, d, n)
        elif effect == "draw":
            victim = nxt(0, 1, d, n)
            exp_sizes[victim] += k
            assert t.hand(victim) - before[victim] == Counter(draw[:k]), msg
            cur = nxt(0, 2, d, n)
        elif effect == "skip":
            cur = nxt(0, 2, d, n)
        elif effect == "reverse":
            exp_dir = -d
            cur = 0 if n == 2 else nxt(0, 1, -d, n)
        elif effect == "skip_everyone":
            cur = 0
        else:  # flip
            cur = nxt(0, 1, d, n)
            assert t.s.side == 1 - (0 if side == "A" else 1), msg
            assert t.colour == flip_colour, msg
        assert t.sizes() == exp_sizes, msg
        assert (t.phase, t.current) == ("TURN", cur), msg
        if n > 2 or effect != "reverse":
            assert t.s.direction == exp_dir, msg


# =========================================================================== Flip procedure

def test_flip_A_to_D_reverses_and_turns_all_piles_and_hands():
    """§2.3 Flip procedure steps 1-5 / AMB-B8: discard reversed+turned, draw pile reversed+turned, hands turned."""
    t = table(3, "A", ["A:Y1|D:Pk4", "A:G2|D:Tl5", "A:R5|D:Or6"],
              [["A:R-FLIP|D:Pu1", "A:B3|D:Pk9"], ["A:Y4|WDC", "A:G6|D:Or2"], ["A:B7|MEG", "A:Y8|D:Tl3"]],
              draw_pile=["A:G1|D:Pu5", "A:B2|D:Pk7", "A:R9|D:Tl8"])
    before = t.spec()
    t.step("play A:R-FLIP")
    after = t.spec()
    assert t.s.side == D
    assert after["discard"] == ["A:R-FLIP|D:Pu1", "A:R5|D:Or6", "A:G2|D:Tl5", "A:Y1|D:Pk4"]
    assert t.discard == ["D:Pu1", "D:Or6", "D:Tl5", "D:Pk4"]
    assert after["draw_pile"] == list(reversed(before["draw_pile"]))
    # the former bottom card of the draw pile is now on top, D face up
    assert t.g.deck.name_of[t.s.draw_pile[-1]] == before["draw_pile"][-1].split("|")[D]
    assert t.hand(0) == Counter(["D:Pk9"])
    assert t.hand(1) == Counter(["WDC", "D:Or2"]) and t.hand(2) == Counter(["MEG", "D:Tl3"])
    assert Counter(before["hands"][1]) == Counter(after["hands"][1])
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "Pk")


def test_flip_twice_restores_side_and_conserves_cards():
    """§2.3 Flip procedure both ways (AMB-B7) / §6.7: a second FLIP turns everything back to side A."""
    t = table(3, "A", ["A:Y1|D:Pk4", "A:R5|D:Or6"],
              [["A:R-FLIP|D:Pu1", "A:B3|D:Pk9"], ["A:Y4|D:Pk-FLIP", "A:G6|D:Or2"], ["A:B7|D:Tl7", "A:Y8|D:Tl3"]],
              draw_pile=["A:G1|D:Pu5", "A:B2|D:Pk7"])
    before = t.spec()
    t.step("play A:R-FLIP")
    assert (t.s.side, t.colour, t.current) == (D, "Pk", 1)
    t.step("play D:Pk-FLIP")
    after = t.spec()
    assert t.s.side == A
    assert after["discard"] == ["A:Y4|D:Pk-FLIP", "A:Y1|D:Pk4", "A:R5|D:Or6", "A:R-FLIP|D:Pu1"]
    assert after["draw_pile"] == before["draw_pile"]
    assert t.hand(0) == Counter(["A:B3"]) and t.hand(1) == Counter(["A:G6"])
    assert t.hand(2) == Counter(["A:B7", "A:Y8"])
    assert (t.phase, t.current, t.colour, t.s.direction) == ("TURN", 2, "R", 1)


@pytest.mark.parametrize("side,bottom,flip_card,exp_top,exp_colour", [
    ("A", "A:Y1|D:Pk+5", "A:R-FLIP", "D:Pk+5", "Pk"),
    ("A", "A:Y1|D:Tl-SE", "A:R-FLIP", "D:Tl-SE", "Tl"),
    ("A", "A:Y1|D:OrR", "A:R-FLIP", "D:OrR", "Or"),
    ("D", "A:G+1|D:Pk3", "D:Pk-FLIP", "A:G+1", "G"),
    ("D", "A:BS|D:Pk3", "D:Pk-FLIP", "A:BS", "B"),
    ("D", "A:YR|D:Pk3", "D:Pk-FLIP", "A:YR", "Y"),
], ids=["A-to-D-plus5", "A-to-D-skip-everyone", "A-to-D-reverse", "D-to-A-plus1", "D-to-A-skip", "D-to-A-reverse"])
@pytest.mark.parametrize("d", [1, -1])
def test_flip_new_top_action_not_executed(side, bottom, flip_card, exp_top, exp_colour, d):
    """§2.3 Flip step 6-7 / AMB-B9: the new top's action is not executed; colour = its colour; dir unchanged."""
    top = "A:R5" if side == "A" else "D:Pk5"
    fill = a_filler if side == "A" else d_filler
    extra = "A:G9" if side == "A" else "D:Tl9"
    n = 4
    t = table(n, side, [bottom, top], [[flip_card, extra]] + [fill(q) for q in (1, 2, 3)],
              draw_pile=A_DRAW if side == "A" else D_DRAW, direction=d)
    t.step(f"play {flip_card}")
    assert t.top == exp_top and t.colour == exp_colour
    assert t.sizes() == [1, 2, 2, 2]
    assert t.s.direction == d
    assert (t.phase, t.current) == ("TURN", nxt(0, 1, d, n))


@pytest.mark.parametrize("side,bottom,flip_card,new_colours,choice", [
    ("A", "A:Y1|MEG", "A:R-FLIP", ("Pk", "Tl", "Or", "Pu"), "Tl"),
    ("A", "A:Y1|WDC", "A:R-FLIP", ("Pk", "Tl", "Or", "Pu"), "Pu"),
    ("D", "W+2|D:Pk3", "D:Pk-FLIP", ("R", "Y", "G", "B"), "B"),
    ("D", "OPT|D:Pk3", "D:Pk-FLIP", ("R", "Y", "G", "B"), "Y"),
], ids=["A-to-D-MEG", "A-to-D-WDC", "D-to-A-W+2", "D-to-A-OPT"])
def test_flip_wild_new_top_flip_player_chooses_new_side_colour(side, bottom, flip_card, new_colours, choice):
    """§2.3 Flip step 6 / AMB-B9, §5.4 P7: a wild new top -> the FLIP player declares a colour of the new side;
    the wild's action (duel / draw) is not executed; turn -> next(p)."""
    top = "A:R5" if side == "A" else "D:Pk5"
    fill = a_filler if side == "A" else d_filler
    extra = "A:G9" if side == "A" else "D:Tl9"
    t = table(3, side, [bottom, top], [[flip_card, extra], fill(1), fill(2)],
              draw_pile=A_DRAW if side == "A" else D_DRAW)
    t.step(f"play {flip_card}")
    assert (t.phase, t.current) == ("CHOOSE_COLOUR", 0)
    assert set(t.legal) == {f"colour {c}" for c in new_colours}
    t.step(f"colour {choice}")
    assert t.colour == choice
    assert t.sizes() == [1, 2, 2]
    assert (t.phase, t.current) == ("TURN", 1)


def test_flip_matches_only_colour_or_flip():
    """§2.3 Matching: FLIP only on the same colour or another FLIP (CORE-9 on active faces)."""
    t = table(3, "A", ["A:G5"], [["A:R-FLIP", "A:B9"], a_filler(1), a_filler(2)], draw_pile=A_DRAW)
    assert "play A:R-FLIP" not in t.legal
    with pytest.raises(IllegalActionError):
        t.g.step(t.s, "play A:R-FLIP")
    t2 = table(3, "A", ["A:G-FLIP"], [["A:R-FLIP", "A:B9"], a_filler(1), a_filler(2)], draw_pile=A_DRAW)
    assert "play A:R-FLIP" in t2.legal
    t3 = table(3, "D", ["D:Tl-FLIP"], [["D:Pk-FLIP", "D:Tl9"], d_filler(1), d_filler(2)], draw_pile=D_DRAW)
    assert set(t3.legal) == {"play D:Pk-FLIP", "play D:Tl9", "draw"}


# =========================================================================== Optimus

OPT_DUELS = [
    # (id, P0 hand after OPT, target hand, winner, shown P0, shown target)
    ("higher-originator", ["A:R2", "A:G9"], ["A:Y8", "A:B1"], 0, ["A:G9"], ["A:Y8"]),
    ("higher-target", ["A:R2", "A:G5"], ["A:Y8", "A:B1"], 2, ["A:G5"], ["A:Y8"]),
    ("tie", ["A:R6", "A:G1"], ["A:Y6", "A:B3"], 0, ["A:R6"], ["A:Y6"]),
    ("target-no-number", ["A:R2", "A:G1"], ["A:Y+1", "A:BS"], 0, ["A:R2"], []),
    ("originator-no-number-AMB-B12", ["A:R+1", "A:GS"], ["A:Y2", "A:B+1"], 2, [], ["A:Y2"]),
    ("neither-has-numbers", ["A:R+1", "A:GS"], ["A:YS", "A:B+1"], 0, [], []),
]


@pytest.mark.parametrize("cid,p0,p2,winner,shown0,shown2", OPT_DUELS, ids=[c[0] for c in OPT_DUELS])
def test_optimus_duel_winner(cid, p0, p2, winner, shown0, shown2):
    """§2.3 Optimus steps 2-3, AMB-B12: highest number 1-9 wins; tie / target without numbers -> originator;
    originator without numbers loses to a target with one. Winner places (OPTIMUS_PLACE) and declares."""
    t = table(3, "A", ["A:R5"], [["OPT"] + p0, ["A:Y9", "A:G8"], p2], draw_pile=A_DRAW)
    t.step("play OPT", "target P2")
    assert t.duel_names() == ("OPT", 0, 2, shown0, shown2)
    assert (t.phase, t.current) == ("OPTIMUS_PLACE", winner)
    t.step("pass")
    assert (t.phase, t.current) == ("CHOOSE_COLOUR", winner)
    assert set(t.legal) == {"colour R", "colour Y", "colour G", "colour B"}
    t.step("colour G")
    assert t.sizes() == [2, 2, 2] and t.top == "OPT"
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "G")


def test_optimus_target_choice_any_other_player():
    """§2.3 Optimus step 1 / §5.4 P3: the target is any other player (never oneself)."""
    t = table(4, "A", ["A:R5"], [["OPT", "A:R2"]] + [a_filler(q) for q in (1, 2, 3)], draw_pile=A_DRAW)
    t.step("play OPT")
    assert (t.phase, t.current) == ("CHOOSE_TARGET", 0)
    assert set(t.legal) == {"target P1", "target P2", "target P3"}
    with pytest.raises(UnoError):
        t.g.step(t.s, "target P0")


def test_optimus_place_zero_cards():
    """§2.3 Optimus step 4 / AMB-B14: the winner may place 0 cards ('pass' stops at once)."""
    t = table(3, "A", ["A:B4"], [["OPT", "A:R9", "A:G1"], ["A:Y3", "A:B2"], ["A:Y5", "A:G6"]], draw_pile=A_DRAW)
    t.step("play OPT", "target P1")
    assert (t.phase, t.current) == ("OPTIMUS_PLACE", 0)
    assert set(t.legal) == {"play A:R9", "play A:G1", "pass"}  # any held card, no matching needed
    t.step("pass")
    assert (t.phase, t.current) == ("CHOOSE_COLOUR", 0)
    t.step("colour Y")
    assert t.hand(0) == Counter(["A:R9", "A:G1"])
    assert t.discard[-2:] == ["A:B4", "OPT"]
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "Y")


def test_optimus_place_one_then_pass():
    """§2.3 Optimus step 4 / AMB-B11: one card placed directly beneath the Optimus, then 'pass'."""
    t = table(3, "A", ["A:B4"], [["OPT", "A:R9", "A:G1", "A:Y2"], ["A:Y3", "A:B2"], ["A:Y5", "A:G6"]],
              draw_pile=A_DRAW)
    t.step("play OPT", "target P1", "play A:G1")
    assert (t.phase, t.current) == ("OPTIMUS_PLACE", 0)
    t.step("pass", "colour R")
    assert t.discard[-3:] == ["A:B4", "A:G1", "OPT"]
    assert t.hand(0) == Counter(["A:R9", "A:Y2"])
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "R")


def test_optimus_place_two_then_stops():
    """§2.3 Optimus step 4: at most 2 cards, one at a time; after the second the placement ends."""
    t = table(3, "A", ["A:B4"], [["OPT", "A:R9", "A:G1", "A:Y2", "A:B8"], ["A:Y3", "A:B2"], ["A:Y5", "A:G6"]],
              draw_pile=A_DRAW)
    t.step("play OPT", "target P1", "play A:G1", "play A:Y2")
    assert (t.phase, t.current) == ("CHOOSE_COLOUR", 0)
    t.step("colour B")
    assert t.discard[-4:] == ["A:B4", "A:G1", "A:Y2", "OPT"]
    assert t.hand(0) == Counter(["A:R9", "A:B8"])
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "B")


def test_optimus_never_places_last_card_and_uno_call_explicit():
    """§2.3 Optimus step 4, CORE-20/22: never the last card (max min(2, hand-1)); a placement leaving one card
    requires the UNO call (explicit mode shows UNO_CALL for the placer)."""
    t = table(3, "A", ["A:B4"], [["OPT", "A:R9", "A:G1"], ["A:Y3", "A:B2"], ["A:Y5", "A:G6"]], draw_pile=A_DRAW,
              uno_call="explicit")
    t.step("play OPT", "target P1", "play A:G1")
    log = t.drive({"OPTIMUS_PLACE": ["pass"], "CHOOSE_COLOUR": ["colour R"], "UNO_CALL": ["call"]})
    for ph, _seat, _a, legal in log:
        if ph == "OPTIMUS_PLACE":
            assert legal == ("pass",), "the last card must never be placeable"
    assert ("UNO_CALL", 0) in phases_of(log)
    assert t.hand(0) == Counter(["A:R9"])
    assert (t.phase, t.current) == ("TURN", 1)


def test_optimus_placed_cards_need_not_match_and_have_no_effect():
    """AMB-B11: placed cards need not match (wilds allowed) and have no effect (no +1, no W+2 draw/colour)."""
    t = table(3, "A", ["A:B4"], [["OPT", "A:R+1", "W+2", "A:G9"], ["A:Y3", "A:B2"], ["A:Y5", "A:G6"]],
              draw_pile=A_DRAW)
    t.step("play OPT", "target P1")
    assert {"play A:R+1", "play W+2", "play A:G9", "pass"} == set(t.legal)
    t.step("play A:R+1", "play W+2")
    assert (t.phase, t.current) == ("CHOOSE_COLOUR", 0)
    t.step("colour Y")
    assert t.discard[-3:] == ["A:R+1", "W+2", "OPT"]
    assert t.sizes() == [1, 2, 2]
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "Y")


def test_optimus_target_wins_places_calls_uno_declares_then_next_of_originator():
    """§2.3 Optimus steps 4-6, §5.4 P4/P5, AMB-B13: the target may win, place (UNO call when one card is left)
    and declare the colour; the turn then goes to next(p), not to the winner."""
    t = table(3, "A", ["A:R5"], [["OPT", "A:R2", "A:G5"], ["A:Y9", "A:G8"], ["A:Y8", "A:B1", "A:G7"]],
              draw_pile=A_DRAW, uno_call="explicit")
    t.step("play OPT", "target P2")
    assert (t.phase, t.current) == ("OPTIMUS_PLACE", 2)
    assert set(t.legal) == {"play A:Y8", "play A:B1", "play A:G7", "pass"}
    t.step("play A:B1", "play A:G7")
    log = t.drive({"UNO_CALL": ["call"], "CHOOSE_COLOUR": ["colour Y"]})
    assert ("UNO_CALL", 2) in phases_of(log) and ("CHOOSE_COLOUR", 2) in phases_of(log)
    assert t.hand(2) == Counter(["A:Y8"])
    assert t.discard[-3:] == ["A:B1", "A:G7", "OPT"]
    assert t.sizes() == [2, 2, 1]
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "Y")


def test_optimus_target_placement_no_call_is_caught():
    """CORE-20/21 on an Optimus placement: NO_CALL -> an opponent catches -> the placer draws 2."""
    t = table(3, "A", ["A:R5"], [["OPT", "A:R2", "A:G5"], ["A:Y9", "A:G8"], ["A:Y8", "A:B1", "A:G7"]],
              draw_pile=A_DRAW, uno_call="explicit")
    t.step("play OPT", "target P2", "play A:B1", "play A:G7")
    log = t.drive({"UNO_CALL": ["no-call"], "CHOOSE_COLOUR": ["colour Y"], "CATCH": ["catch"]})
    catches = [(seat, a) for ph, seat, a, _l in log if ph == "CATCH"]
    assert catches and catches[0][0] != 2
    assert t.size(2) == 3 and t.hand(2) - Counter(["A:Y8"]) == Counter(A_DRAW[:2])
    assert (t.phase, t.current) == ("TURN", 1)


def test_optimus_originator_uno_call_before_target_decisions():
    """§1.6 step 7 + CORE-20: the originator's UNO call (OPT left it one card) is taken before any decision
    by another player, the duel included (the target's placement and colour when the target wins)."""
    t = table(3, "A", ["A:R5"], [["OPT", "A:R2"], ["A:Y8", "A:B1", "A:G7"], ["A:Y9", "A:G8"]],
              draw_pile=A_DRAW, uno_call="explicit")
    t.step("play OPT")
    log = t.drive({"UNO_CALL": ["call"], "CHOOSE_TARGET": ["target P1"], "OPTIMUS_PLACE": ["pass"],
                   "CHOOSE_COLOUR": ["colour G"]})
    seq = phases_of(log)
    assert ("UNO_CALL", 0) in seq, f"no UNO call for P0: {seq}"
    first_other = min(i for i, (_ph, seat) in enumerate(seq) if seat != 0)
    assert seq.index(("UNO_CALL", 0)) < first_other, f"P0's UNO call came after P1's decisions: {seq}"
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "G")


@pytest.mark.parametrize("n,d,target,exp", [(4, -1, 2, 3), (4, 1, 3, 1), (2, 1, 1, 1), (2, -1, 1, 1)])
def test_optimus_turn_goes_to_next_of_originator(n, d, target, exp):
    """AMB-B13 / CORE-28: after Optimus the turn goes to next(p) in the current direction (no skip)."""
    hands = [["OPT", "A:R9", "A:G1"]] + [a_filler(q) for q in range(1, n)]
    t = table(n, "A", ["A:R5"], hands, draw_pile=A_DRAW, direction=d)
    t.step("play OPT", f"target P{target}", "pass", "colour R")
    assert t.s.direction == d
    assert (t.phase, t.current) == ("TURN", exp)


# =========================================================================== Megatron

MEG_DUELS = [
    # (id, option, P0 hand after MEG, P1 hand, loser)
    ("T82-originator-lower", "cannot_be_lowest", ["D:Pk2", "D:Tl8"], ["D:Or5", "D:Pu9"], 0),
    ("target-lower", "cannot_be_lowest", ["D:Pk7"], ["D:Or3", "D:Pu9"], 1),
    ("tie", "cannot_be_lowest", ["D:Pk4", "D:Tl1"], ["D:Or1", "D:Tl6"], 1),
    ("p-no-number", "cannot_be_lowest", ["D:Pk+5"], ["D:Or3"], 1),
    ("t-no-number", "cannot_be_lowest", ["D:Pk7"], ["D:OrR"], 0),
    ("both-no-number", "cannot_be_lowest", ["D:Pk+5"], ["D:OrR"], 1),
    ("p-no-number", "counts_as_lowest", ["D:Pk+5"], ["D:Or3"], 0),
    ("t-no-number", "counts_as_lowest", ["D:Pk7"], ["D:OrR"], 1),
    ("both-no-number", "counts_as_lowest", ["D:Pk+5"], ["D:OrR"], 1),
]


@pytest.mark.parametrize("cid,opt,p0,p1,loser", MEG_DUELS, ids=[f"{c[1]}-{c[0]}" for c in MEG_DUELS])
def test_megatron_duel_loser_draws_two_winner_declares(cid, opt, p0, p1, loser):
    """§2.3 Megatron steps 2-4, AMB-B16 (flip.megatron_no_number), AMB-B17: the strictly lower lowest number
    draws 2 (tie -> target draws); the winner declares; turn -> next(p), the loser is not skipped."""
    t = table(3, "D", ["D:Pk5"], [["MEG"] + p0, p1, ["D:Tl3", "D:Or6"]], draw_pile=["D:Tl1", "D:Tl2", "D:Tl4"],
              **{"flip.megatron_no_number": opt})
    sizes = [len(p0), len(p1), 2]
    t.step("play MEG", "target P1")
    sizes[loser] += 2
    assert t.sizes() == sizes
    assert t.hand(loser) - Counter([p0, p1][loser]) == Counter(["D:Tl1", "D:Tl2"])
    winner = 1 - loser
    assert (t.phase, t.current) == ("CHOOSE_COLOUR", winner)
    t.step("colour Or")
    assert t.sizes() == sizes  # the drawn cards cannot be played (CORE-8): nothing else happened
    assert (t.phase, t.current, t.colour) == ("TURN", 1, "Or")


def test_megatron_reveals_both_full_hands():
    """§1.13 / AMB-B18: Megatron -> both whole hands are public (the originator's without the Megatron)."""
    t = table(4, "D", ["D:Pk5"], [["MEG", "D:Pk2", "WDC", "D:Tl-SE"], d_filler(1), ["D:Or8", "MEG", "D:Pu+5"],
                                   d_filler(3)], draw_pile=D_DRAW)
    t.step("play MEG", "target P2")
    assert t.duel_names() == ("MEG", 0, 2, sorted(["D:Pk2", "WDC", "D:Tl-SE"]), sorted(["D:Or8", "MEG", "D:Pu+5"]))


@pytest.mark.parametrize("n,d,target,exp", [(4, -1, 2, 3), (4, 1, 2, 1), (2, 1, 1, 1)])
def test_megatron_turn_goes_to_next_of_originator(n, d, target, exp):
    """AMB-B17 / CORE-28: after Megatron the turn goes to next(p) (n=2: to the opponent, even if it drew)."""
    hands = [["MEG", "D:Pk7"]] + [[f"D:Or{q}", f"D:Pu{q}"] for q in range(1, n)]
    t = table(n, "D", ["D:Pk5"], hands, draw_pile=D_DRAW, direction=d)
    t.step("play MEG", f"target P{target}")  # target's lowest (<= 3) < 7: the target draws 2, P0 declares
    assert t.size(target) == 4 and t.size(0) == 1
    assert t.current == 0 and t.phase == "CHOOSE_COLOUR"
    t.step("colour Pk")
    assert (t.phase, t.current) == ("TURN", exp)


@pytest.mark.parametrize("side,card,top", [("A", "OPT", "A:R5"), ("D", "MEG", "D:Pk5")])
def test_duel_wild_as_last_card_no_duel_round_ends(side, card, top):
    """AMB-B15 / CORE-24: Optimus / Megatron as the last card -> the round ends, no duel (nobody places/draws)."""
    fill = a_filler if side == "A" else d_filler
    t = table(3, side, [top], [[card], fill(1), fill(2)], draw_pile=A_DRAW if side == "A" else D_DRAW)
    t.step(f"play {card}")
    colours = SIDE_COLOURS[A if side == "A" else D]
    log = t.drive({"CHOOSE_TARGET": ["target P1"], "CHOOSE_COLOUR": [f"colour {colours[0]}"]})
    assert all(ph != "OPTIMUS_PLACE" for ph, *_ in log)
    assert t.s.is_over and t.s.winner == 0
    assert t.sizes() == [0, 2, 2]
    assert t.spec()["pending"]["round_points"] == [(1 + 1) + (2 + 2), 0, 0]


# =========================================================================== restricted wilds

RESTRICT_CASES = [
    # (id, side, discard, colour, P0 hand, card, legal under restricted_wild_bluffing=false)
    ("W+2-holds-colour", "A", ["A:B4"], None, ["W+2", "A:B7"], "W+2", False),
    ("W+2-holds-OPT", "A", ["A:B4"], None, ["W+2", "OPT", "A:R3"], "W+2", False),
    ("W+2-holds-2nd-W+2", "A", ["A:B4"], None, ["W+2", "W+2", "A:R3"], "W+2", False),
    ("W+2-same-number-only", "A", ["A:B4"], None, ["W+2", "A:R4"], "W+2", True),
    ("W+2-same-symbol-only", "A", ["A:BS"], None, ["W+2", "A:RS"], "W+2", True),
    ("W+2-other-colour", "A", ["A:B4"], None, ["W+2", "A:R3"], "W+2", True),
    ("W+2-ref-is-declared-colour", "A", ["A:R5", "OPT"], "G", ["W+2", "A:G1"], "W+2", False),
    ("W+2-ref-colour-absent", "A", ["A:R5", "OPT"], "G", ["W+2", "A:R6"], "W+2", True),
    ("WDC-holds-colour", "D", ["D:Pu4"], None, ["WDC", "D:Pu1"], "WDC", False),
    ("WDC-holds-MEG", "D", ["D:Pu4"], None, ["WDC", "MEG", "D:Tl1"], "WDC", False),
    ("WDC-holds-2nd-WDC", "D", ["D:Pu4"], None, ["WDC", "WDC", "D:Tl1"], "WDC", False),
    ("WDC-same-number-only", "D", ["D:Pu4"], None, ["WDC", "D:Tl4"], "WDC", True),
    ("WDC-same-symbol-only", "D", ["D:Pu+5"], None, ["WDC", "D:Tl+5"], "WDC", True),
]


def _restrict_table(side, discard, colour, p0, **options):
    if side == "A":
        return table(3, "A", discard, [p0, ["A:Y8", "A:G8"], ["A:Y9", "A:G9"]], draw_pile=A_DRAW, colour=colour,
                     **options)
    return table(3, "D", discard, [p0, ["D:Pk8", "D:Tl8"], ["D:Pk9", "D:Tl9"]], draw_pile=D_DRAW, colour=colour,
                 **options)


@pytest.mark.parametrize("cid,side,discard,colour,p0,card,legal", RESTRICT_CASES, ids=[c[0] for c in RESTRICT_CASES])
def test_restricted_wild_masked_without_bluffing(cid, side, discard, colour, p0, card, legal):
    """CORE-16/17, AMB-B19, AMB-B22 (restricted_wild_bluffing=false): W+2 / WDC illegal when holding a card of
    the reference colour (the colour before the wild) or another wild; same number/symbol cards are fine;
    the challenge option is removed."""
    t = _restrict_table(side, discard, colour, p0, restricted_wild_bluffing=False)
    assert (f"play {card}" in t.legal) is legal
    if legal:
        t.step(f"play {card}", f"colour {SIDE_COLOURS[A if side == 'A' else D][1]}")
        assert "challenge" not in (t.legal if t.phase == "CHALLENGE_OR_ACCEPT" else [])
        if t.phase == "CHALLENGE_OR_ACCEPT":
            t.step("accept")
        assert (t.phase, t.current) == ("TURN", 2)
        assert t.size(1) > 2


@pytest.mark.parametrize("cid,side,discard,colour,p0,card,legal", RESTRICT_CASES, ids=[c[0] for c in RESTRICT_CASES])
def test_restricted_wild_challenge_verdict(cid, side, discard, colour, p0, card, legal):
    """CORE-18, AMB-B19/B20/B21/B22 (bluffing allowed): guilty iff the offender held a reference-colour card or
    another wild. Guilty: offender pays, challenger plays next; innocent: challenger pays extra, loses turn."""
    t = _restrict_table(side, discard, colour, p0)
    assert f"play {card}" in t.legal  # bluffing is allowed by default (AMB-G5)
    declared = SIDE_COLOURS[A if side == "A" else D][1]  # Y / Tl
    t.step(f"play {card}", f"colour {declared}", "challenge")
    guilty = not legal
    if card == "W+2":
        exp0, exp1 = (len(p0) - 1 + 2, 2) if guilty else (len(p0) - 1, 2 + 4)
    else:  # WDC, declared Tl: the draw pile D:Tl1.. yields Tl at once
        exp0, exp1 = (len(p0) - 1 + 1, 2) if guilty else (len(p0) - 1, 2 + 1 + 2)
    assert (t.size(0), t.size(1)) == (exp0, exp1)
    assert t.colour == declared
    assert (t.phase, t.current) == ("TURN", 1 if guilty else 2)


def test_wdc_piles_exhausted_during_draw_until():
    """§2.3 WDC step 5 / CORE-11/12: the victim draws, the discard (all but the top) is reshuffled, and when no
    card can be drawn the obligation ends; the victim still loses the turn."""
    t = table(3, "D", ["D:Pu4"], [["WDC", "D:Tl1"], ["D:Pk7", "D:Tl7"], 105], draw_pile=["D:Pk1", "D:Tl5"])
    t.step("play WDC", "colour Or", "accept")
    assert t.hand(1) == Counter(["D:Pk7", "D:Tl7", "D:Pk1", "D:Tl5", "D:Pu4"])
    assert t.s.draw_pile == [] and t.discard == ["WDC"]
    assert (t.phase, t.current, t.colour) == ("TURN", 2, "Or")


@pytest.mark.parametrize("action,exp_cur,exp_sizes", [("accept", 0, [1, 4]), ("challenge", 0, [1, 6])])
def test_two_players_wild_plus_two(action, exp_cur, exp_sizes):
    """CORE-28 / AMB-B23: n=2, W+2 accepted or innocent -> the opponent draws and P0 plays again."""
    t = table(2, "A", ["A:B4"], [["W+2", "A:R3"], ["A:Y8", "A:G8"]], draw_pile=A_DRAW)
    t.step("play W+2", "colour G", action)
    assert t.sizes() == exp_sizes
    assert (t.phase, t.current, t.colour) == ("TURN", exp_cur, "G")


def test_two_players_wdc_guilty_challenger_plays():
    """CORE-28 + AMB-G13: n=2, WDC guilty -> offender draws until X, the challenger takes a normal turn."""
    t = table(2, "D", ["D:Pu4"], [["WDC", "D:Pu7"], ["D:Pk8", "D:Tl8"]], draw_pile=["D:Pk1", "D:Or2", "D:Tl3"])
    t.step("play WDC", "colour Or", "challenge")
    assert t.hand(0) == Counter(["D:Pu7", "D:Pk1", "D:Or2"])
    assert (t.phase, t.current) == ("TURN", 1)


def test_two_players_wdc_accept_player_plays_again():
    """CORE-28: n=2, WDC accepted -> the opponent draws until X and P0 plays again."""
    t = table(2, "D", ["D:Pu4"], [["WDC", "D:Tl7"], ["D:Pk8", "D:Tl8"]], draw_pile=["D:Pk1", "D:Or2", "D:Tl3"])
    t.step("play WDC", "colour Or", "accept")
    assert t.hand(1) == Counter(["D:Pk8", "D:Tl8", "D:Pk1", "D:Or2"])
    assert (t.phase, t.current) == ("TURN", 0)


def test_wild_plus_two_as_last_card_resolved_without_challenge():
    """CORE-24 / AMB-G2: W+2 as the last card -> colour declared, next draws 2 with no challenge, round ends;
    the drawn cards are scored."""
    t = table(3, "A", ["A:B4"], [["W+2"], ["A:G3"], ["A:B6"]], draw_pile=["A:Y1", "A:Y2", "A:Y5"])
    t.step("play W+2", "colour R")
    assert t.s.is_over and t.s.winner == 0
    assert t.hand(1) == Counter(["A:G3", "A:Y1", "A:Y2"])
    assert t.spec()["pending"]["round_points"] == [3 + 1 + 2 + 6, 0, 0]


def test_wdc_as_last_card_resolved_without_challenge():
    """CORE-24: WDC as the last card -> colour X declared, next draws until X without response, round ends."""
    t = table(3, "D", ["D:Pu4"], [["WDC"], ["D:Tl5"], ["D:Pk6"]], draw_pile=["D:Pk1", "MEG", "D:Or2", "D:Tl3"])
    t.step("play WDC", "colour Or")
    assert t.s.is_over and t.s.winner == 0
    assert t.hand(1) == Counter(["D:Tl5", "D:Pk1", "MEG", "D:Or2"])
    assert t.spec()["pending"]["round_points"] == [5 + 1 + 40 + 2 + 6, 0, 0]


# =========================================================================== scoring

A_POINTS = [("A:R7", 7), ("A:R1", 1), ("A:R9", 9), ("A:R+1", 10), ("A:RS", 20), ("A:RR", 20), ("A:R-FLIP", 20),
            ("OPT", 40), ("W+2", 50)]
D_POINTS = [("D:Pk7", 7), ("D:Pk1", 1), ("D:Pk9", 9), ("D:Pk+5", 20), ("D:PkR", 20), ("D:Pk-SE", 30),
            ("D:Pk-FLIP", 20), ("MEG", 40), ("WDC", 60)]


@pytest.mark.parametrize("side", ["A", "D"])
def test_scoring_face_values_of_the_ending_side(side):
    """§2.3 Scoring, AMB-B4 (W+2 = 50, WDC = 60), CORE-25: the winner scores the opponents' active faces."""
    wrong = []
    for face, value in (A_POINTS if side == "A" else D_POINTS):
        if side == "A":
            t = table(2, "A", ["A:G5"], [["A:G2"], [face]], draw_pile=A_DRAW)
            t.step("play A:G2")
        else:
            t = table(2, "D", ["D:Tl5"], [["D:Tl2"], [face]], draw_pile=D_DRAW)
            t.step("play D:Tl2")
        assert t.s.is_over and t.s.winner == 0
        got = t.spec()["pending"]["round_points"][0]
        if got != value or t.s.scores[0] != value:
            wrong.append((face, value, got))
    assert not wrong, f"(face, rule value, engine value): {wrong}"


def test_scoring_uses_side_on_which_round_ended():
    """§2.3 Scoring ("calculer les points en fonction du côté sur lequel s'est terminée la partie")."""
    hands = lambda p0: [p0, ["A:R7|WDC", "A:B1|D:Pu-SE"], ["OPT|D:Pk+5"]]  # noqa: E731
    on_a = table(3, "A", ["A:G5|D:Tl6"], hands(["A:G2|D:Or9"]), draw_pile=A_DRAW)
    on_a.step("play A:G2")
    assert on_a.spec()["pending"]["round_points"] == [7 + 1 + 40, 0, 0]
    on_d = table(3, "D", ["A:G5|D:Tl6"], hands(["A:G2|D:Tl9"]), draw_pile=D_DRAW)
    on_d.step("play D:Tl9")
    assert on_d.spec()["pending"]["round_points"] == [60 + 30 + 20, 0, 0]


# =========================================================================== starter, deck, pairing

def test_starter_non_number_cards_ignored_and_left_beneath():
    """§2.3 Starter / AMB-B6, §1.12: non-number starters (+1, Skip, OPT, W+2, FLIP, Reverse) are ignored and
    stay in the discard pile under the first number card; nobody draws; next(dealer) starts clockwise."""
    g = game(3)
    starters = ["A:R+1", "A:GS", "OPT", "W+2", "A:B-FLIP", "A:YR", "A:G6"]
    spec = {"variant": "flip", "players": 3, "side": "A", "start": True, "dealer": 0, "seed": 3,
            "draw_pile": starters + ["A:Y1", "A:Y2"],
            "hands": [["A:R2", "A:B9"], ["A:Y8", "A:G8"], ["A:Y9", "A:G9"]]}
    t = Table(g, g.state_from_spec(spec))
    assert t.discard == starters
    assert t.top == "A:G6" and t.colour == "G"
    assert t.sizes() == [2, 2, 2]
    assert t.s.side == A and t.s.direction == 1
    assert (t.phase, t.current) == ("TURN", 1)
    assert t.g.deck.name_of[t.s.draw_pile[-1]] == "A:Y1"


@pytest.mark.parametrize("dealer,first", [(0, 1), (2, 0)])
def test_starter_number_plays_normally(dealer, first):
    """§1.12 / CORE-4: a number starter is played normally; next(dealer) starts, dir = +1."""
    g = game(3)
    spec = {"variant": "flip", "players": 3, "side": "A", "start": True, "dealer": dealer, "seed": 1,
            "draw_pile": ["A:B3", "A:Y1"], "hands": [["A:R2", "A:B9"], ["A:Y8", "A:G8"], ["A:Y9", "A:G9"]]}
    t = Table(g, g.state_from_spec(spec))
    assert t.discard == ["A:B3"] and t.colour == "B"
    assert (t.phase, t.current, t.s.direction) == ("TURN", first, 1)


def _expected_side_faces(side: int) -> Counter:
    c = Counter()
    if side == A:
        for col in SIDE_COLOURS[A]:
            for r in [str(i) for i in range(1, 10)] + ["+1", "S", "R", "-FLIP"]:
                c[f"A:{col}{r}"] = 2
        c["OPT"] = c["W+2"] = 4
    else:
        for col in SIDE_COLOURS[D]:
            for r in [str(i) for i in range(1, 10)] + ["+5", "R", "-SE", "-FLIP"]:
                c[f"D:{col}{r}"] = 2
        c["MEG"] = c["WDC"] = 4
    return c


def test_deck_composition_per_side():
    """AMB-B1 / §2.3 per-side composition: 112 two-sided cards; each side 72+8+8+8+8+4+4; 7 cards dealt."""
    g = game(4)
    s = g.new_state(seed=11)
    cards = whole_cards(g, s)
    assert sum(cards.values()) == DECK_SIZE
    a_faces, d_faces = Counter(), Counter()
    for card, c in cards.items():
        a, d = card.split("|")
        a_faces[a] += c
        d_faces[d] += c
    assert a_faces == _expected_side_faces(A)
    assert d_faces == _expected_side_faces(D)
    assert s.side == A and sorted(s.hand_size) == [7, 7, 7, 7]


def test_pairing_fixed_is_the_same_for_any_seed():
    """AMB-B2: flip.pairing=fixed -> the same A/D pairing whatever the seed."""
    g = game(3, **{"flip.pairing": "fixed"})
    pairings = [whole_cards(g, g.new_state(seed=seed)) for seed in (0, 1, 7)]
    assert pairings[0] == pairings[1] == pairings[2]


def test_pairing_random_per_deck_differs_across_seeds():
    """AMB-B2: flip.pairing=random_per_deck (default) -> the pairing is drawn from the seed (differs)."""
    g = game(3)
    p0 = whole_cards(g, g.new_state(seed=0))
    p1 = whole_cards(g, g.new_state(seed=1))
    assert p0 != p1
    assert whole_cards(g, g.new_state(seed=0)) == p0  # reproducible


def test_spec_random_pairing_of_named_faces_is_not_clumped():
    """AMB-B2 / §2.3 ("uniformly random per deck instance"): in a spec-built state the backs of cards named by
    their active face alone are paired at random. Seven different faces named in a row should almost never
    share back faces (uniform pairing: ~1% per neighbouring pair); count neighbours with equal backs."""
    g = game(3)
    same = 0
    for seed in range(10):
        s = g.state_from_spec({"variant": "flip", "players": 3, "side": "A", "discard": ["A:B5"], "seed": seed,
                               "hands": [["A:R1", "A:R2", "A:R3", "A:R4", "A:R5", "A:R6", "A:R7"], 3, 3]})
        backs = [c.split("|")[D] for c in g.to_spec(s)["hands"][0]]
        same += sum(backs[i] == backs[i + 1] for i in range(len(backs) - 1))
    # 60 neighbouring pairs; expectation under a uniform pairing is about 0.6
    assert same <= 6, f"{same} of 60 neighbouring named cards got the same back face: the pairing is not random"


# =========================================================================== information (§1.13)

def _obs(t: Table, seat: int):
    return ObservationEncoder(t.g).encode(t.s, seat)


def _info_table(p0_first: str, draw=("A:Y1|D:Pu5", "A:Y2|D:Pu6")) -> Table:
    hands = [[p0_first, "A:G2|D:Or1"], ["A:Y8|D:Tl8", "A:B2|D:Pu2"], ["A:Y9|D:Tl9", "A:G8|D:Pu4"]]
    return table(3, "A", ["A:R5|D:Pk9"], hands, draw_pile=list(draw))


def test_information_own_back_faces_hidden_opponents_see_them():
    """§1.13 / AMB-B25: a player does not see the inactive faces of its own hand; every opponent sees them."""
    t1, t2 = _info_table("A:R7|D:Pk3"), _info_table("A:R7|D:Tl4")
    assert (_obs(t1, 0) == _obs(t2, 0)).all(), "P0 must not see its own back faces"
    for seat in (1, 2):
        assert not (_obs(t1, seat) == _obs(t2, seat)).all(), f"P{seat} must see P0's back faces"


def test_information_draw_pile_top_back_face_is_public_only_the_top():
    """§1.13 / AMB-B25: the inactive face of the draw pile's top card is public; deeper cards are not."""
    base = _info_table("A:R7|D:Pk3")
    top = _info_table("A:R7|D:Pk3", draw=("A:Y1|D:Pu7", "A:Y2|D:Pu6"))
    deeper = _info_table("A:R7|D:Pk3", draw=("A:Y1|D:Pu5", "A:Y2|D:Pu8"))
    for seat in range(3):
        assert not (_obs(base, seat) == _obs(top, seat)).all(), f"P{seat} must see the draw pile's top back"
        assert (_obs(base, seat) == _obs(deeper, seat)).all(), f"P{seat} must not see a deeper card's back"


def test_information_challenge_reveals_offender_hand_to_challenger_only():
    """CORE-18 step 2 / AMB-G6, §1.13: a challenge shows the offender's hand to the challenger only."""
    draw = ["A:Y1|D:Tl1", "A:Y2|D:Tl2", "A:Y3|D:Tl3", "A:Y4|D:Tl4", "A:Y5|D:Tl5", "A:Y6|D:Tl6"]

    def run(hidden):
        t = table(3, "A", ["A:B4|D:Pk9"], [["W+2|D:Or5", hidden], ["A:Y8|D:Tl8", "A:G1|D:Pu2"],
                                            ["A:Y9|D:Tl9", "A:G8|D:Pu4"]], draw_pile=draw)
        t.step("play W+2", "colour R", "challenge")  # innocent in both cases (no B card, no other wild)
        assert (t.phase, t.current) == ("TURN", 2)
        return t

    t1, t2 = run("A:R3|D:Pk1"), run("A:G3|D:Pk1")
    assert not (_obs(t1, 1) == _obs(t2, 1)).all(), "the challenger must see the offender's hand"
    assert (_obs(t1, 2) == _obs(t2, 2)).all(), "a third player must not see the offender's hand"


def test_uno_call_before_victim_challenge_decision():
    """§1.6 step 7, CORE-20/22 (explicit): W+2 leaving one card -> the UNO call comes before the challenge."""
    t = table(3, "A", ["A:B4"], W2_HANDS(["W+2", "A:R3"]), draw_pile=W2_DRAW, uno_call="explicit")
    t.step("play W+2")
    log = t.drive({"CHOOSE_COLOUR": ["colour R"], "UNO_CALL": ["call"], "CHALLENGE_OR_ACCEPT": ["accept"]})
    seq = phases_of(log)
    assert seq.index(("UNO_CALL", 0)) < seq.index(("CHALLENGE_OR_ACCEPT", 1)), seq
    assert (t.phase, t.current) == ("TURN", 2)


@pytest.mark.parametrize("action,exp_hand0,exp_cur", [("pass", 3, 1), ("play D:Pk2", 2, 1)])
def test_draw_then_play_or_keep(action, exp_hand0, exp_cur):
    """CORE-6/7 on side D: a voluntary draw of a playable card -> play that card only, or keep it."""
    t = table(3, "D", ["D:Pk5"], [["D:Pk9", "D:Or1"], d_filler(2), d_filler(3)], draw_pile=["D:Pk2", "D:Tl1"])
    t.step("draw")
    assert (t.phase, t.current) == ("PLAY_OR_KEEP_DRAWN", 0)
    assert set(t.legal) == {"play D:Pk2", "pass"}
    t.step(action)
    assert t.size(0) == exp_hand0
    assert (t.phase, t.current) == ("TURN", exp_cur)


# =========================================================================== random play invariants

@pytest.mark.parametrize("n,options", [(2, {}), (4, {"uno_call": "explicit", "restricted_wild_bluffing": False})])
def test_random_play_invariants(n, options):
    """§6.7 invariants after every step of seeded random games (conservation across flips, orientation,
    colour consistency, non-empty legal set, one empty hand at the end)."""
    g = game(n, **options)
    rng = random.Random(1234 + n)
    flips = 0
    for seed in range(3):
        s = g.new_state(seed=seed)
        base = whole_cards(g, s)
        for _ in range(250):
            if s.is_over:
                break
            legal = g.legal_actions(s)
            assert legal, "the deciding seat must have a legal action"
            side = s.side
            g.step(s, rng.choice(legal))
            flips += s.side != side
            check_invariants(g, s, base)
    assert flips > 0, "random play should have exercised at least one FLIP"


def test_megatron_leaving_one_card_asks_the_call_before_the_duel_then_the_loser_draws():
    """§1.6 step 7: the call belongs to the placement that left one card, before the duel (which it may lose)."""
    t = table(3, "D", ["D:Pk5"], [["MEG", "D:Pk1"], ["D:Or5", "D:Pu9"], ["D:Tl3", "D:Or6"]], draw_pile=D_DRAW,
              uno_call="explicit")
    t.step("play MEG", "target P1")
    assert (t.phase, t.current) == ("UNO_CALL", 0)
    t.step("call")
    assert t.sizes()[0] == 1 + 2  # then the duel: P0's 1 is the lowest number, so P0 draws 2
    assert (t.phase, t.current) == ("CHOOSE_COLOUR", 1)  # and the winner P1 declares


def test_duels_compare_printed_numbers_not_points(tmp_path):
    """§2.3 Optimus: "la carte NUMÉROTÉE la plus élevée (1-9)": the number decides, whatever the manifest's points."""
    import yaml
    from importlib import resources

    manifest = yaml.safe_load((resources.files("uno_env") / "decks" / "flip.yaml").read_text(encoding="utf-8"))
    for entry in manifest["sides"][0]["coloured"]:
        if entry["rank"] == "9":
            entry["points"] = 0
    path = tmp_path / "flip.yaml"
    path.write_text(yaml.safe_dump(manifest), encoding="utf-8")
    g = Game("flip", num_players=2, **{"flip.deck_manifest": str(path)})
    s = g.state_from_spec({"discard": ["A:R5"], "hands": [["OPT", "A:R9", "A:G1"], ["A:Y7", "A:B2"]]})
    g.step(s, "play OPT")
    g.step(s, "target P1")
    assert (s.phase, s.current_seat) == ("OPTIMUS_PLACE", 0)  # 9 beats 7


def test_wild_draw_colour_pending_names_its_colour_and_colour_waits_during_a_duel():
    g = Game("flip", num_players=3)
    s = g.state_from_spec({"side": "D", "discard": ["D:Pu2"], "hands": [["WDC", "D:Tl1"], ["D:Pk-SE"], ["D:Or3"]]})
    g.step(s, "play WDC")
    g.step(s, "colour Or")
    pen = g.to_spec(s)["pending"]["penalty"]
    assert pen["until_colour"] == "Or" and pen["challengeable"] and pen["total"] == 0
    g2 = Game("flip", num_players=2, uno_call="explicit")
    s = g2.state_from_spec({"discard": ["A:R5"], "hands": [["OPT", "A:G1"], ["A:Y7", "A:B2", "A:B3"]]})
    g2.step(s, "play OPT")
    g2.step(s, "target P1")
    assert s.phase == "UNO_CALL" and g2.to_spec(s)["colour"] is None  # the Optimus' colour is not declared yet
    g2.step(s, "call")
    assert s.phase == "OPTIMUS_PLACE" and g2.to_spec(s)["colour"] is None


def test_optimus_placement_needing_a_match_after_the_discard_was_reshuffled():
    """flip.optimus_place_requires_match: with nothing left beneath the Optimus (an UNO penalty reshuffled the
    pile during the duel), a placed card must have the colour from before the Optimus, or be a wild."""
    g = Game("flip", num_players=2, uno_call="explicit", **{"flip.optimus_place_requires_match": True})
    s = g.state_from_spec({"discard": ["A:R5"], "draw_pile": [], "unplaced": "discard",
                           "hands": [["OPT", "A:R2"], ["A:Y8", "A:R3", "A:G7"]]})
    for action in ("play OPT", "target P1", "no-call", "catch"):  # P0 is caught: it draws 2 from a reshuffle
        g.step(s, action)
    assert len(s.discard) == 1 and s.hand_size[0] == 3
    assert (s.phase, s.current_seat) == ("OPTIMUS_PLACE", 1)  # P1's 8 beat P0's 2
    assert g.legal_action_strings(s) == ["play A:R3", "pass"]
