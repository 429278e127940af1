"""Bad input fails with a clear error naming what was wrong and what is allowed, and changes nothing."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from uno_env import (ActionParseError, CardNotationError, Game, IllegalActionError, RuleError, RuleSet,
                     SpecError)


# ----------------------------------------------------------------------------- rule sets

@pytest.mark.parametrize("kwargs, words", [
    ({"stackin": "any"}, ["stackin", "did you mean 'stacking'", "allowed options"]),
    ({"stacking": "all"}, ["stacking", "'all'", "off, draw_two_only, same_value, any"]),
    ({"uno_call": "sometimes"}, ["uno_call", "always, decide, explicit, off"]),
    ({"jump_in": "yes"}, ["jump_in", "off, on"]),
    ({"target_score": 0}, ["target_score", "out of range"]),
    ({"target_score": "500"}, ["target_score", "must be an int"]),
    ({"restricted_wild_bluffing": "no"}, ["restricted_wild_bluffing", "bool"]),
    ({"two_player_wild_miss_draw": 3}, ["two_player_wild_miss_draw", "1, 2"]),
    ({"flip.pairing": "fixed"}, ["flip.pairing", "does not apply to variant 'classic'", "flip"]),
    ({"flex": {"deck_manifest": "x.yaml"}}, ["flex.deck_manifest", "does not apply"]),
])
def test_bad_rule_options_name_key_and_allowed_values(kwargs, words):
    with pytest.raises(RuleError) as err:
        Game("classic", num_players=3, **kwargs)
    for w in words:
        assert w in str(err.value)


@pytest.mark.parametrize("variant, players", [("classic", 1), ("classic", 11), ("alphabet", 0), ("xiangqi", 12)])
def test_player_count_outside_range(variant, players):
    with pytest.raises(RuleError, match=r"outside .* range 2\.\.10"):
        Game(variant, num_players=players)


def test_unknown_variant_lists_presets():
    with pytest.raises(RuleError, match="available presets: classic, alphabet, xiangqi"):
        Game("uno-deluxe")


def test_bool_option_spelled_as_on_off_is_normalised():
    assert Game("classic", jump_in=True).rules["jump_in"] == "on"
    assert Game("classic", multi_play=False).rules["multi_play"] == "off"


def test_rule_set_is_frozen_and_round_trips():
    rules = RuleSet.create("alphabet", 5, stacking="any", uno_call="explicit")
    with pytest.raises(TypeError):
        rules.options["stacking"] = "off"
    with pytest.raises(AttributeError):
        rules.num_players = 3
    again = RuleSet.from_dict(rules.to_dict())
    assert again == rules and hash(again) == hash(rules)
    assert rules.changed_options() == {"stacking": "any", "uno_call": "explicit"}
    assert pickle.loads(pickle.dumps(rules)) == rules


def test_rule_config_unknown_top_level_key():
    with pytest.raises(RuleError, match="unknown rule config key"):
        RuleSet.from_dict({"variant": "classic", "option": {}})


# ----------------------------------------------------------------------------- scenario specs

BASE = {"players": 3, "discard": ["R7"], "hands": [["R3", "B9"], 5, 5]}


@pytest.mark.parametrize("change, error, words", [
    ({"discard": ["R7", "X9"]}, CardNotationError, ["discard[1]", "'X9'", "not a card of the classic deck"]),
    ({"hands": [["R0", "R0"], 5, 5]}, SpecError, ["hands[0][1]", "'R0'", "1 copy"]),
    ({"draw_pile": ["W4"] * 5}, SpecError, ["draw_pile[4]", "'W4'", "4 copies"]),
    ({"hands": [["R3"], 5]}, SpecError, ["hands must be a list of 3 entries"]),
    ({"hands": [[], 5, 5]}, SpecError, ["hands[0] is empty"]),
    ({"hands": [200, 5, 5]}, SpecError, ["hands[0] asks for 200 cards"]),
    ({"hands": [["R3"], "5", 5]}, SpecError, ["hands[1]"]),
    ({"discard": ["W"]}, SpecError, ["colour is required", "'W'"]),
    ({"colour": "B"}, SpecError, ["colour = 'B' contradicts", "'R7'"]),
    ({"discard": ["W"], "colour": "P"}, CardNotationError, ["'P'", "R, Y, G, B"]),
    ({"discard": []}, SpecError, ["discard must name at least the top card"]),
    ({"current": 3}, SpecError, ["current = 3", "0..2"]),
    ({"direction": 2}, SpecError, ["direction = 2", "1, -1"]),
    ({"unplaced": "hands"}, SpecError, ["unplaced", "draw_pile, discard"]),
    ({"power": [True, True, True]}, SpecError, ["'power'", "flex"]),
    ({"launcher": [1]}, SpecError, ["'launcher'", "attack"]),
    ({"hand": [1, 2, 3]}, SpecError, ["unknown spec key 'hand'"]),
    ({"variant": "alphabet"}, SpecError, ["'alphabet'", "Game.from_spec"]),
    ({"players": 4}, SpecError, ["players = 4", "Game.from_spec"]),
    ({"options": {"stacking": "any"}}, SpecError, ["stacking", "Game.from_spec"]),
    ({"options": {"stacking": "lots"}}, RuleError, ["stacking", "'lots'"]),
    ({"phase": "UNO_CALL"}, SpecError, ["phase = 'UNO_CALL'"]),
    ({"scores": [1, 2]}, SpecError, ["scores"]),
    ({"start": "yes"}, SpecError, ["start = 'yes'"]),
    ({"seed": 1.5}, SpecError, ["seed"]),
])
def test_bad_specs_name_the_card_or_key(change, error, words):
    game = Game("classic", num_players=3)
    with pytest.raises(error) as err:
        game.state_from_spec({**BASE, **change})
    for w in words:
        assert w in str(err.value), (w, str(err.value))


FLIP_BASE = {"discard": ["A:R7"], "hands": [["A:R3"], 3]}


@pytest.mark.parametrize("change, words", [
    ({"side": "C"}, ["side = 'C'", "A (AUTOBOTS) or D"]),
    ({"hands": [["D:Pk3"], 3]}, ["'D:Pk3' is a face of side D", "side is A", "A-face|D-face"]),
    ({"hands": [["A:R3|A:G3"], 3]}, ["'A:R3|A:G3'", "one A face with one D face"]),
    ({"hands": [["A:R3|D:Pk1|D:Pk2"], 3]}, ["A-face|D-face"]),
    ({"hands": [["A:R3|WDC", "A:R4|WDC", "A:R5|WDC", "A:R6|WDC", "A:R8|WDC"], 3]},
     ["'A:R8|WDC'", "back face 'WDC'", "more times"]),
    ({"side": "D", "discard": ["D:Pk7"], "colour": "R", "hands": [["D:Tl3"], 3]},
     ["colour = 'R'", "not a colour of side D", "Pk, Tl, Or, Pu"]),
])
def test_bad_flip_specs_name_the_card_or_key(change, words):
    game = Game("flip", num_players=2)
    with pytest.raises(SpecError) as err:
        game.state_from_spec({**FLIP_BASE, **change})
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_flip_colour_actions_take_the_active_sides_names():
    game = Game("flip", num_players=2)
    s = game.state_from_spec({"discard": ["A:R7"], "hands": [["W+2", "A:G1"], 3]})
    game.step(s, "play W+2")
    with pytest.raises(ActionParseError, match="'Pk' is not a colour of the active side; allowed: R, Y, G, B"):
        game.step(s, "colour Pk")
    assert s.phase == "CHOOSE_COLOUR"  # nothing lost
    assert game.legal_action_strings(s) == ["colour R", "colour Y", "colour G", "colour B"]
    dark = game.state_from_spec({"side": "D", "discard": ["D:Pk7"], "hands": [["WDC", "D:Tl1"], 3]})
    game.step(dark, "play WDC")
    assert game.legal_action_strings(dark) == ["colour Pk", "colour Tl", "colour Or", "colour Pu"]


def test_spec_variant_notation_is_checked_per_deck():
    with pytest.raises(CardNotationError, match="not a card of the xiangqi deck"):
        Game("xiangqi", num_players=2).state_from_spec({"discard": ["R7"], "hands": [1, 1]})
    with pytest.raises(SpecError, match="1 copy"):  # one General per colour
        Game("xiangqi", num_players=2).state_from_spec({"discard": ["R-GEN"], "hands": [["R-帥"], 1]})


# ----------------------------------------------------------------------------- actions

def test_illegal_action_lists_legal_ones_and_changes_nothing():
    game = Game("classic", num_players=3)
    state = game.state_from_spec({**BASE, "draw_pile": ["G1"]})
    before = game.to_spec(state)
    rng_before = state.rng.bit_generator.state
    for bad in (game.action_from_string("play B9"), game.action_from_string("colour R"),
                game.action_from_string("pass"), game.num_actions + 5, -1):
        with pytest.raises(IllegalActionError) as err:
            game.step(state, bad)
        assert "legal actions:" in str(err.value) and "play R3" in str(err.value) and "draw" in str(err.value)
    for not_an_id in (3.0, True, None, [3]):  # 3 = play R3 is legal, 3.0 and True are not ids
        with pytest.raises(IllegalActionError, match="must be an int"):
            game.step(state, not_an_id)
    assert game.to_spec(state) == before
    assert state.rng.bit_generator.state == rng_before
    assert state.steps == 0
    game.step(state, "play R3")  # still playable afterwards
    assert game.hand_cards(state, 0) == ["B9"]


def test_action_after_game_over_is_rejected():
    game = Game("classic", num_players=2)
    state = game.state_from_spec({"discard": ["R7"], "hands": [["R3"], 3]})
    game.step(state, "play R3")
    assert state.is_over and state.winner == 0
    with pytest.raises(IllegalActionError, match="game is over"):
        game.step(state, "draw")


@pytest.mark.parametrize("text", ["play", "play Q9", "dance", "colour P", "play R3 flex", "target P1", ""])
def test_unreadable_action_strings(text):
    game = Game("classic", num_players=3)
    with pytest.raises(ActionParseError) as err:
        game.action_from_string(text)
    assert repr(text) in str(err.value) or "empty" in str(err.value)


def test_step_raises_an_illegal_action_error_for_an_unreadable_action_too():
    """DESIGN: ``step`` raises IllegalActionError on a bad action; one that names nothing is one of them."""
    game = Game("classic", num_players=3)
    state = game.state_from_spec(BASE)
    before = game.to_spec(state)
    for bad in ("play XX", "colour Q", game.num_actions):
        with pytest.raises(IllegalActionError):
            game.step(state, bad)
    assert game.to_spec(state) == before


def test_action_ids_outside_space_name_the_range():
    game = Game("classic", num_players=3)
    with pytest.raises(ActionParseError, match=r"outside the action space 0\.\.%d" % (game.num_actions - 1)):
        game.action_to_string(game.num_actions)


def test_numpy_integer_actions_are_accepted():
    game = Game("classic", num_players=3)
    state = game.state_from_spec(BASE)
    game.step(state, np.int64(game.action_from_string("play R3")))
    assert game.hand_cards(state, 0) == ["B9"]


def test_rule_configs_in_configs_dir_load():
    import glob

    files = sorted(glob.glob("configs/rules/*.yaml"))
    assert len(files) >= 5
    for path in files:
        rules = RuleSet.from_yaml(path)
        Game(rules).new_state(0)


def test_generated_docs_are_current():
    import runpy

    generated = runpy.run_path("docs/generate.py")["generated"]()
    for name, text in generated.items():
        with open(f"docs/{name}", encoding="utf-8") as fh:
            assert fh.read() == text, f"docs/{name} is stale: run python docs/generate.py"


def test_flip_deck_manifest_is_data(tmp_path):
    """The per-side layout is a proposal (AMB-B1): a replacement manifest changes it without code."""
    import yaml
    from importlib import resources

    manifest = yaml.safe_load((resources.files("uno_env") / "decks" / "flip.yaml").read_text(encoding="utf-8"))
    manifest["sides"][0]["wild"][1]["points"] = 45  # W+2 worth 45
    path = tmp_path / "flip.yaml"
    path.write_text(yaml.safe_dump(manifest), encoding="utf-8")
    game = Game("flip", num_players=2, **{"flip.deck_manifest": str(path)})
    assert game.points_of[game.parse_card("W+2")] == 45 and game.deck.size == 112
    dark = manifest["sides"][1]
    wdc = dark["wild"].pop()  # no Wild Draw Colour: the sides no longer pair up
    path.write_text(yaml.safe_dump(manifest), encoding="utf-8")
    with pytest.raises(RuleError, match="side A has 112 faces but side D 108"):
        Game("flip", num_players=2, **{"flip.deck_manifest": str(path)})
    dark["wild"] += [{**wdc, "count": 2}, {**wdc, "name": "WDC2", "count": 2}]  # 112 faces, one kind more
    path.write_text(yaml.safe_dump(manifest), encoding="utf-8")
    with pytest.raises(RuleError, match="side A lists 54 kinds of face but side D 55"):
        Game("flip", num_players=2, **{"flip.deck_manifest": str(path)})
    dark["wild"] = dark["wild"][:1] + [wdc]  # MEG and WDC again
    manifest["sides"][0]["wild"][0]["effect"] = "wild"  # a plain Wild: Flip's rules give it no effect
    path.write_text(yaml.safe_dump(manifest), encoding="utf-8")
    with pytest.raises(RuleError, match="effect the flip rules do not define: OPT; allowed effects: .*optimus"):
        Game("flip", num_players=2, **{"flip.deck_manifest": str(path)})
