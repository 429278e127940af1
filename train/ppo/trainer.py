"""Native masked PPO for self-play over batched games: ``uno-env train`` with ``algo: ppo`` in the config.

The run, top to bottom (CleanRL style):

1. seeding: numpy, torch and the games from ``cfg.seed``;
2. ``cfg.num_games`` games (``uno_env.vector.VectorGames``), split evenly over the player counts of
   ``cfg.table_sizes`` (one policy learns them all: the observation layout does not depend on the
   player count) and over the collectors (``train/collect/collector.py``: in this process, or one worker
   process each with ``cfg.collector_workers``); each new game is a league table: with probability
   ``cfg.self_play_games`` every seat is the learner, otherwise one seat is and the others are drawn
   from the opponent pool (``cfg.opponents``: rule-based agents and ``self`` = frozen snapshots);
3. each batched step of a collector, one forward pass answers all the learner's seats deciding in its
   games (illegal actions masked to minus infinity); each seat's decisions form its own trajectory
   (out-of-turn decisions included), the terminal reward reaches it when its game ends, and GAE is
   computed per finished trajectory;
4. after ``cfg.n_steps`` batched steps per collector, a PPO update over the finished trajectories
   (``train/ppo/network.py``: clipped ratio, value loss, entropy bonus, minibatches of ``cfg.batch_size``,
   ``cfg.n_epochs`` passes); with ``cfg.overlap_update`` it runs in a second process
   (``train/ppo/updater.py``) while the next batch is collected with the weights from before it;
5. on schedule: frozen snapshots into the pool, evaluation against random and heuristic at every
   table size (``eval.csv``; losses and the learner's win rate in its one-learner training games
   in ``progress.csv``; both in TensorBoard under ``tb/``),
   checkpoints; at the end the exported ``policy.npz`` + ``policy.json``, the same format as the SB3
   path's, so every loader, ``eval`` and ``play`` take it unchanged.

Timesteps count the learner's decisions that were learned from.
"""
from __future__ import annotations

import os
import sys
import time
from multiprocessing.connection import wait as mp_wait

import numpy as np
import yaml

from agents.policy_file import PolicyAgent, PolicyFile
from uno_env import Game
from uno_env.errors import short_repr
from uno_env.observation import ObservationEncoder

from train import atomic, checkpoints
from train.collect.collector import CollectorProcess, LocalCollector, split_games
from train.collect.privileged import PrivilegedEncoder
from train.config import ConfigError, TrainConfig
from train.errors import UsageError
from train.evaluation import stats
from train.export import policy_file_from_linears
from train.ppo import checkpoint as native_checkpoint
from train.ppo import distill
from train.ppo.checkpoint import CHECKPOINT
from train.ppo.network import batch_arrays, build_network, ppo_update
from train.ppo.updater import UpdaterProcess
from train.progress import DEFAULT_INTERVAL, Progress, StopRequest


class Trajectories:
    """Each learner seat's decisions of the game in progress; finished ones with their advantages.

    A seat is keyed (collector, table, game, seat). Finished trajectories are handed out in the order
    of (collector, the collector's step count, table, game), so the update's batch does not depend on
    which worker process answered first.
    """

    def __init__(self, gamma: float, lam: float):
        self.gamma, self.lam = gamma, lam
        self.open: dict[tuple, list] = {}
        self.done: list[tuple[tuple, list]] = []  # (order key, [(obs, mask, action, logp, advantage, return)])

    def add(self, key: tuple, obs, mask, action: int, logp: float, value: float) -> None:
        """One decision of the seat ``key`` (``obs``/``mask`` are kept as given)."""
        self.open.setdefault(key, []).append((obs, mask, action, logp, value))

    def finish(self, order: tuple, game_key: tuple, rewards: list[float]) -> list[int]:
        """A game ended: each of its seats' trajectory gets its reward at the end, then GAE; returns those seats."""
        learners = []
        for seat, reward in enumerate(rewards):
            steps = self.open.pop((*game_key, seat), None)
            if not steps:
                continue
            learners.append(seat)
            advantage, next_value = 0.0, 0.0
            out = []
            for t in range(len(steps) - 1, -1, -1):  # the reward comes only at the end; no bootstrap past it
                value = steps[t][4]
                delta = reward + self.gamma * next_value - value
                advantage = delta + self.gamma * self.lam * advantage
                out.append((*steps[t][:4], advantage, advantage + value))
                next_value, reward = value, 0.0
            out.reverse()
            self.done.append(((*order, seat), out))
        return learners

    def take(self) -> list[tuple]:
        """The finished decisions so far, in a deterministic order (and forget them)."""
        done, self.done = sorted(self.done, key=lambda item: item[0]), []
        return [step for _, steps in done for step in steps]


def train(cfg: TrainConfig, resume: str | None = None, progress: bool = True,
          progress_interval: float = DEFAULT_INTERVAL, progress_stream=None, on_update=None,
          ray_address: str | None = None) -> dict:
    """Run one native PPO job; returns the same summary as the SB3 path (``train.ppo.train``).

    ``on_update(steps, export)``, if given, is called after every PPO update; ``export()`` returns the
    policy file of the weights at that step (``uno-env benchmark --train`` saves its budget points so).
    ``ray_address``: run ``cfg.ray_collectors`` collectors as Ray actors there (``train/scaleout``).
    A plain install without torch gets a ``UsageError`` naming the extra to install.
    """
    require_torch()
    if ray_address is not None:
        from train.scaleout import session

        if cfg.num_games < cfg.ray_collectors * len(cfg.player_counts):
            raise ConfigError(f"num_games = {cfg.num_games} is fewer than one game per table size per Ray "
                              f"collector (ray_collectors = {cfg.ray_collectors})")
        with session(ray_address, num_cpus=max(os.cpu_count() or 1, cfg.ray_collectors)):
            return _train(cfg, resume, progress, progress_interval, progress_stream, on_update, on_ray=True)
    return _train(cfg, resume, progress, progress_interval, progress_stream, on_update, on_ray=False)


def require_torch() -> None:
    """Refuse, in one line naming the extra to install, when torch (the native trainer's one need) is missing."""
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        raise UsageError(f"training needs the optional training packages ({exc.name or 'torch'} is missing): "
                         "pip install 'uno-env[train]'") from None


def busy_machine_hint(threads: int) -> str | None:
    """Advice to set ``torch_threads: 1`` when torch's threads and the machine's load outnumber its cores, else None."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]  # the last minute's runnable processes; not on Windows
    except (AttributeError, OSError):
        return None
    if threads < 2 or load + threads <= cores + 0.5:
        return None
    return (f"train: the machine is busy (load {load:.1f} on {cores} cores) and torch may use {threads} threads "
            "here; if this run learns slowly, set torch_threads: 1 in its config (docs/training.md, "
            "\"Torch's threads\")")


def _train(cfg: TrainConfig, resume: str | None, progress: bool, progress_interval: float, progress_stream,
           on_update, on_ray: bool) -> dict:
    import torch

    # -- the run directory and the resolved config beside it
    run_dir = os.path.join(cfg.out_dir, cfg.name)
    ckpt_path = os.path.join(run_dir, "checkpoints", CHECKPOINT)
    if resume is not None and cfg.teacher and not os.path.exists(ckpt_path) \
            and os.path.isdir(os.path.join(run_dir, "teacher")):
        resume = None  # stopped while labelling for the teacher: labelling goes on from the saved chunks
    if resume is not None:  # a run directory, its checkpoints/ or the native.pt in it: this config's run only
        if os.path.realpath(checkpoints.run_dir_of(resume)) != os.path.realpath(run_dir):
            raise ConfigError(f"--resume {resume}: that is the run in {checkpoints.run_dir_of(resume)}, but this "
                              f"config trains {run_dir}; resume without --config (the run's own config.yaml is "
                              "used) or with the config that started it")
        if not os.path.exists(ckpt_path):
            raise ConfigError(f"--resume {resume}: no native PPO checkpoint at {ckpt_path} (an SB3 run keeps "
                              "step_<N>.zip checkpoints and resumes with algo: sb3)")
    if resume is None and os.path.exists(ckpt_path):
        raise ConfigError(f"{run_dir} already holds a training run; continue it with --resume {run_dir}, or train "
                          "into another run_name or --out-dir, or start it over with --fresh")
    start_from = native_checkpoint.init_source(cfg.init_from) if cfg.init_from and resume is None else None
    for sub in ("checkpoints", "snapshots"):
        os.makedirs(os.path.join(run_dir, sub), exist_ok=True)
    game = Game(cfg.variant, cfg.num_players, **cfg.rule_options)
    resolved = {**cfg.to_dict(), "run_name": cfg.name, "resolved_rules": game.rules.to_dict()}
    atomic.write_text(os.path.join(run_dir, "config.yaml"), yaml.safe_dump(resolved, sort_keys=False))

    began = time.perf_counter()  # the time limit counts the distillation too

    # -- seeding
    rng = np.random.default_rng(cfg.seed)
    torch.manual_seed(cfg.seed)

    # -- collectors (the games, split over the table sizes and the worker processes), network, optimiser
    sizes = cfg.player_counts
    workers = cfg.ray_collectors if on_ray else cfg.collector_workers
    shares = split_games(cfg, max(workers, 1))  # games per (collector, table size)
    obs_size = ObservationEncoder(game).size
    block = PrivilegedEncoder(game)
    net_args = (obs_size, game.num_actions, list(cfg.net_arch), block.size if cfg.privileged_critic else 0,
                block.hands_size if cfg.hand_prediction_coef else 0, block.size if cfg.collects_hidden_cards else 0,
                block.size if cfg.oracle_guiding_steps else 0)
    net = build_network(*net_args)
    state = None if resume is None else \
        native_checkpoint.load(net, ckpt_path, f"--resume {resume}", cfg, obs_size, game.num_actions)
    # built after the checkpoint is read: a damaged one is refused before torch's optimiser machinery loads
    optimiser = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    steps = 0
    snapshots: list = []
    if resume is not None:
        try:
            optimiser.load_state_dict(state["optimiser"])
            steps = int(state["steps"])
        except (KeyError, ValueError, TypeError, IndexError, RuntimeError, AttributeError) as exc:
            # a checkpoint written by this trainer never fails here: say it is damaged, briefly
            raise ConfigError(f"--resume {resume}: {ckpt_path} is damaged: {short_repr(str(exc), 200)}") from None
        rng = np.random.default_rng([cfg.seed, steps])
        # the pool as it was at that step
        snapshots = [PolicyFile.read(path) for path in checkpoints.pool_snapshots(run_dir, steps, cfg.max_snapshots)]
    elif isinstance(start_from, PolicyFile):  # fine-tuning an exported policy: its actor, an untrained critic
        native_checkpoint.load_actor(net, start_from, f"init_from {cfg.init_from}", cfg, game)
    elif start_from is not None:  # fine-tuning: another run's network, a fresh optimiser and step count
        native_checkpoint.load(net, start_from, f"init_from {cfg.init_from}", cfg, obs_size, game.num_actions)
    # one sampling generator per collector: the actions do not depend on which worker answers first
    samplers = [torch.Generator().manual_seed(int(np.random.SeedSequence([cfg.seed, j, steps]).generate_state(1)[0]))
                for j in range(len(shares))]

    def export(evaluation: dict | None = None):
        return policy_file_from_linears(net.exported_actor(), game, steps, evaluation, cfg.to_dict(),
                                        table_sizes=sizes)

    # -- distillation of a search teacher, once, before the first PPO step (train/ppo/distill.py)
    if cfg.teacher and resume is None:
        data = distill.label(cfg, os.path.join(run_dir, "teacher"), cfg.teacher_workers or os.cpu_count() or 1,
                             progress, progress_stream)
        distill.fit(net, data, cfg, np.random.default_rng([cfg.seed, 1]), os.path.join(run_dir, "teacher.csv"))
        del data
        atomic.save_policy(export(), os.path.join(run_dir, "distilled", "policy"))
        native_checkpoint.save(net, optimiser, steps, ckpt_path)

    def evaluate(seed: int) -> dict:
        agent = PolicyAgent(export(), deterministic=True, seed=0)
        result = {}
        for n in sizes:  # the home table's rows keep the plain opponent names; the others say their size
            at = Game(cfg.variant, n, **cfg.rule_options)
            for opp, r in stats.evaluate_policy(lambda i: agent, at, cfg.eval_games, seed).items():
                result[opp if n == cfg.num_players else f"{opp}@{n}p"] = r
        return result

    # oracle guiding: one generator per collector draws which hidden-card floats the actor sees
    oracle_rngs = [np.random.default_rng([cfg.seed, j, steps, 1]) for j in range(len(shares))]

    def actor_rows(j: int, rows: np.ndarray) -> np.ndarray:
        """``rows`` with the actor's copy of the hidden-card block appended (oracle guiding), else as they are."""
        if not cfg.oracle_guiding_steps:
            return rows
        hidden = rows[:, obs_size:obs_size + block.size]
        keep = cfg.oracle_keep(steps)
        if keep == 0.0:
            hidden = np.zeros_like(hidden)
        elif keep < 1.0:
            hidden = hidden * (oracle_rngs[j].random(hidden.shape) < keep)
        return np.concatenate([rows, hidden.astype(np.float32, copy=False)], axis=1)

    def answer(j: int, request) -> np.ndarray:
        """Sample the learner's actions for a collector's request and record them in the trajectories."""
        if not len(request.keys):
            return np.zeros(0, dtype=np.int64)
        rows = actor_rows(j, request.obs)
        with torch.no_grad():
            logits, values = net(torch.from_numpy(rows), torch.from_numpy(request.mask))
            chosen = torch.multinomial(torch.softmax(logits, -1), 1, generator=samplers[j]).squeeze(-1)
            logps = torch.log_softmax(logits, -1).gather(1, chosen[:, None]).squeeze(-1)
        chosen_, logps_, values_ = chosen.tolist(), logps.tolist(), values.tolist()
        for r, (t, i, seat) in enumerate(request.keys.tolist()):
            trajectories.add((j, t, i, seat), rows[r], request.mask[r], chosen_[r], logps_[r], values_[r])
        return chosen.numpy()

    trajectories = Trajectories(cfg.gamma, cfg.gae_lambda)
    held: dict[int, object] = {}   # collector -> its request waiting for the learner's answer
    in_flight: set[int] = set()    # collectors stepping their games
    counts = [0] * len(shares)     # batched steps per collector, all time (orders finished games)
    eval_path = os.path.join(run_dir, "eval.csv")
    log_path = os.path.join(run_dir, "progress.csv")
    next_snapshot = (steps // cfg.snapshot_every + 1) * cfg.snapshot_every
    next_eval = (steps // cfg.eval_every + 1) * cfg.eval_every
    bar = Progress("train", cfg.total_timesteps, "steps", "samples/s", initial=min(steps, cfg.total_timesteps),
                   enabled=progress, interval=progress_interval, stream=progress_stream)
    start = time.perf_counter()
    done_at_start = steps
    stop = StopRequest()
    board = _tensorboard(os.path.join(run_dir, "tb"))

    league = [0, 0]  # games with one learner seat that ended since the last log line, and its wins among them

    def receive(j: int) -> None:
        request = collectors[j].result()
        in_flight.discard(j)
        for t, i, rewards, truncated in request.finished:
            won = [not truncated and r > 0 and r == max(rewards) for r in rewards]
            if truncated:  # a game cut at max_steps: a loss for every seat, so stalling never pays
                rewards = [cfg.truncation_reward] * len(rewards)
            learners = trajectories.finish((j, counts[j], t, i), (j, t, i), rewards)
            if len(learners) == 1 < len(rewards):
                league[0] += 1
                league[1] += won[learners[0]]
        held[j] = request

    def after_update(losses: tuple, entropy: float, shown: float) -> None:
        """Log an update (its decisions already counted), and take snapshots, evaluations and checkpoints on schedule."""
        nonlocal next_snapshot, next_eval
        if on_update is not None:
            on_update(steps, export)
        bar.set(min(steps, cfg.total_timesteps))
        seconds = time.perf_counter() - start
        win_rate = league[1] / league[0] if league[0] else None
        checkpoints.append_progress(log_path, {
            "timesteps": steps, "seconds": f"{seconds:.1f}", "policy_loss": f"{losses[0]:.5f}",
            "value_loss": f"{losses[1]:.5f}", "entropy": f"{entropy:.4f}",
            "hand_prediction_loss": None if losses[2] is None else f"{losses[2]:.5f}",
            "league_games": league[0], "league_win_rate": "" if win_rate is None else f"{win_rate:.4f}",
            "oracle_keep": f"{shown:.4f}" if cfg.oracle_guiding_steps else None})
        league[:] = [0, 0]
        if board is not None:
            for tag, value in (("loss/policy", losses[0]), ("loss/value", losses[1]),
                               ("loss/hand_prediction", losses[2]), ("policy/entropy", entropy),
                               ("league/win_rate", win_rate),
                               ("speed/samples_per_s", (steps - done_at_start) / max(seconds, 1e-9))):
                if value is not None:
                    board.add_scalar(tag, value, steps)

        # -- snapshots, evaluation, checkpoints on schedule
        if steps >= next_snapshot:
            next_snapshot = (steps // cfg.snapshot_every + 1) * cfg.snapshot_every
            frozen = export()
            atomic.save_policy(frozen, os.path.join(run_dir, "snapshots", f"step_{steps:010d}"))
            snapshots.append(frozen)
            del snapshots[:-cfg.max_snapshots]
            for c in collectors:
                c.send_snapshots(snapshots, cfg.seed + steps)
        if steps >= next_eval:
            next_eval = (steps // cfg.eval_every + 1) * cfg.eval_every
            result = evaluate(cfg.seed + 10_000)
            checkpoints.append_eval(eval_path, steps, result)
            if board is not None:
                for opp, r in result.items():
                    board.add_scalar(f"eval/win_rate_{opp}", r["win_rate"], steps)
            save_checkpoint()

    def take_update() -> tuple:
        """Load the updater's new weights and count its decisions; returns that update's (losses, entropy, oracle keep)."""
        nonlocal steps
        with stop.shielded():  # the reply, the weights and the count are taken whole or not at all
            losses, entropy, weights = updater.result()
            net.load_state_dict(weights)
            steps += pending[0]
            shown = pending[1]
            pending[:] = [0, 0.0]
        return losses, entropy, shown

    def save_checkpoint() -> None:
        """The network, the optimiser (the updater's, when overlapped) and the step count."""
        if updater is not None:
            with stop.shielded():
                optimiser.load_state_dict(updater.optimiser_state())
        native_checkpoint.save(net, optimiser, steps, ckpt_path)

    def settle_updater() -> None:
        """Take the update still running (without its log line: the run is stopping) and the updater's
        optimiser, then stop the updater; from here the learner's own network and optimiser are current."""
        nonlocal updater
        with stop.shielded(finishing=True):  # already stopping: a further Ctrl-C would lose the update
            if updater.busy:
                take_update()
            optimiser.load_state_dict(updater.optimiser_state())
            updater.close()
            updater = None

    updater = None  # the overlapped update's process (cfg.overlap_update)
    threads_before = torch.get_num_threads()
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)
    elif progress and (hint := busy_machine_hint(threads_before)):
        print(hint, file=progress_stream or sys.stderr, flush=True)
    overlapped_threads = max(1, torch.get_num_threads() // 2)
    pending = [0, 0.0]  # decisions in the update it is running, and the oracle keep they were collected at
    collectors: list = []
    with stop:  # the first Ctrl-C stops after the current batched step, a second at once
        try:
            make = CollectorProcess if workers else LocalCollector
            if on_ray:
                from train.scaleout import collectors as ray_collectors

                make = ray_collectors.RayCollector
            collectors += [make(cfg, j, share) for j, share in enumerate(shares)]
            if cfg.overlap_update:
                # the learner and the updater split torch's threads: each with all of them (two and two on
                # two cores) learned 3.5 times slower than one each
                torch.set_num_threads(overlapped_threads)
                updater = UpdaterProcess(cfg, net_args, net, optimiser, rng, overlapped_threads)
            if snapshots:
                for c in collectors:
                    c.send_snapshots(snapshots, cfg.seed + steps)
            for j, c in enumerate(collectors):
                c.submit("reset", cfg.seed + steps + 10_000_000 * j, steps)
            for j in range(len(collectors)):
                receive(j)
            while steps + pending[0] < cfg.total_timesteps and not stop.requested:
                if cfg.time_limit_minutes and time.perf_counter() - began > 60 * cfg.time_limit_minutes:
                    break
                # -- collect: n_steps batched steps per collector; the learner answers whichever is ready
                budget = [cfg.n_steps] * len(collectors)
                while True:
                    for j in sorted(held):
                        if budget[j] and not stop.requested:
                            collectors[j].submit("step", answer(j, held.pop(j)))
                            in_flight.add(j)
                            budget[j] -= 1
                            counts[j] += 1
                    if not in_flight:
                        break
                    ready = set(in_flight)
                    if on_ray:
                        ready = ray_collectors.ready(collectors, in_flight)
                    elif workers:  # block until at least one worker has stepped its games
                        ready_conns = mp_wait([collectors[j].conn for j in in_flight])
                        ready = {j for j in in_flight if collectors[j].conn in ready_conns}
                    for j in sorted(ready):
                        receive(j)

                # -- learn from every finished trajectory (here, or overlapped in the updater process)
                batch = trajectories.take()
                if not batch:
                    continue
                shown = cfg.oracle_keep(steps)  # what the actor was shown while collecting this batch
                if updater is not None and updater.busy:  # the previous batch's update ran beside this collection
                    after_update(*take_update())
                # while the critic warms up (a policy file's fine-tune starts with an untrained one) the actor is held
                train_actor = steps >= cfg.critic_warmup_steps
                if updater is None:
                    losses, entropy = ppo_update(net, optimiser, batch_arrays(batch), cfg, rng, train_actor=train_actor)
                    steps += len(batch)
                    after_update(losses, entropy, shown)
                else:
                    arrays = batch_arrays(batch)
                    with stop.shielded():  # a batch half sent would leave the updater reading garbage
                        updater.submit(arrays, train_actor)
                        pending[:] = [len(batch), shown]
            if updater is not None:
                if updater.busy:
                    after_update(*take_update())
                settle_updater()
        except KeyboardInterrupt:  # a second Ctrl-C: keep what was learned; the checkpoint below makes it resumable
            stop.requested = True
            if updater is not None:
                settle_updater()
        finally:
            bar.close()
            for c in collectors:
                c.close()
            if board is not None:
                board.close()
            if updater is not None:  # only after an error
                updater.close()
            torch.set_num_threads(threads_before)
    interrupted = stop.requested
    seconds = time.perf_counter() - start
    save_checkpoint()

    # -- export and final evaluation (skipped after Ctrl-C: the user wants the prompt back)
    evaluation = {}
    if not interrupted:
        try:
            evaluation = evaluate(cfg.seed + 20_000)
        except KeyboardInterrupt:  # Ctrl-C during the evaluation: still export what was learned
            interrupted = True
    if evaluation and steps > done_at_start:  # resuming a finished run evaluates again, the same games: no new row
        checkpoints.append_eval(eval_path, steps, evaluation)
    final = PolicyAgent(export(evaluation), deterministic=True, seed=0)
    atomic.save_policy(final.policy, os.path.join(run_dir, "policy"))
    return {"run_dir": run_dir, "timesteps": steps, "trained_timesteps": steps - done_at_start,
            "planned_timesteps": cfg.total_timesteps, "seconds": seconds,
            "samples_per_second": (steps - done_at_start) / seconds if seconds else 0.0,
            "evaluation": evaluation, "interrupted": interrupted, "checkpoint": ckpt_path}


def _tensorboard(path: str):
    """A TensorBoard writer into ``path``, or None when the tensorboard package is not installed."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(path)
