"""Argument types for the command line that refuse out-of-range numbers with a message argparse prints."""
from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """An int of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, 1 or more; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more; got {value}")
    return value


def non_negative_float(text: str) -> float:
    """A float of 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, 0 or more; got {text!r}") from None
    if not value >= 0:  # (also refuses nan)
        raise argparse.ArgumentTypeError(f"must be 0 or more; got {text}")
    return value


def positive_float(text: str) -> float:
    """A float above 0."""
    value = non_negative_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be above 0; got 0")
    return value
