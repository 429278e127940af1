"""Independent conformance tests for the UNO Flex rules (docs/rules.md §2.2, §4.3 AMB-A*, §6.3 T44-T64).

Every expectation below is derived from the text of docs/rules.md, not from the engine's behaviour.
Flex deck reminder (flex colour = colour + offset, R=0 Y=1 G=2 B=3): flex numbers 1,4,7 -> +1,
2,5,8 -> +2, 3,6 -> +3; FS -> +1, FR -> +2, F+2 -> +3. So e.g. Y4~G, G2~R, FS:G~B, FR:R~G, F+2:R~B.
Classic numbers 1-4 carry the flip icon (``R4`` names ``R4↻``).
"""
from __future__ import annotations

import pytest

import uno_env
from uno_env import Game
from uno_env.errors import RuleError, SpecError

from flex_table import build, legal, run, sizes  # the shared Flex helpers (tests/flex_table.py)

T, F = True, False


# --------------------------------------------------------------------------------------------
# 1. docs/rules.md §6.3 scenarios, table-driven
# --------------------------------------------------------------------------------------------

SCENARIOS = [
    # T44 flex colour play: colour becomes the PRIMARY colour, P0 ✓→✘, P1 still ✓ so no reset
    pytest.param({"hands": [["Y4~G", "R1"], ["B8"], ["B7"]], "discard": ["G3"], "power": [T, T, F]},
                 ["play Y4~G flex"],
                 {"top": "Y4~G", "colour": "Y", "power": [F, T, F], "current": 1, "sizes": [1, 1, 1]}, id="T44"),
    # T46 regular play of a flex card keeps the power
    pytest.param({"hands": [["Y4~G", "R1"], ["B8"], ["B7"]], "discard": ["Y2"], "power": [T, T, T]},
                 ["play Y4~G"], {"top": "Y4~G", "colour": "Y", "power": [T, T, T], "current": 1}, id="T46"),
    # T47a flip icon toggles own power ✘→✓
    pytest.param({"hands": [["R4", "B8"], ["B7"], ["B6"]], "discard": ["R2"], "power": [F, T, T]},
                 ["play R4↻"], {"top": "R4↻", "colour": "R", "power": [T, T, T], "current": 1}, id="T47a"),
    # T47b flip icon ✓→✘ makes all ✘ => all reset to ✓
    pytest.param({"hands": [["R4", "B8"], ["B7"], ["B6"]], "discard": ["R2"], "power": [T, F, F]},
                 ["play R4^"], {"power": [T, T, T], "current": 1}, id="T47b"),
    # T49 Wild All Flip toggles everyone
    pytest.param({"hands": [["WAF", "B8"], ["B7"], ["B6"]], "discard": ["G5"], "power": [T, F, T]},
                 ["play WAF", "colour B"], {"top": "WAF", "colour": "B", "power": [F, T, F], "current": 1}, id="T49"),
    # T50 Wild All Flip with everyone ✓: all ✘ then reset => all ✓
    pytest.param({"hands": [["WAF", "B8"], ["B7"], ["B6"]], "discard": ["G5"], "power": [T, T, T]},
                 ["play WAF", "colour B"], {"colour": "B", "power": [T, T, T], "current": 1}, id="T50"),
    # T51 Flex Draw Two FLEX: every other player draws 1, nobody skipped
    pytest.param({"hands": [["F+2:R~B", "Y8", "Y7"], 5, 5, 5], "discard": ["B6"], "power": [T, T, T, T]},
                 ["play F+2:R~B flex"],
                 {"top": "F+2:R~B", "colour": "R", "power": [F, T, T, T], "current": 1, "sizes": [2, 6, 6, 6]}, id="T51"),
    # T52 Flex Draw Two REGULAR = Draw Two (power ✓ and ✘ unchanged)
    pytest.param({"hands": [["F+2:R~B", "Y8"], 5, 5], "discard": ["R6"], "power": [T, T, T]},
                 ["play F+2:R~B"], {"colour": "R", "power": [T, T, T], "current": 2, "sizes": [1, 7, 5]}, id="T52-on"),
    pytest.param({"hands": [["F+2:R~B", "Y8"], 5, 5], "discard": ["R6"], "power": [F, T, T]},
                 ["play F+2:R~B"], {"power": [F, T, T], "current": 2, "sizes": [1, 7, 5]}, id="T52-off"),
    # T54 Flex Skip FLEX: all others skipped, P0 plays again
    pytest.param({"hands": [["FS:G~B", "Y8"], 5, 5, 5], "discard": ["B2"], "power": [T, T, T, T]},
                 ["play FS:G~B flex"],
                 {"top": "FS:G~B", "colour": "G", "power": [F, T, T, T], "current": 0, "phase": "TURN",
                      "sizes": [1, 5, 5, 5]}, id="T54"),
    # T55 Target Draw 2 FLEX: target first, then colour
    pytest.param({"hands": [["WT2", "Y8"], 5, 5, 5], "discard": ["G5"], "power": [T, T, T, T]},
                 ["play WT2 flex", "target P2", "colour R"],
                 {"top": "WT2", "colour": "R", "power": [F, T, T, T], "current": 1, "sizes": [1, 5, 7, 5]}, id="T55"),
    # T56 Target Draw 2 REGULAR = plain wild
    pytest.param({"hands": [["WT2", "Y8"], 5, 5, 5], "discard": ["G5"], "power": [T, T, T, T]},
                 ["play WT2", "colour R"],
                 {"colour": "R", "power": [T, T, T, T], "current": 1, "sizes": [1, 5, 5, 5]}, id="T56-on"),
    pytest.param({"hands": [["WT2", "Y8"], 5, 5, 5], "discard": ["G5"], "power": [F, T, T, T]},
                 ["play WT2", "colour R"],
                 {"colour": "R", "power": [F, T, T, T], "current": 1, "sizes": [1, 5, 5, 5]}, id="T56-off"),
    # T57 Wild All Draw FLEX: every other player draws 2, next not skipped
    pytest.param({"hands": [["WAD", "Y8"], 5, 5], "discard": ["R5"], "power": [T, T, T]},
                 ["play WAD flex", "colour G"],
                 {"colour": "G", "power": [F, T, T], "current": 1, "sizes": [1, 7, 7]}, id="T57"),
    # T59 W4F REGULAR challenged, innocent: challenger draws 6 and loses the turn
    pytest.param({"hands": [["W4F", "R1"], 5, 5], "discard": ["G5"]},
                 ["play W4F", "colour B", "challenge"],
                 {"colour": "B", "current": 2, "sizes": [1, 11, 5], "phase": "TURN"}, id="T59"),
    # T60 W4F FLEX: target draws 4, no challenge, next player not skipped
    pytest.param({"hands": [["W4F", "G2"], 5, 5, 5], "discard": ["G5"], "power": [T, T, T, T]},
                 ["play W4F flex", "target P3", "colour Y"],
                 {"colour": "Y", "power": [F, T, T, T], "current": 1, "phase": "TURN", "sizes": [1, 5, 5, 9]}, id="T60"),
    # T64 two players: Reverse acts as Skip
    pytest.param({"hands": [["RR", "G1"], 5], "discard": ["R3"]},
                 ["play RR"], {"top": "RR", "colour": "R", "current": 0, "phase": "TURN", "sizes": [1, 5]}, id="T64"),
]


@pytest.mark.parametrize("spec, actions, expect", SCENARIOS)
def test_section_6_3_scenarios(spec, actions, expect):
    """docs/rules.md §6.3 T44-T64 (§2.2 card table and power-card updates, AMB-A14, CORE-18, AMB-A15)."""
    game, state = build(**spec)
    out = run(game, state, *actions)
    if "top" in expect:
        assert out["discard"][-1] == expect["top"]
    for key in ("colour", "power", "current", "phase"):
        if key in expect:
            assert out[key] == expect[key], key
    if "sizes" in expect:
        assert sizes(out) == expect["sizes"]


def test_T45_power_off_blocks_flex_play():
    """T45 [§2.2]: as T44 with P0 ✘: the flex-colour play is illegal, only DRAW remains."""
    game, state = build([["Y4~G", "R1"], ["B8"], ["B7"]], ["G3"], power=[F, T, F])
    assert legal(game, state) == {"draw"}


def test_T44_only_flex_mode_is_offered_when_only_the_flex_colour_matches():
    """T44 / F2 [§2.2]: Y4~G on G3 matches only via its flex colour: REGULAR is illegal."""
    game, state = build([["Y4~G", "R1"], ["B8"], ["B7"]], ["G3"], power=[T, T, F])
    assert legal(game, state) == {"play Y4~G flex", "draw"}


def test_T59_challenge_phase_belongs_to_next_player():
    """T59 / CORE-18 / F6: after W4F REGULAR + colour, next(p) chooses ACCEPT or CHALLENGE."""
    game, state = build([["W4F", "R1"], 5, 5], ["G5"])
    run(game, state, "play W4F", "colour B")
    assert state.phase == "CHALLENGE_OR_ACCEPT" and state.current_seat == 1
    assert legal(game, state) == {"challenge", "accept"}


# --------------------------------------------------------------------------------------------
# 2. Legality of REGULAR vs FLEX modes
# --------------------------------------------------------------------------------------------

def test_power_off_blocks_every_flex_play_including_flex_wilds():
    """§2.2 Play modes / AMB-A6: with ✘ no FLEX play at all; wilds stay playable REGULAR."""
    hand = [["WT2", "WAD", "W4F", "WAF", "Y4~G"], ["B8"], ["B7"]]
    game, state = build(hand, ["G3"], power=[F, T, T])
    assert legal(game, state) == {"play WT2", "play WAD", "play W4F", "play WAF", "draw"}


def test_power_on_offers_flex_mode_for_flex_wilds_but_not_wild_all_flip():
    """§2.2 / AMB-A6: the three Flex Wilds have a FLEX mode (needs ✓); Wild All Flip has none."""
    hand = [["WT2", "WAD", "W4F", "WAF", "Y4~G"], ["B8"], ["B7"]]
    game, state = build(hand, ["G3"], power=[T, T, T])
    assert legal(game, state) == {"play WT2", "play WAD", "play W4F", "play WAF", "play WT2 flex",
                                  "play WAD flex", "play W4F flex", "play Y4~G flex", "draw"}


def test_classic_actions_have_no_flex_mode():
    """§2.2: 'all other cards are REGULAR only' - Skip, Reverse, Draw Two never offer FLEX."""
    game, state = build([["GS", "GR", "G+2"], ["B8"], ["B7"]], ["G3"], power=[T, T, T])
    assert legal(game, state) == {"play GS", "play GR", "play G+2", "draw"}


@pytest.mark.parametrize("top, hand, playable", [
    ("RS", ["FS:G~B", "GS", "FR:Y~B", "Y8"], {"play FS:G~B", "play GS"}),
    ("FS:R~Y", ["GS", "B7"], {"play GS"}),
    ("RR", ["FR:G~R", "B7"], {"play FR:G~R"}),
    ("FR:R~G", ["BR", "B7"], {"play BR"}),
    ("R+2", ["F+2:G~Y", "B7"], {"play F+2:G~Y"}),
    ("F+2:R~B", ["Y+2", "B7"], {"play Y+2"}),
])
def test_symbol_classes_match_classic_and_flex_actions(top, hand, playable):
    """AMB-A11: Skip ≡ Flex Skip, Reverse ≡ Flex Reverse, Draw Two ≡ Flex Draw Two (REGULAR)."""
    game, state = build([hand, ["Y6"], ["Y5"]], [top], power=[F, T, T])
    assert legal(game, state) == playable | {"draw"}


def test_flex_numbers_match_by_number():
    """CORE-9(iii) / §2.2: a flex number matches a number top by its number (REGULAR)."""
    game, state = build([["Y5~B", "G5~R", "B8"], ["Y6"], ["Y7"]], ["R5"], power=[F, T, T])
    assert legal(game, state) == {"play Y5~B", "play G5~R", "draw"}


def test_regular_number_match_of_flex_card_changes_nothing_but_colour():
    """AMB-A12: a flex number played REGULAR by number keeps the power; colour = primary."""
    game, state = build([["Y4~G", "B8"], ["Y6"], ["Y7"]], ["R4"], power=[T, T, T])
    assert "play Y4~G flex" not in legal(game, state)
    out = run(game, state, "play Y4~G")
    assert out["colour"] == "Y" and out["power"] == [T, T, T] and out["current"] == 1


def test_both_modes_offered_when_both_legal():
    """F1/F2: FS:Y~G on GS matches by symbol (REGULAR) and by flex colour G (FLEX)."""
    game, state = build([["FS:Y~G", "B8"], ["Y6"], ["Y7"]], ["GS"], power=[T, T, T])
    assert legal(game, state) == {"play FS:Y~G", "play FS:Y~G flex", "draw"}


def test_flex_mode_matches_declared_colour_of_a_wild_top():
    """CORE-10 / AMB-A5: on a wild the current colour is the declared one; flex colour may match it."""
    game, state = build([["Y4~G", "B8"], ["Y6"], ["Y7"]], ["WAF"], colour="G", power=[T, T, T])
    assert legal(game, state) == {"play Y4~G flex", "draw"}


def test_flex_action_needs_flex_colour_match_for_flex_mode():
    """AMB-A5: FS:G~B on G5 is legal REGULAR by colour; FLEX needs flex colour B = current colour."""
    game, state = build([["FS:G~B", "B8"], ["Y6"], ["Y7"]], ["G5"], power=[T, T, T])
    assert legal(game, state) == {"play FS:G~B", "draw"}


# --------------------------------------------------------------------------------------------
# 3. Power-card update order and all-✘ reset (AMB-A14)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("power, after", [
    ([T, F, F], [T, T, T]),   # P0's FLEX play makes everyone ✘ => reset
    ([T, T, F], [F, T, F]),
])
def test_flex_play_then_all_off_reset(power, after):
    """§2.2 power updates 1 and 4 / AMB-A14: FLEX play ✓→✘, then the all-✘ reset is checked."""
    game, state = build([["Y4~G", "B8"], ["Y6"], ["Y7"]], ["G3"], power=power)
    assert run(game, state, "play Y4~G flex")["power"] == after


def test_wild_all_flip_partial_toggle():
    """§2.2 power update 3: WAF toggles every player including the player; reset only if all ✘."""
    game, state = build([["WAF", "B8"], ["Y6"], ["Y7"], ["Y5"]], ["G3"], power=[T, T, F, F])
    assert run(game, state, "play WAF", "colour R")["power"] == [F, F, T, T]


def test_wild_all_flip_making_everyone_off_resets():
    """AMB-A14: P0 ✓, others ✓ -> WAF turns all ✘ -> reset all ✓ (also with n=2)."""
    game, state = build([["WAF", "B8"], ["Y6"]], ["G3"], power=[T, T])
    assert run(game, state, "play WAF", "colour R")["power"] == [T, T]


def test_flex_action_flex_play_with_others_off_resets_all():
    """AMB-A14: the reset is checked after the card's other effects (Flex Draw Two FLEX)."""
    game, state = build([["F+2:R~B", "B8"], 3, 3], ["B6"], power=[T, F, F])
    out = run(game, state, "play F+2:R~B flex")
    assert out["power"] == [T, T, T] and sizes(out) == [1, 4, 4] and out["current"] == 1


def test_regular_w4f_does_not_change_power():
    """§2.2: only FLEX plays flip the power; W4F REGULAR keeps ✓."""
    game, state = build([["W4F", "R1"], ["Y6"], ["Y7"]], ["G5"], power=[T, T, T])
    out = run(game, state, "play W4F", "colour B", "accept")
    assert out["power"] == [T, T, T]


# --------------------------------------------------------------------------------------------
# 4. Flex action effects: Reverse, Skip, multi-victim draws
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, action, direction, current", [
    (4, "play FR:R~G flex", -1, 2),   # reverse, then skip P3 (next in new dir) => P2
    (3, "play FR:R~G flex", -1, 1),   # reverse, skip P2 => P1
    (2, "play FR:R~G flex", None, 0),  # AMB-A15: p plays again
    (4, "play FR:R~G", -1, 3),        # REGULAR = Reverse
    (2, "play FR:R~G", None, 0),      # CORE-14/28: Reverse = Skip
])
def test_flex_reverse(n, action, direction, current):
    """§2.2 Flex Reverse (REGULAR: reverse; FLEX: reverse then skip next in new direction), AMB-A15."""
    hands = [["FR:R~G", "B8"]] + [3] * (n - 1)
    game, state = build(hands, ["G5"] if action.endswith("flex") else ["R5"], power=[T] * n)
    out = run(game, state, action)
    assert out["current"] == current and out["colour"] == "R" and out["phase"] == "TURN"
    if direction is not None:
        assert out["direction"] == direction
    assert out["power"][0] == (not action.endswith("flex"))
    assert sizes(out)[1:] == [3] * (n - 1)


@pytest.mark.parametrize("n, action, current", [
    (2, "play FS:G~B flex", 0),  # AMB-A16: same as Skip, still costs the power
    (3, "play FS:G~B flex", 0),
    (4, "play FS:G~B", 2),       # REGULAR = Skip
    (2, "play FS:G~B", 0),       # CORE-28
])
def test_flex_skip(n, action, current):
    """§2.2 Flex Skip / AMB-A16 / CORE-13/28."""
    hands = [["FS:G~B", "Y8"]] + [3] * (n - 1)
    game, state = build(hands, ["B2"] if action.endswith("flex") else ["G6"], power=[T] * n)
    out = run(game, state, action)
    assert out["current"] == current and out["colour"] == "G" and out["phase"] == "TURN"
    assert out["power"][0] == (not action.endswith("flex"))


DRAWS = ["R8", "Y7", "G6", "B5", "R7", "Y6"]


def drawn(out, seat, hands):
    return sorted(set(out["hands"][seat]) - set(hands[seat]))


@pytest.mark.parametrize("direction, order", [(1, [1, 2, 3]), (-1, [3, 2, 1])])
def test_wild_all_draw_flex_victims_in_turn_order(direction, order):
    """§2.2 'multi-victim draws are dealt in turn order starting at next(p)'; next player not skipped."""
    hands = [["WAD", "B8"], ["B1↻"], ["B3↻"], ["B4↻"]]
    game, state = build(hands, ["G5"], power=[T] * 4,
                        direction=direction, draw_pile=DRAWS)
    out = run(game, state, "play WAD flex", "colour Y")
    for i, seat in enumerate(order):
        assert drawn(out, seat, hands) == sorted(DRAWS[2 * i:2 * i + 2]), seat
    assert out["current"] == order[0] and out["colour"] == "Y"


@pytest.mark.parametrize("direction, order", [(1, [1, 2, 3]), (-1, [3, 2, 1])])
def test_flex_draw_two_flex_victims_in_turn_order(direction, order):
    """§2.2 Flex Draw Two FLEX: every other player draws 1 in turn order from next(p); nobody skipped."""
    hands = [["F+2:R~B", "Y8"], ["G1↻"], ["G3↻"], ["G4↻"]]
    game, state = build(hands, ["B6"], power=[T] * 4, direction=direction, draw_pile=DRAWS)
    out = run(game, state, "play F+2:R~B flex")
    for i, seat in enumerate(order):
        assert drawn(out, seat, hands) == [DRAWS[i]], seat
    assert out["current"] == order[0]


@pytest.mark.parametrize("top, action, seq, current, sizes_after", [
    ("R6", "play F+2:R~B", [], 0, [1, 5]),            # CORE-28: opponent draws 2, p again
    ("B6", "play F+2:R~B flex", [], 1, [1, 4]),       # CORE-28: skips nobody -> opponent's turn
    ("B6", "play WAD flex", ["colour R"], 1, [1, 5]),
    ("B6", "play WT2 flex", ["target P1", "colour R"], 1, [1, 5]),
])
def test_two_player_draw_effects(top, action, seq, current, sizes_after):
    """CORE-28: draw-and-lose-turn -> p plays again; FLEX draws skip nobody -> opponent plays."""
    card = action.split()[1]
    game, state = build([[card, "Y8"], ["G1", "G3", "G4"]], [top], power=[T, T])
    out = run(game, state, action, *seq)
    assert out["current"] == current and sizes(out) == sizes_after


# --------------------------------------------------------------------------------------------
# 5. Flex Wild Draw Four: REGULAR challenge (CORE-16..18, AMB-A9/A10) and FLEX mode (AMB-A7/A8)
# --------------------------------------------------------------------------------------------

W4F_CASES = [
    # (P0 hand, P0 power, options, guilty?)
    (["W4F", "G1"], T, {}, True),                 # primary colour = reference colour
    (["W4F", "G3~Y"], F, {}, True),               # flex card, primary colour counts regardless of power
    (["W4F", "WAF"], T, {}, True),                # AMB-A9: held wild counts
    (["W4F", "W4F"], F, {}, True),                # another W4F is a held wild too
    (["W4F", "Y4~G"], T, {}, True),               # AMB-A10: flex colour G with power ✓
    (["W4F", "Y4~G"], F, {}, False),              # AMB-A10: power ✘ => does not count
    (["W4F", "R5"], T, {}, False),                # number match only does not count (CORE-16)
    (["W4F", "R1", "Y8"], T, {}, False),
    (["W4F", "WAF"], T, {"flex.wild_counts_as_match": False}, False),
    (["W4F", "Y4~G"], T, {"flex.wd4_counts_flexable_cards": False}, False),
    (["W4F", "G1"], T, {"flex.wd4_counts_flexable_cards": False, "flex.wild_counts_as_match": False}, True),
]


@pytest.mark.parametrize("hand, power0, options, guilty", W4F_CASES)
def test_w4f_regular_challenge(hand, power0, options, guilty):
    """CORE-16/18, AMB-A9/A10, options wild_counts_as_match / wd4_counts_flexable_cards.
    Guilty: P0 draws 4, P1 draws nothing and takes a normal turn. Innocent: P1 draws 6, skipped.
    The declared colour stands either way."""
    game, state = build([hand, ["B8", "B7", "B6"], ["Y6"]], ["G5"], power=[power0, T, T], options=options)
    assert "play W4F" in legal(game, state)  # bluffing allowed (CORE-17)
    out = run(game, state, "play W4F", "colour R", "challenge")
    assert out["colour"] == "R" and out["phase"] == "TURN"
    if guilty:
        assert sizes(out) == [len(hand) - 1 + 4, 3, 1] and out["current"] == 1
    else:
        assert sizes(out) == [len(hand) - 1, 9, 1] and out["current"] == 2


@pytest.mark.parametrize("n, current", [(3, 2), (4, 2), (2, 0)])
def test_w4f_regular_accepted(n, current):
    """CORE-18 ACCEPT: next draws 4 and loses the turn (n=2: p plays again, CORE-28)."""
    hands = [["W4F", "G1"], ["B8", "B7"]] + [["Y5"], ["Y7"]][:n - 2]
    game, state = build(hands, ["G5"], power=[T] * n)
    out = run(game, state, "play W4F", "colour B", "accept")
    assert sizes(out)[:2] == [1, 6] and out["current"] == current and out["colour"] == "B"


@pytest.mark.parametrize("n, target", [(3, 1), (3, 2), (4, 3)])
def test_w4f_flex_targets_opponent_no_challenge_no_skip(n, target):
    """§2.2 W4F FLEX / AMB-A7/A8: n-1 opponent targets; target +4; no challenge even though P0
    holds a G card; next(p) is not skipped; P0 ✓→✘."""
    hands = [["W4F", "G2"]] + [["B8", "B7"], ["Y6", "Y5"], ["Y7", "Y3"]][:n - 1]
    game, state = build(hands, ["G5"], power=[T] * n)
    game.step(state, "play W4F flex")
    assert state.phase == "CHOOSE_TARGET" and state.current_seat == 0
    assert legal(game, state) == {f"target P{i}" for i in range(1, n)}
    game.step(state, f"target P{target}")
    assert state.phase == "CHOOSE_COLOUR"
    out = run(game, state, "colour Y")
    expected = [1] + [2] * (n - 1)
    expected[target] += 4
    assert sizes(out) == expected and out["phase"] == "TURN" and out["current"] == 1
    assert out["colour"] == "Y" and out["power"][0] is False


def test_target_options_for_target_draw_two_are_opponents_only():
    """AMB-A8 / F4: WT2 FLEX offers n-1 targets (opponents) by default."""
    game, state = build([["WT2", "B8"], 2, 2, 2, 2], ["G5"], power=[T] * 5)
    game.step(state, "play WT2 flex")
    assert legal(game, state) == {"target P1", "target P2", "target P3", "target P4"}


def test_allow_self_target_option():
    """AMB-A8 option flex.allow_self_target=True: P0 may target itself and then draws 2."""
    game, state = build([["WT2", "B8"], ["Y6"], ["Y7"]], ["G5"], power=[T] * 3,
                        options={"flex.allow_self_target": True})
    game.step(state, "play WT2 flex")
    assert legal(game, state) == {"target P0", "target P1", "target P2"}
    out = run(game, state, "target P0", "colour B")
    assert sizes(out) == [3, 1, 1] and out["current"] == 1


def test_flex_w4f_restricted_option_adds_challenge():
    """AMB-A7 option flex.flex_w4f_restricted=True: W4F FLEX is restricted and can be challenged
    by its victim (CORE-18: the player who would suffer the draw = the target)."""
    game, state = build([["W4F", "G2"], ["B8"], ["Y6"]], ["G5"], power=[T] * 3,
                        options={"flex.flex_w4f_restricted": True})
    run(game, state, "play W4F flex", "target P2", "colour Y")
    assert state.phase == "CHALLENGE_OR_ACCEPT" and state.current_seat == 2
    assert {"challenge", "accept"} <= legal(game, state)
    out = run(game, state, "challenge")  # P0 held G2 with reference colour G => guilty
    assert sizes(out) == [5, 1, 1]


# --------------------------------------------------------------------------------------------
# 6. Playing a drawn card; last card (CORE-24); scoring; starter
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("power0, options", [(T, {"play Y4~G", "play Y4~G flex", "pass"}),
                                             (F, {"play Y4~G", "pass"})])
def test_drawn_card_offers_both_modes(power0, options):
    """CORE-7 / F5: a drawn flex card legal REGULAR (number 4) and FLEX (flex colour G)."""
    game, state = build([["R8"], ["B8"], ["B7"]], ["G4"], power=[power0, T, T], draw_pile=["Y4~G", "B6"])
    game.step(state, "draw")
    assert state.phase == "PLAY_OR_KEEP_DRAWN" and state.current_seat == 0
    assert legal(game, state) == options
    if power0:
        out = run(game, state, "play Y4~G flex")
        assert out["hands"][0] == ["R8"] and out["colour"] == "Y" and out["power"][0] is False
        assert out["current"] == 1


@pytest.mark.parametrize("top, card, seq, sizes_after", [
    ("B6", "F+2:R~B", ["play F+2:R~B flex"], [0, 2, 2]),
    ("B6", "WAD", ["play WAD flex", "colour R"], [0, 3, 3]),
    ("B6", "WT2", ["play WT2 flex", "target P2", "colour R"], [0, 1, 3]),
    ("B6", "W4F", ["play W4F flex", "target P2", "colour R"], [0, 1, 5]),
    ("B6", "W4F", ["play W4F", "colour R"], [0, 5, 1]),   # no challenge for a last-card W4F
    ("R6", "F+2:R~B", ["play F+2:R~B"], [0, 3, 1]),
])
def test_last_card_draw_effects_resolve_and_win(top, card, seq, sizes_after):
    """CORE-23/24: the last card wins; its draw effects on others resolve first, with no responses;
    a last wild still takes its target and colour."""
    game, state = build([[card], ["G1"], ["G3"]], [top], power=[T, T, T])
    out = run(game, state, *seq)
    assert state.is_over and state.winner == 0 and out["phase"] == "GAME_OVER"
    assert sizes(out) == sizes_after


def test_scoring_winner_takes_sum_of_other_hands():
    """§2.2 scoring / CORE-25: numbers face value (flex numbers too), coloured actions 20, wilds 50."""
    p1 = ["R5", "Y4~G", "GS", "WAF", "R3"]           # 5 + 4 + 20 + 50 + 3 = 82
    p2 = ["FR:R~G", "W4F", "B8", "F+2:Y~R", "WT2"]   # 20 + 50 + 8 + 20 + 50 = 148
    game, state = build([["G7"], p1, p2], ["G5"])
    run(game, state, "play G7")
    assert state.is_over and state.winner == 0
    assert list(state.round_points) == [230, 0, 0]


def test_power_cards_are_not_scored_or_drawn():
    """AMB-A17: power cards are never in hands or piles: the Flex deck has 104 cards in play."""
    game, state = build([["G7", "B8"], ["B7"], ["B6"]], ["G5"])
    out = game.to_spec(state)
    assert sum(sizes(out)) + len(out["discard"]) + len(out["draw_pile"]) == 104


@pytest.mark.parametrize("dealer, first", [(0, 1), (2, 0), (1, 2)])
def test_starter_ignores_action_and_wild_cards(dealer, first):
    """§2.2 starter / AMB-A13 / CORE-4: non-number starters are ignored and stay in the discard under
    the first number card; no effect is applied; first player = next(dealer), dir +1."""
    top = ["WAF", "RR", "FS:Y~G", "W4F", "F+2:R~B", "WT2", "G2", "B6"]
    hands = [["R8", "Y8"], ["B8", "Y7"], ["R7", "Y6"]]
    game, state = build(hands, [], draw_pile=top, start=True, dealer=dealer, power=[T, T, T])
    out = game.to_spec(state)
    assert out["discard"] == ["WAF", "RR", "FS:Y~G", "W4F", "F+2:R~B", "WT2", "G2↻"]
    assert out["draw_pile"][0] == "B6" and out["colour"] == "G"
    assert out["current"] == first and out["direction"] == 1 and out["phase"] == "TURN"
    assert sizes(out) == [2, 2, 2]
    assert out["power"] == [T, T, T]  # a starter flip icon has no effect


# --------------------------------------------------------------------------------------------
# 7. Player count, options, specs
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(2, 9))
def test_player_counts_two_to_eight_are_valid(n):
    """AMB-A3: 2-8 players (one power card each)."""
    game = Game("flex", num_players=n)
    state = game.new_state(seed=n)
    assert len(state.power) == n and all(state.power) and sum(state.hand_size) == 7 * n


@pytest.mark.parametrize("n", [1, 9])
def test_player_counts_outside_range_are_rejected(n):
    """AMB-A3: a 9th player has no power card; 1 player is no game."""
    with pytest.raises(RuleError):
        Game("flex", num_players=n)


def test_flex_colour_match_not_required_option():
    """AMB-A5 option flex.flex_requires_flex_colour_match=False: the flex effect may be chosen
    whenever the card is otherwise legal (still needs ✓)."""
    opts = {"flex.flex_requires_flex_colour_match": False}
    game, state = build([["FS:G~B", "B8"], ["Y6"], ["Y7"], ["Y5"]], ["G5"], power=[T] * 4, options=opts)
    assert legal(game, state) == {"play FS:G~B", "play FS:G~B flex", "draw"}
    out = run(game, state, "play FS:G~B flex")
    assert out["current"] == 0 and out["power"] == [F, T, T, T] and out["colour"] == "G"
    game, state = build([["FS:G~B", "B8"], ["Y6"], ["Y7"], ["Y5"]], ["G5"], power=[F, T, T, T], options=opts)
    assert legal(game, state) == {"play FS:G~B", "draw"}


def test_spec_round_trip_of_power():
    """Scenario spec: power survives to_spec -> state_from_spec."""
    game, state = build([["G7", "B8"], ["B7"], ["B6"], ["Y8"]], ["G5"], power=[T, F, T, F])
    spec = game.to_spec(state)
    assert spec["power"] == [T, F, T, F] and list(state.power) == [T, F, T, F]
    again = game.state_from_spec(spec)
    assert game.to_spec(again) == spec


def test_default_power_is_all_on():
    """§2.2 'all players start ✓' / §6.3: an unlisted power is ✓."""
    game, state = build([["G7", "B8"], ["B7"], ["B6"]], ["G5"])
    assert game.to_spec(state)["power"] == [T, T, T]


@pytest.mark.parametrize("power", [[T, T, T, T], ["yes", "no", "yes"], "TTT", 3])
def test_bad_power_in_spec_raises_spec_error(power):
    """Scenario spec: a power list longer than the table, or of the wrong type, is a SpecError (a shorter one
    lists the first seats: the others are ✓)."""
    assert uno_env.SpecError is SpecError
    with pytest.raises(SpecError):
        build([["G7", "B8"], ["B7"], ["B6"]], ["G5"], power=power)


# --------------------------------------------------------------------------------------------
# 8. Further probes
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("direction, current", [(1, 3), (-1, 2)])
def test_flex_reverse_flex_five_players_skips_next_in_new_direction(direction, current):
    """§2.2 Flex Reverse FLEX: dir := -dir, then the next player in the NEW direction is skipped."""
    game, state = build([["FR:R~G", "B8"], 2, 2, 2, 2], ["G5"], power=[T] * 5, direction=direction)
    out = run(game, state, "play FR:R~G flex")
    assert out["direction"] == -direction and out["current"] == current


@pytest.mark.parametrize("hand, current, p0, p1", [(["W4F", "G1"], 1, 5, 2), (["W4F", "R1"], 0, 1, 8)])
def test_w4f_challenge_two_players(hand, current, p0, p1):
    """CORE-18/28 n=2: guilty -> challenger (P1) takes a normal turn; innocent -> P1 draws 6, P0 again."""
    game, state = build([hand, ["B8", "B7"]], ["G5"])
    out = run(game, state, "play W4F", "colour Y", "challenge")
    assert out["current"] == current and sizes(out) == [p0, p1]


def test_w4f_reference_colour_is_declared_colour_of_wild_top():
    """CORE-16 + AMB-A10: the reference colour is the colour in force before W4F (here Y, declared
    on a wild top); a held flex card with flex colour Y and power ✓ makes the play guilty."""
    game, state = build([["W4F", "B2~Y"], ["B8", "B7"], ["Y6"]], ["WAF"], colour="Y", power=[T, T, T])
    out = run(game, state, "play W4F", "colour G", "challenge")
    assert sizes(out) == [5, 2, 1] and out["current"] == 1


def test_no_bluffing_masks_illegal_regular_w4f_but_not_flex_w4f():
    """CORE-16/17 restricted_wild_bluffing=False + AMB-A7/A10: REGULAR W4F is masked only while
    another held card matches the reference colour (the W4F itself does not count); FLEX W4F is
    unrestricted; a REGULAR W4F that is legal offers no challenge (next draws 4, skipped)."""
    opts = {"restricted_wild_bluffing": False}
    game, state = build([["W4F", "Y4~G"], ["B8"], ["Y6"]], ["G5"], power=[T] * 3, options=opts)
    assert legal(game, state) == {"play W4F flex", "play Y4~G flex", "draw"}
    game, state = build([["W4F", "R1"], ["B8"], ["Y6"]], ["G5"], power=[T] * 3, options=opts)
    assert legal(game, state) == {"play W4F", "play W4F flex", "draw"}
    out = run(game, state, "play W4F", "colour R")
    assert out["phase"] == "TURN" and sizes(out) == [1, 5, 1] and out["current"] == 2
    game, state = build([["R1"], ["B8"], ["Y6"]], ["G5"], power=[F, T, T], draw_pile=["W4F"], options=opts)
    game.step(state, "draw")  # the drawn W4F is legal REGULAR: R1 does not match G
    assert legal(game, state) == {"play W4F", "pass"}


def test_drawn_flex_wild_can_be_played_in_flex_mode():
    """CORE-7 / F5: a drawn WT2 offers REGULAR and FLEX; FLEX then asks target, then colour."""
    game, state = build([["R8"], ["B8"], ["B7"]], ["G4"], power=[T, T, T], draw_pile=["WT2"])
    game.step(state, "draw")
    assert legal(game, state) == {"play WT2", "play WT2 flex", "pass"}
    game.step(state, "play WT2 flex")
    assert state.phase == "CHOOSE_TARGET"
    out = run(game, state, "target P2", "colour B")
    assert sizes(out) == [1, 1, 3] and out["current"] == 1 and out["power"] == [F, T, T]


def test_flex_options_via_constructor_and_rejected_for_other_variants():
    """RuleSet: flex.* options are accepted for flex and rejected for classic."""
    game = Game("flex", num_players=3, **{"flex.allow_self_target": True})
    assert game.to_spec(game.new_state(seed=1))["options"]["flex.allow_self_target"] is True
    with pytest.raises(RuleError):
        Game("classic", num_players=3, **{"flex.allow_self_target": True})


def test_self_targeted_last_card_still_wins_without_drawing():
    """CORE-23/24 with flex.allow_self_target: a last FLEX W4F aimed at its own player resolves no draw on it."""
    spec = {"variant": "flex", "players": 3, "discard": ["G5"], "hands": [["W4F"], ["B8", "B7"], ["Y6", "Y5"]],
            "options": {"flex.allow_self_target": True}}
    g = Game.from_spec(spec)
    s = g.state_from_spec(spec)
    g.step(s, "play W4F flex")
    assert "target P0" in g.legal_action_strings(s)
    g.step(s, "target P0")
    g.step(s, "colour R")
    assert s.is_over and s.winner == 0 and s.hand_size == [0, 2, 2]


def test_bad_deck_manifest_option_is_a_rule_error(tmp_path):
    """flex.deck_manifest: a missing or unreadable file fails at construction naming the key."""
    from uno_env.errors import RuleError
    with pytest.raises(RuleError, match="flex.deck_manifest"):
        Game("flex", num_players=3, **{"flex.deck_manifest": str(tmp_path / "missing.yaml")})
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(RuleError, match="flex.deck_manifest"):
        Game("flex", num_players=3, **{"flex.deck_manifest": str(bad)})


def test_replacement_deck_manifest_is_used(tmp_path):
    """The proposed manifest is data: a replacement file changes the deck without code changes."""
    import yaml
    from importlib import resources
    manifest = yaml.safe_load((resources.files("uno_env") / "decks" / "flex.yaml").read_text(encoding="utf-8"))
    for entry in manifest["coloured"]:
        entry["count"] = 2
    path = tmp_path / "flex-double.yaml"
    path.write_text(yaml.safe_dump(manifest, allow_unicode=True), encoding="utf-8")
    game = Game("flex", num_players=4, **{"flex.deck_manifest": str(path)})
    assert game.deck.size == 2 * 88 + 16
    state = game.new_state(0)
    assert sum(state.hand_size) == 28 and len(state.draw_pile) + len(state.discard) == game.deck.size - 28


def test_restricted_flex_w4f_self_target_is_not_challengeable_and_loser_loses_turn():
    """flex.flex_w4f_restricted: a self-aimed draw is just taken; a challenger who loses also loses its turn."""
    opts = {"flex.flex_w4f_restricted": True, "flex.allow_self_target": True}
    spec = {"variant": "flex", "players": 3, "discard": ["G5"], "hands": [["W4F", "R1"], ["B8"], ["Y6"]],
            "options": opts}
    g = Game.from_spec(spec)
    s = g.state_from_spec(spec)
    for a in ("play W4F flex", "target P0", "colour R"):
        g.step(s, a)
    assert s.phase == "TURN" and s.current_seat == 1 and s.hand_size[0] == 5
    s = g.state_from_spec(spec)
    for a in ("play W4F flex", "target P1", "colour R"):
        g.step(s, a)
    assert s.phase == "CHALLENGE_OR_ACCEPT" and s.current_seat == 1
    g.step(s, "challenge")  # innocent: P0 held no green card
    assert s.hand_size[1] == 7 and s.current_seat == 2
