"""The browser page's status line (train/app/serve/view.py): it names the seat that decides now, which is not always
the seat whose turn it is, and names an opponent as deciding only when that shows nothing about its cards."""
from __future__ import annotations

from uno_env import Game

from train.app.serve.view import table_view

NAMES = ["P0 you", "P1 heuristic", "P2 heuristic"]


def views(game: Game, state) -> dict:
    """Each seat's view, and the replay's (``None``: every hand)."""
    return {seat: table_view(game, state, seat, NAMES) for seat in (0, 1, 2, None)}


def challenge_state():
    """P0 played a Wild Draw Four and named red: in P0's turn, P1 decides whether to challenge."""
    game = Game("classic", num_players=3)
    state = game.state_from_spec({"discard": ["G5"], "hands": [["W4", "R2"], 6, 6]})
    game.step(state, "play W4")
    game.step(state, "colour R")
    assert state.phase == "CHALLENGE_OR_ACCEPT" and state.current_seat == 1 and state.turn_seat == 0
    return game, state


def test_the_victim_of_a_wild_draw_four_is_told_it_decides_in_another_seats_turn():
    game, state = challenge_state()
    seen = views(game, state)
    assert seen[1]["deciding"] == 1 and seen[1]["turn"] == 0
    assert seen[1]["status"] == "your decision (P0's turn)"


def test_every_seat_is_told_who_decides_on_a_challengeable_penalty():
    """Everyone knows the victim of a challengeable wild is asked: it is named to every seat and in replays."""
    game, state = challenge_state()
    seen = views(game, state)
    assert [seen[q]["deciding"] for q in (0, 2, None)] == [1, 1, 1]
    assert seen[0]["status"] == "P1 may challenge the wild or accept the penalty (your turn)"
    assert seen[2]["status"] == seen[None]["status"] == "P1 may challenge the wild or accept the penalty (P0's turn)"


def test_the_colour_choice_names_the_seat_that_played_the_wild():
    game = Game("classic", num_players=3)
    state = game.state_from_spec({"discard": ["G5"], "hands": [["W4", "R2"], 6, 6]})
    game.step(state, "play W4")
    seen = views(game, state)
    assert [seen[q]["deciding"] for q in (0, 1, 2, None)] == [0, 0, 0, 0]
    assert seen[0]["status"] == "your turn" and seen[1]["status"] == "P0 chooses a colour"


def test_a_jump_in_window_is_named_only_to_the_seat_offered_it():
    """A jump-in is offered only to a holder of the identical card: the others are told only whose turn it is."""
    game = Game("classic", num_players=3, options={"jump_in": "on"})
    state = game.state_from_spec({"discard": ["R3"], "hands": [["R5", "G2"], ["B1", "B2"], ["R5", "Y7"]]})
    game.step(state, "play R5")
    assert state.phase == "JUMP_IN" and state.current_seat == 2 and state.turn_seat == 0
    seen = views(game, state)
    assert seen[2]["deciding"] == 2 and seen[2]["status"] == "your decision (P0's turn)"
    assert seen[None]["deciding"] == 2 and seen[None]["status"] == "P2 may jump in (P0's turn)"
    assert seen[0]["deciding"] is None and seen[0]["status"] == "your turn"
    assert seen[1]["deciding"] is None and seen[1]["status"] == "P0's turn"


def test_a_penalty_that_can_only_be_stacked_does_not_name_its_target_to_the_others():
    """Without a challenge, the target of a Draw Two is asked only when it holds a card to stack."""
    game = Game("classic", num_players=3, options={"stacking": "draw_two_only"})
    state = game.state_from_spec({"discard": ["R3"], "hands": [["R+2", "G2"], ["G+2", "B2"], ["Y7", "Y8"]]})
    game.step(state, "play R+2")
    assert state.phase == "STACK_RESPONSE" and state.current_seat == 1
    seen = views(game, state)
    assert seen[1]["deciding"] == 1 and seen[1]["status"] == "your decision (P0's turn)"
    assert seen[2]["deciding"] is None and seen[2]["status"] == "P0's turn"
    assert seen[None]["deciding"] == 1


def test_a_finished_game_names_no_seat():
    game = Game("classic", num_players=3)
    state = game.state_from_spec({"discard": ["G5"], "hands": [["G7"], 6, 6]})
    game.step(state, "play G7")
    assert state.is_over
    seen = views(game, state)
    assert all(v["deciding"] is None and v["turn"] is None and v["status"] == "game over" for v in seen.values())
