"""RLlib's multi-agent PPO on any variant, through the PettingZoo AEC env (``uno-env rllib``; its command line is
``train/app/rllib_command.py``).

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
from dataclasses import dataclass

import yaml

from uno_env import Game

from train import atomic
from train.config import PpoSettings, RunConfig
from train.config_model import setting, setting_like
from train.scaleout import LOCAL, session

#: Sizes of an RLlib run at most: generous for any real run, refusing a value that would exhaust the machine.
MAX_COUNT = 1_000_000_000


@dataclass
class RllibConfig(PpoSettings, RunConfig):
    """One RLlib PPO run: the game, PPO's hyperparameters, and how many env runners sample.

    Its fields are those of ``train.config.RunConfig`` (the game, seed, evaluation, output) and
    ``train.config.PpoSettings`` (PPO's loss and network, as in the native trainer), and RLlib's own below;
    loaded and checked as every config is (``train.config_model.ConfigModel``).
    """

    LABEL = "RLlib config"
    RUN_PREFIX = "rllib-"

    gamma: float = setting_like(PpoSettings, "gamma", 1.0)
    """Discount factor (games end anyway, at the engine's ``max_steps`` at the latest)."""
    iterations: int = setting(50, low=1, most=MAX_COUNT)
    """RLlib training iterations (``algo.train()`` calls), each sampling ``train_batch_size`` env steps."""
    train_batch_size: int = setting(4000, low=1, most=MAX_COUNT)
    """Env steps (all agents' decisions) per iteration."""
    minibatch_size: int = setting(256, low=1, most=MAX_COUNT)
    """Minibatch size of a PPO update."""
    num_epochs: int = setting(4, low=1, most=MAX_COUNT)
    """Passes over each iteration's batch."""
    num_env_runners: int = setting(1, low=0, high=1024, note="0: sample in the driver")
    """RLlib env runner actors sampling games (0: sample in the driver)."""


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
