"""``uno-env bench search``: the search path's speed: clones, hidden-information samples, rollouts, iterations.

Positions are taken from games played by the rollout policy (every decision with a choice, up to a
fixed number of positions); every contender works through the same positions, and the contenders
alternate for ``--rounds`` rounds so a busy machine slows all of them alike. Rows:

- ``clone``: ``Game.clone`` (an exact copy, generators included), per copy;
- ``sample (own generator)`` / ``sample (shared generator)``: ``Game.sample_hidden`` for the deciding
  seat, with a freshly seeded generator in the sample or the caller's (what the search uses);
- ``sample (shared, void_weight=0.2)``: the same, the hands weighted by the public void evidence;
- ``rollout``: rollout-policy decisions per second, playing each sampled position to its end;
- ``rollout, uniform random``: the same with uniformly random legal actions (the policy the core's
  whole-game rollout plays);
- ``ismcts``: search iterations per second and milliseconds per searched decision at ``--iterations``
  (the Python reference loop, ``engine=python``, on positions where the agent searches).

These run on the Python engine. Beside them, interleaved, the same positions on the compiled core where it
covers the rules: ``core ismcts`` (the core's twin of the search loop, ``engine=core``, the default),
``core clone`` and ``core sample (shared generator)`` through the facade (a Python call and a new
``NativeState`` each), the same inside the core (``inside the core``: many per call, what a search
running in the core pays: ``clone_many``, ``sample_many``), and ``core rollout, uniform random``
(whole games inside the core, ``play_random``).
"""
from __future__ import annotations

import time

import numpy as np

from agents.search import ISMCTSAgent, RolloutPolicy
from uno_env import Game
from uno_env.errors import short_repr

from train.errors import UsageError

#: Positions a measurement may hold (each a cloned state kept in memory; the default is 500).
MAX_POSITIONS = 10_000
#: Search iterations per searched decision at most (the default is 300; the tree grows with them).
MAX_ITERATIONS = 100_000
#: Interleaved rounds at most.
MAX_ROUNDS = 1_000


def positions(game: Game, count: int, seed: int = 0) -> list:
    """Up to ``count`` states with a choice to make, from rollout-policy games."""
    policy = RolloutPolicy(game)
    rng = np.random.default_rng(seed)
    out = []
    for game_seed in range(10_000):
        s = game.new_state(seed + game_seed)
        while not s.is_over and len(out) < count:
            legal = game.legal_actions(s)
            if len(legal) > 1:
                out.append(game.clone(s))
            game.step(s, policy.choose(s, legal, rng))
        if len(out) >= count:
            break
    return out


def measure(variant: str, players: int, iterations: int, count: int, rounds: int) -> list[dict]:
    """Rows of label, operations, seconds, rate (and ms per decision for the search)."""
    for name, value, high in (("iterations", iterations, MAX_ITERATIONS), ("positions", count, MAX_POSITIONS),
                              ("rounds", rounds, MAX_ROUNDS)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
            raise UsageError(f"bench search: {name} must be a whole number from 1 to {high:,}; got {short_repr(value)}")
    game = Game(variant, players, backend="python")
    states = positions(game, count)
    rng = np.random.default_rng(1)
    policy = RolloutPolicy(game)
    agent = ISMCTSAgent(game, seed=0, iterations=iterations, engine="python")
    # positions where the agent searches (not a call or a catch, taken without one): every one runs `iterations`
    searched = [s for s in states if agent.unsearched_action(s, game.legal_actions(s)) is None][:max(1, count // 25)]

    clone = _each(states, game.clone)
    sample_own = _each(states, lambda s: game.sample_hidden(s, s.current_seat, rng))
    sample_shared = _each(states, lambda s: game.sample_hidden(s, s.current_seat, rng, share_rng=True))
    sample_voids = _each(states, lambda s: game.sample_hidden(s, s.current_seat, rng, share_rng=True, void_weight=0.2))

    def rollout():
        done = 0
        for s in states:
            world = game.sample_hidden(s, s.current_seat, rng, share_rng=True)
            while not world.is_over:
                game.step(world, policy.choose(world, game.legal_actions(world), rng))
                done += 1
        return done

    def rollout_uniform():
        done = 0
        for s in states:
            world = game.sample_hidden(s, s.current_seat, rng, share_rng=True)
            while not world.is_over:
                legal = game.legal_actions(world)
                game.step(world, legal[int(rng.integers(len(legal)))])
                done += 1
        return done

    search = _each(searched, agent.act_state)

    contenders = [("clone", "copies/s", clone), ("sample (own generator)", "samples/s", sample_own),
                  ("sample (shared generator)", "samples/s", sample_shared),
                  ("sample (shared, void_weight=0.2)", "samples/s", sample_voids),
                  ("rollout", "decisions/s", rollout), ("rollout, uniform random", "decisions/s", rollout_uniform),
                  (f"ismcts iterations={iterations}", "decisions/s", search)] + \
        _core_contenders(game, states, searched, iterations, rng)
    totals = {label: [0, 0.0, unit] for label, unit, _ in contenders}
    for _ in range(rounds):
        for label, _, fn in contenders:
            start = time.perf_counter()
            totals[label][0] += fn()
            totals[label][1] += time.perf_counter() - start
    return [{"name": label, "count": n, "seconds": t, "rate": n / t, "unit": unit} for label, (n, t, unit) in
            totals.items()]


def _each(states: list, operation):
    """A contender applying ``operation`` to every state once; it returns how many it did."""
    def run() -> int:
        for s in states:
            operation(s)
        return len(states)

    return run


def _core_contenders(game: Game, states: list, searched: list, iterations: int, rng: np.random.Generator) -> list:
    """The same positions on the compiled core (none where it is not built or does not cover the rules)."""
    from uno_env import core

    if not core.available() or not core.covers(game.rules):
        return []
    from uno_env.core.native import from_python

    native = Game(game.rules, backend="native")
    twins = [from_python(native, s) for s in states]
    agent = ISMCTSAgent(native, seed=0, iterations=iterations, engine="core")
    search = _each([from_python(native, s) for s in searched], agent.act_state)

    clone = _each(twins, native.clone)
    sample = _each(twins, lambda s: native.sample_hidden(s, s.current_seat, rng, share_rng=True))
    per_call = 20  # copies or samples of one position per call inside the core

    def clone_inside():
        for s in twins:
            core._core.clone_many(s._c, per_call)
        return per_call * len(twins)

    def sample_inside():
        for s in twins:
            core._core.sample_many(native._tables, s._c, s.current_seat, rng, per_call)
        return per_call * len(twins)

    def rollout():
        done = 0
        for s in twins:
            world = native.sample_hidden(s, s.current_seat, rng, share_rng=True)
            done += core._core.play_random(native._tables, world._c, rng)
        return done

    return [("core clone", "copies/s", clone), ("core sample (shared generator)", "samples/s", sample),
            ("core clone, inside the core", "copies/s", clone_inside),
            ("core sample, inside the core", "samples/s", sample_inside),
            ("core rollout, uniform random", "decisions/s", rollout),
            (f"core ismcts iterations={iterations}", "decisions/s", search)]


def print_table(rows: list[dict], variant: str, players: int, iterations: int) -> None:
    """The rows of one table size."""
    print(f"{variant} {players}p (interleaved rounds)")
    for row in rows:
        extra = ""
        if "ismcts" in row["name"]:
            extra = f"  ({1000 / row['rate']:.1f} ms per searched decision, " \
                    f"{row['rate'] * iterations:,.0f} iterations/s)"
        elif row["unit"] != "decisions/s":
            extra = f"  ({1e6 / row['rate']:.1f} µs each)"
        print(f"  {row['name']:<34}{row['rate']:>12,.0f} {row['unit']}{extra}")
