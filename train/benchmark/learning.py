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
"""
from __future__ import annotations

import contextlib
import io
import os
import tempfile

from train.config import TrainConfig

#: Settings every contender shares (the league and PPO knobs the trainers have in common).
SHARED = dict(n_epochs=4, batch_size=256, learning_rate=3e-4, eval_every=10**9, eval_games=1,
              snapshot_every=10**9, self_play_games=0.0,
              opponents={"random": 0.3, "greedy": 0.2, "heuristic": 0.3, "self": 0.2})


#: The largest ``--minibatch``: one SB3 rollout (8 environments x 256 steps) must hold a whole minibatch.
MAX_MINIBATCH = 2048


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
        if cfg.algo == "ppo":
            from train.ppo import trainer as native_ppo

            summary = native_ppo.train(cfg, progress=False)
        else:
            from train.sb3 import trainer as sb3_ppo

            summary = sb3_ppo.train(cfg, progress=False)
    return summary["trained_timesteps"], summary["seconds"]


def measure(variant: str, players: int, net: list[int], native_steps: int, sb3_steps: int,
            rounds: int, minibatch: int = SHARED["batch_size"]) -> list[dict]:
    """Rows of label, decisions learned, seconds and samples/s, the contenders' slices interleaved."""
    entries = contenders(variant, players, net, minibatch)
    totals = {label: [0, 0.0] for label, _ in entries}
    with tempfile.TemporaryDirectory(prefix="uno-bench-train-") as tmp:
        index = 0
        for _ in range(rounds):
            for label, overrides in entries:
                steps = native_steps if overrides["algo"] == "ppo" else sb3_steps
                learned, seconds = run_slice(overrides, steps, os.path.join(tmp, str(index)), index)
                totals[label][0] += learned
                totals[label][1] += seconds
                index += 1
    return [{"name": label, "samples": s, "seconds": t, "rate": s / t if t else 0.0}
            for label, (s, t) in totals.items()]


def update_ceiling(variant: str, players: int, net: list[int], repeats: int = 30,
                   minibatch: int = SHARED["batch_size"]) -> dict:
    """The PPO update alone on one torch thread: seconds per sample of one forward, backward and Adam
    step at the shared minibatch size, and the samples/s that ``n_epochs`` such passes allow at best."""
    import time

    import torch

    from uno_env import Game
    from uno_env.observation import ObservationEncoder

    from train.ppo.network import build_network

    torch.set_num_threads(1)
    game = Game(variant, num_players=players)
    size = ObservationEncoder(game).size
    net_ = build_network(size, game.num_actions, net)
    optimiser = torch.optim.Adam(net_.parameters(), lr=SHARED["learning_rate"])
    obs = torch.randn(minibatch, size)
    mask = torch.ones(minibatch, game.num_actions, dtype=torch.int8)

    def one_pass() -> None:
        logits, value = net_(obs, mask)
        (torch.logsumexp(logits, -1).mean() + value.mean()).backward()
        optimiser.step()
        optimiser.zero_grad()

    for _ in range(3):  # warm-up
        one_pass()
    start = time.perf_counter()
    for _ in range(repeats):
        one_pass()
    per_sample = (time.perf_counter() - start) / (repeats * minibatch)
    weights = sum(p.numel() for name, p in net_.named_parameters() if name.endswith("weight"))
    return {"seconds_per_sample": per_sample, "gflops": 6 * weights / per_sample / 1e9,
            "ceiling": 1 / (SHARED["n_epochs"] * per_sample)}


def print_table(rows: list[dict], variant: str, players: int, net: list[int], ceiling: dict | None = None,
                minibatch: int = SHARED["batch_size"]) -> None:
    """The measurements with each trainer's ratio to the fastest SB3 contender."""
    reference = max((r for r in rows if r["name"].startswith("sb3")), key=lambda r: r["rate"])
    print(f"{variant} {players}p, network {net}, minibatch {minibatch}, {SHARED['n_epochs']} epochs, slices "
          "interleaved; learning samples/s = decisions learned from per second, updates included")
    print(f"{'trainer':<48}{'samples':>10}{'seconds':>9}{'samples/s':>11}{'vs best sb3':>13}")
    for r in rows:
        other_work = "every seat" in r["name"]
        print(f"{r['name'] + (' *' if other_work else ''):<48}{r['samples']:>10,}{r['seconds']:>9.1f}"
              f"{r['rate']:>11,.0f}{r['rate'] / reference['rate']:>12.1f}x")
    if any("every seat" in r["name"] for r in rows):
        print("* not the same work per game: no rule-based opponents to run, and every decision of every seat "
              "is a sample")
    if ceiling is not None:
        print(f"the update alone (no games, no collection), one torch thread: {ceiling['seconds_per_sample'] * 1e6:.1f} us "
              f"per sample per epoch ({ceiling['gflops']:.0f} GFLOP/s), so {SHARED['n_epochs']} epochs allow at most "
              f"{ceiling['ceiling']:,.0f} samples/s = {ceiling['ceiling'] / reference['rate']:.1f}x the best sb3 row")
