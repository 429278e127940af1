"""Whole games per second: the compiled core beside the Python engine and RLCard, in one run, interleaved.

    .venv/bin/python docs/results/tools/core_speed.py [seconds per contender, default 10]

Every contender plays whole games with the benchmark's matched policy (train/benchmark/contenders.py:
RLCard's random agent's choices, drawn by the same UniformPicker arithmetic), in ten alternating
slices so that a busy machine slows all alike:

- ``python``: the Python engine through the facade (new_state, legal_actions, step), one game per seed;
- ``core, seeded``: the same games (same seeds, same picks) played inside the core, one call per game
  (the game's generator seeded in the core, as numpy seeds PCG64);
- ``core, one stream``: games dealt one after another from one continuing generator, 100 games per
  call (no Python per game; other deals than the seeded ones, the same policy);
- ``rlcard``: RLCard's bare UnoGame loop (classic only; every variant is compared with it).
"""
from __future__ import annotations

import sys

import numpy as np

from train.benchmark.contenders import Contender, engine_contender, interleaved, rlcard_contender
from uno_env import Game
from uno_env.core import _core

PER_CALL = 100


def core_seeded(variant: str, players: int, seed: int = 0) -> Contender:
    game = Game(variant, players, backend="native")
    picker = np.random.default_rng(seed)  # UniformPicker(seed)'s stream

    def play(i: int) -> int:
        state = game.new_state(seed + i)
        return _core.play_out(game._tables, state._c, picker, True)

    return Contender(f"core, seeded {variant} {players}p", play)


def core_stream(variant: str, players: int, seed: int = 0) -> Contender:
    game = Game(variant, players, backend="native")
    dealer, picker = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    return Contender(f"core, one stream {variant} {players}p",
                     lambda i: _core.play_games(game._tables, PER_CALL, dealer, picker, True))


def main(seconds: float) -> None:
    print("| what (matched policy) | games/s | decisions/s | dec/game | vs python per game | vs RLCard per game |")
    print("|---|---|---|---|---|---|")
    for variant, players in (("classic", 2), ("classic", 4), ("flex", 2), ("flex", 4), ("flip", 2), ("flip", 4), ("attack", 2), ("attack", 4)):
        contenders = [engine_contender(variant, players, backend="python"), core_seeded(variant, players),
                      core_stream(variant, players), rlcard_contender(players)]
        rows = interleaved(contenders, seconds)
        games = [r["games"] * (PER_CALL if "stream" in r["name"] else 1) / r["seconds"] if r else None for r in rows]
        for row, rate in zip(rows, games):
            if row is None:
                continue
            per_game = row["decisions"] / (rate * row["seconds"])
            vs_rlcard = f"{rate / games[3]:.1f}x" if games[3] else "-"
            print(f"| {row['name']} | {rate:,.0f} | {row['rate']:,.0f} | {per_game:.1f} | {rate / games[0]:.1f}x | "
                  f"{vs_rlcard} |")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0)
