"""``uno-env bench``: decisions per second of random legal play.

``uno-env bench engine`` plays random games through the engine facade (classic, 2 and 4
players) and, when RLCard is installed (``pip install 'uno-env[rlcard]'``), RLCard's bare UNO
game loop in the same process with the same random-choice method, and prints both rates.
"""
from __future__ import annotations

import time

import numpy as np

from uno_env import Game


class UniformPicker:
    """Uniform choice of a list index from an explicit Generator, drawn in blocks (cheap per call)."""

    def __init__(self, seed: int, block: int = 8192):
        self.rng = np.random.default_rng(seed)
        self.block = block
        self.values = self.rng.random(block).tolist()
        self.i = 0

    def pick(self, n: int) -> int:
        """An index in 0..n-1."""
        if self.i == self.block:
            self.values = self.rng.random(self.block).tolist()
            self.i = 0
        u = self.values[self.i]
        self.i += 1
        return int(u * n)


def bench_engine(variant: str, players: int, seconds: float, seed: int = 0, **options) -> dict:
    """Random legal games through the facade for ``seconds``: games, decisions, decisions/s."""
    game = Game(variant, num_players=players, **options)
    picker = UniformPicker(seed)
    legal_actions, step = game.legal_actions, game.step
    games = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_state(seed + games)
        while not state.is_over:
            legal = legal_actions(state)
            step(state, legal[picker.pick(len(legal))])
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"name": f"uno_env {variant} {players}p", "games": games, "decisions": decisions,
            "seconds": elapsed, "rate": decisions / elapsed}


def bench_rlcard(players: int, seconds: float, seed: int = 0) -> dict | None:
    """RLCard's bare UnoGame loop (init_game / step / is_over) with random legal actions; None if absent."""
    try:
        from rlcard.games.uno.game import UnoGame
    except ImportError:
        return None
    game = UnoGame(num_players=players)
    game.np_random = np.random.RandomState(seed)
    picker = UniformPicker(seed)
    games = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state, _ = game.init_game()
        while not game.is_over():
            legal = state["legal_actions"]
            state, _ = game.step(legal[picker.pick(len(legal))])
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"name": f"rlcard uno {players}p", "games": games, "decisions": decisions,
            "seconds": elapsed, "rate": decisions / elapsed}


def add_parser(sub) -> None:
    """Register the ``bench`` sub-command."""
    p = sub.add_parser("bench", help="throughput benchmarks")
    p.add_argument("target", choices=["engine"], help="what to measure")
    p.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    p.add_argument("--players", type=int, nargs="+", default=[2, 4])
    p.add_argument("--variant", default="classic")
    p.set_defaults(run=run)


def run(args) -> int:
    """Run the measurements and print a table."""
    print(f"{'what':<24}{'games':>8}{'decisions':>12}{'decisions/s':>14}{'ratio':>8}")
    for players in args.players:
        ours = bench_engine(args.variant, players, args.seconds)
        theirs = bench_rlcard(players, args.seconds)
        ratio = f"{ours['rate'] / theirs['rate']:.2f}x" if theirs else ""
        for row, r in ((ours, ratio), (theirs, "")):
            if row:
                print(f"{row['name']:<24}{row['games']:>8}{row['decisions']:>12}{row['rate']:>14,.0f}{r:>8}")
        if theirs is None:
            print(f"{'rlcard':<24}  not installed (pip install 'uno-env[rlcard]') - no comparison")
    return 0
