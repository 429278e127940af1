"""``uno-env rllib``: RLlib's multi-agent PPO on any variant, through the PettingZoo AEC env.

Every seat is mapped to one shared policy (self-play); the policy is ``MaskedActorCritic``
(``rllib_env.py``), so action masks are honoured while sampling and learning. The run directory
(``<out_dir>/<run_name>``) gets ``config.yaml``, ``progress.csv`` (one row per RLlib iteration),
``checkpoint/`` (RLlib's own, to continue in RLlib) and ``policy.npz`` + ``policy.json``: the actor
in our policy format, evaluated against random and heuristic (``eval_games`` each), so ``uno-env
eval`` and ``uno-env play`` take it like any other policy.

Config keys (YAML, ``configs/rllib/*.yaml``) are the fields of ``RllibConfig`` below.
"""
from __future__ import annotations

import csv
import os
import time
from dataclasses import dataclass, field
from typing import Any

import yaml

from uno_env import Game, RuleSet
from uno_env.errors import short_repr

from train import atomic
from train.config import ConfigError, TrainConfig
from train.errors import UsageError
from train.scaleout import INSTALL_HINT, LOCAL, require_ray, session

#: Bounds of a config's sizes: generous for any real run, refusing a value that would exhaust the machine.
MAX_LAYERS, MAX_WIDTH, MAX_COUNT = 16, 65_536, 1_000_000_000

@dataclass
class RllibConfig:
    """One RLlib PPO run: the game, PPO's hyperparameters, and how many env runners sample."""

    variant: str = "classic"
    """Rule preset (``uno_env.VARIANTS``)."""
    num_players: int = 2
    """Seats at the table; all of them play the shared policy."""
    rule_options: dict = field(default_factory=dict)
    """Rule options of the game (``docs/rule-options.md``)."""
    seed: int = 0
    """Seeds RLlib (network initialisation, env runners' games) and the final evaluation."""
    iterations: int = 50
    """RLlib training iterations (``algo.train()`` calls), each sampling ``train_batch_size`` env steps."""
    train_batch_size: int = 4000
    """Env steps (all agents' decisions) per iteration."""
    minibatch_size: int = 256
    """Minibatch size of a PPO update."""
    num_epochs: int = 4
    """Passes over each iteration's batch."""
    learning_rate: float = 3e-4
    """Adam step size."""
    gamma: float = 1.0
    """Discount factor (games end anyway, at the engine's ``max_steps`` at the latest)."""
    gae_lambda: float = 0.95
    """GAE smoothing."""
    clip_range: float = 0.2
    """PPO clipping."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    net_arch: list = field(default_factory=lambda: [256, 256])
    """Hidden layer sizes of the policy and value networks (tanh), as in the native trainer."""
    num_env_runners: int = 1
    """RLlib env runner actors sampling games (0: sample in the driver)."""
    eval_games: int = 200
    """Seat-rotated games per opponent (random, heuristic) in the final evaluation of the exported policy."""
    out_dir: str = "runs"
    """Where runs are written (``<out_dir>/<run_name>``)."""
    run_name: str = ""
    """Name of the run directory; empty: ``rllib-<variant>-<num_players>p-seed<seed>``."""

    # the same key and type checks as the native trainer's config (unknown keys, wrong types)
    from_dict = classmethod(TrainConfig.from_dict.__func__)
    from_yaml = classmethod(TrainConfig.from_yaml.__func__)
    to_dict = TrainConfig.to_dict

    def validate(self) -> None:
        """Range checks and the rule set itself."""
        RuleSet.create(self.variant, self.num_players, self.rule_options)
        for key in ("iterations", "train_batch_size", "minibatch_size", "num_epochs", "eval_games"):
            if not 1 <= getattr(self, key) <= MAX_COUNT:
                raise ConfigError(f"RLlib config {key!r} must be in 1..{MAX_COUNT:,}, got {short_repr(getattr(self, key))}")
        if not 0 <= self.num_env_runners <= 1024:
            raise ConfigError(f"RLlib config 'num_env_runners' = {self.num_env_runners} must be in 0..1024")
        for key, low, high in (("gamma", 0.0, 1.0), ("gae_lambda", 0.0, 1.0), ("clip_range", 0.0, 10.0),
                               ("learning_rate", 0.0, 1.0)):
            if not low < getattr(self, key) <= high:
                raise ConfigError(f"RLlib config {key!r} = {getattr(self, key)} must be in ({low}, {high}]")
        if self.ent_coef < 0:
            raise ConfigError(f"RLlib config 'ent_coef' = {self.ent_coef} must be >= 0")
        if not self.net_arch or len(self.net_arch) > MAX_LAYERS or not all(
                isinstance(x, int) and not isinstance(x, bool) and 0 < x <= MAX_WIDTH for x in self.net_arch):
            raise ConfigError(f"net_arch must be a list of 1..{MAX_LAYERS} ints in 1..{MAX_WIDTH}, "
                              f"got {short_repr(self.net_arch)}")

    @property
    def name(self) -> str:
        """Run directory name."""
        return self.run_name or f"rllib-{self.variant}-{self.num_players}p-seed{self.seed}"


SHARED_POLICY = "shared"


def algorithm_config(cfg: RllibConfig):
    """RLlib's ``PPOConfig`` (new API stack) for ``cfg``: every seat on one masked policy."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from train.rllib.env import MaskedActorCritic, UnoMultiAgentEnv

    env_config = {"variant": cfg.variant, "num_players": cfg.num_players, **cfg.rule_options}
    module = RLModuleSpec(module_class=MaskedActorCritic, model_config={"hidden": list(cfg.net_arch)})
    return (PPOConfig()
            # RLlib's env check steps random, unmasked actions, which the engine refuses as illegal
            .environment(UnoMultiAgentEnv, env_config=env_config, disable_env_checking=True)
            .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=lambda agent_id, episode, **kw: SHARED_POLICY)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module}))
            .env_runners(num_env_runners=cfg.num_env_runners)
            .training(train_batch_size_per_learner=cfg.train_batch_size, minibatch_size=cfg.minibatch_size,
                      num_epochs=cfg.num_epochs, lr=cfg.learning_rate, gamma=cfg.gamma, lambda_=cfg.gae_lambda,
                      clip_param=cfg.clip_range, entropy_coeff=cfg.ent_coef)
            .debugging(seed=cfg.seed))


def export_policy(algo, cfg: RllibConfig, steps: int, evaluation: dict | None = None):
    """The shared policy's actor as our ``PolicyFile`` (``policy.npz`` format)."""
    from train.export import policy_file_from_linears

    game = Game(cfg.variant, cfg.num_players, **cfg.rule_options)
    module = algo.get_module(SHARED_POLICY)
    return policy_file_from_linears(module.actor_linears(), game, steps, evaluation, cfg.to_dict())


def train(cfg: RllibConfig, address: str = LOCAL, progress: bool = True) -> dict:
    """Train with RLlib's PPO, save its checkpoint, export and evaluate ``policy.npz``; returns a summary."""
    from agents.policy_file import PolicyAgent

    from train.evaluation import stats

    run_dir = os.path.join(cfg.out_dir, cfg.name)
    os.makedirs(run_dir, exist_ok=True)
    atomic.write_text(os.path.join(run_dir, "config.yaml"), yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    log_path = os.path.join(run_dir, "progress.csv")
    start = time.perf_counter()
    steps = 0
    with session(address, num_cpus=max(os.cpu_count() or 1, cfg.num_env_runners + 1)):
        algo = algorithm_config(cfg).build_algo()
        try:
            with open(log_path, "w", newline="", encoding="utf-8") as fh:
                log = csv.writer(fh)
                log.writerow(["iteration", "env_steps", "seconds", "policy_loss", "value_loss", "entropy"])
                for it in range(1, cfg.iterations + 1):
                    result = algo.train()
                    runners, learner = result.get("env_runners", {}), result.get("learners", {}).get(SHARED_POLICY, {})
                    steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
                    row = [it, steps, round(time.perf_counter() - start, 1), learner.get("policy_loss"),
                           learner.get("vf_loss"), learner.get("entropy")]
                    log.writerow([f"{x:.4f}" if isinstance(x, float) else x for x in row])
                    fh.flush()
                    if progress:
                        print(f"rllib: iteration {it}/{cfg.iterations}, {steps:,} env steps, "
                              f"{time.perf_counter() - start:.0f} s", flush=True)
            seconds = time.perf_counter() - start
            checkpoint = algo.save_to_path(os.path.abspath(os.path.join(run_dir, "checkpoint")))
            agent = PolicyAgent(export_policy(algo, cfg, steps), deterministic=True, seed=0)
            game = Game(cfg.variant, cfg.num_players, **cfg.rule_options)
            evaluation = stats.evaluate_policy(lambda i: agent, game, cfg.eval_games, cfg.seed + 20_000)
            atomic.save_policy(export_policy(algo, cfg, steps, evaluation), os.path.join(run_dir, "policy"))
        finally:
            algo.stop()
    return {"run_dir": run_dir, "timesteps": steps, "seconds": seconds, "evaluation": evaluation,
            "checkpoint": str(checkpoint), "interrupted": False, "planned_timesteps": steps,
            "trained_timesteps": steps, "samples_per_second": steps / seconds if seconds else 0.0}


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
    cfg = RllibConfig.from_yaml(args.config)
    overrides: dict[str, Any] = {k: v for k, v in (("iterations", args.iterations), ("out_dir", args.out_dir),
                                                   ("seed", args.seed)) if v is not None}
    if overrides:
        cfg = RllibConfig.from_dict({**cfg.to_dict(), **overrides})
    try:
        import ray.rllib  # noqa: F401  (ray without its rllib extra)
    except ImportError:
        raise UsageError(f"uno-env rllib needs RLlib; install it with: {INSTALL_HINT}") from None
    from train.evaluation.stats import format_table

    summary = train(cfg, args.ray, progress=not args.no_progress)
    print(format_table(summary))
    print(f"RLlib checkpoint: {summary['checkpoint']}")
    return 0

