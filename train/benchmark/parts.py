"""``uno-env bench parts``: where a native PPO learning sample's CPU time goes, part by part, in one run.

The native trainer runs as ``uno-env bench train`` runs it (the SB3 path's league or every seat
learning, one torch thread, no evaluations or snapshots; ``num_games`` from ``--games``, with
``n_steps`` keeping 8,192 game steps between two updates), in one process (``collector_workers: 0``,
no ``overlap_update``), so every part is timed on the same clock: ``time.process_time``, the CPU time
of the process. A few of the trainer's own functions are wrapped while it runs (``PartClock``); each
part is the time inside its function less the time of the parts called from it:

==========================  ===========================================================================
part                        where
==========================  ===========================================================================
``engine``                  ``VectorGames.step``/``reset``: the turn machine, dealing, the legal ids
``encode``                  ``BatchEncoder.encode``: the observation rows
``mask``                    ``Game.legal_action_masks``: the legal-action masks
``opponents``               the collector's own step (``LocalCollector.submit``): rule-based opponents'
                            moves, seating new games, the request's rows
``forward + sampling``      ``Learner.act``: the network's forward pass, the sampled actions, log-probs
``bookkeeping``             the rest of ``Learner.collect`` and ``Learner.update``: recording the
                            decisions, rewards and GAE, the batch's arrays
``update``                  ``ppo_update``: the PPO epochs
==========================  ===========================================================================

Figures are µs of CPU time per learning sample (a decision learned from); ``rest`` is what no part
holds (the run's start-up and the end's checkpoint and export, spread over its samples).
"""
from __future__ import annotations

import contextlib
import io
import tempfile
import time

import numpy as np

from train.config import TrainConfig

#: Game steps between two updates, summed over the games (bench train's 128 games x 64 steps).
BATCH_STEPS = 128 * 64
#: The parts, in the order printed.
PARTS = ("engine", "encode", "mask", "opponents", "forward + sampling", "bookkeeping", "update")
#: The settings ``uno-env bench train`` gives every trainer (kept equal by hand: that module is the reference).
LEAGUE = dict(algo="ppo", n_epochs=4, batch_size=256, learning_rate=3e-4, eval_every=10**9, eval_games=1,
              snapshot_every=10**9, self_play_games=0.0, n_steps=64,
              opponents={"random": 0.3, "greedy": 0.2, "heuristic": 0.3, "self": 0.2})


class PartClock:
    """CPU seconds per part; each wrapped call's time counts to its part, less that of the wrapped calls inside it."""

    def __init__(self):
        self.seconds = dict.fromkeys(PARTS, 0.0)
        self.stack: list[str] = []

    def wrap(self, function, part: str):
        """``function`` timed as ``part``."""
        clock, seconds, stack = time.process_time, self.seconds, self.stack

        def timed(*args, **kwargs):
            stack.append(part)
            start = clock()
            try:
                return function(*args, **kwargs)
            finally:
                spent = clock() - start
                stack.pop()
                seconds[part] += spent
                if stack:
                    seconds[stack[-1]] -= spent  # the outer part's own time leaves this call out

        return timed

    @contextlib.contextmanager
    def installed(self):
        """The trainer's functions wrapped while inside; the originals back afterwards."""
        from uno_env.batch_observation import BatchEncoder
        from uno_env.game import Game
        from uno_env.vector import VectorGames

        from train.collect.collector import LocalCollector
        from train.ppo import trainer

        targets = [(VectorGames, "step", "engine"), (VectorGames, "reset", "engine"),
                   (BatchEncoder, "encode", "encode"), (Game, "legal_action_masks", "mask"),
                   (LocalCollector, "submit", "opponents"), (trainer.Learner, "act", "forward + sampling"),
                   (trainer.Learner, "collect", "bookkeeping"), (trainer.Learner, "update", "bookkeeping"),
                   (trainer, "ppo_update", "update")]
        originals = [(owner, name, vars(owner)[name]) for owner, name, _ in targets]
        try:
            for owner, name, part in targets:
                setattr(owner, name, self.wrap(vars(owner)[name], part))
            yield self
        finally:
            for owner, name, original in originals:
                setattr(owner, name, original)


def contenders(num_games: list[int]) -> list[tuple[str, dict]]:
    """(label, config overrides) per league and number of games: the SB3 path's league and every seat learning.

    ``n_steps`` keeps ``num_games * n_steps`` at bench train's 128 x 64, so every count of games collects
    batches of about the same size between two updates.
    """
    rows = []
    for games in num_games:
        run = dict(LEAGUE, num_games=games, n_steps=max(1, BATCH_STEPS // games))
        rows.append((f"sb3's league, {games} games", run))
        rows.append((f"every seat learning, {games} games", dict(run, self_play_games=1.0)))
    return rows


def run_slice(overrides: dict, steps: int, seed: int) -> dict:
    """One fresh native run of about ``steps`` decisions with its parts timed: µs per sample per part, samples/s."""
    import torch

    from train.ppo import trainer

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as bench train: one torch thread
    try:
        with tempfile.TemporaryDirectory(prefix="uno-bench-parts-") as tmp, PartClock().installed() as clock, \
                contextlib.redirect_stdout(io.StringIO()):
            cfg = TrainConfig.from_dict({**overrides, "total_timesteps": steps, "out_dir": tmp, "run_name": "parts",
                                         "seed": seed, "collector_workers": 0, "overlap_update": False})
            start = time.process_time()
            summary = trainer.train(cfg, progress=False)
            total = time.process_time() - start
    finally:
        torch.set_num_threads(threads)
    samples = max(summary["trained_timesteps"], 1)
    row = {part: clock.seconds[part] / samples * 1e6 for part in PARTS}
    row["rest"] = total / samples * 1e6 - sum(row.values())
    row["total"] = total / samples * 1e6
    row["samples/s"] = summary["samples_per_second"]
    return row


def measure(variant: str, players: int, net: list[int], num_games: list[int], steps: int, rounds: int) -> dict:
    """Every contender's rows, one per round, the contenders' slices interleaved within each round."""
    entries = contenders(num_games)
    figures: dict[str, list[dict]] = {label: [] for label, _ in entries}
    for r in range(rounds):
        for label, overrides in entries:
            run = dict(overrides, variant=variant, num_players=players, net_arch=net)
            figures[label].append(run_slice(run, steps, seed=r))
    return figures


def print_table(figures: dict, variant: str, players: int, net: list[int], steps: int) -> None:
    """Median µs of CPU time per learning sample, per part and contender."""
    rounds = len(next(iter(figures.values())))
    columns = (*PARTS, "rest", "total")
    print(f"{variant} {players}p, network {net}, {steps:,} decisions per slice, one process, one torch thread; "
          f"CPU µs per learning sample, median of {rounds} interleaved rounds")
    print(f"  {'run':<36}" + "".join(f"{c:>12}" for c in (*_short(columns), "samples/s")))
    for label, rows in figures.items():
        medians = [float(np.median([row[c] for row in rows])) for c in (*columns, "samples/s")]
        print(f"  {label:<36}" + "".join(f"{m:>12.1f}" for m in medians[:-1]) + f"{medians[-1]:>12,.0f}")


def _short(columns: tuple) -> tuple:
    return tuple({"forward + sampling": "forward", "bookkeeping": "bookkeep"}.get(c, c) for c in columns)
