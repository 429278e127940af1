"""Exceptions raised for bad input. Each message names what was wrong and what is allowed."""
from __future__ import annotations

import difflib
import reprlib
from collections.abc import Iterable


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices`` to a misspelt ``word``, else ``""``."""
    choices = list(choices)
    same_but_case = [c for c in choices if c.lower() == word.lower()]
    close = same_but_case or difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


#: Characters of a user's value an error message repeats at most (a hostile value may be megabytes long).
ECHO_LIMIT = 80


def short_repr(value: object, limit: int = ECHO_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters, bounded in depth and items: never expands a huge value."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"<an int of {value.bit_length()} bits>"  # repr of a huge int is slow, or refused past 4,300 digits
    try:
        shown = _SHORT.repr(value)
    except (ValueError, RecursionError):  # a huge int deeper inside
        return f"<a {type(value).__name__} too large to show>"
    return shown if len(shown) <= limit else shown[:limit] + "..."


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxtuple, _SHORT.maxdict, _SHORT.maxset = 3, 6, 6, 4, 4
_SHORT.maxstring, _SHORT.maxlong, _SHORT.maxother = ECHO_LIMIT, 40, ECHO_LIMIT


class UnoError(ValueError):
    """Base class of every error this package raises for bad input."""


class RuleError(UnoError):
    """An invalid rule set: unknown option, wrong value, or a player count out of range."""


class SpecError(UnoError):
    """An invalid scenario spec: unknown card, too many copies, malformed key or impossible layout."""


class CardNotationError(SpecError):
    """A card name that is not valid notation for the variant's deck."""


class IllegalActionError(UnoError):
    """An action that is not legal in the current state (the message lists the legal ones)."""


class ActionParseError(IllegalActionError):
    """An action string or id that names no action of the game (an IllegalActionError too, as ``step`` promises)."""


class RenderModeError(UnoError, TypeError):
    """A render mode an environment does not have.

    Also a ``TypeError``, which is how SB3's ``make_vec_env`` learns that an env does not take its
    default ``render_mode="rgb_array"`` (it then builds the env without one).
    """


class ActionOutOfSpaceError(ActionParseError, AssertionError):
    """An environment action that is not an integer id inside the action space (or None for a live agent).

    Also an ``AssertionError``, as PettingZoo's ``AssertOutOfBoundsWrapper`` raises for the same mistake.
    """
