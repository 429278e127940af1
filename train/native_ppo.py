"""Native masked PPO for self-play over batched games: ``uno-env train`` with ``algo: ppo`` in the config.

The run, top to bottom (CleanRL style):

1. seeding: numpy, torch and the batched games from ``cfg.seed``;
2. ``cfg.num_games`` games stepped together (``uno_env.vector.VectorGames``); each new game is a
   league table: with probability ``cfg.self_play_games`` every seat is the learner, otherwise one
   seat is and the others are drawn from the opponent pool (``cfg.opponents``: rule-based agents and
   ``self`` = frozen snapshots of the learner);
3. every batched step, one forward pass answers all the learner's seats that decide (illegal actions
   masked to minus infinity); each seat's decisions form its own trajectory (out-of-turn decisions
   included) and the terminal reward reaches it when its game ends; GAE is computed per finished
   trajectory;
4. after ``cfg.n_steps`` batched steps, a PPO update over the finished trajectories (clipped ratio,
   value loss, entropy bonus, minibatches of ``cfg.batch_size``, ``cfg.n_epochs`` passes);
5. on schedule: frozen snapshots into the pool, evaluation against random and heuristic
   (``eval.csv``), checkpoints; at the end the exported ``policy.npz`` + ``policy.json``, the same
   format as the SB3 path's, so every loader, ``eval`` and ``play`` take it unchanged.

Timesteps count the learner's decisions that were learned from.
"""
from __future__ import annotations

import csv
import os
import time

import numpy as np
import yaml

from agents import load as load_agent
from agents.policy_file import PolicyAgent
from uno_env import Game
from uno_env.vector import VectorGames

from . import atomic, checkpoints
from .config import ConfigError, TrainConfig
from .evaluation import stats
from .export import policy_file_from_linears
from .progress import DEFAULT_INTERVAL, Progress

CHECKPOINT = "native.pt"


def build_network(obs_size: int, num_actions: int, hidden: list[int]):
    """Actor and critic MLPs (tanh): the actor is what gets exported."""
    import torch
    from torch import nn

    def mlp(out: int, gain: float) -> nn.Sequential:
        layers, size = [], obs_size
        for width in hidden:
            layers += [nn.Linear(size, width), nn.Tanh()]
            size = width
        layers.append(nn.Linear(size, out))
        for layer in layers:
            if isinstance(layer, nn.Linear):  # orthogonal init, as in CleanRL's PPO
                nn.init.orthogonal_(layer.weight, np.sqrt(2))
                nn.init.zeros_(layer.bias)
        nn.init.orthogonal_(layers[-1].weight, gain)
        return nn.Sequential(*layers)

    class ActorCritic(nn.Module):
        def __init__(self):
            super().__init__()
            self.actor = mlp(num_actions, 0.01)
            self.critic = mlp(1, 1.0)

        def forward(self, obs, mask):
            logits = self.actor(obs).masked_fill(mask == 0, -1e9)
            return logits, self.critic(obs).squeeze(-1)

    return ActorCritic().to(torch.device("cpu"))


class Trajectories:
    """Each (game, seat)'s learner decisions of the game in progress; finished ones with their advantages."""

    def __init__(self, gamma: float, lam: float):
        self.gamma, self.lam = gamma, lam
        self.open: dict[tuple[int, int], list] = {}
        self.done: list[tuple] = []  # (obs, mask, action, logp, advantage, return)

    def add(self, game: int, seat: int, obs, mask, action: int, logp: float, value: float) -> None:
        """One decision of ``seat`` in game ``game`` (observation and mask copied)."""
        self.open.setdefault((game, seat), []).append((obs.copy(), mask.copy(), action, logp, value))

    def finish(self, game: int, rewards: np.ndarray) -> None:
        """Game ``game`` ended: each of its seats' trajectory gets its reward at the end, then GAE."""
        for seat in range(len(rewards)):
            steps = self.open.pop((game, seat), None)
            if not steps:
                continue
            values = [s[4] for s in steps]
            advantage = 0.0
            out = []
            for t in range(len(steps) - 1, -1, -1):  # reward only at the end; no discount past it
                last = t == len(steps) - 1
                reward = float(rewards[seat]) if last else 0.0
                next_value = 0.0 if last else values[t + 1]
                delta = reward + self.gamma * next_value - values[t]
                advantage = delta + (0.0 if last else self.gamma * self.lam * advantage)
                out.append((*steps[t][:4], advantage, advantage + values[t]))
            self.done.extend(reversed(out))

    def take(self) -> list[tuple]:
        """The finished decisions so far (and forget them)."""
        done, self.done = self.done, []
        return done


def train(cfg: TrainConfig, resume: str | None = None, progress: bool = True,
          progress_interval: float = DEFAULT_INTERVAL, progress_stream=None) -> dict:
    """Run one native PPO job; returns the same summary as the SB3 path (``train.ppo.train``)."""
    import torch

    # -- the run directory and the resolved config beside it
    run_dir = os.path.join(cfg.out_dir, cfg.name)
    ckpt_path = os.path.join(run_dir, "checkpoints", CHECKPOINT)
    if resume is None and os.path.exists(ckpt_path):
        raise ConfigError(f"{run_dir} already holds a training run; continue it with --resume {run_dir}, or train "
                          "into another run_name or --out-dir, or start it over with --fresh")
    for sub in ("checkpoints", "snapshots"):
        os.makedirs(os.path.join(run_dir, sub), exist_ok=True)
    game = Game(cfg.variant, cfg.num_players, **cfg.rule_options)
    resolved = {**cfg.to_dict(), "run_name": cfg.name, "resolved_rules": game.rules.to_dict()}
    atomic.write_text(os.path.join(run_dir, "config.yaml"), yaml.safe_dump(resolved, sort_keys=False))

    # -- seeding
    rng = np.random.default_rng(cfg.seed)
    torch.manual_seed(cfg.seed)
    sampler = torch.Generator().manual_seed(cfg.seed)

    # -- games, network, optimiser (and a checkpoint to continue from)
    games = VectorGames(cfg.num_games, rules=game.rules)
    net = build_network(games.observation_size, games.num_actions, list(cfg.net_arch))
    optimiser = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    steps = 0
    if resume is not None:
        saved = resume if resume.endswith(".pt") else ckpt_path
        if not os.path.exists(saved):
            raise ConfigError(f"--resume: no native checkpoint at {saved}")
        state = torch.load(saved, map_location="cpu", weights_only=True)  # tensors and numbers only
        net.load_state_dict(state["net"])
        optimiser.load_state_dict(state["optimiser"])
        steps = int(state["steps"])
        rng = np.random.default_rng([cfg.seed, steps])
        sampler.manual_seed(cfg.seed + steps)

    # -- the league: rule-based opponents and frozen snapshots of the learner
    baselines = [(spec, w) for spec, w in cfg.opponents.items() if spec != "self" and w > 0]
    pool = [load_agent(spec, game, seed=cfg.seed + i) for i, (spec, _) in enumerate(baselines)]
    weights = [w for _, w in baselines]
    snapshots: list[PolicyAgent] = []
    n = games.num_players
    roles = np.full((cfg.num_games, n), -1, dtype=np.int64)  # -1: the learner; k: opponent k of the pool

    def export(evaluation: dict | None = None):
        linears = [m for m in net.actor if isinstance(m, torch.nn.Linear)]
        return policy_file_from_linears(linears, game, steps, evaluation, cfg.to_dict())

    def opponents() -> tuple[list, np.ndarray]:
        agents_ = pool + snapshots
        per_snapshot = [cfg.opponents.get("self", 0.0) / len(snapshots)] * len(snapshots) if snapshots else []
        w = np.array(weights + per_snapshot, dtype=float)
        return agents_, w / w.sum()

    def deal_roles(i: int) -> None:
        if rng.random() < cfg.self_play_games:
            roles[i] = -1
            return
        agents_, p = opponents()
        roles[i] = rng.choice(len(agents_), size=n, p=p)
        roles[i, rng.integers(n)] = -1

    seat, obs, mask = games.reset(seed=cfg.seed + steps)
    for i in range(cfg.num_games):
        deal_roles(i)
    trajectories = Trajectories(cfg.gamma, cfg.gae_lambda)
    eval_path = os.path.join(run_dir, "eval.csv")
    log_path = os.path.join(run_dir, "progress.csv")
    next_snapshot = (steps // cfg.snapshot_every + 1) * cfg.snapshot_every
    next_eval = (steps // cfg.eval_every + 1) * cfg.eval_every
    bar = Progress("train", cfg.total_timesteps, "steps", "samples/s", initial=min(steps, cfg.total_timesteps),
                   enabled=progress, interval=progress_interval, stream=progress_stream)
    start = time.perf_counter()
    done_at_start = steps
    actions = np.zeros(cfg.num_games, dtype=np.int64)

    try:
        while steps < cfg.total_timesteps:
            if cfg.time_limit_minutes and time.perf_counter() - start > 60 * cfg.time_limit_minutes:
                break
            # -- collect: n_steps batched steps, one forward pass for every learner seat deciding
            for _ in range(cfg.n_steps):
                role = roles[np.arange(cfg.num_games), seat]
                rows = np.flatnonzero(role == -1)
                if len(rows):
                    with torch.no_grad():
                        logits, values = net(torch.from_numpy(obs[rows]), torch.from_numpy(mask[rows]))
                        chosen = torch.multinomial(torch.softmax(logits, -1), 1, generator=sampler).squeeze(-1)
                        logps = torch.log_softmax(logits, -1).gather(1, chosen[:, None]).squeeze(-1)
                    actions[rows] = chosen.numpy()
                    for r, i in enumerate(rows):
                        trajectories.add(int(i), int(seat[i]), obs[i], mask[i], int(chosen[r]), float(logps[r]),
                                         float(values[r]))
                agents_ = pool + snapshots
                for i in np.flatnonzero(role != -1):
                    actions[i] = agents_[role[i]].act(obs[i], mask[i])
                seat, obs, mask, rewards, terminated, truncated = games.step(actions)
                for i in np.flatnonzero(terminated | truncated):
                    trajectories.finish(int(i), rewards[i])
                    deal_roles(int(i))

            # -- learn from every finished trajectory
            batch = trajectories.take()
            if not batch:
                continue
            b_obs = torch.from_numpy(np.stack([t[0] for t in batch]))
            b_mask = torch.from_numpy(np.stack([t[1] for t in batch]))
            b_act = torch.tensor([t[2] for t in batch])
            b_logp = torch.tensor([t[3] for t in batch], dtype=torch.float32)
            b_adv = torch.tensor([t[4] for t in batch], dtype=torch.float32)
            b_ret = torch.tensor([t[5] for t in batch], dtype=torch.float32)
            order = np.arange(len(batch))
            for _ in range(cfg.n_epochs):
                rng.shuffle(order)
                for lo in range(0, len(order), cfg.batch_size):
                    mb = torch.from_numpy(order[lo:lo + cfg.batch_size])
                    logits, value = net(b_obs[mb], b_mask[mb])
                    logp_all = torch.log_softmax(logits, -1)
                    logp = logp_all.gather(1, b_act[mb][:, None]).squeeze(-1)
                    ratio = torch.exp(logp - b_logp[mb])
                    adv = b_adv[mb]
                    adv = (adv - adv.mean()) / (adv.std(unbiased=False) + 1e-8)
                    pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)).mean()
                    v_loss = 0.5 * ((value - b_ret[mb]) ** 2).mean()
                    probs = logp_all.exp()
                    entropy = -(probs * logp_all.clamp(min=-1e8)).sum(-1).mean()
                    loss = pg_loss + 0.5 * v_loss - cfg.ent_coef * entropy
                    optimiser.zero_grad()
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                    optimiser.step()
            steps += len(batch)
            bar.set(min(steps, cfg.total_timesteps))
            _log(log_path, steps, time.perf_counter() - start, pg_loss.item(), v_loss.item(), entropy.item())

            # -- snapshots, evaluation, checkpoints on schedule
            if steps >= next_snapshot:
                next_snapshot = (steps // cfg.snapshot_every + 1) * cfg.snapshot_every
                frozen = PolicyAgent(export(), deterministic=False, seed=cfg.seed + steps)
                atomic.save_policy(frozen.policy, os.path.join(run_dir, "snapshots", f"step_{steps:010d}"))
                snapshots.append(frozen)
                del snapshots[:-cfg.max_snapshots]
            if steps >= next_eval:
                next_eval = (steps // cfg.eval_every + 1) * cfg.eval_every
                agent = PolicyAgent(export(), deterministic=True, seed=0)
                checkpoints.append_eval(eval_path, steps, stats.evaluate_policy(lambda i: agent, game, cfg.eval_games, cfg.seed + 10_000))
                _save(net, optimiser, steps, ckpt_path)
    finally:
        bar.close()
    seconds = time.perf_counter() - start
    _save(net, optimiser, steps, ckpt_path)

    # -- export and final evaluation
    final = PolicyAgent(export(), deterministic=True, seed=0)
    evaluation = stats.evaluate_policy(lambda i: final, game, cfg.eval_games, cfg.seed + 20_000)
    checkpoints.append_eval(eval_path, steps, evaluation)
    final.policy.metadata.update(evaluation=evaluation, config=cfg.to_dict())
    atomic.save_policy(final.policy, os.path.join(run_dir, "policy"))
    return {"run_dir": run_dir, "timesteps": steps, "trained_timesteps": steps - done_at_start,
            "planned_timesteps": cfg.total_timesteps, "seconds": seconds,
            "samples_per_second": (steps - done_at_start) / seconds if seconds else 0.0,
            "evaluation": evaluation, "interrupted": False, "checkpoint": ckpt_path}


def _save(net, optimiser, steps: int, path: str) -> None:
    import torch

    with atomic.atomic_open(path, "wb", encoding=None) as fh:
        torch.save({"net": net.state_dict(), "optimiser": optimiser.state_dict(), "steps": steps}, fh)


def _log(path: str, steps: int, seconds: float, pg_loss: float, v_loss: float, entropy: float) -> None:
    new = not os.path.exists(path)
    with open(path, "a", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(["timesteps", "seconds", "policy_loss", "value_loss", "entropy"])
        w.writerow([steps, f"{seconds:.1f}", f"{pg_loss:.5f}", f"{v_loss:.5f}", f"{entropy:.4f}"])
