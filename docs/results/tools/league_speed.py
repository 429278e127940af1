"""Rule-based agents deciding every seat of ``VectorGames`` on the core: in one call per batch, or row by row.

    .venv/bin/python docs/results/tools/league_speed.py [variant, default classic] [players, default 2]

Each contender plays 256 games on the compiled core with one agent deciding every seat: ``random``,
``greedy`` and ``heuristic`` through ``act_batch`` (every row in one call to uno_env/core/agents.cpp) and
through ``act`` row by row (Python). Samples/s of the whole loop (the
agents' decisions and ``VectorGames.step``, observations and masks written), five interleaved rounds.
"""
from __future__ import annotations

import sys
import time

import agents
from uno_env.vector import VectorGames

GAMES = 256


def contender(variant: str, players: int, name: str, batch: bool):
    vec = VectorGames(GAMES, variant, num_players=players, backend="native")
    vec.reset(seed=0)
    agent = agents.load(name, vec.game, seed=1)

    def run(steps: int) -> int:
        for _ in range(steps):
            if batch:
                actions = agent.act_batch(vec.obs, vec.mask)
            else:
                actions = [agent.act(vec.obs[i], vec.mask[i]) for i in range(GAMES)]
            vec.step(actions)
        return steps * GAMES

    return run


def main(variant: str, players: int) -> None:
    contenders = {f"{name}, {'act_batch' if batch else 'act row by row'}": contender(variant, players, name, batch)
                  for name in ("random", "greedy", "heuristic") for batch in (True, False)}
    totals = {label: [0, 0.0] for label in contenders}
    for _ in range(5):
        for label, run in contenders.items():
            start = time.perf_counter()
            totals[label][0] += run(200 if "batch" in label else 10)
            totals[label][1] += time.perf_counter() - start
    for label, (samples, seconds) in totals.items():
        print(f"| {variant} {players}p | {label} | {samples / seconds:,.0f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "classic", int(sys.argv[2]) if len(sys.argv) > 2 else 2)
