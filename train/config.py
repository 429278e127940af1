"""Training hyperparameters: one dataclass, YAML keys map 1:1 onto its fields (no eval of strings)."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from uno_env.errors import did_you_mean, short_repr
from uno_env.safe_yaml import load_file

#: Upper bounds of the settings that size what a run allocates (processes, games, layers, files): a
#: mistyped ``num_games: 100000000`` is refused at once instead of exhausting the machine.
SIZE_LIMITS = {"n_envs": 256, "num_games": 100_000, "n_steps": 100_000, "batch_size": 10_000_000,
               "n_epochs": 10_000, "eval_games": 1_000_000, "max_snapshots": 10_000, "teacher_games": 10_000_000,
               "teacher_epochs": 100_000}
#: Hidden layers of ``net_arch`` and player counts of ``table_sizes`` at most; ``MAX_WIDTH`` units per layer.
MAX_LAYERS = 16
MAX_WIDTH = 65_536


class ConfigError(ValueError):
    """A training config with an unknown key or a value of the wrong type."""


@dataclass
class TrainConfig:
    """One self-play run: MaskablePPO from sb3-contrib (``algo: sb3``) or the native PPO (``algo: ppo``)."""

    algo: str = "sb3"
    """Trainer: ``sb3`` (MaskablePPO on the Gymnasium env, the reference) or ``ppo`` (native, batched games)."""
    variant: str = "classic"
    """Rule preset the agent learns (``uno_env.VARIANTS``)."""
    num_players: int = 2
    """Seats at the table; the learner holds one, chosen at random per episode."""
    rule_options: dict = field(default_factory=dict)
    """Rule options of the game (``docs/rule-options.md``)."""
    seed: int = 0
    """Seeds the environments, the network initialisation, the opponent sampling and evaluation."""
    total_timesteps: int = 150_000
    """Learner decisions to train on."""
    n_envs: int = 8
    """(sb3) Parallel environments (SubprocVecEnv over both cores; more envs batch the policy's forward pass)."""
    num_games: int = 64
    """(ppo) Games stepped together; one forward pass answers every learner seat deciding in them."""
    table_sizes: list = field(default_factory=list)
    """(ppo) Player counts trained at together, e.g. ``[2, 4]`` (the games split evenly; one policy plays
    them all); empty: ``num_players`` alone. ``num_players`` is the policy's home table (its plain eval rows)."""
    collector_workers: int = 0
    """(ppo) Worker processes stepping the games and playing the opponents' moves while the learner
    answers the others (0: everything in the learner's process). One per spare core; see README."""
    overlap_update: bool = False
    """(ppo) Run each PPO update in a second process (``train/ppo/updater.py``) while the next batch is
    collected with the weights from before it, so the games and the update use two cores at once. The
    price is one update of policy lag; the same seed still gives the same run (a fixed schedule)."""
    torch_threads: int = 0
    """(ppo) Threads torch may use in the learner's process for the forward passes and the update (0:
    torch's default, one per core). Set 1 when the cores are shared: two runs side by side on two cores,
    each with two threads, learned about 6 times slower than with one each. With ``overlap_update`` the
    learner and the updater each get half of them (at least 1)."""
    ray_collectors: int = 2
    """(ppo) Collectors run as Ray actors when training with ``--ray`` (one CPU of the cluster each; the
    games split over them as over ``collector_workers`` without Ray); ignored without ``--ray``."""
    truncation_reward: float = -1.0
    """(ppo) What every seat of a game cut at the engine's ``max_steps`` learns as its reward. A voluntary
    draw is always legal, so a learner losing to strong opponents could prefer stalling (0) to losing
    (-1); -1 makes a stalled game a loss for all."""
    self_play_games: float = 0.5
    """(ppo) Share of new games in which every seat is the learner; in the others one seat is, and the
    rest are drawn from ``opponents``."""
    n_steps: int = 256
    """Decisions collected per environment (sb3) or batched steps over all games (ppo) between updates."""
    batch_size: int = 256
    """Minibatch size of a PPO update."""
    n_epochs: int = 4
    """Passes over each rollout."""
    learning_rate: float = 3e-4
    """Adam step size."""
    gamma: float = 0.995
    """Discount factor (a game is ~30-100 learner decisions and pays only at the end). Below 1, a later
    loss costs less than an early one, which teaches a learner facing strong opponents to stall by
    drawing; the native configs use 1.0 (games end anyway: ``max_steps``, ``truncation_reward``)."""
    gae_lambda: float = 0.95
    """GAE smoothing."""
    clip_range: float = 0.2
    """PPO clipping."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    net_arch: list = field(default_factory=lambda: [256, 256])
    """Hidden layer sizes of the policy and value networks (tanh)."""
    opponents: dict = field(default_factory=lambda: {"random": 0.3, "greedy": 0.2, "heuristic": 0.3, "self": 0.2})
    """Opponent pool sampling weights per episode: built-in agent specs, and ``self`` for frozen snapshots of the learner."""
    teacher: str = ""
    """(ppo) A search agent spec (``ismcts[:options]``) to distil before PPO starts: the network first
    learns its move preferences in ``teacher_games`` labelled games (``train/ppo/distill.py``); empty: none."""
    teacher_games: int = 2000
    """(ppo) Games the teacher plays (against the ``opponents``) to label its decisions."""
    teacher_epochs: int = 20
    """(ppo) Passes of the supervised fit over the labelled decisions."""
    teacher_learning_rate: float = 1e-3
    """(ppo) Adam step size of the supervised fit."""
    teacher_workers: int = 0
    """(ppo) Worker processes labelling games (0: one per core); the labels do not depend on it."""
    init_from: str = ""
    """(ppo) What this run starts from, to fine-tune it under other settings (the optimiser and the
    step count start afresh): a native PPO run directory (or its ``checkpoints/native.pt``), whose
    actor and critic are loaded; or an exported policy file (``<name>.npz``/``.json`` or
    ``pretrained:<name>``), whose weights become the actor while the critic starts untrained (see
    ``critic_warmup_steps``). Empty: a random initialisation (or the ``teacher``'s fit)."""
    privileged_critic: bool = False
    """(ppo) The critic also sees every other seat's hand and the next cards of the draw pile
    (``train/collect/privileged.py``): an asymmetric actor-critic, a less noisy baseline for the policy
    gradient. The actor, the only part exported and played, still sees the seat's observation alone."""
    hand_prediction_coef: float = 0.0
    """(ppo) Weight of an auxiliary loss (0: off): a linear head on the actor's last hidden layer
    predicts every other seat's cards per kind (the squared error summed over a decision's block), so
    that the layers the policy reads learn what the public history says of the hidden hands. The head
    is used in training only and not exported; the policy file is the same kind as without it."""
    oracle_guiding_steps: list = field(default_factory=list)
    """(ppo) ``[full_until, gone_at]`` (empty: off): oracle guiding, as in Suphx. The actor also reads
    the hidden-card block (``train/collect/privileged.py``) until ``full_until`` decisions of the run; from
    there each of its floats is kept with a probability that falls linearly to 0 at ``gone_at`` and
    stays 0. The exported policy drops those inputs: from ``gone_at`` on it plays exactly as trained."""
    critic_warmup_steps: int = 0
    """(ppo) Decisions at the start of a run during which only the critic learns and the actor is held,
    so that an untrained critic's advantages do not move a good actor (``init_from`` a policy file)."""
    snapshot_every: int = 40_000
    """Timesteps between frozen snapshots added to the pool."""
    max_snapshots: int = 5
    """Snapshots kept in the pool (oldest dropped)."""
    eval_every: int = 50_000
    """Timesteps between evaluations against random and heuristic."""
    eval_games: int = 200
    """Seat-rotated games per evaluation opponent."""
    time_limit_minutes: float = 0.0
    """Stop learning after this wall-clock time (0: no limit); the policy is still exported and evaluated."""
    out_dir: str = "runs"
    """Where runs are written (``<out_dir>/<run_name>``)."""
    run_name: str = ""
    """Name of the run directory; empty: ``<variant>-<num_players>p-seed<seed>``."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrainConfig":
        """Validated config from a mapping; unknown keys and wrong types are errors."""
        if not isinstance(data, dict):
            raise ConfigError(f"a training config must be a mapping, got {type(data).__name__}")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(fields), key=str)
        if unknown:
            named = ", ".join(f"{short_repr(k)}{did_you_mean(k, fields) if isinstance(k, str) else ''}"
                              for k in unknown[:5]) + (f" and {len(unknown) - 5:,} more" if len(unknown) > 5 else "")
            raise ConfigError(f"unknown training config key{'s' if len(unknown) > 1 else ''} {named}; "
                              f"allowed: {', '.join(fields)}")
        defaults = cls()
        values = {}
        for key, value in data.items():
            expected = type(getattr(defaults, key))
            if expected is float and isinstance(value, str):  # YAML 1.1 reads 3e-4 as a string
                try:
                    value = float(value)
                except ValueError:
                    pass
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                try:
                    value = float(value)
                except OverflowError:  # an int too large for a float
                    raise ConfigError(f"training config {key!r} = {short_repr(value)} is too large") from None
            if expected is float and isinstance(value, float) and not math.isfinite(value):
                raise ConfigError(f"training config {key!r} = {value} must be a finite number")
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise ConfigError(f"training config {key!r} = {short_repr(value)} must be {expected.__name__}")
            values[key] = value
        cfg = cls(**values)
        cfg.validate()
        return cfg

    @classmethod
    def from_yaml(cls, path: str) -> "TrainConfig":
        """Config from a YAML file; errors in its content name the file.

        The file is read by ``uno_env.safe_yaml.load_file``: at most 1 MB of UTF-8, no anchors or
        aliases, not empty (``YamlFileError`` naming the file and line).
        """
        from uno_env.errors import RuleError

        data = load_file(path, f"a mapping of config keys to values (the fields of {cls.__name__})")
        try:
            return cls.from_dict(data)
        except (ConfigError, RuleError) as exc:
            raise type(exc)(f"{path}: {exc}") from None

    def validate(self) -> None:
        """Range checks and the rule set itself."""
        from uno_env import RuleSet

        RuleSet.create(self.variant, self.num_players, self.rule_options)
        if self.algo not in ("sb3", "ppo"):
            raise ConfigError(f"training config 'algo' = {short_repr(self.algo)} is not allowed; allowed: sb3, ppo")
        if not 0.0 <= self.self_play_games <= 1.0:
            raise ConfigError(f"training config 'self_play_games' = {short_repr(self.self_play_games)} must be "
                              f"in [0, 1]")
        for key in ("total_timesteps", "n_envs", "num_games", "n_steps", "batch_size", "n_epochs", "snapshot_every",
                    "eval_every", "eval_games"):
            if getattr(self, key) < 1:
                raise ConfigError(f"training config {key!r} must be >= 1, got {short_repr(getattr(self, key))}")
        for key, low, high in (("gamma", 0.0, 1.0), ("gae_lambda", 0.0, 1.0), ("clip_range", 0.0, 10.0),
                               ("learning_rate", 0.0, 1.0), ("ent_coef", 0.0, 10.0)):
            if not low < getattr(self, key) <= high and not (key == "ent_coef" and getattr(self, key) == 0):
                raise ConfigError(f"training config {key!r} = {short_repr(getattr(self, key))} must be in "
                                  f"({low}, {high}]")
        if not 0 <= self.seed < 2**31:  # numpy's legacy seeding (SB3) takes 0..2**32 - 1; the runs add offsets
            raise ConfigError(f"training config 'seed' = {short_repr(self.seed)} must be in 0..{2**31 - 1:,}")
        for key, high in SIZE_LIMITS.items():
            value = getattr(self, key)
            if value > high:
                raise ConfigError(f"training config {key!r} = {short_repr(value)} is more than this trainer takes; "
                                  f"allowed: at most {high:,}")
        if len(self.net_arch) > MAX_LAYERS or len(self.table_sizes) > MAX_LAYERS:
            raise ConfigError(f"training config 'net_arch' and 'table_sizes' may list at most {MAX_LAYERS} entries")
        if self.time_limit_minutes < 0 or self.max_snapshots < 1:
            raise ConfigError("time_limit_minutes must be >= 0 and max_snapshots >= 1")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in self.table_sizes):
            raise ConfigError(f"table_sizes must be a list of player counts, got {short_repr(self.table_sizes)}")
        for n in self.table_sizes:
            RuleSet.create(self.variant, n, self.rule_options)  # names the allowed player counts if not
        if not 0 <= self.collector_workers <= 64:
            raise ConfigError(f"training config 'collector_workers' = {short_repr(self.collector_workers)} must "
                              f"be in 0..64")
        if not 0 <= self.torch_threads <= 256:
            raise ConfigError(f"training config 'torch_threads' = {short_repr(self.torch_threads)} must be in 0..256 "
                              "(0: torch's default, one per core)")
        if not 1 <= self.ray_collectors <= 1024:
            raise ConfigError(f"training config 'ray_collectors' = {short_repr(self.ray_collectors)} must be in "
                              f"1..1024")
        if self.num_games < max(self.collector_workers, 1) * len(self.player_counts):
            raise ConfigError(f"num_games = {short_repr(self.num_games)} is fewer than one game per table size "
                              f"per collector")
        if self.algo == "sb3" and self.player_counts != [self.num_players]:
            raise ConfigError(f"table_sizes {short_repr(self.table_sizes)} needs algo: ppo (the SB3 path trains "
                              f"at num_players)")
        if self.table_sizes and self.num_players not in self.table_sizes:
            raise ConfigError(f"table_sizes {short_repr(self.table_sizes)} must include num_players = "
                              f"{short_repr(self.num_players)}")
        if not self.net_arch or not all(isinstance(x, int) and not isinstance(x, bool) and 0 < x <= MAX_WIDTH
                                        for x in self.net_arch):
            raise ConfigError(f"net_arch must be a list of positive ints (at most {MAX_WIDTH:,} each), "
                              f"got {short_repr(self.net_arch)}")
        import agents

        allowed = [*agents.BUILTIN, "ismcts[:options]", "self"]
        for key in self.opponents:
            if _is_search_spec(key):
                _check_search_options(key, "opponents")
                continue
            if key not in allowed:
                hint = did_you_mean(key, allowed) if isinstance(key, str) else ""
                raise ConfigError(f"unknown opponent {short_repr(key)}{hint} in opponents; allowed: "
                                  f"{', '.join(allowed)}")
        if not self.opponents or any(not isinstance(w, (int, float)) or isinstance(w, bool) or w < 0
                                     for w in self.opponents.values()):
            raise ConfigError(f"opponents must map some of {', '.join(allowed)} to weights >= 0, "
                              f"got {short_repr(self.opponents)}")
        if self.teacher:
            if self.algo != "ppo":
                raise ConfigError("training config 'teacher' needs algo: ppo (the SB3 path has no distillation phase)")
            if not _is_search_spec(self.teacher):
                raise ConfigError(f"training config 'teacher' = {short_repr(self.teacher)} is not a search agent spec; "
                                  "allowed: ismcts or ismcts:key=value,...")
            _check_search_options(self.teacher, "teacher")
        if self.init_from:
            if self.algo != "ppo":
                raise ConfigError("training config 'init_from' needs algo: ppo (it starts from a native PPO run's "
                                  "network; the SB3 path resumes its own runs with --resume)")
            if self.teacher:
                raise ConfigError("training config 'init_from' and 'teacher' both choose the starting network; "
                                  "set one of them")
        if self.privileged_critic and (self.algo != "ppo" or self.teacher):
            raise ConfigError("training config 'privileged_critic' needs algo: ppo and no 'teacher' (the "
                              "distillation fits the critic to the seat's observation alone)")
        if not 0.0 <= self.hand_prediction_coef < float("inf"):
            raise ConfigError(f"training config 'hand_prediction_coef' = "
                              f"{short_repr(self.hand_prediction_coef)} must be a "
                              "number >= 0 (0 turns the auxiliary loss off)")
        if self.hand_prediction_coef and (self.algo != "ppo" or self.teacher):
            raise ConfigError("training config 'hand_prediction_coef' needs algo: ppo and no 'teacher' (the "
                              "distillation fits the network to the seat's observation alone)")
        if self.oracle_guiding_steps:
            steps = self.oracle_guiding_steps
            if (len(steps) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) for x in steps)
                    or not 0 <= steps[0] <= steps[1] or steps[1] < 1):
                raise ConfigError(f"training config 'oracle_guiding_steps' = {short_repr(steps)} must be "
                                  f"[full_until, gone_at]: "
                                  "two decision counts with 0 <= full_until <= gone_at and gone_at >= 1 (empty: off)")
            if self.algo != "ppo" or self.teacher:
                raise ConfigError("training config 'oracle_guiding_steps' needs algo: ppo and no 'teacher' (the "
                                  "distillation fits the actor to the seat's observation alone)")
        if self.critic_warmup_steps < 0:
            raise ConfigError(f"training config 'critic_warmup_steps' = {short_repr(self.critic_warmup_steps)} "
                              f"must be >= 0")
        if self.critic_warmup_steps and self.algo != "ppo":
            raise ConfigError("training config 'critic_warmup_steps' needs algo: ppo")
        if self.overlap_update and self.algo != "ppo":
            raise ConfigError("training config 'overlap_update' needs algo: ppo (the SB3 path updates in its own loop)")
        if self.teacher_games < 1 or self.teacher_epochs < 1 or not 0 <= self.teacher_workers <= 64:
            raise ConfigError("teacher_games and teacher_epochs must be >= 1 and teacher_workers in 0..64")
        if not 0 < self.teacher_learning_rate <= 1:
            raise ConfigError(f"training config 'teacher_learning_rate' = {short_repr(self.teacher_learning_rate)} "
                              "must be in (0, 1]")
        if sum(w for k, w in self.opponents.items() if k != "self") <= 0:
            raise ConfigError("opponents need a positive weight on at least one of random, greedy, heuristic, ismcts")

    def to_dict(self) -> dict:
        """Plain mapping (what is saved beside a run)."""
        return dataclasses.asdict(self)

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

    @property
    def name(self) -> str:
        """Run directory name."""
        return self.run_name or f"{self.variant}-{self.num_players}p-seed{self.seed}"


def _is_search_spec(spec) -> bool:
    return isinstance(spec, str) and (spec == "ismcts" or spec.startswith("ismcts:"))


def _check_search_options(spec: str, key: str) -> None:
    """A search spec's options pass the agent's own checks; a bad one is a ConfigError naming ``key``."""
    import agents

    try:
        agents.parse_options(spec[len("ismcts:"):])
    except agents.SearchOptionError as err:
        raise ConfigError(f"{key}: {err}") from None
