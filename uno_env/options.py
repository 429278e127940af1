"""Rule options as data: the schema of one option (``Option``) and the options every variant shares.

Variants add their own options (``uno_env/variants``); ``RuleSet`` (``rules.py``) validates a whole
set against the schema of its variant. Kept apart from ``rules.py`` so that the variants, which
declare options, do not import the rule sets built from them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from .errors import RuleError, short_repr


@dataclass(frozen=True)
class Option:
    """Schema of one rule option."""

    key: str
    default: Any
    doc: str
    choices: tuple | None = None
    type: type | None = None
    minimum: float | None = None
    maximum: float | None = None
    check: Callable[[Any], str | None] | None = None  # further validation: the problem in words, or None

    def allowed(self) -> str:
        """Human-readable description of the allowed values."""
        if self.choices is not None:
            return ", ".join(str(c) for c in self.choices)
        rng = ""
        if self.minimum is not None or self.maximum is not None:
            rng = f" in [{self.minimum if self.minimum is not None else '-inf'}, " \
                  f"{self.maximum if self.maximum is not None else 'inf'}]"
        return f"{self.type.__name__}{rng}"

    def validate(self, value: Any) -> Any:
        """Normalised value, or RuleError naming the key and the allowed values."""
        value = self._validate_type(value)
        problem = self.check(value) if self.check is not None else None
        if problem:
            raise RuleError(f"rule option {self.key!r} = {short_repr(value)} {problem}")
        return value

    def _validate_type(self, value: Any) -> Any:
        if self.choices is not None:
            if isinstance(value, bool) and ("on" if value else "off") in self.choices:
                value = "on" if value else "off"  # YAML 1.1 reads on/off as booleans
            if value not in self.choices or isinstance(value, bool) != isinstance(self.choices[0], bool):
                raise RuleError(f"rule option {self.key!r} = {short_repr(value)} is not allowed; allowed "
                                f"values: {self.allowed()}")
            return value
        if self.type is bool:
            if not isinstance(value, bool):
                raise RuleError(f"rule option {self.key!r} = {short_repr(value)} must be a bool (true or false)")
            return value
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise RuleError(f"rule option {self.key!r} = {short_repr(value)} must be an int; allowed: "
                                f"{self.allowed()}")
        elif self.type is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise RuleError(f"rule option {self.key!r} = {short_repr(value)} must be a number; allowed: "
                                f"{self.allowed()}")
            try:
                value = float(value)
            except OverflowError:  # an int too large for a float
                raise RuleError(f"rule option {self.key!r} = {short_repr(value)} is out of range; "
                                f"allowed: {self.allowed()}") from None
            if not math.isfinite(value):
                raise RuleError(f"rule option {self.key!r} = {value} must be a finite number; allowed: "
                                f"{self.allowed()}")
        elif self.type is tuple:
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise RuleError(f"rule option {self.key!r} = {short_repr(value)} must be a list")
            return tuple(value)
        elif self.type is str:
            if not isinstance(value, str):
                raise RuleError(f"rule option {self.key!r} = {short_repr(value)} must be a string")
            return value
        if self.minimum is not None and value < self.minimum or self.maximum is not None and value > self.maximum:
            raise RuleError(f"rule option {self.key!r} = {short_repr(value)} is out of range; allowed: "
                            f"{self.allowed()}")
        return value


#: Options of every variant (docs/rules.md §1).
COMMON_OPTIONS: tuple[Option, ...] = (
    Option("uno_call", "always", "UNO call model (CORE-22)", choices=("always", "decide", "explicit", "off")),
    Option("restricted_wild_bluffing", True,
           "restricted wilds may be played illegally and are enforced by challenge (CORE-17)", type=bool),
    Option("scoring_method", "winner_takes", "method 1 winner_takes or method 2 penalty_low (CORE-25/26)",
           choices=("winner_takes", "penalty_low")),
    Option("target_score", 500, "match target score (CORE-25)", type=int, minimum=1),
    Option("match", False, "one game is a whole match of rounds until target_score (CORE-27)", type=bool),
    Option("dealer_rotation", "clockwise", "dealer of later rounds in a match (AMB-G4)",
           choices=("clockwise", "random", "winner")),
    Option("two_player_reverse_as_skip", True, "with two players a Reverse acts as a Skip (AMB-G12)", type=bool),
    Option("max_steps", 5000, "decisions after which a game is truncated", type=int, minimum=1),
    Option("illegal_action_policy", "mask", "illegal actions are masked, and rejected with an error (§1.14; the "
           "penalising policy of HR-7 is not implemented)", choices=("mask",)),
)

#: The Classic family's own rules and the house rules of docs/rules.md §3.
CLASSIC_FAMILY_OPTIONS: tuple[Option, ...] = (
    Option("draw_rule", "draw_one", "draw one card, or draw until playable on a forced draw (HR-5)",
           choices=("draw_one", "draw_until_playable")),
    Option("two_player_wild_miss_draw", 1, "cards drawn by a 2-player opponent who does not follow a wild (AMB-F6)",
           choices=(1, 2)),
    Option("stacking", "off", "stacking of draw cards (HR-1)", choices=("off", "draw_two_only", "same_value", "any")),
    Option("jump_in", "off", "play an identical card out of turn (HR-2)", choices=("off", "on")),
    Option("jump_in_allow_wild", False, "wild cards may be jumped in on an identical wild (AMB-G7)", type=bool),
    Option("multi_play", "off", "play every card of one rank at once (HR-3)", choices=("off", "on")),
    Option("multi_play_first_match", "colour", "the first card of a multi-play must have the current colour, "
           "or only be legal (HR-3)", choices=("colour", "any_legal")),
    Option("multi_play_subset", "all", "a multi-play places every card of the rank, or any subset of 2+ (AMB-G8)",
           choices=("all", "any_subset")),
    Option("madness", "off", "deflect a draw penalty with a Skip or Reverse (HR-4)", choices=("off", "on")),
    Option("madness_colour_rule", "normal", "deflecting cards follow normal matching, or any colour (AMB-G10)",
           choices=("normal", "free")),
)
