"""The trainer plug-in contract: how a learning algorithm, built in or your own, enters the protocol.

A trainer is a Python callable ``train(run: TrainingRun) -> PolicyFile | str``. ``algo:`` in a
training config names it: a built-in (``ppo``, the native PPO; ``sb3``, SB3's MaskablePPO) or a
``module:callable`` (``mypkg.learners:train``). The callable receives the task (variant, player
counts, rule options), the decision budget, the seed, the league of opponents, its own settings
(the config's ``settings:`` mapping) and a reporting hook; it returns the trained policy, as a
``agents.policy_file.PolicyFile`` or the path of one it saved. The sample-budget protocol
(``uno-env benchmark --train``), ``uno-env exploit`` and ``uno-env train`` (``--resume`` and ``--ray`` included)
run every algorithm, the built-ins and plug-ins alike, through ``train_algorithm``, which returns one record
(``Trained``); a trainer may add to the end-of-run summary ``uno-env train`` prints (``run.summary``).

The counting rule, the same for every algorithm: **a decision counts against the budget when the
learner made it in a game it trains on** (every seat the learner holds, out-of-turn decisions such as
challenges and jump-ins included; opponents' decisions and evaluation games do not count). A trainer
stops learning at the budget, give or take its last batch, and says how many decisions it has
learned from each time it calls the hook.

The reporting hook: ``run.report(decisions, export)`` with the count so far and a function returning
the policy the trainer would return if it stopped there. Call it after every pass of the training
loop, updated or not (where the loop checks the budget): the protocol saves the policy at each of its
budget and curve points the first time the count reaches one, so a policy saved at 1M decisions of a
10M run is what a 1M run returns, as that run stops after the same pass (unless learning depends on the
budget, as the DQN's exploration schedule does). ``export`` is only called when a point is due. Call it
a last time at the end. ``run_algorithm`` refuses a trainer that returns without having reported.

The count checked: a trainer gets its games from the run, ``run.games(num_games, learner_seats=...)``
(``train/counting.py``: ``VectorGames`` that count the learner's decisions as they are stepped). After
every report and once the trainer returns, ``run_algorithm`` compares what it reported with its games'
count and refuses, in one line, a run that trained past its budget or reported other than its games
counted, beyond one batch. A trainer that stepped no games of its run is not checked (``Trained.counted``
is None, and the protocol's results say so). Seeds: ``run.seed``, and ``run.generator(*streams)`` for
numpy; the same seed must give the same policy file, bit for bit (``check_same_seed``).

Which callable ``algo`` names, and whether it resumes, is the registry's answer (``train/registry.py``):
built-in or plug-in, every algorithm is an ``Algorithm`` record there.

Resuming: a trainer whose callable has ``resumable = True`` writes checkpoints into ``run_dir`` and,
given ``run.resume``, continues the interrupted run from the last one, learning what the
uninterrupted run learns (the built-in DQN, NFSP and DMC: ``train/resumable.py``). The protocol then
keeps an interrupted seed's directory and resumes it; other trainers' interrupted seeds start over.
"""
from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from agents.policy_file import PolicyFile
from uno_env import Game, RuleSet

from train import registry, resumable
from train.agent_specs import load_agent
from train.config import ConfigError, TrainConfig
from train.counting import CountedGames, Tally, audit
from train.progress import DEFAULT_INTERVAL

Report = Callable[[int, Callable[[], PolicyFile]], None]
"""``report(decisions, export)``: the decisions learned from so far, and a function returning the current policy."""


@dataclass(frozen=True)
class TrainingRun:
    """Everything a trainer is given: the task, the budget, the seed, the league, its settings, the hook."""

    variant: str
    """Rule preset (``uno_env.VARIANTS``)."""
    num_players: int
    """The home table: the player count the policy is exported and evaluated for."""
    rule_options: dict
    """Rule options of every game (``docs/rule-options.md``)."""
    table_sizes: tuple[int, ...]
    """Every player count to train at (the home table alone unless the config says more)."""
    budget: int
    """Learner decisions to train on (the counting rule above)."""
    seed: int
    """The run's seed: the same seed must give the same policy."""
    league: dict[str, float]
    """Opponent agent specs and their sampling weights; ``self`` means frozen copies of the learner."""
    run_dir: str
    """A directory of the run's own, for whatever the trainer writes (checkpoints, logs)."""
    settings: dict = field(default_factory=dict)
    """The algorithm's own hyperparameters (the config's ``settings:`` mapping, unchecked here)."""
    config: dict = field(default_factory=dict)
    """The whole training config as a mapping (the built-in trainers read their hyperparameters there)."""
    report: Report = lambda decisions, export: None
    """The reporting hook (see the module docstring)."""
    progress: bool = False
    """Whether the trainer may print progress."""
    resume: bool = False
    """Continue the interrupted run whose checkpoint ``run_dir`` holds, if any (a trainer whose callable has
    ``resumable = True`` writes such checkpoints; the protocol then keeps an interrupted seed's directory)."""
    resume_from: str | None = None
    """What ``uno-env train --resume`` named, when resuming: ``run_dir``, its ``checkpoints/`` or one checkpoint
    file in it (SB3's ``step_<N>.zip``), for a trainer that keeps several; None: ``run_dir``'s latest."""
    progress_interval: float = DEFAULT_INTERVAL
    """Seconds between progress lines when the output is not a terminal (``--progress-interval``)."""
    ray_address: str | None = None
    """The Ray cluster to run on (``uno-env train --ray``; only for an algorithm the registry runs on Ray)."""
    summary: dict = field(default_factory=dict, compare=False, repr=False)
    """What the trainer adds to the end-of-run summary ``uno-env train`` prints (optional): ``evaluation``
    (its final evaluation; else the command evaluates the policy), ``checkpoint`` (the file ``--resume`` reads),
    ``timesteps``, ``trained_timesteps``, ``planned_timesteps``, ``seconds``."""
    tally: Tally = field(default_factory=Tally, compare=False, repr=False)
    """The learner decisions its games counted (``games``; a trainer's worker processes send theirs here)."""

    def games(self, num_games: int, learner_seats=None, num_players: int | None = None, **options) -> CountedGames:
        """``num_games`` batched games at the run's rules (``num_players`` seats: the home table by default) whose
        learner decisions count against the budget: ``learner_seats``, the seats the learner holds in every
        game, or None to set ``games.learner[i]`` (a bool per seat) as each game is seated. ``options``:
        ``VectorGames``'s (``cut_at``, ``backend``, ``threads``)."""
        games = CountedGames(num_games, rules=self.rules(num_players), learner_seats=learner_seats, **options)
        self.tally.watch(games)
        return games

    def generator(self, *streams: int) -> np.random.Generator:
        """A numpy Generator seeded by the run's seed (``streams``: more numbers for independent streams)."""
        return np.random.default_rng([self.seed, *streams])

    def rules(self, num_players: int | None = None) -> RuleSet:
        """The rules at ``num_players`` seats (the home table by default)."""
        return RuleSet.create(self.variant, num_players or self.num_players, **self.rule_options)

    def game(self, num_players: int | None = None) -> Game:
        """A ``Game`` at ``num_players`` seats (the home table by default)."""
        return Game(self.rules(num_players))

    def as_config(self) -> TrainConfig:
        """The training config with this run's budget, seed and league, writing into ``run_dir`` (the built-ins')."""
        return TrainConfig.from_dict({**self.config, "total_timesteps": self.budget, "seed": self.seed,
                                      "opponents": dict(self.league), "out_dir": os.path.dirname(self.run_dir) or ".",
                                      "run_name": os.path.basename(self.run_dir)})

    def opponent(self, spec: str, game: Game, seed: int):
        """The agent of a league spec (anything ``uno-env eval`` plays: built-ins, policy files, module:callable)."""
        return load_agent(spec, game, seed=seed)


def resolve_trainer(algo: str) -> Callable[[TrainingRun], PolicyFile | str]:
    """The trainer callable ``algo`` names: a built-in name or a ``module:callable`` (``registry.lookup``)."""
    return registry.lookup(algo).load()


def training_run(cfg: TrainConfig, run_dir: str, report: Report | None = None, progress: bool = False,
                 resume: bool = False, **options) -> TrainingRun:
    """The ``TrainingRun`` a training config describes (its budget is ``total_timesteps``); ``options``: the
    run's other fields (``resume_from``, ``progress_interval``, ``ray_address``)."""
    return TrainingRun(variant=cfg.variant, num_players=cfg.num_players, rule_options=dict(cfg.rule_options),
                       table_sizes=tuple(cfg.player_counts), budget=cfg.total_timesteps, seed=cfg.seed,
                       league=dict(cfg.opponents), run_dir=run_dir, settings=dict(cfg.settings),
                       config=cfg.to_dict(), report=report or (lambda decisions, export: None), progress=progress,
                       resume=resume, **options)


def is_resumable(algo: str) -> bool:
    """Whether ``algo``'s trainer resumes an interrupted run from its own checkpoint (the registry's ``resumable``)."""
    return registry.lookup(algo).resumable


@dataclass(frozen=True)
class Trained:
    """What a run through the contract gave, for every algorithm alike: its policy, its last report, its games'
    count, its time, and what its trainer added to the summary (``TrainingRun.summary``)."""

    path: str | None
    """The policy file (without extension); None in an ``Interrupted``'s record, the trainer saved none."""
    reported: int
    """The decisions of its last report."""
    counted: tuple[int, int] | None
    """Its games' count of learner decisions, ``(taken, finished)`` (``train/counting.py``), or None: it stepped
    no games of its run, so nothing checked its reports."""
    seconds: float = 0.0
    """Wall-clock seconds the trainer ran (this sitting)."""
    summary: dict = field(default_factory=dict, compare=False)
    """What the trainer added to the end-of-run summary (``TrainingRun.summary``)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run through the contract; ``trained``: its record so far (``path``: the policy the trainer
    saved on its way out, if any). A ``KeyboardInterrupt``: a caller that only stops still does."""

    def __init__(self, trained: Trained):
        super().__init__()
        self.trained = trained


def run_algorithm(cfg: TrainConfig, run_dir: str, report: Report | None = None, progress: bool = False,
                  resume: bool = False, **options) -> str:
    """Train ``cfg.algo`` through the contract; the path (without extension) of the policy it returned."""
    return train_algorithm(cfg, run_dir, report, progress, resume, **options).path


def train_algorithm(cfg: TrainConfig, run_dir: str, report: Report | None = None, progress: bool = False,
                    resume: bool = False, **options) -> Trained:
    """Train ``cfg.algo`` through the contract, its reports checked against its games' count (``Trained``).

    ``options``: the run's ``resume_from``, ``progress_interval`` and ``ray_address`` (``TrainingRun``)."""
    algorithm = registry.lookup(cfg.algo)
    if options.get("ray_address") is not None and not algorithm.ray:
        raise ConfigError(f"algo {cfg.algo!r} does not run on Ray (the algorithms that do: "
                          f"{', '.join(registry.on_ray())})")
    trainer = algorithm.load()
    made = _make_dirs(run_dir)
    reports: list[tuple[int, int, int]] = []
    tally = Tally()
    if resume and algorithm.resumable and resumable.exists(run_dir):
        # the checkpoint's count: what the sittings before this one trained (a trainer with checkpoints of its
        # own, the PPO paths, sets the base itself from the step its checkpoint resumes at)
        start = resumable.checkpoint_decisions(run_dir)
        if start is not None:
            tally.base = (start, start)

    def counted(decisions: int, export: Callable[[], PolicyFile]) -> None:
        reports.append((int(decisions), *tally.counts()))
        # checked before the hook saves anything: a point is never saved from a run that misreports
        problem = audit(cfg.algo, cfg.total_timesteps, reports, tally.base[0]) if tally.used else None
        if problem:
            raise ConfigError(problem)
        if report is not None:
            report(decisions, export)

    run = replace(training_run(cfg, run_dir, counted, progress, resume, **options), tally=tally)
    began = time.perf_counter()
    try:
        result = trainer(run)
    except Exception:
        for folder in made:  # a trainer refused before writing anything (torch missing, a bad --resume) leaves none
            with contextlib.suppress(OSError):
                os.rmdir(folder)  # only an empty one
        raise
    except KeyboardInterrupt:
        saved = os.path.join(run_dir, "policy")
        raise Interrupted(Trained(saved if os.path.exists(saved + ".json") else None,
                                  reports[-1][0] if reports else 0, tally.counts() if tally.used else None,
                                  time.perf_counter() - began, dict(run.summary))) from None
    seconds = time.perf_counter() - began
    path = None
    if isinstance(result, (str, os.PathLike)):
        from agents.policy_file import strip_extension

        path = strip_extension(os.fspath(result))
        if not os.path.exists(path + ".json"):
            raise ConfigError(f"algo {cfg.algo!r} returned {result!r}, which is not a saved policy file")
    elif not isinstance(result, PolicyFile):
        raise ConfigError(f"algo {cfg.algo!r} returned {type(result).__name__}; a trainer returns a PolicyFile or "
                          "the path of a saved one")
    if not reports:  # nothing says how far it trained, and the protocol has saved none of its points
        raise ConfigError(f"algo {cfg.algo!r} returned without reporting any policy: a trainer calls "
                          "run.report(decisions, export) after every pass of its loop and once at the end "
                          "(docs/plug-ins.md)")
    end = tally.counts()
    problem = audit(cfg.algo, cfg.total_timesteps, reports, tally.base[0], end) if tally.used else None
    if problem:
        raise ConfigError(problem)
    if path is None:
        from train import atomic

        path = os.path.join(run_dir, "policy")
        atomic.save_policy(result, path)
    return Trained(path, reports[-1][0], end if tally.used else None, seconds, dict(run.summary))


def _make_dirs(run_dir: str) -> list[str]:
    """Make ``run_dir`` and the folders above it that are missing; those it made, deepest first."""
    made, folder = [], os.path.abspath(run_dir)
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        made.append(folder)
        folder = os.path.dirname(folder)
    os.makedirs(run_dir, exist_ok=True)
    return made


def check_same_seed(cfg: TrainConfig, folder: str) -> Trained:
    """Train ``cfg`` twice, same seed, into ``folder``/``a`` and ``folder``/``b``; the first run, if both give the
    same policy file (every array bit for bit, the same metadata but for the run's own paths), else a ConfigError
    naming what differs: the check that a trainer draws everything random from its run's seed."""
    runs = []
    for name in ("a", "b"):
        config = TrainConfig.from_dict({**cfg.to_dict(), "out_dir": folder, "run_name": name})
        runs.append(train_algorithm(config, os.path.join(folder, name)))
    first, second = (PolicyFile.read(t.path) for t in runs)
    arrays = [(f"array {i}", x, y) for i, (x, y) in enumerate(zip(first.weights, second.weights))]
    if first.action_features is not None:
        arrays.append(("the action-feature table", first.action_features, second.action_features))
    differ = [what for what, x, y in arrays if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes()]
    if len(first.weights) != len(second.weights):
        differ.insert(0, f"the number of arrays ({len(first.weights)} and {len(second.weights)})")
    meta = [{k: v for k, v in p.metadata.items() if k != "config"} for p in (first, second)]  # config: the run's paths
    differ += [f"metadata {k!r}" for k in sorted(set(meta[0]) | set(meta[1])) if meta[0].get(k) != meta[1].get(k)]
    if differ:
        raise ConfigError(f"algo {cfg.algo!r}: two runs with seed {cfg.seed} gave different policies "
                          f"({', '.join(differ)} differ): a trainer draws everything random from run.seed or "
                          "run.generator(), so that the same seed gives the same policy (docs/plug-ins.md)")
    return runs[0]
