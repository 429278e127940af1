"""Tianshou DQN on UNO's PettingZoo AEC environment, against a random opponent.

Tianshou's own ``PettingZooEnv`` wrapper is used unchanged on ``uno_env.env(...)``: it turns each
observation ``{"observation", "action_mask"}`` into ``{"agent_id", "obs", "mask"}``, and Tianshou's
``DQN`` policy reads ``mask`` to never pick an illegal action (its Q-values are pushed below the
minimum). Seat ``player_0`` learns; every other seat plays Tianshou's masked random policy. After
training, the greedy learner plays ``--eval-episodes`` games and the script prints its win rate.

    .venv/bin/python examples/tianshou_dqn.py                    # 20,000 training steps
    .venv/bin/python examples/tianshou_dqn.py --steps 64 --epochs 2 --collect 16 --eval-episodes 2

An environment step is one decision of one seat (the learner's or an opponent's): that is what
Tianshou's collector counts, and ``--steps`` is exactly the number of steps collected for training.
"""
from __future__ import annotations

import argparse
import logging
from typing import Any

import numpy as np
import torch
from pettingzoo.utils import BaseWrapper
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import uno_env

LEARNER = "player_0"


class WinnerNeverNone(BaseWrapper):
    """Reports the winner of a game that ended without one (truncated) as -1 instead of ``None``.

    Tianshou's replay buffer fixes the type of each ``info`` entry from its first value: once a game
    with a winner (an int seat) is stored, a truncated game's ``winner=None`` raises ``TypeError``
    inside ``Collector.collect``. Nothing else is changed.
    """

    def last(self, observe: bool = True) -> tuple:
        """The wrapped env's ``last()``, with ``winner=None`` replaced by -1."""
        obs, reward, terminated, truncated, info = self.env.last(observe)
        if "winner" in info and info["winner"] is None:
            info = dict(info, winner=-1)
        return obs, reward, terminated, truncated, info


def make_env(variant: str, num_players: int) -> PettingZooEnv:
    """Our AEC env inside Tianshou's unmodified PettingZoo wrapper."""
    return PettingZooEnv(WinnerNeverNone(uno_env.env(variant=variant, num_players=num_players)))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (every one has a default)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="classic", help="a uno_env preset")
    p.add_argument("--players", type=int, default=2, help="seats; player_0 learns, the rest play randomly")
    p.add_argument("--steps", type=int, default=20_000, help="environment steps collected for training in all")
    p.add_argument("--epochs", type=int, default=5, help="training iterations the steps are split into")
    p.add_argument("--collect", type=int, default=80, help="steps collected between two rounds of updates")
    p.add_argument("--update-ratio", type=float, default=0.2,
                   help="gradient steps per step collected (from 20 gradient steps per collection on, "
                        "Tianshou 2.0.1 shows a progress bar even with show_progress=False)")
    p.add_argument("--envs", type=int, default=4, help="environments stepped side by side")
    p.add_argument("--eval-episodes", type=int, default=20, help="games played by the greedy learner at the end")
    p.add_argument("--lr", type=float, default=1e-4, help="Adam learning rate")
    p.add_argument("--gamma", type=float, default=0.99, help="discount")
    p.add_argument("--n-step", type=int, default=3,
                   help="n-step returns over the env's steps (all seats' moves), so a loss on the opponent's move "
                        "reaches the learner's last transitions")
    p.add_argument("--eps", type=float, default=0.05, help="final epsilon of epsilon-greedy exploration")
    p.add_argument("--eps-decay", type=float, default=0.5, help="fraction of the steps over which epsilon falls from 1")
    p.add_argument("--batch-size", type=int, default=64, help="transitions per gradient step")
    p.add_argument("--buffer-size", type=int, default=20_000, help="replay buffer capacity (all envs)")
    p.add_argument("--seed", type=int, default=0, help="seeds the envs, torch and NumPy")
    p.add_argument("--torch-threads", type=int, default=1,
                   help="CPU threads for torch (1 is fastest for this small net)")
    args = p.parse_args(argv)
    if args.collect % args.envs or args.steps % (args.epochs * args.collect):
        p.error("--collect must be a multiple of --envs and --steps a multiple of --epochs x --collect, "
                "so that exactly --steps steps are collected")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, evaluate, print the win rate; returns ``win_rate``, ``wins``, ``eval_episodes``, ``train_steps``."""
    args = parse_args(argv)
    # Returns of a multi-agent env have one column per seat; Tianshou's summary statistics warn that
    # they flatten such 2-D arrays. The script reads the learner's column itself.
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)

    # Seeding: torch for the network, the envs from --seed (env i gets seed + i), and NumPy's
    # global generator because Tianshou draws exploration, replay samples and the random
    # opponent's moves from it.
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    np.random.seed(args.seed)
    train_envs = DummyVectorEnv([lambda: make_env(args.variant, args.players) for _ in range(args.envs)])
    eval_envs = DummyVectorEnv([lambda: make_env(args.variant, args.players)
                                for _ in range(min(args.envs, args.eval_episodes))])
    train_envs.seed(args.seed)
    eval_envs.seed(args.seed + 10_000)

    probe = make_env(args.variant, args.players)
    obs_dim = probe.observation_space["observation"].shape[0]
    n_actions = int(probe.action_space.n)

    # The learner: a Q-network over the observation vector; Tianshou applies obs["mask"] itself.
    net = Net(state_shape=obs_dim, action_shape=n_actions, hidden_sizes=[256, 256])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=probe.action_space,
                                       eps_training=1.0, eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=args.lr),
        gamma=args.gamma,
        n_step_return_horizon=args.n_step,
        target_update_freq=200,
    )
    seats = [learner] + [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=probe.action_space)
                         for _ in range(args.players - 1)]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=probe)
    learner_index = probe.agent_idx[LEARNER]

    outcomes: list[float] = []  # the learner's return in every training game that ended

    def record_outcome(episode) -> None:  # Tianshou calls this with each finished episode's transitions
        outcomes.append(float(np.sum(episode.rew[:, learner_index])))

    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(args.buffer_size, args.envs), exploration_noise=True,
        on_episode_done_hook=record_outcome)
    train_collector.reset()
    reported = {"epoch": 0, "games": 0}

    def report_epoch() -> None:
        games = outcomes[reported["games"]:]
        won = sum(r > 0 for r in games)
        print(f"epoch {reported['epoch']}/{args.epochs}: {len(games)} training games ended, {won} won by the learner",
              flush=True)
        reported["games"] = len(outcomes)

    def before_training_step(epoch: int, env_step: int) -> None:
        # exploration: epsilon falls linearly from 1 (random play wins often enough to learn from)
        # to --eps over the first --eps-decay of the steps
        # (Tianshou 2.0.1's trainer marks only the multi-agent policy as being in a training step, so
        # the DQN seat explores with its *inference* epsilon while collecting: set both.)
        progress = env_step / max(1.0, args.eps_decay * args.steps)
        eps = max(args.eps, 1.0 - (1.0 - args.eps) * progress)
        learner.policy.set_eps_training(eps)
        learner.policy.set_eps_inference(eps)
        if epoch != reported["epoch"]:
            if reported["epoch"]:
                report_epoch()
            reported["epoch"] = epoch

    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector,
        test_collector=None,
        max_epochs=args.epochs,
        epoch_num_steps=args.steps // args.epochs,
        collection_step_num_env_steps=args.collect,
        batch_size=args.batch_size,
        update_step_num_gradient_steps_per_sample=args.update_ratio,
        multi_agent_return_reduction=lambda returns: returns[:, learner_index],
        training_fn=before_training_step,
        show_progress=False,
    ))
    report_epoch()

    # Evaluation: the learner plays greedily; a win is a positive final return.
    learner.policy.set_eps_inference(0.0)
    eval_collector = Collector[CollectStats](algorithm, eval_envs)
    algorithm.eval()
    stats = eval_collector.collect(n_episode=args.eval_episodes, reset_before_collect=True)
    learner_returns = np.asarray(stats.returns).reshape(len(stats.returns), -1)[:, learner_index]
    wins = int((learner_returns > 0).sum())
    win_rate = wins / len(learner_returns)
    print(f"{args.variant}, {args.players} players: {result.train_step} training steps; "
          f"greedy DQN vs random: {wins}/{len(learner_returns)} games won (win rate {win_rate:.2f})")
    return {"win_rate": win_rate, "wins": wins, "eval_episodes": len(learner_returns),
            "train_steps": int(result.train_step)}


if __name__ == "__main__":
    main()
