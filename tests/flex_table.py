"""The Flex rule tests' helpers: a TURN state from a scenario spec, the legal action strings, stepping
actions and reading hand sizes. Shared by tests/rules/test_flex_rules.py and tests/rules/test_rules_audit_flex.py
(a helper module, not a test module).
"""
from __future__ import annotations

from uno_env import Game


def build(hands, discard, **spec):
    """A TURN state from a scenario spec (README "Scenario specs"); keyword arguments are spec keys (power, colour,
    draw_pile, options, direction, start, dealer, ...)."""
    spec = {"variant": "flex", "players": len(hands), "hands": hands, "seed": 0, **spec}
    if discard:
        spec["discard"] = list(discard)
    game = Game.from_spec(spec)
    return game, game.state_from_spec(spec)


def legal(game, state):
    return set(game.legal_action_strings(state))


def run(game, state, *actions):
    for action in actions:
        game.step(state, action)
    return game.to_spec(state)


def sizes(spec):
    return [len(h) for h in spec["hands"]]
