"""Audit of the UNO Attack rules engine against the rules contract (docs/rules.md §2.4, §4.1, §4.5, §5.5, §6.5, §6.7).

Written from docs/rules.md alone. The first block pins the two places the engine once disagreed with the
contract (fixed); the others pin rules the existing ``test_attack_rules.py`` does not cover, plus a differential check of
random games against an independent reference model of §2.4 (``test_random_games_match_reference_model``).
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from uno_env import Game

SCRIPTED = {"attack.launcher_model": "scripted"}


def game(n: int = 4, **options) -> Game:
    return Game("attack", num_players=n, **{**SCRIPTED, **options})


def build(g: Game, **spec):
    spec.setdefault("seed", 0)
    return g.state_from_spec(spec)


def step(g: Game, s, *actions: str):
    for a in actions:
        g.step(s, a)
        check(g, s)
    return s


def check(g: Game, s) -> dict:
    """§6.7 invariants: launcher + discard + hands = 112, coloured top ⇒ its colour, a legal action while running."""
    sp = g.to_spec(s)
    cards = sp["draw_pile"] + sp["discard"] + [c for h in sp["hands"] for c in h]
    assert len(cards) == 112
    top = sp["discard"][-1]
    if top not in ("W", "WA") and sp["colour"] is not None:
        assert sp["colour"] == top[0]
    assert all(h >= 0 for h in s.hand_size)
    if s.is_over:
        assert g.legal_action_strings(s) == []
    else:
        assert g.legal_action_strings(s)
    return sp


def hand(g: Game, s, seat: int) -> Counter:
    return Counter(g.to_spec(s)["hands"][seat])


def legal(g: Game, s) -> set[str]:
    return set(g.legal_action_strings(s))


# =========================================================================== divergences found by the audit (fixed)

def test_spec_turn_with_empty_launcher_reloads_before_the_press():
    """§2.4 Reload / AMB-C2: "at the start of every turn, if the launcher is empty, shuffle all discards except
    the top into it". A scenario that starts P0's turn with an empty launcher and a reloadable discard pile:
    P0's press (K=1) must fire a card from the reloaded launcher."""
    g = game(3)
    s = build(g, current=0, discard=["G1", "G2", "R5"], hands=[["G3", "B4"], ["Y1"], ["Y2"]],
              draw_pile=[], unplaced="discard", launcher=[1])
    step(g, s, "press")
    assert s.hand_size[0] == 3, "P0's turn began with an empty launcher: it should have been reloaded"
    assert s.current_seat == 1


@pytest.mark.parametrize("n,direction", [(2, 1), (3, 1), (4, 1), (4, -1)])
def test_last_card_reverse_is_not_resolved(n, direction):
    """CORE-24: before scoring only the final card's draw effects on others are resolved; "Skips, reverses ...
    are not resolved". A Reverse played as the last card must leave the direction unchanged."""
    g = game(n)
    others = [["Y1", "B2"], ["Y3", "B4"], ["Y5", "B6"]][: n - 1]
    s = build(g, current=0, direction=direction, discard=["R7"], hands=[["RR"]] + others)
    step(g, s, "play RR")
    assert s.is_over and s.winner == 0
    assert g.to_spec(s)["direction"] == direction


# =========================================================================== verified rules not covered elsewhere

def test_exhausted_launcher_presses_end_turns_then_round_blocked():
    """CORE-12 / T19 in Attack: launcher empty and the discard pile is only its top card: a press fires nothing
    (no reload possible) and ends the turn; after n such turns the round ends blocked, nobody scores."""
    g = game(3)
    p0 = ["G3", "B4", "Y6"]  # no red, no 5, no wild: P0 can only press
    s = build(g, current=0, discard=["R5"], hands=[p0, 54, 54], draw_pile=[], launcher=[1, 1, 1])
    assert len(s.draw_pile) == 0
    assert legal(g, s) == {"press"}
    step(g, s, "press")
    assert s.current_seat == 1 and s.phase == "TURN" and s.hand_size[0] == 3
    step(g, s, "press", "press")
    assert s.is_over and s.winner is None
    sp = g.to_spec(s)
    assert sp["pending"]["blocked"] is True and sp["pending"]["round_points"] == [0, 0, 0]
    assert s.scores == [0, 0, 0] and list(s.returns) == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("dealer", [0, 1])
def test_starter_skip_two_players_dealer_starts(dealer):
    """§2.4 starter Skip "起始玩家被跳過由下一位玩家開始" with n=2 (CORE-28): the first player is skipped, so the
    dealer plays first."""
    g = game(2)
    s = build(g, start=True, dealer=dealer, draw_pile=["YS", "G1"], hands=[["R1", "B2"], ["R3", "B4"]])
    assert s.current_seat == dealer and s.phase == "TURN" and s.direction == 1
    assert g.to_spec(s)["colour"] == "Y"


def test_mass_hit_hit_then_wild_attack_then_hit_back_to_first_hitter():
    """§2.4 Mass Hit 1-6: P0 Hit 1 (1) → P1 answers with WA (3) aimed at P3 → P3 adds Hit 2 (5) aimed at
    next(P3) = P0 → P0 (no hit card) presses 5 times; play resumes after the first hitter (P1); colour of the
    top card (R)."""
    g = game(4)
    s = build(g, current=0, discard=["G3"],
              hands=[["G-H1", "R3", "R4"], ["WA", "B6", "B7"], ["Y1", "Y2"], ["R-H2", "Y6", "Y7"]],
              launcher=[1] * 6)
    step(g, s, "play G-H1", "play WA", "colour B", "target P3")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 3
    assert legal(g, s) == {"play R-H2", "accept"}
    step(g, s, "play R-H2")
    assert s.hand_size[0] == 2 + 5
    assert g.to_spec(s).get("launcher") == [1]
    assert s.current_seat == 1 and s.phase == "TURN"
    assert g.to_spec(s)["colour"] == "R"
    assert [s.hand_size[q] for q in (1, 2, 3)] == [2, 2, 2]


def test_two_players_responder_last_hit_card_wins_hitter_absorbs():
    """AMB-C10, n=2: P0 Hit 1 → P1 answers with its last card (Hit 2) → P0 absorbs 3 with no response, round ends;
    P1 scores P0's hand including the pressed cards."""
    g = game(2)
    s = build(g, current=0, discard=["G3"], hands=[["G-H1", "R3", "B-H1"], ["R-H2"]],
              draw_pile=["Y1", "Y2", "Y3"], launcher=[1, 1, 1])
    step(g, s, "play G-H1")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 1
    step(g, s, "play R-H2")
    assert s.is_over and s.winner == 1
    assert hand(g, s, 0) == Counter(["R3", "B-H1", "Y1", "Y2", "Y3"])
    assert s.scores[1] == 3 + 20 + 1 + 2 + 3


def test_wild_attack_is_never_challengeable_and_target_only_stacks_or_accepts():
    """CORE-19 (Wild Attack cannot be challenged) and §5.5 T4: the attacked player may only add a hit card or accept."""
    g = game(3)
    s = build(g, current=0, discard=["G3"], hands=[["WA", "G5", "R3"], ["R-H1", "B2", "W"], ["Y1", "Y2"]],
              launcher=[1, 1])
    step(g, s, "play WA", "colour R", "target P1")
    assert s.phase == "STACK_RESPONSE" and s.current_seat == 1
    assert legal(g, s) == {"play R-H1", "accept"}
    step(g, s, "accept")
    assert s.hand_size[1] == 5 and s.current_seat == 2  # advance(P0, 2)


def test_uno_decide_wild_attack_second_to_last_target_cannot_answer():
    """§1.6 step 7 / CORE-22 decide: the colour and target come first, a target with no hit card presses as part of
    the effect, then the placer's CALL / NO_CALL; NO_CALL ⇒ 2 presses; play resumes at advance(P0, 2)."""
    g = game(3, uno_call="decide")
    s = build(g, current=0, discard=["G3"], hands=[["WA", "R3"], ["Y5", "B6"], ["Y6", "B7"]],
              draw_pile=["Y1", "Y2", "B1", "B2"], launcher=[1, 1, 1, 1])
    step(g, s, "play WA", "colour B", "target P2")
    assert s.phase == "UNO_CALL" and s.current_seat == 0
    assert hand(g, s, 2) == Counter(["Y6", "B7", "Y1", "Y2"])
    step(g, s, "no-call")
    assert hand(g, s, 0) == Counter(["R3", "B1", "B2"])
    assert s.current_seat == 2 and s.phase == "TURN"


def test_two_players_hit_two_empties_launcher_hitter_turn_reloads():
    """§2.4 Reload + CORE-28: after a Hit 2 pressed off by the opponent (the launcher runs dry, the second press is
    forfeited) the hitter's fresh turn starts with a reloaded launcher (discards but the top)."""
    g = game(2)
    s = build(g, current=0, discard=["G1", "G3"], hands=[["G-H2", "R3", "R4"], ["Y5", "B6"]],
              draw_pile=["Y1"], unplaced="discard", launcher=[1, 1])
    step(g, s, "play G-H2")
    sp = g.to_spec(s)
    assert hand(g, s, 1) == Counter(["Y5", "B6", "Y1"])
    assert s.current_seat == 0 and s.phase == "TURN"
    assert sp["discard"] == ["G-H2"] and len(sp["draw_pile"]) == 112 - 5 - 1


@pytest.mark.parametrize("n", [1, 11])
def test_player_count_outside_2_to_10_rejected(n):
    """AMB-C11: 2-10 players."""
    with pytest.raises(Exception):
        Game("attack", num_players=n)


def test_no_zero_cards_and_deal():
    """AMB-C16 (numbers 1-9 only) and CORE-2/CORE-3 (7 cards each; the rest, minus the starter, in the launcher)."""
    with pytest.raises(Exception):
        build(game(4), discard=["R0"])
    g = Game("attack", num_players=4)
    for seed in range(20):
        s = g.new_state(seed=seed)
        sp = g.to_spec(s)
        if sp["discard"][0].endswith(("-H1", "-H2")):
            continue  # a starter Hit has already made the first player press
        assert [len(h) for h in sp["hands"]] == [7, 7, 7, 7]
        assert len(sp["discard"]) == 1 and len(sp["draw_pile"]) == 112 - 28 - 1
        assert sp["discard"][0] != "WA"  # AMB-C5: a Wild Attack starter goes back into the launcher


# =========================================================================== differential check against a reference model

def _col(c):
    return None if c in ("W", "WA") else c[0]


def _rank(c):
    return c if c in ("W", "WA") else c[1:].lstrip("-")


def _is_hit(c):
    return c == "WA" or _rank(c) in ("H1", "H2")


def _hits(c):
    return 2 if c in ("WA",) or _rank(c) == "H2" else 1


_VALUES = {"R": 20, "S": 20, "DA": 30, "H1": 20, "H2": 40}


class _Ref:
    """Independent model of §2.4 (uno_call always/decide, fixed launcher of k cards per press)."""

    def __init__(self, sp, k, opts):
        self.n = sp["players"]
        self.hands = [Counter(h) for h in sp["hands"]]
        self.launcher, self.discard = list(sp["draw_pile"]), list(sp["discard"])
        self.colour, self.dir, self.cur = sp["colour"], sp["direction"], sp["current"]
        self.phase, self.pen, self.k, self.opts = "TURN", None, k, opts
        self.over, self.winner, self.scores = False, None, list(sp["scores"])
        self.idle, self.progress, self.wild, self.uno = 0, False, None, None

    def nxt(self, p, k=1):
        return (p + k * self.dir) % self.n

    def legal(self):
        h = self.hands[self.cur]
        if self.phase == "TURN":
            top = self.discard[-1]
            return {f"play {c}" for c in h if h[c] and (_col(c) is None or _col(c) == self.colour
                                                         or (_col(top) is not None and _rank(c) == _rank(top)))} | {"press"}
        if self.phase == "CHOOSE_COLOUR":
            return {f"colour {c}" for c in "RYGB"}
        if self.phase == "CHOOSE_TARGET":
            return {f"target P{q}" for q in range(self.n) if q != self.cur}
        if self.phase == "UNO_CALL":
            return {"call", "no-call"}
        return {f"play {c}" for c in h if h[c] and _is_hit(c)} | {"accept"}

    def press(self, seat, times):
        for _ in range(times):
            if not self.launcher:
                break  # forfeited, no reload during an obligation
            for _ in range(min(self.k, len(self.launcher))):
                self.hands[seat][self.launcher.pop(0)] += 1
            self.progress = True

    def start_turn(self, seat):
        if self.progress:
            self.idle = 0
        else:
            self.idle += 1
            if self.idle >= self.n:
                return self.end(None)
        self.progress, self.cur, self.phase = False, seat, "TURN"
        if not self.launcher and len(self.discard) > 1:
            self.launcher, self.discard = None, [self.discard[-1]]  # reloaded: order read from the engine

    def end(self, w):
        self.over, self.winner, self.phase = True, w, "GAME_OVER"
        if w is not None:
            for q in range(self.n):
                for c, m in self.hands[q].items():
                    r = _rank(c)
                    self.scores[w] += m * (50 if c in ("W", "WA") else int(r) if r.isdigit() else _VALUES[r])

    def maybe_uno(self, p, cont):
        if self.opts.get("uno_call") == "decide" and sum(self.hands[p].values()) == 1:
            self.uno, self.phase, self.cur = (p, cont), "UNO_CALL", p
        else:
            cont()

    def step(self, a):
        w = a.split()
        if self.phase == "TURN":
            if a == "press":
                self.press(self.cur, 1)
                return self.start_turn(self.nxt(self.cur))
            return self.place(self.cur, w[1])
        if self.phase == "CHOOSE_COLOUR":
            self.colour = w[1]
            p, c = self.wild
            if c == "WA":
                self.phase = "CHOOSE_TARGET"
                return
            return self.after(p, c, None)
        if self.phase == "CHOOSE_TARGET":
            return self.after(*self.wild, int(w[1][1:]))
        if self.phase == "UNO_CALL":
            (p, cont), self.uno = self.uno, None
            if a == "no-call":
                self.press(p, 2)
            return cont()
        if a == "accept":
            return self.absorb()
        return self.place(self.cur, w[1])

    def place(self, p, c):
        self.hands[p][c] -= 1
        self.discard.append(c)
        self.progress = True
        if _col(c) is None:
            self.wild, self.phase, self.cur = (p, c), "CHOOSE_COLOUR", p
            return
        self.colour = _col(c)
        self.after(p, c, None)

    def after(self, p, c, target):
        h = self.hands[p]
        final = sum(h.values()) == 0
        if _is_hit(c):
            target = self.nxt(p) if target is None else target
            if self.pen is None:
                if c == "WA":
                    rule = self.opts.get("attack.wild_attack_resume", "second_from_attacker")
                    res = {"second_from_attacker": self.nxt(p, 2), "next_after_attacker": self.nxt(p),
                           "next_after_target": self.nxt(target)}[rule]
                else:
                    res = self.nxt(target)
                self.pen = dict(total=_hits(c), target=target, origin=p, resume=res)
            else:
                self.pen["total"] += _hits(c)
                self.pen["target"] = target
                first = self.opts.get("attack.mass_hit_resume", "after_first_hitter") == "after_first_hitter"
                self.pen["resume"] = self.nxt(self.pen["origin"]) if first else self.nxt(target)
            if final:  # CORE-24 / AMB-C10: absorbed without response, then the round ends
                self.press(target, self.pen["total"])
                self.pen = None
                return self.end(p)
            th = self.hands[target]
            if any(th[x] and _is_hit(x) for x in th):
                def respond():
                    self.phase, self.cur = "STACK_RESPONSE", target
                return self.maybe_uno(p, respond)
            pen, self.pen = self.pen, None
            self.press(pen["target"], pen["total"])
            return self.maybe_uno(p, lambda: self.start_turn(pen["resume"]))
        if final:
            return self.end(p)
        r = _rank(c)
        if r == "DA":
            moved = []
            for x in list(h):
                if h[x] and _col(x) == _col(c):
                    moved += [x] * h[x]
                    h[x] = 0
            self.discard[-1:-1] = moved
            if sum(h.values()) == 0:
                return self.end(p)
            nxt = self.nxt(p)
        elif r == "S":
            nxt = self.nxt(p, 2)
        elif r == "R":
            self.dir = -self.dir
            nxt = p if self.n == 2 else self.nxt(p)
        else:
            nxt = self.nxt(p)
        self.maybe_uno(p, lambda: self.start_turn(nxt))

    def absorb(self):
        pen, self.pen = self.pen, None
        self.press(pen["target"], pen["total"])
        self.start_turn(pen["resume"])


def _differential(seed, n, k, opts):
    g = Game("attack", num_players=n, **{"attack.launcher_model": "fixed", "attack.fixed_k": k}, **opts)
    s = g.new_state(seed=seed)
    if s.phase != "TURN":
        return 0
    ref = _Ref(g.to_spec(s), k, opts)
    rng = np.random.default_rng(seed)
    for i in range(3000):
        if s.is_over:
            break
        ctx = (seed, n, k, opts, i)
        assert (s.current_seat, str(s.phase)) == (ref.cur, ref.phase), ctx
        acts = sorted(g.legal_action_strings(s))
        assert set(acts) == ref.legal(), ctx
        plays = [a for a in acts if a != "press"]
        a = plays[int(rng.integers(len(plays)))] if plays and rng.random() < 0.8 else acts[int(rng.integers(len(acts)))]
        g.step(s, a)
        ref.step(a)
        sp = check(g, s)
        if ref.launcher is None:
            ref.launcher = list(sp["draw_pile"])
        ctx += (a,)
        assert s.is_over == ref.over, ctx
        if s.is_over:
            assert s.winner == ref.winner and list(s.scores) == ref.scores, ctx
            break
        assert [Counter(h) for h in sp["hands"]] == [+h for h in ref.hands], ctx
        assert sp["draw_pile"] == ref.launcher, ctx
        assert sp["discard"][-1] == ref.discard[-1] and Counter(sp["discard"]) == Counter(ref.discard), ctx
        assert sp["direction"] == ref.dir, ctx
        if ref.phase != "CHOOSE_COLOUR":
            assert sp["colour"] == ref.colour, ctx
    return i


@pytest.mark.slow  # thousands of random games against an independent model
def test_random_games_match_reference_model():
    """§2.4 (turn, press, Discard All, Skip/Reverse, hits, Mass Hit, resume rules AMB-C3/C4, last card AMB-C10,
    reload and forfeits AMB-C2, two players CORE-28, UNO decide CORE-22, scoring, blocked rounds CORE-12): random
    games step by step against an independent model (fixed launcher, so every burst is known)."""
    opts_list = [{}, {"uno_call": "decide"},
                 {"attack.wild_attack_resume": "next_after_target", "uno_call": "decide"},
                 {"attack.mass_hit_resume": "after_absorber"}, {"attack.wild_attack_resume": "next_after_attacker"}]
    steps = 0
    for seed in range(80):
        steps += _differential(seed, 2 + seed % 5, 1 + seed % 3, opts_list[seed % len(opts_list)])
    assert steps > 5000
