"""Record the native PPO's reference runs: ``python tests/data/ppo_reference/record.py [name ...]``.

Each run in ``CONFIGS`` trains a few thousand decisions from a fixed seed; ``run`` returns its first
collected batch (``batch/<array>``, as ``train.ppo.network.batch_arrays`` gives it), the final network
(``net/<parameter>``, the whole state dict of ``checkpoints/native.pt``: actor, critic, heads) and its
step count. ``tests/training/test_ppo_same_seed.py`` trains them again and compares. Re-record (and
say so in README.md) only when a change is meant to change what the trainer learns.
"""
from __future__ import annotations

import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

#: A tiny plain run: snapshots join the pool (max_snapshots 2) and evaluations run during it.
BASE = dict(algo="ppo", gamma=1.0, seed=7, total_timesteps=1_500, num_games=8, n_steps=32, batch_size=128,
            n_epochs=2, net_arch=[32, 32], snapshot_every=500, max_snapshots=2, eval_every=1_000, eval_games=2,
            torch_threads=1, run_name="ref")
CONFIGS = {
    "plain": BASE,
    # the add-ons on the hidden-card block, oracle guiding fading within the run, the actor held at first
    "addons": {**BASE, "num_players": 4, "privileged_critic": True, "hand_prediction_coef": 0.5,
               "oracle_guiding_steps": [400, 1_200], "critic_warmup_steps": 300},
    # the update overlapped in a second process, two collector processes, two table sizes
    "overlap": {**BASE, "overlap_update": True, "table_sizes": [2, 3], "collector_workers": 2},
    # a teacher's distillation before the first PPO step
    "teacher": {**BASE, "teacher": "ismcts:iterations=10", "teacher_games": 4, "teacher_epochs": 2,
                "teacher_workers": 1, "opponents": {"heuristic": 0.5, "self": 0.5}},
}
#: The arrays of a batch, in ``batch_arrays``'s order.
BATCH = ("obs", "mask", "action", "logp", "advantage", "return")


def run(name: str, out_dir: str, **changes) -> dict[str, np.ndarray]:
    """Train ``CONFIGS[name]`` (with ``changes``) into ``out_dir``; its first batch, final network and step count."""
    import torch

    from train.config import TrainConfig
    from train.ppo import trainer

    cfg = TrainConfig.from_dict({**CONFIGS[name], "out_dir": out_dir, **changes})
    batches = []

    def first_batch(arrays: tuple) -> None:
        """Keep the first batch (the trainer's ``on_batch`` hook)."""
        if not batches:
            batches.append(arrays)

    summary = trainer.train(cfg, progress=False, on_batch=first_batch)
    state = torch.load(summary["checkpoint"], map_location="cpu", weights_only=True)
    out = {f"batch/{key}": array for key, array in zip(BATCH, batches[0])}
    out.update({f"net/{key}": tensor.numpy() for key, tensor in state["net"].items()})
    out["timesteps"] = np.array(summary["timesteps"])
    return out


def main(names: list[str]) -> None:
    """Record the named runs (all by default) as ``<name>.npz`` beside this script."""
    for name in names or CONFIGS:
        with tempfile.TemporaryDirectory() as tmp:
            arrays = run(name, tmp)
        np.savez_compressed(os.path.join(HERE, f"{name}.npz"), **arrays)
        print(f"{name}: {len(arrays['batch/action'])} decisions in the first batch, {int(arrays['timesteps'])} in all")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository
    main(sys.argv[1:])
