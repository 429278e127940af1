"""What do the other seats' own decisions reveal about their hands? A fair search that reads them.

``ismcts`` redraws the hidden hands uniformly (given the hand sizes and the cards seen). A player who
knows how the others play can do better: a seat that named red after a wild holds more red than any
other colour; one that drew held nothing playable; one that played a blue 7 rather than its green 5
scored the 7 higher. ``ReadsDecisionsSearch`` assumes every other seat plays as the ``heuristic`` agent
does (an exact model when it does, which is the four-player goal's table) and, at each of its
decisions, redraws every other hand from those that agree with that seat's decisions since it last took
a card it was not seen to play (after such a card the earlier hands cannot be rebuilt):

========  ==================================================================================
evidence  what a hand, with the cards the seat placed since added back, must satisfy
========  ==================================================================================
play      the heuristic's score of the card it placed at a turn is the highest of its legal plays
colour    the colour it named after a wild is the one it held most (ties: seen least in the discard)
draw      it drew at a turn, so it held nothing playable (but the drawn card, when kept as a wild)
========  ==================================================================================

The search is otherwise ``ismcts`` with its defaults. Only public facts are read: which seat decided
what, the cards placed, the colours named, the hand sizes, the discard pile. Classic's default rules
only (the heuristic's scores are rebuilt for its cards; other variants' power cards are not).

The agent must be told every decision at the table, which ``uno-env eval`` does not do, so this file
plays its own games: the same deals, seats and agent seeds as ``uno-env eval --variant classic
--players 4 --agents <agent> heuristic heuristic heuristic --seed S``, so the two pair game for game::

    uno-env eval --variant classic --players 4 --games 1008 --seed 500000 \\
        --agents ismcts heuristic heuristic heuristic --out runs/ev-ismcts
    python docs/results/tools/reads_decisions.py --games 1008 --seed 500000 --out runs/reads-decisions.jsonl \\
        --compare runs/ev-ismcts/games-played.jsonl
"""
from __future__ import annotations

import argparse
import json
import math
import os

import numpy as np

import agents
from agents.base import choose_action
from agents.rule_based import ATTACKING_WILDS, DRAW_EFFECTS, TEMPO_EFFECTS
from agents.search import ISMCTSAgent
from agents.view import ObservationView
from train.evaluation.stats import wilson_interval
from train.evaluation.tournament import schedule
from uno_env import Game
from uno_env.observation import ObservationEncoder
from uno_env.state import Phase, State


class _Evidence:
    """One decision of a seat: what its hand then must satisfy, and the cards it placed since."""

    __slots__ = ("kind", "data", "placed")

    def __init__(self, kind: str, data: list, num_kinds: int):
        self.kind = kind
        self.data = data
        self.placed = np.zeros(num_kinds)


class HeuristicEvidence:
    """Per seat, the evidence of its decisions under the heuristic's rules of play, read from the public record."""

    def __init__(self, game: Game):
        if game.rules.variant != "classic" or game.rules.changed_options():
            raise ValueError(f"reads_decisions models the heuristic under Classic's default rules only, not {game!r}")
        v = ObservationView(game)
        k = self.num_kinds = game.num_kinds
        self.game, self.layout = game, game.layout
        self.nonwild = ~np.asarray(v.is_wild)
        self.colour = np.where(self.nonwild, v.colour_of, 0)
        self.colours = np.zeros((k, len(game.deck.colours)))  # kind -> colour, wilds in none
        self.colours[np.flatnonzero(self.nonwild), self.colour[self.nonwild]] = 1
        effect = [v.effect_of[i] for i in range(k)]
        tempo = np.array([e in TEMPO_EFFECTS for e in effect])
        # the heuristic's play scores but for the colour term (and the parts that depend on the moment)
        self.points = 0.1 * np.asarray(v.points_of, dtype=float)
        self.tempo, self.tempo_draw = tempo, tempo & np.array([e in DRAW_EFFECTS for e in effect])
        self.attacking = np.array([e in ATTACKING_WILDS for e in effect])
        self.seats: list[list[_Evidence]] = [[] for _ in range(game.num_players)]
        self.pending: dict[int, _Evidence] = {}  # a draw whose drawn card's fate is not known yet
        self.last: tuple | None = None          # (hand sizes, seat, action) of the step being applied

    def observe(self, s: State, action: int) -> None:
        """Read the decision ``action`` of the seat deciding in ``s``, before it is applied."""
        self.settle(s)
        q, L = s.current_seat, self.layout
        self.last = (list(s.hand_size), q, action)
        if s.phase is Phase.TURN and action < L.draw:
            threat = s.hand_size[(q + s.direction) % s.num_players] <= 2
            wild = -30.0 + np.where(self.attacking, 25.0 if threat else -5.0, 0.0) + (40.0 if s.hand_size[q] <= 2 else 0.0)
            base = np.where(self.nonwild, self.points + np.where(self.tempo, 12.0 if threat else 1.0, 0.0)
                            + 3.0 * self.tempo_draw, wild)
            self.seats[q].append(_Evidence("play", [self._playable(s, q), base, action], self.num_kinds))
        elif s.phase is Phase.CHOOSE_COLOUR:
            seen = np.bincount(s.discard, minlength=self.num_kinds) @ self.colours
            self.seats[q].append(_Evidence("colour", [seen, action - L.colour0], self.num_kinds))
        elif s.phase is Phase.TURN and action == L.draw:
            self.pending[q] = _Evidence("draw", [self._playable(s, q), False], self.num_kinds)
        elif s.phase is Phase.PLAY_OR_KEEP_DRAWN and q in self.pending:
            self.pending[q].data[1] = action >= L.draw  # kept: the drawn card was a wild it held on to

    def settle(self, s: State) -> None:
        """Account for the last observed step, now applied: cards placed, cards taken, draws resolved."""
        if self.last is None:
            return
        sizes, q, action = self.last
        self.last = None
        placed_by_q = action < self.layout.draw
        for p in range(s.num_players):
            placed = int(placed_by_q and p == q)
            if placed:
                for ev in self.seats[p]:
                    ev.placed[action] += 1
            if s.hand_size[p] - sizes[p] + placed > 0:  # it took cards nobody saw
                self.seats[p] = []
                if not (p == q and action == self.layout.draw):
                    self.pending.pop(p, None)
        for p in list(self.pending):
            if s.current_seat != p or s.phase is not Phase.PLAY_OR_KEEP_DRAWN:
                self.seats[p].append(self.pending.pop(p))

    def _playable(self, s: State, q: int) -> np.ndarray:
        """Card kinds seat ``q`` could place now (in Classic, whatever else it holds)."""
        t = s.clone()
        t.hands[q] = [1] * self.num_kinds
        t.hand_size[q] = self.num_kinds
        t.legal = None
        out = np.zeros(self.num_kinds, bool)
        out[[a for a in self.game.legal_actions(t) if a < self.num_kinds]] = True
        return out

    def agrees(self, seat: int, hands: np.ndarray) -> np.ndarray:
        """For each row of ``hands`` (counts per kind, seat ``seat``'s hand now): does it fit every decision?"""
        ok = np.ones(len(hands), bool)
        for ev in self.seats[seat]:
            then = hands + ev.placed
            if ev.kind == "play":
                playable, base, played = ev.data
                score = base + 2.0 * (then @ self.colours)[:, self.colour] * self.nonwild
                best = np.where((then > 0) & playable, score, -np.inf).max(1)
                ok &= best <= score[:, played] + 1e-6
            elif ev.kind == "colour":
                seen, named = ev.data
                value = (then @ self.colours) * 100 - seen
                ok &= value[:, named] >= value.max(1) - 1e-9
            else:
                playable, kept_wild = ev.data
                live = then * playable
                ok &= (live.sum(1) == 1) & ((live * ~self.nonwild).sum(1) == 1) if kept_wild else live.sum(1) == 0
        return ok


class ReadsDecisionsSearch(ISMCTSAgent):
    """``ismcts`` whose sampled hands agree with the other seats' decisions, read as the heuristic's."""

    name = "reads-decisions"

    def __init__(self, game: Game, seed: int | None = None, bank_size: int = 1500, **options):
        super().__init__(game, seed, **options)
        self.evidence = HeuristicEvidence(game)
        self.bank_size = bank_size
        self.banks: dict[int, np.ndarray] = {}

    def observe(self, state: State, action: int) -> None:
        """Every decision at the table (this seat's too), before it is applied."""
        self.evidence.observe(state, action)

    def root_visits(self, state: State) -> dict[int, int]:
        """Draw the banks of agreeing hands, then search as ``ismcts``."""
        self.evidence.settle(state)
        self.banks = self.agreeing_hands(state)
        return super().root_visits(state)

    def agreeing_hands(self, state: State) -> dict[int, np.ndarray]:
        """Per other seat with evidence: hands of its size drawn from the unseen cards that fit it."""
        me, k = state.current_seat, self.game.num_kinds
        shown = {entry[1] for entry in state.shown}
        unseen = np.bincount(state.draw_pile, minlength=k)
        for q in range(state.num_players):
            if q != me:
                unseen = unseen + np.asarray(state.hands[q])  # as a multiset: public (the deck minus what is seen)
        pool = np.repeat(np.arange(k), unseen)
        banks = {}
        for q in range(state.num_players):
            if q == me or q in shown or not self.evidence.seats[q]:
                continue
            m = state.hand_size[q]
            pick = np.argpartition(self.rng.random((self.bank_size, len(pool))), m - 1, axis=1)[:, :m]
            hands = np.zeros((self.bank_size, k))
            np.add.at(hands, (np.repeat(np.arange(self.bank_size), m), pool[pick].ravel()), 1)
            fits = self.evidence.agrees(q, hands)
            if fits.any():  # none: the seat is not playing as the heuristic, its hand is drawn uniformly
                banks[q] = hands[fits].astype(int)
        return banks

    def world(self, state: State, me: int, rng: np.random.Generator) -> State:
        """A uniform world, then the seats with evidence given bank hands that fit the cards left, the rest redealt."""
        w = self.game.sample_hidden(state, me, rng, share_rng=True, void_weight=self.options["void_weight"])
        if not self.banks:
            return w
        k = self.game.num_kinds
        shown = {entry[1] for entry in state.shown}
        left = np.bincount(w.draw_pile, minlength=k)
        for q in range(w.num_players):
            if q != me and q not in shown:
                left = left + np.asarray(w.hands[q])
        taken = {}
        for q in rng.permutation(list(self.banks)).tolist():
            bank = self.banks[q]
            for _ in range(8):  # another seat's bank hand may have used the cards this one needs
                hand = bank[int(rng.integers(len(bank)))]
                if (hand <= left).all():
                    taken[q] = hand
                    left = left - hand
                    break
        if not taken:
            return w
        rest = np.repeat(np.arange(k), left)
        rest = rest[rng.permutation(len(rest))].tolist()
        for q in range(w.num_players):
            if q == me or q in shown:
                continue
            if q in taken:
                w.hands[q] = taken[q].tolist()
            else:
                m = w.hand_size[q]
                w.hands[q] = np.bincount(rest[:m], minlength=k).tolist()
                rest = rest[m:]
        w.draw_pile = rest
        return w


def play_against_heuristics(game: Game, make_agent, games: int, seed: int, out: str | None = None) -> list[dict]:
    """``make_agent(seed)`` against the heuristic in every other seat: ``uno-env eval``'s games, seats and seeds.

    An agent with an ``observe(state, action)`` method is told every decision before it is applied.
    """
    n = game.num_players
    enc = ObservationEncoder(game)
    seatings = schedule(n, n, games)  # the seatings of `uno-env eval --agents <agent> heuristic ...`
    rows = []
    with open(out, "w") if out else open(os.devnull, "w") as fh:
        for index in range(games):
            seating = seatings[index]
            seats = [make_agent(seed * 1_000_003 + index * 101 + q) if a == 0 else
                     agents.load("heuristic", game, seed=seed * 1_000_003 + index * 101 + q)
                     for q, a in enumerate(seating)]
            observer = getattr(seats[seating.index(0)], "observe", None)
            s = game.new_state(seed + index)
            while not s.is_over:
                action = choose_action(seats[s.current_seat], game, s, enc)
                if observer is not None:
                    observer(s, action)
                game.step(s, action)
            row = {"index": index, "seating": list(seating), "winner": s.winner}
            rows.append(row)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
    return rows


def _wins(rows) -> dict[int, int]:
    return {r["index"]: int(r["winner"] is not None and r["seating"][r["winner"]] == 0) for r in rows}


def paired_difference(rows: list[dict], other: list[dict]) -> tuple[int, float, float, float]:
    """Agent 0's win-rate difference on the games both played: (games, difference, 95% low, high)."""
    a, b = _wins(rows), _wins(other)
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        raise ValueError("the two sets of games share fewer than 2 game indices: nothing to pair")
    d = np.array([a[i] - b[i] for i in common], dtype=float)
    half = 1.96 * d.std(ddof=1) / math.sqrt(len(d))
    return len(d), float(d.mean()), float(d.mean() - half), float(d.mean() + half)


def main(argv: list[str] | None = None) -> dict:
    """Play the reading search against three heuristics; optionally pair it with an eval of the same games."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1008)
    parser.add_argument("--seed", type=int, default=500000)
    parser.add_argument("--iterations", type=int, default=300, help="search iterations per decision")
    parser.add_argument("--out", help="write one line per game (index, seating, winner) here")
    parser.add_argument("--compare", help="games-played.jsonl of a `uno-env eval` of the same games, agent first")
    args = parser.parse_args(argv)
    game = Game("classic", args.players, backend="python")  # it edits states: the Python engine
    rows = play_against_heuristics(game, lambda sd: ReadsDecisionsSearch(game, sd, iterations=args.iterations),
                                   args.games, args.seed, args.out)
    wins = sum(_wins(rows).values())
    low, high = wilson_interval(wins, len(rows))
    report = {"games": len(rows), "wins": wins, "win_rate": wins / len(rows), "ci95": [low, high]}
    print(f"reads-decisions: {wins}/{len(rows)} wins, {wins / len(rows):.1%} ({low:.1%}-{high:.1%})")
    if args.compare:
        with open(args.compare) as fh:
            other = [r for r in map(json.loads, fh) if "index" in r]
        n, diff, lo, hi = paired_difference(rows, other)
        report["paired"] = {"games": n, "difference": diff, "ci95": [lo, hi]}
        print(f"paired with {args.compare} on {n} games: {diff * 100:+.1f} points ({lo * 100:+.1f} to {hi * 100:+.1f})")
    return report


if __name__ == "__main__":
    main()
