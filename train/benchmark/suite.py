"""Versioned benchmark suites for ``uno-env benchmark`` (docs/benchmark.md).

A task is one table: a variant, a player count, rule options, the opponents in the other seats, a
number of games and an evaluation seed. The agent under test takes the first seat of the line-up
``[agent, *opponents]`` and ``run_tournament`` rotates it through every seat (game ``i`` of a task
is dealt from ``seed + i``). A suite is a named, frozen list of tasks plus the reference win rates
of ``random`` and ``heuristic`` on every task, kept in ``references/<suite>.json`` beside this file
and written by ``uno-env benchmark --make-references --suite <suite>``.

A published suite never changes: a different task list, game count or seed is a new suite name
(``uno-suite-v2``) added to ``SUITES`` next to the old one. The name ends in its version (``-v1``), and
``definition_digest`` fingerprints the published task list, so a results file can show which suite
version it played (``train/provenance.py``).
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, replace

from uno_env import RuleSet
from uno_env.errors import did_you_mean

from train.errors import UsageError
from train.evaluation.tournament import schedule
from train.json_input import read_json_object
from train.provenance import digest

REFERENCE_AGENTS = ("random", "heuristic")
"""The agents whose win rates fix a task's normalised score at 0 (random) and 1 (heuristic)."""

REFERENCES_DIR = os.path.join(os.path.dirname(__file__), "references")

HOUSE_RULES = {"stacking": "any", "jump_in": "on", "multi_play": "on", "uno_call": "decide"}
"""The house rules of the ``classic-2p-house`` task (docs/rule-options.md)."""


@dataclass(frozen=True)
class Task:
    """One table of a suite: rules, opponents, games and the seed of its first game."""

    task_id: str
    variant: str
    players: int
    options: dict = field(default_factory=dict)
    opponents: tuple[str, ...] = ()
    games: int = 0
    seed: int = 0

    def rules(self) -> RuleSet:
        """The validated rule set of this task."""
        return RuleSet.create(self.variant, self.players, dict(self.options))

    def lineup(self, agent_spec: str) -> list[str]:
        """Agent specs by index: the agent under test first, then the opponents."""
        return [agent_spec, *self.opponents]

    def rotation_length(self) -> int:
        """Games in one full seat rotation of the line-up (2 at two players, 4! = 24 at four)."""
        return len(schedule(self.players, self.players, 1))

    def to_dict(self) -> dict:
        """The task as plain data (for results.json)."""
        return {"id": self.task_id, "variant": self.variant, "players": self.players, "options": dict(self.options),
                "opponents": list(self.opponents), "games": self.games, "seed": self.seed}


@dataclass(frozen=True)
class Suite:
    """A named list of tasks; ``official`` is False once its game counts or tasks were changed for a smoke run.

    ``definition_digest``: the digest of the task list the suite was defined with (ids, rules options,
    opponents, games, seeds), computed once and kept by ``only`` and ``with_games_per_task``: a smoke run
    of a suite names the same suite version as the official run.
    """

    name: str
    tasks: tuple[Task, ...]
    official: bool = True
    definition_digest: str = ""

    def __post_init__(self) -> None:
        if not self.definition_digest:
            object.__setattr__(self, "definition_digest", digest([t.to_dict() for t in self.tasks]))

    @property
    def version(self) -> int | None:
        """The version the name ends in (``uno-suite-v1``: 1); None for a name without one."""
        found = re.search(r"-v(\d+)$", self.name)
        return int(found.group(1)) if found else None

    def task_ids(self) -> list[str]:
        """The ids of the tasks, in order."""
        return [t.task_id for t in self.tasks]

    def with_games_per_task(self, games: int) -> "Suite":
        """The suite with ``games`` per task, rounded up to whole seat rotations (a smoke run, not official)."""
        if isinstance(games, bool) or not isinstance(games, int) or games < 1:
            raise UsageError(f"--games-per-task must be a whole number, 1 or more; got {games!r}")
        tasks = tuple(replace(t, games=math.ceil(games / t.rotation_length()) * t.rotation_length())
                      for t in self.tasks)
        return replace(self, tasks=tasks, official=False)

    def only(self, task_ids: list[str]) -> "Suite":
        """The suite restricted to ``task_ids`` (in suite order); UsageError names an unknown id."""
        known = self.task_ids()
        for task_id in task_ids:
            if task_id not in known:
                raise UsageError(f"suite {self.name!r} has no task {task_id!r}{did_you_mean(task_id, known)}; "
                                 f"tasks: {', '.join(known)}")
        return replace(self, tasks=tuple(t for t in self.tasks if t.task_id in task_ids), official=False)

    def references_path(self) -> str:
        """The JSON file holding the reference win rates of this suite."""
        return os.path.join(REFERENCES_DIR, f"{self.name}.json")

    def references(self) -> dict[str, dict[str, float]]:
        """``{task_id: {"random": win_rate, "heuristic": win_rate}}``; empty when none were measured yet."""
        path = self.references_path()
        if not os.path.exists(path):
            return {}
        schema = {"tasks": {"*": {agent: {"win_rate": float} for agent in REFERENCE_AGENTS}}}
        stored = read_json_object(path, f"the reference win rates of suite {self.name}", UsageError, schema)
        return {task_id: {agent: row[agent]["win_rate"] for agent in REFERENCE_AGENTS}
                for task_id, row in stored["tasks"].items()}


def check_suite(suite: Suite) -> None:
    """Refuse a suite definition with repeated ids or seeds, or game counts that are not whole seat rotations."""
    ids = suite.task_ids()
    if suite.version is None:
        raise ValueError(f"suite {suite.name!r}: a published suite's name ends in its version, e.g. -v1")
    if len(set(ids)) != len(ids):
        raise ValueError(f"suite {suite.name!r}: task ids repeat")
    if len({t.seed for t in suite.tasks}) != len(suite.tasks):
        raise ValueError(f"suite {suite.name!r}: task seeds repeat")
    for t in suite.tasks:
        if t.games % t.rotation_length() or len(t.opponents) != t.players - 1:
            raise ValueError(f"suite {suite.name!r}, task {t.task_id}: {t.games} games or {len(t.opponents)} "
                             f"opponents do not fill whole seat rotations of {t.players} players")


def _v1_tasks() -> tuple[Task, ...]:
    games = 1200  # a multiple of 2 and of 24 (4! seatings): every seat equally often; ±2.8 points at p = 0.5
    table = [(f"{v}-2p", v, 2, {}) for v in ("classic", "alphabet", "xiangqi", "flex", "flip", "attack")]
    table += [(f"{v}-4p", v, 4, {}) for v in ("classic", "flex", "flip", "attack")]
    table += [("classic-2p-house", "classic", 2, HOUSE_RULES)]
    # task k (1-based, in this order) deals its games from seed 10,000 k: the ranges never overlap
    return tuple(Task(task_id, variant, players, dict(options), ("heuristic",) * (players - 1), games, 10_000 * k)
                 for k, (task_id, variant, players, options) in enumerate(table, start=1))


UNO_SUITE_V1 = Suite("uno-suite-v1", _v1_tasks())

SUITES: dict[str, Suite] = {UNO_SUITE_V1.name: UNO_SUITE_V1}
"""Every published suite by name; the newest last."""

DEFAULT_SUITE = UNO_SUITE_V1.name

for _suite in SUITES.values():
    check_suite(_suite)


def get_suite(name: str) -> Suite:
    """The suite called ``name``; UsageError listing the known names otherwise."""
    if name not in SUITES:
        raise UsageError(f"unknown suite {name!r}{did_you_mean(name, SUITES)}; allowed: {', '.join(SUITES)}")
    return SUITES[name]
