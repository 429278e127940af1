"""The rule-set arguments the commands share: ``--variant``, ``--players`` and ``--option KEY=VALUE``."""
from __future__ import annotations

import yaml

from uno_env import VARIANTS, RuleSet

from .errors import UsageError


def add_rule_arguments(p, players: int, players_help: str = "number of players (the variant sets the range)") -> None:
    """Add ``--variant``, ``--players`` (default ``players``) and the repeatable ``--option`` to parser ``p``."""
    p.add_argument("--variant", default="classic", help=f"rule preset: {', '.join(VARIANTS)}")
    p.add_argument("--players", type=int, default=players, help=players_help)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="rule option, e.g. stacking=any (repeatable; see docs/rule-options.md)")


def parse_options(pairs: list[str]) -> dict:
    """``["stacking=any", "jump_in=on"]`` -> dict, values read as YAML scalars (ints, bools)."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--option expects KEY=VALUE (e.g. stacking=any), got {pair!r}")
        try:
            out[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise UsageError(f"--option {pair!r}: the value is not a plain value (a word, number or true/false)") \
                from None
    return out


def rules_from_args(args) -> RuleSet:
    """The validated rule set of ``--variant``, ``--players`` and ``--option`` (RuleError names a bad one)."""
    return RuleSet.create(args.variant, args.players, parse_options(args.option))
