"""Self-play collection for the native PPO: a share of the league's games, in-process or in a worker.

A ``Collector`` owns some games of every table size (``uno_env.vector.VectorGames``), decides who holds
each seat of each new game (the learner in every seat for ``self_play_games`` of them, otherwise one
learner seat against opponents drawn from the pool: rule-based agents and frozen snapshots), plays
the opponents' moves itself and steps the games. What it hands the learner is a ``Request``: the
observation and mask of every seat the learner must answer now, keyed by (table, game, seat), and
the per-seat rewards of the games that just ended.

With ``collector_workers: k`` in the config, ``k`` worker processes each run one ``Collector``
(``CollectorProcess``); the learner answers whichever worker is ready while the others step their
games, so stepping, the opponents' moves and the learner's forward passes overlap on several cores.
With 0 the single collector runs in the learner's own process.
"""
from __future__ import annotations

import signal
import traceback
from dataclasses import dataclass, field

import numpy as np

from agents.policy_file import PolicyAgent, PolicyFile
from uno_env import Game

from train.agent_specs import load_agent  # every league spec, module:callable included
from train.collect import worker
from train.collect.privileged import PrivilegedEncoder
from train.config import TrainConfig
from train.counting import CountedGames


@dataclass
class Request:
    """What the learner must answer: rows of (table, game, seat), their observations and masks, and finished games."""

    keys: np.ndarray                      # (R, 3) int64: table, game, seat
    obs: np.ndarray                       # (R, D) float32 (a copy: it outlives the next step); with
                                          # privileged_critic or hand_prediction_coef, the hidden-card block
                                          # follows (train/collect/privileged.py)
    mask: np.ndarray                      # (R, A) int8
    finished: list = field(default_factory=list)  # (table, game, per-seat rewards, truncated) of games that ended
    counted: tuple = (0, 0)               # the learner decisions its games counted so far: (taken, finished)


class _Table:
    """The collector's games at one player count, with who holds each seat."""

    def __init__(self, rules, num_games: int, specs: list[str], seed: int):
        self.games = CountedGames(num_games, rules=rules)  # the learner's seats (roles -1) marked as it is seated
        self.n = self.games.num_players
        self.specs = specs
        self.pool = [load_agent(spec, self.games.game, seed=seed + i) for i, spec in enumerate(specs)]
        self.roles = np.full((num_games, self.n), -1, dtype=np.int64)  # -1: the learner; k: opponent k
        self.actions = np.zeros(num_games, dtype=np.int64)
        self.every_game = np.arange(num_games)
        self.learner_rows = self.opponent_rows = np.zeros(0, dtype=np.int64)  # of the current decisions
        self.seat = self.obs = self.mask = None


class Collector:
    """A share of the league's games (``share[t]`` games at table size ``cfg.player_counts[t]``)."""

    def __init__(self, cfg: TrainConfig, index: int, share: list[int]):
        self.cfg = cfg
        baselines = [(spec, w) for spec, w in cfg.opponents.items() if spec != "self" and w > 0]
        self.weights = [w for _, w in baselines]
        self.tables = [_Table(Game(cfg.variant, n, **cfg.rule_options).rules, games, [s for s, _ in baselines],
                              cfg.seed + 1000 * index + 100 * t)
                       for t, (n, games) in enumerate(zip(cfg.player_counts, share)) if games > 0]
        self.table_ids = [t for t, games in enumerate(share) if games > 0]
        self.index = index
        self.privileged = PrivilegedEncoder(self.tables[0].games.game) if cfg.collects_hidden_cards else None
        self.snapshots: list[PolicyAgent] = []
        self.rng = np.random.default_rng([cfg.seed, index])

    def set_snapshots(self, policies: list[PolicyFile], seed: int) -> None:
        """Frozen learner policies that join the opponent pool (sampling actions)."""
        self.snapshots = [PolicyAgent(p, deterministic=False, seed=seed + i) for i, p in enumerate(policies)]

    def reset(self, seed: int, steps: int = 0) -> Request:
        """Deal every game (table ``t``'s game ``i`` from ``seed + 1_000_000 * t + i``) and seat the league.

        A run cut into segments (``cfg.segment_every``) also seeds its opponents afresh from the decision
        count past its first segment, so the segment plays alike whether or not the run was resumed there."""
        self.rng = np.random.default_rng([self.cfg.seed, self.index, steps])
        for t, table in zip(self.table_ids, self.tables):
            if self.cfg.segment_every and steps:
                seeds = [int(np.random.SeedSequence([self.cfg.seed, self.index, t, i, steps]).generate_state(1)[0])
                         for i in range(len(table.specs))]
                table.pool = [load_agent(spec, table.games.game, seed=s) for spec, s in zip(table.specs, seeds)]
            table.seat, table.obs, table.mask = table.games.reset(seed=seed + 1_000_000 * t)
            for i in range(table.games.num_games):
                self._deal_roles(table, i)
        return self._request([])

    def step(self, actions: np.ndarray) -> Request:
        """Play ``actions`` for the rows of the last request, the opponents' moves, and step every game."""
        finished = []
        row = 0
        for t, table in zip(self.table_ids, self.tables):
            rows = table.learner_rows
            table.actions[rows] = actions[row:row + len(rows)]
            row += len(rows)
            agents_ = table.pool + self.snapshots
            opponents = table.opponent_rows
            roles = table.roles[opponents, table.seat[opponents]]
            # each opponent decides its own rows in order, so its generator draws as it would row by row;
            # random and greedy decide all of theirs in one call to the compiled core (act_batch)
            for k in np.unique(roles).tolist():
                agent, rows = agents_[k], opponents[roles == k]
                if getattr(agent, "reads_state", False):  # a search agent reads the game itself
                    for i in rows.tolist():
                        table.actions[i] = agent.act_state(table.games.states[i])
                elif hasattr(agent, "act_batch"):
                    table.actions[rows] = agent.act_batch(table.obs[rows], table.mask[rows])
                else:
                    for i in rows.tolist():
                        table.actions[i] = agent.act(table.obs[i], table.mask[i])
            table.seat, table.obs, table.mask, rewards, terminated, truncated = table.games.step(table.actions)
            for i in np.flatnonzero(terminated | truncated).tolist():
                finished.append((t, i, rewards[i].tolist(), bool(truncated[i])))
                self._deal_roles(table, i)
        return self._request(finished)

    def _request(self, finished: list) -> Request:
        keys, obs, mask = [], [], []
        for t, table in zip(self.table_ids, self.tables):
            learner = table.roles[table.every_game, table.seat] == -1
            rows = table.learner_rows = np.flatnonzero(learner)
            table.opponent_rows = np.flatnonzero(~learner)
            keys.append(np.stack([np.full(len(rows), t), rows, table.seat[rows]], axis=1))
            if self.privileged is None:
                obs.append(table.obs[rows])     # fancy indexing copies: the rows outlive the next step
            else:  # the hidden-card block after the observation; the actor reads the observation alone
                extra = np.zeros((len(rows), self.privileged.size), dtype=np.float32)
                states, seats = table.games.states, table.seat
                for r, i in enumerate(rows.tolist()):
                    self.privileged.encode_into(states[i], int(seats[i]), extra[r])
                obs.append(np.concatenate([table.obs[rows], extra], axis=1))
            mask.append(table.mask[rows])
        counts = [table.games.counts() for table in self.tables]
        return Request(np.concatenate(keys), np.concatenate(obs), np.concatenate(mask), finished,
                       (sum(t for t, _ in counts), sum(f for _, f in counts)))

    def _deal_roles(self, table: _Table, i: int) -> None:
        if self.rng.random() < self.cfg.self_play_games:
            table.roles[i] = -1
            table.games.learner[i] = True
            return
        snaps = self.snapshots
        per_snapshot = [self.cfg.opponents.get("self", 0.0) / len(snaps)] * len(snaps) if snaps else []
        w = np.array(self.weights + per_snapshot, dtype=float)
        table.roles[i] = self.rng.choice(len(w), size=table.n, p=w / w.sum())
        table.roles[i, self.rng.integers(table.n)] = -1
        table.games.learner[i] = table.roles[i] == -1


def split_games(cfg: TrainConfig, collectors: int) -> list[list[int]]:
    """Games per (collector, table size): ``num_games`` split evenly over the table sizes, then the collectors."""
    sizes = cfg.player_counts
    per_table = [cfg.num_games // len(sizes) + (t < cfg.num_games % len(sizes)) for t in range(len(sizes))]
    return [[g // collectors + (j < g % collectors) for g in per_table] for j in range(collectors)]


class LocalCollector:
    """A collector in the learner's process, behind the same submit/result calls as a worker."""

    def __init__(self, cfg: TrainConfig, index: int, share: list[int]):
        self.collector = Collector(cfg, index, share)
        self._result: Request | None = None

    def submit(self, command: str, *args) -> None:
        """Run ``command`` (``reset``, ``step``) now; its result waits for ``result()``."""
        self._result = getattr(self.collector, command)(*args)

    def result(self) -> Request:
        """The last submitted command's result."""
        return self._result

    def send_snapshots(self, policies: list[PolicyFile], seed: int) -> None:
        """Replace the pool's snapshots."""
        self.collector.set_snapshots(policies, seed)

    def close(self) -> None:
        """Nothing to release."""


class CollectorProcess:
    """A collector in a worker process: ``submit`` returns at once, ``result`` waits for the reply."""

    def __init__(self, cfg: TrainConfig, index: int, share: list[int]):
        self.conn, self.process = worker.start(_serve, (cfg.to_dict(), index, share), f"uno-collector-{index}")

    def submit(self, command: str, *args) -> None:
        """Send ``command`` to the worker."""
        self.conn.send((command, args))

    def result(self) -> Request:
        """The worker's reply to the last command (its error, with the worker's traceback, is raised here)."""
        return worker.receive(self.conn, self.process, f"collector worker {self.process.name}")

    def send_snapshots(self, policies: list[PolicyFile], seed: int) -> None:
        """Replace the worker pool's snapshots (no reply)."""
        self.conn.send(("set_snapshots", (policies, seed)))

    def close(self) -> None:
        """Stop the worker."""
        worker.stop(self.conn, self.process)


def _serve(conn, cfg_dict: dict, index: int, share: list[int]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the learner's to handle
    collector = Collector(TrainConfig.from_dict(cfg_dict), index, share)
    failure = None  # a traceback (text: any exception pickles as text) owed as the next reply
    for command, args in worker.commands(conn):
        try:
            result = getattr(collector, command)(*args)
        except Exception:
            failure = traceback.format_exc()
        if command == "set_snapshots":  # no reply: a failure is reported with the next step's
            continue
        conn.send(failure if failure is not None else result)
        failure = None
