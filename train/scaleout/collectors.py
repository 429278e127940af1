"""The native trainer's self-play collectors as Ray actors: ``uno-env train --ray`` with ``algo: ppo``.

A ``RayCollector`` has the interface of ``train.collect.collector.LocalCollector`` and ``CollectorProcess``
(submit / result / send_snapshots / close): each runs one ``train.collect.collector.Collector`` in a Ray
actor, on whichever node of the cluster has a CPU free. The learner (the driver) sends it actions
and snapshots of its weights and receives its batched requests and finished games, as it does from a
worker process; ``ready()`` waits for whichever collectors have stepped. Collector ``j`` holds the
same games and seeds as worker ``j`` would (``ray_collectors`` of them, ``train/config.py``), so a
run does not depend on which actor answers first.

A collector is stateful (its games in progress), so a lost actor is not restarted: training stops
with an error naming it, and ``--resume`` continues from the last checkpoint.
"""
from __future__ import annotations

from train.collect.collector import Collector, Request
from train.config import TrainConfig
from train.scaleout.ray_session import require_ray


class CollectorActor:
    """The Ray actor's body: one ``Collector`` answering the commands the learner sends, in order."""

    def __init__(self, cfg_dict: dict, index: int, share: list[int]):
        self.collector = Collector(TrainConfig.from_dict(cfg_dict), index, share)

    def run(self, command: str, args: tuple):
        """Run a collector command (``reset``, ``step``, ``set_snapshots``) and return its result."""
        return getattr(self.collector, command)(*args)


_ACTOR: dict = {}


def _actor_class():
    if "class" not in _ACTOR:
        ray = require_ray()
        # one CPU each for placement; a Ray actor runs its calls one at a time, in the order sent
        _ACTOR["class"] = ray.remote(num_cpus=1, max_restarts=0)(CollectorActor)
    return _ACTOR["class"]


class RayCollector:
    """A collector in a Ray actor: ``submit`` returns at once, ``result`` waits for the reply."""

    def __init__(self, cfg: TrainConfig, index: int, share: list[int]):
        self.ray = require_ray()
        self.index = index
        self.actor = _actor_class().remote(cfg.to_dict(), index, share)
        self.pending = None  # the reply of the last submitted command

    def submit(self, command: str, *args) -> None:
        """Send ``command`` to the actor."""
        self.pending = self.actor.run.remote(command, args)

    def result(self) -> Request:
        """The actor's reply to the last command (its error, with the actor's traceback, is raised here)."""
        ref, self.pending = self.pending, None
        try:
            request = self.ray.get(ref)
        except self.ray.exceptions.RayError as exc:
            raise RuntimeError(f"Ray collector {self.index} failed: {exc}") from None
        # Ray hands numpy arrays back read-only (zero-copy); the learner's torch tensors want them writable
        request.obs, request.mask = request.obs.copy(), request.mask.copy()
        return request

    def send_snapshots(self, policies, seed: int) -> None:
        """Replace the actor pool's snapshots (no reply: the next step runs after it)."""
        self.actor.run.remote("set_snapshots", (policies, seed))

    def close(self) -> None:
        """Stop the actor."""
        self.ray.kill(self.actor)


def ready(collectors: list[RayCollector], in_flight: set[int]) -> set[int]:
    """Block until at least one in-flight collector has replied; every one that has, by index."""
    ray = require_ray()
    refs = {collectors[j].pending: j for j in in_flight}
    ray.wait(list(refs), num_returns=1)
    done, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0)
    return {refs[ref] for ref in done}
