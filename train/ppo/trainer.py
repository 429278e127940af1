"""Native masked PPO for self-play over batched games: ``uno-env train`` with ``algo: ppo`` in the config.

The run, top to bottom (CleanRL style), as ``Learner`` reads:

1. **set up** (``Learner.__init__``): the run directory and the resolved ``config.yaml`` in it; seeding
   (numpy, torch and the games from ``cfg.seed``); the research add-ons the config turns on
   (``train/ppo/addons.py``: teacher distillation, privileged critic, hand prediction, oracle guiding),
   which size the network (``train/ppo/network.py``); the network and the optimiser, fresh, from the
   run's checkpoint (``--resume``) or from another run or a policy file (``init_from``);
2. **start** (``Learner.run``): each add-on's start (the teacher's distillation, once, before the first
   PPO step); ``cfg.num_games`` games (``uno_env.vector.VectorGames``), split evenly over the player counts
   of ``cfg.table_sizes`` (one policy learns them all: the observation layout does not depend on the
   player count) and over the collectors (``train/ppo/rollout.py``: in this process, one worker process
   each with ``cfg.collector_workers``, or Ray actors); each new game is a league table: with probability
   ``cfg.self_play_games`` every seat is the learner, otherwise one seat is and the others are drawn
   from the opponent pool (``cfg.opponents``: rule-based agents and ``self`` = frozen snapshots);
3. **collect** (``Learner.collect``): ``cfg.n_steps`` batched steps per collector; at each, one forward
   pass (``Learner.act``) answers all the learner's seats deciding in its games (illegal actions masked
   to minus infinity); each seat's decisions form its own trajectory (out-of-turn decisions included),
   the terminal reward reaches it when its game ends, and GAE is computed over the finished trajectories
   (``train/ppo/trajectories.py``: whole steps written into preallocated arrays, no Python per row);
4. **update** (``Learner.update``): a PPO update over the finished trajectories (``network.ppo_update``:
   clipped ratio, value loss, entropy bonus, minibatches of ``cfg.batch_size``, ``cfg.n_epochs`` passes)
   on ``cfg.device`` (``train/ppo/device.py``; the acting forward passes stay on the CPU); with
   ``cfg.overlap_update`` it runs in a second process (``train/ppo/updater.py``) while the next batch
   is collected with the weights from before it;
5. **on schedule** (``Learner.after_update``): losses and the learner's win rate in its one-learner
   training games (``progress.csv``), frozen snapshots into the pool, evaluation against random and
   heuristic at every table size (``eval.csv``; both in TensorBoard under ``tb/``) and a checkpoint;
6. **finish** (``Learner.finish``): a last checkpoint, the final evaluation and the exported
   ``policy.npz`` + ``policy.json``, the same format as the SB3 path's, so every loader, ``eval`` and
   ``play`` take it unchanged.

Timesteps count the learner's decisions that were learned from. The first Ctrl-C stops after the
current batched step, a second at once; either way the checkpoint is saved and the policy exported.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, replace

import numpy as np

from agents.policy_file import PolicyAgent, PolicyFile
from uno_env import Game
from uno_env.errors import short_repr
from uno_env.observation import ObservationEncoder

from train import atomic, run_dirs
from train.collect.collector import split_games
from train.collect.privileged import PrivilegedEncoder
from train.config import ConfigError, TrainConfig
from train.errors import UsageError
from train.evaluation import stats
from train.export import policy_file_from_linears
from train.ppo import checkpoint as native_checkpoint
from train.ppo import device as devices
from train.ppo.addons import addons_for
from train.ppo.checkpoint import CHECKPOINT
from train.ppo.network import build_network, make_optimiser, ppo_update
from train.ppo.rollout import Rollout
from train.ppo.trajectories import Trajectories
from train.ppo.updater import UpdaterProcess
from train.progress import DEFAULT_INTERVAL, Progress, StopRequest

#: The columns of ``progress.csv``, in order; an add-on's stay None, so out of the file, unless it is on.
PROGRESS_COLUMNS = ("timesteps", "seconds", "policy_loss", "value_loss", "entropy", "hand_prediction_loss",
                    "league_games", "league_win_rate", "oracle_keep")


def train(cfg: TrainConfig, resume: str | None = None, progress: bool = True,
          progress_interval: float = DEFAULT_INTERVAL, progress_stream=None, on_update=None,
          ray_address: str | None = None, *, on_batch=None, tally=None) -> dict:
    """Run one native PPO job; returns the same summary as the SB3 path (``train.sb3.trainer.train``).

    ``on_update(steps, export)``, if given, is called after every PPO update; ``export()`` returns the
    policy file of the weights at that step (``uno-env benchmark --train`` saves its budget points so).
    ``on_batch(arrays)``, if given, sees every batch (``(obs, mask, action, logp, advantage, return)`` arrays,
    ``Trajectories.take``, not to be changed) before its update (``tests/training/test_ppo_same_seed.py``
    records the first).
    ``ray_address``: run ``cfg.ray_collectors`` collectors as Ray actors there (``train/scaleout``).
    ``tally``: a contract run's count (``TrainingRun.tally``), which the collectors' games report to.
    A plain install without torch gets a ``UsageError`` naming the extra to install.
    """
    require_torch()
    hooks = dict(progress=progress, progress_interval=progress_interval, progress_stream=progress_stream,
                 on_update=on_update, on_batch=on_batch, tally=tally)
    if ray_address is None:
        return Learner(cfg, resume, on_ray=False, **hooks).run()
    from train.scaleout import session

    if cfg.num_games < cfg.ray_collectors * len(cfg.player_counts):
        raise ConfigError(f"num_games = {cfg.num_games} is fewer than one game per table size per Ray "
                          f"collector (ray_collectors = {cfg.ray_collectors})")
    with session(ray_address, num_cpus=max(os.cpu_count() or 1, cfg.ray_collectors)):
        return Learner(cfg, resume, on_ray=True, **hooks).run()


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


@dataclass
class Update:
    """One PPO update: the decisions it learned from, the step count they were collected at, its losses."""

    decisions: int
    collected_at: int
    losses: tuple = (None, None, None)  # policy, value, hand prediction (None without its head)
    entropy: float = 0.0


class Learner:
    """One native PPO run: the network and its optimiser, the collectors' games, the updates, the schedule."""

    def __init__(self, cfg: TrainConfig, resume: str | None, on_ray: bool, progress: bool, progress_interval: float,
                 progress_stream, on_update, on_batch, tally=None):
        import torch

        self.cfg, self.on_update, self.on_batch = cfg, on_update, on_batch
        self.device = devices.resolve(cfg.device)  # refused before anything is written: cuda without CUDA
        self.progress, self.progress_interval, self.progress_stream = progress, progress_interval, progress_stream
        # -- the run directory and the resolved config beside it
        self.run_dir = os.path.join(cfg.out_dir, cfg.name)
        self.ckpt_path = os.path.join(self.run_dir, "checkpoints", CHECKPOINT)
        resume = _checked_resume(cfg, resume, self.run_dir, self.ckpt_path)
        start_from = native_checkpoint.init_source(cfg.init_from) if cfg.init_from and resume is None else None
        self.game = run_dirs.prepare_run_dir(cfg, self.run_dir)
        self.began = time.perf_counter()  # the time limit counts the distillation too

        # -- seeding
        torch.manual_seed(cfg.seed)  # the fresh network's weights (the minibatches' order: _seed_segment)

        # -- the add-ons, the network they size, the optimiser, and where they start
        self.addons = addons_for(cfg, self.game, fresh=resume is None)
        self.net_args = self._network_args()
        self.net = build_network(*self.net_args)  # on the CPU until the run starts (placed by _place_on_device)
        self.acting = self.net  # the CPU copy that acts and exports: the same network unless it learns on a GPU
        self.steps, self.snapshots = 0, []
        self._load_start(resume, start_from)
        self.checkpoint_at = self.steps if resume is not None else None  # the decisions the checkpoint on disk holds
        if tally is not None:  # a resumed run's checkpoint: what the sittings before this one trained
            tally.base = (self.steps, self.steps)

        # -- the games, split over the table sizes and the collectors; one sampling generator per collector,
        # so the actions do not depend on which collector is answered first
        self.sizes = cfg.player_counts
        self.shares = split_games(cfg, max(cfg.ray_collectors if on_ray else cfg.collector_workers, 1))
        self._seed_segment()
        kind = "ray" if on_ray else "process" if cfg.collector_workers else "local"
        self.rollout = Rollout(cfg, kind, self.trajectories, len(self.shares), tally)
        self.updater: UpdaterProcess | None = None  # the overlapped update's process (cfg.overlap_update)
        self.pending: Update | None = None          # the update it is running
        self.stop = StopRequest()
        # the progress bar, TensorBoard and the schedule start in run(), after the add-ons' start

    def _seed_segment(self) -> None:
        """The generators and the (empty) trajectories a run starts with, from the seed and the decision count;
        with ``cfg.segment_every`` also where the segment starting here ends."""
        import torch

        cfg = self.cfg
        self.rng = np.random.default_rng([cfg.seed, self.steps]) if self.steps else np.random.default_rng(cfg.seed)
        self.samplers = [torch.Generator().manual_seed(int(np.random.SeedSequence([cfg.seed, j, self.steps])
                                                           .generate_state(1)[0])) for j in range(len(self.shares))]
        self.trajectories = Trajectories(cfg.gamma, cfg.gae_lambda,
                                         [list(zip(share, self.sizes)) for share in self.shares])
        every = cfg.segment_every
        self.segment_end = (self.steps // every + 1) * every if every else None

    def _network_args(self) -> tuple:
        """``build_network``'s arguments: the observation, the actions, the hidden layers and the add-ons' sizes."""
        block = PrivilegedEncoder(self.game)
        sizes = {"privileged_size": 0, "hands_size": 0, "oracle_size": 0}
        for addon in self.addons:
            sizes.update(addon.network_sizes())
        collected = block.size if self.cfg.collects_hidden_cards else 0  # the hidden-card block in every row
        return (ObservationEncoder(self.game).size, self.game.num_actions, list(self.cfg.net_arch),
                sizes["privileged_size"], sizes["hands_size"], collected, sizes["oracle_size"])

    def _load_start(self, resume: str | None, start_from) -> None:
        """Build the optimiser; load the network, the step count, the minibatch order and the pool the run starts at."""
        cfg, obs_size, num_actions = self.cfg, self.net_args[0], self.net_args[1]
        state = None if resume is None else \
            native_checkpoint.load(self.net, self.ckpt_path, f"--resume {resume}", cfg, obs_size, num_actions)
        # built after the checkpoint is read: a damaged one is refused before torch's optimiser machinery loads
        self.optimiser = make_optimiser(self.net, cfg.learning_rate)
        if resume is not None:
            try:
                self.optimiser.load_state_dict(state["optimiser"])
                self.steps = int(state["steps"])
            except (KeyError, ValueError, TypeError, IndexError, RuntimeError, AttributeError) as exc:
                # a checkpoint written by this trainer never fails here: say it is damaged, briefly
                raise ConfigError(f"--resume {resume}: {self.ckpt_path} is damaged: "
                                  f"{short_repr(str(exc), 200)}") from None
            # the pool as it was at that step
            self.snapshots = [PolicyFile.read(path) for path in
                              run_dirs.pool_snapshots(self.run_dir, self.steps, cfg.max_snapshots)]
        elif isinstance(start_from, PolicyFile):  # fine-tuning an exported policy: its actor, an untrained critic
            native_checkpoint.load_actor(self.net, start_from, f"init_from {cfg.init_from}", cfg, self.game)
        elif start_from is not None:  # fine-tuning: another run's network, a fresh optimiser and step count
            native_checkpoint.load(self.net, start_from, f"init_from {cfg.init_from}", cfg, obs_size, num_actions)

    # -- the run

    def run(self) -> dict:
        """Collect and update until the budget, the time limit or Ctrl-C; then checkpoint, evaluate and export."""
        for addon in self.addons:
            addon.start(self)  # the teacher's distillation runs here, before the first PPO step
        self._place_on_device()
        self._open_logs()
        threads_before, overlapped_threads = self._bound_threads()
        with self.stop:  # the first Ctrl-C stops after the current batched step, a second at once
            try:
                self._start_collectors(overlapped_threads)
                while not self._done():
                    batch = self.collect()
                    whole = not self.stop.requested  # a batch Ctrl-C cut short is not the uninterrupted run's
                    if batch is not None:
                        self.update(batch)
                        if self.segment_end is not None and self.steps >= self.segment_end and whole:
                            self.new_segment()
                self._take_last_update()
            except KeyboardInterrupt:  # a second Ctrl-C: keep what was learned; the checkpoint below makes it resumable
                self.stop.requested = True
                if self.updater is not None:
                    self._settle_updater()
            finally:
                self._close(threads_before)
        return self.finish()

    def _place_on_device(self) -> None:
        """The learning network and its optimiser onto ``cfg.device``; a CPU copy acts (``train/ppo/device.py``).

        With ``overlap_update`` the updater process learns (and places its own copy), so the learner's stays here.
        """
        if self.device.type != "cpu" and not self.cfg.overlap_update:
            self._split_acting_copy(self.device)

    def _split_acting_copy(self, device) -> None:
        """Keep a CPU copy of the network to act and export; move the learning one and its optimiser to ``device``."""
        import copy

        self.acting = copy.deepcopy(self.net)
        self.net.to(device)  # the same parameters, moved: the optimiser still holds them
        self.optimiser.load_state_dict(self.optimiser.state_dict())  # its moments follow them to the device

    def _publish(self) -> None:
        """Copy the learned weights into the acting copy (nothing to do when they are one network)."""
        if self.acting is not self.net:
            self.acting.load_state_dict(self.net.state_dict())

    def _open_logs(self) -> None:
        """The log files, TensorBoard, the progress bar and the schedule (on the grid of an uninterrupted run)."""
        cfg = self.cfg
        self.eval_path = os.path.join(self.run_dir, "eval.csv")
        self.log_path = os.path.join(self.run_dir, "progress.csv")
        self.next_snapshot = (self.steps // cfg.snapshot_every + 1) * cfg.snapshot_every
        self.next_eval = (self.steps // cfg.eval_every + 1) * cfg.eval_every
        self.bar = Progress("train", cfg.total_timesteps, "steps", "samples/s",
                            initial=min(self.steps, cfg.total_timesteps), enabled=self.progress,
                            interval=self.progress_interval, stream=self.progress_stream)
        self.start = time.perf_counter()
        self.done_at_start = self.steps
        self.board = _tensorboard(os.path.join(self.run_dir, "tb"))

    def _bound_threads(self) -> tuple[int, int]:
        """Set torch's threads as the config says, or hint at it; (the caller's setting, the overlapped share)."""
        import torch

        before = torch.get_num_threads()
        if self.cfg.torch_threads:
            torch.set_num_threads(self.cfg.torch_threads)
        elif self.progress and (hint := busy_machine_hint(before)):
            print(hint, file=self.progress_stream or sys.stderr, flush=True)
        return before, max(1, torch.get_num_threads() // 2)

    def _start_collectors(self, overlapped_threads: int) -> None:
        """The collectors and (``cfg.overlap_update``) the updater process; then every game dealt."""
        import torch

        self.rollout.open(self.shares)
        if self.cfg.overlap_update:
            # the learner and the updater split torch's threads: each with all of them (two and two on
            # two cores) learned 3.5 times slower than one each
            torch.set_num_threads(overlapped_threads)
            self.updater = UpdaterProcess(self.cfg, self.net_args, self.net, self.optimiser, self.rng,
                                          overlapped_threads)
        self.rollout.start(self.snapshots, self.steps)

    def new_segment(self) -> None:
        """A segment ended (``cfg.segment_every``): checkpoint, then start the next one as a run resumed from that
        checkpoint starts it: the games in progress dropped, every game dealt and seated, every generator
        seeded, from the seed and the decision count. A run stopping here (Ctrl-C during the update, the time
        limit, the budget) keeps the checkpoint and starts nothing."""
        self.checkpoint()
        if self._done():
            return
        self._seed_segment()
        for addon in self.addons:
            addon.new_segment(self)
        self.rollout.restart(self.trajectories, self.snapshots, self.steps)

    def _done(self) -> bool:
        """Whether to stop: the budget reached (counting the update in flight), Ctrl-C, or the time limit."""
        cfg = self.cfg
        in_flight = self.pending.decisions if self.pending is not None else 0
        if self.steps + in_flight >= cfg.total_timesteps or self.stop.requested:
            return True
        return bool(cfg.time_limit_minutes) and time.perf_counter() - self.began > 60 * cfg.time_limit_minutes

    # -- collect

    def collect(self) -> tuple | None:
        """``cfg.n_steps`` batched steps per collector; the decisions of the games that ended as the update's
        arrays, GAE done (``Trajectories.take``), or None when no game ended."""
        self.rollout.collect(self.act, self.cfg.n_steps, self.stop)
        return self.trajectories.take()

    def act(self, j: int, request) -> tuple:
        """Sample the actions for collector ``j``'s request: (rows the actor read, actions, log-probs, values)."""
        import torch

        rows = request.obs
        for addon in self.addons:
            rows = addon.actor_rows(j, rows, self.steps)
        with torch.inference_mode():  # every seat of the request in one forward pass of the CPU copy
            logits, values = self.acting(torch.from_numpy(rows), torch.from_numpy(request.mask))
            chosen = torch.multinomial(torch.softmax(logits, -1), 1, generator=self.samplers[j]).squeeze(-1)
            logps = torch.log_softmax(logits, -1).gather(1, chosen[:, None]).squeeze(-1)
        return rows, chosen.numpy(), logps.numpy(), values.numpy()

    # -- update

    def update(self, arrays: tuple) -> None:
        """A PPO update on the batch's arrays: here and now, or (overlapped) started in the updater process."""
        report = Update(len(arrays[2]), collected_at=self.steps)
        if self.updater is not None and self.updater.busy:  # the previous batch's update ran beside this collection
            self.after_update(self._take_update())
        # while the critic warms up (a policy file's fine-tune starts with an untrained one) the actor is held
        train_actor = self.steps >= self.cfg.critic_warmup_steps
        if self.on_batch is not None:
            self.on_batch(arrays)
        if self.updater is None:
            losses, entropy = ppo_update(self.net, self.optimiser, arrays, self.cfg, self.rng, train_actor=train_actor)
            self._publish()
            self.steps += report.decisions
            self.after_update(replace(report, losses=losses, entropy=entropy))
        else:
            with self.stop.shielded():  # a batch half sent would leave the updater reading garbage
                self.updater.submit(arrays, train_actor)
                self.pending = report

    def _take_update(self) -> Update:
        """Load the updater's new weights and count its decisions; that update's report."""
        with self.stop.shielded():  # the reply, the weights and the count are taken whole or not at all
            losses, entropy, weights = self.updater.result()
            self.net.load_state_dict(weights)
            self._publish()
            report, self.pending = replace(self.pending, losses=losses, entropy=entropy), None
            self.steps += report.decisions
        return report

    def _take_last_update(self) -> None:
        """The loop is over: log the update still in the updater, then settle it."""
        if self.updater is not None:
            if self.updater.busy:
                self.after_update(self._take_update())
            self._settle_updater()

    def _settle_updater(self) -> None:
        """Take the update still running (without its log line: the run is stopping) and the updater's
        optimiser, then stop the updater; from here the learner's own network and optimiser are current."""
        with self.stop.shielded(finishing=True):  # already stopping: a further Ctrl-C would lose the update
            if self.updater.busy:
                self._take_update()
            self.optimiser.load_state_dict(self.updater.optimiser_state())
            self.updater.close()
            self.updater = None

    # -- log, snapshot, evaluate, checkpoint

    def after_update(self, update: Update) -> None:
        """Log an update (its decisions already counted); snapshots, evaluations and checkpoints on schedule."""
        cfg = self.cfg
        if self.on_update is not None:
            self.on_update(self.steps, self.export)
        self.bar.set(min(self.steps, cfg.total_timesteps))
        self._log(update)
        if self.steps >= self.next_snapshot:
            self.next_snapshot = (self.steps // cfg.snapshot_every + 1) * cfg.snapshot_every
            self.snapshot()
        if self.steps >= self.next_eval:
            self.next_eval = (self.steps // cfg.eval_every + 1) * cfg.eval_every
            result = self.evaluate(cfg.seed + 10_000)
            run_dirs.append_eval(self.eval_path, self.steps, result)
            if self.board is not None:
                for opp, r in result.items():
                    self.board.add_scalar(f"eval/win_rate_{opp}", r["win_rate"], self.steps)
            if self.segment_end is None:  # a run in segments checkpoints at their ends only
                self.checkpoint()

    def _log(self, update: Update) -> None:
        """One line of ``progress.csv`` and the TensorBoard scalars of an update; the league's tally starts again."""
        seconds = time.perf_counter() - self.start
        games, wins = self.rollout.take_league()
        win_rate = wins / games if games else None
        losses = update.losses
        row = dict.fromkeys(PROGRESS_COLUMNS)
        row.update({"timesteps": self.steps, "seconds": f"{seconds:.1f}", "policy_loss": f"{losses[0]:.5f}",
                    "value_loss": f"{losses[1]:.5f}", "entropy": f"{update.entropy:.4f}", "league_games": games,
                    "league_win_rate": "" if win_rate is None else f"{win_rate:.4f}"})
        for addon in self.addons:
            row.update(addon.progress(update))
        run_dirs.append_progress(self.log_path, row)
        if self.board is None:
            return
        scalars = {"loss/policy": losses[0], "loss/value": losses[1], "policy/entropy": update.entropy,
                   "league/win_rate": win_rate,
                   "speed/samples_per_s": (self.steps - self.done_at_start) / max(seconds, 1e-9)}
        for addon in self.addons:
            scalars.update(addon.scalars(update))
        for tag, value in scalars.items():
            if value is not None:
                self.board.add_scalar(tag, value, self.steps)

    def snapshot(self) -> None:
        """A frozen copy of the learner joins the opponent pool (and ``snapshots/``)."""
        frozen = self.export()
        atomic.save_policy(frozen, os.path.join(self.run_dir, "snapshots", f"step_{self.steps:010d}"))
        self.snapshots.append(frozen)
        del self.snapshots[:-self.cfg.max_snapshots]
        self.rollout.send_snapshots(self.snapshots, self.cfg.seed + self.steps)

    def evaluate(self, seed: int) -> dict:
        """The deterministic policy against random and heuristic at every table size, on the deals of ``seed``."""
        agent = PolicyAgent(self.export(), deterministic=True, seed=0)
        result = {}
        for n in self.sizes:  # the home table's rows keep the plain opponent names; the others say their size
            at = Game(self.cfg.variant, n, **self.cfg.rule_options)
            for opp, r in stats.evaluate_policy(lambda i: agent, at, self.cfg.eval_games, seed).items():
                result[opp if n == self.cfg.num_players else f"{opp}@{n}p"] = r
        return result

    def export(self, evaluation: dict | None = None) -> PolicyFile:
        """The actor's weights now as a policy file (with ``evaluation`` in its metadata)."""
        return policy_file_from_linears(self.acting.exported_actor(), self.game, self.steps, evaluation,
                                        self.cfg.to_dict(), table_sizes=self.sizes)

    def checkpoint(self) -> None:
        """Save the network, the optimiser (the updater's, when overlapped) and the step count."""
        if self.updater is not None:
            with self.stop.shielded():
                self.optimiser.load_state_dict(self.updater.optimiser_state())
        native_checkpoint.save(self.net, self.optimiser, self.steps, self.ckpt_path)
        self.checkpoint_at = self.steps

    # -- finish

    def _close(self, threads_before: int) -> None:
        """Release the bar, the collectors, TensorBoard and (after an error) the updater; torch's threads back."""
        import torch

        self.bar.close()
        self.rollout.close()
        if self.board is not None:
            self.board.close()
        if self.updater is not None:  # only after an error
            self.updater.close()
        torch.set_num_threads(threads_before)

    def finish(self) -> dict:
        """A last checkpoint, the final evaluation (not after Ctrl-C: the user wants the prompt back) and the export."""
        interrupted = self.stop.requested
        seconds = time.perf_counter() - self.start
        if (self.segment_end is None or self.steps >= self.cfg.total_timesteps) and self.checkpoint_at != self.steps:
            self.checkpoint()  # (a run in segments stopped inside one resumes from the segment's start)
        evaluation = {}
        if not interrupted:
            try:
                evaluation = self.evaluate(self.cfg.seed + 20_000)
            except KeyboardInterrupt:  # Ctrl-C during the evaluation: still export what was learned
                interrupted = True
        if evaluation and self.steps > self.done_at_start:  # resuming a finished run evaluates the same games again
            run_dirs.append_eval(self.eval_path, self.steps, evaluation)
        final = PolicyAgent(self.export(evaluation), deterministic=True, seed=0)
        atomic.save_policy(final.policy, os.path.join(self.run_dir, "policy"))
        trained = self.steps - self.done_at_start
        return {"run_dir": self.run_dir, "timesteps": self.steps, "trained_timesteps": trained,
                "planned_timesteps": self.cfg.total_timesteps, "seconds": seconds,
                "samples_per_second": trained / seconds if seconds else 0.0,
                "evaluation": evaluation, "interrupted": interrupted,
                "checkpoint": self.ckpt_path if self.checkpoint_at is not None else None,
                "checkpoint_at": self.checkpoint_at}


def _checked_resume(cfg: TrainConfig, resume: str | None, run_dir: str, ckpt_path: str) -> str | None:
    """What ``--resume`` continues: this config's own run with a native checkpoint (None: a fresh run)."""
    if resume is not None and cfg.teacher and not os.path.exists(ckpt_path) \
            and os.path.isdir(os.path.join(run_dir, "teacher")):
        return None  # stopped while labelling for the teacher: labelling goes on from the saved chunks
    if resume is not None:  # a run directory, its checkpoints/ or the native.pt in it: this config's run only
        if os.path.realpath(run_dirs.run_dir_of(resume)) != os.path.realpath(run_dir):
            raise ConfigError(f"--resume {resume}: that is the run in {run_dirs.run_dir_of(resume)}, but this "
                              f"config trains {run_dir}; resume without --config (the run's own config.yaml is "
                              "used) or with the config that started it")
        if not os.path.exists(ckpt_path) and cfg.segment_every:
            raise ConfigError(f"--resume {resume}: no checkpoint at {ckpt_path}: a run in segments writes its "
                              f"first at the end of its first segment ({cfg.segment_every:,} decisions); start "
                              "it over with --fresh")
        if not os.path.exists(ckpt_path):
            raise ConfigError(f"--resume {resume}: no native PPO checkpoint at {ckpt_path} (an SB3 run keeps "
                              "step_<N>.zip checkpoints and resumes with algo: sb3)")
    if resume is None:
        run_dirs.refuse_over_run(run_dir, resume_with=run_dir)
    return resume


def _tensorboard(path: str):
    """A TensorBoard writer into ``path``, or None when the tensorboard package is not installed."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(path)
