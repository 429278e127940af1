"""``uno-env bench train``: learning samples/s of the native PPO and the SB3 path, side by side.

A learning sample is one decision the trainer learned from: collection, opponents' moves and the
PPO updates all count in its time. Both trainers get the same variant, player count, network,
epochs, minibatch size, opponents (random, greedy and heuristic; evaluation and snapshots are
switched off, so no frozen learner joins the pool) and learning rate, and one torch thread each
(the SB3 path's own setting); each runs a fixed number of decisions per slice (whole rollouts, so
the SB3 path never counts collected-but-unlearned steps), and the slices of all contenders alternate for ``--rounds`` rounds so a
busy machine slows every contender alike. The native PPO is measured twice: with the SB3 path's
league (one learner seat per game, rule-based opponents and snapshots in the others: the same work
per game), and with every seat of every game learning (its self-play mode: no rule-based opponents
to run, and every decision is a sample). The SB3 path is measured twice: with its default
``SubprocVecEnv`` over ``n_envs = 8`` worker processes, and with one process (``DummyVecEnv``),
which is faster on a 2-core machine; the ratio is taken against the faster of the two.

Each round also times the PPO update alone (``UpdateBench``): the real ``ppo_update`` on one batch of
decisions from random games, on one torch thread, in CPU time, under each option of
``UPDATE_OPTIONS`` (fp32, bf16 autocast, torch.compile), its parts, and its matrix products alone
(the floor, with their FLOPs counted per layer), so the ceiling the update sets carries its evidence.
"""
from __future__ import annotations

import contextlib
import io
import os
import tempfile
import time

import numpy as np

from train.algorithm import train_algorithm
from train.config import TrainConfig
from train.ppo.network import UPDATE_PARTS

#: Settings every contender shares (the league and PPO knobs the trainers have in common).
SHARED = dict(n_epochs=4, batch_size=256, learning_rate=3e-4, eval_every=10**9, eval_games=1,
              snapshot_every=10**9, self_play_games=0.0,
              opponents={"random": 0.3, "greedy": 0.2, "heuristic": 0.3, "self": 0.2})


#: The largest ``--minibatch``: one SB3 rollout (8 environments x 256 steps) must hold a whole minibatch.
MAX_MINIBATCH = 2048


#: Decisions in the update row's batch: about what one native PPO update of these slices learns from.
UPDATE_BATCH = 8192

#: The update row's options: label, then the config settings that choose it (``NativePpoSettings``).
UPDATE_OPTIONS = {"fp32": {}, "bf16 autocast": {"update_bfloat16": True}, "torch.compile": {"update_compile": True}}


def contenders(variant: str, players: int, net: list[int], minibatch: int = SHARED["batch_size"]
               ) -> list[tuple[str, dict]]:
    """(label, config overrides) of every trainer measured."""
    base = dict(variant=variant, num_players=players, net_arch=net, **dict(SHARED, batch_size=minibatch))
    return [
        ("native ppo, sb3's league (num_games=128)", dict(base, algo="ppo", num_games=128, n_steps=64)),
        ("native ppo, sb3's league, 2 collector workers", dict(base, algo="ppo", num_games=128, n_steps=64,
                                                              collector_workers=2)),
        ("native ppo, sb3's league, update overlapped (2nd process)", dict(base, algo="ppo", num_games=128,
                                                                             n_steps=64, overlap_update=True)),
        ("native ppo, every seat learning", dict(base, algo="ppo", num_games=128, n_steps=64, self_play_games=1.0)),
        ("native ppo, every seat learning, update overlapped", dict(base, algo="ppo", num_games=128, n_steps=64,
                                                                    self_play_games=1.0, overlap_update=True)),
        ("sb3 MaskablePPO (n_envs=8, subprocesses)", dict(base, algo="sb3", n_envs=8, n_steps=256)),
        ("sb3 MaskablePPO (n_envs=1, one process)", dict(base, algo="sb3", n_envs=1, n_steps=2048)),
    ]


def run_slice(overrides: dict, steps: int, out_dir: str, index: int) -> tuple[int, float]:
    """Train one fresh run of about ``steps`` decisions; returns (decisions learned from, seconds)."""
    cfg = TrainConfig.from_dict({**overrides, "total_timesteps": steps, "out_dir": out_dir,
                                 "run_name": f"slice{index}", "seed": index})
    import torch

    torch.set_num_threads(1)  # like with like: the SB3 path sets one thread for its whole process
    with contextlib.redirect_stdout(io.StringIO()):  # the trainers' notes would break the table
        trained = train_algorithm(cfg, os.path.join(out_dir, cfg.name))
    # the trainers' own count and seconds (their summary): the final evaluation and export left out
    return trained.summary["trained_timesteps"], trained.summary["seconds"]


def measure(variant: str, players: int, net: list[int], native_steps: int, sb3_steps: int,
            rounds: int, minibatch: int = SHARED["batch_size"]) -> list[dict]:
    """Rows of label, decisions learned, seconds and samples/s, the contenders' slices interleaved; the last
    row is the update alone (``UpdateBench.row``), timed once in every round after the slices."""
    entries = contenders(variant, players, net, minibatch)
    totals = {label: [0, 0.0] for label, _ in entries}
    update = UpdateBench(variant, players, net, minibatch)
    update.warm_up()
    with tempfile.TemporaryDirectory(prefix="uno-bench-train-") as tmp:
        index = 0
        for _ in range(rounds):
            for label, overrides in entries:
                steps = native_steps if overrides["algo"] == "ppo" else sb3_steps
                learned, seconds = run_slice(overrides, steps, os.path.join(tmp, str(index)), index)
                totals[label][0] += learned
                totals[label][1] += seconds
                index += 1
            update.round()
    return [{"name": label, "samples": s, "seconds": t, "rate": s / t if t else 0.0}
            for label, (s, t) in totals.items()] + [update.row()]


def update_batch(variant: str, players: int, size: int, seed: int = 0) -> tuple:
    """``size`` decisions as ``batch_arrays`` gives them: rows and masks of random games, random actions and targets."""
    from uno_env.vector import VectorGames

    games, rng = VectorGames(128, variant, players), np.random.default_rng(seed)
    _, obs, mask = games.reset(seed)
    rows, masks = [], []
    while len(rows) * games.num_games < size:
        rows.append(obs.copy())
        masks.append(mask.copy())
        _, obs, mask, *_ = games.step(_random_legal(mask, rng))
    obs, mask = np.concatenate(rows)[:size], np.concatenate(masks)[:size]
    logp = -np.log(mask.sum(1)).astype(np.float32)  # a uniform choice among the legal actions
    return (obs, mask, _random_legal(mask, rng), logp, rng.standard_normal(size, dtype=np.float32),
            rng.standard_normal(size, dtype=np.float32))


def _random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(1)


def matmul_layers(net) -> list[tuple]:
    """The network's linear layers as (layer, whether its input needs a gradient): not those reading the rows."""
    from torch import nn

    layers = []
    for mlp in (net.actor, net.critic):
        linears = [m for m in mlp if isinstance(m, nn.Linear)]
        layers += [(layer, i > 0) for i, layer in enumerate(linears)]
    return layers


def flops_per_sample(net) -> int:
    """Matrix-product FLOPs of one sample's forward and backward pass (``2 * in * out`` per product).

    Each layer's forward product and its weight's gradient; the input's gradient too, except where the
    input is the observation, which needs none (counting it there was 31% too many for classic 2p).
    """
    return sum((6 if input_grad else 4) * layer.weight.numel() for layer, input_grad in matmul_layers(net))


def matmul_seconds(net, minibatch: int, passes: int) -> float:
    """CPU seconds of ``passes`` minibatches' matrix products alone: what the network's update cannot go below."""
    import torch

    work = [(layer.weight.detach(), layer.bias.detach(), torch.randn(minibatch, layer.in_features),
             torch.randn(minibatch, layer.out_features), input_grad) for layer, input_grad in matmul_layers(net)]
    start = time.thread_time()
    for _ in range(passes):
        for weight, bias, rows, grad, input_grad in work:
            torch.addmm(bias, rows, weight.t())  # forward
            grad.t().mm(rows)  # the weight's gradient
            if input_grad:
                grad.mm(weight)  # the input's
    return time.thread_time() - start


class PartClock:
    """CPU seconds per part of ``ppo_update`` (its ``laps``), summed over its minibatches."""

    def __init__(self):
        self.seconds = dict.fromkeys(UPDATE_PARTS, 0.0)
        self.last = time.thread_time()

    def __call__(self, part: str) -> None:
        now = time.thread_time()
        self.seconds[part] += now - self.last
        self.last = now


class UpdateBench:
    """The PPO update alone on one torch thread: the real ``ppo_update`` per option, its parts, its matrix products.

    Every option trains its own network on the same batch of decisions from random games; each
    ``round`` times one update of each, one more of fp32 with its parts clocked, and the matrix
    products alone for as many samples. Times are CPU seconds of this thread, per sample per epoch.
    """

    def __init__(self, variant: str, players: int, net: list[int], minibatch: int, size: int | None = None,
                 options: dict[str, dict] | None = None):
        import torch

        from train.ppo.network import build_network, make_optimiser

        torch.set_num_threads(1)
        self.arrays = update_batch(variant, players, UPDATE_BATCH if size is None else size)
        self.minibatch, self.samples = minibatch, len(self.arrays[2]) * SHARED["n_epochs"]
        self.runs, self.first_update, self.failed = {}, {}, {}
        for label, settings in (UPDATE_OPTIONS if options is None else options).items():
            torch.manual_seed(0)
            network = build_network(self.arrays[0].shape[1], self.arrays[1].shape[1], net)
            cfg = TrainConfig.from_dict({"algo": "ppo", "n_epochs": SHARED["n_epochs"], "batch_size": minibatch,
                                         "learning_rate": SHARED["learning_rate"], **settings})
            self.runs[label] = (network, make_optimiser(network, cfg.learning_rate), cfg, np.random.default_rng(0))
        self.flops = flops_per_sample(network)
        self.times = {key: [] for key in ("matmuls", *self.runs, *UPDATE_PARTS)}

    def warm_up(self) -> None:
        """One untimed update per option (torch.compile compiles here: its wall time is kept); drop what fails."""
        for label, run in list(self.runs.items()):
            start = time.perf_counter()
            try:
                self._update(run)
            except Exception as exc:  # torch.compile needs a C++ compiler; say why, measure the rest
                self.failed[label] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                del self.runs[label], self.times[label]
                continue
            self.first_update[label] = time.perf_counter() - start

    def round(self) -> None:
        """Time each option's update, the fp32 update's parts, and the matrix products, once each."""
        import torch

        torch.set_num_threads(1)
        for label, run in self.runs.items():
            start = time.thread_time()
            self._update(run)
            self.times[label].append((time.thread_time() - start) / self.samples)
        if "fp32" in self.runs:
            clock = PartClock()
            self._update(self.runs["fp32"], clock)
            for part, seconds in clock.seconds.items():
                self.times[part].append(seconds / self.samples)
        passes = -(-self.samples // self.minibatch)
        network = next(iter(self.runs.values()))[0]
        self.times["matmuls"].append(matmul_seconds(network, self.minibatch, passes) / self.samples)

    def _update(self, run: tuple, clock=None) -> None:
        from train.ppo.network import ppo_update

        network, optimiser, cfg, rng = run
        ppo_update(network, optimiser, self.arrays, cfg, rng, laps=clock)

    def row(self) -> dict:
        """The medians over the rounds, seconds per sample per epoch, with the FLOPs and the first updates' seconds."""
        median = {key: float(np.median(values)) for key, values in self.times.items() if values}
        return {"name": "update", "flops": self.flops, "batch": len(self.arrays[2]), "minibatch": self.minibatch,
                "rounds": len(self.times["matmuls"]), "median": median, "first_update": self.first_update,
                "failed": self.failed}


def print_table(rows: list[dict], variant: str, players: int, net: list[int],
                minibatch: int = SHARED["batch_size"]) -> None:
    """The measurements with each trainer's ratio to the fastest SB3 contender, then the update alone."""
    trainers = [r for r in rows if r["name"] != "update"]
    reference = max((r for r in trainers if r["name"].startswith("sb3")), key=lambda r: r["rate"])
    print(f"{variant} {players}p, network {net}, minibatch {minibatch}, {SHARED['n_epochs']} epochs, slices "
          "interleaved; learning samples/s = decisions learned from per second, updates included")
    print(f"{'trainer':<48}{'samples':>10}{'seconds':>9}{'samples/s':>11}{'vs best sb3':>13}")
    for r in trainers:
        other_work = "every seat" in r["name"]
        print(f"{r['name'] + (' *' if other_work else ''):<48}{r['samples']:>10,}{r['seconds']:>9.1f}"
              f"{r['rate']:>11,.0f}{r['rate'] / reference['rate']:>12.1f}x")
    if any("every seat" in r["name"] for r in trainers):
        print("* not the same work per game: no rule-based opponents to run, and every decision of every seat "
              "is a sample")
    for r in rows:
        if r["name"] == "update":
            print_update(r, reference["rate"])


def print_update(row: dict, reference_rate: float) -> None:
    """The update row (``UpdateBench.row``): each option's time against the matrix products', and the fp32 parts."""
    median, epochs, us = row["median"], SHARED["n_epochs"], 1e6
    floor = median["matmuls"]
    print(f"the update alone (ppo_update on {row['batch']:,} decisions of random games, minibatch {row['minibatch']}; "
          f"one torch thread, CPU time per sample per epoch, median of {row['rounds']} rounds between the slices):")
    print(f"  its matrix products alone: {floor * us:.1f} us for {row['flops']:,} FLOPs per sample per epoch "
          f"({row['flops'] / floor / 1e9:.0f} GFLOP/s)")
    for label, first in row["first_update"].items():
        seconds = median[label]
        ceiling = 1 / (epochs * seconds)
        print(f"  {label}: {seconds * us:.1f} us = {seconds / floor:.2f}x the matrix products; {epochs} epochs "
              f"allow at most {ceiling:,.0f} samples/s = {ceiling / reference_rate:.1f}x the best sb3 row"
              + ("" if label == "fp32" else f" (first update {first:.1f} s)"))
        if label == "fp32":
            print("    its parts: " + ", ".join(f"{part} {median[part] * us:.1f}" for part in UPDATE_PARTS) + " us")
    for label, reason in row["failed"].items():
        print(f"  {label}: not measured ({reason})")
