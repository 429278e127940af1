"""``uno-env rllib``: the command line of RLlib's multi-agent PPO (``train/rllib/trainer.py``)."""
from __future__ import annotations

from typing import Any

from train.errors import UsageError
from train.rllib import trainer as rllib
from train.scaleout import INSTALL_HINT, LOCAL, require_ray


def add_parser(sub) -> None:
    """Register the ``rllib`` sub-command."""
    p = sub.add_parser("rllib", help="RLlib multi-agent PPO self-play on any variant (needs uno-env[ray])",
                       description="Train RLlib's multi-agent PPO (every seat one shared, action-masked policy) "
                                   "through the PettingZoo AEC env; export policy.npz. Needs " + INSTALL_HINT)
    p.add_argument("--config", required=True, help="YAML RLlib config (configs/rllib/*.yaml)")
    p.add_argument("--iterations", type=int, help="override the config's iterations")
    p.add_argument("--out-dir", help="override the config's out_dir")
    p.add_argument("--seed", type=int, help="override the config's seed")
    p.add_argument("--ray", default=LOCAL, metavar="ADDRESS",
                   help="Ray to run on: 'local' starts one on this machine, 'auto' joins the cluster this machine "
                        "belongs to (ray start), host:port joins that one")
    p.add_argument("--no-progress", action="store_true", help="no line per iteration")
    p.set_defaults(run=run)


def run(args) -> int:
    """CLI entry: train, print the evaluation table and where the policy is."""
    require_ray("uno-env rllib")
    cfg = rllib.RllibConfig.from_yaml(args.config)
    overrides: dict[str, Any] = {k: v for k, v in (("iterations", args.iterations), ("out_dir", args.out_dir),
                                                   ("seed", args.seed)) if v is not None}
    if overrides:
        cfg = rllib.RllibConfig.from_dict({**cfg.to_dict(), **overrides})
    try:
        import ray.rllib  # noqa: F401  (ray without its rllib extra)
    except ImportError:
        raise UsageError(f"uno-env rllib needs RLlib; install it with: {INSTALL_HINT}") from None
    from train.evaluation.stats import format_table

    summary = rllib.train(cfg, args.ray, progress=not args.no_progress)
    print(format_table(summary))
    print(f"RLlib checkpoint: {summary['checkpoint']}")
    return 0

