"""The rule set: a variant preset plus validated options, frozen.

Every option has a default (the behaviour docs/rules.md describes first), a type or a list of
allowed values, and a one-line doc. ``RuleSet.create`` rejects unknown keys, wrong values,
options of another variant and player counts outside the variant's range, naming the key
and what is allowed. YAML files in ``configs/rules`` map 1:1 onto ``RuleSet.from_dict``.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from .errors import RuleError, did_you_mean, short_repr
from .options import Option
from .variants import VARIANTS, get_variant


@dataclass(frozen=True)
class RuleSet:
    """A validated, immutable rule set: variant, player count and every option's value."""

    variant: str = "classic"
    num_players: int = 2
    options: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        """Validate the fields and complete the options with their defaults (so ``RuleSet(...)`` is ``create``)."""
        vdef = get_variant(self.variant)
        num_players = self.num_players
        if isinstance(num_players, bool) or not isinstance(num_players, numbers.Integral):
            raise RuleError(f"num_players = {short_repr(num_players)} must be an int in "
                            f"{vdef.min_players}..{vdef.max_players}")
        num_players = int(num_players)  # a numpy integer is stored as the int it is
        object.__setattr__(self, "num_players", num_players)
        if not vdef.min_players <= num_players <= vdef.max_players:
            raise RuleError(f"num_players = {num_players} is outside {self.variant}'s range "
                            f"{vdef.min_players}..{vdef.max_players}")
        if not isinstance(self.options, Mapping):
            raise RuleError(f"rule options must be a mapping of option names to values; got {short_repr(self.options)}")
        given = _flatten(self.options)
        schema = {o.key: o for o in vdef.options}
        values = {}
        for key, value in given.items():
            if key not in schema:
                raise RuleError(_unknown_option_message(key, self.variant, schema))
            values[key] = schema[key].validate(value)
        full = {o.key: values.get(o.key, o.default) for o in vdef.options}
        object.__setattr__(self, "options", MappingProxyType(full))

    @classmethod
    def create(cls, variant: str = "classic", num_players: int = 2,
               options: Mapping[str, Any] | None = None, **kw: Any) -> "RuleSet":
        """Validate a variant name, player count and options (mapping, keyword, or nested per-variant dict)."""
        if options is not None and not isinstance(options, Mapping):
            raise RuleError(f"rule options must be a mapping of option names to values; got {short_repr(options)}")
        return cls(variant, num_players, {**(options or {}), **kw})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RuleSet":
        """Rule set from a config mapping ``{variant, num_players, options}``."""
        if not isinstance(data, Mapping):
            raise RuleError(f"a rule config must be a mapping with keys variant, num_players, options; got "
                            f"{short_repr(data)}")
        unknown = set(data) - {"variant", "num_players", "players", "options"}
        if unknown:
            # a rule option written at the top level is the likely slip: say where options go
            hint = "; rule options go under 'options:'" if any(
                isinstance(k, str) and k.split(".")[0] in _all_option_roots() for k in unknown) else ""
            raise RuleError(f"unknown rule config key(s) {short_repr(sorted(unknown, key=str))}; allowed: "
                            f"variant, num_players, "
                            f"options{hint}")
        players = data.get("num_players", data.get("players", 2))
        return cls.create(data.get("variant", "classic"), players, data.get("options") or {})

    @classmethod
    def from_yaml(cls, path: str) -> "RuleSet":
        """Rule set from a YAML file (see ``configs/rules``), read by ``uno_env.safe_yaml.load_file``.

        A file that is empty, too large, not UTF-8 or not plain YAML (anchors, aliases) raises
        ``uno_env.safe_yaml.YamlFileError`` naming it; wrong content raises ``RuleError``.
        """
        from .safe_yaml import load_file

        return cls.from_dict(load_file(path, "a rule set: a mapping with keys variant, num_players, options"))

    def to_dict(self) -> dict:
        """Plain mapping that ``from_dict`` turns back into an equal rule set."""
        return {"variant": self.variant, "num_players": self.num_players,
                "options": {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()}}

    def changed_options(self) -> dict:
        """Options whose value differs from the default."""
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
            raise RuleError(f"rule set of {self.variant!r} has no option {short_repr(key)}") from None

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
            raise RuleError(f"rule option names must be strings; got {short_repr(key)}")
        full = prefix + key
        if isinstance(value, Mapping):
            out.update(_flatten(value, full + "."))
        else:
            out[full] = value
    return out


def _all_option_roots() -> set[str]:
    """Every option key of every variant, and the variant namespaces (``flex`` of ``flex.*``)."""
    return {o.key.split(".")[0] for v in VARIANTS.values() for o in v.options}


#: Option namespaces of the variants (``alphabet.*``, ``flex.*``, ``flip.*``, ``attack.*``).
VARIANT_NAMESPACES = ("alphabet", "flex", "flip", "attack")


def _unknown_option_message(key: str, variant: str, schema: Mapping[str, Option]) -> str:
    owners = [name for name, v in VARIANTS.items() if any(o.key == key for o in v.options)]
    prefix = key.split(".", 1)[0]
    if not owners and "." in key and prefix in VARIANT_NAMESPACES:
        owners = [prefix]
    if owners:
        return (f"rule option {short_repr(key)} does not apply to variant {variant!r} "
                f"(it belongs to {', '.join(owners)}); allowed options: {', '.join(schema)}")
    return (f"unknown rule option {short_repr(key)} for variant {variant!r}{did_you_mean(key, schema)}; "
            f"allowed options: {', '.join(schema)}")


def options_markdown() -> str:
    """Markdown reference of every variant's options (docs/rule-options.md is generated from it)."""
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
