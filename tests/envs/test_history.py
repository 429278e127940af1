"""The public-history observation block (layout version 2): what it records, and that it is public."""
from __future__ import annotations

import json

import numpy as np
import pytest

import agents
import uno_env
from agents.policy_file import PolicyAgent, PolicyFile
from uno_env.observation import HISTORY_PER_SEAT, OBSERVATION_LAYOUT_VERSION, ObservationEncoder

RED, YELLOW, GREEN, BLUE = range(4)


def history(enc: ObservationEncoder, s, observer: int, offset: int) -> dict:
    """The history entries ``observer`` sees for the seat ``offset`` places clockwise."""
    block = enc.encode(s, observer)[enc.offsets["history"]]
    row = block[HISTORY_PER_SEAT * offset:HISTORY_PER_SEAT * (offset + 1)]
    last = np.flatnonzero(row[4:9])
    return {"voids": [c for c in range(4) if row[c]], "last": int(last[0]) if len(last) else None,
            "one_card": bool(row[9]), "two_cards": bool(row[10])}


def test_a_draw_marks_a_void_and_playing_the_colour_clears_it():
    game = uno_env.Game("classic", num_players=3)
    enc = ObservationEncoder(game)
    s = game.state_from_spec({"discard": ["R7"], "hands": [["R3", "B9", "G3"], ["Y1", "Y2", "G8"], ["B1", "B2", "Y3"]],
                              "draw_pile": ["G1", "Y9", "R2"]})  # first = top
    assert history(enc, s, 0, 1) == {"voids": [], "last": None, "one_card": False, "two_cards": False}
    game.step(s, "play R3")                  # P0: red
    assert history(enc, s, 1, 2)["last"] == RED  # P1 sees P0 two seats on (3 seats: offset 2)
    game.step(s, "draw")                     # P1 has no red: draws G1, not playable
    assert history(enc, s, 0, 1)["voids"] == [RED]
    assert history(enc, s, 2, 2)["voids"] == [RED]  # every seat sees it
    game.step(s, "draw")                     # P2 draws Y9 on red
    assert history(enc, s, 1, 2)["two_cards"]
    game.step(s, "play G3")                  # P0 changes to green, one card left
    assert history(enc, s, 1, 2) == {"voids": [], "last": GREEN, "one_card": True, "two_cards": False}
    game.step(s, "play G8")                  # P1 plays green: its red void stays, green is its last colour
    h = history(enc, s, 0, 1)
    assert h["voids"] == [RED] and h["last"] == GREEN


def test_a_wild_is_its_own_last_colour_and_playing_a_void_colour_clears_it():
    game = uno_env.Game("classic", num_players=2)
    enc = ObservationEncoder(game)
    s = game.state_from_spec({"discard": ["B7"], "hands": [["B3", "R5", "Y1"], ["R1", "W", "G4"]],
                              "draw_pile": ["B1", "G9", "Y2"]})
    game.step(s, "draw")   # P0 draws B1 on blue: playable, so it is offered
    game.step(s, "pass")   # keeping a playable card is not evidence of a void, the draw before was
    assert history(enc, s, 1, 1)["voids"] == [BLUE]
    game.step(s, "play W")
    game.step(s, "colour B")
    assert history(enc, s, 0, 1)["last"] == 4  # a wild
    game.step(s, "play B3")
    assert history(enc, s, 1, 1)["voids"] == [] and history(enc, s, 1, 1)["last"] == BLUE


def test_same_public_actions_with_different_hidden_cards_give_the_same_observations():
    game = uno_env.Game("classic", num_players=3)
    enc = ObservationEncoder(game)
    base = {"discard": ["R7"], "hands": [["R3", "B9", "G2"], ["Y1", "Y2", "G8"], ["B1", "B2", "Y3"]],
            "draw_pile": ["Y4", "B5", "R9"]}
    # only cards P0 cannot see differ: P1's and P2's hands and the draw pile (drawn cards stay unplayable)
    other = {**base, "hands": [["R3", "B9", "G2"], ["Y5", "B4", "G8"], ["Y6", "B2", "G3"]],
             "draw_pile": ["B6", "Y8", "R9"]}
    a, b = game.state_from_spec(base), game.state_from_spec(other)
    # P0 plays red; P1 and P2 draw unplayable cards; P0 draws R9 (the same card in both) and plays it
    for action in ["play R3", "draw", "draw", "draw", "play R9"]:
        assert np.array_equal(enc.encode(a, 0), enc.encode(b, 0))
        game.step(a, action)
        game.step(b, action)
    assert np.array_equal(enc.encode(a, 0), enc.encode(b, 0))
    assert history(enc, a, 0, 1)["voids"] == [RED] and history(enc, a, 0, 2)["voids"] == [RED]
    assert history(enc, a, 0, 0) == {"voids": [], "last": RED, "one_card": False, "two_cards": True}


@pytest.mark.parametrize("variant", ["classic", "alphabet", "xiangqi", "flex", "attack"])
def test_resampling_every_card_hidden_from_the_observer_leaves_its_observation_unchanged(variant):
    game = uno_env.Game(variant, num_players=3, backend="python")  # edits a state's hands directly
    enc = ObservationEncoder(game)
    rng = np.random.default_rng(7)
    s = game.new_state(seed=3)
    checked = 0
    while not s.is_over and checked < 40:
        observer = int(rng.integers(3))
        twin = game.clone(s)
        # pool the cards the observer cannot see, deal them back at random keeping every count public
        others = [q for q in range(3) if q != observer]
        pool = [k for q in others for k, n in enumerate(twin.hands[q]) for _ in range(n)] + twin.draw_pile
        rng.shuffle(pool)
        for q in others:
            size = twin.hand_size[q]
            twin.hands[q] = list(np.bincount(pool[:size], minlength=game.num_kinds))
            pool = pool[size:]
        twin.draw_pile = pool
        assert np.array_equal(enc.encode(s, observer), enc.encode(twin, observer))
        checked += 1
        legal = game.legal_actions(s)
        game.step(s, legal[int(rng.integers(len(legal)))])
    assert checked >= 10


def test_history_restarts_with_a_new_deal():
    game = uno_env.Game("classic", num_players=2, match=True)
    enc = ObservationEncoder(game)
    s = game.state_from_spec({"discard": ["G7"], "hands": [["G3"], ["R1", "Y2"]], "draw_pile": ["B1", "R5", "Y6"]})
    game.step(s, "play G3")  # P0 goes out: the round ends, the next one is dealt
    assert s.round_index == 1
    block = enc.encode(s, 0)[enc.offsets["history"]].reshape(-1, HISTORY_PER_SEAT)
    assert not block[:, :9].any()  # no seat's voids or last plays carried over (card counts may be set)


def test_a_layout_1_policy_reads_the_prefix_of_todays_observation(tmp_path):
    game = uno_env.Game("classic", num_players=2)
    enc = ObservationEncoder(game)
    assert OBSERVATION_LAYOUT_VERSION == 2 and enc.size_of(1) == enc.offsets["history"].start
    rng = np.random.default_rng(0)
    sizes = [enc.size_of(1), 16, game.num_actions]
    weights = [rng.normal(size=(sizes[i], sizes[i + 1])).astype(np.float32) if j == 0 else
               rng.normal(size=sizes[i + 1]).astype(np.float32) for i in range(2) for j in range(2)]
    np.savez(tmp_path / "old.npz", **{f"p{i}": w for i, w in enumerate(weights)})
    meta = {"format": "uno-env-policy", "format_version": 1, "variant": "classic", "num_players": 2,
            "rule_options": {}, "observation_layout_version": 1, "observation_size": sizes[0],
            "action_layout_version": 1, "num_actions": game.num_actions, "activation": "tanh", "layers": sizes}
    (tmp_path / "old.json").write_text(json.dumps(meta))
    agent = agents.load(str(tmp_path / "old"), game)
    s = game.new_state(seed=1)
    obs = enc.encode(s, s.current_seat)
    direct = PolicyAgent(PolicyFile.read(str(tmp_path / "old"))).logits(obs[:sizes[0]])
    assert np.allclose(agent.logits(obs), direct)
    assert agent.act(obs, game.legal_action_mask(s)) in game.legal_actions(s)
    # a version nobody wrote is refused, naming what is readable
    (tmp_path / "old.json").write_text(json.dumps({**meta, "observation_layout_version": 7}))
    with pytest.raises(agents.policy_file.PolicyFileError, match="layout version 7.*reads 1, 2"):
        agents.load(str(tmp_path / "old"), game)


def test_a_card_found_and_played_inside_a_draw_counts_as_placed():
    game = uno_env.Game("classic", num_players=2, draw_rule="draw_until_playable")
    enc = ObservationEncoder(game)
    s = game.state_from_spec({"discard": ["R7"], "hands": [["G3", "B9"], ["Y1", "Y2"]],
                              "draw_pile": ["Y3", "R5", "G9"]})  # first = top
    game.step(s, "draw")  # Y3 is not playable; R5 is, and is played inside the same decision (HR-5)
    assert history(enc, s, 1, 1) == {"voids": [], "last": RED, "one_card": False, "two_cards": False}

