"""The native PPO's research add-ons, each behind the one small interface the learner calls (``AddOn``).

====================  ========================  =================================================================
add-on                config                    what it changes
====================  ========================  =================================================================
``Distillation``      ``teacher``               fits the network to a search teacher's choices before the first
                                                PPO step (``train/ppo/distill.py``)
``PrivilegedCritic``  ``privileged_critic``     the critic also reads the hidden-card block
``HandPrediction``    ``hand_prediction_coef``  a head on the actor's last hidden layer predicts the other hands
``OracleGuiding``     ``oracle_guiding_steps``  the actor reads its own copy of the hidden-card block, fading out
====================  ========================  =================================================================

The hidden-card block (``train/collect/privileged.py``) follows each collected observation whenever one
of the last three is on (``cfg.collects_hidden_cards``). The inputs and heads they add, and the hand
prediction's loss, live in the network and its update (``train/ppo/network.py``), so the overlapped
updater process, which knows no add-ons, runs the same maths.
"""
from __future__ import annotations

import os

import numpy as np

from uno_env import Game
from uno_env.observation import ObservationEncoder

from train import atomic
from train.collect.privileged import PrivilegedEncoder
from train.config import TrainConfig
from train.ppo import distill


class AddOn:
    """A research add-on to the PPO run; each hook's default leaves the run plain PPO."""

    def network_sizes(self) -> dict:
        """The ``build_network`` sizes this add-on sets (the inputs and heads it adds)."""
        return {}

    def start(self, learner) -> None:
        """Once, before the first collection; ``learner.steps`` is where the run starts (``trainer.Learner``)."""

    def new_segment(self, learner) -> None:
        """At each segment's start after the first (``cfg.segment_every``): reseed as a run resumed there starts."""

    def actor_rows(self, collector: int, rows: np.ndarray, steps: int) -> np.ndarray:
        """The rows the actor reads, and the update learns from, when it answers ``collector``."""
        return rows

    def progress(self, update) -> dict:
        """Its ``progress.csv`` columns for one PPO update (``trainer.Update``)."""
        return {}

    def scalars(self, update) -> dict:
        """Its TensorBoard scalars for one PPO update."""
        return {}


def addons_for(cfg: TrainConfig, game: Game, fresh: bool) -> list[AddOn]:
    """The add-ons ``cfg`` turns on; the distillation only on a ``fresh`` run (a resumed one has had it)."""
    block = PrivilegedEncoder(game)
    chosen: list[AddOn] = []
    if cfg.teacher and fresh:
        chosen.append(Distillation(cfg))
    if cfg.privileged_critic:
        chosen.append(PrivilegedCritic(block))
    if cfg.hand_prediction_coef:
        chosen.append(HandPrediction(block))
    if cfg.oracle_guiding_steps:
        chosen.append(OracleGuiding(cfg, ObservationEncoder(game).size, block))
    return chosen


class Distillation(AddOn):
    """Label the teacher's games, fit the network to them, export and checkpoint the fit (``distill``)."""

    def __init__(self, cfg: TrainConfig):
        self.cfg = cfg

    def start(self, learner) -> None:
        """The whole distillation, on a fresh run: label (or finish labelling), fit, export, checkpoint."""
        cfg, run_dir = self.cfg, learner.run_dir
        data = distill.label(cfg, os.path.join(run_dir, "teacher"), cfg.teacher_workers or os.cpu_count() or 1,
                             learner.progress, learner.progress_stream)
        distill.fit(learner.net, data, cfg, np.random.default_rng([cfg.seed, 1]), os.path.join(run_dir, "teacher.csv"))
        del data
        atomic.save_policy(learner.export(), os.path.join(run_dir, "distilled", "policy"))
        learner.checkpoint()


class PrivilegedCritic(AddOn):
    """The critic also reads the hidden-card block: an asymmetric actor-critic (the actor never does)."""

    def __init__(self, block: PrivilegedEncoder):
        self.size = block.size

    def network_sizes(self) -> dict:
        """The critic's inputs: the observation and the block."""
        return {"privileged_size": self.size}


class HandPrediction(AddOn):
    """A head predicts the other seats' cards; ``hand_prediction_coef`` weighs its loss (``network.ppo_update``)."""

    def __init__(self, block: PrivilegedEncoder):
        self.size = block.hands_size

    def network_sizes(self) -> dict:
        """The head's outputs: the block's ``other_hands`` part."""
        return {"hands_size": self.size}

    def progress(self, update) -> dict:
        """The last minibatch's hand prediction loss."""
        return {"hand_prediction_loss": f"{update.losses[2]:.5f}"}

    def scalars(self, update) -> dict:
        """The same loss in TensorBoard."""
        return {"loss/hand_prediction": update.losses[2]}


class OracleGuiding(AddOn):
    """The actor reads a copy of the hidden-card block, each float kept with the probability ``cfg.oracle_keep``."""

    def __init__(self, cfg: TrainConfig, obs_size: int, block: PrivilegedEncoder):
        self.cfg, self.obs_size, self.size = cfg, obs_size, block.size
        self.rngs: list[np.random.Generator] = []

    def network_sizes(self) -> dict:
        """The actor's extra inputs: its copy of the block, after the observation."""
        return {"oracle_size": self.size}

    def start(self, learner) -> None:
        """One generator per collector draws which floats the actor sees (seeded by where the run starts)."""
        self.rngs = [np.random.default_rng([self.cfg.seed, j, learner.steps, 1]) for j in range(len(learner.shares))]

    new_segment = start

    def actor_rows(self, collector: int, rows: np.ndarray, steps: int) -> np.ndarray:
        """The rows with the actor's copy of the block appended, each float kept with ``cfg.oracle_keep(steps)``."""
        hidden = rows[:, self.obs_size:self.obs_size + self.size]
        keep = self.cfg.oracle_keep(steps)
        if keep == 0.0:
            hidden = np.zeros_like(hidden)
        elif keep < 1.0:
            hidden = hidden * (self.rngs[collector].random(hidden.shape) < keep)
        return np.concatenate([rows, hidden.astype(np.float32, copy=False)], axis=1)

    def progress(self, update) -> dict:
        """The keep probability in force while the update's batch was collected."""
        return {"oracle_keep": f"{self.cfg.oracle_keep(update.collected_at):.4f}"}
