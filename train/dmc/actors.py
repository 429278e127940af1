"""DMC's actors: games played epsilon-greedily on a copy of Q(s, a), shipping finished games' rows.

An ``Actor`` holds a share of the run's games (``train.counting.CountedGames``, which count the
learner's decisions) and who sits where in each (``Seating``). ``play(weights, decisions)`` sets the
network it acts with (numpy arrays, as the policy file holds them: no torch here) and steps its
games until the learner's seats have made ``decisions`` more decisions; it returns the (observation,
action, return) rows of the learner seats of every game that ended meanwhile. The forward pass is
torch's (``Scorer``: numpy's BLAS may run a batch's small matrices on every core at once, which a
shared machine pays dearly for; a worker process sets torch to one thread). A game still running
keeps its seats' decisions for a later call, even if the network changes in between (DouZero's
actors do the same).

The return of a decision is the seat's final reward (``TRUNCATED_REWARD`` for a game cut at the
step cap), times ``gamma`` per decision the same seat made after it. No bootstrapping: Monte-Carlo.

``ActorProcess`` runs an ``Actor`` in a spawned worker (``train/collect/worker.py``): ``submit`` a
``play`` and collect its ``result`` later, so the learner can learn while its actors play.
``LocalActor`` is the same calls in the learner's process (``dmc_actors: 0``).

Seeding: actor ``j`` of the run is ``SeedSequence(seed).spawn(max(actors, 1))[j]``: its numpy
Generator (exploration, seating draws) comes from it, and its games' deal seed and its opponents'
seeds from that Generator's first draws, so an actor plays the same whether it runs in a process
or not.
"""
from __future__ import annotations

import signal
import traceback
from dataclasses import dataclass

import numpy as np

from uno_env import RuleSet
from uno_env.action_features import action_features

from train.collect import worker
from train.collect.seating import LEARNER, Seating
from train.counting import CountedGames

#: The learner's reward in a game cut at the engine's step cap: a loss, so that stalling is not learned.
TRUNCATED_REWARD = -1.0


@dataclass(frozen=True)
class ActorSpec:
    """What an actor needs, picklable for a spawned process."""

    variant: str
    num_players: int
    rule_options: dict
    league: dict
    num_games: int
    seed: np.random.SeedSequence
    epsilon: float
    gamma: float


class Scorer:
    """Q(s, a) of the learner's network arrays (W0, b0, ...; relu) with torch, the first layer split as the
    policy file's agent splits it (``agents.policy_file.ActionValueScorer``): features @ W0_a + b0 once per weights."""

    def __init__(self, weights: list[np.ndarray], features: np.ndarray):
        import torch

        self.torch = torch
        w = [torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)) for x in weights]
        self.obs_size = w[0].shape[0] - features.shape[1]
        self.first_obs = w[0][:self.obs_size]
        self.first_actions = torch.from_numpy(features) @ w[0][self.obs_size:] + w[1]
        self.rest = w[2:]

    def best(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The arg-max of Q over each row's legal actions (``legal``: (B, A) bool, at least one per row)."""
        torch = self.torch
        rows, actions = np.nonzero(legal)
        with torch.no_grad():
            h = torch.from_numpy(obs) @ self.first_obs
            h = torch.relu(h[torch.from_numpy(rows)] + self.first_actions[torch.from_numpy(actions)])
            for i in range(0, len(self.rest) - 2, 2):
                h = torch.relu(h @ self.rest[i] + self.rest[i + 1])
            q = (h @ self.rest[-2] + self.rest[-1])[:, 0].numpy()
        table = np.full(legal.shape, -np.inf, dtype=np.float32)
        table[rows, actions] = q
        return table.argmax(1)


class Actor:
    """A share of the games, played with the latest network it was given; finished games become rows."""

    def __init__(self, spec: ActorSpec):
        self.spec = spec
        self.rng = np.random.default_rng(spec.seed)
        deal_seed, opponent_seed = (int(x) for x in self.rng.integers(2**31 - 1, size=2))
        rules = RuleSet.create(spec.variant, spec.num_players, **spec.rule_options)
        # counted games (train/counting.py): ``Seating`` marks the learner's seats, ``play`` sends the counts back
        self.games = CountedGames(spec.num_games, rules=rules)
        self.features = action_features(self.games.game)
        self.seating = Seating(spec.league, self.games, self.rng, opponent_seed)
        self.games.reset(seed=deal_seed)
        # (game, seat) -> the seat's decisions so far in its current game: [observations], [actions]
        self.episodes: dict[tuple[int, int], tuple[list, list]] = {}
        self.scorer: Scorer | None = None

    def set_weights(self, weights: list[np.ndarray]) -> None:
        """Act with the network of these arrays (W0, b0, ..., as an action-value policy file holds them)."""
        self.scorer = Scorer(weights, self.features)

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Epsilon-greedy actions for a batch of learner decisions: never an illegal one."""
        legal = mask != 0
        greedy = self.scorer.best(obs, legal)
        uniform = np.where(legal, self.rng.random(legal.shape), -1.0).argmax(1)  # a uniformly random legal action
        explore = self.rng.random(len(obs)) < self.spec.epsilon
        return np.where(explore, uniform, greedy)

    def play(self, weights: list[np.ndarray] | None, decisions: int) -> dict:
        """Step every game until the learner has made ``decisions`` more; the rows of the games that ended.

        ``weights``: the network to act with from now on (None: keep the last one). The rows: ``obs``
        (n, D) float32, ``action`` (n,) int64, ``ret`` (n,) float32; ``decisions``: how many were made;
        ``counted``: the games' counts so far (``CountedGames.counts``), for the run's tally.
        """
        if weights is not None:
            self.set_weights(weights)
        games, seating = self.games, self.seating
        done: list[tuple[list, list, float]] = []
        made = 0
        while made < decisions:
            seat, obs, mask = games.seat, games.obs, games.mask  # overwritten in place by every step
            roles = seating.roles[np.arange(games.num_games), seat]
            rows = np.flatnonzero(roles == LEARNER)
            actions = np.zeros(games.num_games, dtype=np.int64)
            if len(rows):
                actions[rows] = self.choose(obs[rows], mask[rows])
            for i in rows.tolist():
                observations, taken = self.episodes.setdefault((i, int(seat[i])), ([], []))
                observations.append(obs[i].copy())
                taken.append(int(actions[i]))
            opponents = np.flatnonzero(roles != LEARNER)
            if len(opponents):
                actions[opponents] = seating.act_rows(opponents, seat, obs, mask, games)
            made += len(rows)
            _, _, _, rewards, terminated, truncated = games.step(actions)
            for i in np.flatnonzero(terminated | truncated).tolist():
                for s in np.flatnonzero(seating.roles[i] == LEARNER).tolist():
                    observations, taken = self.episodes.pop((i, s), ([], []))
                    if taken:
                        done.append((observations, taken, TRUNCATED_REWARD if truncated[i] else float(rewards[i, s])))
                seating.deal(i)
        return {**self.rows(done), "decisions": made, "counted": games.counts()}

    def rows(self, done: list[tuple[list, list, float]]) -> dict:
        """Finished episodes as arrays: each decision's return is the reward times gamma per later decision."""
        size = self.games.observation_size
        if not done:
            return {"obs": np.zeros((0, size), np.float32), "action": np.zeros(0, np.int64),
                    "ret": np.zeros(0, np.float32)}
        gamma = self.spec.gamma
        returns = [reward * gamma ** np.arange(len(taken) - 1, -1, -1, dtype=np.float64) for _, taken, reward in done]
        return {"obs": np.stack([o for observations, _, _ in done for o in observations]).astype(np.float32),
                "action": np.array([a for _, taken, _ in done for a in taken], dtype=np.int64),
                "ret": np.concatenate(returns).astype(np.float32)}


class LocalActor:
    """An actor in the learner's process, behind the same submit/result calls as a worker."""

    def __init__(self, spec: ActorSpec):
        self.actor = Actor(spec)
        self._result: dict | None = None

    def submit(self, weights: list[np.ndarray] | None, decisions: int) -> None:
        """Play now; the rows wait for ``result()``."""
        self._result = self.actor.play(weights, decisions)

    def result(self) -> dict:
        """The last ``submit``'s rows."""
        return self._result

    def close(self) -> None:
        """Nothing to release."""


class ActorProcess:
    """An actor in a spawned worker process: ``submit`` returns at once, ``result`` waits for its rows."""

    def __init__(self, spec: ActorSpec, index: int):
        self.conn, self.process = worker.start(_serve, (spec,), f"uno-dmc-actor-{index}")

    def submit(self, weights: list[np.ndarray] | None, decisions: int) -> None:
        """Send a ``play`` to the worker (one that has exited is a RuntimeError, as ``result`` says it)."""
        try:
            self.conn.send(("play", (weights, decisions)))
        except OSError:  # BrokenPipeError included: the worker is gone
            self.process.join(timeout=1)
            raise RuntimeError(f"DMC actor {self.process.name} exited (code {self.process.exitcode})") from None

    def result(self) -> dict:
        """The worker's rows of its last ``play`` (its error, with the worker's traceback, is raised here)."""
        return worker.receive(self.conn, self.process, f"DMC actor {self.process.name}")

    def close(self) -> None:
        """Stop the worker (asked to close, terminated if it does not within seconds)."""
        worker.stop(self.conn, self.process)


def _serve(conn, spec: ActorSpec) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the learner's to handle
    import torch

    torch.set_num_threads(1)  # one core per actor: the batches are small, and the learner needs its own
    actor, failure = None, None  # a traceback (text: any exception pickles as text) owed as the next reply
    try:
        actor = Actor(spec)
    except Exception:
        failure = traceback.format_exc()
    for command, args in worker.commands(conn):
        if failure is None:
            try:
                result = getattr(actor, command)(*args)
            except Exception:
                failure = traceback.format_exc()
        conn.send(failure if failure is not None else result)
        failure = None if actor is not None else failure
