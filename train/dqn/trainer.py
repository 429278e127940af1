"""Masked double DQN with a dueling head and n-step returns over batched games, in one readable file.

In the manner of CleanRL's ``dqn.py``, for a card game whose illegal actions are masked and whose only
reward comes at the end of a game:

- The network (``QNetwork``): a relu trunk, then a value head V(s) and an advantage head A(s, a);
  Q(s, a) = V(s) + A(s, a) - the mean of A over the legal actions. V and the mean are the same for
  every action of a state, so the greedy action is the arg-max of A alone: acting reads A, and the
  trunk with the advantage head is exported as a plain MLP policy file (``export_policy``).
- The games (``uno_env.vector.VectorGames``): each new game seats the learner at a random seat and
  draws every other seat from the league; a seat drawn as ``self`` is the learner too, so it learns
  from every seat it holds. Each learner decision counts against the budget (the contract's rule).
- Transitions (``NStep``): from one decision of a learner seat to the same seat's decision
  ``n_step`` later, or to the game's end; the other seats' moves in between are the environment.
  The reward is the seat's ``rewards[i, seat]`` at the end; a game cut at the step cap (the rules'
  ``max_steps`` or the shorter training cut ``train_max_steps``) pays ``truncation_reward`` (-1).
- The replay buffer (``Replay``): preallocated numpy arrays used as a ring, sampled uniformly. It
  keeps each next state's legal actions: the bootstrap's arg-max is over those.
- Learning (``Trainer``): epsilon-greedy on a linear schedule over learner decisions; every
  ``train_freq`` decisions one Adam step on the Huber loss against the double-DQN target
  r + gamma^n Q_target(s', argmax over legal a' of Q_online(s', a')); the target network follows
  every ``target_update_interval`` steps (a copy, or a Polyak average when ``tau`` < 1).

Everything random comes from ``run.seed``: a numpy Generator (exploration, replay sampling, the
league's draws), torch's seed for the initial weights, the games' and opponents' own seeds.

Checkpoints (``train/resumable.py``): the run is cut into segments of ``checkpoint_every``
decisions; each deals its games afresh from ``(seed, segment)`` with a Generator of that seed, and
the learner's state (networks, optimiser, replay, counters) is saved at the end of each, so a run
resumed with ``run.resume`` learns exactly what the uninterrupted run learns.
"""
from __future__ import annotations

import copy

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from agents.policy_file import PolicyFile, policy_file_from_weights
from uno_env import Game

from train import resumable
from train.contract import TrainingRun
from train.collect.seating import LEARNER, Seating
from train.dqn.network import QNetwork
from train.export import linear_arrays
from train.progress import Progress


def export_policy(net: QNetwork, game: Game, decisions: int, config: dict) -> PolicyFile:
    """The trunk and the advantage head as a policy file: its arg-max over the legal actions is the greedy policy."""
    linears = [m for m in net.trunk if isinstance(m, nn.Linear)] + [net.advantage]
    # "output" tells a reader that the scores are advantages, not a softmax policy's logits
    return policy_file_from_weights(linear_arrays(linears), game, decisions, config={**config, "output": "advantages"},
                                    activation="relu")


class Replay:
    """Transitions in preallocated numpy arrays, used as a ring (the oldest overwritten), sampled uniformly."""

    def __init__(self, capacity: int, obs_size: int, num_actions: int):
        self.capacity, self.size, self.cursor = capacity, 0, 0
        self.obs = np.zeros((capacity, obs_size), dtype=np.float32)
        self.mask = np.zeros((capacity, num_actions), dtype=bool)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.discount = np.zeros(capacity, dtype=np.float32)  # gamma^n, or 0 at the game's end: no bootstrap
        self.next_obs = np.zeros((capacity, obs_size), dtype=np.float32)
        self.next_mask = np.zeros((capacity, num_actions), dtype=bool)  # the bootstrap's legal actions

    def add(self, obs, mask, action: int, reward: float, discount: float, next_obs=None, next_mask=None) -> None:
        """Store one transition (without ``next_obs``: the game ended, nothing to bootstrap from)."""
        i = self.cursor
        self.obs[i], self.mask[i], self.action[i] = obs, mask, action
        self.reward[i], self.discount[i] = reward, discount
        if next_obs is None:
            self.next_obs[i], self.next_mask[i] = 0.0, False
        else:
            self.next_obs[i], self.next_mask[i] = next_obs, next_mask
        self.cursor = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    FIELDS = ("obs", "mask", "action", "reward", "discount", "next_obs", "next_mask")

    def sample(self, rng: np.random.Generator, n: int) -> dict[str, torch.Tensor]:
        """``n`` transitions drawn uniformly (with replacement), as tensors by field name."""
        idx = rng.integers(self.size, size=n)
        return {name: torch.from_numpy(getattr(self, name)[idx]) for name in self.FIELDS}

    def stored(self, prefix: str) -> dict[str, np.ndarray]:
        """The stored transitions, named ``prefix``.field (views: what a checkpoint writes)."""
        return {f"{prefix}.{name}": getattr(self, name)[:self.size] for name in self.FIELDS}

    def buffers(self, prefix: str) -> dict[str, np.ndarray]:
        """The whole arrays by the same names (what a checkpoint is read into)."""
        return {f"{prefix}.{name}": getattr(self, name) for name in self.FIELDS}


class NStep:
    """Each learner seat's last ``n`` decisions, turned into n-step transitions when it decides again or its game ends."""

    def __init__(self, n: int, gamma: float, replay: Replay):
        self.n, self.gamma, self.replay = n, gamma, replay
        self.pending: dict[tuple[int, int], list] = {}  # (game, seat) -> [(obs, mask, action), ...], oldest first

    def decide(self, key: tuple[int, int], obs: np.ndarray, mask: np.ndarray, action: int) -> None:
        """The seat decides: its decision ``n`` back now has its n-step successor (no reward before the end)."""
        queue = self.pending.setdefault(key, [])
        if len(queue) == self.n:
            o, m, a = queue.pop(0)
            self.replay.add(o, m, a, 0.0, self.gamma ** self.n, obs, mask)
        queue.append((obs.copy(), mask.copy(), action))  # the games overwrite their arrays at every step

    def finish(self, key: tuple[int, int], reward: float) -> None:
        """The seat's game ended with ``reward``: each pending decision gets it, discounted by the decisions after it."""
        queue = self.pending.pop(key, [])
        for k, (o, m, a) in enumerate(queue):
            self.replay.add(o, m, a, self.gamma ** (len(queue) - 1 - k) * reward, 0.0)


class Trainer:
    """The learner's state and its loop: act in every game, store transitions, learn, report."""

    def __init__(self, run: TrainingRun):
        self.run, self.cfg = run, run.as_config()
        self.rng = np.random.default_rng(run.seed)
        # the run's games: they count the learner's decisions (the seats ``Seating`` marks) against the budget
        self.games = run.games(self.cfg.num_games, cut_at=self.cfg.train_max_steps)
        with torch.random.fork_rng(devices=[]):  # the initial weights from the run's seed, torch's own state untouched
            torch.manual_seed(run.seed)
            self.online = QNetwork(self.games.observation_size, self.games.num_actions, self.cfg.net_arch)
        self.target = copy.deepcopy(self.online).requires_grad_(False)
        self.optimiser = torch.optim.Adam(self.online.parameters(), lr=self.cfg.learning_rate)
        capacity = min(self.cfg.buffer_size, run.budget + self.cfg.num_games)  # never more than the run stores
        self.replay = Replay(capacity, self.games.observation_size, self.games.num_actions)
        self.nstep = NStep(self.cfg.n_step, self.cfg.gamma, self.replay)
        self.league = Seating(run.league, self.games, self.rng, run.seed)
        self.start = max(self.cfg.learning_starts, self.cfg.batch_size)
        self.decisions = self.updates = self.credit = 0
        self.segment = 0

    def epsilon(self) -> float:
        """The exploration rate now: linear from the initial to the final value over the schedule's decisions."""
        cfg = self.cfg
        span = cfg.exploration_fraction * self.run.budget
        done = min(1.0, self.decisions / span) if span > 0 else 1.0
        return cfg.exploration_initial_eps + done * (cfg.exploration_final_eps - cfg.exploration_initial_eps)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Epsilon-greedy actions for a batch of learner decisions: never an illegal one."""
        with torch.no_grad():
            scores = self.online.advantages(torch.from_numpy(obs)).numpy()
        legal = mask != 0
        greedy = np.where(legal, scores, -np.inf).argmax(1)
        uniform = np.where(legal, self.rng.random(legal.shape), -1.0).argmax(1)  # a uniformly random legal action
        explore = self.rng.random(len(obs)) < self.epsilon()
        return np.where(explore, uniform, greedy)

    def choose(self, rows: np.ndarray, seat: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The learner's actions in the games ``rows`` (``seat``, ``obs``, ``mask``: the batch's arrays)."""
        return self.act(obs[rows], mask[rows])

    def dealt(self, i: int) -> None:
        """Game ``i`` was dealt again and its seats drawn (a hook: NFSP draws its seats' modes here)."""

    def step(self) -> int:
        """One move in every game (the learner's and the league's); the learner decisions it made."""
        games, league = self.games, self.league
        seat, obs, mask = games.seat, games.obs, games.mask  # overwritten in place by every games.step
        roles = league.roles[np.arange(games.num_games), seat]
        rows = np.flatnonzero(roles == LEARNER)
        actions = np.zeros(games.num_games, dtype=np.int64)
        actions[rows] = self.choose(rows, seat, obs, mask)
        for i in rows.tolist():
            self.nstep.decide((i, int(seat[i])), obs[i], mask[i], int(actions[i]))
        opponents = np.flatnonzero(roles != LEARNER)
        if len(opponents):
            actions[opponents] = league.act_rows(opponents, seat, obs, mask, games)
        _, _, _, rewards, terminated, truncated = games.step(actions)
        for i in np.flatnonzero(terminated | truncated).tolist():
            for s in league.learner_seats(i):
                self.nstep.finish((i, s), self.cfg.truncation_reward if truncated[i] else float(rewards[i, s]))
            league.deal(i)
            self.dealt(i)
        return len(rows)

    def update(self) -> float:
        """One gradient step on a sampled batch against the double-DQN n-step target; the loss."""
        b = self.replay.sample(self.rng, self.cfg.batch_size)
        with torch.no_grad():
            # the online network picks the next action among the legal ones, the target network values it
            best = self.online.advantages(b["next_obs"]).masked_fill(~b["next_mask"], -torch.inf).argmax(1)
            next_q = self.target(b["next_obs"], b["next_mask"]).gather(1, best[:, None]).squeeze(1)
            goal = b["reward"] + b["discount"] * next_q  # discount 0 at a game's end
        q = self.online(b["obs"], b["mask"]).gather(1, b["action"][:, None]).squeeze(1)
        loss = F.smooth_l1_loss(q, goal)
        self.optimiser.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.online.parameters(), self.cfg.max_grad_norm)
        self.optimiser.step()
        self.updates += 1
        if self.updates % self.cfg.target_update_interval == 0:
            self.sync_target()
        return loss.item()

    def sync_target(self) -> None:
        """Move the target network to the online one: a copy (``tau`` = 1) or a Polyak step."""
        with torch.no_grad():
            for t, o in zip(self.target.parameters(), self.online.parameters()):
                if self.cfg.tau == 1.0:
                    t.copy_(o)
                else:
                    t.lerp_(o, self.cfg.tau)

    def learn(self, new_decisions: int) -> int:
        """The gradient steps due after ``new_decisions`` more decisions (one per ``train_freq``); how many ran."""
        if self.replay.size < self.start:
            return 0
        self.credit += new_decisions
        steps = self.credit // self.cfg.train_freq
        self.credit -= steps * self.cfg.train_freq
        for _ in range(steps):
            self.update()
        return steps

    def export(self) -> PolicyFile:
        """The current greedy policy as a policy file."""
        return export_policy(self.online, self.games.game, self.decisions, self.run.config)

    # -- segments and checkpoints (train/resumable.py)

    def begin_segment(self, segment: int) -> None:
        """Deal every game afresh for ``segment``: its Generator, seats and deals from (seed, segment)."""
        self.segment = segment
        if segment == 0:  # what __init__ drew: a run without checkpoints is as before segments
            self.games.reset(seed=self.run.seed)
            return
        self.rng = np.random.default_rng(resumable.segment_seed(self.run.seed, segment))
        self.league = Seating(self.run.league, self.games, self.rng, int(self.rng.integers(2**31)))
        self.nstep.pending.clear()  # the unfinished games' decisions: dropped, as their games are
        self.games.reset(seed=int(self.rng.integers(2**31)))
        for i in range(self.games.num_games):
            self.dealt(i)

    def modules(self) -> dict:
        """What a checkpoint holds of torch: the networks and optimisers by name."""
        return {"online": self.online, "target": self.target, "optimiser": self.optimiser}

    def memories(self) -> dict[str, np.ndarray]:
        """What a checkpoint holds of numpy: the replay."""
        return self.replay.stored("replay")

    def buffers(self) -> dict[str, np.ndarray]:
        """Where a checkpoint's arrays are read into."""
        return self.replay.buffers("replay")

    def counters(self) -> dict:
        """What a checkpoint holds of numbers."""
        return {"decisions": self.decisions, "updates": self.updates, "credit": self.credit,
                "replay": [self.replay.size, self.replay.cursor]}

    def restore(self, counters: dict, rows: dict[str, int]) -> None:
        """Put back the numbers of a checkpoint (the modules and memories are loaded already)."""
        self.decisions, self.updates, self.credit = (int(counters[k]) for k in ("decisions", "updates", "credit"))
        self.replay.size, self.replay.cursor = resumable.check_ring(
            self.run.run_dir, "replay", counters["replay"], self.replay.capacity, rows["replay.obs"])

    def checkpoint(self) -> None:
        """Save the learner's state at the end of the current segment."""
        resumable.save(self.run.run_dir, self.cfg.algo, self.run.config,
                       {**self.counters(), "segment": self.segment + 1}, self.modules(), self.memories())

    def resume(self) -> int:
        """Load the run's checkpoint; the segment it starts."""
        counters, rows = resumable.load(self.run.run_dir, self.cfg.algo, self.run.config, self.modules(),
                                        self.buffers())
        with resumable.fitting(self.run.run_dir):
            self.restore(counters, rows)
            return int(counters["segment"])

    def segment_end(self) -> int:
        """The decision count at which the current segment ends."""
        return resumable.segment_end(self.segment, self.cfg.checkpoint_every, self.run.budget)

    def train(self) -> PolicyFile:
        """Learn for the budget of learner decisions, reporting after every step of the games."""
        resumed = self.run.resume and resumable.exists(self.run.run_dir)
        self.begin_segment(self.resume() if resumed else 0)
        with Progress("train", self.run.budget, "decisions", initial=self.decisions,
                      enabled=self.run.progress) as bar:
            while self.decisions < self.run.budget:
                made = self.step()
                self.decisions += made
                bar.set(self.decisions)
                self.learn(made)
                # every step, learned or not: the first report at a point is the policy a run with that budget
                # ends with (the loop stops right after this step)
                self.run.report(self.decisions, self.export)
                if self.segment_end() <= self.decisions < self.run.budget:
                    self.checkpoint()
                    self.begin_segment(self.segment + 1)
        self.run.report(self.decisions, self.export)
        return self.export()


def train(run: TrainingRun) -> PolicyFile:
    """Train a DQN on ``run`` (its hyperparameters are the config's, ``train.config.DqnSettings``); the policy."""
    return Trainer(run).train()

