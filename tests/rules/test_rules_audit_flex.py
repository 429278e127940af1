"""Audit of the UNO Flex rules engine against the rules contract (docs/rules.md) and the public API
contract (docs/engine.md).

Every expectation is derived from the contract text (section cited in each docstring), not from the engine.
Tests in part 1 pin the divergences the audit found (fixed: absolute targets read without a state, the UNO
call of a placement whose effect makes its own player draw); part 2 keeps
rules verified to hold that tests/rules/test_flex_rules.py does not already cover.

Flex deck reminder (flex colour = colour + offset, R=0 Y=1 G=2 B=3): flex numbers 1,4,7 -> +1, 2,5,8 -> +2,
3,6 -> +3; FS -> +1, FR -> +2, F+2 -> +3. Classic numbers 1-4 carry the flip icon (R4 = R4↻).
"""
from __future__ import annotations

import pytest

from flex_table import run, sizes  # the Flex rule tests' helpers (tests/flex_table.py): step actions, hand sizes
from uno_env import Game
from uno_env.errors import SpecError

T, F = True, False


def build(hands, discard, **spec):
    """A TURN state from a docs/engine.md scenario spec; keyword arguments are further spec keys."""
    spec = {"variant": "flex", "players": len(hands), "hands": hands, "seed": 0, **spec}
    if discard:
        spec["discard"] = list(discard)
    game = Game.from_spec(spec)
    return game, game.state_from_spec(spec)




# ================================================================================================
# 1. Divergences the audit found (fixed)
# ================================================================================================

def test_action_from_string_reads_absolute_target_without_state():
    """docs/engine.md "Engine facade": ``game.action_from_string(text)`` (no state argument) and action strings
    ``target P<seat>`` ("absolute seat in strings; relative offset in the action space"); docs/rules.md §5.3 F4,
    §6.3 T55. Stepping ``game.step(state, game.action_from_string("target P0"))`` must target seat P0.
    Here the deciding seat is P1 (n=4), so P0 is relative offset 3."""
    game, state = build([5, ["WT2", "B8"], 5, 5], ["G5"], current=1)
    game.step(state, game.action_from_string("play WT2 flex"))
    assert state.phase == "CHOOSE_TARGET" and state.current_seat == 1
    game.step(state, game.action_from_string("target P0"))  # once an ActionParseError (it needed the state)
    game.step(state, game.action_from_string("colour R"))
    out = game.to_spec(state)
    assert sizes(out) == [7, 1, 5, 5] and out["current"] == 2 and out["colour"] == "R"


def test_a_target_read_without_a_state_is_read_again_against_the_state_it_is_applied_to():
    """``target P<seat>`` read without a state takes its value from the seat that decided last in this game;
    applied to another state, whose deciding seat differs, it still aims at the seat its text names."""
    game, first = build([5, ["WT2", "B8"], 5, 5], ["G5"], current=1)
    game.step(first, game.action_from_string("play WT2 flex"))
    second = game.state_from_spec({"variant": "flex", "players": 4, "current": 2, "discard": ["G5"],
                                   "hands": [5, 5, ["WT2", "B8"], 5]})
    game.step(second, "play WT2 flex")  # the game's last decider is now P2
    aimed = game.action_from_string("target P0")
    assert aimed == game.action_from_string("target P0", second) != game.action_from_string("target P0", first)
    game.step(first, aimed)
    game.step(first, "colour R")
    assert sizes(game.to_spec(first)) == [7, 1, 5, 5]


def test_uno_call_offered_when_placement_leaves_one_card_before_a_self_targeted_draw():
    """docs/rules.md CORE-20 ("a player whose own card placement leaves them with exactly one card must call
    UNO"), §1.6 ("(3) UNO obligation evaluated ... (5) card effect ... (7) UNO call decision ... taken after
    the automatic parts of (5)-(6)") and CORE-22 `decide` ("after a placement that leaves exactly one card
    (and after that placement's automatic effects), the placing player gets one decision, CALL or NO_CALL").
    With flex.allow_self_target (AMB-A8 option) P0 plays WT2 FLEX from [WT2, R1] at itself: the placement
    leaves one card, so P0 must still get CALL/NO_CALL; NO_CALL costs 2 more cards."""
    game, state = build([["WT2", "R1"], 5, 5], ["G5"],
                        options={"uno_call": "decide", "flex.allow_self_target": True})
    run(game, state, "play WT2 flex", "target P0", "colour B")
    assert state.phase == "UNO_CALL" and state.current_seat == 0  # once P1's TURN, with no call offered
    out = run(game, state, "no-call")
    assert sizes(out) == [5, 5, 5] and out["current"] == 1


# ================================================================================================
# 2. Verified rules not covered elsewhere
# ================================================================================================

# ---- UNO call ordering with Flex cards (§1.6 step 7, CORE-21/22) ---------------------------------

def test_decide_uno_call_comes_before_the_w4f_challenge_decision():
    """§1.6 step 7: the UNO call decision is taken before any decision by another player (challenge).
    CORE-22 decide: NO_CALL => draw 2 at once; then P1 challenges; innocent (P0 held only R cards after the
    reference colour G) => P1 draws 6 and loses the turn (CORE-18)."""
    game, state = build([["W4F", "R1"], 5, 5], ["G5"], options={"uno_call": "decide"})
    run(game, state, "play W4F", "colour B")
    assert state.phase == "UNO_CALL" and state.current_seat == 0
    out = run(game, state, "no-call")
    assert state.phase == "CHALLENGE_OR_ACCEPT" and state.current_seat == 1 and sizes(out) == [3, 5, 5]
    out = run(game, state, "challenge")
    # P0 now holds R1 + 2 penalty cards; the verdict uses the hand at play time (only R1: innocent)
    assert sizes(out)[1] == 11 and out["current"] == 2 and out["colour"] == "B"


def test_explicit_catch_poll_runs_before_the_w4f_challenge():
    """CORE-22 explicit + §1.6 step 7: after NO_CALL the opponents are polled from next(p) (P1 then P2)
    before the victim's challenge decision; the first CATCH makes P0 draw 2."""
    game, state = build([["W4F", "R1"], 5, 5], ["G5"], options={"uno_call": "explicit"})
    run(game, state, "play W4F", "colour B", "no-call")
    assert state.phase == "CATCH" and state.current_seat == 1
    run(game, state, "pass")
    assert state.phase == "CATCH" and state.current_seat == 2
    out = run(game, state, "catch")
    assert sizes(out)[0] == 3 and state.phase == "CHALLENGE_OR_ACCEPT" and state.current_seat == 1


def test_decide_draw_two_victim_draws_before_the_uno_call():
    """§1.6: the automatic part of the effect (P1 draws 2 from a REGULAR Flex Draw Two) precedes the call."""
    game, state = build([["F+2:G~Y", "R1"], 5, 5], ["G5"], options={"uno_call": "decide"})
    out = run(game, state, "play F+2:G~Y")
    assert state.phase == "UNO_CALL" and state.current_seat == 0 and sizes(out) == [1, 7, 5]
    out = run(game, state, "call")
    assert out["current"] == 2 and sizes(out) == [1, 7, 5]


def test_decide_no_call_after_flex_skip_flex_then_fresh_turn():
    """Flex Skip FLEX (§2.2: "all other players skipped, p plays again") leaving one card, decide, NO_CALL:
    P0 draws 2 (CORE-22) and then takes a fresh turn (may draw, CORE-28 wording); power ✓→✘."""
    game, state = build([["FS:G~B", "R1"], 5, 5, 5], ["B5"], options={"uno_call": "decide"})
    out = run(game, state, "play FS:G~B flex")
    assert state.phase == "UNO_CALL" and out["power"] == [F, T, T, T]
    out = run(game, state, "no-call")
    assert out["current"] == 0 and out["phase"] == "TURN" and sizes(out) == [3, 5, 5, 5]
    assert "draw" in game.legal_action_strings(state)


# ---- Scoring (§2.2 Scoring, CORE-25/26, AMB-A17) ------------------------------------------------

@pytest.mark.parametrize("card, value", [
    ("R1↻", 1), ("B4↻", 4), ("R8", 8), ("Y1~G", 1), ("B6~G", 6), ("Y8~B", 8),
    ("RS", 20), ("YR", 20), ("G+2", 20), ("FS:B~R", 20), ("FR:Y~B", 20), ("F+2:G~Y", 20),
    ("WAF", 50), ("WT2", 50), ("WAD", 50), ("W4F", 50),
])
def test_every_flex_card_kind_scores_its_value(card, value):
    """§2.2 Scoring: numbers 1-8 face value (flex numbers too); coloured actions (classic and flex) 20;
    the four wild action cards 50; method 1 = winner scores the others' hands."""
    game, state = build([["G7"], [card], ["B3~G"]], ["G5"])
    run(game, state, "play G7")
    assert state.is_over and state.winner == 0
    assert list(state.round_points) == [value + 3, 0, 0]


def test_penalty_low_scoring_with_flex_cards():
    """CORE-26 (scoring_method = penalty_low): every non-winner adds its own hand value."""
    game, state = build([["G7"], ["Y4~G", "WAD", "F+2:R~B", "R3↻"], ["FS:G~B", "B8~Y"]], ["G5"],
                        options={"scoring_method": "penalty_low"})
    run(game, state, "play G7")
    assert list(state.round_points) == [0, 77, 28] and list(state.scores) == [0, 77, 28]


def test_match_next_round_turns_every_power_card_back_to_green():
    """§2.2 "所有玩家將力量牌翻到綠色的 ✓ 面" at set-up + CORE-25 match: scores accumulate and the next
    round starts with every power card ✓, whatever the previous round left."""
    game, state = build([["G7"], ["R5", "Y6"], ["B3~G"]], ["G5"], power=[F, T, F],
                        options={"match": True, "target_score": 500}, scores=[100, 0, 0])
    run(game, state, "play G7")
    assert not state.is_over and list(state.scores) == [114, 0, 0]
    assert list(state.power) == [T, T, T] and sum(state.hand_size) == 21


# ---- Draw-then-play with flex modes (CORE-7, §5.3 F5) ------------------------------------------

@pytest.mark.parametrize("power0, expect", [(F, None), (T, {"play Y4~G flex", "pass"})])
def test_drawn_card_matching_only_by_flex_colour(power0, expect):
    """CORE-7 + §2.2 FLEX legality: a drawn Y4~G on G3↻ matches only by its flex colour G (4 ≠ 3, Y ≠ G).
    ✘: not legal => the turn ends automatically; ✓: only the FLEX play (or keep)."""
    game, state = build([["R8"], ["B8"], ["B7"]], ["G3↻"], power=[power0, T, T], draw_pile=["Y4~G", "B6"])
    game.step(state, "draw")
    if expect is None:
        out = game.to_spec(state)
        assert out["phase"] == "TURN" and out["current"] == 1 and sorted(out["hands"][0]) == ["R8", "Y4~G"]
    else:
        assert state.phase == "PLAY_OR_KEEP_DRAWN"
        assert set(game.legal_action_strings(state)) == expect


# ---- Power cards (§2.2 power-card updates) -----------------------------------------------------

@pytest.mark.parametrize("card, top", [("R5", "R2"), ("R8", "R2"), ("R5~G", "R2"), ("RS", "R2"), ("R+2", "R2")])
@pytest.mark.parametrize("power0", [T, F])
def test_cards_without_flip_icon_played_regular_never_change_power(card, top, power0):
    """§2.2: only a FLEX play, a classic number with ↻ (1-4 in the manifest) and Wild All Flip change power."""
    game, state = build([[card, "B8"], ["Y6", "Y5"], ["Y7", "Y3"]], [top], power=[power0, F, T])
    out = run(game, state, f"play {card}")
    assert out["power"] == [power0, F, T]


def test_power_strings_in_scenario_spec():
    """docs/engine.md scenario spec `power` / docs/rules.md §6.3 "power listed per player" with ✓/✘ symbols."""
    game, state = build([["G7", "B8"], ["B7"], ["B6"]], ["G5"], power=["✓", "✘", "✓"])
    assert game.to_spec(state)["power"] == [T, F, T]


# ---- Targets and direction (§2.2 card effects, AMB-A8) ------------------------------------------

@pytest.mark.parametrize("card, extra, target, drawn", [("WT2", 2, "P3", 3), ("W4F", 4, "P0", 0)])
def test_targeted_flex_wild_uses_absolute_seats_and_current_direction(card, extra, target, drawn):
    """§2.2: the chosen opponent draws; play continues with next(p) in the current direction.
    P2 plays with dir = -1 (n=4): next(P2) = P1."""
    game, state = build([5, 5, [card, "B8"], 5], ["G5"], current=2, direction=-1)
    out = run(game, state, f"play {card} flex", f"target {target}", "colour Y")
    expected = [5, 5, 1, 5]
    expected[drawn] += extra
    assert sizes(out) == expected and out["current"] == 1 and out["direction"] == -1
    assert out["power"] == [T, T, F, T]


def test_w4f_regular_accepted_with_reversed_direction():
    """CORE-18 / CORE-15: the victim is next(p) in the current direction; ACCEPT => it draws 4 and
    loses the turn: dir = -1, n=4, P0 plays => P3 draws 4, current = P2."""
    game, state = build([["W4F", "R1"], 5, 5, 5], ["G5"], direction=-1)
    run(game, state, "play W4F", "colour Y")
    assert state.phase == "CHALLENGE_OR_ACCEPT" and state.current_seat == 3
    out = run(game, state, "accept")
    assert sizes(out) == [1, 5, 5, 9] and out["current"] == 2 and out["colour"] == "Y"


@pytest.mark.parametrize("action, extra, current", [
    ("play W4F flex", ["target P1", "colour R"], 1),   # FLEX draw skips nobody -> opponent plays
    ("play WAD", ["colour R"], 1),                      # REGULAR = plain wild
    ("play WAD flex", ["colour R"], 1),
])
def test_two_player_flex_wilds(action, extra, current):
    """CORE-28: "draw effects that skip nobody (Flex FLEX-mode draws ...) pass the turn to the opponent";
    a REGULAR Flex Wild All Draw is a plain wild (§2.2)."""
    card = action.split()[1]
    game, state = build([[card, "Y8"], ["G1", "G3", "G4"]], ["B6"])
    out = run(game, state, action, *extra)
    gain = {"play W4F flex": 4, "play WAD": 0, "play WAD flex": 2}[action]
    assert out["current"] == current and sizes(out) == [1, 3 + gain]


@pytest.mark.parametrize("action, current, direction", [("play FR:R~G", 1, -1), ("play FR:R~G flex", 0, -1)])
def test_two_player_flex_reverse_without_reverse_as_skip(action, current, direction):
    """Option two_player_reverse_as_skip = false (AMB-G12): a REGULAR Flex Reverse (= Reverse, §2.2) then
    passes to next(p) in the new direction = the opponent; a FLEX one still reverses and skips the next
    player in the new direction (§2.2; AMB-A15 "reverse, then skip the opponent => p")."""
    top = "G5" if action.endswith("flex") else "R5"
    game, state = build([["FR:R~G", "Y8"], 3], [top], options={"two_player_reverse_as_skip": False})
    out = run(game, state, action)
    assert out["current"] == current and out["direction"] == direction and out["colour"] == "R"


# ---- Starter, reshuffle, exhaustion (§2.2 Starter, CORE-11/12) -----------------------------------

def test_flex_number_starter_sets_primary_colour():
    """§2.2 Starter / §1.12: action cards are ignored until a number card is on top; a flex number card is a
    number card; the current colour is its primary colour (CORE-10); no power change; first = next(dealer)."""
    hands = [["R8", "Y8"], ["B8", "Y7"], ["R7", "Y6"]]
    game, state = build(hands, [], draw_pile=["FS:Y~G", "WAD", "Y4~G", "B6"], start=True, dealer=1)
    out = game.to_spec(state)
    assert out["discard"] == ["FS:Y~G", "WAD", "Y4~G"] and out["colour"] == "Y"
    assert out["current"] == 2 and out["power"] == [T, T, T] and out["phase"] == "TURN"


def test_wild_all_draw_reshuffles_mid_draw():
    """CORE-11: a multi-card draw reshuffles the discard (all but the top card) as often as needed;
    §2.2 WAD FLEX: every other player draws 2."""
    game, state = build([["WAD", "B1↻"], 3, 3], ["G1↻", "G2↻", "G3↻", "G4↻", "G5"], draw_pile=["Y5"],
                        unplaced="discard")
    before = game.to_spec(state)
    assert before["draw_pile"] == ["Y5"]
    out = run(game, state, "play WAD flex", "colour R")
    assert sizes(out) == [1, 5, 5] and out["discard"][-1] == "WAD" and len(out["discard"]) == 1
    assert sum(sizes(out)) + len(out["discard"]) + len(out["draw_pile"]) == 104


def test_draw_with_nothing_to_draw_ends_the_turn():
    """CORE-12: the draw pile is empty and the discard holds only its top card: DRAW yields nothing and
    the turn passes."""
    game, state = build([["G3~Y"], 51, 51], ["R5"])
    assert game.legal_action_strings(state) == ["draw"]
    out = run(game, state, "draw")
    assert out["current"] == 1 and sizes(out) == [1, 51, 51] and out["phase"] == "TURN"


@pytest.mark.parametrize("power, expected", [
    ([F], [F, T, T, T]),                       # a short list: the seats not listed are ✓ (§6.3)
    ({2: F}, [T, T, F, T]),                     # a mapping by seat
    ({"P1": "✘", "3": "off"}, [T, F, T, F]),    # seats as P<n> or digits, states as words
    ([T, F, T, F], [T, F, T, F]),               # the full list, as to_spec writes it
])
def test_power_spec_lists_only_the_seats_it_names(power, expected):
    """§6.3: "`power` listed per player; a player whose power is not listed is ✓"."""
    game, state = build([5, 5, 5, 5], ["G5"], power=power)
    assert game.to_spec(state)["power"] == expected


@pytest.mark.parametrize("power, words", [
    ([T, T, T, T, T], "at most 4 entries"), ({4: F}, "not a seat"), ({"P-1": F}, "not a seat"),
    ([F, F, F, F], "every seat is ✘"), ([T, "maybe"], r"power\[1\] = 'maybe'"),
])
def test_a_bad_power_spec_names_what_is_wrong(power, words):
    """A power entry the spec cannot place is a SpecError naming it (seats 0..n-1, ✓/✘ values)."""
    with pytest.raises(SpecError, match=words):
        build([5, 5, 5, 5], ["G5"], power=power)
