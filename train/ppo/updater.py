"""The native PPO's update in a second process, overlapped with collection (``overlap_update: true``).

Without it the learner alternates: collect a batch, update on it, collect the next. With it, an
``UpdaterProcess`` holds its own copy of the network, the optimiser and the minibatch generator and
updates on batch *k* while the learner collects batch *k + 1* with the weights from before that
update, so the games and the update run on two cores at once. The price is one update of policy lag:
a batch is collected by the weights one update older than those it trains (the PPO ratio is taken
against the recorded log-probabilities of the weights that played, so the clipped objective still
measures the step from the policy that acted). The schedule is fixed, not raced, so the same seed
gives the same run.
"""
from __future__ import annotations

import copy
import signal
import traceback

import numpy as np

from train.collect import worker
from train.config import TrainConfig
from train.ppo.network import build_network, make_optimiser, ppo_update


class UpdaterProcess:
    """A worker process that runs PPO updates on the batches it is sent and hands back the new weights."""

    def __init__(self, cfg: TrainConfig, net_args: tuple, net, optimiser, rng: np.random.Generator,
                 threads: int):
        start = (cfg.to_dict(), net_args, net.state_dict(), optimiser.state_dict(), rng, threads)
        self.conn, self.process = worker.start(_serve, (start,), "uno-updater")
        self.busy = False

    def submit(self, arrays: tuple, train_actor: bool) -> None:
        """Start an update on ``arrays`` (``network.batch_arrays``); returns once they are sent."""
        self.conn.send(("update", (arrays, train_actor)))
        self.busy = True

    def result(self) -> tuple:
        """Wait for the update: (losses, entropy, the network's new state dict)."""
        reply = self._reply()
        self.busy = False
        return reply

    def optimiser_state(self) -> dict:
        """A copy of the optimiser's state as of the last finished update (for a checkpoint)."""
        if self.busy:
            raise RuntimeError("the updater is busy: take its result before asking for the optimiser")
        self.conn.send(("optimiser", ()))
        # torch sends tensors through a pipe as shared memory: copy, or the updater's next step changes them
        return copy.deepcopy(self._reply())

    def _reply(self):
        return worker.receive(self.conn, self.process, "updater process")

    def close(self) -> None:
        """Stop the process."""
        worker.stop(self.conn, self.process)


def _serve(conn, start: tuple) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import torch

    cfg_dict, net_args, weights, optimiser_state, rng, threads = start
    try:
        torch.set_num_threads(threads)
        cfg = TrainConfig.from_dict(cfg_dict)
        net = build_network(*net_args)
        net.load_state_dict(weights)
        optimiser = make_optimiser(net, cfg.learning_rate)
        optimiser.load_state_dict(optimiser_state)
    except Exception:  # every request then gets the start-up failure, so the learner shows it
        failure = traceback.format_exc()
        for _ in worker.commands(conn):
            conn.send(failure)
        return
    for command, args in worker.commands(conn):
        try:
            if command == "update":
                arrays, train_actor = args
                losses, entropy = ppo_update(net, optimiser, arrays, cfg, rng, train_actor=train_actor)
                reply = (losses, entropy, net.state_dict())
            else:
                reply = optimiser.state_dict()
        except Exception:
            reply = traceback.format_exc()
        conn.send(reply)
