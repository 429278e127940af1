"""The contenders ``uno-env bench engine`` and ``bench env`` time: whole games through one interface each.

A contender plays whole games (``play_game(index) -> decisions``) and keeps its running totals;
``interleaved`` runs several in alternating slices so a busy machine slows all of them alike.
The engine facade, RLCard's bare ``UnoGame`` loop, a PettingZoo AEC env (ours or PettingZoo's RLCard
wrapper) and the Gymnasium env each have one. ``chooser`` is the policy they play: **matched** to
RLCard's random agent, or **uniform** over every legal id (see throughput.py's docstring).
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

from uno_env import Game

POLICIES = ("matched", "uniform")


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


def chooser(game: Game, policy: str, picker: UniformPicker) -> Callable[[list], int]:
    """``choose(legal ids) -> id`` for ``policy``; reads only the legal ids (what a mask tells)."""
    if policy not in POLICIES:
        raise ValueError(f"bench policy {policy!r} is unknown; allowed: {', '.join(POLICIES)}")
    pick = picker.pick
    if policy == "uniform":
        return lambda legal: legal[pick(len(legal))]
    L = game.layout
    draw, pass_, accept = L.draw, L.pass_, L.accept

    def choose(legal: list) -> int:
        last = legal[-1]
        n = len(legal)
        if last == draw:              # a turn: plays come first, draw is the last id
            return legal[pick(n - 1)] if n > 1 else draw
        if last == pass_:             # play the drawn (or first offered) card: RLCard plays a drawn card for you
            return legal[0]
        if last == accept:            # take the Wild Draw Four (RLCard has no challenge)
            return accept
        return legal[pick(n)]

    return choose


def rlcard_chooser(picker: UniformPicker) -> Callable[[list], int]:
    """RLCard's random agent: uniform over its legal actions (draw is legal only with nothing playable)."""
    pick = picker.pick
    return lambda legal: legal[pick(len(legal))]


class Contender:
    """One thing being measured: ``play_game(index) -> decisions``, with its running totals."""

    def __init__(self, name: str, play_game: Callable[[int], int]):
        self.name = name
        self.play_game = play_game
        self.games = self.decisions = 0
        self.seconds = 0.0

    def run_for(self, seconds: float) -> None:
        """Play whole games for about ``seconds`` (at least one game)."""
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            self.decisions += self.play_game(self.games)
            self.games += 1
            if time.perf_counter() >= deadline:
                break
        self.seconds += time.perf_counter() - start

    def row(self) -> dict:
        """Totals and rates."""
        return {"name": self.name, "games": self.games, "decisions": self.decisions, "seconds": self.seconds,
                "games_per_s": self.games / self.seconds, "rate": self.decisions / self.seconds,
                "decisions_per_game": self.decisions / self.games}


def interleaved(contenders: list[Contender], seconds: float, rounds: int = 10) -> list[dict]:
    """Run every contender for ``seconds`` in total, in ``rounds`` alternating slices; their rows."""
    live = [c for c in contenders if c is not None]
    for _ in range(rounds):
        for c in live:
            c.run_for(seconds / rounds)
    return [c.row() if c is not None else None for c in contenders]


def engine_contender(variant: str, players: int, policy: str = "matched", seed: int = 0,
                     backend: str | None = None, **options) -> Contender:
    """Games through the engine facade (``new_state`` / ``legal_actions`` / ``step``), a Python policy
    choosing each decision; on ``backend`` (the default backend when None)."""
    game = Game(variant, num_players=players, backend=backend, **options)
    choose = chooser(game, policy, UniformPicker(seed))
    legal_actions, step, new_state = game.legal_actions, game.step, game.new_state

    def play_game(i: int) -> int:
        state = new_state(seed + i)
        decisions = 0
        while not state.is_over:
            step(state, choose(legal_actions(state)))
            decisions += 1
        return decisions

    return Contender(f"uno_env {game.backend} {variant} {players}p", play_game)


def core_games_contender(variant: str, players: int, policy: str = "matched", seed: int = 0) -> Contender | None:
    """The same seeded games with the same policy played inside the compiled core, one call per game
    (the picks drawn from UniformPicker(seed)'s stream as the Python chooser draws them); None without
    the core. Each game's Generator is still made in Python (about 10 us of a game)."""
    from uno_env import core

    if not core.available() or not core.covers(Game(variant, num_players=players, backend="python").rules):
        return None
    game = Game(variant, num_players=players, backend="native")
    picker = np.random.default_rng(seed)  # UniformPicker(seed)'s stream

    def play_game(i: int) -> int:
        return core._core.play_out(game._tables, game.new_state(seed + i)._c, picker, matched)

    if policy not in POLICIES:
        raise ValueError(f"bench policy {policy!r} is unknown; allowed: {', '.join(POLICIES)}")
    matched = policy == "matched"

    return Contender(f"core whole games {variant} {players}p", play_game)


def rlcard_contender(players: int, seed: int = 0) -> Contender | None:
    """RLCard's bare ``UnoGame`` loop (init_game / step / is_over) with its random agent; None if absent."""
    try:
        from rlcard.games.uno.game import UnoGame
    except ImportError:
        return None
    game = UnoGame(num_players=players)
    game.np_random = np.random.RandomState(seed)
    choose = rlcard_chooser(UniformPicker(seed))

    def play_game(i: int) -> int:
        state, _ = game.init_game()
        decisions = 0
        while not game.is_over():
            state, _ = game.step(choose(state["legal_actions"]))
            decisions += 1
        return decisions

    return Contender(f"rlcard uno {players}p", play_game)


def aec_contender(make_env, name: str, choose: Callable[[list], int], seed: int = 0) -> Contender:
    """Games through a PettingZoo AEC env: ``agent_iter`` / ``last`` / ``step``; decisions = live-agent steps."""
    env = make_env()
    flatnonzero = np.flatnonzero

    def play_game(i: int) -> int:
        env.reset(seed=seed + i)
        decisions = 0
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(choose(flatnonzero(obs["action_mask"]).tolist())))
            decisions += 1
        return decisions

    return Contender(name, play_game)


def rlcard_pettingzoo_uno():
    """A factory ``make(wrapped)`` of PettingZoo's RLCard wrapper of UNO as it shipped, or None."""
    try:
        import rlcard  # noqa: F401
        from pettingzoo.classic.rlcard_envs.rlcard_base import RLCardBase
    except ImportError:
        return None

    class RLCardUno(RLCardBase):
        metadata = {"render_modes": [], "name": "uno_v4", "is_parallelizable": False}

        def __init__(self):
            super().__init__("uno", 2, (4, 4, 15))
            self.render_mode = None  # uno_v4's raw_env set this; RLCardBase reads it in step()

    def make(wrapped: bool = True):
        e = RLCardUno()
        return stock_wrapped(e) if wrapped else e

    return make


def stock_wrapped(env):
    """``env`` under PettingZoo's three standard classic-game wrappers, stacked as its classic envs do."""
    from pettingzoo.utils import wrappers

    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def gym_contender(variant: str, players: int, policy: str = "matched", seed: int = 0) -> Contender:
    """The Gymnasium single-agent env (learner and random opponents inside ``step``): learner steps."""
    from uno_env.gym_env import UnoEnv

    env = UnoEnv(variant, players)
    choose = chooser(env.game, policy, UniformPicker(seed))

    def play_game(i: int) -> int:
        env.reset(seed=seed + i)
        steps = 0
        done = False
        while not done:
            _obs, _r, term, trunc, _info = env.step(int(choose(np.flatnonzero(env.action_masks()).tolist())))
            done = term or trunc
            steps += 1
        return steps

    return Contender(f"gymnasium {variant} {players}p", play_game)
