"""The trainer plug-in contract: how a learning algorithm, built in or your own, enters the protocol (its types:
``TrainingRun``, what a trainer is given; ``Trained``, the record a run gives; the dispatch is ``train/algorithm.py``).

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

import os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from agents.policy_file import PolicyFile
from uno_env import Game, RuleSet

from train.agent_specs import load_agent
from train.config import TrainConfig
from train.counting import CountedGames, Tally
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
    validated: TrainConfig | None = field(default=None, compare=False, repr=False)
    """The config the run was made from (``train.algorithm.training_run``), already validated, writing into
    ``run_dir``: what ``as_config`` hands a built-in, so the config is validated once."""
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
        """The training config with this run's budget, seed and league, writing into ``run_dir`` (the built-ins').

        The config the run was made from, validated once when it was read (``validated``); a run changed since
        (``dataclasses.replace``) gets its config rebuilt from ``config`` and checked again."""
        cfg = self.validated
        if cfg is not None and (cfg.total_timesteps, cfg.seed, cfg.opponents) == (self.budget, self.seed, self.league) \
                and os.path.normpath(os.path.join(cfg.out_dir, cfg.name)) == os.path.normpath(self.run_dir):
            return cfg
        return TrainConfig.from_dict({**self.config, "total_timesteps": self.budget, "seed": self.seed,
                                      "opponents": dict(self.league), "out_dir": os.path.dirname(self.run_dir) or ".",
                                      "run_name": os.path.basename(self.run_dir)})

    def opponent(self, spec: str, game: Game, seed: int):
        """The agent of a league spec (anything ``uno-env eval`` plays: built-ins, policy files, module:callable)."""
        return load_agent(spec, game, seed=seed)


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
