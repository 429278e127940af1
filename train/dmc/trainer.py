"""Deep Monte-Carlo (DMC) as in DouZero, in one readable learner: Q(s, a) regressed on game results.

DouZero (Zha et al., 2021) learns a card game's action values with no bootstrapping and no policy
gradient: actors play with a recent copy of Q, epsilon-greedily, and each finished game's decisions
become (state, action, return) rows; the learner fits Q(s, a) to the returns by mean squared error.
Here, for UNO:

- The network (``QNetwork``): a relu MLP on concat(observation, action features) with one output.
  The observation (``uno_env/observation.py``) already carries the public history DouZero feeds an
  LSTM: its ``history`` block (layout version 2) gives, per relative seat, the colours it showed
  itself void in, the colour of its last card and whether it holds one or two cards; so the network
  needs no recurrent part. The action features (``uno_env/action_features.py``) describe the action:
  its id, what it does, the card's colour, rank, effect and points. One forward pass per legal action.
- The actors (``train/dmc/actors.py``): ``dmc_actors`` worker processes, or the learner's own process
  with ``dmc_actors: 0``, share the ``num_games`` games. In each game one seat at random is the
  learner's and the others are drawn from the league (a ``self`` seat is the learner too, and learns).
  The learner's seats act epsilon-greedily (``dmc_epsilon``) on Q; opponents act as themselves.
- The returns: a decision's return is its seat's final reward (the game's: winner +1, the others
  -1/(N-1); -1 for a game cut at the step cap), times ``gamma`` per later decision of that seat.
- The learner (``Trainer``): the rows of finished games go into a ring (``Replay``, the latest
  ``REPLAY_ROWS``); for every ``batch_size`` new rows it takes ``SAMPLE_REUSE`` Adam steps, each on
  ``batch_size`` rows drawn uniformly from the ring, on the squared error of Q(s, a) against the return.
- Counting (the contract's rule): every learner decision of a finished game, out-of-turn ones
  included, is one decision learned from; the run stops at the first round that reaches the budget.

The schedule is fixed, so the same seed gives the same policy, with or without processes: in round
r every actor plays until its seats made ``batch_size`` more decisions, with the weights
the learner had after round r - 2; the learner takes the actors' rows in actor order, hands each
actor round r + 1 (with the weights after round r - 1) as soon as its rows arrive, then learns from
round r while the actors play. ``dmc_actors: 0`` runs the same schedule in one process and so gives
the weights of ``dmc_actors: 1``; other actor counts split the games otherwise (another, equally
reproducible run). Every random choice comes from ``run.seed``: the learner's Generator (replay
sampling) and each actor's (``SeedSequence(seed).spawn``: exploration, seating, deals, opponents'
seeds); torch draws the initial weights from ``manual_seed(seed)`` in a forked RNG.

Checkpoints (``train/resumable.py``): the run is cut into segments of ``checkpoint_every``
decisions, each with fresh actors and games seeded from ``(seed, segment)``; the learner's state
(network, optimiser, ring, counters) is saved at the end of each, so ``run.resume`` continues an
interrupted run exactly where the uninterrupted one goes.

The exported policy (``export_policy``) is an action-value policy file (``network: action-value``):
the MLP's arrays and the feature table, played with numpy by ``agents.load`` (``docs/algorithms/dmc.md``).
"""
from __future__ import annotations

import numpy as np
import torch

from agents.policy_file import PolicyFile, policy_file_from_weights
from uno_env import Game
from uno_env.action_features import action_features

from train import resumable
from train.contract import TrainingRun
from train.config import ConfigError
from train.dmc.actors import ActorProcess, ActorSpec, LocalActor
from train.dmc.network import QNetwork
from train.progress import Progress

#: Rows of finished games the learner keeps to sample its batches from (the most recent ones).
REPLAY_ROWS = 50_000
#: Gradient steps per ``batch_size`` new rows (each on ``batch_size`` rows drawn from the ring):
#: how often a row is learned from on average. DouZero uses each row once; a small budget gains by more.
SAMPLE_REUSE = 4


def export_policy(net: QNetwork, game: Game, features: np.ndarray, decisions: int, config: dict) -> PolicyFile:
    """The network and the action-feature table as an action-value policy file for ``game``."""
    return policy_file_from_weights(net.arrays(), game, decisions, config=config, activation="relu",
                                    action_features=features)


class Replay:
    """The latest rows (observation, action, return) in preallocated numpy arrays, used as a ring."""

    FIELDS = ("obs", "action", "ret")

    def __init__(self, capacity: int, obs_size: int):
        self.capacity, self.size, self.cursor = capacity, 0, 0
        self.obs = np.zeros((capacity, obs_size), dtype=np.float32)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.ret = np.zeros(capacity, dtype=np.float32)

    def add(self, obs: np.ndarray, action: np.ndarray, ret: np.ndarray) -> None:
        """Store rows, overwriting the oldest once full."""
        for start in range(0, len(action), self.capacity):  # more rows than the ring: the last ones win
            part = slice(start, start + self.capacity)
            o, a, r = obs[part], action[part], ret[part]
            idx = (self.cursor + np.arange(len(a))) % self.capacity
            self.obs[idx], self.action[idx], self.ret[idx] = o, a, r
            self.cursor = int((self.cursor + len(a)) % self.capacity)
            self.size = min(self.size + len(a), self.capacity)

    def sample(self, rng: np.random.Generator, n: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``n`` rows drawn uniformly (with replacement): observations, actions, returns."""
        idx = rng.integers(self.size, size=n)
        return torch.from_numpy(self.obs[idx]), torch.from_numpy(self.action[idx]), torch.from_numpy(self.ret[idx])


class Trainer:
    """The learner: its network, its ring of rows, its actors, and the fixed schedule between them."""

    def __init__(self, run: TrainingRun):
        self.run, self.cfg = run, run.as_config()
        cfg = self.cfg
        actors = max(cfg.dmc_actors, 1)
        if cfg.num_games < actors:
            raise ConfigError(f"training config 'num_games' = {cfg.num_games} is fewer than 'dmc_actors' = "
                              f"{cfg.dmc_actors}: each actor plays at least one game")
        self.game = run.game()
        self.features = action_features(self.game)
        self.shares = [cfg.num_games // actors + (j < cfg.num_games % actors) for j in range(actors)]
        self.seed_segment(0)
        self.quota = cfg.batch_size  # each actor's learner decisions per round (a weight shipment per round)
        obs_size = self.game_observation_size()
        with torch.random.fork_rng(devices=[]):  # the initial weights from the run's seed, torch's own state untouched
            torch.manual_seed(run.seed)
            self.net = QNetwork(obs_size, self.features.shape[1], cfg.net_arch)
        self.optimiser = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate)
        # not sized by the budget: a last round can bring more rows than budget + batch_size, and a ring that
        # wrapped there would make a run's end differ from the same point of a longer run (numpy's zeros take
        # memory only as rows are written)
        self.replay = Replay(REPLAY_ROWS, obs_size)
        self.feature_table = torch.from_numpy(self.features)
        self.decisions = self.updates = 0
        self.credit = 0.0

    def seed_segment(self, segment: int) -> None:
        """The learner's Generator and the actors' specs for ``segment`` (train/resumable.py): fresh games."""
        run, cfg = self.run, self.cfg
        learner_seed, *actor_seeds = resumable.segment_seed(run.seed, segment).spawn(1 + len(self.shares))
        self.segment = segment
        self.rng = np.random.default_rng(learner_seed)
        self.specs = [ActorSpec(run.variant, run.num_players, dict(run.rule_options), dict(run.league), share,
                                seed, cfg.dmc_epsilon, cfg.gamma) for share, seed in zip(self.shares, actor_seeds)]

    def modules(self) -> dict:
        """What a checkpoint holds of torch."""
        return {"net": self.net, "optimiser": self.optimiser}

    def checkpoint(self) -> None:
        """Save the learner's state for the next segment."""
        replay = self.replay
        resumable.save(self.run.run_dir, "dmc", self.run.config,
                       {"decisions": self.decisions, "updates": self.updates, "credit": self.credit,
                        "replay": [replay.size, replay.cursor], "segment": self.segment + 1}, self.modules(),
                       {f"replay.{name}": getattr(replay, name)[:replay.size] for name in Replay.FIELDS})

    def resume(self) -> int:
        """Load the run's checkpoint; the segment it starts."""
        replay = self.replay
        counters, rows = resumable.load(self.run.run_dir, "dmc", self.run.config, self.modules(),
                                        {f"replay.{name}": getattr(replay, name) for name in Replay.FIELDS})
        with resumable.fitting(self.run.run_dir):
            self.decisions, self.updates = int(counters["decisions"]), int(counters["updates"])
            self.credit = float(counters["credit"])
            replay.size, replay.cursor = resumable.check_ring(self.run.run_dir, "replay", counters["replay"],
                                                              replay.capacity, rows["replay.obs"])
            return int(counters["segment"])

    def segment_end(self) -> int:
        """The decision count at which the current segment ends."""
        return resumable.segment_end(self.segment, self.cfg.checkpoint_every, self.run.budget)

    def game_observation_size(self) -> int:
        """The observation size of the run's home table."""
        from uno_env.observation import ObservationEncoder

        return ObservationEncoder(self.game).size

    def update(self) -> float:
        """One Adam step on ``batch_size`` rows drawn from the ring: the squared error of Q(s, a) to the return."""
        obs, action, ret = self.replay.sample(self.rng, self.cfg.batch_size)
        q = self.net(obs, self.feature_table[action])
        loss = torch.mean((q - ret) ** 2)
        self.optimiser.zero_grad()
        loss.backward()
        self.optimiser.step()
        self.updates += 1
        return loss.item()

    def learn(self, new_rows: int) -> int:
        """The gradient steps due after ``new_rows`` more rows (``SAMPLE_REUSE`` per ``batch_size``); how many ran."""
        if self.replay.size < self.cfg.batch_size:
            return 0
        self.credit += new_rows * SAMPLE_REUSE / self.cfg.batch_size
        steps = int(self.credit)
        self.credit -= steps
        for _ in range(steps):
            self.update()
        return steps

    def export(self) -> PolicyFile:
        """The current greedy policy as an action-value policy file."""
        return export_policy(self.net, self.game, self.features, self.decisions, self.run.config)

    def start_actors(self) -> list:
        """The actors: in this process (``dmc_actors: 0``) or one worker process each."""
        if self.cfg.dmc_actors == 0:
            return [LocalActor(self.specs[0])]
        actors = []
        try:
            for j, spec in enumerate(self.specs):
                actors.append(ActorProcess(spec, j))
        except BaseException:
            for actor in actors:
                actor.close()
            raise
        return actors

    def train(self) -> PolicyFile:
        """Learn for the budget of learner decisions on the fixed schedule (module docstring); the policy."""
        if self.run.resume and resumable.exists(self.run.run_dir):
            self.seed_segment(self.resume())
        with Progress("train", self.run.budget, "decisions", initial=self.decisions,
                      enabled=self.run.progress) as bar:
            while True:
                self.play_segment(bar)
                if self.decisions >= self.run.budget:
                    break
                self.checkpoint()  # then the next segment's games, dealt afresh
                self.seed_segment(self.segment + 1)
        self.run.report(self.decisions, self.export)
        return self.export()

    def play_segment(self, bar: Progress) -> None:
        """The rounds of the current segment, its actors started at its beginning and stopped at its end."""
        actors = self.start_actors()
        local = self.cfg.dmc_actors == 0
        try:
            weights = self.net.arrays()
            for actor in actors:
                actor.submit(weights, self.quota)
            while True:
                rows = []
                for j, actor in enumerate(actors):  # in actor order: the same rows whatever the processes' timing
                    rows.append(actor.result())
                    self.run.tally.receive((self.segment, j), rows[-1]["counted"])  # its games' count, checked
                    if not local:  # the next round at once, with the weights of before this round's learning
                        actor.submit(weights, self.quota)
                new = 0
                for r in rows:
                    self.replay.add(r["obs"], r["action"], r["ret"])
                    new += len(r["action"])
                self.decisions += new
                bar.set(self.decisions)
                ended = self.decisions >= self.segment_end()
                if not ended and local:
                    for actor in actors:  # the same weights a process would have been handed above
                        actor.submit(weights, self.quota)
                if self.learn(new):
                    weights = self.net.arrays()
                # every round, learned or not: the first report at a point is the policy a run with that budget
                # ends with (its last round is this one)
                self.run.report(self.decisions, self.export)
                if ended:  # (a process's round already handed out is dropped with it)
                    break
        finally:
            for actor in actors:
                actor.close()


def train(run: TrainingRun) -> PolicyFile:
    """Train DMC on ``run`` (its settings: ``train.config.DmcSettings`` and the shared keys); the policy."""
    return Trainer(run).train()
