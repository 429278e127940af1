"""The learner's side of the collectors: it answers their requests, they hand back the games that ended.

The games are split over the collectors (``train/collect/collector.py``): one in the learner's process,
one per worker process (``cfg.collector_workers``) or one per Ray actor (``--ray``, ``cfg.ray_collectors``).
The learner answers whichever collector is ready while the others step their games; every row it
answers is one decision of a learner seat, recorded in the trainer's ``Trajectories``, and when a game
ends its seats' trajectories get their rewards. The trajectories order what they hand out, so the
batch does not depend on which collector answered first. A step's rows are recorded whole
(``train/ppo/trajectories.py``): no Python runs per row on the learner's side.
"""
from __future__ import annotations

from multiprocessing.connection import wait as mp_wait

import numpy as np

from train.collect.collector import CollectorProcess, LocalCollector
from train.config import TrainConfig


class Rollout:
    """The collectors (``kind``: ``local``, ``process`` or ``ray``), their requests and the league's tally."""

    def __init__(self, cfg: TrainConfig, kind: str, trajectories, collectors: int, tally=None):
        self.cfg, self.kind, self.trajectories = cfg, kind, trajectories
        self.tally = tally  # a contract run's count of learner decisions (train/counting.py), or None
        self.collectors: list = []               # filled by open()
        self.held: dict[int, object] = {}        # collector -> its request waiting for the learner's answer
        self.in_flight: set[int] = set()         # collectors stepping their games
        self.counts = [0] * collectors           # batched steps per collector, all time (orders finished games)
        self.league_games = self.league_wins = 0  # games with one learner seat ended since take_league, its wins

    def open(self, shares: list[list[int]]) -> None:
        """Start one collector per share of the games (``collect.collector.split_games``)."""
        make = CollectorProcess if self.kind == "process" else LocalCollector
        if self.kind == "ray":
            from train.scaleout import collectors as ray_collectors

            make = ray_collectors.RayCollector
        for j, share in enumerate(shares):  # one by one: close() stops those started if a later one fails
            self.collectors.append(make(self.cfg, j, share))

    def start(self, snapshots: list, steps: int) -> None:
        """Hand the collectors the pool's snapshots and deal every game, as of ``steps`` decisions."""
        if snapshots:
            self.send_snapshots(snapshots, self.cfg.seed + steps)
        for j, c in enumerate(self.collectors):
            c.submit("reset", self.cfg.seed + steps + 10_000_000 * j, steps)
        for j in range(len(self.collectors)):
            self._receive(j)

    def restart(self, trajectories, snapshots: list, steps: int) -> None:
        """A new segment (``cfg.segment_every``): the games in progress and their requests dropped, the
        trajectories replaced by ``trajectories`` (empty), every game dealt again as ``start`` deals it."""
        self.trajectories, self.held = trajectories, {}
        self.counts = [0] * len(self.collectors)
        self.start(snapshots, steps)

    def collect(self, act, n_steps: int, stop) -> None:
        """``n_steps`` batched steps per collector (fewer after Ctrl-C); ``act(j, request)`` answers collector ``j``."""
        budget = [n_steps] * len(self.collectors)
        while True:
            for j in sorted(self.held):
                if budget[j] and not stop.requested:
                    self.collectors[j].submit("step", self._answer(j, act))
                    self.in_flight.add(j)
                    budget[j] -= 1
                    self.counts[j] += 1
            if not self.in_flight:
                return
            for j in self._ready():
                self._receive(j)

    def _answer(self, j: int, act) -> np.ndarray:
        """The learner's actions for collector ``j``'s held request; each row is recorded as its seat's decision."""
        request = self.held.pop(j)
        if not len(request.keys):
            return np.zeros(0, dtype=np.int64)
        rows, actions, logps, values = act(j, request)
        self.trajectories.add(j, request.keys, rows, request.mask, actions, logps, values)
        return actions

    def _ready(self) -> list[int]:
        """The in-flight collectors that have replied (waiting for at least one), in order."""
        if self.kind == "ray":
            from train.scaleout import collectors as ray_collectors

            return sorted(ray_collectors.ready(self.collectors, self.in_flight))
        if self.kind == "process":  # block until at least one worker has stepped its games
            replied = mp_wait([self.collectors[j].conn for j in self.in_flight])
            return sorted(j for j in self.in_flight if self.collectors[j].conn in replied)
        return sorted(self.in_flight)

    def _receive(self, j: int) -> None:
        """Collector ``j``'s reply: the games that ended pay their seats' trajectories; its request waits."""
        request = self.collectors[j].result()
        self.in_flight.discard(j)
        if self.tally is not None:
            self.tally.receive(j, request.counted)
        for t, i, rewards, truncated in request.finished:
            won = [not truncated and r > 0 and r == max(rewards) for r in rewards]
            if truncated:  # a game cut at max_steps: a loss for every seat, so stalling never pays
                rewards = [self.cfg.truncation_reward] * len(rewards)
            learners = self.trajectories.finish((j, self.counts[j], t, i), j, t, i, rewards)
            if len(learners) == 1 < len(rewards):
                self.league_games += 1
                self.league_wins += won[learners[0]]
        self.held[j] = request

    def take_league(self) -> tuple[int, int]:
        """(games with one learner seat that ended, the learner's wins among them) since the last call."""
        tally = self.league_games, self.league_wins
        self.league_games = self.league_wins = 0
        return tally

    def send_snapshots(self, snapshots: list, seed: int) -> None:
        """Replace the frozen learner policies in every collector's opponent pool."""
        for c in self.collectors:
            c.send_snapshots(snapshots, seed)

    def close(self) -> None:
        """Stop every collector started."""
        for c in self.collectors:
            c.close()
