"""Training configs: one model for every trainer, each field's type and bounds declared beside it.

``RunConfig`` holds what every run has (the game, the seed, the evaluation, where the run is written); the
parts add an algorithm's own settings: ``PpoSettings`` (PPO's loss and network, shared with RLlib),
``PpoLossSettings`` (the value-loss weight and gradient clip of the two PPO paths of ``uno-env train``),
``RolloutSettings``, ``Sb3Settings``, ``NativePpoSettings``, ``DqnSettings``, ``NfspSettings`` and
``DmcSettings``. ``TrainConfig`` is the self-play run of ``uno-env train`` over the parts of its algorithms;
``train.rllib.trainer.RllibConfig`` is the RLlib run. Fields are ``setting``\\ s read and checked by
``train.config_model.ConfigModel``: an unknown key, a wrong type or a value out of bounds is a
``ConfigError`` naming the key, the value given and what is allowed.

Adding an algorithm to ``uno-env train``: a dataclass of its settings (and its ``CHECKS``), one more base
of ``TrainConfig``, and its record in ``train/registry.py``, which names the part. ``algo: <name>`` is then
allowed, and those of its settings declared ``exclusive`` are refused, away from their defaults, under an
``algo`` that does not read its part (the registry says which do).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from uno_env.errors import short_repr

from train.config_model import NO_BOUNDS, ConfigError, ConfigModel, declaring_part, default_value, setting

#: Hidden layers of ``net_arch`` and player counts of ``table_sizes`` at most; ``MAX_WIDTH`` units per layer.
MAX_LAYERS = 16
MAX_WIDTH = 65_536
#: Seeds are 0..MAX_SEED: numpy's legacy seeding (SB3) takes 0..2**32 - 1 and the runs add offsets.
MAX_SEED = 2**31 - 1
#: the shortest segment of a native PPO run in segments (``segment_every``)
MIN_SEGMENT = 1_000
#: A run name is one folder name inside ``out_dir``: a letter, digit or ``_`` first (so never ``.``, ``..``,
#: hidden or read as a command-line option), then those and ``. - + = @ ,``: no path separator, drive or space.
RUN_NAME = re.compile(r"\w[\w.+=@,-]*")
#: Bytes of a run name at most (UTF-8; file systems take 255 per name).
MAX_RUN_NAME_BYTES = 200
RUN_NAME_ALLOWED = (f"one folder name inside out_dir: letters, digits and _ . - + = @ , starting with a letter, digit "
                    f"or _, at most {MAX_RUN_NAME_BYTES} bytes (no / or \\, not . or .., not an absolute path)")
"""What a run name may be, as error messages say it."""


def run_name_problem(name) -> str | None:
    """Why ``name`` cannot name a run directory (it would leave ``out_dir``, or is no sane folder name); else None."""
    if not isinstance(name, str) or RUN_NAME.fullmatch(name) is None or len(name.encode("utf-8", "replace")) > \
            MAX_RUN_NAME_BYTES:
        return f"{short_repr(name)} must be {RUN_NAME_ALLOWED}"
    return None


@dataclass
class RunConfig(ConfigModel):
    """What every run has, whatever trains it: the game, the seed, the final evaluation and where it is written."""

    CHECKS = ("check_rules", "check_run_name")
    RUN_PREFIX = ""  # starts the run directory's default name

    variant: str = setting("classic")
    """Rule preset the agent learns (``uno_env.VARIANTS``)."""
    num_players: int = setting(2)
    """Seats at the table (the learner holds one, chosen at random per episode; RLlib: all play the shared policy)."""
    rule_options: dict = setting({})
    """Rule options of the game (``docs/rule-options.md``)."""
    seed: int = setting(0, low=0, high=MAX_SEED)
    """Seeds the environments, the network initialisation, the opponent sampling and evaluation."""
    eval_games: int = setting(200, low=1, most=1_000_000)
    """Seat-rotated games per evaluation opponent."""
    out_dir: str = setting("runs")
    """Where runs are written (``<out_dir>/<run_name>``)."""
    run_name: str = setting("")
    """Name of the run directory, one folder inside ``out_dir`` (``RUN_NAME_ALLOWED``); empty:
    ``<variant>-<num_players>p-seed<seed>`` (RLlib: with ``rllib-`` before it)."""

    def check_rules(self) -> None:
        """The rule set exists: the variant, its player count and its options (a RuleError names what is wrong)."""
        from uno_env import RuleSet

        RuleSet.create(self.variant, self.num_players, self.rule_options)

    def check_run_name(self) -> None:
        """``run_name`` is empty or one folder name: the run is written inside ``out_dir``, never elsewhere."""
        problem = run_name_problem(self.run_name) if self.run_name else None
        if problem:
            raise ConfigError(f"{self.LABEL} 'run_name' = {problem}; empty: <variant>-<num_players>p-seed<seed>")

    @property
    def name(self) -> str:
        """Run directory name (checked again here: a config built without ``from_dict`` is not validated)."""
        self.check_run_name()
        return self.run_name or f"{self.RUN_PREFIX}{self.variant}-{self.num_players}p-seed{self.seed}"


@dataclass
class SelfPlayConfig(RunConfig):
    """A self-play run of ``uno-env train``: which algorithm learns, for how long, against which opponents."""

    CHECKS = ("check_algo", "check_algorithm_settings", "check_opponents")

    algo: str = setting("sb3")
    """Trainer: ``sb3`` (MaskablePPO on the Gymnasium env, the reference), ``ppo`` (native, batched games),
    ``dqn``, ``nfsp``, ``dmc`` (the value-based learners, ``train/dqn/`` ...), or your own as
    ``module:callable`` (the plug-in contract, ``train/algorithm.py``)."""
    settings: dict = setting({})
    """A ``module:callable`` algorithm's own hyperparameters, handed to it as they are (``TrainingRun.settings``)."""
    total_timesteps: int = setting(150_000, low=1)
    """Learner decisions to train on."""
    opponents: dict[str, float] = setting({"random": 0.3, "greedy": 0.2, "heuristic": 0.3, "self": 0.2})
    """Opponent pool sampling weights per episode: built-in agent specs, and ``self`` for frozen snapshots of the learner."""
    snapshot_every: int = setting(40_000, low=1)
    """Timesteps between frozen snapshots added to the pool."""
    max_snapshots: int = setting(5, low=1, most=10_000)
    """Snapshots kept in the pool (oldest dropped)."""
    eval_every: int = setting(50_000, low=1)
    """Timesteps between evaluations against random and heuristic."""
    time_limit_minutes: float = setting(0.0, low=0, note="0: no limit")
    """Stop learning after this wall-clock time (0: no limit); the policy is still exported and evaluated."""

    @classmethod
    def algorithms(cls) -> list[str]:
        """The names ``algo`` may take: the registry's algorithms whose settings are parts of this config."""
        from train import registry

        return cls._default_first([a.name for a in registry.BUILTIN.values() if a.settings in cls.__mro__])

    @classmethod
    def _default_first(cls, names: list[str]) -> list[str]:
        """``names`` in the registry's order, this config's default ``algo`` first (as messages list them)."""
        default = default_value(next(f for f in dataclasses.fields(cls) if f.name == "algo"))
        return sorted(names, key=lambda name: name != default)

    def check_algo(self) -> None:
        """``algo`` names one of the algorithms whose parts this config has, or a ``module:callable``."""
        from train.agent_specs import CALLABLE_SPEC

        plug_in = self.algo not in self.algorithms() and CALLABLE_SPEC.match(self.algo) is not None
        if self.algo not in self.algorithms() and not plug_in:
            raise ConfigError(f"{self.LABEL} 'algo' = {short_repr(self.algo)} is not allowed; "
                              f"allowed: {', '.join(self.algorithms())}, or module:callable (your own trainer)")
        if self.settings and not plug_in:
            raise ConfigError(f"{self.LABEL} 'settings' is for a module:callable algo; {self.algo} takes its "
                              "hyperparameters as keys of the config")

    def check_algorithm_settings(self) -> None:
        """An algorithm's ``exclusive`` settings keep their defaults under an ``algo`` that does not read them."""
        from train import registry

        allowed = self.algorithms()
        for f in dataclasses.fields(self):
            why = f.metadata.get("bounds", NO_BOUNDS).exclusive
            if not why:
                continue
            users = [a for a in self._default_first(registry.users(declaring_part(type(self), f.name)))
                     if a in allowed]
            if users and self.algo not in users and getattr(self, f.name) != default_value(f):
                reason = f" ({why})" if isinstance(why, str) else ""
                raise ConfigError(f"{self.LABEL} {f.name!r} needs algo: {' or '.join(users)}{reason}")

    def check_opponents(self) -> None:
        """Each opponent is an agent spec ``uno-env eval`` plays, or ``self``; weights >= 0, one besides ``self`` above 0."""
        allowed = ("random, greedy, heuristic, ismcts[:options], pretrained:<name>, a policy file, "
                   "module:callable, or self")
        for key in self.opponents:
            if key != "self":
                _check_agent_spec(key, self, "opponents")
        if not self.opponents or any(w < 0 for w in self.opponents.values()):
            raise ConfigError(f"opponents must map agent specs ({allowed}) to weights >= 0, "
                              f"got {short_repr(self.opponents)}")
        if sum(w for k, w in self.opponents.items() if k != "self") <= 0:
            raise ConfigError("opponents need a positive weight on at least one agent besides self")


@dataclass
class PpoSettings:
    """PPO's loss and network: the part every PPO trainer shares (SB3, the native PPO, RLlib)."""

    learning_rate: float = setting(3e-4, above=0, high=1)
    """Adam step size."""
    gamma: float = setting(0.995, above=0, high=1)
    """Discount factor (a game is ~30-100 learner decisions and pays only at the end). Below 1, a later
    loss costs less than an early one, which teaches a learner facing strong opponents to stall by
    drawing; the native configs use 1.0 (games end anyway: ``max_steps``, ``truncation_reward``)."""
    gae_lambda: float = setting(0.95, above=0, high=1)
    """GAE smoothing."""
    clip_range: float = setting(0.2, above=0, high=10)
    """PPO clipping."""
    ent_coef: float = setting(0.01, low=0, high=10)
    """Entropy bonus."""
    net_arch: list[int] = setting([256, 256], low=1, high=MAX_WIDTH, length=(1, MAX_LAYERS))
    """Hidden layer sizes of the policy and value networks (tanh)."""


@dataclass
class PpoLossSettings:
    """The value-loss weight and gradient clip of ``uno-env train``'s PPO: ``algo: sb3`` and ``algo: ppo``.

    Not a part of ``RllibConfig``: RLlib's PPO weighs its value loss 1.0 (``vf_loss_coeff``) and does
    not clip gradients (``grad_clip``), and its runs keep those. The defaults are what both paths
    always used (SB3's own defaults, and the native PPO's former constants).
    """

    vf_coef: float = setting(0.5, low=0, high=100, exclusive="only the PPO paths have a value loss")
    """(sb3, ppo) Weight of the value loss in the loss PPO minimises (SB3's ``vf_coef``). The native
    PPO's value loss is half the mean squared error, SB3's the whole of it, so the same weight counts
    half as much there. During ``critic_warmup_steps`` the native PPO minimises the weighted value
    loss alone."""
    ppo_max_grad_norm: float = setting(0.5, above=0, exclusive="DQN and NFSP clip to max_grad_norm")
    """(sb3, ppo) The norm the gradient of all the network's weights is clipped to before each Adam step
    (SB3's ``max_grad_norm``; DQN and NFSP have their own, ``max_grad_norm``). The native PPO's teacher
    distillation clips to it too."""


@dataclass
class RolloutSettings:
    """How PPO batches its experience in ``uno-env train`` (both of its algorithms count them so)."""

    n_steps: int = setting(256, low=1, most=100_000)
    """Decisions collected per environment (sb3) or batched steps over all games (ppo) between updates."""
    batch_size: int = setting(256, low=1, most=10_000_000)
    """Minibatch size of a PPO update."""
    n_epochs: int = setting(4, low=1, most=10_000)
    """Passes over each rollout."""


@dataclass
class Sb3Settings:
    """``algo: sb3``: MaskablePPO from sb3-contrib on the Gymnasium env (``train/sb3/trainer.py``)."""

    n_envs: int = setting(8, low=1, most=256)
    """(sb3) Parallel environments (SubprocVecEnv over both cores; more envs batch the policy's forward pass)."""


@dataclass
class NativePpoSettings:
    """``algo: ppo``: the native PPO over batched games (``train/ppo/trainer.py``)."""

    CHECKS = ("check_table_sizes", "check_games_per_collector", "check_teacher", "check_hidden_card_features",
              "check_segments")

    num_games: int = setting(128, low=1, most=100_000)
    """(ppo) Games stepped together; one forward pass answers every learner seat deciding in them. 128
    to 256 cost least per learning sample on a 2-core machine (``uno-env bench parts``, docs/speed.md)."""
    table_sizes: list[int] = setting([], length=(0, MAX_LAYERS), exclusive="the other algorithms train at num_players alone")
    """(ppo) Player counts trained at together, e.g. ``[2, 4]`` (the games split evenly; one policy plays
    them all); empty: ``num_players`` alone. ``num_players`` is the policy's home table (its plain eval rows)."""
    collector_workers: int = setting(0, low=0, high=64)
    """(ppo) Worker processes stepping the games and playing the opponents' moves while the learner
    answers the others (0: everything in the learner's process). One per spare core; see docs/training.md,
    "Collector processes"."""
    overlap_update: bool = setting(False, exclusive="only the native PPO has an updater process")
    """(ppo) Run each PPO update in a second process (``train/ppo/updater.py``) while the next batch is
    collected with the weights from before it, so the games and the update use two cores at once. The
    price is one update of policy lag; the same seed still gives the same run (a fixed schedule)."""
    segment_every: int = setting(0, low=0, note="0: one segment; --resume continues from the last checkpoint",
                                 exclusive="only the native PPO reads it (the value learners: checkpoint_every)")
    """(ppo) Learner decisions per segment, so an interrupted run resumes exactly: at the first update at
    or past each segment's end the learner writes its checkpoint and starts its games afresh, dealt,
    seated and sampled from the seed and the decision count, as a run resumed from that checkpoint
    starts them; the same seed then gives the same policy whether or not the run was interrupted (on
    the same machine and torch threads). Only segment ends are checkpointed (an interruption inside a
    segment resumes from its start); not with ``overlap_update``. 0: one segment, checkpoints at every
    ``eval_every``, and a resumed run learns from newly dealt games (close to, not the same as, the
    uninterrupted run)."""
    update_bfloat16: bool = setting(False, exclusive="only the native PPO's update has it")
    """(ppo) Compute the PPO update's forward pass and loss under bfloat16 autocast (the matrix products in
    bfloat16, 8-bit mantissas); off: float32. Measured by ``uno-env bench train`` (docs/speed.md); its
    effect on learning is not measured, so it is off by default."""
    update_compile: bool = setting(False, exclusive="only the native PPO's update has it")
    """(ppo) Run the PPO loss through ``torch.compile`` (compiled once per process at the first update,
    which takes minutes and needs a C++ compiler). Measured by ``uno-env bench train`` (docs/speed.md)."""
    torch_threads: int = setting(0, low=0, high=256, note="0: torch's default, one per core")
    """(ppo) Threads torch may use in the learner's process for the forward passes and the update (0:
    torch's default, one per core). Set 1 when the cores are shared: two runs side by side on two cores,
    each with two threads, learned about 6 times slower than with one each. With ``overlap_update`` the
    learner and the updater each get half of them (at least 1)."""
    device: str = setting("cpu", exclusive="the other algorithms train on the CPU")
    """(ppo) Where the learner's network and its PPO update run: ``cpu``, ``cuda`` (refused when torch sees
    no CUDA device) or ``auto`` (``cuda`` when there is one, else ``cpu``). The games, the opponents and
    the acting forward passes stay on the CPU; the weights are copied back after every update."""
    ray_collectors: int = setting(2, low=1, high=1024)
    """(ppo) Collectors run as Ray actors when training with ``--ray`` (one CPU of the cluster each; the
    games split over them as over ``collector_workers`` without Ray); ignored without ``--ray``."""
    truncation_reward: float = setting(-1.0)
    """(ppo) What every seat of a game cut at the engine's ``max_steps`` learns as its reward. A voluntary
    draw is always legal, so a learner losing to strong opponents could prefer stalling (0) to losing
    (-1); -1 makes a stalled game a loss for all."""
    self_play_games: float = setting(0.5, low=0, high=1)
    """(ppo) Share of new games in which every seat is the learner; in the others one seat is, and the
    rest are drawn from ``opponents``."""
    teacher: str = setting("", exclusive="only the native PPO has a distillation phase")
    """(ppo) A search agent spec (``ismcts[:options]``) to distil before PPO starts: the network first
    learns its move preferences in ``teacher_games`` labelled games (``train/ppo/distill.py``); empty: none."""
    teacher_games: int = setting(2000, low=1, most=10_000_000)
    """(ppo) Games the teacher plays (against the ``opponents``) to label its decisions."""
    teacher_behaviour: str = setting("", exclusive="only the native PPO has a distillation phase")
    """(ppo) Who moves in the teacher's seat while the teacher labels: empty, the teacher's own searched
    move; an agent spec (a policy file, ``pretrained:<name>``, ...), that agent's move, the teacher still
    searching and labelling every decision, so the labels cover the positions the student reaches
    (DAgger). The value target is then the result of the student's game."""
    teacher_epochs: int = setting(20, low=1, most=100_000)
    """(ppo) Passes of the supervised fit over the labelled decisions."""
    teacher_learning_rate: float = setting(1e-3, above=0, high=1)
    """(ppo) Adam step size of the supervised fit."""
    teacher_workers: int = setting(0, low=0, high=64, note="0: one per core")
    """(ppo) Worker processes labelling games (0: one per core); the labels do not depend on it."""
    init_from: str = setting("", exclusive="it starts from a native PPO run's network or a policy of "
                                           "logits")
    """(ppo) What this run starts from, to fine-tune it under other settings (the optimiser and the
    step count start afresh): a native PPO run directory (or its ``checkpoints/native.pt``), whose
    actor and critic are loaded; or an exported policy file (``<name>.npz``/``.json`` or
    ``pretrained:<name>``), whose weights become the actor while the critic starts untrained (see
    ``critic_warmup_steps``). Empty: a random initialisation (or the ``teacher``'s fit)."""
    privileged_critic: bool = setting(False, exclusive=True)
    """(ppo) The critic also sees every other seat's hand and the next cards of the draw pile
    (``train/collect/privileged.py``): an asymmetric actor-critic, a less noisy baseline for the policy
    gradient. The actor, the only part exported and played, still sees the seat's observation alone."""
    hand_prediction_coef: float = setting(0.0, low=0, note="0 turns the auxiliary loss off", exclusive=True)
    """(ppo) Weight of an auxiliary loss (0: off): a linear head on the actor's last hidden layer
    predicts every other seat's cards per kind (the squared error summed over a decision's block), so
    that the layers the policy reads learn what the public history says of the hidden hands. The head
    is used in training only and not exported; the policy file is the same kind as without it."""
    oracle_guiding_steps: list[int] = setting([], exclusive=True)
    """(ppo) ``[full_until, gone_at]`` (empty: off): oracle guiding, as in Suphx. The actor also reads
    the hidden-card block (``train/collect/privileged.py``) until ``full_until`` decisions of the run; from
    there each of its floats is kept with a probability that falls linearly to 0 at ``gone_at`` and
    stays 0. The exported policy drops those inputs: from ``gone_at`` on it plays exactly as trained."""
    critic_warmup_steps: int = setting(0, low=0, exclusive=True)
    """(ppo) Decisions at the start of a run during which only the critic learns and the actor is held,
    so that an untrained critic's advantages do not move a good actor (``init_from`` a policy file)."""

    def check_table_sizes(self) -> None:
        """Every table size is a player count of the rule set, and ``num_players`` is one of them."""
        from uno_env import RuleSet

        for n in self.table_sizes:
            RuleSet.create(self.variant, n, self.rule_options)  # names the allowed player counts if not
        if self.table_sizes and self.num_players not in self.table_sizes:
            raise ConfigError(f"table_sizes {short_repr(self.table_sizes)} must include num_players = "
                              f"{short_repr(self.num_players)}")

    def check_games_per_collector(self) -> None:
        """Each collector steps at least one game of each table size."""
        if self.num_games < max(self.collector_workers, 1) * len(self.player_counts):
            raise ConfigError(f"num_games = {short_repr(self.num_games)} is fewer than one game per table size "
                              f"per collector")

    def check_segments(self) -> None:
        """Segments long enough to be worth their checkpoint and dropped games, with the update inside the loop
        (an overlapped update would straddle a segment's end)."""
        if 0 < self.segment_every < MIN_SEGMENT:
            raise ConfigError(f"{self.LABEL} 'segment_every' must be 0 (no segments) or at least {MIN_SEGMENT:,} "
                              f"decisions (each segment's end writes a checkpoint and drops the games in "
                              f"progress); got {self.segment_every:,}")
        if self.segment_every and self.overlap_update:
            raise ConfigError(f"{self.LABEL} 'segment_every' and 'overlap_update' cannot both be set: an overlapped "
                              "update runs while the next batch is collected, across the segment's end; set "
                              "overlap_update: false, or segment_every: 0")

    def check_teacher(self) -> None:
        """The teacher is a search agent spec with valid options, and not given together with ``init_from``."""
        if not self.teacher:
            if self.teacher_behaviour:
                raise ConfigError(f"{self.LABEL} 'teacher_behaviour' needs a 'teacher' to label its moves; set "
                                  "teacher: ismcts[:options], or remove teacher_behaviour")
            return
        if not _is_search_spec(self.teacher):
            raise ConfigError(f"{self.LABEL} 'teacher' = {short_repr(self.teacher)} is not a search agent spec; "
                              "allowed: ismcts or ismcts:key=value,...")
        _check_search_options(self.teacher, "teacher")
        if self.teacher_behaviour:
            _check_agent_spec(self.teacher_behaviour, self, "teacher_behaviour")
        if self.init_from:
            raise ConfigError(f"{self.LABEL} 'init_from' and 'teacher' both choose the starting network; "
                              "set one of them")

    def check_hidden_card_features(self) -> None:
        """``oracle_guiding_steps`` is ``[full_until, gone_at]``; no hidden-card feature goes with a ``teacher``."""
        steps = self.oracle_guiding_steps
        if steps and (len(steps) != 2 or not 0 <= steps[0] <= steps[1] or steps[1] < 1):
            raise ConfigError(f"{self.LABEL} 'oracle_guiding_steps' = {short_repr(steps)} must be "
                              "[full_until, gone_at]: two decision counts with 0 <= full_until <= gone_at and "
                              "gone_at >= 1 (empty: off)")
        for key, fitted in (("privileged_critic", "the critic"), ("hand_prediction_coef", "the network"),
                            ("oracle_guiding_steps", "the actor")):
            if getattr(self, key) and self.teacher:
                raise ConfigError(f"{self.LABEL} {key!r} needs algo: ppo and no 'teacher' (the distillation fits "
                                  f"{fitted} to the seat's observation alone)")

    @property
    def player_counts(self) -> list[int]:
        """The table sizes trained at, ascending (``num_players`` alone unless ``table_sizes`` says more)."""
        return sorted(set(self.table_sizes or [self.num_players]))

    @property
    def collects_hidden_cards(self) -> bool:
        """Whether the collected rows carry the hidden-card block (``train/collect/privileged.py``) after the observation."""
        return self.privileged_critic or self.hand_prediction_coef > 0 or bool(self.oracle_guiding_steps)

    def oracle_keep(self, steps: int) -> float:
        """The probability that the actor sees each hidden-card float after ``steps`` decisions (oracle guiding)."""
        if not self.oracle_guiding_steps:
            return 0.0
        full_until, gone_at = self.oracle_guiding_steps
        if steps < full_until:
            return 1.0
        if steps >= gone_at:
            return 0.0
        return 1.0 - (steps - full_until) / (gone_at - full_until)


@dataclass
class DqnSettings:
    """``algo: dqn``: masked double DQN, dueling head, n-step returns, over batched games (``train/dqn/trainer.py``).

    It also reads five shared keys: ``num_games`` (games stepped together), ``learning_rate`` (Adam),
    ``gamma``, ``batch_size`` (transitions per gradient step) and ``net_arch`` (the trunk's hidden
    layers, relu). The exploration schedule is counted in learner decisions, so it does not depend
    on ``num_games``.
    """

    CHECKS = ("check_dqn_replay",)

    buffer_size: int = setting(100_000, low=1, most=10_000_000, exclusive="only DQN has a replay buffer")
    """(dqn) Transitions the replay buffer holds, the oldest overwritten first. Allocated at the start
    (two observations each, about 3.3 kB in classic), at most the run's budget of them."""
    learning_starts: int = setting(2_000, low=0, exclusive="only DQN has a replay buffer")
    """(dqn) Transitions in the buffer before the first gradient step (at least ``batch_size``)."""
    train_freq: int = setting(8, low=1, exclusive="only DQN has a replay buffer")
    """(dqn) Learner decisions collected per gradient step: each transition is sampled about
    ``batch_size / train_freq`` times."""
    target_update_interval: int = setting(250, low=1, exclusive="only DQN has a target network")
    """(dqn) Gradient steps between updates of the target network (by ``tau``)."""
    tau: float = setting(1.0, above=0, high=1, exclusive="only DQN has a target network")
    """(dqn) Share of the online network blended into the target network at each of its updates: 1
    copies it (the classic hard update), below 1 is a Polyak average."""
    n_step: int = setting(3, low=1, high=100, exclusive="only DQN bootstraps n-step returns")
    """(dqn) Learner decisions of one seat summed into a return before bootstrapping from the target
    network (the decisions of the other seats in between are the environment)."""
    exploration_fraction: float = setting(0.2, low=0, high=1, exclusive="only DQN explores by epsilon")
    """(dqn) Share of the budget over which epsilon falls linearly from its initial to its final value."""
    exploration_initial_eps: float = setting(0.1, low=0, high=1, exclusive="only DQN explores by epsilon")
    """(dqn) Probability of a uniformly random legal action at the first decision. Kept low: a voluntary
    draw is always legal, so uniform play draws a card every few decisions and its games run to hundreds
    of decisions; starting at 1.0 (the Atari habit) the DQN spent tiny budgets on such games and often
    learned to stall (docs/algorithms/dqn.md)."""
    exploration_final_eps: float = setting(0.01, low=0, high=1, exclusive="only DQN explores by epsilon")
    """(dqn) Probability of a uniformly random legal action once the schedule is over."""
    train_max_steps: int = setting(300, low=1, high=1_000_000, exclusive="only DQN bootstraps from the next decision")
    """(dqn) Decisions after which a training game is cut: a loss for the learner (``truncation_reward``).
    Training only: the rules' ``max_steps`` (5,000 by default), and so the exported policy's, stay as
    they are. Bootstrapped values never see a cost 5,000 decisions away, so a DQN learned to stall
    (draw and pass) in losing positions; a near cut makes stalling cost what losing costs."""
    max_grad_norm: float = setting(10.0, above=0, exclusive="only DQN has this gradient clip")
    """(dqn) The gradient's norm is clipped to this before each Adam step."""

    def check_dqn_replay(self) -> None:
        """Under an algo with this replay buffer (dqn, nfsp: the registry's users of this part), it holds a batch."""
        from train import registry

        if self.algo in registry.users(DqnSettings) and self.buffer_size < self.batch_size:
            raise ConfigError(f"{self.LABEL} 'buffer_size' = {short_repr(self.buffer_size)} must hold a "
                              f"batch_size ({self.batch_size:,}) of transitions")


@dataclass
class NfspSettings:
    """``algo: nfsp``: Neural Fictitious Self-Play (``train/nfsp/``): a DQN best response (``DqnSettings``)
    and a supervised average policy; the average policy is the one exported and scored."""

    anticipatory: float = setting(0.1, low=0, high=1, exclusive="only NFSP mixes two policies")
    """(nfsp) Probability that a learner seat plays a whole game by the best response (epsilon-greedy Q)
    rather than by the average policy; the best response's decisions are what the average policy learns."""
    reservoir_size: int = setting(200_000, low=1, most=10_000_000, exclusive="only NFSP has a reservoir")
    """(nfsp) Best-response decisions the average policy learns from, kept by reservoir sampling (each
    decision seen so far equally likely to be in it)."""
    average_learning_rate: float = setting(1e-3, above=0, exclusive="only NFSP has an average policy")
    """(nfsp) Adam's step size for the average policy's cross-entropy loss (``learning_rate`` is the best
    response's)."""


@dataclass
class ValueLearnerSettings:
    """What the value-based learners (DQN, NFSP, DMC) share: their checkpoints (``train/resumable.py``)."""

    checkpoint_every: int = setting(1_000_000, low=0, note="0: no checkpoints",
                                    exclusive="the PPO paths checkpoint on their own schedule")
    """(dqn, nfsp, dmc) Learner decisions per segment: each segment deals its games afresh from the seed
    and the segment's number, and at its end the learner's state is saved, so an interrupted run
    resumes (``uno-env train --resume``, or the protocol) exactly where the uninterrupted one goes. 0:
    one segment, no checkpoint."""


@dataclass
class DmcSettings:
    """``algo: dmc``: Deep Monte-Carlo as in DouZero (``train/dmc/``): Q(s, a) of the observation and
    the action's features, learned from Monte-Carlo returns, acted on epsilon-greedily by actor processes."""

    dmc_actors: int = setting(0, low=0, high=256, note="0: the games run in the learner's process",
                              exclusive="only DMC has actor processes")
    """(dmc) Actor processes playing the games with a recent copy of the network (``num_games`` split
    over them); 0 (the default) plays them in the learner's process, which was the faster on 2 cores
    (4,800 against 2,400 decisions/s with 2 actors, docs/results/algorithms.md): give actors spare cores."""
    dmc_epsilon: float = setting(0.01, low=0, high=1, exclusive="only DMC explores this way")
    """(dmc) Probability that an actor plays a uniformly random legal action instead of the best Q(s, a)."""


@dataclass
class TrainConfig(ValueLearnerSettings, DmcSettings, NfspSettings, DqnSettings, NativePpoSettings, Sb3Settings,
                  PpoLossSettings, PpoSettings, RolloutSettings, SelfPlayConfig):
    """One self-play run of ``uno-env train``: MaskablePPO from sb3-contrib (``algo: sb3``) or the native PPO (``algo: ppo``).

    Its fields are those of ``RunConfig`` (the game, seed, evaluation, output), ``SelfPlayConfig`` (the
    algorithm, the budget, the opponent pool), ``RolloutSettings``, ``PpoSettings`` and ``PpoLossSettings``
    (PPO), and of each algorithm's part: ``Sb3Settings`` (sb3) and ``NativePpoSettings`` (ppo). A YAML key
    is a field.
    """


#: Settings added after runs recorded their configs, with the value every run before them trained with. A run's
#: identity (``uno-env benchmark --train``'s protocol.json, ``uno-env exploit``'s exploit-plan.json) leaves them
#: out at that value (``without_later_settings``), so a run recorded before they existed still resumes.
LATER_SETTINGS = {"vf_coef": 0.5, "ppo_max_grad_norm": 0.5, "segment_every": 0}


def without_later_settings(config: dict) -> dict:
    """A config mapping without the ``LATER_SETTINGS`` that hold the value runs had before them."""
    return {k: v for k, v in config.items() if k not in LATER_SETTINGS or v != LATER_SETTINGS[k]}


#: Upper bounds of the settings that size what a run allocates (processes, games, layers, files): a
#: mistyped ``num_games: 100000000`` is refused at once instead of exhausting the machine.
SIZE_LIMITS = {f.name: f.metadata["bounds"].most for f in dataclasses.fields(TrainConfig)
               if f.metadata["bounds"].most is not None}


def _check_agent_spec(spec: str, cfg, key: str) -> None:
    """An agent spec loads at the config's home table (a search spec's options are checked, not searched); an
    error is a ConfigError naming ``key``."""
    import agents

    from train.agent_specs import is_callable_spec, resolve_callable

    if spec in agents.BUILTIN:
        return
    if _is_search_spec(spec):
        _check_search_options(spec, key)
        return
    try:
        if is_callable_spec(spec):
            resolve_callable(spec)  # imported now; called with each game's seed when the league plays
        else:
            from uno_env import Game

            agents.load(spec, Game(cfg.variant, cfg.num_players, **cfg.rule_options), seed=0)
    except (agents.AgentSpecError, agents.PolicyFileError) as exc:
        raise ConfigError(f"{key}: {exc}") from None


def _is_search_spec(spec) -> bool:
    return isinstance(spec, str) and (spec == "ismcts" or spec.startswith("ismcts:"))


def _check_search_options(spec: str, key: str) -> None:
    """A search spec's options pass the agent's own checks; a bad one is a ConfigError naming ``key``."""
    import agents

    try:
        agents.parse_options(spec[len("ismcts:"):])
    except agents.SearchOptionError as err:
        raise ConfigError(f"{key}: {err}") from None
