"""Seat-rotated head-to-head games between agents, with 95% confidence intervals."""
from __future__ import annotations

import math
from typing import Callable

import agents
from agents import choose_action
from uno_env import Game
from uno_env.observation import ObservationEncoder


def wilson_interval(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_game(game: Game, policies: list, seed: int, encoder: ObservationEncoder | None = None, step=None):
    """One game with one policy per seat; returns the final state. ``step`` replaces ``game.step`` (a recorder's)."""
    enc = encoder or ObservationEncoder(game)
    step = step or game.step
    s = game.new_state(seed)
    while not s.is_over:
        step(s, choose_action(policies[s.current_seat], game, s, enc))
    return s


def head_to_head(game: Game, make_agent: Callable[[int], object], make_opponent: Callable[[int], object],
                 games: int, seed: int = 0, first: int = 0) -> dict:
    """The agent in seat ``i % n`` of game ``i`` against opponents in every other seat, for games ``first`` to
    ``first + games - 1``.

    ``make_agent(i)`` / ``make_opponent(i)`` build fresh policies for game ``i`` (so seeding is per
    game and results do not depend on the order games are played in: a set of games split into
    ranges, each played apart, adds up to the same wins).
    """
    enc = ObservationEncoder(game)
    n = game.num_players
    wins = finished = 0
    for i in range(first, first + games):
        seat = i % n
        agent = make_agent(i)
        policies = [agent if q == seat else make_opponent(i * n + q) for q in range(n)]
        state = play_game(game, policies, seed + i, enc)
        finished += state.winner is not None
        wins += state.winner == seat
    low, high = wilson_interval(wins, games)
    return {"games": games, "wins": wins, "win_rate": wins / games, "ci95": [low, high],
            "no_winner": games - finished}


def evaluate_policy(agent_factory, game: Game, games: int, seed: int) -> dict:
    """Win rates of the agent against random and heuristic, seat-rotated, with 95% intervals."""
    out = {}
    for opponent in ("random", "heuristic"):
        out[opponent] = head_to_head(game, agent_factory, lambda i, o=opponent: agents.load(o, game, seed=seed + i),
                                     games, seed=seed)
    return out


def format_table(summary: dict) -> str:
    """A training summary's final evaluation as a text table (printed by ``uno-env train`` and ``uno-env rllib``)."""
    lines = []
    if summary["evaluation"]:
        lines.append(f"{'opponent':<12}{'games':>7}{'win rate':>10}{'95% interval':>18}")
    for opp, r in summary["evaluation"].items():
        lo, hi = r["ci95"]
        lines.append(f"{opp:<12}{r['games']:>7}{r['win_rate']:>10.1%}{f'{lo:.1%} - {hi:.1%}':>18}")
    lines.append(f"trained to step {summary['timesteps']:,} ({summary['trained_timesteps']:,} steps in "
                 f"{summary['seconds']:.0f} s, "
                 f"{summary['samples_per_second']:.0f} samples/s); policy: {summary['run_dir']}/policy.npz"
                 + (" (interrupted: not evaluated)" if summary.get("interrupted") else ""))
    return "\n".join(lines)
