"""Regression tests for rule-order details found in review (each asserts docs/rules.md behaviour)."""
from __future__ import annotations

import pytest

from uno_env import Game, SpecError


def test_automatic_penalty_is_drawn_before_the_uno_call():
    """§1.6 step 7 / CORE-22: the call comes after the placement's automatic effects."""
    game = Game("classic", num_players=3, uno_call="decide")
    s = game.state_from_spec({"discard": ["R7"], "hands": [["R+2", "B9"], ["G1", "G2"], ["Y1"]],
                              "draw_pile": ["Y3", "Y4", "Y5", "Y6"]})
    game.step(s, "play R+2")
    assert s.phase == "UNO_CALL" and game.hand_cards(s, 1) == ["Y3", "Y4", "G1", "G2"]
    game.step(s, "no-call")
    assert game.hand_cards(s, 0) == ["Y5", "Y6", "B9"] and s.current_seat == 2


def test_unchallengeable_wd4_penalty_is_drawn_before_the_uno_call():
    game = Game("classic", num_players=3, uno_call="decide", restricted_wild_bluffing=False)
    s = game.state_from_spec({"discard": ["G5"], "hands": [["W4", "B5"], ["B1", "B2"], ["Y8"]],
                              "draw_pile": ["R1", "R2", "R3", "R4", "Y7", "R5"]})
    game.step(s, "play W4")
    game.step(s, "colour B")
    assert s.phase == "UNO_CALL" and game.hand_cards(s, 1) == ["R1", "R2", "R3", "R4", "B1", "B2"]


def test_free_colour_rule_does_not_loosen_stacking_without_madness():
    game = Game("classic", num_players=3, stacking="any", madness_colour_rule="free")
    s = game.state_from_spec({"discard": ["G5"], "hands": [["W4", "B1"], ["Y+2", "G2"], ["Y8", "G8"]]})
    game.step(s, "play W4")
    game.step(s, "colour R")
    assert game.legal_action_strings(s) == ["challenge", "accept"]


def test_multi_play_keeps_the_colour_of_the_top_card():
    game = Game("classic", num_players=4, multi_play="on")
    s = game.state_from_spec({"discard": ["R5"], "hands": [["R9", "B9", "G9", "Y1"], 3, 3, 3]})
    game.step(s, "play R9")
    game.step(s, "play B9")
    spec = game.to_spec(s)
    assert s.phase == "MULTI_PLAY" and spec["discard"][-1] == "B9" and spec["colour"] == "B"
    game.step(s, "play G9")
    assert game.to_spec(s)["colour"] == "G" and s.current_seat == 1


def test_multi_play_first_card_by_rank_sets_the_colour():
    game = Game("classic", num_players=3, multi_play="on", multi_play_first_match="any_legal")
    s = game.state_from_spec({"discard": ["R5"], "hands": [["B5", "G5", "Y1"], 3, 3]})
    game.step(s, "play B5")
    assert s.phase == "MULTI_PLAY" and game.to_spec(s)["colour"] == "B"


def test_changing_the_returned_legal_actions_does_not_change_the_game():
    game = Game("classic", num_players=2, draw_rule="draw_until_playable")
    s = game.state_from_spec({"discard": ["R7"], "hands": [["R1", "G2"], 3], "draw_pile": ["B1", "R5"]})
    game.legal_actions(s).remove(game.action_from_string("play R1"))
    game.step(s, "draw")  # voluntary: draws exactly one card, no forced play
    assert game.hand_cards(s, 0) == ["R1", "G2", "B1"] and s.current_seat == 1
    spec = game.to_spec(s)
    assert spec["discard"] == ["R7"] and spec["draw_pile"][0] == "R5"  # R5 neither drawn nor played


def test_colour_is_null_while_a_wild_waits_for_its_declaration():
    game = Game("classic", num_players=3)
    s = game.state_from_spec({"discard": ["R7"], "hands": [["W", "B1"], 3, 3]})
    game.step(s, "play W")
    assert s.phase == "CHOOSE_COLOUR" and game.to_spec(s)["colour"] is None


def test_start_true_sets_the_direction_itself():
    game = Game("classic", num_players=4)
    with pytest.raises(SpecError, match="direction"):
        game.state_from_spec({"start": True, "direction": -1, "draw_pile": ["G4"], "hands": [7, 7, 7, 7]})


def test_alphabet_deck_option_names_the_itemised_deck():
    """AMB-D1: ``alphabet.deck = itemised_272`` is accepted (flat or nested) and is the only reading."""
    import pytest

    from uno_env import Game, RuleError

    for options in ({"alphabet.deck": "itemised_272"}, {"alphabet": {"deck": "itemised_272"}}):
        game = Game("alphabet", num_players=4, options=options)
        state = game.new_state(0)
        assert game.deck.size == 272 and len(state.draw_pile) == 272 - 4 * 14 - 1
    with pytest.raises(RuleError, match="allowed values: itemised_272"):
        Game("alphabet", num_players=4, **{"alphabet.deck": "216"})
    with pytest.raises(RuleError, match="belongs to alphabet"):
        Game("classic", num_players=4, **{"alphabet.deck": "itemised_272"})


def test_a_wild_answering_a_stack_closes_the_jump_in_window_of_the_card_before_it():
    """HR-2: the window belongs to the last card placed; wilds open none, so a stacked WD4 leaves no R+2 window."""
    game = Game("classic", num_players=4, jump_in="on", stacking="any")
    s = game.state_from_spec({"discard": ["R7"], "hands": [["R+2", "G1", "G2"], ["W4", "Y5", "Y6"], ["Y3", "G9"],
                                                           ["R+2", "B5"]],
                              "draw_pile": ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8"]})
    for action in ("play R+2", "play W4", "colour B", "accept"):
        game.step(s, action)
    assert s.phase == "TURN" and s.current_seat == 3 and "play R+2" not in game.legal_action_strings(s)
    assert game.to_spec(s)["discard"][-1] == "W4" and game.to_spec(s)["colour"] == "B"


def test_a_stacked_draw_two_still_opens_its_own_jump_in_window():
    game = Game("classic", num_players=4, jump_in="on", stacking="any")
    s = game.state_from_spec({"discard": ["R7"], "hands": [["R+2", "G1"], ["B+2", "Y5"], ["Y3", "G9"],
                                                           ["B+2", "Y1"]]})
    game.step(s, "play R+2")
    game.step(s, "play B+2")  # P2 holds no draw card: it takes 4 at once
    assert s.phase == "JUMP_IN" and s.current_seat == 3 and game.legal_action_strings(s) == ["play B+2", "pass"]


def test_madness_lets_a_draw_two_of_any_colour_stack_on_a_wd4():
    """HR-4 step 2: against a WD4 any function card of any colour, a +2 as a stack where HR-1 allows +2 on it."""
    spec = {"discard": ["R7"], "hands": [["W4", "G1"], ["B+2", "YS", "Y5"], ["Y3", "G9"], ["B1", "B5"]]}
    game = Game("classic", num_players=4, stacking="any", madness="on")
    s = game.state_from_spec(spec)
    game.step(s, "play W4")
    game.step(s, "colour G")
    assert game.legal_action_strings(s) == ["play YS", "play B+2", "challenge", "accept"]
    for stacking in ("draw_two_only", "same_value"):  # these do not put a +2 on a WD4
        game = Game("classic", num_players=4, stacking=stacking, madness="on")
        s = game.state_from_spec(spec)
        game.step(s, "play W4")
        game.step(s, "colour G")
        assert "play B+2" not in game.legal_action_strings(s)
    game = Game("classic", num_players=4, stacking="any")  # without madness: the declared colour only
    s = game.state_from_spec(spec)
    game.step(s, "play W4")
    game.step(s, "colour G")
    assert game.legal_action_strings(s) == ["challenge", "accept"]


def test_no_challenge_of_a_wd4_stacked_after_a_deflection():
    """HR-4 step 3: the target may challenge a WD4 on top only if no deflection has happened yet."""
    game = Game("classic", num_players=4, stacking="any", madness="on")
    s = game.state_from_spec({"discard": ["R7"], "hands": [["R+2", "G1"], ["RS", "Y5"], ["W4", "G2"],
                                                           ["B1", "B5"]]})
    game.step(s, "play R+2")
    game.step(s, "play RS")  # P1 deflects to P2
    assert s.current_seat == 2 and "play W4" in game.legal_action_strings(s)
    game.step(s, "play W4")
    game.step(s, "colour B")  # P3 can neither stack, deflect nor challenge: it takes 2 + 4 at once
    assert s.phase == "TURN" and s.current_seat == 0 and len(game.hand_cards(s, 3)) == 8
    s = game.state_from_spec({"discard": ["R7"], "hands": [["R+2", "G1"], ["W4", "Y5"], ["Y2", "G2"],
                                                           ["B1", "B5"]]})
    game.step(s, "play R+2")
    game.step(s, "play W4")  # stacked without a deflection: challengeable
    game.step(s, "colour B")
    assert s.current_seat == 2 and game.legal_action_strings(s) == ["challenge", "accept"]


def test_flip_plays_the_very_card_just_drawn():
    """CORE-7: after a draw only that card may be played; in Flip the other face goes with it."""
    spec = {"variant": "flip", "players": 3, "seed": 0, "discard": ["A:R5"],
            "hands": [["A:R7|D:Pk1", "A:G1"], 5, 5], "draw_pile": ["A:R7|D:Tl9"]}
    game = Game.from_spec(spec)
    s = game.state_from_spec(spec)
    game.step(s, "draw")
    game.step(s, "play A:R7")
    out = game.to_spec(s)
    assert out["discard"][-1] == "A:R7|D:Tl9"
    assert len(out["hands"][0]) == 2 and out["hands"][0][0] == "A:R7|D:Pk1" and out["hands"][0][1].startswith("A:G1|")


def test_attack_empty_presses_can_count_towards_a_blocked_round():
    """CORE-12 read literally (``attack.empty_press_progress = false``): presses firing nothing are idle turns."""
    spec = {"variant": "attack", "players": 3, "seed": 0, "options": {"attack.launcher_model": "scripted"},
            "discard": ["R7"], "hands": [["G3", "B5"], ["G4", "B6"], ["G2", "B2"]], "launcher": [0] * 20}
    game = Game.from_spec(spec)
    s = game.state_from_spec(spec)
    for _ in range(6):
        game.step(s, "press")
    assert not s.is_over  # the default: a press of a loaded launcher is progress
    literal = dict(spec, options={**spec["options"], "attack.empty_press_progress": False})
    game = Game.from_spec(literal)
    s = game.state_from_spec(literal)
    for _ in range(3):
        game.step(s, "press")
    assert s.is_over and s.winner is None and game.to_spec(s)["hands"][0] == ["G3", "B5"]
