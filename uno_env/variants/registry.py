"""The variant registry: ``VariantDef`` (what a variant contributes) and the presets registered so far.

The variant modules import this module to register themselves; the package ``__init__`` imports
them all, so importing ``uno_env.variants`` fills the registry (and nothing imports back up).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from ..errors import RuleError, did_you_mean, short_repr
from ..options import Option


@dataclass(frozen=True)
class VariantDef:
    """What a variant contributes to the engine."""

    name: str
    min_players: int
    max_players: int
    hand_size: int
    deck: str                                  # manifest name in uno_env/decks
    options: tuple[Option, ...]                # full option schema (common + own)
    effects: Mapping[int, Callable]            # Effect -> handler(g, s, p, kind, count, final)
    start_round: Callable                      # starter rule: resolves the first discard, queues the first turn
    can_respond_with: Callable                 # (g, s, penalty, kind) -> bool: stack/deflect legality
    response_effects: tuple[int, ...] = ()     # effects of cards that may answer a pending penalty
    restricted_effects: tuple[int, ...] = (5,)  # effects of restricted, challengeable wilds (Effect.WILD_DRAW_FOUR)
    wild_counts_as_match: bool = False         # held wilds count for the restricted-wild test (CORE-16)
    challenge_fail_extra: int = 2              # extra cards an innocent-verdict challenger draws
    targets: bool = False                      # the action space has target actions
    flex_plays: bool = False                   # the action space has FLEX-mode play actions
    self_target_action: bool = False           # the action space has a "target yourself" action
    draw_word: str = "draw"
    phases: tuple = ()                         # phases beyond the common ones (observation one-hot)
    configure: Callable | None = None          # (g, options) -> None: variant tables and option flags on the Game
    deck_option: str | None = None             # rule option naming a replacement deck manifest file
    read_spec: Callable | None = None          # (g, s, spec) -> None: variant keys of a scenario spec
    spec_cards: Callable | None = None         # (g, spec) -> (pool Counter of kinds, parse(text) -> kind) for specs
    write_spec: Callable | None = None         # (g, s, spec) -> None: variant keys into to_spec's dict
    doc: str = ""
    extra: Mapping = field(default_factory=dict)


VARIANTS: dict[str, VariantDef] = {}


def register(vdef: VariantDef) -> VariantDef:
    """Add a variant preset to the registry."""
    VARIANTS[vdef.name] = vdef
    return vdef


def get_variant(name: str) -> VariantDef:
    """The registered variant of that preset name, or RuleError listing the presets."""
    if not isinstance(name, str) or name not in VARIANTS:
        hint = did_you_mean(name, VARIANTS) if isinstance(name, str) and len(name) <= 64 else ""
        raise RuleError(f"unknown variant {short_repr(name)}{hint}; available presets: {', '.join(VARIANTS)}")
    return VARIANTS[name]
