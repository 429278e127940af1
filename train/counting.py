"""The learner decisions a run's games count, and the check of a trainer's reports against them.

The contract's counting rule (``train/algorithm.py``): a decision counts when the learner made it in a
game it trains on. A trainer gets its games from its run (``TrainingRun.games``): ``CountedGames``, the
batched games of ``uno_env.vector`` that also know which seats of each game are the learner's
(``learner[i, seat]``, set by the trainer as it seats each game) and count, at every ``step``, the rows
a learner seat decided (one numpy sum per step, nothing per row). They keep two totals: ``taken``,
every learner decision stepped, and ``finished``, those of games that have ended (a learner that learns
from finished games only, as PPO and DMC do, reports the latter).

A run's ``Tally`` adds up the totals of its games, those it handed out in this process and those a
trainer's worker processes send back (``Tally.receive``); ``audit`` compares them with what the trainer
reported, after every report and once it returns (``run_algorithm``). An honest trainer's last report is
its games' ``taken`` or ``finished`` count, give or take one batch (the most its reported count grew
between two reports), and that count is within a batch of the budget.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from uno_env.vector import VectorGames


class CountedGames(VectorGames):
    """``VectorGames`` that count the decisions of the seats the learner holds (``learner``)."""

    def __init__(self, num_games: int, *, learner_seats=None, **kwargs):
        """``learner_seats``: the seats the learner holds in every game (an int or several), or None to set
        ``learner[i]`` per game as it is seated; every other keyword is ``VectorGames``'s."""
        super().__init__(num_games, **kwargs)
        self.learner = np.zeros((self.num_games, self.num_players), dtype=bool)
        """``learner[i, s]``: seat ``s`` of game ``i`` is the learner's (read at every ``step``)."""
        if learner_seats is not None:
            seats = np.atleast_1d(np.asarray(learner_seats))
            if seats.dtype.kind not in "iu" or not ((seats >= 0) & (seats < self.num_players)).all():
                raise ValueError(f"learner_seats must be seats 0..{self.num_players - 1}; got {learner_seats!r}")
            self.learner[:, seats] = True
        self.taken = 0
        """Learner decisions stepped, all told."""
        self.finished = 0
        """Learner decisions of games that have ended."""
        self._open = np.zeros(self.num_games, dtype=np.int64)  # learner decisions of each game in progress
        # flat indices into ``learner`` (a view of it): one ``take`` per step instead of 2-D fancy indexing
        self._flat = self.learner.reshape(-1)
        self._rows = np.arange(self.num_games) * self.num_players
        self._index = np.zeros(self.num_games, dtype=np.int64)
        self._ended = np.zeros(self.num_games, dtype=bool)

    def reset(self, seed: int | None = None):
        """Deal every game afresh; the games in progress are dropped (their decisions stay taken, never finished)."""
        self._open[:] = 0
        return super().reset(seed)

    def step(self, actions):
        # who decides, read before the step overwrites ``seat``
        deciding = self._flat.take(np.add(self._rows, self.seat, out=self._index))
        out = super().step(actions)
        self.taken += int(np.count_nonzero(deciding))
        np.add(self._open, deciding, out=self._open)
        ended = np.logical_or(out[4], out[5], out=self._ended)
        if np.count_nonzero(ended):  # (cheaper than any() on a small array)
            self.finished += int(self._open[ended].sum())
            self._open[ended] = 0
        return out

    def counts(self) -> tuple[int, int]:
        """``(taken, finished)``: what a worker process sends back to its run (``Tally.receive``)."""
        return self.taken, self.finished


@dataclass
class Tally:
    """A run's count of learner decisions: its games' totals (``CountedGames``), here and in worker processes."""

    base: tuple[int, int] = (0, 0)
    """Decisions counted before this sitting: a resumed run's checkpoint."""
    games: list = field(default_factory=list)
    """Games handed out in this process (anything with ``counts()``)."""
    remote: dict = field(default_factory=dict)
    """The latest ``(taken, finished)`` of games in other processes, by a key the trainer picks."""

    def watch(self, games) -> None:
        """Count ``games`` (handed out by the run in this process)."""
        self.games.append(games)

    def receive(self, key, counts: tuple[int, int]) -> None:
        """The totals ``counts`` of the games ``key`` (a worker's): they replace that key's last ones."""
        self.remote[key] = (int(counts[0]), int(counts[1]))

    @property
    def used(self) -> bool:
        """Whether the trainer counted anything through its run's games (else its count is its own word)."""
        return bool(self.games or self.remote)

    def counts(self) -> tuple[int, int]:
        """``(taken, finished)`` over every game of the run."""
        totals = [g.counts() for g in self.games] + list(self.remote.values())
        return (self.base[0] + sum(t for t, _ in totals), self.base[1] + sum(f for _, f in totals))


def audit(algo: str, budget: int, reports: list[tuple[int, int, int]], start: int = 0,
          end: tuple[int, int] | None = None) -> str | None:
    """What is wrong with a run's ``reports`` (reported, taken, finished) against its budget, or None.

    During the run (``end`` None): a report above its games' ``taken`` count. At the end (``end``: the
    games' final counts): a last report that is neither of the counts, or a count past the budget, each
    beyond one batch: the most the reported count grew between two reports (from ``start``, a resumed
    run's checkpoint), so that a trainer reporting rarely cannot widen it with its games' counts.
    """
    rule = ("a trainer reports the learner decisions of the games its run hands out (run.games), counted by "
            "the contract's rule (docs/plug-ins.md)")
    reported, taken, _ = reports[-1]
    if reported > taken:
        return (f"algo {algo!r} reported {reported:,} decisions while its games had counted {taken:,} learner "
                f"decisions: {rule}")
    if end is None:
        return None
    counts = [start] + [r for r, _, _ in reports]
    batch = max(b - a for a, b in zip(counts, counts[1:]))
    taken, finished = end
    # a learner counts the decisions it takes (DQN) or those of games that ended (PPO, DMC): its report is one
    matching = [c for c in (finished, taken) if abs(reported - c) <= batch]
    if not matching:
        return (f"algo {algo!r} last reported {reported:,} decisions, but its games counted {taken:,} learner "
                f"decisions ({finished:,} of them in games that ended): a report is one of the two, give or take "
                f"one batch ({batch:,}, the most its reported count grew between two reports); {rule}")
    if matching[0] > budget + batch:
        return (f"algo {algo!r} trained on {matching[0]:,} learner decisions (its games' count) for a budget of "
                f"{budget:,}: allowed the budget plus one batch ({batch:,}, the most its reported count grew "
                f"between two reports); {rule}")
    return None
