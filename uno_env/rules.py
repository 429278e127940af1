"""The rule set: a variant preset plus validated options, frozen.

Every option has a default (the behaviour docs/rules.md describes first), a type or a list of
allowed values, and a one-line doc. ``RuleSet.create`` rejects unknown keys, wrong values,
options of another variant and player counts outside the variant's range, naming the key
and what is allowed. YAML files in ``configs/rules`` map 1:1 onto ``RuleSet.from_dict``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping

from .errors import RuleError, did_you_mean


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
            raise RuleError(f"rule option {self.key!r} = {value!r} {problem}")
        return value

    def _validate_type(self, value: Any) -> Any:
        if self.choices is not None:
            if isinstance(value, bool) and ("on" if value else "off") in self.choices:
                value = "on" if value else "off"  # YAML 1.1 reads on/off as booleans
            if value not in self.choices or isinstance(value, bool) != isinstance(self.choices[0], bool):
                raise RuleError(f"rule option {self.key!r} = {value!r} is not allowed; allowed values: {self.allowed()}")
            return value
        if self.type is bool:
            if not isinstance(value, bool):
                raise RuleError(f"rule option {self.key!r} = {value!r} must be a bool (true or false)")
            return value
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise RuleError(f"rule option {self.key!r} = {value!r} must be an int; allowed: {self.allowed()}")
        elif self.type is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise RuleError(f"rule option {self.key!r} = {value!r} must be a number; allowed: {self.allowed()}")
            value = float(value)
        elif self.type is tuple:
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise RuleError(f"rule option {self.key!r} = {value!r} must be a list")
            return tuple(value)
        elif self.type is str:
            if not isinstance(value, str):
                raise RuleError(f"rule option {self.key!r} = {value!r} must be a string")
            return value
        if self.minimum is not None and value < self.minimum or self.maximum is not None and value > self.maximum:
            raise RuleError(f"rule option {self.key!r} = {value!r} is out of range; allowed: {self.allowed()}")
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


@dataclass(frozen=True)
class RuleSet:
    """A validated, immutable rule set: variant, player count and every option's value."""

    variant: str
    num_players: int
    options: Mapping[str, Any] = field(repr=False)

    @classmethod
    def create(cls, variant: str = "classic", num_players: int = 2,
               options: Mapping[str, Any] | None = None, **kw: Any) -> "RuleSet":
        """Validate a variant name, player count and options (mapping, keyword, or nested per-variant dict)."""
        from .variants import get_variant

        vdef = get_variant(variant)
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise RuleError(f"num_players = {num_players!r} must be an int in {vdef.min_players}..{vdef.max_players}")
        if not vdef.min_players <= num_players <= vdef.max_players:
            raise RuleError(f"num_players = {num_players} is outside {variant}'s range "
                            f"{vdef.min_players}..{vdef.max_players}")
        given = _flatten({**(options or {}), **kw})
        schema = {o.key: o for o in vdef.options}
        values = {}
        for key, value in given.items():
            if key not in schema:
                raise RuleError(_unknown_option_message(key, variant, schema))
            values[key] = schema[key].validate(value)
        full = {o.key: values.get(o.key, o.default) for o in vdef.options}
        return cls(variant, num_players, MappingProxyType(full))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RuleSet":
        """Rule set from a config mapping ``{variant, num_players, options}``."""
        if not isinstance(data, Mapping):
            raise RuleError(f"a rule config must be a mapping with keys variant, num_players, options; got {data!r}")
        unknown = set(data) - {"variant", "num_players", "players", "options"}
        if unknown:
            raise RuleError(f"unknown rule config key(s) {sorted(unknown)}; allowed: variant, num_players, options")
        players = data.get("num_players", data.get("players", 2))
        return cls.create(data.get("variant", "classic"), players, data.get("options") or {})

    @classmethod
    def from_yaml(cls, path: str) -> "RuleSet":
        """Rule set from a YAML file (see ``configs/rules``)."""
        import yaml

        with open(path, encoding="utf-8") as fh:
            return cls.from_dict(yaml.safe_load(fh) or {})

    def to_dict(self) -> dict:
        """Plain mapping that ``from_dict`` turns back into an equal rule set."""
        return {"variant": self.variant, "num_players": self.num_players,
                "options": {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()}}

    def changed_options(self) -> dict:
        """Options whose value differs from the default."""
        from .variants import get_variant

        return {o.key: self.options[o.key] for o in get_variant(self.variant).options
                if self.options[o.key] != o.default}

    def replace(self, num_players: int | None = None, **options: Any) -> "RuleSet":
        """A new rule set with some values changed (validated again)."""
        return RuleSet.create(self.variant, self.num_players if num_players is None else num_players,
                              {**self.options, **options})

    def __getitem__(self, key: str) -> Any:
        try:
            return self.options[key]
        except KeyError:
            raise RuleError(f"rule set of {self.variant!r} has no option {key!r}") from None

    def __reduce__(self):
        return (RuleSet.create, (self.variant, self.num_players, dict(self.options)))

    def __hash__(self) -> int:
        return hash((self.variant, self.num_players, tuple(sorted(self.options.items()))))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RuleSet) and (self.variant, self.num_players, dict(self.options)) == \
            (other.variant, other.num_players, dict(other.options))


def _flatten(options: Mapping[str, Any], prefix: str = "") -> dict:
    """``{'flip': {'pairing': 'fixed'}}`` -> ``{'flip.pairing': 'fixed'}``; dotted keys pass through."""
    out = {}
    for key, value in options.items():
        if not isinstance(key, str):
            raise RuleError(f"rule option names must be strings; got {key!r}")
        full = prefix + key
        if isinstance(value, Mapping):
            out.update(_flatten(value, full + "."))
        else:
            out[full] = value
    return out


#: Option namespaces of the variants (``flex.*``, ``flip.*``, ``attack.*``).
VARIANT_NAMESPACES = ("flex", "flip", "attack")


def _unknown_option_message(key: str, variant: str, schema: Mapping[str, Option]) -> str:
    from .variants import VARIANTS

    owners = [name for name, v in VARIANTS.items() if any(o.key == key for o in v.options)]
    prefix = key.split(".", 1)[0]
    if not owners and "." in key and prefix in VARIANT_NAMESPACES:
        owners = [prefix]
    if owners:
        return (f"rule option {key!r} does not apply to variant {variant!r} "
                f"(it belongs to {', '.join(owners)}); allowed options: {', '.join(schema)}")
    return (f"unknown rule option {key!r} for variant {variant!r}{did_you_mean(key, schema)}; "
            f"allowed options: {', '.join(schema)}")


def options_markdown() -> str:
    """Markdown reference of every variant's options (docs/rule-options.md is generated from it)."""
    from .variants import VARIANTS

    lines = ["# Rule options", "",
             "Generated from the option schema in `uno_env/rules.py` (a test keeps this file in sync).",
             "Pass options as keywords (`Game(\"classic\", num_players=4, stacking=\"any\")`), as a mapping",
             "(`options={...}`, nested per variant or dotted), or in a YAML rule config (`configs/rules`).", ""]
    seen: dict[tuple, list[str]] = {}
    for name, vdef in VARIANTS.items():
        seen.setdefault(vdef.options, []).append(name)
    for options, names in seen.items():
        vdefs = [VARIANTS[n] for n in names]
        lines += [f"## {', '.join(names)}", ""]
        for v in vdefs:
            lines.append(f"- `{v.name}`: {v.doc}; {v.min_players}-{v.max_players} players, {v.hand_size} cards dealt.")
        lines += ["", "| option | default | allowed | meaning |", "|---|---|---|---|"]
        for o in options:
            lines.append(f"| `{o.key}` | `{o.default!r}` | {o.allowed()} | {o.doc} |")
        lines.append("")
    return "\n".join(lines)
