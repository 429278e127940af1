"""The variant hooks (``uno_env/hooks.py``): one object lists every change a variant makes to the turn machine."""
from __future__ import annotations

from dataclasses import fields

import pytest

from uno_env import Game, hooks
from uno_env.hooks import TURN_HOOK_NAMES, TurnHooks

DEFAULT = TurnHooks()

#: The hooks each variant changes from the classic defaults (docs: the table in uno_env/hooks.py).
CHANGED = {
    "classic": set(), "alphabet": set(), "xiangqi": set(),
    "flex": {"wild_counts_as_match", "flexable_counts", "self_target", "flex_target_kinds", "flex_turn_plays",
             "after_effect"},
    "flip": {"physical", "draw_one", "draw_cards", "wild_steps", "agenda_steps", "colour_steps", "extra_handlers",
             "extra_legal", "wild_counts_as_match", "until_wild_satisfies", "early_call_kinds"},
    "attack": {"draw_cards", "draw_action", "on_turn_start", "wild_steps", "self_target"},
}
#: Option values under which a variant's option-driven hooks differ from the defaults.
OPTIONS = {"flex": {"flex.allow_self_target": True, "flex.wd4_counts_flexable_cards": True,
                    "flex.wild_counts_as_match": True},
           "flip": {"flip.wdc_wild_satisfies": True, "flip.wild_counts_as_match": True},
           "attack": {"attack.allow_self_target": True}}


def _differs(a, b) -> bool:
    return a is not b and a != b


@pytest.mark.parametrize("variant", sorted(CHANGED))
def test_each_variant_changes_exactly_its_documented_hooks(variant):
    game = Game(variant, num_players=2, **OPTIONS.get(variant, {}))
    changed = {f.name for f in fields(TurnHooks) if _differs(getattr(game.hooks, f.name), getattr(DEFAULT, f.name))}
    assert changed == CHANGED[variant]


@pytest.mark.parametrize("variant", sorted(CHANGED))
def test_the_game_reads_the_hooks_it_was_given(variant):
    game = Game(variant, num_players=3)
    for name in TURN_HOOK_NAMES:
        if name == "wild_counts_as_match" and game.hooks.wild_counts_as_match is None:
            assert game.wild_counts_as_match is game.variant.wild_counts_as_match  # the variant's declared default
        else:
            assert getattr(game, name) is getattr(game.hooks, name)


def test_every_hook_is_in_the_documented_table():
    table = hooks.__doc__
    assert all(f"``{name}" in table for name in TURN_HOOK_NAMES)


def test_the_hooks_are_frozen():
    with pytest.raises(AttributeError):
        DEFAULT.self_target = True  # type: ignore[misc]


@pytest.mark.parametrize("variant", sorted(CHANGED))
def test_a_game_with_its_hooks_pickles(variant):
    """Worker processes (collectors, tournaments) receive the game pickled."""
    import pickle

    game = Game(variant, num_players=3)
    again = pickle.loads(pickle.dumps(game))
    assert again.hooks == game.hooks or variant == "flip"  # Flip's physical-card tracker compares by identity
    state = again.new_state(0)
    again.step(state, again.legal_actions(state)[0])
