"""Opponents by strength: ``level:easy``, ``level:medium``, ``level:hard``, ``level:expert``.

Each level is a named agent spec, so a player picks a strength without knowing the agents, and every tool
that takes a spec takes a level (``uno-env play --opponents level:hard``, the browser, ``uno-env eval``).
Beside each level the play tools show its measured win rate against ``heuristic`` at the table being
played, read from ``levels.json`` beside this module: seat-rotated games on deals no agent was tuned on,
written by ``docs/results/tools/levels.py`` (which also says how). A table it does not hold is shown as
not measured.

The search levels are bounded by iterations, so a seed gives the same game on any machine; ``expert``
also stops at 0.9 s a decision, a bound that only binds where the compiled core is not built (the
search then runs on the Python engine, about 30 times slower).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

from uno_env.errors import did_you_mean, short_repr


@dataclass(frozen=True)
class Level:
    name: str
    spec: str
    """The agent spec the level plays."""
    about: str
    """What it does, in a few words a player reads."""


#: The levels, weakest first.
LEVELS: dict[str, Level] = {level.name: level for level in (
    Level("easy", "greedy", "plays its highest-scoring card"),
    Level("medium", "heuristic", "the strongest rule-based player"),
    Level("hard", "ismcts:iterations=300", "searches 300 sampled deals a decision"),
    Level("expert", "ismcts:iterations=10000,time=0.9", "searches 10,000 sampled deals a decision"),
)}

PREFIX = "level:"
MEASURED = os.path.join(os.path.dirname(__file__), "levels.json")
"""The measured win rates (``docs/results/tools/levels.py`` writes it)."""


class LevelError(ValueError):
    """A ``level:`` spec naming no level."""


def is_level(spec: str) -> bool:
    return isinstance(spec, str) and spec.startswith(PREFIX)


def level_of(spec: str) -> Level:
    """The level a ``level:<name>`` spec names (LevelError listing the levels otherwise)."""
    name = spec[len(PREFIX):]
    level = LEVELS.get(name)
    if level is None:
        raise LevelError(f"no level {short_repr(name)}{did_you_mean(name, list(LEVELS))}; levels: "
                         f"{', '.join(PREFIX + n for n in LEVELS)}")
    return level


def measured() -> dict:
    """``{table: {level: {"win_rate", "low", "high", "games"}}}`` with tables named ``<variant>-<n>p``;
    empty if the file is missing. It ships with the package, so a damaged one is an error, not a guess."""
    if not os.path.exists(MEASURED):
        return {}
    with open(MEASURED, encoding="utf-8") as fh:
        return json.load(fh)["tables"]


def rate_line(name: str, variant: str, players: int, table: dict | None = None) -> str:
    """``expert (ismcts:...): wins 74% of games against heuristic in classic 2p (70-77%, 2,000 games)``."""
    level = LEVELS[name]
    tables = measured() if table is None else table
    row = tables.get(f"{variant}-{players}p", {}).get(name)
    head = f"{name} ({level.spec}, {level.about})"
    if row is None:
        return f"{head}: not measured in {variant} {players}p"
    return (f"{head}: wins {row['win_rate']:.0%} of games against heuristic in {variant} {players}p "
            f"({row['low']:.0%}-{row['high']:.0%}, {row['games']:,} games)")
