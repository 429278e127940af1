"""A feature vector per action id: what an action-value network Q(s, a) reads about the action ``a``.

Pure rules knowledge, derived from the action layout (``uno_env/actions.py``) and the deck's tables
(``uno_env/cards.py``): the same for every state, so the whole table (``num_actions`` x F, float32)
is built once per game and stored with an action-value policy file. Blocks, in order
(A actions, R ranks of the deck, E = ``len(Effect)`` card effects, M the variant's most seats):

==============  ======  ===========================================================================
block           size    meaning
==============  ======  ===========================================================================
action          A       one-hot of the action id (every row differs here: the table has no equal rows)
kind            12      one-hot of what the action does: play, play flex, draw (Attack: press),
                        declare colour, target an opponent, target oneself, challenge, accept, call,
                        no-call, catch, pass
colour          5       the card's colour (the deck's four, then 4 = wild) for a play; the colour
                        declared for ``colour <C>``; zeros otherwise
rank            R       one-hot of the card's rank (``Deck.rank_names``: number, skip, ..., each wild) for a play
effect          E       one-hot of the card's effect (``cards.Effect``) for a play
dark_side       1       1 for a play of a Flip card's dark (D) face
points          1       the card's points / 50 for a play
target          M - 1   one-hot of the target's relative offset (1 .. M - 1) for ``target``
==============  ======  ===========================================================================

``ACTION_FEATURES_VERSION`` is bumped whenever the table changes; a policy file stores its own table,
so an older file keeps playing with the features it was trained on.
"""
from __future__ import annotations

import numpy as np

from .cards import NO_COLOUR, Effect

#: Bumped whenever the feature table changes (action-value policy files record it).
ACTION_FEATURES_VERSION = 1
#: The ``kind`` block's one-hot, in order.
ACTION_KINDS = ("play", "play_flex", "draw", "colour", "target", "target_self",
                "challenge", "accept", "call", "no-call", "catch", "pass")
#: Points are divided by this (the largest card's points in the shipped decks are 50 or 60).
POINTS_SCALE = 50.0


def action_feature_blocks(game) -> list[tuple[str, int]]:
    """(block, size) of ``game``'s feature table, in order (see the module docstring)."""
    layout, deck = game.layout, game.deck
    return [("action", layout.size), ("kind", len(ACTION_KINDS)), ("colour", 5), ("rank", len(deck.rank_names)),
            ("effect", len(Effect)), ("dark_side", 1), ("points", 1), ("target", game.variant.max_players - 1)]


def action_features(game) -> np.ndarray:
    """The (``num_actions`` x F) float32 feature table of ``game``'s actions (a new array)."""
    layout, deck = game.layout, game.deck
    blocks = action_feature_blocks(game)
    start, pos = {}, 0
    for name, size in blocks:
        start[name] = pos
        pos += size
    table = np.zeros((layout.size, pos), dtype=np.float32)
    kind_of = {name: i for i, name in enumerate(ACTION_KINDS)}

    def card(row: int, k: int) -> None:
        colour = deck.colour_of[k]
        table[row, start["colour"] + (4 if colour == NO_COLOUR else colour)] = 1.0
        table[row, start["rank"] + deck.rank_of[k]] = 1.0
        table[row, start["effect"] + int(deck.effect_of[k])] = 1.0
        table[row, start["dark_side"]] = float(deck.side_of[k] == 1)
        table[row, start["points"]] = deck.points_of[k] / POINTS_SCALE

    for a in range(layout.size):
        table[a, start["action"] + a] = 1.0
        if a < layout.num_kinds:
            kind = "play"
            card(a, a)
        elif layout.flex0 >= 0 and layout.flex0 <= a < layout.flex0 + layout.num_kinds:
            kind = "play_flex"
            card(a, a - layout.flex0)
        elif a == layout.draw:
            kind = "draw"
        elif layout.colour0 <= a < layout.colour0 + 4:
            kind = "colour"
            table[a, start["colour"] + a - layout.colour0] = 1.0
        elif layout.num_targets and layout.target0 <= a < layout.target0 + layout.num_targets:
            kind = "target"
            table[a, start["target"] + a - layout.target0] = 1.0
        elif a == layout.self_target >= 0:
            kind = "target_self"
        else:
            kind = ("challenge", "accept", "call", "no-call", "catch", "pass")[a - layout.challenge]
        table[a, start["kind"] + kind_of[kind]] = 1.0
    return table
