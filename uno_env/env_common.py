"""What the PettingZoo and Gymnasium environments share: argument checks, spaces and episode rewards.

Kept apart from both adapters so that neither imports the other's framework.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from .errors import ActionOutOfSpaceError, RenderModeError
from .game import Game
from .observation import ObservationEncoder
from .rules import RuleSet
from .state import State

REWARD_MODES = ("win_loss", "points")


def game_for_env(variant: str, num_players: int, rules: RuleSet | None, rule_options: dict,
                 render_mode: str | None, reward: str) -> Game:
    """Check an environment's render mode and reward mode, and build its game."""
    if render_mode is not None and render_mode not in ("ansi", "human"):
        raise RenderModeError(f"render_mode {render_mode!r} is not supported; allowed: ansi, human, None")
    if reward not in REWARD_MODES:
        raise ValueError(f"reward {reward!r} is not supported; allowed: {', '.join(REWARD_MODES)}")
    backend = rule_options.pop("backend", None)  # "native" | "python"; None: the default (core.resolve)
    if rules is not None:
        return Game(rules, options=rule_options, backend=backend)
    return Game(variant, num_players, backend=backend, **rule_options)


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


def action_id(action, num_actions: int, agent: str = "the agent") -> int:
    """``action`` as an int id in ``0..num_actions-1``; raises ``ActionOutOfSpaceError`` for anything else.

    Accepts Python and numpy integers (and 0-d integer arrays), as ``Discrete.contains`` does; a float
    such as 1.5 is refused rather than truncated, and ``None`` is only for an agent that is done.
    """
    if type(action) is int:
        value = action
    elif isinstance(action, np.integer) or (isinstance(action, np.ndarray) and action.shape == ()
                                            and action.dtype.kind in "iu"):
        value = int(action)
    else:
        if action is None:
            raise ActionOutOfSpaceError(f"step(None) for {agent}, which is still playing: None is only for an agent "
                                        f"that is terminated or truncated; give an action id 0..{num_actions - 1}")
        raise ActionOutOfSpaceError(f"{action!r} ({type(action).__name__}) is not an action id: the action space is "
                                    f"Discrete({num_actions}), integers 0..{num_actions - 1}")
    if not 0 <= value < num_actions:
        raise ActionOutOfSpaceError(f"action {value} is outside the action space: integers 0..{num_actions - 1}")
    return value
