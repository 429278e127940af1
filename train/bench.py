"""``uno-env bench``: decisions per second of random legal play.

``uno-env bench engine`` plays random games through the engine facade (classic, 2 and 4
players) and, when RLCard is installed (``pip install 'uno-env[rlcard]'``), RLCard's bare UNO
game loop in the same process with the same random-choice method, and prints both rates.

``uno-env bench env`` does the same through ``uno_env.env(...)`` (PettingZoo AEC, observation and
mask built for every decision) against PettingZoo's RLCard wrapper of UNO
(``RLCardBase("uno", 2, (4, 4, 15))`` under the wrappers of ``texas_holdem_v4.env()``), and
reports the Gymnasium single-agent env's steps/s (learner and random opponents).
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


def _timed(name: str, seconds: float, play_game) -> dict:
    """Call ``play_game(index) -> decisions`` for ``seconds``: games, decisions, decisions/s."""
    games = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        decisions += play_game(games)
        games += 1
    elapsed = time.perf_counter() - start
    return {"name": name, "games": games, "decisions": decisions, "seconds": elapsed, "rate": decisions / elapsed}


def bench_engine(variant: str, players: int, seconds: float, seed: int = 0, **options) -> dict:
    """Random legal games through the facade for ``seconds``: games, decisions, decisions/s."""
    game = Game(variant, num_players=players, **options)
    picker = UniformPicker(seed)
    legal_actions, step = game.legal_actions, game.step

    def play_game(i: int) -> int:
        state = game.new_state(seed + i)
        decisions = 0
        while not state.is_over:
            legal = legal_actions(state)
            step(state, legal[picker.pick(len(legal))])
            decisions += 1
        return decisions

    return _timed(f"uno_env {variant} {players}p", seconds, play_game)


def bench_rlcard(players: int, seconds: float, seed: int = 0) -> dict | None:
    """RLCard's bare UnoGame loop (init_game / step / is_over) with random legal actions; None if absent."""
    try:
        from rlcard.games.uno.game import UnoGame
    except ImportError:
        return None
    game = UnoGame(num_players=players)
    game.np_random = np.random.RandomState(seed)
    picker = UniformPicker(seed)

    def play_game(i: int) -> int:
        state, _ = game.init_game()
        decisions = 0
        while not game.is_over():
            legal = state["legal_actions"]
            state, _ = game.step(legal[picker.pick(len(legal))])
            decisions += 1
        return decisions

    return _timed(f"rlcard uno {players}p", seconds, play_game)


def bench_aec(make_env, name: str, seconds: float, seed: int = 0) -> dict:
    """Random legal play through a PettingZoo AEC env: decisions (live-agent steps) per second."""
    env = make_env()
    picker = UniformPicker(seed)

    def play_game(i: int) -> int:
        env.reset(seed=seed + i)
        decisions = 0
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[picker.pick(len(legal))]))
            decisions += 1
        return decisions

    return _timed(name, seconds, play_game)


def rlcard_pettingzoo_uno():
    """PettingZoo's RLCard wrapper of UNO as it shipped, or None when rlcard is not installed."""
    try:
        import rlcard  # noqa: F401
        from pettingzoo.classic.rlcard_envs.rlcard_base import RLCardBase
        from pettingzoo.utils import wrappers
    except ImportError:
        return None

    class RLCardUno(RLCardBase):
        metadata = {"render_modes": [], "name": "uno_v4", "is_parallelizable": False}

        def __init__(self):
            super().__init__("uno", 2, (4, 4, 15))
            self.render_mode = None  # uno_v4's raw_env set this; RLCardBase reads it in step()

    def make(wrapped: bool = True):
        e = RLCardUno()
        if not wrapped:
            return e
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
        e = wrappers.AssertOutOfBoundsWrapper(e)
        return wrappers.OrderEnforcingWrapper(e)

    return make


def bench_gym(variant: str, players: int, seconds: float, seed: int = 0) -> dict:
    """Gymnasium single-agent env with random opponents: learner steps per second."""
    from uno_env.gym_env import UnoEnv

    env = UnoEnv(variant, players)
    picker = UniformPicker(seed)

    def play_game(i: int) -> int:
        env.reset(seed=seed + i)
        steps = 0
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _obs, _r, term, trunc, _info = env.step(int(legal[picker.pick(len(legal))]))
            done = term or trunc
            steps += 1
        return steps

    return _timed(f"gymnasium {variant} {players}p", seconds, play_game)


def add_parser(sub) -> None:
    """Register the ``bench`` sub-command."""
    p = sub.add_parser("bench", help="throughput benchmarks")
    p.add_argument("target", choices=["engine", "env"], help="what to measure")
    p.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    p.add_argument("--players", type=int, nargs="+", default=[2, 4])
    p.add_argument("--variant", default="classic")
    p.set_defaults(run=run)


def run(args) -> int:
    """Run the measurements and print a table."""
    print(f"{'what':<26}{'games':>8}{'decisions':>12}{'decisions/s':>14}{'ratio':>8}")
    if args.target == "engine":
        for players in args.players:
            ours = bench_engine(args.variant, players, args.seconds)
            _print_pair(ours, bench_rlcard(players, args.seconds), "rlcard")
    else:
        import uno_env

        make = rlcard_pettingzoo_uno()
        for wrapped in (True, False):  # the three standard wrappers cost the same for both envs
            label = "" if wrapped else " raw"
            factory = uno_env.env if wrapped else uno_env.raw_env
            ours = bench_aec(lambda f=factory: f(variant=args.variant, num_players=2),
                             f"uno_env AEC{label} {args.variant} 2p", args.seconds)
            theirs = bench_aec(lambda w=wrapped: make(w), f"pettingzoo rlcard uno{label} 2p",
                               args.seconds) if make else None
            _print_pair(ours, theirs, "pettingzoo rlcard uno")
        for players in args.players:
            _print_pair(bench_gym(args.variant, players, args.seconds), None, "")
    return 0


def _print_pair(ours: dict, theirs: dict | None, other: str) -> None:
    ratio = f"{ours['rate'] / theirs['rate']:.2f}x" if theirs else ""
    for row, r in ((ours, ratio), (theirs, "")):
        if row:
            print(f"{row['name']:<26}{row['games']:>8}{row['decisions']:>12}{row['rate']:>14,.0f}{r:>8}")
    if theirs is None and other:
        print(f"{other:<26}  not installed (pip install 'uno-env[rlcard]') - no comparison")
