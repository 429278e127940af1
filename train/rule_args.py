"""The rule-set arguments the commands share: ``--variant``, ``--players`` and ``--option KEY=VALUE``.

An option's value is read as one plain value, never as YAML: a word (``any``, a file path), a
number (``3``, ``0.25``, ``3e-4``), true/false (also yes/no and on/off, as YAML 1.1 reads them), or,
for the list options such as ``attack.burst_probs``, a flat list of numbers ``[0.5, 0.3, 0.2]``.
Nothing nested, no anchors or aliases, and at most ``MAX_OPTION_VALUE_CHARS`` characters, so neither
a value nor the error about it can grow beyond what was typed. The web server reads the ``options``
of its requests with the same ``parse_options``.
"""
from __future__ import annotations

import re

from uno_env import VARIANTS, RuleSet
from uno_env.errors import short_repr

from train.errors import UsageError

#: Characters an option's value may have (a deck manifest's path is the longest value of a real option).
MAX_OPTION_VALUE_CHARS = 1024
#: Characters an option's name may have (the longest real one has 40).
MAX_OPTION_KEY_CHARS = 200
#: Numbers a list value may hold.
MAX_OPTION_LIST_ITEMS = 64
#: ``--option`` pairs one command (or one web request) may give.
MAX_OPTIONS = 64

_INT = re.compile(r"[-+]?[0-9](?:_?[0-9])*")
_FLOAT = re.compile(r"[-+]?(?:[0-9](?:_?[0-9])*)?(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?")
_TRUE = ("true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON")
_FALSE = ("false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF")
_NULL = ("", "~", "null", "Null", "NULL")
#: First characters that would make YAML read a value as something other than a plain word.
_NOT_A_WORD = tuple("{}&*!|>%@`#,")

ALLOWED = ("a word, a number, true/false, or a flat list of numbers such as [0.5, 0.5]; "
           f"at most {MAX_OPTION_VALUE_CHARS} characters")


def add_rule_arguments(p, players: int, players_help: str = "number of players (the variant sets the range)") -> None:
    """Add ``--variant``, ``--players`` (default ``players``) and the repeatable ``--option`` to parser ``p``."""
    p.add_argument("--variant", default="classic", help=f"rule preset: {', '.join(VARIANTS)}")
    p.add_argument("--players", type=int, default=players, help=players_help)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="rule option, e.g. stacking=any (repeatable; see docs/rule-options.md); the value is a "
                        "word, a number, true/false or a flat list of numbers like [0.5, 0.5]")


def parse_options(pairs: list[str]) -> dict:
    """``["stacking=any", "jump_in=on"]`` -> dict; each value read by ``parse_value`` (UsageError if not plain)."""
    if len(pairs) > MAX_OPTIONS:
        raise UsageError(f"{len(pairs):,} rule options given; at most {MAX_OPTIONS} are allowed")
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or len(key) > MAX_OPTION_KEY_CHARS:
            raise UsageError(f"--option expects KEY=VALUE (e.g. stacking=any), got {short_repr(pair)}")
        out[key.strip()] = parse_value(value, key.strip())
    return out


def parse_value(text: str, key: str = "") -> object:
    """One option value: an int, float, bool, None, a word, or a flat list of numbers (see the module docs)."""
    where = f"--option {short_repr(f'{key}={text}' if key else text)}"
    if len(text) > MAX_OPTION_VALUE_CHARS:
        raise UsageError(f"{where}: the value has {len(text):,} characters; allowed: {ALLOWED}")
    value = text.strip()
    if any(ch in value for ch in "\n\r\0"):
        raise UsageError(f"{where}: a value is one line; allowed: {ALLOWED}")
    if value.startswith("["):
        return _number_list(value, where)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":  # a quoted word stays a word: 'on'
        return value[1:-1]
    if value.startswith(_NOT_A_WORD) or value.startswith(("- ", "? ", ": ")) or ": " in value or " #" in value \
            or value.endswith(":") or "]" in value:
        raise UsageError(f"{where}: the value is not a plain value; allowed: {ALLOWED}")
    if value in _NULL:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    number = _number(value)
    return value if number is None else number


def _number(text: str) -> int | float | None:
    """The int or float ``text`` spells, else None (words such as ``nan`` or ``inf`` stay words)."""
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text) and any(ch.isdigit() for ch in text):
        try:
            return float(text)
        except ValueError:
            return None
    return None


def _number_list(value: str, where: str) -> list:
    if not value.endswith("]") or "[" in value[1:] or "]" in value[:-1]:
        raise UsageError(f"{where}: the value is not a plain value (a list value is one flat list of numbers, "
                         f"nothing nested); allowed: {ALLOWED}")
    inner = value[1:-1].strip()
    items = [item.strip() for item in inner.split(",")] if inner else []
    if len(items) > MAX_OPTION_LIST_ITEMS:
        raise UsageError(f"{where}: a list of {len(items):,} items; at most {MAX_OPTION_LIST_ITEMS} are allowed")
    out = []
    for item in items:
        number = _number(item)
        if number is None:
            raise UsageError(f"{where}: the list item {short_repr(item)} is not a number; allowed: {ALLOWED}")
        out.append(number)
    return out


def rules_from_args(args) -> RuleSet:
    """The validated rule set of ``--variant``, ``--players`` and ``--option`` (RuleError names a bad one)."""
    return RuleSet.create(args.variant, args.players, parse_options(args.option))
