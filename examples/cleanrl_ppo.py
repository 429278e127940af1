"""Masked PPO on the Gymnasium UNO env, in one file and in the style of CleanRL.

One seat learns against the env's default opponents (uniformly random legal players); several
``UnoEnv`` copies run in Gymnasium's ``SyncVectorEnv``. Illegal actions are masked: their logits are
set to -inf before sampling and again when the loss recomputes the log-probabilities, so the policy
never picks one and never trains on one.

Gymnasium 1.x vector envs reset a finished sub-env on the *next* call to ``step`` (the default
``AutoresetMode.NEXT_STEP``): the step that ends a game returns that game's last observation, and
``env.call("action_masks")`` then still reads the finished game (an all-zero mask). On the following
step the vector env ignores the action sent for that sub-env, resets it and returns the new game's
first observation with reward 0. This script therefore sends a placeholder mask for that one step,
marks it as not a decision, and leaves it out of the loss and the statistics.

    .venv/bin/python examples/cleanrl_ppo.py                               # 65,536 env steps
    .venv/bin/python examples/cleanrl_ppo.py --total-timesteps 64 --num-envs 2 --num-steps 16 --eval-episodes 2
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn

from uno_env.gym_env import UnoEnv


@dataclass
class Args:
    """Every hyperparameter of the run; each is also a command-line option (``--num-envs 8``)."""

    variant: str = "classic"
    """the uno_env preset to play"""
    num_players: int = 2
    """seats at the table; the learner takes a random one each game, the others play randomly"""
    seed: int = 1
    """seed of the envs (env i gets seed + i), of torch and of the NumPy generator"""
    torch_threads: int = 1
    """CPU threads for torch (one is fastest for a network this small)"""
    total_timesteps: int = 65_536
    """sub-env steps in all (num_envs x num_steps x iterations; it must be a multiple of num_envs x num_steps)"""
    num_envs: int = 4
    """UnoEnv copies stepped side by side in a SyncVectorEnv"""
    num_steps: int = 256
    """steps per env in one rollout"""
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to zero over the run"""
    gamma: float = 0.99
    """discount factor"""
    gae_lambda: float = 0.95
    """lambda of generalised advantage estimation"""
    num_minibatches: int = 4
    """minibatches one rollout is split into"""
    update_epochs: int = 4
    """passes over one rollout"""
    clip_coef: float = 0.2
    """PPO's clipping range for the probability ratio"""
    ent_coef: float = 0.01
    """weight of the entropy bonus"""
    vf_coef: float = 0.5
    """weight of the value loss"""
    max_grad_norm: float = 0.5
    """gradient norm clip"""
    hidden: int = 128
    """width of the two hidden layers of the actor and of the critic"""
    eval_episodes: int = 20
    """games the greedy policy plays at the end to measure its win rate"""


def parse_args(argv: list[str] | None = None) -> Args:
    """Read ``Args`` from the command line; each field's docstring is its help text."""
    docs = _field_docstrings(Args)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default, help=docs[f.name])
        else:
            kind = {"int": int, "float": float, "str": str}[str(f.type)]
            parser.add_argument(flag, type=kind, default=f.default, help=docs[f.name])
    args = Args(**vars(parser.parse_args(argv)))
    if args.total_timesteps % (args.num_envs * args.num_steps):
        parser.error("--total-timesteps must be a multiple of --num-envs x --num-steps")
    return args


def _field_docstrings(cls: type) -> dict[str, str]:
    # the string literal right after each annotated field of the dataclass
    body = ast.parse(inspect.getsource(cls)).body[0].body
    return {node.target.id: nxt.value.value for node, nxt in zip(body, body[1:])
            if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)}


def layer(inp: int, out: int, gain: float = np.sqrt(2)) -> nn.Linear:
    """A linear layer with orthogonal weights and zero bias."""
    lin = nn.Linear(inp, out)
    nn.init.orthogonal_(lin.weight, gain)
    nn.init.zeros_(lin.bias)
    return lin


class Agent(nn.Module):
    """Separate actor and critic MLPs over the observation vector."""

    def __init__(self, obs_dim: int, n_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(layer(obs_dim, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                    layer(hidden, 1, gain=1.0))
        self.actor = nn.Sequential(layer(obs_dim, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                   layer(hidden, n_actions, gain=0.01))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State value, shape (batch,)."""
        return self.critic(obs).squeeze(-1)

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Actor logits with every illegal action at -inf."""
        return self.actor(obs).masked_fill(~mask, float("-inf"))

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        """Sample an action (or score the given one): action, log-prob, entropy, value."""
        dist = torch.distributions.Categorical(logits=self.masked_logits(obs, mask))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, then evaluate the greedy policy; prints and returns the win rate and step counts."""
    args = parse_args(argv)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = args.total_timesteps // batch_size

    # ---- seeding: every random draw below comes from these
    rng = np.random.default_rng(args.seed)          # minibatch shuffling
    torch.manual_seed(args.seed)                    # network init and action sampling
    torch.set_num_threads(args.torch_threads)

    # ---- envs: the learner's seat and the random opponents draw from each env's own seeded generator
    envs = gym.vector.SyncVectorEnv(
        [lambda: UnoEnv(variant=args.variant, num_players=args.num_players) for _ in range(args.num_envs)])
    n_actions = int(envs.single_action_space.n)
    obs_dim = int(envs.single_observation_space.shape[0])
    next_obs, _ = envs.reset(seed=args.seed)

    agent = Agent(obs_dim, n_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # ---- rollout storage, one row per step, one column per env
    obs = torch.zeros((args.num_steps, args.num_envs, obs_dim))
    masks = torch.zeros((args.num_steps, args.num_envs, n_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))
    decides = torch.zeros((args.num_steps, args.num_envs), dtype=torch.bool)  # False on autoreset steps

    next_obs = torch.as_tensor(next_obs)
    next_done = torch.zeros(args.num_envs)
    resetting = np.zeros(args.num_envs, dtype=bool)  # this env's next step is Gymnasium's autoreset
    env_steps = decisions = autoresets = illegal = games = wins = 0

    for iteration in range(1, num_iterations + 1):
        games_before, wins_before = games, wins
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1 - (iteration - 1) / num_iterations)

        for step in range(args.num_steps):
            # the legal actions of each live game; an env about to autoreset reads its finished game
            # (all zeros), and its action is ignored, so it gets a placeholder mask
            mask = np.stack(envs.call("action_masks"))
            mask[resetting] = True
            obs[step], masks[step], dones[step] = next_obs, torch.as_tensor(mask), next_done
            decides[step] = torch.as_tensor(~resetting)
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, masks[step])
            actions[step], logprobs[step], values[step] = action, logprob, value

            next_obs, reward, terminated, truncated, info = envs.step(action.numpy())
            env_steps += args.num_envs
            decisions += int((~resetting).sum())
            autoresets += int(resetting.sum())
            illegal += int(np.sum(info.get("illegal_action", False) & info.get("_illegal_action", False)))
            ended = (terminated | truncated) & ~resetting
            games += int(ended.sum())
            wins += int((reward[ended] > 0).sum())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs)
            next_done = torch.as_tensor(ended, dtype=torch.float32)
            resetting = ended

        # ---- generalised advantage estimation; a game's last decision is not bootstrapped (a truncated
        # game's neither, a simplification: UnoEnv truncates only at max_steps, 5,000 decisions), and
        # the autoreset step after it never feeds a decision's advantage (dones cut the chain there)
        with torch.no_grad():
            next_value = agent.value(next_obs)
            advantages = torch.zeros_like(rewards)
            last_gae = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    next_nonterminal, next_values = 1.0 - next_done, next_value
                else:
                    next_nonterminal, next_values = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * next_values * next_nonterminal - values[t]
                last_gae = delta + args.gamma * args.gae_lambda * next_nonterminal * last_gae
                advantages[t] = last_gae
            returns = advantages + values

        # ---- flatten the rollout, keeping only real decisions
        keep = decides.reshape(-1)
        b_obs = obs.reshape(-1, obs_dim)[keep]
        b_masks = masks.reshape(-1, n_actions)[keep]
        b_actions, b_logprobs = actions.reshape(-1)[keep], logprobs.reshape(-1)[keep]
        b_advantages, b_returns = advantages.reshape(-1)[keep], returns.reshape(-1)[keep]
        n = len(b_obs)

        # ---- PPO update
        for _ in range(args.update_epochs):
            order = torch.as_tensor(rng.permutation(n))
            for start in range(0, n, minibatch_size):
                mb = order[start:start + minibatch_size]
                _, new_logprob, entropy, new_value = agent.act(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (new_logprob - b_logprobs[mb]).exp()
                adv = b_advantages[mb]
                if len(mb) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((new_value - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        finished, won = games - games_before, wins - wins_before
        print(f"iteration {iteration}/{num_iterations}: {env_steps} env steps; {finished} game(s) ended, "
              f"{won} won" + (f" (win rate {won / finished:.2f})" if finished else ""), flush=True)
    envs.close()

    # ---- evaluation: the greedy masked policy against the same random opponents
    eval_env = UnoEnv(variant=args.variant, num_players=args.num_players)
    eval_wins = 0
    for episode in range(args.eval_episodes):
        o, _ = eval_env.reset(seed=args.seed + 10_000 + episode)
        done, reward = False, 0.0
        while not done:
            with torch.no_grad():
                logits = agent.masked_logits(torch.as_tensor(o)[None], torch.as_tensor(eval_env.action_masks())[None])
            o, reward, terminated, truncated, info = eval_env.step(int(logits.argmax()))
            illegal += int(info.get("illegal_action", False))
            done = terminated or truncated
        eval_wins += int(reward > 0)
    win_rate = eval_wins / args.eval_episodes if args.eval_episodes else float("nan")
    print(f"{args.variant}, {args.num_players} players: greedy PPO vs random won {eval_wins}/{args.eval_episodes} "
          f"games (win rate {win_rate:.2f})")
    return {"win_rate": win_rate, "eval_episodes": args.eval_episodes, "env_steps": env_steps,
            "decisions": decisions, "autoreset_steps": autoresets, "train_games": games, "illegal_actions": illegal}


if __name__ == "__main__":
    main()
