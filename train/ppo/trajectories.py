"""Every learner seat's decisions, in preallocated arrays, until its game ends; then GAE and the batch.

A collector's step hands the learner one row per learner seat deciding in its games (``Rollout``);
``Trajectories.add`` writes that step's rows into the collector's ``DecisionLog`` as whole arrays, each
row tagged with the trajectory it belongs to: one seat's decisions in one game, out-of-turn ones
included. When a game ends, ``finish`` closes its seats' trajectories with their rewards. ``take``
gathers the closed trajectories' rows into the update's batch (one gather per column), computes GAE
over all of them at once, and leaves the rows of the games still running in the log.

The batch is the one the trainer built row by row before (``tests/training/test_acting_trajectories.py``
compares the two): trajectories in the order of (collector, the collector's step count when the game
ended, table, game, seat), each in the order it was played; the advantages and returns computed in
float64 with the same operations in the same order, then stored as float32.
"""
from __future__ import annotations

import numpy as np

#: The batch's arrays, in the order the update takes them (``value`` is kept for GAE and left out).
COLUMNS = ("obs", "mask", "action", "logp", "value")
#: Rows moved at once when the log is compacted: a small temporary, and a move never overwrites a row yet to move.
CHUNK = 2048


class DecisionLog:
    """One collector's recorded decisions, row by row in preallocated arrays, reused for the whole run.

    Rows handed out in a batch are only marked (their trajectory set to -1). When the arrays are full, the
    rows still waiting for their game to end move to the front; the arrays double when those would fill
    more than half of them. So a row is moved about once, in memory already in use (on the development
    machine, memory touched for the first time cost more than the moves it saves), and after its first
    batches a run writes into arrays it already has.
    """

    def __init__(self):
        self.rows = 0  # rows written since the last compaction, waiting or handed out
        self.columns: dict[str, np.ndarray] = {}  # COLUMNS and each row's trajectory

    def append(self, **block: np.ndarray) -> None:
        """Write a step's rows (one array per column, ``trajectory`` among them) after the rows written."""
        count = len(block["trajectory"])
        if not self.columns:
            self.columns = {name: np.empty((max(count, 1) * 64, *a.shape[1:]), a.dtype) for name, a in block.items()}
        if self.rows + count > len(self.columns["trajectory"]):
            self._make_room(count)
        for name, array in block.items():
            self.columns[name][self.rows:self.rows + count] = array
        self.rows += count

    def _make_room(self, count: int) -> None:
        """Move the waiting rows to the front, into arrays twice as large when they would fill over half."""
        waiting = np.flatnonzero(self.columns["trajectory"][:self.rows] >= 0)
        size = len(self.columns["trajectory"])
        while len(waiting) + count > size // 2:
            size *= 2
        for name, old in self.columns.items():
            new = old if size == len(old) else np.empty((size, *old.shape[1:]), old.dtype)
            for lo in range(0, len(waiting), CHUNK):
                rows = waiting[lo:lo + CHUNK]
                new[lo:lo + len(rows)] = old[rows]
            self.columns[name] = new
        self.rows = len(waiting)

    def tags(self) -> np.ndarray:
        """Each written row's trajectory (-1: handed out)."""
        return self.columns["trajectory"][:self.rows] if self.columns else np.zeros(0, dtype=np.int64)


class Trajectories:
    """Each learner seat's decisions of the game in progress, per collector; the finished ones make the batch.

    ``layout[j]`` lists collector ``j``'s tables as ``(games, players)`` per table size (``cfg.player_counts``
    order, 0 games where it has none): a seat is its slot ``first[t] + game * players + seat``.
    """

    def __init__(self, gamma: float, lam: float, layout: list[list[tuple[int, int]]]):
        self.gamma, self.lam = gamma, lam
        self.logs = [DecisionLog() for _ in layout]  # per collector
        self.players = [np.array([n for _, n in tables], dtype=np.int64) for tables in layout]
        self.first = [np.cumsum([0] + [g * n for g, n in tables])[:-1].astype(np.int64) for tables in layout]
        slots = [sum(g * n for g, n in tables) for tables in layout]
        self.current = [np.arange(s, dtype=np.int64) for s in slots]  # the trajectory each slot's decisions join
        self.length = [np.zeros(s, dtype=np.int64) for s in slots]    # decisions in it so far
        self.next_id = list(slots)
        self.closed: list[tuple] = []  # (order key, collector, trajectory, length, reward)

    def add(self, j: int, keys: np.ndarray, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray,
            logps: np.ndarray, values: np.ndarray) -> None:
        """One step of collector ``j``: a decision per row of ``keys`` (table, game, seat), one row per game."""
        t, game, seat = keys[:, 0], keys[:, 1], keys[:, 2]
        slots = self.first[j][t] + game * self.players[j][t] + seat
        self.length[j][slots] += 1  # a game has one deciding seat per step: no slot twice
        self.logs[j].append(obs=obs, mask=mask, action=actions, logp=logps, value=values,
                            trajectory=self.current[j][slots])

    def finish(self, order: tuple, j: int, t: int, game: int, rewards: list[float]) -> list[int]:
        """Collector ``j``'s game ``game`` at table ``t`` ended: its seats' trajectories close with their
        rewards (``order`` ranks them in the batch, seat last); returns the seats that had decisions."""
        learners = []
        base = int(self.first[j][t]) + game * len(rewards)
        length, current = self.length[j], self.current[j]
        for seat, reward in enumerate(rewards):
            slot = base + seat
            if length[slot]:
                learners.append(seat)
                self.closed.append(((*order, seat), j, int(current[slot]), int(length[slot]), reward))
                current[slot], length[slot] = self.next_id[j], 0
                self.next_id[j] += 1
        return learners

    def take(self) -> tuple[np.ndarray, ...] | None:
        """The closed trajectories' decisions as the batch ``(obs, mask, action, logp, advantage, return)``,
        in a deterministic order, and forget them; None when no trajectory has closed."""
        if not self.closed:
            return None
        closed, self.closed = sorted(self.closed, key=lambda c: c[0]), []
        lengths = np.array([c[3] for c in closed], dtype=np.int64)
        # the order key starts with the collector: each collector's trajectories are one run of the batch
        rows = [self._closed_rows(j, [c[2] for c in closed if c[1] == j]) for j in range(len(self.logs))]
        if sum(map(len, rows)) != lengths.sum():
            raise RuntimeError("the decision logs do not hold every decision of the closed trajectories")
        batch = self._gather(rows, int(lengths.sum()))
        advantage, returns = gae(batch.pop("value").astype(np.float64), lengths,
                                 np.array([c[4] for c in closed], dtype=np.float64), self.gamma, self.lam)
        return (batch["obs"], batch["mask"], batch["action"], batch["logp"],
                advantage.astype(np.float32), returns.astype(np.float32))

    def _closed_rows(self, j: int, ids: list[int]) -> np.ndarray:
        """Collector ``j``'s rows of the trajectories ``ids``, in that order, each trajectory's in the order
        played; they are marked handed out."""
        if not ids:
            return np.zeros(0, dtype=np.int64)
        tags = self.logs[j].tags()
        ids_ = np.array(ids, dtype=np.int64)
        by_id = np.argsort(ids_)
        at = np.searchsorted(ids_[by_id], tags).clip(max=len(ids_) - 1)
        chosen = np.flatnonzero(ids_[by_id][at] == tags)
        rank = by_id[at[chosen]]  # the trajectory's place among ``ids``
        chosen = chosen[np.argsort(rank, kind="stable")]
        tags[chosen] = -1
        return chosen

    def _gather(self, rows: list[np.ndarray], total: int) -> dict[str, np.ndarray]:
        """The chosen rows of every collector's log, collector after collector, into new arrays of ``total`` rows."""
        columns = next(log.columns for log in self.logs if log.columns)
        batch = {name: np.empty((total, *columns[name].shape[1:]), columns[name].dtype) for name in COLUMNS}
        at = 0
        for log, chosen in zip(self.logs, rows):
            for name, array in batch.items() if len(chosen) else ():
                np.take(log.columns[name], chosen, axis=0, out=array[at:at + len(chosen)], mode="clip")
            at += len(chosen)
        return batch


def gae(values: np.ndarray, lengths: np.ndarray, rewards: np.ndarray, gamma: float, lam: float
        ) -> tuple[np.ndarray, np.ndarray]:
    """GAE of consecutive trajectories (``lengths`` rows each, the reward at each one's end, no bootstrap past
    it): (advantages, returns), float64, every trajectory's recursion run backwards together."""
    ends = np.cumsum(lengths) - 1
    longest_first = np.argsort(-lengths, kind="stable")
    ends, steps = ends[longest_first], lengths[longest_first]
    reward, next_value = rewards[longest_first], np.zeros(len(lengths))
    running = np.zeros(len(lengths))
    advantages = np.empty_like(values)
    decay = gamma * lam  # Python's ``gamma * lam * advantage`` multiplies gamma by lam first
    live = len(steps)
    for back in range(int(steps[0]) if len(steps) else 0):
        while live and steps[live - 1] <= back:  # the shorter trajectories are done
            live -= 1
        at = ends[:live] - back
        value = values[at]
        delta = reward[:live] + gamma * next_value[:live] - value
        running[:live] = delta + decay * running[:live]
        advantages[at] = running[:live]
        next_value[:live], reward[:live] = value, 0.0
    return advantages, advantages + values
