"""Who holds each seat of a batch of games: the learner or a league opponent (the value-based trainers' league).

Each new game seats the learner at one seat drawn at random and draws every other seat from the league
(``{spec: weight}``); a seat drawn as ``self`` is the learner's too, so it learns from every seat it holds.
The DQN, NFSP and DMC share it; the native PPO's collector seats its games its own way (tables, snapshots).
"""
from __future__ import annotations

import numpy as np

from uno_env.vector import VectorGames

from train.agent_specs import load_agent

#: A seat's role when the learner holds it (otherwise the role is the index of its league opponent).
LEARNER = -1


class Seating:
    """Who holds each seat of each game: the learner (a random seat, and every ``self`` seat) or a league opponent."""

    def __init__(self, league: dict[str, float], games: VectorGames, rng: np.random.Generator, opponent_seed: int):
        self.rng = rng
        names = list(league)
        weights = np.array([league[k] for k in names], dtype=float)
        self.p = weights / weights.sum()
        # opponent j is seeded opponent_seed + j: the same league gives the same opponents
        self.agents = [None if k == "self" else load_agent(k, games.game, seed=opponent_seed + j)
                       for j, k in enumerate(names)]
        self.roles = np.zeros((games.num_games, games.num_players), dtype=np.int64)
        # the run's games (train/counting.py) count the decisions of the seats marked here as the learner's
        self.learner = getattr(games, "learner", None)
        for i in range(games.num_games):
            self.deal(i)

    def deal(self, i: int) -> None:
        """Seat game ``i`` anew: one seat at random is the learner's, the others drawn from the league."""
        n = self.roles.shape[1]
        drawn = self.rng.choice(len(self.agents), size=n, p=self.p)
        self.roles[i] = [LEARNER if self.agents[k] is None else k for k in drawn]
        self.roles[i, self.rng.integers(n)] = LEARNER
        if self.learner is not None:
            self.learner[i] = self.roles[i] == LEARNER

    def learner_seats(self, i: int) -> list[int]:
        """The seats of game ``i`` the learner holds."""
        return np.flatnonzero(self.roles[i] == LEARNER).tolist()

    def act_rows(self, rows: np.ndarray, seat: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                 games: VectorGames) -> np.ndarray:
        """The league opponents' actions in the games ``rows`` (``seat``, ``obs``, ``mask``: the batch's arrays).

        Each opponent decides its own rows in order, so its generator draws as it would row by row; one with
        ``act_batch`` (random, greedy, heuristic: the compiled core) decides all of them in one call."""
        out = np.zeros(len(rows), dtype=np.int64)
        roles = self.roles[rows, seat[rows]]
        for k in np.unique(roles).tolist():
            agent, picked = self.agents[k], np.flatnonzero(roles == k)
            mine = rows[picked]
            if getattr(agent, "reads_state", False):  # a search agent reads the game itself
                out[picked] = [agent.act_state(games.states[i]) for i in mine.tolist()]
            elif hasattr(agent, "act_batch"):
                out[picked] = agent.act_batch(obs[mine], mask[mine])
            else:
                out[picked] = [agent.act(obs[i], mask[i]) for i in mine.tolist()]
        return out
