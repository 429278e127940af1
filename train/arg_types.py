"""Argument types for the command line that refuse out-of-range numbers with a message argparse prints.

Every number is bounded: its text is at most ``MAX_NUMBER_CHARS`` characters (``int()`` of a longer
one is slow, and refused past 4,300 digits) and its value at most ``MAX_COUNT``, far beyond any
count, size or duration these commands take, so a typo such as ``--games 1000000000000000000000``
is refused at once instead of starting work that never ends. NaN and infinity are refused too. An
error repeats at most a short excerpt of what was typed.
"""
from __future__ import annotations

import argparse
import math

from uno_env.errors import short_repr

from train.errors import EXIT_ERROR

#: Characters a number on the command line may have.
MAX_NUMBER_CHARS = 40
#: Largest value a whole-number or float option takes (a billion games, steps or seconds is already absurd).
MAX_COUNT = 1_000_000_000


def bounded_int(low: int, high: int = MAX_COUNT):
    """An argparse type: a whole number from ``low`` to ``high``."""
    def parse(text: str) -> int:
        digits = text.strip().lstrip("+-") if isinstance(text, str) else ""
        if len(text) > MAX_NUMBER_CHARS and digits and all(c in "0123456789_" for c in digits):
            side = f"{low} or more" if text.strip().startswith("-") else f"at most {high:,}"
            raise argparse.ArgumentTypeError(f"must be {side}; got a number of {len(digits):,} digits")
        value = _whole_number(text, f"a whole number, {low} or more")
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more; got {value}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}; got {value:,}")
        return value

    parse.__name__ = "whole number"  # (argparse names the type in some messages)
    return parse


def positive_int(text: str) -> int:
    """An int of 1 or more (at most ``MAX_COUNT``)."""
    return _positive_int(text)


_positive_int = bounded_int(1)


def non_negative_float(text: str) -> float:
    """A float of 0 or more (finite, at most ``MAX_COUNT``)."""
    if not isinstance(text, str) or len(text) > MAX_NUMBER_CHARS:
        raise argparse.ArgumentTypeError(f"expected a number, 0 or more; got {short_repr(text)}")
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, 0 or more; got {short_repr(text)}") from None
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"expected a number, 0 or more; got {short_repr(text)}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more; got {short_repr(text)}")
    if not math.isfinite(value) or value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_COUNT:,}; got {short_repr(text)}")
    return value


def positive_float(text: str) -> float:
    """A float above 0 (finite, at most ``MAX_COUNT``)."""
    value = non_negative_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be above 0; got 0")
    return value


def _whole_number(text: str, expected: str) -> int:
    if not isinstance(text, str) or len(text) > MAX_NUMBER_CHARS:
        raise argparse.ArgumentTypeError(f"expected {expected}; got {short_repr(text)}")
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}; got {short_repr(text)}") from None


class HelpFormatter(argparse.HelpFormatter):
    """Appends ``(default: ...)`` to options with a real default; keeps hand-made line breaks of texts."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:  # laid out by hand (the top-level epilog): keep it
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if not shows_default(action) or "%(default)" in text:
            return text
        default = format_default(action.default).replace("%", "%%")  # argparse %-formats the help later
        return f"{text} (default: {default})"


def shows_default(action: argparse.Action) -> bool:
    """Whether an option's default says something: not None, not a flag's False, not an empty list."""
    default = action.default
    if default is None or default is argparse.SUPPRESS or action.help in (None, argparse.SUPPRESS):
        return False
    if action.nargs == 0:  # store_true / store_false / help: the flag's presence is the value
        return False
    return not (isinstance(default, (list, tuple, str)) and len(default) == 0)


def format_default(default) -> str:
    """A default as it would be typed on the command line (lists space-separated)."""
    if isinstance(default, (list, tuple)):
        return " ".join(map(str, default))
    return str(default)


class Parser(argparse.ArgumentParser):
    """ArgumentParser whose help, and every sub-command's (they share the class), uses HelpFormatter."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        """Bad arguments: one line naming the command, as every other bad input (no usage block)."""
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    def add_subparsers(self, **kwargs):
        """Register the sub-commands' action, kept to name the sub-command in argument errors."""
        self.commands = super().add_subparsers(**kwargs)
        return self.commands

    def parse_known_args(self, args=None, namespace=None):
        """Unknown options are reported by the sub-command they were given to, not by ``uno-env``."""
        namespace, extras = super().parse_known_args(args, namespace)
        commands = getattr(self, "commands", None)
        if extras and commands is not None and getattr(namespace, "command", None) in commands.choices:
            commands.choices[namespace.command].error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras
