"""``TurnHooks``: every point where a variant changes the shared turn machine, with the defaults in one place.

The turn machine (``turn.py``, ``game.py``) is written once; a variant changes it only through the fields
below. Its ``configure(game, options)`` returns the hooks it changes (``TurnHooks(draw_cards=..., ...)``,
every other field keeps its default here), and may also put tables of its own on the game for its own
handlers to read (Flip's face tables, Attack's launcher). ``Game`` copies each field onto itself, where the
hot path reads it, and keeps the object as ``game.hooks``.

| hook | default | who changes it |
|---|---|---|
| ``draw_one(g, s, seat) -> kind`` | one card from the pile, reshuffling the discard | Flip |
| ``draw_cards(g, s, seat, count) -> drawn`` | ``count`` cards | Flip (two-sided cards), Attack (launcher presses) |
| ``draw_action(g, s, seat)`` | None: the TURN draw draws one card | Attack (one press, turn over) |
| ``wild_steps(g, s, seat, kind) -> steps`` | the colour declaration | Flip (duels), Attack (Wild Attack's target) |
| ``agenda_steps`` | ``turn.STEPS`` | Flip (duel, Optimus placement) |
| ``colour_steps`` | ``{turn.COLOUR}`` | Flip (a duel ends in a colour declaration) |
| ``extra_handlers`` / ``extra_legal`` | none | Flip (the OPTIMUS_PLACE phase) |
| ``after_effect(g, s, seat, kind)`` | None | Flex (power card updates) |
| ``flex_turn_plays(g, s, seat) -> ids`` | None: no FLEX-mode plays | Flex |
| ``flex_target_kinds`` | none | Flex (FLEX plays that ask for a target) |
| ``flexable_counts`` | False | Flex (held flex cards count for the restricted-wild test) |
| ``self_target`` | False | Flex, Attack (the ``allow_self_target`` options) |
| ``early_call_kinds`` | none | Flip (the duels' UNO call comes before their effect) |
| ``on_turn_start(g, s)`` | None | Attack (the launcher reload) |
| ``until_wild_satisfies`` | False | Flip (a drawn wild ends a draw-until-colour) |
| ``wild_counts_as_match`` | None: the variant's declared default | Flex, Flip (their options) |
| ``physical`` | None | Flip (the tracker of the two-sided physical cards) |
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Callable, Mapping

from . import turn


@dataclass(frozen=True)
class TurnHooks:
    """The variant's changes to the turn machine; every field's default is the classic behaviour."""

    draw_one: Callable = turn.draw_one
    draw_cards: Callable = turn.draw_cards
    draw_action: Callable | None = None
    wild_steps: Callable = turn.wild_steps
    agenda_steps: tuple = turn.STEPS
    colour_steps: frozenset = frozenset((turn.COLOUR,))
    extra_handlers: Mapping = field(default_factory=dict)  # plain dicts: a Game is pickled into worker processes
    extra_legal: Mapping = field(default_factory=dict)
    after_effect: Callable | None = None
    flex_turn_plays: Callable | None = None
    flex_target_kinds: frozenset = frozenset()
    flexable_counts: bool = False
    self_target: bool = False
    early_call_kinds: frozenset = frozenset()
    on_turn_start: Callable | None = None
    until_wild_satisfies: bool = False
    wild_counts_as_match: bool | None = None
    physical: Any = None


#: The hook names, in declaration order (``Game`` copies each onto itself).
TURN_HOOK_NAMES = tuple(f.name for f in fields(TurnHooks))
