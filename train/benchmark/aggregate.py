"""One number for a whole suite: normalised scores, their interquartile mean and its bootstrap interval.

- **Normalised score** of a task: ``(win_rate - random) / (heuristic - random)``, where ``random``
  and ``heuristic`` are the win rates those two agents reach on the same task. 0 plays like
  ``random``, 1 like ``heuristic``; above 1 beats the heuristic by more than it beats itself.
- **IQM**: the 25% trimmed mean over tasks (sort, drop ``floor(n / 4)`` tasks at each end, average
  the rest), robust to one task with an extreme score (Agarwal et al., 2021, "Deep RL at the edge of
  the statistical precipice").
- **Stratified bootstrap**: every task's games are resampled with replacement (its win count drawn
  from Binomial(games, win_rate), which is the same distribution), the normalised scores and the IQM
  recomputed, and the 2.5% and 97.5% quantiles of those IQMs form the 95% interval. The reference
  win rates are held fixed. The generator is seeded, so the interval is reproducible.
"""
from __future__ import annotations

import numpy as np

BOOTSTRAP_SAMPLES = 50_000
BOOTSTRAP_SEED = 0


def normalised_score(win_rate, random_rate, heuristic_rate) -> np.ndarray:
    """``(win_rate - random_rate) / (heuristic_rate - random_rate)``, element-wise (arrays broadcast)."""
    random_rate = np.asarray(random_rate, dtype=float)
    span = np.asarray(heuristic_rate, dtype=float) - random_rate
    if np.any(span == 0):
        raise ValueError("a task's heuristic and random reference win rates are equal: its normalised score "
                         "is undefined")
    return (np.asarray(win_rate, dtype=float) - random_rate) / span


def interquartile_mean(scores, axis: int = -1) -> np.ndarray | float:
    """Mean of the scores left after dropping ``floor(n / 4)`` of the lowest and of the highest along ``axis``."""
    ordered = np.sort(np.asarray(scores, dtype=float), axis=axis)
    n = ordered.shape[axis]
    if n == 0:
        raise ValueError("the interquartile mean of no scores is undefined")
    cut = n // 4
    middle = np.take(ordered, np.arange(cut, n - cut), axis=axis)
    mean = middle.mean(axis=axis)
    return float(mean) if np.ndim(mean) == 0 else mean


def bootstrap_iqm_interval(wins, games, random_rates, heuristic_rates, samples: int = BOOTSTRAP_SAMPLES,
                           seed: int = BOOTSTRAP_SEED, confidence: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the IQM of normalised scores, resampling the games within each task."""
    wins = np.asarray(wins, dtype=np.int64)
    games = np.asarray(games, dtype=np.int64)
    if wins.shape != games.shape or wins.ndim != 1 or np.any(games < 1) or np.any((wins < 0) | (wins > games)):
        raise ValueError("wins and games must be equal-length lists with 0 <= wins <= games and games >= 1")
    rng = np.random.default_rng(seed)
    resampled_rates = rng.binomial(games, wins / games, size=(samples, len(games))) / games
    iqms = interquartile_mean(normalised_score(resampled_rates, random_rates, heuristic_rates), axis=-1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(iqms, [tail, 1 - tail])
    return float(low), float(high)


def aggregate(wins, games, random_rates, heuristic_rates, samples: int = BOOTSTRAP_SAMPLES,
              seed: int = BOOTSTRAP_SEED) -> dict:
    """Per-task normalised scores, their IQM and the IQM's stratified bootstrap 95% interval."""
    wins = np.asarray(wins, dtype=np.int64)
    games = np.asarray(games, dtype=np.int64)
    scores = normalised_score(wins / games, random_rates, heuristic_rates)
    low, high = bootstrap_iqm_interval(wins, games, random_rates, heuristic_rates, samples, seed)
    return {"normalised_scores": [float(s) for s in scores], "iqm": interquartile_mean(scores),
            "iqm_ci95": [low, high],
            "bootstrap": {"method": "stratified percentile bootstrap over each task's games", "samples": samples,
                          "seed": seed, "trimmed_per_end": len(scores) // 4}}
