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
