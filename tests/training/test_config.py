"""The config model: declared types and bounds, one loader for every config class, parts per algorithm."""
from __future__ import annotations

import dataclasses
import glob

import pytest

from train.config import (SIZE_LIMITS, ConfigError, ConfigModel, NativePpoSettings, PpoSettings, RunConfig,
                          TrainConfig, setting)
from train import registry
from train.rllib.trainer import RllibConfig
from uno_env.errors import short_repr

#: The keys of a training run's saved config.yaml (and of a policy file's recorded config): a changed set
#: breaks resuming older runs and comparing policy files with their configs.
TRAIN_KEYS = {
    "algo", "variant", "num_players", "rule_options", "seed", "total_timesteps", "n_envs", "num_games", "table_sizes",
    "collector_workers", "overlap_update", "segment_every", "torch_threads", "ray_collectors", "truncation_reward",
    "self_play_games",
    "n_steps", "batch_size", "n_epochs", "learning_rate", "gamma", "gae_lambda", "clip_range", "ent_coef", "net_arch",
    "vf_coef", "ppo_max_grad_norm", "opponents", "teacher", "teacher_games", "teacher_behaviour", "teacher_epochs",
    "teacher_learning_rate", "teacher_workers",
    "init_from", "privileged_critic", "hand_prediction_coef", "oracle_guiding_steps", "critic_warmup_steps",
    "snapshot_every", "max_snapshots", "eval_every", "eval_games", "time_limit_minutes", "out_dir", "run_name",
    "settings", "update_bfloat16", "update_compile", "device",
    "buffer_size", "learning_starts", "train_freq", "target_update_interval", "tau", "n_step", "exploration_fraction",
    "exploration_initial_eps", "exploration_final_eps", "max_grad_norm", "train_max_steps",
    "anticipatory", "reservoir_size", "average_learning_rate", "dmc_actors", "dmc_epsilon", "checkpoint_every"}
RLLIB_KEYS = {"variant", "num_players", "rule_options", "seed", "iterations", "train_batch_size", "minibatch_size",
              "num_epochs", "learning_rate", "gamma", "gae_lambda", "clip_range", "ent_coef", "net_arch",
              "num_env_runners", "eval_games", "out_dir", "run_name"}
CONFIGS = [TrainConfig, RllibConfig]


def test_the_saved_configs_keep_their_keys_and_defaults():
    assert set(TrainConfig().to_dict()) == TRAIN_KEYS and set(RllibConfig().to_dict()) == RLLIB_KEYS
    assert TrainConfig().gamma == 0.995 and RllibConfig().gamma == 1.0  # a part's default, changed by RLlib
    assert TrainConfig().name == "classic-2p-seed0" and RllibConfig(seed=3).name == "rllib-classic-2p-seed3"
    assert SIZE_LIMITS == {"n_envs": 256, "num_games": 100_000, "n_steps": 100_000, "batch_size": 10_000_000,
                           "n_epochs": 10_000, "eval_games": 1_000_000, "max_snapshots": 10_000,
                           "teacher_games": 10_000_000, "teacher_epochs": 100_000, "buffer_size": 10_000_000,
                           "reservoir_size": 10_000_000}


@pytest.mark.parametrize("cls", CONFIGS)
def test_every_config_class_uses_the_one_loader_and_its_defaults_pass_it(cls):
    for name in ("from_dict", "from_yaml", "validate", "to_dict"):
        assert getattr(cls, name).__qualname__ == f"ConfigModel.{name}"
    assert cls.from_dict({}).to_dict() == cls().to_dict()
    assert all("bounds" in f.metadata for f in dataclasses.fields(cls))  # every field is a setting


@pytest.mark.parametrize("pattern, cls", [("configs/train/*.yaml", TrainConfig), ("configs/rllib/*.yaml", RllibConfig)])
def test_shipped_configs_load_and_survive_a_round_trip(pattern, cls):
    files = glob.glob(pattern)
    assert files
    for path in files:
        cfg = cls.from_yaml(path)
        assert cls.from_dict(cfg.to_dict()) == cfg


def _just_outside(cls):
    """(cls, key, a value just outside its bounds) for every bound of every number of ``cls``."""
    for f in dataclasses.fields(cls):
        b, step = f.metadata["bounds"], 1 if f.type == "int" else 0.5
        if f.type in ("int", "float"):
            for value in (b.low is not None and b.low - step, b.above, b.high is not None and b.high + step,
                          b.most is not None and b.most + 1):
                if value is not None and value is not False:
                    yield cls, f.name, value


@pytest.mark.parametrize("cls, key, value", [case for cls in CONFIGS for case in _just_outside(cls)],
                         ids=lambda x: getattr(x, "__name__", str(x)))
def test_every_declared_bound_is_enforced_with_the_key_and_value_named(cls, key, value):
    with pytest.raises(ConfigError) as caught:
        cls.from_dict({**({"algo": "ppo"} if cls is TrainConfig else {}), key: value})
    message = str(caught.value)
    assert repr(key) in message and (short_repr(value) in message or short_repr(float(value)) in message), message
    assert "must be" in message or "at most" in message


@pytest.mark.parametrize("cls", CONFIGS)
def test_every_field_refuses_a_value_of_another_type(cls):
    for f in dataclasses.fields(cls):
        wrong = [1, 2] if f.type in ("str", "int", "float", "bool", "dict", "dict[str, float]") else "text"
        with pytest.raises(ConfigError, match=f"'{f.name}' = .* must be"):
            cls.from_dict({f.name: wrong})


@pytest.mark.parametrize("data, words", [
    ({"n_envs": True}, "'n_envs' = True must be int"),
    ({"gamma": "nan"}, "'gamma' = nan must be a finite number"),
    ({"learning_rate": 10**400}, "is too large"),
    ({"net_arch": [64, 0]}, "'net_arch' = [64, 0] must be a list of 1 to 16 whole numbers in 1..65,536"),
    ({"net_arch": [8] * 17}, "a list of 1 to 16 whole numbers"),
    ({"table_sizes": [2.5]}, "'table_sizes' = [2.5] must be a list of int"),
    ({"opponents": {"random": "often"}}, "must be a mapping of str to float"),
    ({"n_envs": 10**6}, "'n_envs' = 1000000 is more than this trainer takes; allowed: at most 256"),
    ({"seed": 2**31}, "'seed' = 2147483648 must be in 0..2,147,483,647"),
    ({"torch_threads": 999}, "must be in 0..256 (0: torch's default, one per core)"),
    ({"gae_lambda": 0.0}, "'gae_lambda' = 0.0 must be in (0, 1]"),
    ({"ent_coef": -0.5}, "'ent_coef' = -0.5 must be in [0, 10]"),
    ({"time_limit_minutes": -1}, "'time_limit_minutes' = -1.0 must be a number >= 0 (0: no limit)"),
    ({"eval_every": 0}, "'eval_every' must be >= 1, got 0"),
    ({"algo": "sb3", "overlap_update": True}, "'overlap_update' needs algo: ppo (only the native PPO has an updater"),
    ({"algo": "sb3", "table_sizes": [2, 4]}, "'table_sizes' needs algo: ppo (the other algorithms train at num_"),
    ({"algo": "dmc", "table_sizes": [2, 3]}, "'table_sizes' needs algo: ppo (the other algorithms train at num_"),
    ({"vf_coef": -1}, "'vf_coef' = -1.0 must be in [0, 100]"),
    ({"ppo_max_grad_norm": 0}, "'ppo_max_grad_norm' = 0.0 must be a number > 0"),
    ({"algo": "dqn", "vf_coef": 1.0}, "'vf_coef' needs algo: sb3 or ppo (only the PPO paths have a value loss)"),
    ({"algo": "nfsp", "ppo_max_grad_norm": 10.0}, "'ppo_max_grad_norm' needs algo: sb3 or ppo (DQN and NFSP clip to "
                                                  "max_grad_norm)"),
])
def test_messages_name_the_key_the_value_and_what_is_allowed(data, words):
    with pytest.raises(ConfigError) as caught:
        TrainConfig.from_dict(data)
    assert words in str(caught.value) and str(caught.value).startswith("training config ")


def test_the_ppo_loss_settings_reach_sb3_with_its_own_defaults_and_stay_out_of_rllib():
    from types import SimpleNamespace

    from train.sb3 import trainer as sb3_trainer

    def kwargs(cfg) -> dict:  # what MaskablePPO is built with
        return sb3_trainer._model(SimpleNamespace(MaskablePPO=lambda *args, **kw: kw), cfg, None)

    chosen = kwargs(TrainConfig.from_dict({"algo": "sb3", "vf_coef": 0.25, "ppo_max_grad_norm": 2.0}))
    assert (chosen["vf_coef"], chosen["max_grad_norm"]) == (0.25, 2.0)
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import inspect

    own = inspect.signature(sb3_contrib.MaskablePPO).parameters
    default = kwargs(TrainConfig())  # the defaults are SB3's own: a config without the keys trains as before
    assert default["vf_coef"] == own["vf_coef"].default and default["max_grad_norm"] == own["max_grad_norm"].default
    # RLlib weighs its value loss 1.0 and does not clip: its config has neither key (RLLIB_KEYS above)
    assert not {"vf_coef", "ppo_max_grad_norm"} & set(RllibConfig().to_dict())


def test_settings_added_later_keep_the_identity_of_runs_recorded_before_them():
    from train.config import LATER_SETTINGS, without_later_settings

    assert {k: getattr(TrainConfig(), k) for k in LATER_SETTINGS} == LATER_SETTINGS
    assert not LATER_SETTINGS.keys() & without_later_settings(TrainConfig().to_dict()).keys()
    changed = without_later_settings(TrainConfig.from_dict({"algo": "ppo", "vf_coef": 1.0}).to_dict())
    assert changed["vf_coef"] == 1.0 and "ppo_max_grad_norm" not in changed


def test_rllib_messages_say_which_config_and_suggest_a_key():
    with pytest.raises(ConfigError, match=r"unknown RLlib config key 'iteratons' \(did you mean 'iterations'\?\)"):
        RllibConfig.from_dict({"iteratons": 3})
    with pytest.raises(ConfigError, match="RLlib config 'num_env_runners' = -1 must be in 0..1,024"):
        RllibConfig.from_dict({"num_env_runners": -1})
    with pytest.raises(ConfigError, match="expected a mapping of RLlib config keys to values, got list"):
        RllibConfig.from_dict([1])


def test_numbers_are_read_as_declared():
    cfg = TrainConfig.from_dict({"learning_rate": "3e-4", "gamma": 1, "opponents": {"random": 1}})
    assert cfg.learning_rate == 3e-4 and isinstance(cfg.gamma, float)
    assert cfg.opponents == {"random": 1} and isinstance(cfg.opponents["random"], int)  # kept as written


@dataclasses.dataclass
class _PpgSettings:
    """A made-up algorithm's part, as a new trainer would add one (with its record in the registry)."""

    CHECKS = ("check_ppg_replay",)

    replay_size: int = setting(10_000, low=1, most=10**7)
    """Transitions kept."""
    double_q: bool = setting(False, exclusive="only PPG has it here")
    """Double Q-learning."""

    def check_ppg_replay(self) -> None:
        """The replay holds a batch."""
        if self.replay_size < self.batch_size:
            raise ConfigError("replay_size must hold a batch_size")


@dataclasses.dataclass
class _WithPpg(TrainConfig, _PpgSettings):
    """TrainConfig with one more algorithm."""


def test_an_algorithm_adds_its_part_its_name_its_bounds_and_its_checks(monkeypatch):
    monkeypatch.setitem(registry.BUILTIN, "ppg", registry.Algorithm("ppg", "mypkg.ppg:train", _PpgSettings))
    assert _WithPpg.algorithms() == ["sb3", "ppo", "dqn", "nfsp", "dmc", "ppg"]  # the default first, then registry's
    assert TrainConfig.algorithms() == ["sb3", "ppo", "dqn", "nfsp", "dmc"]  # a config without its part: not allowed
    cfg = _WithPpg.from_dict({"algo": "ppg", "double_q": True, "replay_size": 500})
    assert cfg.to_dict()["replay_size"] == 500 and set(cfg.to_dict()) == TRAIN_KEYS | {"replay_size", "double_q"}
    with pytest.raises(ConfigError, match=r"'double_q' needs algo: ppg \(only PPG has it here\)"):
        _WithPpg.from_dict({"algo": "ppo", "double_q": True})
    with pytest.raises(ConfigError, match="'teacher' needs algo: ppo"):
        _WithPpg.from_dict({"algo": "ppg", "teacher": "ismcts"})
    with pytest.raises(ConfigError, match="'replay_size' must be >= 1, got 0"):
        _WithPpg.from_dict({"algo": "ppg", "replay_size": 0})
    with pytest.raises(ConfigError, match="must hold a batch_size"):
        _WithPpg.from_dict({"algo": "ppg", "replay_size": 10})
    with pytest.raises(ConfigError, match="allowed: sb3, ppo, dqn, nfsp, dmc, ppg"):
        _WithPpg.from_dict({"algo": "a2c"})
    with pytest.raises(ConfigError, match="allowed: sb3, ppo, dqn, nfsp, dmc, or"):
        TrainConfig.from_dict({"algo": "ppg"})


def test_the_parts_are_shared_not_copied():
    assert issubclass(TrainConfig, RunConfig) and issubclass(RllibConfig, RunConfig)
    assert issubclass(TrainConfig, PpoSettings) and issubclass(RllibConfig, PpoSettings)
    assert issubclass(TrainConfig, NativePpoSettings) and not issubclass(RllibConfig, NativePpoSettings)
    assert issubclass(RunConfig, ConfigModel)
