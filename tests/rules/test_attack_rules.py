"""Independent rule-conformance tests for UNO Attack (docs/rules.md §2.4, §4.5 AMB-C1..C16, §5.5, §6.5 T88-T106).

Every scenario gives every seat an explicit hand and, where presses matter, an explicit launcher
(``draw_pile``, top-first) and a scripted list of burst sizes (``launcher``), so that each expected
value follows from the rules text and not from the engine. Card conservation and the other
invariants of §6.7 are checked after every step (``check``).
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from uno_env import Game
from uno_env.errors import IllegalActionError, RuleError

SCRIPTED = {"attack.launcher_model": "scripted"}
COLOURS = "RYGB"


def _full_deck() -> Counter:
    """The 112-card Attack deck as docs/rules.md §2.4 tables it (independent of the engine's manifest)."""
    deck = Counter()
    for c in COLOURS:
        for v in range(1, 10):
            deck[f"{c}{v}"] = 2
        deck[f"{c}R"] = 1
        deck[f"{c}S"] = 2
        deck[f"{c}-DA"] = 2
        deck[f"{c}-H1"] = 1
        deck[f"{c}-H2"] = 2
    deck["W"] = 4
    deck["WA"] = 4
    return deck


FULL_DECK = _full_deck()
VALUES = {"R": 20, "S": 20, "-DA": 30, "-H1": 20, "-H2": 40}


def card_value(card: str) -> int:
    """Card points of §2.4 Scoring."""
    if card in ("W", "WA"):
        return 50
    rest = card[1:]
    return int(rest) if rest.isdigit() else VALUES[rest]


def colour_of(card: str) -> str | None:
    return None if card in ("W", "WA") else card[0]


# --------------------------------------------------------------------------- helpers

def game(n: int = 4, **options) -> Game:
    """An Attack game with the scripted launcher unless another model is given."""
    return Game("attack", num_players=n, **{**SCRIPTED, **options})


def check(g: Game, s) -> dict:
    """§6.7 invariants: launcher + discard + hands = 112 (every card once), colour of a coloured top, sizes."""
    sp = g.to_spec(s)
    cards = sp["draw_pile"] + sp["discard"] + [c for h in sp["hands"] for c in h]
    assert len(cards) == 112, f"card conservation broken: {len(cards)} cards"
    assert Counter(cards) == FULL_DECK, "card conservation broken (wrong multiset)"
    assert len(s.draw_pile) == len(sp["draw_pile"])
    assert list(s.hand_size) == [len(h) for h in sp["hands"]]
    assert all(h >= 0 for h in s.hand_size)
    top = sp["discard"][-1]
    if colour_of(top) is not None and sp["colour"] is not None:
        assert sp["colour"] == colour_of(top), "coloured top card but a different current colour"
    if s.is_over:
        assert s.phase == "GAME_OVER"
        assert g.legal_action_strings(s) == []
        single_round = not g.rules.options["match"] and g.rules.options["scoring_method"] != "elimination"
        if single_round and s.winner is not None and not s.truncated:
            assert s.hand_size[s.winner] == 0 and list(s.hand_size).count(0) == 1, "§6.7: exactly one empty hand"
    else:
        assert g.legal_action_strings(s), "no legal action for the deciding seat"
    return sp


def build(g: Game, **spec):
    spec.setdefault("seed", 0)
    s = g.state_from_spec(spec)
    check(g, s)
    return s


def step(g: Game, s, *actions: str):
    """Apply actions in order (checking invariants), then take hits nobody can answer."""
    for a in actions:
        g.step(s, a)
        check(g, s)
        settle(g, s)
    return s


def settle(g: Game, s) -> None:
    """A hit target whose only option is ``accept`` absorbs (docs/rules.md §2.4 Mass Hit 4)."""
    while not s.is_over and s.phase == "STACK_RESPONSE" and g.legal_action_strings(s) == ["accept"]:
        g.step(s, "accept")
        check(g, s)


def legal(g: Game, s) -> set[str]:
    return set(g.legal_action_strings(s))


def hand(g: Game, s, seat: int) -> Counter:
    return Counter(g.to_spec(s)["hands"][seat])


def launcher_left(g: Game, s) -> list:
    return list(g.to_spec(s).get("launcher") or [])


# hands that hold no hit card (fillers for seats that only need to be present)
FILL = [["R1", "Y2", "B3"], ["R4", "Y5", "B6"], ["R8", "Y8", "B8"], ["R9", "Y9", "B9"], ["G1", "G2", "B1"]]


# =========================================================================== pressing the launcher

def test_T88_press_nothing_fires():
    """T88 [§2.4]: a press may fire nothing; the turn still ends."""
    g = game(4)
    s = build(g, current=0, discard=["R7"], hands=[["G3", "B5"], FILL[0], FILL[1], FILL[2]],
              draw_pile=["R2", "Y4", "G7"], launcher=[0])
    step(g, s, "press")
    assert s.hand_size[0] == 2
    assert s.current_seat == 1 and s.phase == "TURN"
    assert g.to_spec(s)["draw_pile"][:3] == ["R2", "Y4", "G7"]


def test_T89_press_three_fire_no_play_afterwards():
    """T89 [§2.4, AMB-C15]: the fired cards join the hand and the turn ends, even when one is playable."""
    g = game(4)
    s = build(g, current=0, discard=["R7"], hands=[["G3", "B5"], FILL[0], FILL[1], FILL[2]],
              draw_pile=["R2", "Y4", "G7"], launcher=[3])
    step(g, s, "press")
    assert s.hand_size[0] == 5
    assert hand(g, s, 0) == Counter(["G3", "B5", "R2", "Y4", "G7"])
    assert s.current_seat == 1 and s.phase == "TURN"


@pytest.mark.parametrize("k", [0, 1, 2])
def test_T90_voluntary_press_with_playable_cards(k):
    """T90 [§2.4 "放棄", AMB-C15]: press is legal beside legal plays and always ends the turn, whatever K."""
    g = game(4)
    s = build(g, current=0, discard=["R7"], hands=[["R3", "G5"], FILL[0], FILL[1], FILL[2]],
              draw_pile=["R2", "R4", "G7"], launcher=[k])
    assert {"play R3", "press"} <= legal(g, s)
    step(g, s, "press")
    assert s.hand_size[0] == 2 + k
    assert s.current_seat == 1 and s.phase == "TURN"


def test_press_always_legal_even_holding_wilds():
    """CORE-5/T1 [§5.5]: PRESS is always available in a turn; 'draw' names the same action."""
    g = game(3)
    s = build(g, current=0, discard=["Y7"], hands=[["W", "WA", "Y3", "Y-DA"], FILL[0], FILL[1]],
              draw_pile=["B2"], launcher=[1])
    assert "press" in legal(g, s)
    assert g.action_from_string("draw", s) == g.action_from_string("press", s)
    step(g, s, "draw")
    assert hand(g, s, 0)["B2"] == 1 and s.current_seat == 1


def test_press_no_legal_play_only_press():
    """CORE-6 [§2.4]: with no matching card the only option is to press."""
    g = game(3)
    s = build(g, current=0, discard=["Y7"], hands=[["R3", "G5", "B-H2"], FILL[0], FILL[1]], launcher=[0])
    assert g.legal_action_strings(s) == ["press"]


def test_scripted_burst_capped_by_cards_left():
    """AMB-C1: K <= cards remaining in the launcher."""
    g = game(3)
    s = build(g, current=0, discard=["R7"], hands=[["G3", "B5"], FILL[0], FILL[1]],
              draw_pile=["Y4", "G7"], unplaced="discard", launcher=[5])
    assert len(s.draw_pile) == 2
    step(g, s, "press")
    assert s.hand_size[0] == 4
    assert hand(g, s, 0) == Counter(["G3", "B5", "Y4", "G7"])


def test_scripted_launcher_used_up_nothing_fires():
    """AMB-C1 scripted model: one value per press; once the list is used up nothing fires."""
    g = game(3)
    s = build(g, current=0, discard=["R7"], hands=[["G3", "B5"], ["G4", "B6"], ["G6", "B7"]],
              draw_pile=["Y4", "Y5", "Y6"], launcher=[1])
    step(g, s, "press")
    assert s.hand_size[0] == 3
    step(g, s, "press")
    assert s.hand_size[1] == 2 and s.current_seat == 2
    step(g, s, "press")
    assert s.hand_size[2] == 2
    assert launcher_left(g, s) == []


def test_to_spec_reports_unused_scripted_bursts():
    """Scenario spec: 'launcher' in to_spec lists the bursts not yet used (one consumed per press)."""
    g = game(4)
    s = build(g, current=0, discard=["R7"], hands=[["G3", "B5"], FILL[0], FILL[1], FILL[2]],
              draw_pile=["R2", "Y4", "G7"], launcher=[2, 0, 1])
    step(g, s, "press")
    assert launcher_left(g, s) == [0, 1]
    step(g, s, "press")
    assert launcher_left(g, s) == [1]
    assert s.hand_size[:2] == [4, 3]


def test_launcher_empty_at_turn_start_is_reloaded_from_discard_minus_top():
    """AMB-C2: at the start of a turn an empty launcher is loaded with every discard but the top.

    A scenario's turn is the start of that turn, so a spec with an empty launcher is reloaded as it is built.
    """
    g = game(3)
    hands = [["G5", "B5"], ["R4", "B6"], ["R8", "Y8"]]
    s = build(g, current=0, discard=["G3"], hands=hands, draw_pile=[], unplaced="discard", launcher=[2])
    sp = check(g, s)
    assert sp["discard"] == ["G3"]
    assert len(s.draw_pile) == 112 - 6 - 1  # every card but the hands and the top
    assert s.current_seat == 0 and s.phase == "TURN"
    step(g, s, "play G5")
    assert g.to_spec(s)["discard"] == ["G3", "G5"] and len(s.draw_pile) == 112 - 6 - 1
    step(g, s, "press")
    assert s.hand_size[1] == 4


def test_launcher_emptied_by_press_reloaded_for_next_turn():
    """AMB-C2: a launcher emptied by a press is reloaded when the next turn starts."""
    g = game(3)
    s = build(g, current=0, discard=["G3", "G4"], hands=[["R5", "B5"], ["R4", "B6"], ["R8", "Y8"]],
              draw_pile=["Y1"], unplaced="discard", launcher=[3])
    step(g, s, "press")
    sp = check(g, s)
    assert s.hand_size[0] == 3
    assert s.current_seat == 1
    assert sp["discard"] == ["G4"]
    assert len(s.draw_pile) == 112 - 7 - 1


def test_forfeited_presses_when_launcher_runs_out_during_hit_no_reload():
    """AMB-C2 [004]: presses left when the launcher runs out during an obligation are forfeited (no reload)."""
    g = game(4)
    s = build(g, current=0, discard=["G3", "G4", "G6"], hands=[["G-H2", "R5"], ["R4", "B6"], FILL[1], FILL[2]],
              draw_pile=["Y1"], unplaced="discard", launcher=[1, 1])
    step(g, s, "play G-H2")
    # P1 pressed twice: the first press fired the only card, the second was forfeited
    assert hand(g, s, 1) == Counter(["R4", "B6", "Y1"])
    assert s.current_seat == 2 and s.phase == "TURN"
    # P2's turn started with an empty launcher: now reloaded (all discards but the top G-H2)
    sp = check(g, s)
    assert sp["discard"] == ["G-H2"]


def test_forfeited_presses_in_a_mass_hit_stack():
    """§2.4 Mass Hit 4: an absorber presses the total, forfeiting the presses once the launcher is empty."""
    g = game(4)
    s = build(g, current=0, discard=["G3", "G4"], hands=[["G-H1", "R5"], ["R-H2", "B6", "B7"], FILL[1], FILL[2]],
              draw_pile=["Y1", "Y2"], unplaced="discard", launcher=[1, 1, 1])
    step(g, s, "play G-H1")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 1
    step(g, s, "play R-H2")
    assert hand(g, s, 2) == Counter(FILL[1] + ["Y1", "Y2"])
    assert s.current_seat == 1  # stack of 2: after the first hitter P0


# =========================================================================== Discard All

def test_discard_all_discards_every_card_of_its_colour_beneath_it():
    """AMB-C9: all other cards of its colour go beneath it without effect; wilds stay; colour = its colour."""
    g = game(4)
    p0 = ["Y-DA", "Y-DA", "Y2", "Y-H2", "YS", "YR", "R3", "W", "WA"]
    s = build(g, current=0, discard=["G1", "Y7"], hands=[p0, ["R-H1", "B6"], FILL[1], FILL[2]], launcher=[1, 1])
    step(g, s, "play Y-DA")
    sp = check(g, s)
    assert hand(g, s, 0) == Counter(["R3", "W", "WA"])
    assert sp["discard"][-1] == "Y-DA"
    assert sp["discard"][:2] == ["G1", "Y7"]
    assert Counter(sp["discard"][2:-1]) == Counter(["Y-DA", "Y2", "Y-H2", "YS", "YR"])
    assert sp["colour"] == "Y"
    # no effect of the discarded Hit 2 / Skip / Reverse: P1 plays normally, nothing pending, direction kept
    assert s.current_seat == 1 and s.phase == "TURN"
    assert s.hand_size[1] == 2 and s.direction == 1
    assert not (sp["pending"] or {}).get("penalty")
    assert launcher_left(g, s) == [1, 1]


def test_discard_all_with_no_other_card_of_its_colour():
    """§2.4: Discard All alone; turn passes to next(p)."""
    g = game(3)
    s = build(g, current=0, discard=["B7"], hands=[["B-DA", "R3", "G4"], FILL[0], FILL[1]], direction=-1)
    step(g, s, "play B-DA")
    assert hand(g, s, 0) == Counter(["R3", "G4"])
    assert s.current_seat == 2 and g.to_spec(s)["colour"] == "B"


@pytest.mark.parametrize("uno_call", ["always", "explicit"])
def test_T93_discard_all_empties_the_hand(uno_call):
    """T93 [§2.4, CORE-20]: Discard All that empties the hand wins; no UNO call is needed."""
    g = game(4, uno_call=uno_call)
    s = build(g, current=0, discard=["Y7"], hands=[["Y-DA", "Y2"], FILL[0], FILL[1], FILL[2]])
    step(g, s, "play Y-DA")
    assert s.is_over and s.winner == 0
    assert s.hand_size[0] == 0


def test_discard_all_leaving_one_card_asks_uno_call_explicit():
    """AMB-C9 / CORE-20: a Discard All placement leaving one card is followed by CALL / NO_CALL."""
    g = game(4, uno_call="explicit")
    s = build(g, current=0, discard=["Y7"], hands=[["Y-DA", "Y2", "Y5", "R3"], FILL[0], FILL[1], FILL[2]])
    step(g, s, "play Y-DA")
    assert s.phase == "UNO_CALL" and s.current_seat == 0
    assert legal(g, s) == {"call", "no-call"}
    step(g, s, "call")
    assert hand(g, s, 0) == Counter(["R3"])
    assert s.current_seat == 1 and s.phase == "TURN"


def test_discard_all_leaving_one_card_no_call_caught_presses_twice():
    """CORE-21 [004]: not calling after a Discard All that leaves one card; caught ⇒ press twice."""
    g = game(4, uno_call="explicit")
    s = build(g, current=0, discard=["Y7"], hands=[["Y-DA", "Y2", "R3"], FILL[0], FILL[1], FILL[2]],
              draw_pile=["B1", "B2"], launcher=[1, 1])
    step(g, s, "play Y-DA", "no-call")
    assert s.phase == "CATCH" and s.current_seat == 1
    step(g, s, "catch")
    assert hand(g, s, 0) == Counter(["R3", "B1", "B2"])
    assert s.current_seat == 1 and s.phase == "TURN"


def test_discard_all_playable_on_discard_all_of_any_colour():
    """§2.4: a Discard All may be played on another Discard All of any colour."""
    g = game(4)
    s = build(g, current=0, discard=["R-DA"], hands=[["B-DA", "G5", "B2"], FILL[0], FILL[1], FILL[2]])
    assert legal(g, s) == {"play B-DA", "press"}
    step(g, s, "play B-DA")
    sp = check(g, s)
    assert sp["colour"] == "B" and sp["discard"][-1] == "B-DA" and "B2" in sp["discard"]
    assert hand(g, s, 0) == Counter(["G5"])


@pytest.mark.parametrize("top,playable", [("R7", False), ("B3", True), ("G-DA", True), ("BS", True)])
def test_discard_all_follows_normal_matching(top, playable):
    """CORE-9 / §2.4: Discard All matches by colour or by symbol (another Discard All)."""
    g = game(3)
    s = build(g, current=0, discard=[top], hands=[["B-DA", "Y5"], FILL[0], FILL[1]])
    assert ("play B-DA" in legal(g, s)) is playable


# =========================================================================== Skip, Reverse, Wild

@pytest.mark.parametrize("n,direction,current,expected", [
    (2, 1, 0, 0), (2, -1, 1, 1),
    (3, 1, 0, 2), (3, -1, 0, 1), (3, 1, 1, 0),
    (4, 1, 0, 2), (4, -1, 0, 2), (4, -1, 1, 3), (4, 1, 3, 1),
])
def test_skip(n, direction, current, expected):
    """CORE-13 / CORE-28 [004]: Skip → advance(p, 2); with two players the Skip's player plays again."""
    g = game(n)
    hands = [list(FILL[i]) for i in range(n)]
    hands[current] = ["RS", "G2", "B7"]
    s = build(g, current=current, direction=direction, discard=["R7"], hands=hands)
    step(g, s, "play RS")
    assert s.current_seat == expected and s.phase == "TURN"
    assert s.direction == direction


@pytest.mark.parametrize("n,direction,current,expected", [
    (3, 1, 0, 2), (3, -1, 0, 1), (3, 1, 2, 1),
    (4, 1, 0, 3), (4, -1, 2, 3), (4, -1, 0, 1),
])
def test_reverse_three_and_four_players(n, direction, current, expected):
    """CORE-14 [§2.4]: Reverse flips the direction and the turn passes to next(p) in the new direction."""
    g = game(n)
    hands = [list(FILL[i]) for i in range(n)]
    hands[current] = ["RR", "G2", "B7"]
    s = build(g, current=current, direction=direction, discard=["R7"], hands=hands)
    step(g, s, "play RR")
    assert s.direction == -direction
    assert s.current_seat == expected and s.phase == "TURN"


@pytest.mark.parametrize("direction,current", [(1, 0), (-1, 0), (1, 1), (-1, 1)])
def test_reverse_two_players_acts_as_skip(direction, current):
    """CORE-14 / CORE-28 [004 兩人遊戲 1]: with two players the Reverse's player plays again (may press)."""
    g = game(2)
    hands = [list(FILL[0]), list(FILL[1])]
    hands[current] = ["RR", "G2", "B7"]
    s = build(g, current=current, direction=direction, discard=["R7"], hands=hands)
    step(g, s, "play RR")
    assert s.current_seat == current and s.phase == "TURN"
    assert "press" in legal(g, s)


def test_T105_two_players_skip():
    """T105 [§2.4]: n=2, P0 plays RS → P0 again, a complete new turn."""
    g = game(2)
    s = build(g, current=0, discard=["R7"], hands=[["RS", "G2"], ["B4", "Y6"]], launcher=[1])
    step(g, s, "play RS")
    assert s.current_seat == 0 and s.phase == "TURN"
    assert "press" in legal(g, s)


def test_wild_playable_with_other_playable_cards_any_colour_declared():
    """§2.4 Wild / CORE-10: a Wild is legal beside other legal plays; any colour (current one too) may be declared."""
    g = game(4)
    s = build(g, current=0, discard=["R7"], hands=[["W", "R3", "G5"], FILL[0], FILL[1], FILL[2]])
    assert {"play W", "play R3"} <= legal(g, s)
    step(g, s, "play W")
    assert s.phase == "CHOOSE_COLOUR" and s.current_seat == 0
    assert legal(g, s) == {"colour R", "colour Y", "colour G", "colour B"}
    step(g, s, "colour R")
    assert s.current_seat == 1 and g.to_spec(s)["colour"] == "R"


# =========================================================================== Hit 1 / Hit 2

def test_T94_hit_one():
    """T94 [§2.4]: Hit 1 → the next player presses once (K=2 fires two cards) and loses the turn."""
    g = game(4)
    s = build(g, current=0, discard=["G3"], hands=[["G-H1", "Y1"], ["R5", "B6"], FILL[1], FILL[2]],
              draw_pile=["R2", "Y4", "G7"], launcher=[2])
    step(g, s, "play G-H1")
    assert s.hand_size[1] == 4
    assert hand(g, s, 1) == Counter(["R5", "B6", "R2", "Y4"])
    assert s.current_seat == 2 and s.phase == "TURN"


def test_T95_hit_two_two_players():
    """T95 [§2.4, CORE-28]: n=2, Hit 2, K=[0, 1] → opponent +1, the hitter plays again."""
    g = game(2)
    s = build(g, current=0, discard=["R3"], hands=[["R-H2", "Y1"], ["G5", "B6"]], draw_pile=["B2"], launcher=[0, 1])
    step(g, s, "play R-H2")
    assert s.hand_size[1] == 3
    assert s.current_seat == 0 and s.phase == "TURN"


@pytest.mark.parametrize("card,hits", [("G-H1", 1), ("G-H2", 2)])
@pytest.mark.parametrize("n,direction,target,nxt", [
    (2, 1, 1, 0), (2, -1, 1, 0),
    (3, 1, 1, 2), (3, -1, 2, 1),
    (4, 1, 1, 2), (4, -1, 3, 2),
])
def test_hit_cards_at_2_3_4_players(card, hits, n, direction, target, nxt):
    """§2.4 Hit 1/Hit 2, CORE-28, AMB-C13: next(p) presses 1/2 times and loses the turn; n=2 → p again."""
    g = game(n)
    hands = [list(FILL[i]) for i in range(n)]
    hands[0] = [card, "Y1", "B2"]
    s = build(g, current=0, direction=direction, discard=["G3"], hands=hands, launcher=[1] * hits + [7])
    before = s.hand_size[target]
    step(g, s, f"play {card}")
    assert s.hand_size[target] == before + hits
    assert launcher_left(g, s) == [7]  # exactly `hits` presses
    assert s.current_seat == nxt and s.phase == "TURN"
    assert g.to_spec(s)["colour"] == "G"


# =========================================================================== Mass Hit

def test_hit_response_options_any_hit_card_any_colour_only():
    """§2.4 Mass Hit 1 / §5.5 T4: the target may add any hit card of any colour or accept; nothing else."""
    g = game(4)
    p1 = ["R-H2", "B-H1", "WA", "G5", "GS", "GR", "W", "G-DA"]
    s = build(g, current=0, discard=["G3"], hands=[["G-H1", "Y1"], p1, FILL[1], FILL[2]], launcher=[1])
    step(g, s, "play G-H1")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 1
    assert legal(g, s) == {"play R-H2", "play B-H1", "play WA", "accept"}
    with pytest.raises(IllegalActionError):
        g.step(s, "press")
    with pytest.raises(IllegalActionError):
        g.step(s, "play G5")


def test_hit_target_holding_hit_card_may_accept():
    """§2.4 Mass Hit 4: a target unwilling to use its hit card absorbs (presses the total) and loses its turn."""
    g = game(4)
    s = build(g, current=0, discard=["G3"], hands=[["G-H2", "Y1"], ["R-H2", "B6"], FILL[1], FILL[2]],
              launcher=[1, 1])
    step(g, s, "play G-H2", "accept")
    assert s.hand_size[1] == 4 and s.current_seat == 2


def test_T97_source_example_mass_hit():
    """T97 [§2.4]: Hit 1, + Hit 2 (3), + WA declaring Y targeting P0 (5); P0 presses 5; resume at P1; colour Y."""
    g = game(4)
    s = build(g, current=0, discard=["G3"],
              hands=[["G-H1", "R3", "B4"], ["R-H2", "B6", "Y7"], ["WA", "G8", "B9"], FILL[2]],
              launcher=[1, 1, 1, 1, 1, 9])
    step(g, s, "play G-H1")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 1
    step(g, s, "play R-H2")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 2
    assert g.to_spec(s)["pending"]["penalty"]["total"] == 3
    step(g, s, "play WA")
    assert s.phase == "CHOOSE_COLOUR" and s.current_seat == 2
    step(g, s, "colour Y")
    assert s.phase == "CHOOSE_TARGET" and s.current_seat == 2
    assert legal(g, s) == {"target P0", "target P1", "target P3"}
    step(g, s, "target P0")
    assert s.hand_size[0] == 2 + 5
    assert launcher_left(g, s) == [9]
    assert s.current_seat == 1 and s.phase == "TURN"
    assert g.to_spec(s)["colour"] == "Y"


@pytest.mark.parametrize("resume,expected", [("after_first_hitter", 1), ("after_absorber", 3)])
def test_mass_hit_hit_card_targets_next_of_responder_and_resume(resume, expected):
    """§2.4 Mass Hit 2, 5, 6 / AMB-C4: new target = next(responder); resume per attack.mass_hit_resume; colour of top."""
    g = game(4, **{"attack.mass_hit_resume": resume})
    s = build(g, current=0, discard=["G3"], hands=[["G-H1", "R3"], ["B-H2", "B6", "Y7"], FILL[1], FILL[2]],
              launcher=[1, 1, 1])
    step(g, s, "play G-H1", "play B-H2")
    assert s.hand_size[2] == 3 + 3
    assert s.hand_size[3] == 3
    assert s.current_seat == expected and s.phase == "TURN"
    assert g.to_spec(s)["colour"] == "B"


@pytest.mark.parametrize("resume,expected", [("after_first_hitter", 3), ("after_absorber", 1)])
def test_mass_hit_counter_clockwise(resume, expected):
    """§2.4 Mass Hit 2/5 with dir = -1: P0 → P3 adds a hit → P2 absorbs; resume next(P0)=P3 or next(P2)=P1."""
    g = game(4, **{"attack.mass_hit_resume": resume})
    s = build(g, current=0, direction=-1, discard=["G3"],
              hands=[["G-H2", "R3"], FILL[0], FILL[1], ["Y-H1", "B6", "Y7"]], launcher=[1, 1, 1])
    step(g, s, "play G-H2")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 3
    step(g, s, "play Y-H1")
    assert s.hand_size[2] == 3 + 3 and s.hand_size[1] == 3
    assert s.current_seat == expected and s.phase == "TURN"
    assert g.to_spec(s)["colour"] == "Y"


def test_mass_hit_three_cards_stack():
    """§2.4 Mass Hit: totals add up (1 + 2 + 1) and play resumes after the first hitter."""
    g = game(4)
    s = build(g, current=0, discard=["G3"],
              hands=[["G-H1", "R3"], ["Y-H2", "B6"], ["R-H1", "G8", "B9"], FILL[2]], launcher=[1] * 4)
    step(g, s, "play G-H1", "play Y-H2", "play R-H1")
    assert s.hand_size[3] == 3 + 4
    assert s.current_seat == 1
    assert g.to_spec(s)["colour"] == "R"


def test_two_player_mass_hit_back_to_first_hitter():
    """§2.4 Mass Hit 2/5, n=2: P0 Hit 1, P1 adds Hit 2 → P0 presses 3; play resumes at next(P0)=P1."""
    g = game(2)
    s = build(g, current=0, discard=["G3"], hands=[["G-H1", "R3"], ["R-H2", "B6", "Y7"]], launcher=[1, 1, 1])
    step(g, s, "play G-H1", "play R-H2")
    assert s.hand_size[0] == 1 + 3
    assert s.current_seat == 1 and s.phase == "TURN"


@pytest.mark.parametrize("resume,expected", [("after_first_hitter", 1), ("after_absorber", 0)])
def test_wild_attack_response_responder_chooses_colour_and_target(resume, expected):
    """§2.4 Mass Hit 2 / T3: a Wild Attack responder declares a colour and picks any other player."""
    g = game(4, **{"attack.mass_hit_resume": resume})
    s = build(g, current=0, discard=["G3"], hands=[["G-H1", "R3"], ["WA", "B6", "Y7"], FILL[1], FILL[2]],
              launcher=[1, 1, 1])
    step(g, s, "play G-H1", "play WA")
    assert s.phase == "CHOOSE_COLOUR" and s.current_seat == 1
    step(g, s, "colour R")
    assert s.phase == "CHOOSE_TARGET" and s.current_seat == 1
    assert legal(g, s) == {"target P0", "target P2", "target P3"}
    step(g, s, "target P3")
    assert s.hand_size[3] == 3 + 3 and s.hand_size[2] == 3
    assert s.current_seat == expected and s.phase == "TURN"
    assert g.to_spec(s)["colour"] == "R"


@pytest.mark.parametrize("direction,attacked,absorber,first_next", [(1, 2, 3, 1), (-1, 2, 1, 3), (1, 1, 2, 1)])
def test_wild_attack_stack_extended_by_hit_card_goes_to_player_after_attacked(direction, attacked, absorber,
                                                                             first_next):
    """§2.4 Mass Hit 3: after WA → attacked adds Hit 1/2 → the player after the attacked one is the target."""
    g = game(4)
    hands = [["WA", "R3", "B4"], list(FILL[0]), list(FILL[1]), list(FILL[2])]
    hands[attacked] = ["Y-H1", "G8", "B9"]
    s = build(g, current=0, direction=direction, discard=["G3"], hands=hands, launcher=[1, 1, 1])
    step(g, s, "play WA", "colour G", f"target P{attacked}")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == attacked
    assert legal(g, s) == {"play Y-H1", "accept"}
    step(g, s, "play Y-H1")
    assert s.hand_size[absorber] == 3 + 3
    assert s.current_seat == first_next and s.phase == "TURN"
    assert g.to_spec(s)["colour"] == "Y"


# =========================================================================== Wild Attack

def test_wild_attack_colour_first_then_target_opponents_only():
    """§5.5 T2/T3, AMB-C8: WA asks the colour first, then the target; only opponents may be targeted."""
    g = game(4)
    s = build(g, current=0, discard=["G3"], hands=[["WA", "R3"], FILL[0], FILL[1], FILL[2]], launcher=[1, 1])
    step(g, s, "play WA")
    assert s.phase == "CHOOSE_COLOUR" and s.current_seat == 0
    step(g, s, "colour B")
    assert s.phase == "CHOOSE_TARGET" and s.current_seat == 0
    assert legal(g, s) == {"target P1", "target P2", "target P3"}
    step(g, s, "target P2")
    assert s.hand_size[2] == 5 and s.hand_size[1] == 3 and s.hand_size[3] == 3
    assert g.to_spec(s)["colour"] == "B"


def test_wild_attack_self_target_option():
    """AMB-C8 option attack.allow_self_target: the WA's player may target itself."""
    g = game(4, **{"attack.allow_self_target": True})
    s = build(g, current=0, discard=["G3"], hands=[["WA", "R3"], FILL[0], FILL[1], FILL[2]], launcher=[1, 1])
    step(g, s, "play WA", "colour B")
    assert legal(g, s) == {"target P0", "target P1", "target P2", "target P3"}
    step(g, s, "target P0")
    assert s.hand_size[0] == 1 + 2
    assert s.current_seat == 2  # second_from_attacker


@pytest.mark.parametrize("rule,direction,target,expected", [
    ("second_from_attacker", 1, 1, 2), ("second_from_attacker", 1, 2, 2), ("second_from_attacker", 1, 3, 2),
    ("second_from_attacker", -1, 1, 2), ("second_from_attacker", -1, 3, 2),
    ("next_after_attacker", 1, 2, 1), ("next_after_attacker", 1, 3, 1), ("next_after_attacker", -1, 1, 3),
    ("next_after_target", 1, 1, 2), ("next_after_target", 1, 2, 3), ("next_after_target", 1, 3, 0),
    ("next_after_target", -1, 1, 0), ("next_after_target", -1, 2, 1),
])
def test_unstacked_wild_attack_resume(rule, direction, target, expected):
    """AMB-C3, option attack.wild_attack_resume: where play resumes after an unstacked Wild Attack."""
    g = game(4, **{"attack.wild_attack_resume": rule})
    s = build(g, current=0, direction=direction, discard=["G3"],
              hands=[["WA", "R3"], FILL[0], FILL[1], FILL[2]], launcher=[1, 1])
    step(g, s, "play WA", "colour Y", f"target P{target}")
    assert s.hand_size[target] == 5
    assert s.current_seat == expected and s.phase == "TURN"


def test_unstacked_wild_attack_ignores_mass_hit_resume_option():
    """AMB-C4: a single hit card uses its own rule; attack.mass_hit_resume applies only to stacks of 2+."""
    g = game(4, **{"attack.mass_hit_resume": "after_absorber"})
    s = build(g, current=0, discard=["G3"], hands=[["WA", "R3"], FILL[0], FILL[1], FILL[2]], launcher=[1, 1])
    step(g, s, "play WA", "colour Y", "target P3")
    assert s.hand_size[3] == 5
    assert s.current_seat == 2  # advance(P0, 2), not next(P3) = P0


def test_wild_attack_answered_by_wild_attack():
    """§2.4 Mass Hit 2/5: WA → attacked P2 answers with WA targeting P3 (4 presses); resume after the first hitter."""
    g = game(4)
    s = build(g, current=0, discard=["G3"], hands=[["WA", "R3"], FILL[0], ["WA", "G8", "B9"], FILL[2]],
              launcher=[1] * 4)
    step(g, s, "play WA", "colour Y", "target P2", "play WA", "colour B")
    assert s.phase == "CHOOSE_TARGET" and s.current_seat == 2
    assert legal(g, s) == {"target P0", "target P1", "target P3"}
    step(g, s, "target P3")
    assert s.hand_size[3] == 3 + 4
    assert s.current_seat == 1 and g.to_spec(s)["colour"] == "B"


def test_wild_attack_two_players_turn_returns():
    """AMB-C13: n=2, WA targets the only opponent; under the default rule advance(p,2) = p plays again."""
    g = game(2)
    s = build(g, current=0, discard=["G3"], hands=[["WA", "R3"], ["B4", "Y6"]], launcher=[1, 1])
    step(g, s, "play WA", "colour R")
    assert legal(g, s) == {"target P1"}
    step(g, s, "target P1")
    assert s.hand_size[1] == 4
    assert s.current_seat == 0 and s.phase == "TURN"


def test_three_players_unstacked_wild_attack_on_far_player():
    """AMB-C3 default, n=3: P0 attacks P2; resume = advance(P0, 2) = P2 (P1 loses its turn)."""
    g = game(3)
    s = build(g, current=0, discard=["G3"], hands=[["WA", "R3"], FILL[0], FILL[1]], launcher=[1, 1])
    step(g, s, "play WA", "colour G", "target P2")
    assert s.hand_size[2] == 5 and s.current_seat == 2


# =========================================================================== last-card hits (CORE-24, AMB-C10)

def test_T99_wild_attack_as_last_card():
    """T99 [CORE-24, 004]: the last card WA still declares a colour and a target; no ADD_HIT; P2 presses 2; P0 wins."""
    g = game(3)
    s = build(g, current=0, discard=["G3"], hands=[["WA"], ["B4", "Y6"], ["R-H2", "G9"]],
              draw_pile=["Y1", "Y2"], launcher=[1, 1])
    step(g, s, "play WA")
    assert s.phase == "CHOOSE_COLOUR" and s.current_seat == 0
    step(g, s, "colour R")
    assert s.phase == "CHOOSE_TARGET" and legal(g, s) == {"target P1", "target P2"}
    step(g, s, "target P2")
    assert s.is_over and s.winner == 0
    assert hand(g, s, 2) == Counter(["R-H2", "G9", "Y1", "Y2"])
    assert s.round_points[0] == (4 + 6) + (40 + 9 + 1 + 2)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_last_card_hit_absorbed_without_response(n):
    """AMB-C10 / CORE-24: a hit card played as the last card is absorbed with no response; the round ends."""
    g = game(n)
    hands = [list(FILL[i]) for i in range(n)]
    hands[0] = ["G-H2"]
    hands[1] = ["R-H2", "WA", "B5"]
    s = build(g, current=0, discard=["G3"], hands=hands, draw_pile=["Y1", "Y2"], launcher=[1, 1])
    step(g, s, "play G-H2")
    assert s.is_over and s.winner == 0
    assert hand(g, s, 1) == Counter(["R-H2", "WA", "B5", "Y1", "Y2"])
    others = sum(card_value(c) for q in range(1, n) for c in g.to_spec(s)["hands"][q])
    assert s.round_points[0] == others and s.scores[0] == others


def test_responder_last_card_hit_wins_and_stack_goes_on():
    """AMB-C10: a responder whose added hit card is its last card wins; the next target absorbs; round ends."""
    g = game(4)
    s = build(g, current=0, discard=["G3"], hands=[["G-H1", "G5"], ["R-H2"], ["B-H1", "B-H2", "G8"], FILL[2]],
              draw_pile=["Y1", "Y2", "Y3"], launcher=[1, 1, 1])
    step(g, s, "play G-H1")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 1
    step(g, s, "play R-H2")
    assert s.is_over and s.winner == 1
    assert hand(g, s, 2) == Counter(["B-H1", "B-H2", "G8", "Y1", "Y2", "Y3"])
    expected = 5 + (20 + 40 + 8 + 1 + 2 + 3) + sum(card_value(c) for c in FILL[2])
    assert s.round_points[1] == expected


def test_responder_last_card_wild_attack_wins():
    """AMB-C10 / CORE-24: a last-card WA response still takes its colour and target; the target absorbs; round ends."""
    g = game(4)
    s = build(g, current=0, discard=["G3"], hands=[["G-H1", "G5"], ["WA"], FILL[1], ["Y-H1", "G8"]],
              launcher=[1, 1, 1])
    step(g, s, "play G-H1", "play WA", "colour B", "target P3")
    assert s.is_over and s.winner == 1
    assert s.hand_size[3] == 2 + 3


# =========================================================================== UNO call (penalty = two presses)

def test_T101_uno_penalty_two_presses():
    """T101 [CORE-21, 004]: uno_call=decide, NO_CALL ⇒ two presses, K=[1, 0] ⇒ hand 2."""
    g = game(4, uno_call="decide")
    s = build(g, current=0, discard=["R7"], hands=[["R3", "G5"], FILL[0], FILL[1], FILL[2]], launcher=[1, 0])
    step(g, s, "play R3")
    assert s.phase == "UNO_CALL" and s.current_seat == 0
    step(g, s, "no-call")
    assert s.hand_size[0] == 2
    assert launcher_left(g, s) == []
    assert s.current_seat == 1 and s.phase == "TURN"


def test_uno_call_avoids_penalty():
    """CORE-22: CALL ⇒ no presses."""
    g = game(4, uno_call="decide")
    s = build(g, current=0, discard=["R7"], hands=[["R3", "G5"], FILL[0], FILL[1], FILL[2]], launcher=[1, 0])
    step(g, s, "play R3", "call")
    assert s.hand_size[0] == 1 and launcher_left(g, s) == [1, 0]
    assert s.current_seat == 1


@pytest.mark.parametrize("direction,order", [(1, [1, 2, 3]), (-1, [3, 2, 1])])
def test_uno_explicit_catch_poll_in_turn_order(direction, order):
    """CORE-22 explicit: after NO_CALL each opponent from next(p) is asked CATCH / PASS; all pass ⇒ no penalty."""
    g = game(4, uno_call="explicit")
    s = build(g, current=0, direction=direction, discard=["R7"], hands=[["R3", "G5"], FILL[0], FILL[1], FILL[2]],
              launcher=[1, 1])
    step(g, s, "play R3", "no-call")
    seen = []
    while s.phase == "CATCH":
        seen.append(s.current_seat)
        assert legal(g, s) == {"catch", "pass"}
        step(g, s, "pass")
    assert seen == order
    assert s.hand_size[0] == 1 and s.current_seat == order[0] and s.phase == "TURN"


def test_uno_explicit_catch_two_presses():
    """CORE-21/22 [004 "按 2 下"]: a catch makes the player press twice; the window then closes."""
    g = game(4, uno_call="explicit")
    s = build(g, current=0, discard=["R7"], hands=[["R3", "G5"], FILL[0], FILL[1], FILL[2]],
              draw_pile=["B1", "B2", "B3"], launcher=[1, 1, 1])
    step(g, s, "play R3", "no-call", "pass", "catch")
    assert hand(g, s, 0) == Counter(["G5", "B1", "B2"])
    assert s.current_seat == 1 and s.phase == "TURN"


def test_uno_penalty_presses_forfeited_when_launcher_runs_out():
    """AMB-C2: the UNO penalty is a two-press obligation; presses left when the launcher is empty are forfeited."""
    g = game(3, uno_call="decide")
    s = build(g, current=0, discard=["R1", "R7"], hands=[["R3", "G5"], FILL[0], FILL[1]],
              draw_pile=["B1"], unplaced="discard", launcher=[1, 1])
    step(g, s, "play R3", "no-call")
    assert hand(g, s, 0) == Counter(["G5", "B1"])


def test_uno_call_decision_comes_before_hit_response():
    """§1.6 step 7: the UNO decision of the placer comes before the hit target's response."""
    g = game(4, uno_call="decide")
    s = build(g, current=0, discard=["G3"], hands=[["G-H1", "R3"], ["R-H2", "B6"], FILL[1], FILL[2]],
              launcher=[1, 1, 1])
    step(g, s, "play G-H1")
    assert s.phase == "UNO_CALL" and s.current_seat == 0
    step(g, s, "call")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 1


def test_uno_call_of_a_hit_responder_before_next_target_decides():
    """CORE-20/22, §1.6 step 7: a responder whose added hit card leaves one card decides CALL / NO_CALL before
    anyone else decides; NO_CALL ⇒ two presses; the stack still goes on to next(responder)."""
    g = game(4, uno_call="decide")
    s = build(g, current=0, discard=["G3"], hands=[["G-H1", "R3"], ["R-H2", "B6"], FILL[1], ["Y-H2", "G8"]],
              launcher=[1] * 5)
    step(g, s, "play G-H1", "call", "play R-H2")
    assert s.phase == "UNO_CALL" and s.current_seat == 1
    step(g, s, "no-call")
    assert s.hand_size[1] == 1 + 2
    assert s.hand_size[2] == 3 + 3
    assert s.current_seat == 1 and s.phase == "TURN"  # after the first hitter P0


def test_uno_always_mode_asks_nothing():
    """CORE-22 default `always`: the call is automatic, no UNO_CALL phase, no penalty."""
    g = game(4)
    s = build(g, current=0, discard=["R7"], hands=[["R3", "G5"], FILL[0], FILL[1], FILL[2]], launcher=[1, 1])
    step(g, s, "play R3")
    assert s.phase == "TURN" and s.current_seat == 1 and s.hand_size[0] == 1


# =========================================================================== starter rules (§1.12 Attack column)

def start_spec(starter: list[str], n: int = 4, dealer: int = 0, hands=None, **extra) -> dict:
    hands = hands or [list(FILL[i]) for i in range(n)]
    return dict(start=True, dealer=dealer, hands=hands, draw_pile=starter, **extra)


def test_starter_number_card_first_player_left_of_dealer():
    """CORE-4: a number starter → next(dealer) plays, dir = +1, colour of the starter."""
    g = game(4)
    s = build(g, **start_spec(["G5"], dealer=2))
    assert s.current_seat == 3 and s.direction == 1 and s.phase == "TURN"
    assert g.to_spec(s)["discard"] == ["G5"] and g.to_spec(s)["colour"] == "G"


@pytest.mark.parametrize("n,dealer,first", [(4, 0, 3), (4, 2, 1), (3, 0, 2), (5, 3, 2)])
def test_starter_reverse_dealer_right_neighbour_starts(n, dealer, first):
    """AMB-C6 default dealer_right: the dealer's right neighbour starts, dir = -1."""
    g = game(n)
    s = build(g, **start_spec(["BR"], n=n, dealer=dealer))
    assert s.current_seat == first and s.direction == -1 and s.phase == "TURN"


def test_starter_reverse_option_dealer_starts():
    """AMB-C6 option attack.starter_reverse_first = dealer: the dealer starts, dir = -1."""
    g = game(4, **{"attack.starter_reverse_first": "dealer"})
    s = build(g, **start_spec(["BR"], dealer=1))
    assert s.current_seat == 1 and s.direction == -1
    step(g, s, "press")
    assert s.current_seat == 0


@pytest.mark.parametrize("n,dealer,first", [(4, 0, 2), (3, 2, 1), (4, 3, 1)])
def test_starter_skip_first_player_skipped(n, dealer, first):
    """§2.4 starter Skip: "起始玩家被跳過由下一位玩家開始"."""
    g = game(n)
    s = build(g, **start_spec(["YS"], n=n, dealer=dealer))
    assert s.current_seat == first and s.direction == 1 and s.phase == "TURN"


def test_starter_wild_first_player_declares_then_plays():
    """§2.4 starter Wild / T5: the first player declares a colour, then takes its turn."""
    g = game(4)
    s = build(g, **start_spec(["W"], dealer=0, hands=[FILL[0], ["B5", "R3", "G-H1"], FILL[1], FILL[2]]))
    assert s.phase == "CHOOSE_COLOUR" and s.current_seat == 1
    step(g, s, "colour B")
    assert s.phase == "TURN" and s.current_seat == 1
    assert legal(g, s) == {"play B5", "press"}
    step(g, s, "play B5")
    assert s.current_seat == 2


@pytest.mark.parametrize("card,hits", [("Y-H2", 2), ("Y-H1", 1)])
def test_T103_starter_hit_first_player_presses_no_stacking(card, hits):
    """T103 [§2.4, AMB-C7]: starter Hit → the first player presses 1/2 (no ADD_HIT) and loses the turn."""
    g = game(4)
    hands = [list(FILL[0]), ["B-H1", "R-H2", "WA", "Y5"], list(FILL[1]), list(FILL[2])]
    s = build(g, **start_spec([card, "G1", "G2", "G3"], hands=hands, launcher=[1, 1, 5]))
    assert s.phase == "TURN" and s.current_seat == 2
    assert s.hand_size[1] == 4 + hits
    assert launcher_left(g, s) == [1, 1, 5][hits:]


def test_starter_hit_two_players():
    """§2.4 starter Hit 2 with n=2: next(dealer) presses twice; 'the dealer's second player on the left' starts."""
    g = game(2)
    s = build(g, **start_spec(["R-H2"], n=2, dealer=0, hands=[FILL[0], ["B-H1", "Y5"]], launcher=[1, 1]))
    assert s.hand_size[1] == 4
    assert s.current_seat == 0 and s.phase == "TURN"


def test_T104_starter_discard_all():
    """T104 [§2.4]: starter Discard All: the first player's plays = its colour, any Discard All, wilds; else press."""
    g = game(4)
    p1 = ["G3", "R-DA", "W", "WA", "R5", "B-H1", "G-H2", "YS"]
    s = build(g, **start_spec(["G-DA"], hands=[FILL[0], p1, FILL[1], FILL[2]]))
    assert s.phase == "TURN" and s.current_seat == 1
    assert legal(g, s) == {"play G3", "play R-DA", "play W", "play WA", "play G-H2", "press"}


def test_starter_wild_attack_goes_back_into_launcher():
    """AMB-C5: a Wild Attack starter is put back into the launcher and the next card is turned."""
    g = game(4)
    s = build(g, **start_spec(["WA", "R5"]))
    sp = check(g, s)
    assert sp["discard"] == ["R5"] and sp["colour"] == "R"
    assert Counter(sp["draw_pile"])["WA"] == 4
    assert len(s.draw_pile) == 112 - 12 - 1
    assert s.current_seat == 1 and s.phase == "TURN"


def test_starter_several_wild_attacks_all_go_back():
    """AMB-C5: repeated until the turned card is not a Wild Attack."""
    g = game(3)
    s = build(g, **start_spec(["WA", "WA", "WA", "Y9"], n=3))
    sp = check(g, s)
    assert sp["discard"] == ["Y9"]
    assert Counter(sp["draw_pile"])["WA"] == 4
    assert s.current_seat == 1


# =========================================================================== scoring

def win_spec(n: int, loser_hands: list[list[str]], **extra) -> dict:
    """n seats; P0 holds only R3 on R7 and wins by playing it; the others hold ``loser_hands``."""
    assert len(loser_hands) == n - 1
    return dict(current=0, discard=["R7"], hands=[["R3"]] + loser_hands, **extra)


def test_T106_attack_scoring():
    """T106 [§2.4]: 5 + 40 + 30 + 50 + 20 + 20 + 20 + 50 = 235 to the round winner (method 1)."""
    g = game(2)
    s = build(g, **win_spec(2, [["R5", "Y-H2", "B-DA", "WA", "G-H1", "RS", "YR", "W"]]))
    step(g, s, "play R3")
    assert s.is_over and s.winner == 0
    assert s.round_points == [235, 0] and s.scores == [235, 0]


@pytest.mark.parametrize("card,value", [("B1", 1), ("G9", 9), ("YR", 20), ("BS", 20), ("R-DA", 30),
                                        ("Y-H1", 20), ("G-H2", 40), ("W", 50), ("WA", 50)])
def test_card_values(card, value):
    """§2.4 Scoring: face value; Reverse/Skip/Hit 1 20; Hit 2 40; Discard All 30; Wild/Wild Attack 50."""
    g = game(3)
    s = build(g, **win_spec(3, [[card], ["B2", "B4"]]))
    step(g, s, "play R3")
    assert s.round_points[0] == value + 6


def test_method2_penalty_low_each_loser_scores_own_hand():
    """CORE-26 method 2: each non-winner adds its own hand value; the winner adds 0."""
    g = game(3, scoring_method="penalty_low")
    s = build(g, **win_spec(3, [["R5", "Y-H2"], ["W"]], scores=[10, 20, 30]))
    step(g, s, "play R3")
    assert s.is_over and s.winner == 0  # a single round: its winner
    assert s.round_points == [0, 45, 50]
    assert s.scores == [10, 65, 80]


def test_method2_match_lowest_total_wins():
    """CORE-26 [004 流水帳]: when a total reaches 500 the match stops and the lowest total wins."""
    g = game(3, scoring_method="penalty_low", match=True)
    s = build(g, **win_spec(3, [["R5", "Y-H2", "B-DA", "WA", "G-H1", "RS", "YR", "W"], ["G1"]],
                            scores=[100, 490, 0]))
    step(g, s, "play R3")
    assert s.is_over
    assert s.scores == [100, 725, 1]
    assert s.winner == 2


def test_method1_match_continues_below_target():
    """CORE-25: a match under method 1 continues (a new round is dealt) while every total is below 500."""
    g = game(2, match=True)
    s = build(g, **win_spec(2, [["R5", "Y-H2"]], scores=[100, 50]))
    step(g, s, "play R3")
    assert not s.is_over
    assert s.scores == [145, 50]
    assert sum(s.hand_size) == 14


# =========================================================================== elimination mode

ELIM = dict(scoring_method="elimination", target_score=100)
HEAVY = ["R5", "Y-H2", "B-DA", "WA", "G-H1", "RS", "YR", "W"]  # 235 points


def test_elimination_seat_reaching_limit_is_out_and_not_dealt():
    """§2.4 elimination / AMB-C14: a seat whose total reaches the limit is out and gets no cards."""
    g = game(3, **ELIM)
    s = build(g, **win_spec(3, [HEAVY, ["G1"]], scores=[0, 90, 0]))
    step(g, s, "play R3")
    assert not s.is_over
    assert list(s.eliminated) == [False, True, False]
    assert s.scores == [0, 325, 1]
    assert s.hand_size[1] == 0 and s.hand_size[0] == 7 and s.hand_size[2] == 7
    assert s.current_seat != 1


def test_elimination_total_exactly_at_limit_is_out():
    """§2.4 "達到或超過": reaching the limit exactly eliminates."""
    g = game(3, **ELIM)
    s = build(g, **win_spec(3, [["G5", "G4"], ["B9", "B1"]], scores=[0, 91, 0]))
    step(g, s, "play R3")
    assert list(s.eliminated) == [False, True, False]
    assert s.scores == [0, 100, 10]


def test_elimination_several_out_at_once_last_seat_wins():
    """AMB-C14: several eliminations at once; a lone survivor is the champion."""
    g = game(3, **ELIM)
    s = build(g, **win_spec(3, [HEAVY, ["G5"]], scores=[0, 90, 95]))
    step(g, s, "play R3")
    assert s.is_over and s.winner == 0
    assert list(s.eliminated) == [False, True, True]


def _random_walk_elimination(seed: int):
    """Play an elimination match from a spec where P1 is knocked out after the first round."""
    g = Game("attack", num_players=4, uno_call="explicit", **ELIM, **{"attack.launcher_model": "fixed"})
    s = g.state_from_spec(dict(seed=seed, **win_spec(4, [HEAVY, ["G1"], ["B2"]], scores=[0, 90, 0, 0])))
    g.step(s, "play R3")
    check(g, s)
    assert list(s.eliminated) == [False, True, False, False]
    rng = np.random.default_rng(seed)
    out = list(s.eliminated)
    expect_same = None  # (seat, round) when a two-player Skip/Reverse/hit must give the turn back
    checks_2p = 0
    for _ in range(4000):
        if s.is_over:
            break
        assert not s.eliminated[s.current_seat], "a seat out of the match decides"
        for q, gone in enumerate(s.eliminated):
            assert gone >= out[q], "an eliminated seat came back"
            if gone:
                assert s.hand_size[q] == 0, "an eliminated seat holds cards"
        out = list(s.eliminated)
        alive = [q for q in range(4) if not s.eliminated[q]]
        acts = g.legal_action_strings(s)
        if s.phase == "CHOOSE_TARGET":
            assert all(f"target P{q}" not in acts for q in range(4) if s.eliminated[q])
        pen = (g.to_spec(s)["pending"] or {}).get("penalty")
        if pen:
            assert not s.eliminated[pen["target"]], "an eliminated seat is targeted"
        rnd = s.round_index
        if s.phase == "TURN" and expect_same is not None:
            seat, r = expect_same
            if r == rnd:
                assert s.current_seat == seat, "two-player rule: the turn should return to the same player"
            expect_same = None
        a = acts[int(rng.integers(len(acts)))]
        if s.phase == "STACK_RESPONSE" and a != "accept":
            expect_same = None  # a stacked hit resumes by the Mass Hit rule
        elif s.phase == "TURN" and len(alive) == 2 and a.startswith("play") and s.hand_size[s.current_seat] > 1:
            card = a.split()[1]
            if card[-1] in "SR" and len(card) == 2 or card.endswith(("-H1", "-H2")) or card == "WA":
                expect_same = (s.current_seat, rnd)
                checks_2p += 1
        g.step(s, a)
        check(g, s)
    return g, s, checks_2p


def test_elimination_match_out_seats_never_dealt_asked_or_targeted():
    """§2.4 elimination: out seats are never dealt, asked or targeted; two seats left use two-player rules
    (Skip/Reverse/unanswered hits give the turn back); the last seat left wins."""
    two_player_checks = 0
    for seed in (1, 2, 3):
        g, s, checks = _random_walk_elimination(seed)
        two_player_checks += checks
        assert s.is_over
        if not s.truncated:
            alive = [q for q in range(4) if not s.eliminated[q]]
            assert alive == [s.winner]
            assert s.scores[s.winner] < 100
    assert two_player_checks > 0, "the walks never reached a head-to-head phase: the two-player check is vacuous"


# =========================================================================== launcher models

def test_fixed_model_fires_k_cards():
    """AMB-C1 fixed model: every press fires attack.fixed_k cards."""
    g = Game("attack", num_players=3, **{"attack.launcher_model": "fixed", "attack.fixed_k": 2})
    s = build(g, current=0, discard=["R7"], hands=[["G3", "B5"], ["G4", "B6"], FILL[1]], draw_pile=["Y1", "Y2", "Y3"])
    step(g, s, "press")
    assert hand(g, s, 0) == Counter(["G3", "B5", "Y1", "Y2"])
    step(g, s, "press")
    assert s.hand_size[1] == 4


def test_fixed_model_default_one_card():
    """AMB-C1 fixed model default k = 1 reproduces a classic draw."""
    g = Game("attack", num_players=3, **{"attack.launcher_model": "fixed"})
    s = build(g, current=0, discard=["R7"], hands=[["G3", "B5"], ["G4", "B6"], FILL[1]], draw_pile=["Y1", "Y2"])
    step(g, s, "press")
    assert hand(g, s, 0) == Counter(["G3", "B5", "Y1"])


def test_fixed_model_capped_by_cards_left():
    """AMB-C1: K <= cards remaining."""
    g = Game("attack", num_players=3, **{"attack.launcher_model": "fixed", "attack.fixed_k": 3})
    s = build(g, current=0, discard=["R7"], hands=[["G3", "B5"], ["G4", "B6"], FILL[1]],
              draw_pile=["Y1", "Y2"], unplaced="discard")
    step(g, s, "press")
    assert s.hand_size[0] == 4


@pytest.mark.parametrize("probs", [[0.5, 0.6], [0.5, 0.2], [-0.1, 1.1], [], [[0.5, 0.5]], ["x", 1.0], "0.5,0.5"])
def test_categorical_bad_probabilities_rejected(probs):
    """AMB-C1 / RuleSet: bad attack.burst_probs fail at construction with a RuleError naming the option."""
    with pytest.raises(RuleError, match=r"attack\.burst_probs"):
        Game("attack", num_players=3, **{"attack.launcher_model": "categorical", "attack.burst_probs": probs})


@pytest.mark.parametrize("key,value", [("attack.launcher_model", "bogus"), ("attack.fixed_k", -1),
                                       ("attack.max_burst", 0), ("attack.p_fire", 1.5),
                                       ("attack.wild_attack_resume", "somewhere"),
                                       ("attack.mass_hit_resume", "random"),
                                       ("attack.starter_reverse_first", "left")])
def test_invalid_attack_options_rejected(key, value):
    """RuleSet: invalid Attack options fail at construction, naming the key."""
    with pytest.raises(RuleError, match=key.replace(".", r"\.")):
        Game("attack", num_players=3, **{key: value})


def _geometric_pmf(p_fire: float, q: float, cap: int) -> np.ndarray:
    """docs/rules.md §2.4: P(0)=1-p_fire, P(k)=p_fire(1-q)q^(k-1), truncated at cap with the tail mass on the cap."""
    pmf = np.zeros(cap + 1)
    pmf[0] = 1 - p_fire
    for k in range(1, cap + 1):
        pmf[k] = p_fire * (1 - q) * q ** (k - 1)
    pmf[cap] += p_fire * q ** cap
    return pmf


def _bursts(g: Game, remaining: int, draws: int, seed: int) -> np.ndarray:
    s = g.new_state(seed=seed)
    return np.array([g.launcher.burst(s, remaining) for _ in range(draws)])


def _chi_square(counts: np.ndarray, pmf: np.ndarray) -> float:
    expected = pmf * counts.sum()
    keep = expected > 0
    assert counts[~keep].sum() == 0, "bursts of a size the model gives probability 0"
    return float(((counts[keep] - expected[keep]) ** 2 / expected[keep]).sum())


# Chi-square thresholds: the 99.9 % quantiles of the chi-square distribution with (buckets - 1) degrees
# of freedom (df 10: 29.59, df 6: 22.46, df 5: 20.52). A correct sampler exceeds them with probability
# 0.1 % for a random seed; the seeds here are fixed, so the tests are deterministic. Every expected
# bucket count is >= 19 (20,000 draws), so the chi-square approximation is valid.
CHI2_999 = {10: 29.59, 6: 22.46, 5: 20.52}


def test_geometric_default_distribution_matches_stated_parameters():
    """AMB-C1 default p_fire = q = 0.5, max_burst = 10: distribution() equals the formula; mean ≈ p_fire/(1-q)."""
    g = Game("attack", num_players=4)
    pmf = _geometric_pmf(0.5, 0.5, 10)
    dist = np.asarray(g.launcher.distribution(100), dtype=float)
    assert dist.shape == (101,)
    assert np.allclose(dist[:11], pmf) and np.allclose(dist[11:], 0)
    mean = float((np.arange(11) * pmf).sum())
    assert abs(mean - 0.5 / (1 - 0.5)) < 0.01  # truncation at 10 removes ~0.001


def test_geometric_default_empirical_bursts_chi_square():
    """AMB-C1: 20,000 bursts of the default geometric model fit the stated pmf (chi-square, df 10)."""
    g = Game("attack", num_players=4)
    ks = _bursts(g, 100, 20_000, seed=11)
    assert ks.min() >= 0 and ks.max() <= 10
    counts = np.bincount(ks, minlength=11)
    pmf = _geometric_pmf(0.5, 0.5, 10)
    assert _chi_square(counts, pmf) < CHI2_999[10]
    # mean p_fire/(1-q) = 1.0; the s.d. of K is ~1.41, so the s.e. of the mean of 20,000 draws is ~0.01: 5 s.e.
    assert abs(ks.mean() - (np.arange(11) * pmf).sum()) < 0.05
    # tail mass on the cap: P(K=10) = p_fire q^9 ≈ 0.00098 → expected ~19.5
    assert 5 <= counts[10] <= 40


def test_geometric_custom_parameters_chi_square():
    """AMB-C1: p_fire=0.3, q=0.6, max_burst=5 → the truncated pmf with the tail mass on 5 (df 5)."""
    g = Game("attack", num_players=4, **{"attack.p_fire": 0.3, "attack.q": 0.6, "attack.max_burst": 5})
    pmf = _geometric_pmf(0.3, 0.6, 5)
    assert np.allclose(np.asarray(g.launcher.distribution(50))[:6], pmf)
    counts = np.bincount(_bursts(g, 50, 20_000, seed=12), minlength=6)
    assert len(counts) == 6
    assert _chi_square(counts, pmf) < CHI2_999[5]


def test_geometric_bursts_never_exceed_cap_or_cards_left():
    """AMB-C1: bursts never exceed attack.max_burst nor the cards left; the tail mass sits on the bound."""
    g = Game("attack", num_players=4, **{"attack.p_fire": 0.95, "attack.q": 0.9, "attack.max_burst": 4})
    for remaining in (1, 2, 3, 10):
        ks = _bursts(g, remaining, 2000, seed=remaining)
        bound = min(remaining, 4)
        assert ks.max() <= bound and ks.min() >= 0
        dist = np.asarray(g.launcher.distribution(remaining), dtype=float)
        assert np.isclose(dist.sum(), 1.0) and np.allclose(dist[bound + 1:], 0)
        if bound:
            assert np.isclose(dist[bound], _geometric_pmf(0.95, 0.9, 4)[bound:].sum())
            assert (ks == bound).mean() > 0.5  # P(K = bound) >= p_fire q^(bound-1) ≥ 0.69


@pytest.mark.parametrize("options", [{}, {"attack.launcher_model": "categorical"},
                                     {"attack.launcher_model": "fixed", "attack.fixed_k": 2}])
def test_distribution_with_empty_launcher_is_all_on_zero(options):
    """AMB-C1 "K <= cards remaining": with 0 cards left, P(K=0) = 1 (burst() indeed always returns 0)."""
    g = Game("attack", num_players=4, **options)
    assert set(_bursts(g, 0, 200, seed=4)) == {0}
    dist = np.asarray(g.launcher.distribution(0), dtype=float)
    assert dist.shape == (1,) and np.isclose(dist[0], 1.0)


def test_geometric_presses_in_play_bounded():
    """AMB-C1: in play a press never fires more than max_burst cards."""
    g = Game("attack", num_players=2, **{"attack.p_fire": 1.0, "attack.q": 0.99, "attack.max_burst": 2})
    for seed in range(5):
        s = build(g, seed=seed, current=0, discard=["R7"], hands=[["G3", "B5"], ["G4", "B6"]])
        step(g, s, "press")
        assert 3 <= s.hand_size[0] <= 4


def test_categorical_distribution_and_chi_square():
    """AMB-C1 categorical: distribution() is the vector; 20,000 bursts fit it (df 6); mean 1.15."""
    vec = [0.50, 0.20, 0.12, 0.08, 0.05, 0.03, 0.02]
    g = Game("attack", num_players=4, **{"attack.launcher_model": "categorical", "attack.burst_probs": vec})
    assert np.allclose(np.asarray(g.launcher.distribution(30))[:7], vec)
    ks = _bursts(g, 30, 20_000, seed=13)
    counts = np.bincount(ks, minlength=7)
    assert len(counts) == 7
    assert _chi_square(counts, np.array(vec)) < CHI2_999[6]
    assert abs(np.dot(np.arange(7), vec) - 1.15) < 1e-9
    assert abs(ks.mean() - 1.15) < 0.05  # s.d. ~1.5 → s.e. ~0.011


def test_categorical_truncated_by_cards_left():
    """AMB-C1: K <= cards remaining for the categorical model too."""
    g = Game("attack", num_players=4, **{"attack.launcher_model": "categorical",
                                         "attack.burst_probs": [0.0, 0.0, 0.0, 1.0]})
    assert _bursts(g, 2, 200, seed=3).max() == 2
    assert set(_bursts(g, 10, 200, seed=3)) == {3}


def test_same_seed_same_launcher_bursts():
    """Randomness: same seed + same actions ⇒ identical trajectory (launcher stream included)."""
    def run(seed):
        g = Game("attack", num_players=3)
        s = build(g, seed=seed, current=0, discard=["R7"], hands=[["G3", "B5"], ["G4", "B6"], ["G6", "B8"]])
        for _ in range(6):
            step(g, s, "press")
        return g.to_spec(s)
    assert run(5) == run(5)


def test_random_games_keep_invariants_and_press_ends_turn():
    """§6.7 invariants over seeded random games; a TURN press always passes the turn (AMB-C15)."""
    g = Game("attack", num_players=4, uno_call="explicit")
    for seed in range(6):
        s = g.new_state(seed=seed)
        check(g, s)
        rng = np.random.default_rng(100 + seed)
        for _ in range(600):
            if s.is_over:
                break
            acts = g.legal_action_strings(s)
            a = acts[int(rng.integers(len(acts)))]
            phase, p = s.phase, s.current_seat
            g.step(s, a)
            check(g, s)
            if phase == "TURN" and a == "press" and not s.is_over:
                assert s.phase == "TURN" and s.current_seat == (p + s.direction) % 4


def test_elimination_states_round_trip_through_specs_and_rewards_favour_the_lowest_total():
    """AMB-C14 states can be written and read back (``eliminated``); the points reward of method-2 totals is negative."""
    from uno_env.env_common import final_rewards
    from uno_env.errors import SpecError

    g = Game("attack", num_players=4, scoring_method="elimination", target_score=100)
    spec = {"discard": ["G3"], "hands": [["G5", "R1"], [], ["Y2", "B2"], []], "scores": [40, 120, 90, 100],
            "eliminated": [False, True, False, True]}
    s = g.state_from_spec(spec)
    out = g.to_spec(s)
    assert out["eliminated"] == [False, True, False, True]
    assert g.to_spec(g.state_from_spec(out)) == out
    g.step(s, "play G5")
    assert s.current_seat == 2  # P1 is out: the turn passes over it
    with pytest.raises(SpecError, match="P1 is eliminated and holds no cards"):
        g.state_from_spec({**spec, "hands": [["G5"], ["R2"], ["Y2"], []]})
    with pytest.raises(SpecError, match="only in an elimination match"):
        Game("attack", num_players=4).state_from_spec(spec)
    while not s.is_over:
        g.step(s, g.legal_actions(s)[0])
    rewards = final_rewards(g, s, "points")
    assert rewards[s.winner] == max(rewards) and all(r <= 0 for r in rewards)


def test_attack_refuses_options_it_has_no_use_for():
    """An option that does not apply to the variant fails at construction (Attack has no restricted wild)."""
    with pytest.raises(RuleError, match="restricted_wild_bluffing"):
        Game("attack", num_players=2, restricted_wild_bluffing=False)
    with pytest.raises(RuleError, match="attack.fixed_k"):
        Game("attack", num_players=2, **{"attack.fixed_k": 0})  # a launcher that never fires would never block


def test_rule_based_view_skips_seats_out_of_an_elimination_match():
    import agents
    from uno_env.observation import ObservationEncoder

    g = Game("attack", num_players=4, scoring_method="elimination", target_score=100)
    s = g.state_from_spec({"discard": ["G3"], "hands": [["G5", "R1"], [], ["Y2", "B2", "B3"], []],
                           "scores": [40, 120, 90, 100], "eliminated": [False, True, False, True]})
    view = agents.load("heuristic", g).view
    assert view.next_opponent_size(ObservationEncoder(g).encode(s, 0)) == 3  # P2, not the empty P1


def test_self_targeted_wild_attack_as_last_card_wins_without_pressing():
    """CORE-24 with attack.allow_self_target: a last card aimed at its own player leaves nothing to press."""
    g = Game("attack", num_players=3, **{"attack.allow_self_target": True, "attack.launcher_model": "fixed"})
    s = g.state_from_spec({"discard": ["G3"], "hands": [["WA"], ["R1", "R2"], ["Y1", "Y2"]]})
    for action in ("play WA", "colour R", "target P0"):
        g.step(s, action)
    assert s.is_over and s.winner == 0 and s.hand_size == [0, 2, 2]
