"""uno_env: a rules engine and RL environments for UNO and its variants.

Engine facade (docs/engine.md, "Using the engine"): ``Game(variant, num_players, **options)`` with
``new_state``, ``state_from_spec``/``to_spec``, ``legal_actions``/``legal_action_mask``/``legal_action_strings``,
``step``, ``action_to_string``/``action_from_string`` and ``clone``.
"""
__version__ = "0.1.0"  # the one place the version is written (pyproject reads it; CHANGELOG.md says what changed)

from .errors import (ActionParseError, CardNotationError, IllegalActionError, RenderModeError, RuleError,
                     SpecError, UnoError)
from .game import Game
from .rules import RuleSet
from .state import Phase, State
from .variants import VARIANTS

__all__ = ["__version__", "Game", "RuleSet", "State", "Phase", "VARIANTS", "UnoError", "RuleError", "SpecError",
           "CardNotationError", "IllegalActionError", "ActionParseError", "RenderModeError", "load_scenario"]


try:  # Gymnasium ids for every preset (the engine itself does not need gymnasium)
    from .registration import register_envs as _register_envs

    _register_envs()
except ImportError:  # pragma: no cover - gymnasium not installed
    pass


def __getattr__(name: str):
    # the environments import pettingzoo/gymnasium; the engine alone does not need them
    if name in ("env", "raw_env"):
        from . import aec_env

        return getattr(aec_env, name)
    if name == "VectorGames":
        from .vector import VectorGames

        return VectorGames
    raise AttributeError(f"module 'uno_env' has no attribute {name!r}")


def load_scenario(spec: dict) -> tuple[Game, State]:
    """The game a scenario spec describes and the state it builds."""
    game = Game.from_spec(spec)
    return game, game.state_from_spec(spec)
