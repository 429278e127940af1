"""Audit of the UNO FLIP! Transformers rules engine against the rules contract docs/rules.md (§2.3, §4.4, §5.4, §6.4, §6.7).

Every test names the docs/rules.md section it checks and builds its scenario with ``state_from_spec``; the expected
values come from the contract text, never from the engine. These scenarios complement tests/rules/test_flip_rules.py
(no duplicates): dark-side reshuffles, penalties drawn from a turned-over draw pile, last-card draw effects on
both sides, match play across sides, dark-side challenges and reference colours, blocked rounds, the Optimus
played straight after a draw, and the deal / starter of a fresh game.

The §6.7 invariants (112 physical cards, pairing unchanged, every face on the active side, a coloured top
card fixing the current colour) are asserted after every step through ``Run.step``.
"""
from __future__ import annotations

from collections import Counter

import pytest

from flip_table import Table  # the Flip rule tests' table (tests/flip_table.py): its readers (phase, legal, hand, ...)
from uno_env import Game
from uno_env.cards import Effect

A, D = 0, 1
DECK = 112
SIDE_WILDS = {A: ("OPT", "W+2"), D: ("MEG", "WDC")}
SIDE_COLOURS = {A: ("R", "Y", "G", "B"), D: ("Pk", "Tl", "Or", "Pu")}


def _colour_of_face(face: str) -> str | None:
    if ":" not in face:
        return None
    body = face.split(":", 1)[1]
    return next(c for c in ("Pk", "Tl", "Or", "Pu", "R", "Y", "G", "B") if body.startswith(c))


def _all_cards(g, s) -> Counter:
    sp = g.to_spec(s)
    return Counter(sp["discard"] + sp["draw_pile"] + [c for h in sp["hands"] for c in h])


class Run(Table):
    """A game, its state and the §6.7 invariants checked after every step; the Flip rule tests' readers."""

    def __init__(self, g: Game, s):
        self.g, self.s = g, s
        self.base = _all_cards(g, s)
        self.check()

    def check(self) -> None:
        g, s = self.g, self.s
        cards = _all_cards(g, s)
        assert sum(cards.values()) == DECK, "§1.1 card conservation"
        if s.round_index == 0:
            assert cards == self.base, "AMB-B2: the pairing of faces never changes"
        side = s.side
        prefix = "AD"[side] + ":"
        names = g.deck.name_of
        faces = [names[k] for k in s.discard] + [names[k] for k in s.draw_pile]
        faces += [f for q in range(s.num_players) for f in g.hand_cards(s, q)]
        for f in faces:
            assert f.startswith(prefix) or f in SIDE_WILDS[side], f"§6.7: {f} is not a face of the active side"
        top = names[s.discard[-1]]
        if not s.is_over and _colour_of_face(top) is not None:
            assert g.colour_name(s) == _colour_of_face(top), "§6.7: a coloured top card fixes the current colour"

    def step(self, *actions: str) -> "Run":
        for a in actions:
            self.g.step(self.s, a)
            self.check()
        return self

    @property
    def spec(self) -> dict:  # an attribute here (Table's is a method)
        return self.g.to_spec(self.s)


def run(n=3, side="A", discard=("A:R5",), hands=None, draw_pile=None, colour=None, current=0, direction=1,
        seed=0, extra=None, **options) -> Run:
    g = Game("flip", num_players=n, **options)
    spec = {"variant": "flip", "players": n, "side": side, "current": current, "direction": direction,
            "discard": list(discard), "seed": seed, "hands": hands}
    if draw_pile is not None:
        spec["draw_pile"] = list(draw_pile)
    if colour is not None:
        spec["colour"] = colour
    spec.update(extra or {})
    return Run(g, g.state_from_spec(spec))


# =========================================================================== reshuffle (CORE-11, AMB-B24)

def test_reshuffle_on_dark_side_keeps_top_and_orients_new_pile_dark_side_down():
    """CORE-11 / AMB-B24 ("Flip: the new draw pile is placed with the active side face-down"): on side D an empty
    draw pile is rebuilt from every discard card but the top; the draw gives a D face; the top card stays."""
    discard = ["A:Y1|D:Tl4", "A:G2|D:Tl6", "A:B3|D:Or7"]
    hands = [["A:R9|D:Pk9", "A:R8|D:Pu8"], ["A:R7|D:Pk1", "A:R6|D:Pk2"], 105]
    r = run(3, "D", discard, hands, draw_pile=[], extra={"unplaced": "draw_pile"})
    assert r.s.draw_pile == [] and len(r.s.discard) == 3
    r.step("draw")  # Pk9 and Pu8 cannot follow Or7: a forced draw
    sp = r.spec
    assert sp["discard"] == ["A:B3|D:Or7"], "only the top card stays on the discard pile"
    drawn = Counter(sp["hands"][0]) - Counter(["A:R9|D:Pk9", "A:R8|D:Pu8"])
    assert sum(drawn.values()) == 1 and set(drawn) <= {"A:Y1|D:Tl4", "A:G2|D:Tl6"}
    assert len(sp["draw_pile"]) == 1 and set(sp["draw_pile"]) | set(drawn) == {"A:Y1|D:Tl4", "A:G2|D:Tl6"}
    assert r.s.side == D and r.g.hand_cards(r.s, 0)[0].startswith("D:")
    # a drawn Tl card cannot follow Or7 either: the turn ends, nobody is skipped
    assert (r.phase, r.current) == ("TURN", 1)


# =========================================================================== penalties from a turned-over pile

def test_flip_leaving_one_card_no_call_penalty_comes_from_the_turned_draw_pile():
    """§2.3 Flip procedure step 3 ("the former bottom card is now on top") + CORE-20/22 (`decide`): a FLIP leaving one
    card, then NO_CALL: the 2 penalty cards are the former bottom cards of the draw pile, on their D faces."""
    draw = ["A:Y1|D:Tl1", "A:Y2|D:Tl2", "A:Y3|D:Tl3", "A:Y4|D:Pu5", "A:Y6|D:Pu6"]
    hands = [["A:R-FLIP|D:Pk9", "A:G9|D:Or9"], ["A:Y8|D:Or8", "A:B2|D:Or2"], 101]  # P2 holds every other card
    r = run(3, "A", ["A:B7|D:Pk5", "A:R5|D:Tl9"], hands, draw_pile=draw, uno_call="decide")
    r.step("play A:R-FLIP")
    assert r.s.side == D and r.top == "D:Pk5" and r.colour == "Pk"
    assert (r.phase, r.current) == ("UNO_CALL", 0)
    r.step("no-call")
    assert r.hand(0) == Counter(["D:Or9", "D:Pu6", "D:Pu5"])
    assert r.spec["draw_pile"][0] == "A:Y3|D:Tl3"
    assert (r.phase, r.current) == ("TURN", 1)


def test_uno_decide_no_call_on_dark_side_draws_two():
    """§2.3 UNO ("Du côté AUTOBOTS comme du côté DÉCEPTICONS", penalty 2) / CORE-22 `decide`: on side D a
    placement leaving one card asks CALL / NO_CALL; NO_CALL draws 2 at once; play then goes on to next(p)."""
    hands = [["D:Pk3", "D:Tl1"], ["D:Or1", "D:Or2"], ["D:Pu1", "D:Pu2"]]
    r = run(3, "D", ["D:Pk5"], hands, draw_pile=["D:Tl5", "D:Tl6", "D:Tl7"], uno_call="decide")
    r.step("play D:Pk3")
    assert (r.phase, r.current) == ("UNO_CALL", 0)
    assert set(r.legal) == {"call", "no-call"}
    r.step("no-call")
    assert r.hand(0) == Counter(["D:Tl1", "D:Tl5", "D:Tl6"])
    assert (r.phase, r.current, r.colour) == ("TURN", 1, "Pk")


# =========================================================================== last card (CORE-24) on both sides

@pytest.mark.parametrize("side,top,card,victim_hand,draw,exp_points", [
    ("A", "A:R5", "A:R+1", ["A:Y8|D:Pk9"], ["A:G4|D:Or1", "A:G6|D:Or2"], 8 + 4 + 3),
    ("D", "D:Pk5", "D:Pk+5", ["A:Y8|D:Tl9"],
     ["A:G1|D:Or1", "A:G2|D:Or2", "A:G3|D:Or3", "A:G4|D:Pu4", "A:G5|D:Pu5", "A:G6|D:Pu6"], 9 + 1 + 2 + 3 + 4 + 5 + 3),
], ids=["A-plus1", "D-plus5"])
def test_draw_card_as_last_card_victim_draws_then_round_scored_on_active_side(side, top, card, victim_hand, draw,
                                                                              exp_points):
    """CORE-24 (+1 / +5 as the last card: the draw on the next player is resolved before scoring) and §2.3 Scoring
    (faces of the side on which the round ended; numbers at face value)."""
    third = ["A:R3|D:Pk3"] if side == "D" else ["A:Y3|D:Pk3"]
    r = run(3, side, [top], [[card], victim_hand, third], draw_pile=draw)
    r.step(f"play {card}")
    assert r.s.is_over and r.s.winner == 0
    k = 1 if side == "A" else 5
    assert r.sizes() == [0, 1 + k, 1]
    assert r.spec["pending"]["round_points"] == [exp_points, 0, 0]
    assert r.s.scores == [exp_points, 0, 0]


def test_skip_everyone_as_last_card_ends_round_without_fresh_turn():
    """CORE-23/24: Skip Everyone as the last card wins the round at once (skips are not resolved); D faces scored."""
    r = run(3, "D", ["D:Pk5"], [["D:Pk-SE"], ["D:Or8", "WDC"], ["D:Pu-SE"]], draw_pile=["D:Tl1"])
    r.step("play D:Pk-SE")
    assert r.s.is_over and r.s.winner == 0 and r.phase == "GAME_OVER"
    assert r.spec["pending"]["round_points"] == [8 + 60 + 30, 0, 0]


# =========================================================================== match play across sides

def test_match_round_ending_on_dark_side_scores_D_faces_and_next_round_starts_on_A():
    """§2.3 ("active_side starts at A"; scoring uses the side the round ended on), CORE-25 (cumulative scores,
    method 1), CORE-1 (dealer moves clockwise), AMB-B2 (the pairing is fixed with the deck: it stays for the match)."""
    hands = [["A:R2|D:Pk3"], ["A:B9|D:Or1", "A:G9|MEG"], ["A:Y9|D:Pu-SE", "A:R9|WDC"]]
    r = run(3, "D", ["A:R5|D:Pk5"], hands, draw_pile=["A:Y1|D:Tl5"], match=True,
            extra={"scores": [10, 20, 30], "dealer": 0})
    pairing = r.base
    r.step("play D:Pk3")
    s = r.s
    assert not s.is_over and s.round_index == 1
    assert s.round_points == [1 + 40 + 30 + 60, 0, 0]
    assert s.scores == [10 + 131, 20, 30]
    assert s.side == A and s.direction == 1 and s.hand_size == [7, 7, 7]
    assert s.dealer == 1 and (r.phase, r.current) == ("TURN", 2)
    assert _all_cards(r.g, s) == pairing
    assert r.g.effect_of[s.discard[-1]] == Effect.NUMBER


def test_penalty_low_scoring_counts_dark_faces_for_each_loser():
    """CORE-26 (method 2: every non-winner adds its own hand value) with §2.3 Scoring on side D."""
    hands = [["D:Pk3"], ["D:Or1", "MEG"], ["D:Pu-SE", "WDC"]]
    r = run(3, "D", ["D:Pk5"], hands, draw_pile=["D:Tl5"], scoring_method="penalty_low")
    r.step("play D:Pk3")
    assert r.s.is_over and r.spec["pending"]["round_points"] == [0, 41, 90]


# =========================================================================== dark-side challenges

def test_wdc_counter_clockwise_victim_is_next_in_current_direction():
    """§2.3 WDC step 3 (victim v = next(p)) with dir = -1 (§0.2): v = P3 draws until Or and loses the turn;
    play resumes at advance(p, 2) = P2."""
    hands = [["WDC", "D:Tl1"], ["D:Pk8", "D:Tl8"], ["D:Or8", "D:Pu9"], ["D:Pk7", "D:Tl7"]]
    r = run(4, "D", ["D:Pu4"], hands, draw_pile=["D:Pk1", "D:Or2", "D:Tl3"], direction=-1)
    r.step("play WDC", "colour Or")
    assert (r.phase, r.current) == ("CHALLENGE_OR_ACCEPT", 3)
    r.step("accept")
    assert r.hand(3) == Counter(["D:Pk7", "D:Tl7", "D:Pk1", "D:Or2"])
    assert (r.phase, r.current, r.colour) == ("TURN", 2, "Or")


def test_wdc_guilty_counter_clockwise_challenger_plays_next():
    """§2.3 WDC step 4 / AMB-G13 with dir = -1: guilty -> the offender draws until Or, the challenger P3 plays."""
    hands = [["WDC", "D:Pu1"], ["D:Pk8", "D:Tl8"], ["D:Or8", "D:Pu9"], ["D:Pk7", "D:Tl7"]]
    r = run(4, "D", ["D:Pu4"], hands, draw_pile=["D:Pk1", "D:Or2", "D:Tl3"], direction=-1)
    r.step("play WDC", "colour Or", "challenge")
    assert r.hand(0) == Counter(["D:Pu1", "D:Pk1", "D:Or2"]) and r.sizes()[3] == 2
    assert (r.phase, r.current, r.colour) == ("TURN", 3, "Or")


@pytest.mark.parametrize("p0,guilty", [(["WDC", "D:Tl1"], True), (["WDC", "D:Pk1"], False)])
def test_wdc_reference_colour_is_the_colour_declared_for_megatron(p0, guilty):
    """AMB-B19 on side D: the reference colour of a WDC is the current colour just before it -- here the colour Tl
    declared for a Megatron on top -- not the WDC's own declared colour."""
    hands = [p0, ["D:Or5", "D:Or6"], ["D:Pu5", "D:Pu6"]]
    r = run(3, "D", ["D:Pk5", "MEG"], hands, colour="Tl", draw_pile=["D:Pk1", "D:Or2", "D:Tl3", "D:Pu3"])
    r.step("play WDC", "colour Or", "challenge")
    if guilty:  # P0 held a Tl card: it draws until Or (Pk1, Or2); P1 draws nothing and plays
        assert r.sizes() == [3, 2, 2] and (r.phase, r.current) == ("TURN", 1)
    else:  # innocent: P1 draws until Or (Pk1, Or2) plus 2 (Tl3, Pu3) and loses the turn
        assert r.sizes() == [1, 6, 2] and (r.phase, r.current) == ("TURN", 2)
    assert r.colour == "Or"


def test_wdc_challenge_reveals_offender_hand_to_challenger_only_on_dark_side():
    """CORE-18 step 2 / AMB-G6 / §1.13 on side D: the challenged hand is shown to the challenger only."""
    from uno_env.observation import ObservationEncoder

    def play(hidden: str) -> Run:
        hands = [["WDC|A:B9", hidden], ["A:Y8|D:Tl8", "A:G1|D:Pk2"], ["A:Y9|D:Tl9", "A:G8|D:Pk4"]]
        r = run(3, "D", ["A:R4|D:Pu4"], hands, draw_pile=["A:Y1|D:Or1", "A:Y2|D:Tl2", "A:Y3|D:Tl3"])
        r.step("play WDC", "colour Or", "challenge")  # no Pu card, no other wild: innocent
        assert (r.phase, r.current) == ("TURN", 2)
        return r

    r1, r2 = play("A:R3|D:Tl5"), play("A:R3|D:Or5")
    enc = ObservationEncoder(r1.g)
    assert not (enc.encode(r1.s, 1) == enc.encode(r2.s, 1)).all(), "the challenger sees the offender's hand"
    assert (enc.encode(r1.s, 2) == enc.encode(r2.s, 2)).all(), "a third player does not"


# =========================================================================== blocked round on side D

def test_blocked_round_on_dark_side_after_n_empty_draws():
    """CORE-12 / AMB-G3: both piles exhausted (discard = its top only); n = 3 turns with no card placed or received
    end the round blocked: no winner, nobody scores."""
    r = run(3, "D", ["D:Pk5"], [37, 37, 37], draw_pile=[], extra={"scores": [5, 6, 7]})
    for seat in (0, 1, 2):
        assert (r.phase, r.current) == ("TURN", seat) and "draw" in r.legal
        r.step("draw")
    assert r.s.is_over and r.s.winner is None
    assert r.spec["pending"]["blocked"] is True and r.s.scores == [5, 6, 7]
    assert r.s.hand_size == [37, 37, 37]


# =========================================================================== Flip procedure details

def test_flip_new_top_is_a_flip_face_which_is_not_executed():
    """§2.3 Flip procedure step 6 ("T's action is not executed"): the uncovered top is itself a FLIP face
    (D:Tl-FLIP); it does not turn the game back; colour Tl; next(p) plays on side D."""
    hands = [["A:R-FLIP|D:Pu1", "A:G9|D:Pk9"], ["A:Y8|D:Or8", "A:B2|D:Or2"], ["A:G3|D:Pu3", "A:B4|D:Pu4"]]
    r = run(3, "A", ["A:Y1|D:Tl-FLIP", "OPT|D:Pk2"], hands, colour="R", draw_pile=["A:Y6|D:Pk6", "A:Y7|D:Pk7"])
    r.step("play A:R-FLIP")
    assert r.s.side == D and r.top == "D:Tl-FLIP" and r.colour == "Tl"
    assert r.spec["discard"] == ["A:R-FLIP|D:Pu1", "OPT|D:Pk2", "A:Y1|D:Tl-FLIP"]
    assert r.sizes() == [1, 2, 2]
    assert (r.phase, r.current) == ("TURN", 1) and r.legal == ["draw"]


def test_flip_played_straight_after_drawing_turns_over_with_that_very_card():
    """CORE-7 (PLAY_DRAWN: that card only) + §2.3 Flip procedure: the drawn FLIP, with its own back face, ends at
    the bottom of the turned discard pile; the hand turns over; next(p) plays."""
    hands = [["A:G9|D:Pk9", "A:B9|D:Or9"], ["A:Y8|D:Or8", "A:B2|D:Or2"], ["A:G3|D:Pu3", "A:B4|D:Pu4"]]
    r = run(3, "A", ["A:Y1|D:Tl7", "A:R5|D:Pu2"], hands, draw_pile=["A:R-FLIP|D:Pk-SE", "A:Y6|D:Pk6"])
    r.step("draw")
    assert (r.phase, r.current) == ("PLAY_OR_KEEP_DRAWN", 0) and set(r.legal) == {"play A:R-FLIP", "pass"}
    r.step("play A:R-FLIP")
    assert r.spec["discard"] == ["A:R-FLIP|D:Pk-SE", "A:R5|D:Pu2", "A:Y1|D:Tl7"]
    assert r.s.side == D and r.colour == "Tl"
    assert r.hand(0) == Counter(["D:Pk9", "D:Or9"])
    assert (r.phase, r.current) == ("TURN", 1)


def test_optimus_played_straight_after_drawing_duels_without_it():
    """CORE-7 / §5.4 P9 (PLAY_DRAWN + target) and §2.3 Optimus step 2 ("p's hand is evaluated without the
    Optimus"): P0 draws an Optimus, plays it, duels P2 (8 vs 9): P2 wins, places, declares; next(p) plays."""
    hands = [["A:G8", "A:B1"], ["A:Y2", "A:B2"], ["A:Y9", "A:G3", "A:B4"]]
    r = run(3, "A", ["A:R5"], hands, draw_pile=["OPT", "A:Y6"])
    r.step("draw")
    assert (r.phase, r.current) == ("PLAY_OR_KEEP_DRAWN", 0) and set(r.legal) == {"play OPT", "pass"}
    r.step("play OPT")
    assert (r.phase, r.current) == ("CHOOSE_TARGET", 0)
    r.step("target P2")
    assert (r.phase, r.current) == ("OPTIMUS_PLACE", 2)
    r.step("play A:G3", "pass")
    assert (r.phase, r.current) == ("CHOOSE_COLOUR", 2)
    r.step("colour B")
    assert r.top == "OPT" and r.g.deck.name_of[r.s.discard[-2]] == "A:G3"
    assert r.sizes() == [2, 2, 2] and (r.phase, r.current, r.colour) == ("TURN", 1, "B")


def test_optimus_placed_cards_are_turned_over_with_the_discard_by_a_later_flip():
    """AMB-B11 (placed cards lie beneath the Optimus) + §2.3 Flip step 2 (the whole discard pile is turned):
    after a FLIP the cards placed under the Optimus are in reversed order on their D faces."""
    hands = [["OPT|D:Pk1", "A:R9|D:Pk2", "A:G1|D:Tl3", "A:Y2|D:Or4"], ["A:B-FLIP|D:Pu5", "A:Y3|D:Pu6"],
             ["A:Y5|D:Tl6", "A:G6|D:Tl7"]]
    r = run(3, "A", ["A:B4|D:Or8"], hands, draw_pile=["A:Y7|D:Pk7", "A:Y8|D:Pk8"])
    r.step("play OPT", "target P1", "play A:G1", "play A:Y2", "colour B")
    assert r.spec["discard"] == ["A:B4|D:Or8", "A:G1|D:Tl3", "A:Y2|D:Or4", "OPT|D:Pk1"]
    assert (r.phase, r.current) == ("TURN", 1)
    r.step("play A:B-FLIP")
    assert r.spec["discard"] == ["A:B-FLIP|D:Pu5", "OPT|D:Pk1", "A:Y2|D:Or4", "A:G1|D:Tl3", "A:B4|D:Or8"]
    assert r.s.side == D and r.colour == "Or" and (r.phase, r.current) == ("TURN", 2)


# =========================================================================== fresh games (setup, starter)

@pytest.mark.parametrize("n", [2, 5, 10])
def test_new_state_setup_and_starter(n):
    """§2.3 Setup / Starter (AMB-B6), CORE-2..4: 7 cards each, side A, dir +1, next(dealer) starts; the top card is
    an A-side number and every card beneath it (ignored starters) is a non-number; colour = the top's colour."""
    g = Game("flip", num_players=n)
    for seed in range(40):
        s = g.new_state(seed=seed)
        Run(g, s)
        assert s.side == A and s.direction == 1 and s.hand_size == [7] * n
        assert (str(s.phase), s.current_seat) == ("TURN", (s.dealer + 1) % n)
        effects = [g.effect_of[k] for k in s.discard]
        assert effects[-1] == Effect.NUMBER and Effect.NUMBER not in effects[:-1]
        assert s.colour == g.colour_of[s.discard[-1]]
        assert len(s.draw_pile) == DECK - 7 * n - len(s.discard)


def test_two_players_flip_then_opponent_flips_back():
    """CORE-28 / AMB-B23 (two players): a FLIP passes the turn to the opponent (it skips nobody), who may flip back;
    direction unchanged; the second flip restores side A and the original top card."""
    hands = [["A:R-FLIP|D:Pk1", "A:G9|D:Tl9"], ["A:Y8|D:Pk-FLIP", "A:B2|D:Or2"]]
    r = run(2, "A", ["A:Y1|D:Or7", "A:R5|D:Pu3"], hands, draw_pile=["A:Y6|D:Tl6"])
    r.step("play A:R-FLIP")
    assert r.s.side == D and r.colour == "Or" and (r.phase, r.current) == ("TURN", 1)
    assert "play D:Pk-FLIP" not in r.legal  # Or7 on top: a FLIP only on its colour or on a FLIP
    r2 = run(2, "A", ["A:Y1|D:Pk7", "A:R5|D:Pu3"], hands, draw_pile=["A:Y6|D:Tl6"])
    r2.step("play A:R-FLIP")
    assert r2.colour == "Pk" and "play D:Pk-FLIP" in r2.legal
    r2.step("play D:Pk-FLIP")
    assert r2.s.side == A and r2.s.direction == 1
    assert r2.spec["discard"] == ["A:Y8|D:Pk-FLIP", "A:Y1|D:Pk7", "A:R5|D:Pu3", "A:R-FLIP|D:Pk1"]
    assert r2.top == "A:R-FLIP" and r2.colour == "R" and (r2.phase, r2.current) == ("TURN", 0)


@pytest.mark.parametrize("written, side", [("A", 0), ("a", 0), ("D", 1), ("d", 1), (" d ", 1)])
def test_spec_side_is_read_in_either_case(written, side):
    """§0.3 / the scenario spec: `side: A` or `side: D`, read like the rest of the notation whatever the case."""
    g = Game("flip", num_players=2)
    top = "A:R5" if side == 0 else "D:Pk5"
    s = g.state_from_spec({"side": written, "discard": [top]})
    assert s.side == side and g.to_spec(s)["side"] == "AD"[side]
