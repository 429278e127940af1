"""Rule-conformance scenarios: docs/rules.md §6.1, §6.2, §6.6 (T01..T42, T107..T114) plus extra probes.

Every scenario is a row of a table: a scenario spec (README "Scenario specs") and a list of
steps. A step is an action string (``play R3``, ``colour B``, ``accept`` ...), a checkpoint
``X(...)`` whose keys are asserted against the state, or ``TAKE(seat)``: the penalty target
``seat`` takes a pending penalty if the engine asks it to (an engine may resolve a penalty
without asking when ``accept`` is the only option).

Defaults (docs/rules.md §6): ``uno_call = always``, ``draw_rule = draw_one``, house rules off,
``restricted_wild_bluffing = true``, P0 acts. Hands are given in full wherever their content
could open extra options, so each scenario has exactly the decisions it describes.
"""
from __future__ import annotations

from collections import Counter

import pytest

from uno_env import Game


# --------------------------------------------------------------------------- harness

def X(**expect):
    """Checkpoint: assert ``expect`` against the current state."""
    return ("expect", expect)


def TAKE(seat, lacks=()):
    """``seat`` takes a pending penalty; if the engine asks, ``lacks`` must not be among its options."""
    return ("take", seat, tuple(lacks))


def build(spec):
    spec = dict(spec)
    n = spec.get("players") or len(spec["hands"])
    game = Game(spec.get("variant", "classic"), num_players=n, **(spec.get("options") or {}))
    state = game.state_from_spec(spec)
    return game, state


def canon(game, cards):
    return Counter(game.card_name(game.parse_card(c)) for c in cards)


def canon_actions(game, state, texts):
    return {game.action_to_string(game.action_from_string(t, state), state) for t in texts}


def total_cards(sp):
    return len(sp["draw_pile"]) + len(sp["discard"]) + sum(len(h) for h in sp["hands"])


def check(game, state, start, expect, where):
    sp = game.to_spec(state)
    msg = f"{where}: spec={sp}"
    for key, want in expect.items():
        if key == "hands":
            for seat, cards in want.items():
                got = game.hand_cards(state, seat)
                if isinstance(cards, int):
                    assert len(got) == cards, f"P{seat} hand size {len(got)} != {cards}; {msg}"
                else:
                    assert Counter(got) == canon(game, cards), f"P{seat} hand {got} != {cards}; {msg}"
        elif key == "hand_delta":
            for seat, d in want.items():
                got = len(sp["hands"][seat]) - len(start["hands"][seat])
                assert got == d, f"P{seat} hand changed by {got}, expected {d}; {msg}"
        elif key == "current":
            assert state.current_seat == want, f"current {state.current_seat} != {want}; {msg}"
        elif key == "phase":
            assert state.phase == want, f"phase {state.phase} != {want}; {msg}"
        elif key == "direction":
            assert state.direction == want, f"direction {state.direction} != {want}; {msg}"
        elif key == "colour":
            assert sp["colour"] == want, f"colour {sp['colour']} != {want}; {msg}"
        elif key == "top":
            assert sp["discard"][-1] == game.card_name(game.parse_card(want)), f"top != {want}; {msg}"
        elif key == "discard":
            assert sp["discard"] == [game.card_name(game.parse_card(c)) for c in want], msg
        elif key == "draw_pile_len":
            assert len(sp["draw_pile"]) == want, f"draw pile {len(sp['draw_pile'])} != {want}; {msg}"
        elif key == "draw_pile_delta":
            got = len(sp["draw_pile"]) - len(start["draw_pile"])
            assert got == want, f"draw pile changed by {got}, expected {want}; {msg}"
        elif key == "draw_pile_top":
            assert sp["draw_pile"][:len(want)] == [game.card_name(game.parse_card(c)) for c in want], msg
        elif key == "draw_pile_bottom":  # a card, or a list of the bottom cards (top-first order)
            want = [want] if isinstance(want, str) else want
            assert sp["draw_pile"][-len(want):] == [game.card_name(game.parse_card(c)) for c in want], msg
        elif key == "legal":
            got = set(game.legal_action_strings(state))
            assert got == canon_actions(game, state, want), f"legal {sorted(got)} != {sorted(want)}; {msg}"
        elif key == "legal_has":
            got = set(game.legal_action_strings(state))
            missing = canon_actions(game, state, want) - got
            assert not missing, f"{sorted(missing)} not legal (legal: {sorted(got)}); {msg}"
        elif key == "legal_lacks":
            got = set(game.legal_action_strings(state))
            extra = canon_actions(game, state, want) & got
            assert not extra, f"{sorted(extra)} must not be legal (legal: {sorted(got)}); {msg}"
        elif key == "over":
            assert state.is_over is want, f"is_over {state.is_over} != {want}; {msg}"
        elif key == "winner":
            assert state.winner == want, f"winner {state.winner} != {want}; {msg}"
        elif key == "round_points":
            assert list(state.round_points) == want, f"round_points {state.round_points} != {want}; {msg}"
        elif key == "scores":
            assert list(state.scores) == want, f"scores {state.scores} != {want}; {msg}"
        elif key == "blocked":
            assert bool((sp.get("pending") or {}).get("blocked")) is want, msg
        else:  # pragma: no cover - a typo in the table
            raise KeyError(key)


def run_scenario(spec, steps):
    game, state = build(spec)
    start = game.to_spec(state)
    deck_total = total_cards(start)
    for i, step in enumerate(steps):
        where = f"step {i} ({step!r})"
        if isinstance(step, str):
            state = game.step(state, game.action_from_string(step, state))
            assert total_cards(game.to_spec(state)) == deck_total, f"{where}: card conservation broken"
        elif step[0] == "expect":
            check(game, state, start, step[1], where)
        elif step[0] == "take":
            _, seat, lacks = step
            if state.phase in ("STACK_RESPONSE", "CHALLENGE_OR_ACCEPT") and state.current_seat == seat:
                check(game, state, start, {"legal_lacks": lacks}, where)
                state = game.step(state, game.action_from_string("accept", state))
        else:  # pragma: no cover
            raise ValueError(step)
    return game, state


def S(id_, spec, steps):
    return pytest.param(spec, steps, id=id_)


# --------------------------------------------------------------------------- §6.1 Classic / common core

OTHER4 = [["Y1", "Y2"], ["B2", "B3"], ["Y6", "B8"]]   # P1..P3 filler: no red, no 7s, no draw cards

CLASSIC = [
    S("T01_colour_match_uno_call_decide",
      {"players": 4, "options": {"uno_call": "decide"}, "discard": ["R7"], "colour": "R",
       "hands": [["R3", "B9"], *OTHER4]},
      ["play R3",
       X(phase="UNO_CALL", current=0, legal=["call", "no-call"]),
       "call",
       X(top="R3", colour="R", hands={0: ["B9"], 1: ["Y1", "Y2"]}, current=1, direction=1, phase="TURN",
         draw_pile_delta=0)]),
    S("T01_colour_match_uno_call_always",
      {"players": 4, "discard": ["R7"], "hands": [["R3", "B9"], *OTHER4]},
      ["play R3",
       X(top="R3", colour="R", hands={0: ["B9"]}, current=1, direction=1, phase="TURN", draw_pile_delta=0)]),
    S("T02_forgotten_uno_decide",
      {"players": 4, "options": {"uno_call": "decide"}, "discard": ["R7"], "draw_pile": ["G1", "Y2"],
       "hands": [["R3", "B9"], *OTHER4]},
      ["play R3", "no-call",
       X(hands={0: ["B9", "G1", "Y2"]}, current=1, phase="TURN", top="R3")]),
    S("T03_number_match_changes_colour",
      {"players": 4, "discard": ["R7"], "hands": [["G7", "B2", "Y4"], *OTHER4]},
      [X(legal_has=["play G7"]),
       "play G7",
       X(colour="G", top="G7", hands={0: ["B2", "Y4"]}, current=1)]),
    S("T04_no_legal_card_only_draw",
      {"players": 4, "discard": ["R7"], "hands": [["G3", "B5"], *OTHER4]},
      [X(legal=["draw"], phase="TURN", current=0)]),
    S("T05_skip_4p",
      {"players": 4, "discard": ["R7"], "hands": [["RS", "G1"], *OTHER4]},
      ["play RS",
       X(current=2, hands={1: ["Y1", "Y2"]}, direction=1, top="RS", colour="R")]),
    S("T06_reverse_4p",
      {"players": 4, "discard": ["R7"], "hands": [["RR", "G1"], *OTHER4]},
      ["play RR", X(direction=-1, current=3, top="RR")]),
    S("T07_reverse_2p",
      {"players": 2, "discard": ["R7"], "hands": [["RR", "G1"], ["Y1", "Y2"]]},
      ["play RR", X(current=0, phase="TURN", hands={0: ["G1"], 1: ["Y1", "Y2"]})]),
    S("T08_draw_two_3p",
      {"players": 3, "discard": ["R7"], "hands": [["R+2", "G1"], ["Y1", "Y2", "Y3", "Y4", "B6"], ["B2", "B3"]]},
      ["play R+2",
       TAKE(1),
       X(hands={1: 7, 2: 2}, current=2, draw_pile_delta=-2, phase="TURN", top="R+2")]),
    S("T09_draw_two_2p",
      {"players": 2, "discard": ["R7"], "hands": [["R+2", "G1"], ["Y1", "Y2", "Y3", "Y4", "B6"]]},
      ["play R+2", TAKE(1), X(hands={1: 7}, current=0, phase="TURN")]),
    S("T10_wd4_accepted",
      {"players": 3, "discard": ["G5"], "hands": [["W4", "R2", "B3"], ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7"],
                                                   ["B1", "B2"]]},
      ["play W4",
       X(phase="CHOOSE_COLOUR", current=0, legal=["colour R", "colour Y", "colour G", "colour B"]),
       "colour B",
       X(phase="CHALLENGE_OR_ACCEPT", current=1, legal=["challenge", "accept"]),
       "accept",
       X(hands={0: ["R2", "B3"], 1: 10, 2: 2}, current=2, colour="B", top="W4", phase="TURN")]),
    S("T12_wd4_challenged_innocent",
      {"players": 3, "discard": ["G5"], "hands": [["W4", "R2"], ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7"],
                                                   ["B1", "B2"]]},
      ["play W4", "colour R", "challenge",
       X(hands={0: ["R2"], 1: 12, 2: 2}, current=2, colour="R", top="W4", phase="TURN")]),
    S("T13_classic_held_wilds_do_not_count",
      {"players": 3, "discard": ["G5"], "hands": [["W4", "W", "R2"], ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7"],
                                                   ["B1", "B2"]]},
      ["play W4", "colour Y", "challenge",
       X(hands={0: ["W", "R2"], 1: 12}, current=2, colour="Y")]),
    S("T15_draw_then_play_drawn",
      {"players": 3, "discard": ["R2"], "draw_pile": ["R9", "Y1"], "hands": [["G5", "B7"], ["Y2"], ["Y3"]]},
      ["draw",
       X(phase="PLAY_OR_KEEP_DRAWN", current=0, legal=["play R9", "pass"]),
       "play R9",
       X(top="R9", hands={0: ["G5", "B7"]}, current=1, phase="TURN", colour="R")]),
    S("T15_draw_then_keep",
      {"players": 3, "discard": ["R2"], "draw_pile": ["R9", "Y1"], "hands": [["G5", "B7"], ["Y2"], ["Y3"]]},
      ["draw", "pass",
       X(top="R2", hands={0: ["G5", "B7", "R9"]}, current=1, phase="TURN")]),
    S("T16_drawn_card_not_playable",
      {"players": 3, "discard": ["R2"], "draw_pile": ["Y1", "R9"], "hands": [["G5", "B7"], ["Y2"], ["Y3"]]},
      ["draw",
       X(hands={0: ["G5", "B7", "Y1"]}, current=1, phase="TURN", top="R2")]),
    S("T17_voluntary_draw_only_drawn_card",
      {"players": 3, "discard": ["R2"], "draw_pile": ["R6", "Y1"], "hands": [["R3", "G5"], ["Y2"], ["Y3"]]},
      [X(legal=["play R3", "draw"]),
       "draw",
       X(phase="PLAY_OR_KEEP_DRAWN", current=0, legal=["play R6", "pass"], legal_lacks=["play R3"]),
       "play R6",
       X(top="R6", hands={0: ["R3", "G5"]}, current=1)]),
    # Draw pile empty and the discard pile is only its top card: all 108 cards are in hands or on
    # top. A draw then yields nothing; n consecutive such turns end the round blocked (CORE-12).
    S("T19_exhaustion_and_blocked_round",
      {"players": 3, "discard": ["R5"], "hands": [["G3", "B6"], 52, 53]},
      [X(draw_pile_len=0, legal=["draw"]),
       "draw",
       X(hands={0: ["G3", "B6"]}, current=1, phase="TURN", over=False, draw_pile_len=0, discard=["R5"]),
       "draw",
       X(hand_delta={1: 0}, current=2, phase="TURN", over=False),
       "draw",
       X(over=True, winner=None, round_points=[0, 0, 0], scores=[0, 0, 0], blocked=True, phase="GAME_OVER",
         hand_delta={0: 0, 1: 0, 2: 0})]),
    S("T20_starter_reverse",
      {"players": 4, "start": True, "dealer": 2, "draw_pile": ["RR"],
       "hands": [7, 7, ["R3", "G4", "B5", "Y6", "G8", "B1", "Y2"], 7]},
      [X(current=2, direction=-1, phase="TURN", top="RR", colour="R", discard=["RR"]),
       "play R3",
       X(current=1, direction=-1)]),
    S("T21_starter_wd4",
      {"players": 4, "start": True, "dealer": 2, "draw_pile": ["W4", "B6"], "hands": [7, 7, 7, 7]},
      [X(discard=["B6"], colour="B", current=3, direction=1, phase="TURN", draw_pile_bottom="W4",
         draw_pile_len=108 - 28 - 1)]),
    S("T23_starter_skip",
      {"players": 4, "start": True, "dealer": 0, "draw_pile": ["BS"], "hands": [7, 7, 7, 7]},
      [X(discard=["BS"], colour="B", current=2, direction=1, phase="TURN", hands={1: 7})]),
    S("T24_starter_wild",
      {"players": 4, "start": True, "dealer": 0, "draw_pile": ["W"],
       "hands": [7, ["Y3", "G8", "B1", "R2", "R4", "B6", "G9"], 7, 7]},
      [X(phase="CHOOSE_COLOUR", current=1, discard=["W"]),
       "colour Y",
       X(phase="TURN", current=1, colour="Y", legal=["play Y3", "draw"]),
       "play Y3",
       X(current=2, top="Y3")]),
    S("T25_explicit_catch",
      {"players": 3, "options": {"uno_call": "explicit"}, "discard": ["R7"], "draw_pile": ["G1", "Y2"],
       "hands": [["R3", "B9"], ["Y4", "Y6"], ["B1", "B2"]]},
      ["play R3",
       X(phase="UNO_CALL", current=0),
       "no-call",
       X(phase="CATCH", current=1, legal=["catch", "pass"]),
       "pass",
       X(phase="CATCH", current=2, legal=["catch", "pass"]),
       "catch",
       X(hands={0: ["B9", "G1", "Y2"]}, current=1, phase="TURN")]),
    S("T26_window_closed",
      {"players": 3, "options": {"uno_call": "explicit"}, "discard": ["R7"], "draw_pile": ["G1", "Y2"],
       "hands": [["R3", "B9"], ["R4", "Y6", "Y7"], ["B1", "B2"]]},
      ["play R3", "no-call", "pass", "pass",
       X(phase="TURN", current=1, legal_lacks=["catch"], hands={0: ["B9"]}),
       "play R4",
       X(current=2, phase="TURN", legal_lacks=["catch"], hands={0: ["B9"]})]),
    S("T28_scoring_method_2",
      {"players": 3, "options": {"scoring_method": "penalty_low"}, "discard": ["R7"],
       "hands": [["R3"], ["R5", "GS", "W4"], ["B0", "Y9"]]},
      ["play R3",
       X(over=True, winner=0, round_points=[0, 75, 9], scores=[0, 75, 9])]),
    S("T28_scoring_method_2_match_lowest_total_wins",
      {"players": 3, "options": {"scoring_method": "penalty_low", "match": True}, "discard": ["R7"],
       "scores": [300, 450, 100], "hands": [["R3"], ["R5", "GS", "W4"], ["B0", "Y9"]]},
      ["play R3",
       X(over=True, round_points=[0, 75, 9], scores=[300, 525, 109], winner=2)]),
    S("T28_scoring_method_2_match_continues_below_target",
      {"players": 3, "options": {"scoring_method": "penalty_low", "match": True}, "discard": ["R7"],
       "scores": [10, 20, 30], "hands": [["R3"], ["R5", "GS", "W4"], ["B0", "Y9"]]},
      ["play R3",
       X(over=False, scores=[10, 95, 39], round_points=[0, 75, 9], winner=None)]),
    S("T31_two_player_wild_miss_draw_2",
      {"players": 2, "options": {"two_player_wild_miss_draw": 2}, "discard": ["R7"], "draw_pile": ["Y1", "Y2"],
       "hands": [["W", "Y5"], ["R1", "G2"]]},
      ["play W", "colour B",
       X(phase="TURN", current=1, legal=["draw"], colour="B"),
       "draw",
       X(hands={1: ["R1", "G2", "Y1", "Y2"]}, current=0, phase="TURN")]),
]

# --------------------------------------------------------------------------- §6.2 House rules

HOUSE = [
    S("T32_stacking_any",
      {"players": 4, "options": {"stacking": "any"}, "discard": ["R7"],
       "hands": [["R+2", "Y5"], ["B+2", "G1"], ["Y3", "G9"], ["Y7", "Y8"]]},
      ["play R+2",
       X(phase="STACK_RESPONSE", current=1, legal=["play B+2", "accept"]),
       "play B+2",
       TAKE(2),
       X(hands={1: ["G1"], 2: 6, 3: 2}, current=3, top="B+2", colour="B", phase="TURN")]),
    S("T33_stacking_same_value_refuses_wd4_on_draw_two",
      {"players": 4, "options": {"stacking": "same_value"}, "discard": ["R7"],
       "hands": [["R+2", "Y5"], ["W4", "G1"], ["Y3", "G9"], ["Y7", "Y8"]]},
      ["play R+2",
       TAKE(1, lacks=["play W4"]),
       X(hands={1: 4, 2: 2}, current=2, phase="TURN", top="R+2")]),
    S("T33_stacking_any_wd4_on_draw_two",
      {"players": 4, "options": {"stacking": "any"}, "discard": ["R7"],
       "hands": [["R+2", "Y5"], ["W4", "G1"], ["Y3", "Y9"], ["Y7", "Y8"]]},
      ["play R+2",
       X(phase="STACK_RESPONSE", current=1, legal=["play W4", "accept"]),
       "play W4", "colour G",
       X(current=2, legal=["challenge", "accept"]),
       "accept",
       X(hands={1: ["G1"], 2: 8, 3: 2}, current=3, colour="G", top="W4", phase="TURN")]),
    S("T35_jump_in",
      {"players": 4, "options": {"jump_in": "on"}, "discard": ["G2"],
       "hands": [["G7", "B1"], ["Y1", "Y2"], ["B2", "B3"], ["G7", "R4"]]},
      ["play G7",
       X(phase="JUMP_IN", current=3, legal=["play G7", "pass"]),
       "play G7",
       X(discard=["G2", "G7", "G7"], hands={1: ["Y1", "Y2"], 2: ["B2", "B3"], 3: ["R4"]}, current=0,
         phase="TURN", colour="G")]),
    S("T35_jump_in_declined",
      {"players": 4, "options": {"jump_in": "on"}, "discard": ["G2"],
       "hands": [["G7", "B1"], ["Y1", "Y2"], ["B2", "B3"], ["G7", "R4"]]},
      ["play G7", "pass", X(current=1, phase="TURN", hands={3: ["G7", "R4"]})]),
    S("T36_jump_in_needs_identical_card",
      {"players": 4, "options": {"jump_in": "on"}, "discard": ["G2"],
       "hands": [["G7", "B1"], ["Y1", "Y2"], ["B2", "B3"], ["B7", "G5"]]},
      ["play G7", X(phase="TURN", current=1)]),
    S("T37_multi_play",
      {"players": 4, "options": {"multi_play": "on"}, "discard": ["R5"],
       "hands": [["R9", "B9", "G9", "Y1"], *OTHER4]},
      ["play R9",
       X(phase="MULTI_PLAY", current=0, legal_has=["play B9", "play G9"]),
       "play B9",
       X(phase="MULTI_PLAY", current=0, legal=["play G9"]),
       "play G9",
       X(top="G9", discard=["R5", "R9", "B9", "G9"], colour="G", hands={0: ["Y1"]}, current=1, phase="TURN")]),
    S("T37_multi_play_uno_call_required",
      {"players": 4, "options": {"multi_play": "on", "uno_call": "decide"}, "discard": ["R5"],
       "hands": [["R9", "B9", "G9", "Y1"], *OTHER4]},
      ["play R9", "play B9", "play G9",
       X(phase="UNO_CALL", current=0, colour="G", hands={0: ["Y1"]}),
       "call",
       X(current=1, phase="TURN")]),
    S("T38_multi_play_first_card_colour",
      {"players": 4, "options": {"multi_play": "on"}, "discard": ["R5"],
       "hands": [["B5", "G5", "Y1"], *OTHER4]},
      [X(legal_has=["play B5"]),
       "play B5",
       X(phase="TURN", current=1, top="B5", colour="B", hands={0: ["G5", "Y1"]})]),
    S("T40_skip_madness",
      {"players": 4, "options": {"madness": "on"}, "discard": ["R7"],
       "hands": [["R+2", "Y5"], ["RS", "G2"], ["Y3", "B4"], ["Y6", "Y7"]]},
      ["play R+2",
       X(phase="STACK_RESPONSE", current=1, legal=["play RS", "accept"]),
       "play RS",
       TAKE(2),
       X(hands={1: ["G2"], 2: 4, 3: 2}, current=3, top="RS", colour="R", phase="TURN")]),
    S("T42_madness_colour_restriction",
      {"players": 4, "options": {"madness": "on"}, "discard": ["R7"],
       "hands": [["R+2", "Y5"], ["BS", "Y1"], ["Y3", "B4"], ["Y6", "Y7"]]},
      ["play R+2",
       TAKE(1, lacks=["play BS"]),
       X(hands={1: 4, 2: 2}, current=2, phase="TURN")]),
]

# --------------------------------------------------------------------------- §6.6 Alphabet and Xiangqi

ALPHA_XQ = [
    S("T107_letter_match",
      {"variant": "alphabet", "players": 3, "discard": ["R-Q"],
       "hands": [["G-Q", "B-A"], ["Y-B"], ["Y-C"]]},
      [X(legal=["play G-Q", "draw"]),
       "play G-Q",
       X(colour="G", top="G-Q", current=1)]),
    S("T108_alphabet_scoring",
      {"variant": "alphabet", "players": 2, "discard": ["R-Q"],
       "hands": [["R-B"], ["R-A", "B-Z", "GS", "W4"]]},
      ["play R-B", X(over=True, winner=0, round_points=[117, 0], scores=[117, 0])]),
    S("T111_xiangqi_equivalence",
      {"variant": "xiangqi", "players": 3, "discard": ["R-帥"],
       "hands": [["B-將", "G-兵"], ["Y-兵"], ["Y-卒"]]},
      [X(legal=["play B-將", "draw"]),
       "play B-將",
       X(colour="B", top="B-將", current=1)]),
]

# --------------------------------------------------------------------------- extra probes beyond §6

EXTRA = [
    # CORE-18/AMB-G13: guilty => offender draws 4, challenger draws nothing and takes a normal turn.
    S("X_wd4_guilty_3p",
      {"players": 3, "discard": ["G5"], "hands": [["W4", "G1", "R2"], ["Y1", "Y2", "Y3"], ["B1", "B2"]]},
      ["play W4", "colour R", "challenge",
       X(hands={0: 6, 1: ["Y1", "Y2", "Y3"]}, current=1, phase="TURN", colour="R", top="W4")]),
    # [003] two players: "A玩家需摸回4張牌，出牌權輪回B玩家".
    S("X_wd4_guilty_2p",
      {"players": 2, "discard": ["G5"], "hands": [["W4", "G1", "R2"], ["Y1", "Y2", "Y3"]]},
      ["play W4", "colour R", "challenge",
       X(hands={0: 6, 1: ["Y1", "Y2", "Y3"]}, current=1, phase="TURN", colour="R")]),
    S("X_wd4_accepted_2p_plays_again",
      {"players": 2, "discard": ["G5"], "hands": [["W4", "R2"], ["Y1", "Y2", "Y3"]]},
      ["play W4", "colour R", "accept", X(hands={1: 7}, current=0, phase="TURN", colour="R")]),
    S("X_wd4_innocent_2p",
      {"players": 2, "discard": ["G5"], "hands": [["W4", "R2"], ["Y1", "Y2", "Y3"]]},
      ["play W4", "colour B", "challenge", X(hands={1: 9, 0: ["R2"]}, current=0, phase="TURN", colour="B")]),
    S("X_skip_2p_plays_again",
      {"players": 2, "discard": ["R7"], "hands": [["RS", "G2"], ["Y1", "Y2"]]},
      ["play RS", X(current=0, phase="TURN", hands={1: ["Y1", "Y2"]})]),
    # CORE-17: restricted_wild_bluffing false masks an illegal WD4 ...
    S("X_no_bluffing_masks_wd4_when_holding_colour",
      {"players": 3, "options": {"restricted_wild_bluffing": False}, "discard": ["G5"],
       "hands": [["W4", "G1", "R2"], ["Y1", "Y2"], ["B1", "B2"]]},
      [X(legal=["play G1", "draw"])]),
    # ... held wilds still do not count in Classic, and the challenge option is removed.
    S("X_no_bluffing_wd4_legal_no_challenge",
      {"players": 3, "options": {"restricted_wild_bluffing": False}, "discard": ["G5"],
       "hands": [["W4", "W", "R2"], ["Y1", "Y2"], ["B1", "B2"]]},
      [X(legal=["play W4", "play W", "draw"]),
       "play W4", "colour B",
       TAKE(1, lacks=["challenge"]),
       X(hands={1: 6, 0: ["W", "R2"]}, current=2, colour="B", phase="TURN")]),
    S("X_no_bluffing_drawn_wd4_not_playable_when_holding_colour",
      {"players": 3, "options": {"restricted_wild_bluffing": False}, "discard": ["G5"], "draw_pile": ["W4"],
       "hands": [["G1", "R2"], ["Y1", "Y2"], ["B1", "B2"]]},
      ["draw", X(current=1, phase="TURN", hands={0: ["G1", "R2", "W4"]})]),
    # HR-1 draw_two_only: +2 on +2 only; a WD4 can neither be stacked nor stacked upon.
    S("X_stacking_draw_two_only_refuses_wd4",
      {"players": 4, "options": {"stacking": "draw_two_only"}, "discard": ["R7"],
       "hands": [["R+2", "Y5"], ["W4", "B+2", "G1"], ["Y3", "Y9"], ["Y7", "Y8"]]},
      ["play R+2", X(phase="STACK_RESPONSE", current=1, legal=["play B+2", "accept"])]),
    S("X_stacking_draw_two_only_nothing_on_wd4",
      {"players": 4, "options": {"stacking": "draw_two_only"}, "discard": ["G5"],
       "hands": [["W4", "Y5"], ["B+2", "G1"], ["Y3", "Y9"], ["Y7", "Y8"]]},
      ["play W4", "colour B", X(current=1, legal=["challenge", "accept"])]),
    S("X_stacking_same_value_wd4_on_wd4_only",
      {"players": 4, "options": {"stacking": "same_value"}, "discard": ["G5"],
       "hands": [["W4", "Y5"], ["W4", "Y+2", "G1"], ["Y3", "Y9"], ["Y7", "Y8"]]},
      ["play W4", "colour Y", X(current=1, legal=["play W4", "challenge", "accept"])]),
    # HR-1 step 2: a +2 on a WD4 must be of the WD4's declared colour.
    S("X_stacking_any_draw_two_on_wd4_declared_colour",
      {"players": 4, "options": {"stacking": "any"}, "discard": ["G5"],
       "hands": [["W4", "Y5"], ["B+2", "R+2", "G1"], ["Y3", "Y9"], ["Y7", "Y8"]]},
      ["play W4", "colour B",
       X(current=1, legal=["play B+2", "challenge", "accept"]),
       "play B+2",
       TAKE(2),
       X(hands={2: 8}, current=3, colour="B", top="B+2")]),
    # AMB-G9 generalised challenge with T = 6: innocent => challenger draws T + 2 and loses the turn.
    S("X_stack_challenge_T6_innocent",
      {"players": 4, "options": {"stacking": "any"}, "discard": ["R7"],
       "hands": [["R+2", "G3"], ["W4", "Y1"], ["Y3", "Y9"], ["B7", "B8"]]},
      ["play R+2", "play W4", "colour G",
       X(current=2, legal=["challenge", "accept"]),
       "challenge",
       X(hands={1: ["Y1"], 2: 10, 0: ["G3"]}, current=3, colour="G", phase="TURN")]),
    # ... guilty (P1 held a red card when stacking the WD4 on R+2) => P1 draws T = 6, P2 plays normally.
    S("X_stack_challenge_T6_guilty",
      {"players": 4, "options": {"stacking": "any"}, "discard": ["R7"],
       "hands": [["R+2", "G3"], ["W4", "R1", "Y1"], ["Y3", "Y9"], ["B7", "B8"]]},
      ["play R+2", "play W4", "colour G", "challenge",
       X(hands={1: 8, 2: ["Y3", "Y9"]}, current=2, colour="G", phase="TURN")]),
    # CORE-24: a last-card Draw Two is resolved before scoring, with no response (no stacking).
    S("X_last_card_draw_two_resolved_before_scoring",
      {"players": 3, "options": {"stacking": "any"}, "discard": ["R7"], "draw_pile": ["Y9", "Y8"],
       "hands": [["R+2"], ["B+2", "G1"], ["G3"]]},
      ["play R+2",
       X(over=True, winner=0, hands={1: ["B+2", "G1", "Y9", "Y8"], 2: ["G3"]}, round_points=[41, 0, 0])]),
    # CORE-24: a last-card WD4 takes its colour, is not challengeable, and its draw counts for scoring.
    S("X_last_card_wd4_no_challenge",
      {"players": 3, "discard": ["G5"], "draw_pile": ["R1", "R2", "R3", "R4"],
       "hands": [["W4"], ["G1", "G2"], ["Y3"]]},
      ["play W4",
       X(phase="CHOOSE_COLOUR", current=0),
       "colour B",
       X(over=True, winner=0, colour="B", hands={1: ["G1", "G2", "R1", "R2", "R3", "R4"]},
         round_points=[16, 0, 0])]),
    S("X_reverse_2p_not_as_skip",
      {"players": 2, "options": {"two_player_reverse_as_skip": False}, "discard": ["R7"],
       "hands": [["RR", "G1"], ["Y1", "Y2"]]},
      ["play RR", X(direction=-1, current=1, phase="TURN")]),
    # HR-5: forced draw keeps drawing; the first legal card found later must be played.
    S("X_draw_until_playable_forced_play",
      {"players": 3, "options": {"draw_rule": "draw_until_playable"}, "discard": ["R7"],
       "draw_pile": ["Y1", "G2", "R9", "B4"], "hands": [["G3", "B5"], ["Y2"], ["Y3"]]},
      ["draw",
       X(top="R9", hands={0: ["G3", "B5", "Y1", "G2"]}, current=1, phase="TURN", draw_pile_top=["B4"])]),
    S("X_draw_until_playable_first_card_optional",
      {"players": 3, "options": {"draw_rule": "draw_until_playable"}, "discard": ["R7"],
       "draw_pile": ["R9", "B4"], "hands": [["G3", "B5"], ["Y2"], ["Y3"]]},
      ["draw", X(phase="PLAY_OR_KEEP_DRAWN", legal=["play R9", "pass"]),
       "pass", X(hands={0: ["G3", "B5", "R9"]}, current=1)]),
    S("X_draw_until_playable_found_wild_colour_choice",
      {"players": 3, "options": {"draw_rule": "draw_until_playable"}, "discard": ["R7"],
       "draw_pile": ["Y1", "W", "B4"], "hands": [["G3", "B5"], ["Y2"], ["Y3"]]},
      ["draw", X(phase="CHOOSE_COLOUR", current=0, top="W"), "colour G",
       X(current=1, colour="G", hands={0: ["G3", "B5", "Y1"]})]),
    S("X_draw_until_playable_voluntary_draw_draws_one",
      {"players": 3, "options": {"draw_rule": "draw_until_playable"}, "discard": ["R7"],
       "draw_pile": ["Y1", "R9"], "hands": [["R3", "G5"], ["Y2"], ["Y3"]]},
      ["draw", X(hands={0: ["R3", "G5", "Y1"]}, current=1, top="R7", draw_pile_top=["R9"])]),
    # HR-2: a jump-in Skip acts from the jumper's seat; the skipped player may jump in too.
    S("X_jump_in_skip_by_skipped_player",
      {"players": 4, "options": {"jump_in": "on"}, "discard": ["R7"],
       "hands": [["RS", "G1"], ["RS", "Y1"], ["Y2", "Y3"], ["B2", "B3"]]},
      ["play RS",
       X(phase="JUMP_IN", current=1, legal=["play RS", "pass"]),
       "play RS",
       X(current=3, phase="TURN", hands={1: ["Y1"], 2: ["Y2", "Y3"]}, top="RS")]),
    S("X_jump_in_skip_from_jumper_seat",
      {"players": 4, "options": {"jump_in": "on"}, "discard": ["R7"],
       "hands": [["RS", "G1"], ["Y1", "Y4"], ["Y2", "Y3"], ["RS", "B3"]]},
      ["play RS",
       X(phase="JUMP_IN", current=3),
       "play RS",
       X(current=1, phase="TURN", hands={3: ["B3"]})]),
    S("X_jump_in_no_wilds_by_default",
      {"players": 4, "options": {"jump_in": "on"}, "discard": ["R7"],
       "hands": [["W", "G1"], ["Y1", "Y4"], ["Y2", "Y3"], ["W", "B3"]]},
      ["play W", "colour B", X(current=1, phase="TURN")]),
    # CORE-22 explicit: the first CATCH ends the poll.
    S("X_explicit_first_catch_closes_poll",
      {"players": 3, "options": {"uno_call": "explicit"}, "discard": ["R7"], "draw_pile": ["G1", "Y2"],
       "hands": [["R3", "B9"], ["Y4", "Y6"], ["B1", "B2"]]},
      ["play R3", "no-call", "catch", X(hands={0: 3}, current=1, phase="TURN", legal_lacks=["catch"])]),
    S("X_explicit_call_no_poll",
      {"players": 3, "options": {"uno_call": "explicit"}, "discard": ["R7"],
       "hands": [["R3", "B9"], ["Y4", "Y6"], ["B1", "B2"]]},
      ["play R3", "call", X(hands={0: ["B9"]}, current=1, phase="TURN")]),
    # §1.6: UNO call comes after the colour declaration; a call is only offered at one card left.
    S("X_decide_wild_colour_then_call",
      {"players": 3, "options": {"uno_call": "decide"}, "discard": ["R7"],
       "hands": [["W", "G1"], ["Y4", "Y6"], ["B1", "B2"]]},
      ["play W", X(phase="CHOOSE_COLOUR"), "colour B", X(phase="UNO_CALL", current=0), "call",
       X(current=1, colour="B", hands={0: ["G1"]})]),
    S("X_decide_no_call_offered_with_two_left",
      {"players": 3, "options": {"uno_call": "decide"}, "discard": ["R7"],
       "hands": [["R3", "B9", "G1"], ["Y4", "Y6"], ["B1", "B2"]]},
      ["play R3", X(phase="TURN", current=1)]),
    # CORE-10: the current colour may be declared.
    S("X_wild_may_declare_current_colour",
      {"players": 3, "discard": ["R7"], "hands": [["W", "G1"], ["Y4", "Y6"], ["B1", "B2"]]},
      ["play W", X(legal=["colour R", "colour Y", "colour G", "colour B"]), "colour R",
       X(colour="R", current=1, top="W")]),
    # HR-4 Reverse deflection sends the penalty back to its player.
    S("X_madness_reverse_back_to_player",
      {"players": 4, "options": {"madness": "on"}, "discard": ["R7"],
       "hands": [["R+2", "Y5"], ["RR", "G2"], ["Y3", "B4"], ["Y6", "Y7"]]},
      ["play R+2", "play RR",
       TAKE(0),
       X(direction=-1, hands={0: 3, 1: ["G2"], 2: ["Y3", "B4"]}, current=3, phase="TURN", top="RR")]),
    S("X_madness_any_colour_against_wd4",
      {"players": 4, "options": {"madness": "on"}, "discard": ["G5"],
       "hands": [["W4", "Y5"], ["BS", "Y1"], ["Y3", "Y4"], ["Y6", "Y7"]]},
      ["play W4", "colour R",
       X(current=1, legal=["play BS", "challenge", "accept"]),
       "play BS",
       TAKE(2),
       X(hands={1: ["Y1"], 2: 6, 3: 2}, current=3, top="BS", colour="B")]),
    # HR-4 step 3: once deflected, the WD4 is no longer challengeable.
    S("X_madness_deflected_wd4_not_challengeable",
      {"players": 4, "options": {"madness": "on"}, "discard": ["G5"],
       "hands": [["W4", "Y5"], ["BS", "Y1"], ["Y3", "Y4"], ["Y6", "Y7"]]},
      ["play W4", "colour R", "play BS", TAKE(2, lacks=["challenge"]), X(hands={2: 6}, current=3)]),
    # HR-3: k Skips skip k players; k Draw Twos => next draws 2k and is skipped once; parity of Reverses.
    S("X_multi_play_skips",
      {"players": 4, "options": {"multi_play": "on"}, "discard": ["R5"],
       "hands": [["RS", "BS", "G1"], *OTHER4]},
      ["play RS", "play BS", X(current=3, colour="B", hands={1: 2, 2: 2})]),
    S("X_multi_play_draw_twos",
      {"players": 4, "options": {"multi_play": "on"}, "discard": ["R5"],
       "hands": [["R+2", "B+2", "G1"], *OTHER4]},
      ["play R+2", "play B+2", TAKE(1), X(current=2, hands={1: 6}, colour="B")]),
    S("X_multi_play_two_reverses",
      {"players": 4, "options": {"multi_play": "on"}, "discard": ["R5"],
       "hands": [["RR", "BR", "G1"], *OTHER4]},
      ["play RR", "play BR", X(current=1, direction=1, colour="B")]),
    S("X_multi_play_any_legal_first_card",
      {"players": 4, "options": {"multi_play": "on", "multi_play_first_match": "any_legal"},
       "discard": ["R5"], "hands": [["B5", "G5", "Y1"], *OTHER4]},
      ["play B5", X(phase="MULTI_PLAY", legal_has=["play G5"]), "play G5",
       X(current=1, colour="G", hands={0: ["Y1"]})]),
    # §2.1 starter Draw Two (AMB-F3): first player draws 2 and is skipped.
    S("X_starter_draw_two",
      {"players": 4, "start": True, "dealer": 0, "draw_pile": ["R+2"], "hands": [7, 7, 7, 7]},
      [X(discard=["R+2"], hands={1: 9}, current=2, colour="R", phase="TURN")]),
    # CORE-11 reshuffle: discards except the top become the new draw pile.
    S("X_reshuffle_when_draw_pile_empty",
      {"players": 3, "unplaced": "discard", "discard": ["R5"], "hands": [["G3", "B6"], 7, 7]},
      [X(draw_pile_len=0),
       "draw",
       X(discard=["R5"], draw_pile_len=108 - 1 - 16 - 1, hands={0: 3})]),
    # Notation aliases (§0.3): R-GEN = R-帥, G-GEN = G-將.
    S("X_xiangqi_ascii_aliases",
      {"variant": "xiangqi", "players": 3, "discard": ["R-GEN"],
       "hands": [["G-GEN", "Y-SOL"], ["Y-CAN"], ["Y-HOR"]]},
      [X(top="R-帥", legal=["play G-將", "draw"]),
       "play G-GEN",
       X(top="G-將", colour="G", hands={0: ["Y-兵"]}, current=1)]),
    # Alphabet: letter S (R-S) and Skip (RS) are different cards and different ranks.
    S("X_alphabet_letter_s_is_not_skip",
      {"variant": "alphabet", "players": 4, "discard": ["R-S"],
       "hands": [["G-S", "GS", "Y-A"], ["Y-B"], ["Y-C"], ["Y-D"]]},
      [X(legal=["play G-S", "draw"]), "play G-S", X(current=1, colour="G")]),
    S("X_alphabet_skip_is_not_letter_s",
      {"variant": "alphabet", "players": 4, "discard": ["RS"],
       "hands": [["G-S", "GS", "Y-A"], ["Y-B"], ["Y-C"], ["Y-D"]]},
      [X(legal=["play GS", "draw"]), "play GS", X(current=2, colour="G", hands={1: ["Y-B"]})]),
    # §1.6 (7) / AMB-G11: the UNO call and catch poll come before the victim's challenge decision;
    # guilt is judged on the hand held when the WD4 was played (the UNO penalty drew G1, G2 later).
    S("X_explicit_catch_before_challenge_guilt_fixed_at_play",
      {"players": 3, "options": {"uno_call": "explicit"}, "discard": ["G5"], "draw_pile": ["G1", "G2"],
       "hands": [["W4", "R2"], ["Y1", "Y2", "Y3"], ["B1", "B2"]]},
      ["play W4", "colour B",
       X(phase="UNO_CALL", current=0),
       "no-call",
       X(phase="CATCH", current=1),
       "catch",
       X(hands={0: ["R2", "G1", "G2"]}, phase="CHALLENGE_OR_ACCEPT", current=1),
       "challenge",
       X(hands={0: ["R2", "G1", "G2"], 1: 9}, current=2, colour="B", phase="TURN")]),
    # CORE-16/AMB-B19: the reference colour is the one before the WD4, not the declared one.
    S("X_wd4_reference_colour_is_previous_colour",
      {"players": 3, "discard": ["G5"], "hands": [["W4", "B1", "Y2"], ["Y1", "Y3", "Y4"], ["B2", "B3"]]},
      ["play W4", "colour B", "challenge", X(hands={0: ["B1", "Y2"], 1: 9}, current=2, colour="B")]),
    # HR-1 step 5: a stack extended by a player's last card is absorbed without response.
    S("X_stack_extended_by_last_card",
      {"players": 4, "options": {"stacking": "any"}, "discard": ["R7"], "draw_pile": ["Y9", "Y8", "Y7", "Y6"],
       "hands": [["R+2", "G3"], ["B+2"], ["G+2", "B4"], ["Y1", "Y2"]]},
      ["play R+2", "play B+2",
       X(over=True, winner=1, hands={2: ["G+2", "B4", "Y9", "Y8", "Y7", "Y6"]},
         round_points=[0, 3 + 20 + 4 + 9 + 8 + 7 + 6 + 1 + 2, 0, 0])]),
    # HR-2: a jump-in Draw Two acts from the jumper's seat after the first one fully resolved.
    S("X_jump_in_draw_two",
      {"players": 4, "options": {"jump_in": "on"}, "discard": ["R7"],
       "hands": [["R+2", "Y5"], ["Y1", "Y2"], ["B2", "B3"], ["R+2", "B4"]]},
      ["play R+2",
       X(phase="JUMP_IN", current=3, hands={1: 4}),
       "play R+2",
       X(hands={0: 3, 1: 4, 2: ["B2", "B3"], 3: ["B4"]}, current=1, phase="TURN", top="R+2")]),
    # AMB-F6 option 2: even a player who could follow the colour ends the turn after drawing two.
    S("X_two_player_wild_miss_draw_2_voluntary",
      {"players": 2, "options": {"two_player_wild_miss_draw": 2}, "discard": ["R7"], "draw_pile": ["B7", "Y2"],
       "hands": [["W", "Y5"], ["B1", "G2"]]},
      ["play W", "colour B",
       X(legal=["play B1", "draw"]),
       "draw",
       X(hands={1: ["B1", "G2", "B7", "Y2"]}, current=0, phase="TURN", top="W")]),
    # §2.1: several WD4 starters all go to the bottom of the draw pile.
    S("X_starter_two_wd4",
      {"players": 4, "start": True, "dealer": 0, "draw_pile": ["W4", "W4", "G6"], "hands": [7, 7, 7, 7]},
      [X(discard=["G6"], colour="G", current=1, phase="TURN", draw_pile_len=108 - 28 - 1,
         draw_pile_bottom=["W4", "W4"])]),
    # §2.5: an Alphabet +4 starter is put back (bottom) and another card turned.
    S("X_alphabet_starter_wd4",
      {"variant": "alphabet", "players": 4, "start": True, "dealer": 0, "draw_pile": ["W4", "R-C"],
       "hands": [14, 14, 14, 14]},
      [X(discard=["R-C"], colour="R", current=1, draw_pile_bottom="W4", draw_pile_len=272 - 56 - 1)]),
    # HR-3: no multi-play after drawing.
    S("X_multi_play_not_after_drawing",
      {"players": 4, "options": {"multi_play": "on"}, "discard": ["R5"], "draw_pile": ["R9"],
       "hands": [["R3", "B9", "G1"], *OTHER4]},
      ["draw", "play R9", X(phase="TURN", current=1, top="R9", hands={0: ["R3", "B9", "G1"]})]),
    # CORE-25 method 1: the winner scores every other hand; the match ends at >= 500.
    S("X_scoring_method_1",
      {"players": 3, "discard": ["R7"], "hands": [["R3"], ["R5", "GS", "W4"], ["B0", "Y9"]]},
      ["play R3", X(over=True, winner=0, round_points=[84, 0, 0], scores=[84, 0, 0])]),
    S("X_scoring_method_1_match_end",
      {"players": 3, "options": {"match": True}, "discard": ["R7"], "scores": [450, 480, 0],
       "hands": [["R3"], ["R5", "GS", "W4"], ["B0", "Y9"]]},
      ["play R3", X(over=True, winner=0, scores=[534, 480, 0])]),
    # §2.6 Xiangqi scoring: soldier 2, other pieces 5, general 10, function 20, wild 50.
    S("X_xiangqi_scoring",
      {"variant": "xiangqi", "players": 2, "discard": ["R-兵"],
       "hands": [["R-仕"], ["R-帥", "G-卒", "B-炮", "RS", "W"]]},
      ["play R-ADV", X(over=True, winner=0, round_points=[87, 0])]),
]


@pytest.mark.parametrize("spec,steps", CLASSIC + HOUSE + ALPHA_XQ + EXTRA)
def test_scenario(spec, steps):
    run_scenario(spec, steps)


# --------------------------------------------------------------------------- non-stepping checks

@pytest.mark.parametrize("variant,n,hand,deck,draw_left", [
    ("alphabet", 4, 14, 272, 215),   # T109
    ("xiangqi", 10, 7, 96, 25),      # T114
    ("classic", 4, 7, 108, 79),
])
def test_T109_T114_deal_counts_spec(variant, n, hand, deck, draw_left):
    """T109/T114: H cards each, one starter, the rest in the draw pile (number starter)."""
    starter = {"alphabet": "R-C", "xiangqi": "R-兵", "classic": "R3"}[variant]
    game, state = build({"variant": variant, "players": n, "start": True, "dealer": 0,
                         "draw_pile": [starter], "hands": [hand] * n})
    sp = game.to_spec(state)
    assert [len(h) for h in sp["hands"]] == [hand] * n
    assert sp["discard"] == [game.card_name(game.parse_card(starter))]
    assert len(sp["draw_pile"]) == draw_left
    assert total_cards(sp) == deck
    assert state.current_seat == 1 and state.phase == "TURN"


@pytest.mark.parametrize("variant,n,hand,deck,draw_left", [
    ("alphabet", 4, 14, 272, 215),   # T109
    ("xiangqi", 10, 7, 96, 25),      # T114
])
def test_T109_T114_deal_counts_new_state(variant, n, hand, deck, draw_left):
    """T109/T114 through new_state: 56 (70) dealt, 1 starter, 215 (25) to draw when the starter is plain."""
    game = Game(variant, num_players=n)
    plain = 0
    for seed in range(40):
        state = game.new_state(seed=seed)
        sp = game.to_spec(state)
        assert total_cards(sp) == deck
        assert len(sp["discard"]) == 1
        top = sp["discard"][-1]
        if top in ("W", "W4") or top[1:] in ("S", "R", "+2"):
            continue
        plain += 1
        assert [len(h) for h in sp["hands"]] == [hand] * n, (seed, sp["hands"])
        assert len(sp["draw_pile"]) == draw_left, seed
    assert plain > 0


def test_aliases_parse_to_same_card():
    """§0.3: ASCII Xiangqi aliases and Classic W4 spellings name the same card kind."""
    xq = Game("xiangqi", num_players=2)
    assert xq.parse_card("R-GEN") == xq.parse_card("R-帥")
    assert xq.parse_card("G-GEN") == xq.parse_card("G-將")
    assert xq.parse_card("B-SOL") == xq.parse_card("B-卒")
    assert xq.parse_card("R-GEN") != xq.parse_card("Y-GEN")
    assert xq.action_from_string("play G-GEN") == xq.action_from_string("play G-將")
    alpha = Game("alphabet", num_players=2)
    assert alpha.parse_card("R-S") != alpha.parse_card("RS")
    assert alpha.card_name(alpha.parse_card("RS")) == "RS"
    assert alpha.card_name(alpha.parse_card("R-S")) == "R-S"
