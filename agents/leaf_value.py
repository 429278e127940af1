"""Leaf values of the search: who is likely to win an unfinished game, from the hands.

The search cuts its rollouts after a few decisions and scores the world it reached. Two models:

- ``sizes`` (``estimate``): a seat's chance to win falls by a factor e^(1/2) per card it holds
  more. Simple, but far too sure of itself: on states of rollout-policy games its log-loss is
  worse than a coin's (two-player Classic: 0.81 against ln 2 = 0.69).
- ``fitted`` (``LeafModel``): a conditional logit over per-seat features (``FEATURES``), fitted
  at first use to games of the search's rollout policy under the same rules and player count,
  by Newton's method. Two-player Classic: log-loss 0.62 on held-out states. Fitting takes one to
  a few seconds and is cached per rule set in the process; it reads only its own seeded
  generator, so every process fits the same model.

A model returns results on the search's scale: the winner +1, every other seat -1/(n-1), so the
values are expected results and add up to zero.
"""
from __future__ import annotations

import math

import numpy as np

from uno_env import Game, core
from uno_env.cards import Effect
from uno_env.state import State

#: Per-seat features of the fitted model, in order.
FEATURES = ("cards", "log(1 + cards)", "wild cards", "coloured action cards", "colours held",
            "seats until its turn", "cards of the current colour", "one card left")

FIT_GAMES = 1000
"""Rollout-policy games a model is fitted on."""

FIT_SEED = 20261123
"""Seed of the games and sampling of a fit (fixed: a fit is the same in every process)."""

SAMPLE_RATE = 0.2
"""Share of the decisions of a fitting game whose state is kept (neighbouring states are alike)."""

_cache: dict[tuple, "LeafModel"] = {}


class KindIndex:
    """Which card kinds of a game are wild, coloured action cards, or of each colour (read by the
    leaf model and the rollout policy alike)."""

    def __init__(self, game: Game):
        k = self.num_kinds = game.num_kinds
        self.is_wild = [bool(game.is_wild[i]) for i in range(k)]
        self.colour_of = [-1 if self.is_wild[i] else int(game.colour_of[i]) for i in range(k)]
        self.is_number = [game.effect_of[i] == Effect.NUMBER for i in range(k)]
        self.wild_kinds = [i for i in range(k) if self.is_wild[i]]
        self.action_kinds = [i for i in range(k) if not self.is_wild[i] and not self.is_number[i]]
        self.kinds_by_colour = [[i for i in range(k) if self.colour_of[i] == c] for c in range(4)]

    def colour_counts(self, hand: list[int]) -> list[int]:
        """Cards of each of the four colours in ``hand`` (counts per kind)."""
        get = hand.__getitem__
        return [sum(map(get, kinds)) for kinds in self.kinds_by_colour]


def estimate(s: State) -> list[float]:
    """Expected results of an unfinished game from its hand sizes: a seat's chance to win falls by
    a factor e^(1/2) per card it holds more (seats out of an Attack elimination match have none)."""
    return _results([-0.5 * size for size in s.hand_size], s)


def _results(scores: list[float], s: State) -> list[float]:
    n = s.num_players
    top = max(scores)
    weights = [0.0 if s.eliminated[i] else math.exp(x - top) for i, x in enumerate(scores)]
    total = 0.0
    for w in weights:  # added left to right (sum() of floats rounds otherwise from Python 3.12): the core's order
        total += w
    lose = 1.0 / (n - 1)
    return [w / total * (1.0 + lose) - lose for w in weights]


class LeafModel:
    """A conditional logit over ``FEATURES``: P(seat i wins) = softmax_i(w . features_i)."""

    def __init__(self, game: Game, weights: np.ndarray, log_loss: float, samples: int):
        self.game = game
        self.weights = [float(w) for w in weights]
        self.log_loss = log_loss   # on the held-out fifth of the fitting states
        self.samples = samples
        self.kinds = KindIndex(game)

    def features(self, s: State) -> list[list[float]]:
        """The feature rows of every seat of ``s``."""
        n = s.num_players
        kinds = self.kinds
        rows = []
        for i in range(n):
            get = s.hands[i].__getitem__
            size = s.hand_size[i]
            by_colour = kinds.colour_counts(s.hands[i])
            current = by_colour[s.colour] if 0 <= s.colour < 4 else 0
            rows.append([size, math.log1p(size), sum(map(get, kinds.wild_kinds)), sum(map(get, kinds.action_kinds)),
                         sum(1 for c in by_colour if c), ((i - s.current_seat) * s.direction) % n, current,
                         1.0 if size == 1 else 0.0])
        return rows

    def __call__(self, s: State) -> list[float]:
        """Expected results of the unfinished game ``s`` (the search's scale)."""
        return _results([self.score(row) for row in self.features(s)], s)

    def score(self, row: list[float]) -> float:
        """``weights . row``, added left to right as the core adds it (uno_env/core/search.cpp)."""
        total = 0.0
        for w, x in zip(self.weights, row):
            total += w * x
        return total


def fitted_model(game: Game, rollout, core_game: Game | None = None) -> LeafModel:
    """The model of ``game``'s rules, fitted on first use (then cached in this process); ``core_game``: play the
    fitting games on the compiled core (the same games, see ``fit``)."""
    key = (game.rules.variant, game.rules.num_players, repr(sorted(game.rules.options.items())))
    model = _cache.get(key)
    if model is None:
        model = _cache[key] = fit(game, rollout, core_game=core_game)
    return model


def fit(game: Game, rollout, games: int = FIT_GAMES, core_game: Game | None = None) -> LeafModel:
    """Fit a ``LeafModel`` to ``games`` games of ``rollout`` (a policy with ``choose(state, legal, rng)``).

    With ``core_game`` (a native game of the same rules) the games are played in the compiled core by its twin
    of the search's rollout policy (uno_env/core/search.cpp), tens of times faster: the same rows, so the same
    model, when ``rollout`` is the search's ``RolloutPolicy`` (tests/agents/test_native_search.py)."""
    rng = np.random.default_rng(FIT_SEED)
    if core_game is not None:
        x, off, y = core._core.leaf_fit_rows(core_game._tables, FIT_SEED, games, SAMPLE_RATE, rng)
    else:
        x, off, y = fit_rows(game, rollout, games, rng)
    if len(x) < 50:
        return LeafModel(game, np.array([-0.5] + [0.0] * (len(FEATURES) - 1)), math.nan, len(x))
    held_out = len(x) // 5
    train, test = slice(held_out, None), slice(0, held_out)
    mean = x[train].reshape(-1, x.shape[2]).mean(0)
    scale = x[train].reshape(-1, x.shape[2]).std(0)
    scale[scale == 0] = 1.0                     # a feature constant in these games (e.g. no wilds) stays at 0
    z = (x - mean) / scale
    w = _newton(z[train], off[train], y[train])
    return LeafModel(game, w / scale, _log_loss(z[test], off[test], y[test], w), len(x))


def fit_rows(game: Game, rollout, games: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fitting states of ``games`` games of ``rollout`` dealt from ``FIT_SEED + i``: every seat's features
    (states x seats x features), the seats out of an Attack elimination match (states x seats), the winners;
    before each decision a state is kept with chance ``SAMPLE_RATE`` (one ``rng.random()``)."""
    model = LeafModel(game, np.zeros(len(FEATURES)), math.nan, 0)
    rows, out, winners = [], [], []
    for i in range(games):
        s = game.new_state(FIT_SEED + i)
        kept = []
        while not s.is_over:
            if rng.random() < SAMPLE_RATE:
                kept.append((model.features(s), list(s.eliminated)))
            game.step(s, rollout.choose(s, game.legal_actions(s), rng))
        if s.winner is not None:  # a truncated game says nothing about who wins
            rows += [r for r, _ in kept]
            out += [e for _, e in kept]
            winners += [s.winner] * len(kept)
    # seats out of an Attack elimination match cannot win
    return np.asarray(rows, dtype=float), np.asarray(out, dtype=bool), np.asarray(winners, dtype=np.int64)


def _newton(z: np.ndarray, off: np.ndarray, y: np.ndarray, steps: int = 25, ridge: float = 1e-3) -> np.ndarray:
    """Maximum-likelihood weights of the conditional logit (Newton's method, a small ridge)."""
    m, n, d = z.shape
    w = np.zeros(d)
    chosen = z[np.arange(m), y]                 # the winners' rows
    for _ in range(steps):
        p = _softmax(z @ w, off)                # m x n
        mean_row = np.einsum("mn,mnd->md", p, z)
        grad = (chosen - mean_row).sum(0) - ridge * m * w
        second = np.einsum("mn,mnd,mne->de", p, z, z) - mean_row.T @ mean_row
        step = np.linalg.solve(second + ridge * m * np.eye(d), grad)
        w += step
        if np.abs(step).max() < 1e-6:
            break
    return w


def _softmax(logits: np.ndarray, off: np.ndarray) -> np.ndarray:
    logits = np.where(off, -np.inf, logits)
    e = np.exp(logits - logits.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _log_loss(z: np.ndarray, off: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    return float(-np.log(_softmax(z @ w, off)[np.arange(len(y)), y] + 1e-12).mean())
