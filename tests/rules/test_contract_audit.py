"""Audit of the public API against its contract: the engine facade (docs/engine.md), the card
notation (docs/rules.md §0.3), action strings, scenario specs and the environments.

Tests here pin contract points the other test files do not cover, among them the ones this audit
found the code breaking (since fixed): a whole Flip card in a ``play`` string, a ``RuleSet`` built
by its constructor, action strings without a state, a spec without a discard pile, and ``env``
taking ``raw_env``'s positional arguments.
"""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

import uno_env
from uno_env import Game, IllegalActionError, Phase, RuleError, RuleSet


def _card_total(spec: dict) -> int:
    return len(spec["draw_pile"]) + len(spec["discard"]) + sum(len(h) for h in spec["hands"])


# --------------------------------------------------------------------------- docs/rules.md §0.3: notation

# (variant, top card, spec side or None, every spelling §0.3 lists for that variant, with its canonical form)
NOTATION = [
    ("classic", "B9", None, {"R5": "R5", "RS": "RS", "RR": "RR", "R+2": "R+2", "W": "W", "W4": "W4"}),
    ("alphabet", "B-Z", None, {"R-Q": "R-Q", "RS": "RS", "RR": "RR", "R+2": "R+2", "W": "W", "W4": "W4"}),
    ("xiangqi", "B-卒", None, {"R-帥": "R-帥", "G-將": "G-將", "Y-GEN": "Y-帥", "B-GEN": "B-將", "R-ADV": "R-仕",
                              "G-ELE": "G-象", "Y-CHA": "Y-俥", "B-HOR": "B-馬", "R-CAN": "R-炮", "G-SOL": "G-卒",
                              "RS": "RS", "W4": "W4"}),
    ("flex", "B5", None, {"Y4~G": "Y4~G", "R4↻": "R4↻", "G4^": "G4↻", "Y1": "Y1↻", "FS:G~B": "FS:G~B",
                          "FR:R~G": "FR:R~G", "F+2:R~B": "F+2:R~B", "RS": "RS", "RR": "RR", "R+2": "R+2",
                          "WAF": "WAF", "WT2": "WT2", "WAD": "WAD", "W4F": "W4F"}),
    ("flip", "A:B5", "A", {"A:R7": "A:R7", "A:R+1": "A:R+1", "A:RS": "A:RS", "A:RR": "A:RR",
                           "A:R-FLIP": "A:R-FLIP", "OPT": "OPT", "W+2": "W+2", "G3": "A:G3"}),
    ("flip", "D:Pu5", "D", {"D:Pk7": "D:Pk7", "D:Pk+5": "D:Pk+5", "D:PkR": "D:PkR", "D:Pk-SE": "D:Pk-SE",
                            "D:Pk-FLIP": "D:Pk-FLIP", "MEG": "MEG", "WDC": "WDC", "Tl2": "D:Tl2"}),
    ("attack", "B5", None, {"R-DA": "R-DA", "R-H1": "R-H1", "R-H2": "R-H2", "RS": "RS", "RR": "RR",
                            "W": "W", "WA": "WA"}),
]


@pytest.mark.parametrize("variant, top, side, spellings", NOTATION, ids=[f"{v[0]}-{v[2] or ''}" for v in NOTATION])
def test_every_listed_spelling_is_read_by_specs_and_play_strings(variant, top, side, spellings):
    """docs/rules.md §0.3: the notation must accept these spellings, in a spec and in ``play <card>``."""
    game = Game(variant, num_players=2)
    spec = {"discard": [top], "hands": [list(spellings), 3]}
    if side:
        spec["side"] = side
    state = game.state_from_spec(spec)
    written = game.to_spec(state)["hands"][0]
    if variant == "flip":  # to_spec writes the whole card, A-face|D-face
        written = [card.split("|")["AD".index(side)] for card in written]
    assert Counter(written) == Counter(spellings.values())
    for text, canonical in spellings.items():
        action = game.action_from_string(f"play {text}")
        assert game.action_to_string(action) == f"play {canonical}"
        assert game.action_from_string(f"play {text.lower()}") == action  # ASCII letters in any case


def test_flip_spec_reads_whole_cards_with_or_without_side_prefixes():
    """docs/rules.md §0.3: a Flip card is A-face|D-face; the A:/D: prefixes are optional when parsing."""
    game = Game("flip", num_players=2)
    state = game.state_from_spec({"discard": ["A:B5"], "hands": [["R7|Pk3", "Tl2|G1", "OPT|D:Or4"], 3]})
    assert sorted(game.to_spec(state)["hands"][0]) == ["A:G1|D:Tl2", "A:R7|D:Pk3", "OPT|D:Or4"]


@pytest.mark.parametrize("side", ["A", "D"])
def test_flip_play_string_accepts_a_whole_card_as_to_spec_writes_it(side):
    """docs/rules.md §0.3 'Flip: a card is A-face|D-face' and the facade's ``play <card>``: the card
    text that ``to_spec`` writes for a held card names that card in a play action too (the active face
    is the one played)."""
    game = Game("flip", num_players=2)
    top, card = ("A:R5", "A:R7|D:Pk3") if side == "A" else ("D:Pk5", "A:G1|D:Pk3")
    state = game.state_from_spec({"side": side, "discard": [top], "hands": [[card, "W+2|WDC"], 3]})
    held = next(c for c in game.to_spec(state)["hands"][0] if c != "W+2|WDC")
    assert held == card
    active = held.split("|")["AD".index(side)]
    assert game.action_from_string(f"play {held}") == game.action_from_string(f"play {active}")
    game.step(state, f"play {held}")
    assert game.to_spec(state)["discard"][-1] == held


# --------------------------------------------------------------------------- engine facade

def test_phase_names_of_the_contract_compare_equal_to_strings():
    """The facade's phases (TURN, CHOOSE_COLOUR, ...) are exposed on ``state.phase`` and compare to their names."""
    names = ["TURN", "CHOOSE_COLOUR", "CHOOSE_TARGET", "CHALLENGE_OR_ACCEPT", "PLAY_OR_KEEP_DRAWN", "UNO_CALL",
             "CATCH", "JUMP_IN", "STACK_RESPONSE", "OPTIMUS_PLACE"]
    for name in names:
        assert Phase(name) == name and str(Phase(name)) == name and name in {Phase(name)}
    game = Game("classic", num_players=3)
    state = game.new_state(seed=0)
    assert state.phase == "TURN" and game.to_spec(state)["phase"] == "TURN"


def test_every_action_word_is_legal_only_in_its_phase_and_both_step_forms_agree():
    """Action strings: challenge/accept/call/no-call/catch/pass/colour are refused in a plain TURN (clear
    IllegalActionError, state unchanged); step(state, text) == step(state, action_from_string(text))."""
    game = Game("classic", num_players=3, uno_call="explicit")
    spec = {"discard": ["G5"], "hands": [["W4", "R2", "B3"], 6, 6], "draw_pile": ["Y1"]}
    state = game.state_from_spec(spec)
    before = game.to_spec(state)
    for text in ("challenge", "accept", "call", "no-call", "catch", "pass", "colour R"):
        with pytest.raises(IllegalActionError, match="not legal"):
            game.step(state, text)
        assert game.to_spec(state) == before
    script = ["play W4", "colour B", "challenge"]  # P0 had no green card: innocent, P1 draws 6
    a, b = game.state_from_spec(spec), game.state_from_spec(spec)
    for text in script:
        game.step(a, text)
        game.step(b, game.action_from_string(text))
        assert game.to_spec(a) == game.to_spec(b)
    assert len(game.to_spec(a)["hands"][1]) == 12 and a.current_seat == 2 and a.phase == "TURN"


def test_to_spec_reports_the_deciding_seat_and_pending_during_a_challenge():
    """to_spec: ``current`` is the deciding seat (the WD4 victim), plus phase/winner/pending/scores."""
    game = Game("classic", num_players=3)
    state = game.state_from_spec({"discard": ["G5"], "hands": [["W4", "R2"], 6, 6]})
    game.step(state, "play W4")
    game.step(state, "colour R")
    spec = game.to_spec(state)
    assert {"phase", "winner", "pending", "scores"} <= set(spec)
    assert spec["current"] == state.current_seat == 1 and spec["phase"] == "CHALLENGE_OR_ACCEPT"
    assert spec["pending"] and spec["winner"] is None and spec["colour"] == "R"
    mask = game.legal_action_mask(state)
    assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
    assert sorted(game.legal_action_strings(state)) == ["accept", "challenge"]


def test_rule_set_constructor_rejects_invalid_options():
    """Engine: 'One frozen, validated RuleSet ... Invalid options (unknown key, ..., player count outside the
    variant's range ...) fail at construction with a message naming the key'."""
    with pytest.raises(RuleError, match="stackin"):
        RuleSet("classic", 3, {"stackin": "any"})
    with pytest.raises(RuleError, match="num_players"):
        RuleSet("classic", 11, {})


def test_game_of_a_rule_set_constructed_with_some_options():
    """The facade's ``Game(rule_set)``: a RuleSet naming only the options it changes plays with the defaults
    of the others (no KeyError for an option it left out)."""
    game = Game(RuleSet("classic", 3, {"stacking": "any"}))
    assert game.rules["stacking"] == "any" and game.rules["uno_call"] == "always"
    assert game.rules == Game("classic", num_players=3, stacking="any").rules


def test_action_to_string_names_absolute_targets():
    """Action strings: ``target P<seat>`` (absolute seat in strings; relative offset in the action space).
    ``action_to_string`` (the facade's one-argument form) gives back the text ``action_from_string`` read."""
    flex = Game("flex", num_players=4)
    state = flex.state_from_spec({"discard": ["R5"], "hands": [["WT2", "R1", "G2"], 5, 5, 5]})
    flex.step(state, "play WT2 flex")
    assert flex.legal_action_strings(state) == ["target P1", "target P2", "target P3"]
    for text in flex.legal_action_strings(state):
        assert flex.action_to_string(flex.action_from_string(text)) == text


def test_action_to_string_names_the_active_flip_sides_colours():
    """Action strings: ``colour <C>`` with Flip's D-side colours (docs/rules.md §0.3: Pk, Tl, Or, Pu) reads
    back through the one-argument ``action_to_string`` as the same text, not as an A-side colour."""
    flip = Game("flip", num_players=2)
    state = flip.state_from_spec({"side": "D", "discard": ["D:Pk5"], "hands": [["WDC", "D:Tl2"], 3]})
    flip.step(state, "play WDC")
    for text in flip.legal_action_strings(state):  # colour Pk, colour Tl, colour Or, colour Pu
        assert flip.action_to_string(flip.action_from_string(text)) == text


# --------------------------------------------------------------------------- scenario specs

def test_spec_defaults_for_omitted_keys():
    """Scenario spec: current 0 in a normal turn, direction +1, colour of a coloured top, dealt hand sizes,
    dealer 0, zero scores, unplaced cards under the listed draw pile (top-first)."""
    game = Game("classic", num_players=3)
    state = game.state_from_spec({"discard": ["R7", "G5"], "draw_pile": ["R9", "Y2"]})
    spec = game.to_spec(state)
    assert state.current_seat == 0 and state.phase == "TURN" and state.direction == 1
    assert spec["colour"] == "G" and spec["dealer"] == 0 and spec["scores"] == [0, 0, 0]
    assert [len(h) for h in spec["hands"]] == [7, 7, 7] and spec["draw_pile"][:2] == ["R9", "Y2"]
    assert _card_total(spec) == 108


def test_spec_without_a_discard_pile_takes_a_default():
    """Scenario spec: 'omitted keys take sensible defaults' — a spec that does not name the discard pile
    still builds a state (its top card comes from the cards the spec does not place)."""
    game = Game("classic", num_players=3)
    state = game.state_from_spec({"hands": [["R1", "G2"], 5, 5]})
    spec = game.to_spec(state)
    assert spec["discard"] and sorted(spec["hands"][0]) == ["G2", "R1"] and _card_total(spec) == 108
    assert state.phase == "TURN" and state.current_seat == 0
    assert game.to_spec(game.state_from_spec({}))["discard"]


@pytest.mark.parametrize("variant", ["classic", "alphabet", "xiangqi", "flex", "flip", "attack"])
def test_the_default_top_card_is_a_number_card_of_the_seeded_order(variant):
    """Without a discard pile the top card is the first plain number card of the unplaced cards (seeded), so
    its colour is the current colour and nothing waits on it; the same seed gives the same card."""
    game = Game(variant, num_players=3)
    tops = set()
    for seed in range(6):
        state = game.state_from_spec({"seed": seed})
        spec = game.to_spec(state)
        top = game.deck.parse(spec["discard"][-1].split("|")[state.side] if "|" in spec["discard"][-1]
                              else spec["discard"][-1])
        assert len(spec["discard"]) == 1 and game.effect_of[top] == 0 and not game.is_wild[top]
        assert spec["colour"] == game.colour_name(state) and state.phase == "TURN"
        assert game.to_spec(game.state_from_spec({"seed": seed})) == spec
        tops.add(spec["discard"][-1])
    assert len(tops) > 1  # the seed chooses it


def test_spec_errors_for_missing_cards_and_copies():
    """Cards a spec names must exist in the variant's deck (no third copy of a card that has two), and a
    wild on top needs its colour: SpecError naming the card."""
    from uno_env import SpecError

    game = Game("attack", num_players=2)
    with pytest.raises(SpecError, match="'R0'"):
        game.state_from_spec({"discard": ["R5"], "hands": [["R0"], 3]})
    with pytest.raises(SpecError, match="R-H2.*2 copies"):
        game.state_from_spec({"discard": ["R5"], "hands": [["R-H2", "R-H2", "R-H2"], 3]})
    with pytest.raises(SpecError, match="colour is required.*WA"):
        game.state_from_spec({"discard": ["WA"], "hands": [["R1"], 3]})


def test_attack_launcher_key_scripts_the_presses_with_any_launcher_model():
    """Scenario spec ``launcher``: scripted burst sizes consumed per press (here with the default model)."""
    game = Game("attack", num_players=3)
    spec = {"discard": ["R5"], "hands": [["G3"], 3, 3], "draw_pile": ["R8", "Y2", "B3"], "launcher": [2, 0]}
    state = game.state_from_spec(spec)
    game.step(state, "press")
    assert sorted(game.to_spec(state)["hands"][0]) == ["G3", "R8", "Y2"] and state.current_seat == 1
    assert game.to_spec(state)["launcher"] == [0]


# --------------------------------------------------------------------------- determinism

def test_no_global_random_state_is_used_or_consumed():
    """Randomness is explicit: the global ``random``/``np.random`` are neither read nor advanced."""
    def play(variant):
        game = Game(variant, num_players=3)
        state = game.new_state(seed=5)
        rng = np.random.default_rng(5)
        out = []
        while not state.is_over and state.steps < 300:
            legal = game.legal_actions(state)
            game.step(state, legal[int(rng.integers(len(legal)))])
            out.append(state.current_seat)
        return out, game.to_spec(state)

    for variant in ("classic", "flip", "attack"):
        np.random.seed(1)
        random.seed(1)
        np_before, py_before = np.random.get_state()[1].copy(), random.getstate()
        first = play(variant)
        assert (np.random.get_state()[1] == np_before).all() and random.getstate() == py_before
        np.random.seed(2)
        random.seed(2)
        assert play(variant) == first


# --------------------------------------------------------------------------- environments

def test_env_and_raw_env_take_the_same_arguments():
    """Environments: ``uno_env.env(...)`` and ``uno_env.raw_env(...)`` build the same game from the same
    arguments (raw_env reads variant and player count positionally)."""
    raw = uno_env.raw_env("classic", 3)
    wrapped = uno_env.env("classic", 3)
    assert wrapped.unwrapped.game.rules == raw.game.rules


def test_aec_truncates_at_the_step_cap_with_spaces_built_once():
    """AEC: truncation at the step cap (no reward), spaces are the same objects each call, the observation
    is a float32 vector plus an int8 mask, and agent_selection is the engine's deciding seat."""
    env = uno_env.env(variant="classic", num_players=3, max_steps=12)
    env.reset(seed=3)
    assert env.observation_space("player_0") is env.observation_space("player_0")
    assert env.action_space("player_2") is env.action_space("player_2")
    rng = np.random.default_rng(0)
    done = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            done[agent] = (reward, term, trunc)
            env.step(None)
            continue
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        assert agent == f"player_{env.unwrapped.state.current_seat}"
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.unwrapped.state.truncated
    assert done == {a: (0.0, False, True) for a in env.possible_agents}
