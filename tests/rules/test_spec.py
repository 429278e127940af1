"""Scenario specs: defaults, placement of unplaced cards, start: true, and to_spec round trips."""
from __future__ import annotations

import numpy as np
import pytest

from uno_env import Game, load_scenario


@pytest.mark.parametrize("variant, options", [("classic", {"stacking": "any"}), ("flex", {}), ("flip", {}),
                                              ("attack", {})])
def test_to_spec_round_trips_a_turn_state(variant, options):
    """Random TURN states written by to_spec read back to the same spec and legal actions (Flex: power too;
    Flip: the side and every card's pairing)."""
    game = Game(variant, num_players=4, **options)
    rng = np.random.default_rng(1)
    checked = power_off = dark = 0
    for seed in range(30):
        state = game.new_state(seed)
        for _ in range(int(rng.integers(0, 60))):
            if state.is_over:
                break
            legal = game.legal_actions(state)
            game.step(state, legal[int(rng.integers(len(legal)))])
        if state.phase != "TURN":
            continue
        spec = game.to_spec(state)
        power_off += variant == "flex" and not all(spec["power"])
        dark += spec.get("side") == "D"
        again = game.state_from_spec(spec)
        assert game.to_spec(again) == spec
        assert game.legal_actions(again) == game.legal_actions(state)
        for a in game.legal_actions(state)[:-1]:  # each card play: the same card (Flip: same back) leaves the hand
            x, y = state.clone(), game.state_from_spec(spec)
            game.step(x, a)
            game.step(y, a)  # (what others then draw may differ: a spec does not carry the generators' positions)
            assert game.to_spec(x)["discard"][-1] == game.to_spec(y)["discard"][-1]
            assert game.to_spec(x)["hands"][spec["current"]] == game.to_spec(y)["hands"][spec["current"]]
        if variant == "flip":  # the same physical cards, so the next flip turns up the same faces
            assert again.deck_cards == state.deck_cards
        checked += 1
    assert checked >= 10
    assert variant != "flex" or power_off >= 3  # the round trips include red power cards
    assert variant != "flip" or dark >= 3       # and dark-side states


def test_unplaced_cards_fill_counts_then_go_under_the_draw_pile():
    game = Game("classic", num_players=3)
    state = game.state_from_spec({"discard": ["R7"], "draw_pile": ["G1", "Y2"], "hands": [["R3"], 4, 5]})
    spec = game.to_spec(state)
    assert spec["draw_pile"][:2] == ["G1", "Y2"]
    assert [len(h) for h in spec["hands"]] == [1, 4, 5]
    assert len(spec["draw_pile"]) == 108 - 1 - 10
    assert spec["current"] == 0 and spec["phase"] == "TURN" and spec["colour"] == "R"


def test_unplaced_cards_can_go_under_the_discard():
    game = Game("classic", num_players=2)
    state = game.state_from_spec({"discard": ["R7"], "draw_pile": ["G1"], "hands": [["R3"], 2],
                                  "unplaced": "discard"})
    spec = game.to_spec(state)
    assert spec["draw_pile"] == ["G1"] and spec["discard"][-1] == "R7" and len(spec["discard"]) == 108 - 4


def test_spec_seed_orders_unplaced_cards():
    game = Game("classic", num_players=2)
    a = game.to_spec(game.state_from_spec({"discard": ["R7"], "seed": 1}))
    b = game.to_spec(game.state_from_spec({"discard": ["R7"], "seed": 1}))
    c = game.to_spec(game.state_from_spec({"discard": ["R7"], "seed": 2}))
    assert a == b and a != c
    assert [len(h) for h in a["hands"]] == [7, 7]  # default hand size


def test_load_scenario_builds_the_game_from_the_spec():
    game, state = load_scenario({"variant": "xiangqi", "players": 3, "options": {"jump_in": "on"},
                                 "discard": ["R-兵"], "hands": [["G-卒", "B-GEN"], 3, 3]})
    assert game.rules.variant == "xiangqi" and game.num_players == 3 and game.rules["jump_in"] == "on"
    assert game.legal_action_strings(state) == ["play G-卒", "draw"]


def test_start_true_turns_the_starter_from_the_draw_pile():
    game = Game("classic", num_players=4)
    state = game.state_from_spec({"dealer": 1, "start": True, "draw_pile": ["G4"], "hands": [7, 7, 7, 7]})
    spec = game.to_spec(state)
    assert spec["discard"] == ["G4"] and spec["colour"] == "G" and state.current_seat == 2


def test_flip_spec_pairs_named_cards_and_reads_the_side():
    game = Game("flip", num_players=2)
    state = game.state_from_spec({"side": "D", "discard": ["D:Pk5|A:R7"], "colour": "Pk",
                                  "hands": [["A:G3|D:Tl5", "MEG"], ["WDC"]], "draw_pile": ["OPT|D:Or1"]})
    spec = game.to_spec(state)
    assert spec["side"] == "D" and spec["colour"] == "Pk"
    assert spec["discard"][-1] == "A:R7|D:Pk5" and spec["draw_pile"][0] == "OPT|D:Or1"
    assert "A:G3|D:Tl5" in spec["hands"][0] and spec["hands"][0][1].endswith("|MEG")
    assert game.legal_action_strings(state) == ["play D:Tl5", "play MEG", "draw"]

