"""What the PettingZoo and Gymnasium environments share: argument checks, spaces and episode rewards.

Kept apart from both adapters so that neither imports the other's framework.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from .game import Game
from .observation import ObservationEncoder
from .rules import RuleSet
from .state import State

REWARD_MODES = ("win_loss", "points")


def game_for_env(variant: str, num_players: int, rules: RuleSet | None, rule_options: dict,
                 render_mode: str | None, reward: str) -> Game:
    """Check an environment's render mode and reward mode, and build its game."""
    if render_mode is not None and render_mode not in ("ansi", "human"):
        raise ValueError(f"render_mode {render_mode!r} is not supported; allowed: ansi, human, None")
    if reward not in REWARD_MODES:
        raise ValueError(f"reward {reward!r} is not supported; allowed: {', '.join(REWARD_MODES)}")
    if rules is not None:
        return Game(rules, options=rule_options)
    return Game(variant, num_players, **rule_options)


def observation_box(encoder: ObservationEncoder) -> spaces.Box:
    """The observation vector's space."""
    return spaces.Box(encoder.low, encoder.high, (encoder.size,), np.float32)


def final_rewards(game: Game, s: State, mode: str) -> list[float]:
    """Per-seat episode rewards: ``win_loss`` (the engine's returns) or ``points`` (/100; match totals in a match)."""
    if mode == "win_loss" or s.winner is None:
        return s.returns
    points = s.scores if game.match else s.round_points
    sign = 1.0 if game.scoring == "winner_takes" else -1.0  # penalty_low / elimination: lowest total wins
    return [sign * p / 100.0 for p in points]
