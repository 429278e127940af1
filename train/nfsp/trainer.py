"""Neural Fictitious Self-Play (Heinrich & Silver, 2016) over batched games, in one readable file.

NFSP learns two networks side by side and plays a mixture of them:

- The best response: the built-in DQN (``train/dqn/trainer.py``: masked double DQN, dueling head,
  n-step returns, epsilon-greedy on its schedule). It is reused as it is: ``Trainer`` here extends
  the DQN's ``Trainer`` and keeps its networks, replay buffer, n-step transitions, league and
  gradient step.
- The average policy (``AveragePolicy``): an MLP (relu hidden layers of ``net_arch``) whose logits,
  masked to the legal actions, are a softmax policy. It learns by supervised cross-entropy to
  reproduce what the best response did: in fictitious play, the average of past best responses.
- The mixture: whenever a game is dealt, each seat the learner holds (its random seat, and every
  ``self`` seat of the league) draws once whether it plays that whole game by the best response
  (probability ``anticipatory``) or by the average policy (sampling its softmax). Other seats are
  league opponents, as in the DQN.
- The memories: every learner decision, best response or average, goes into the DQN's replay
  buffer as n-step transitions (the RL memory holds all of the agent's own transitions, as in the
  paper). Only best-response decisions go into the reservoir (``Reservoir``), kept by reservoir
  sampling, so that each best-response decision seen so far is equally likely to be in it: a
  uniform sample of the reservoir is a sample of the average of the past best responses.
- The reservoir's target: with the state, the legal actions, the greedy action and the epsilon of
  the moment, i.e. the epsilon-greedy distribution the best response drew from (as OpenSpiel's NFSP
  stores its action probabilities): (1 - eps) on the greedy action, eps spread over the legal ones.
  Its cross-entropy is the expectation of the paper's loss on the sampled action, with less noise.
- Learning: every ``train_freq`` learner decisions one DQN step (once the replay holds
  ``learning_starts`` transitions) and one Adam step of the average policy (learning rate
  ``average_learning_rate``, once the reservoir holds a batch), each on ``batch_size`` samples.
- Export: the AVERAGE policy is the one reported, returned and scored (``export_average``), a plain
  relu MLP policy file. The shipped ``PolicyAgent`` (``agents.load``, ``uno-env eval``) plays its
  arg-max over the legal actions, its most likely action, not a sample of it; from Python,
  ``PolicyAgent(policy, deterministic=False, seed=...)`` samples the softmax as NFSP's own games do.

Everything random comes from ``run.seed``: one numpy Generator (the modes, the policies' draws,
exploration, both memories' sampling, the league), torch's seed for the initial weights (under
``torch.random.fork_rng``, torch's own state untouched), the games' and opponents' own seeds.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.policy_file import PolicyFile, policy_file_from_weights
from uno_env import Game

from train.contract import TrainingRun
from train.dqn import trainer as dqn
from train.export import linear_arrays
from train.nfsp.network import AveragePolicy


def export_average(net: AveragePolicy, game: Game, decisions: int, config: dict) -> PolicyFile:
    """The average policy as a policy file: its logits, relu between the layers (the agent masks them)."""
    linears = [m for m in net.net if isinstance(m, nn.Linear)]
    return policy_file_from_weights(linear_arrays(linears), game, decisions,
                                    config={**config, "output": "average policy logits"}, activation="relu")


class Reservoir:
    """Best-response decisions, at most ``capacity``, kept by reservoir sampling (Vitter's algorithm R).

    The first ``capacity`` decisions fill it; the k-th after that replaces a uniformly chosen one with
    probability capacity / k. Every decision seen so far is then in it with the same probability.
    """

    def __init__(self, capacity: int, obs_size: int, num_actions: int):
        self.capacity, self.size, self.seen = capacity, 0, 0
        self.obs = np.zeros((capacity, obs_size), dtype=np.float32)
        self.mask = np.zeros((capacity, num_actions), dtype=bool)
        self.greedy = np.zeros(capacity, dtype=np.int64)  # the best response's greedy action
        self.eps = np.zeros(capacity, dtype=np.float32)  # its exploration rate at that decision

    def add(self, rng: np.random.Generator, obs, mask, greedy: int, eps: float) -> None:
        """Offer one decision: kept for sure while there is room, else with probability capacity / seen."""
        self.seen += 1
        if self.size < self.capacity:
            i = self.size
            self.size += 1
        else:
            i = int(rng.integers(self.seen))
            if i >= self.capacity:
                return
        self.obs[i], self.mask[i], self.greedy[i], self.eps[i] = obs, mask, greedy, eps

    FIELDS = ("obs", "mask", "greedy", "eps")

    def sample(self, rng: np.random.Generator, n: int) -> dict[str, torch.Tensor]:
        """``n`` decisions drawn uniformly (with replacement), as tensors by field name."""
        idx = rng.integers(self.size, size=n)
        return {name: torch.from_numpy(getattr(self, name)[idx]) for name in self.FIELDS}

    def stored(self) -> dict[str, np.ndarray]:
        """The kept decisions, named reservoir.field (views: what a checkpoint writes)."""
        return {f"reservoir.{name}": getattr(self, name)[:self.size] for name in self.FIELDS}

    def buffers(self) -> dict[str, np.ndarray]:
        """The whole arrays by the same names (what a checkpoint is read into)."""
        return {f"reservoir.{name}": getattr(self, name) for name in self.FIELDS}


def sample_masked(rng: np.random.Generator, log_probs: np.ndarray) -> np.ndarray:
    """One action per row drawn from ``exp(log_probs)`` (illegal entries at -inf have probability 0)."""
    p = np.exp(log_probs - log_probs.max(1, keepdims=True))
    cdf = np.cumsum(p, axis=1)
    draw = rng.random((len(p), 1)) * cdf[:, -1:]
    chosen = (cdf <= draw).sum(1)  # the first action whose cumulative mass passes the draw
    return np.minimum(chosen, p.shape[1] - 1)


class Trainer(dqn.Trainer):
    """The DQN trainer (the best response) with the average policy, the reservoir and the per-game modes."""

    def __init__(self, run: TrainingRun):
        super().__init__(run)
        games, cfg = self.games, self.cfg
        with torch.random.fork_rng(devices=[]):  # its own seed, drawn from the run's generator
            torch.manual_seed(int(self.rng.integers(2**31)))
            self.average = AveragePolicy(games.observation_size, games.num_actions, cfg.net_arch)
        self.average_optimiser = torch.optim.Adam(self.average.parameters(), lr=cfg.average_learning_rate)
        capacity = min(cfg.reservoir_size, run.budget + cfg.num_games)  # never more than the run offers
        self.reservoir = Reservoir(capacity, games.observation_size, games.num_actions)
        self.best = np.zeros(self.league.roles.shape, dtype=bool)  # seat plays this game by the best response
        for i in range(games.num_games):
            self.draw_modes(i)
        self.average_updates = 0

    def draw_modes(self, i: int) -> None:
        """Game ``i`` was dealt: each seat draws best response (probability ``anticipatory``) or average."""
        self.best[i] = self.rng.random(self.best.shape[1]) < self.cfg.anticipatory

    def act_best(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Epsilon-greedy best-response actions for a batch, and the greedy actions they explored from."""
        with torch.no_grad():
            scores = self.online.advantages(torch.from_numpy(obs)).numpy()
        legal = mask != 0
        greedy = np.where(legal, scores, -np.inf).argmax(1)
        uniform = np.where(legal, self.rng.random(legal.shape), -1.0).argmax(1)  # a uniformly random legal action
        explore = self.rng.random(len(obs)) < self.epsilon()
        return np.where(explore, uniform, greedy), greedy

    def act_average(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions sampled from the average policy for a batch (never an illegal one)."""
        with torch.no_grad():
            log_probs = self.average(torch.from_numpy(obs), torch.from_numpy(mask != 0)).numpy()
        return sample_masked(self.rng, log_probs)

    def choose(self, rows: np.ndarray, seat: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The learner's actions in the games ``rows``, each seat by its mode; the best response's go to the reservoir."""
        best = self.best[rows, seat[rows]]
        actions = np.zeros(len(rows), dtype=np.int64)
        br, avg = rows[best], rows[~best]
        eps = self.epsilon()
        if len(br):
            actions[best], greedy = self.act_best(obs[br], mask[br])
            for i, g in zip(br.tolist(), greedy.tolist()):  # only the best response's decisions are averaged
                self.reservoir.add(self.rng, obs[i], mask[i] != 0, g, eps)
        if len(avg):
            actions[~best] = self.act_average(obs[avg], mask[avg])
        return actions  # (the DQN's step sends every learner decision to the replay)

    def dealt(self, i: int) -> None:
        """Game ``i`` was dealt again: its seats draw their modes."""
        self.draw_modes(i)

    def update_average(self) -> float:
        """One Adam step of the average policy: cross-entropy to the stored epsilon-greedy distributions; the loss."""
        b = self.reservoir.sample(self.rng, self.cfg.batch_size)
        legal = b["mask"]
        target = legal.float() * (b["eps"] / legal.sum(1).clamp(min=1))[:, None]  # eps spread over the legal ones
        target[torch.arange(len(target)), b["greedy"]] += 1.0 - b["eps"]
        log_probs = self.average(b["obs"], legal).masked_fill(~legal, 0.0)  # no -inf * 0 for the illegal ones
        loss = -(target * log_probs).sum(1).mean()
        self.average_optimiser.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.average.parameters(), self.cfg.max_grad_norm)
        self.average_optimiser.step()
        self.average_updates += 1
        return loss.item()

    def learn(self, new_decisions: int) -> int:
        """The gradient steps due after ``new_decisions`` more decisions (per ``train_freq``: one of each
        network whose memory is ready); how many ran."""
        self.credit += new_decisions
        due = self.credit // self.cfg.train_freq
        self.credit -= due * self.cfg.train_freq
        ran = 0
        for _ in range(due):
            if self.replay.size >= self.start:
                self.update()
                ran += 1
            if self.reservoir.size >= self.cfg.batch_size:
                self.update_average()
                ran += 1
        return ran

    def modules(self) -> dict:
        """The DQN's networks and optimiser, and the average policy's."""
        return {**super().modules(), "average": self.average, "average_optimiser": self.average_optimiser}

    def memories(self) -> dict[str, np.ndarray]:
        """The replay and the reservoir."""
        return {**super().memories(), **self.reservoir.stored()}

    def buffers(self) -> dict[str, np.ndarray]:
        """Where a checkpoint's replay and reservoir are read into."""
        return {**super().buffers(), **self.reservoir.buffers()}

    def counters(self) -> dict:
        """The DQN's counters, the reservoir's counts and the average policy's steps."""
        return {**super().counters(), "average_updates": self.average_updates,
                "reservoir": [self.reservoir.size, self.reservoir.seen]}

    def restore(self, counters: dict, rows: dict[str, int]) -> None:
        """The DQN's state, the reservoir's counts and the average policy's step count."""
        super().restore(counters, rows)
        size, seen = (int(x) for x in counters["reservoir"])
        if size != rows["reservoir.obs"] or not 0 <= size <= self.reservoir.capacity or seen < size:
            raise ValueError(f"reservoir: counts {counters['reservoir']!r} do not fit its "
                             f"{self.reservoir.capacity:,} rows ({rows['reservoir.obs']:,} stored)")
        self.reservoir.size, self.reservoir.seen = size, seen
        self.average_updates = int(counters["average_updates"])

    def export(self) -> PolicyFile:
        """The current average policy as a policy file (what NFSP reports and returns)."""
        return export_average(self.average, self.games.game, self.decisions, self.run.config)


def train(run: TrainingRun) -> PolicyFile:
    """Train NFSP on ``run`` (hyperparameters: ``train.config.NfspSettings`` and ``DqnSettings``); the average policy."""
    return Trainer(run).train()
