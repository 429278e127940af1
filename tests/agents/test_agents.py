"""Agents: the loader, rule-based players answering every decision, exported policy files."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import agents
from agents.policy_file import PolicyAgent, PolicyFile, PolicyFileError, load_policy
from train.evaluation.stats import head_to_head, wilson_interval
from uno_env import Game
from uno_env.observation import ObservationEncoder
from paths import DATA, ROOT  # tests/paths.py


def test_load_builtin_specs_and_errors():
    game = Game("classic", num_players=2)
    assert isinstance(agents.load("random"), agents.RandomAgent)
    assert isinstance(agents.load("greedy", game), agents.GreedyAgent)
    assert isinstance(agents.load("heuristic", game), agents.HeuristicAgent)
    with pytest.raises(ValueError, match="pass game="):
        agents.load("heuristic")
    with pytest.raises(ValueError, match="unknown agent spec 'smart'.*random, greedy, heuristic"):
        agents.load("smart", game)
    with pytest.raises(ValueError, match="no pretrained policy 'nope'"):
        agents.load("pretrained:nope", game)


def _play_rule_based_games(game: Game, games: int) -> tuple[set, int]:
    """Greedy and heuristic alternate seats; returns the phases met and the FLEX plays chosen."""
    enc = ObservationEncoder(game)
    phases, flex_plays = set(), 0
    for i in range(games):
        policies = [agents.load("heuristic" if q % 2 else "greedy", game, seed=i) for q in range(game.num_players)]
        s = game.new_state(i)
        while not s.is_over:
            phases.add(s.phase.value)
            q = s.current_seat
            a = policies[q].act(enc.encode(s, q), game.legal_action_mask(s))
            flex_plays += game.action_to_string(a).endswith(" flex")
            game.step(s, a)  # raises if illegal
    return phases, flex_plays


ALL_HOUSE_RULES = {"stacking": "any", "jump_in": "on", "multi_play": "on", "madness": "on", "uno_call": "explicit",
                   "draw_rule": "draw_until_playable"}


@pytest.mark.parametrize("options, expected", [
    ({}, {"TURN", "CHOOSE_COLOUR", "PLAY_OR_KEEP_DRAWN", "CHALLENGE_OR_ACCEPT"}),
    (ALL_HOUSE_RULES, {"TURN", "CHOOSE_COLOUR", "PLAY_OR_KEEP_DRAWN", "CHALLENGE_OR_ACCEPT", "STACK_RESPONSE",
                       "UNO_CALL", "JUMP_IN", "MULTI_PLAY"}),
])
@pytest.mark.parametrize("variant, players", [("classic", 2), ("classic", 4), ("alphabet", 3), ("xiangqi", 5)])
def test_rule_based_agents_answer_every_decision(variant, players, options, expected):
    phases, _ = _play_rule_based_games(Game(variant, num_players=players, **options), 15)
    assert expected <= phases, expected - phases


@pytest.mark.parametrize("players, options", [
    (2, {}), (4, {"uno_call": "explicit"}), (8, {"flex.allow_self_target": True, "flex.flex_w4f_restricted": True}),
])
def test_rule_based_agents_answer_every_flex_decision(players, options):
    phases, flex_plays = _play_rule_based_games(Game("flex", num_players=players, **options), 25)
    assert {"TURN", "CHOOSE_COLOUR", "CHOOSE_TARGET"} <= phases and flex_plays > 0


@pytest.mark.parametrize("players, options", [
    (2, {}), (3, {"uno_call": "explicit"}), (10, {"restricted_wild_bluffing": False}),
])
def test_rule_based_agents_answer_every_flip_decision(players, options):
    phases, _ = _play_rule_based_games(Game("flip", num_players=players, **options), 25)
    expected = {"TURN", "CHOOSE_COLOUR", "CHOOSE_TARGET", "OPTIMUS_PLACE", "PLAY_OR_KEEP_DRAWN"}
    if options.get("restricted_wild_bluffing", True):
        expected.add("CHALLENGE_OR_ACCEPT")
    if options.get("uno_call") == "explicit":
        expected.add("UNO_CALL")
    assert expected <= phases, expected - phases


@pytest.mark.parametrize("players, options", [
    (2, {}), (4, {"uno_call": "explicit", "attack.launcher_model": "categorical"}),
    (10, {"attack.allow_self_target": True, "attack.launcher_model": "fixed"}),
])
def test_rule_based_agents_answer_every_attack_decision(players, options):
    phases, _ = _play_rule_based_games(Game("attack", num_players=players, **options), 25)
    expected = {"TURN", "CHOOSE_COLOUR", "CHOOSE_TARGET", "STACK_RESPONSE"}
    if options.get("uno_call") == "explicit":
        expected |= {"UNO_CALL"}
    assert expected <= phases, expected - phases


def test_attack_heuristic_adds_its_cheapest_hit_and_attacks_the_leader():
    game = Game("attack", num_players=4, **{"attack.launcher_model": "scripted"})
    bot = agents.load("heuristic", game, seed=0)
    enc = ObservationEncoder(game)
    s = game.state_from_spec({"discard": ["G3"], "current": 3,
                              "hands": [["WA", "R-H2", "Y-H1", "B5"], 6, 2, ["G-H1", "R1"]]})
    game.step(s, "play G-H1")  # P0 is hit: it answers with Hit 1, its cheapest hit card
    assert s.phase == "STACK_RESPONSE"
    assert game.action_to_string(bot.act(enc.encode(s, 0), game.legal_action_mask(s))) == "play Y-H1"
    # a Wild Attack goes to the opponent with the fewest cards
    s = game.state_from_spec({"discard": ["G3"], "hands": [["WA", "B5", "B6"], 6, 2, 5]})
    game.step(s, "play WA")
    game.step(s, "colour B")
    assert game.action_to_string(bot.act(enc.encode(s, 0), game.legal_action_mask(s)), s) == "target P2"
    # Discard All with three more cards of its colour beats a plain number of that colour
    s = game.state_from_spec({"discard": ["Y3"], "hands": [["Y-DA", "Y9", "Y1", "Y2", "R5"], 6, 6, 6]})
    assert game.action_to_string(bot.act(enc.encode(s, 0), game.legal_action_mask(s))) == "play Y-DA"


def test_flip_heuristic_reads_back_faces_and_places_under_optimus():
    game = Game("flip", num_players=2)
    bot = agents.load("heuristic", game, seed=0)
    enc = ObservationEncoder(game)

    def choice(spec):
        s = game.state_from_spec(spec)
        return game.action_to_string(bot.act(enc.encode(s, 0), game.legal_action_mask(s)), s), s
    # the opponent (2 cards) would turn up two wilds after a flip: do not flip, play the number
    base = {"discard": ["A:G5"], "hands": [["A:G-FLIP", "A:G7", "A:R1", "A:R2"], ["A:B1|WDC", "A:B2|MEG"]]}
    assert choice(base)[0] == "play A:G7"
    # the same hand when the opponent's backs are weak numbers: flip
    weak = {**base, "hands": [base["hands"][0], ["A:B1|D:Pk1", "A:B2|D:Tl2"]]}
    assert choice(weak)[0] == "play A:G-FLIP"
    # a won Optimus duel: place an off-colour card, keep the wild
    s = game.state_from_spec({"discard": ["A:R5"], "hands": [["OPT", "A:R9", "A:R8", "A:B3", "W+2"], ["A:Y2", "A:G1"]]})
    game.step(s, "play OPT")
    game.step(s, "target P1")
    assert s.phase == "OPTIMUS_PLACE"
    assert game.action_to_string(bot.act(enc.encode(s, 0), game.legal_action_mask(s)), s) == "play A:B3"


def test_flex_heuristic_spends_power_only_where_flex_helps():
    game = Game("flex", num_players=2)
    bot = agents.load("heuristic", game, seed=0)
    enc = ObservationEncoder(game)
    # two players: a FLEX Flex Skip equals a Skip but costs the power card
    s = game.state_from_spec({"discard": ["BS"], "hands": [["FS:G~B", "R1"], 5]})
    assert {"play FS:G~B", "play FS:G~B flex"} <= set(game.legal_action_strings(s))
    a = bot.act(enc.encode(s, 0), game.legal_action_mask(s))
    assert game.action_to_string(a) == "play FS:G~B"
    # a FLEX Target Draw 2 hits the opponent; the target is the opponent with the fewest cards
    game4 = Game("flex", num_players=4)
    bot4 = agents.load("heuristic", game4, seed=0)
    enc4 = ObservationEncoder(game4)
    s = game4.state_from_spec({"discard": ["B2"], "hands": [["WT2", "R5", "R6"], 6, 2, 6]})
    a = bot4.act(enc4.encode(s, 0), game4.legal_action_mask(s))
    assert game4.action_to_string(a) == "play WT2 flex"
    game4.step(s, a)
    a = bot4.act(enc4.encode(s, 0), game4.legal_action_mask(s))
    assert game4.action_to_string(a, s) == "target P2"


STATISTICAL = pytest.mark.slow  # hundreds of games per variant: classic stays in test-quick, the others in make test


@pytest.mark.parametrize("variant, min_vs_random, over_vs_greedy", [
    ("classic", 0.62, 0.5), pytest.param("flex", 0.8, 0.55, marks=STATISTICAL),
    pytest.param("flip", 0.8, 0.55, marks=STATISTICAL), pytest.param("attack", 0.8, 0.52, marks=STATISTICAL)])
def test_heuristic_beats_random_and_greedy(variant, min_vs_random, over_vs_greedy):
    game = Game(variant, num_players=2)
    vs_random = head_to_head(game, lambda i: agents.load("heuristic", game, seed=i),
                             lambda i: agents.load("random", seed=i), games=300)
    assert vs_random["win_rate"] >= min_vs_random, vs_random
    vs_greedy = head_to_head(game, lambda i: agents.load("heuristic", game, seed=i),
                             lambda i: agents.load("greedy", game, seed=i), games=300)
    assert vs_greedy["win_rate"] > over_vs_greedy, vs_greedy


def test_wilson_interval():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


# ---------------------------------------------------------------------------- exported policies

@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from uno_env.gym_env import UnoEnv

    env = UnoEnv("classic", 2, learner_seat=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": {"pi": [32, 16], "vf": [32]}})
    model.set_logger(configure(str(tmp_path_factory.mktemp("sb3-log")), []))  # SB3's default makes a dir in /tmp
    model.learn(256)
    return model


def _observations(game, count=200):
    enc = ObservationEncoder(game)
    rng = np.random.default_rng(0)
    obs, masks = [], []
    s = game.new_state(0)
    while len(obs) < count:
        if s.is_over:
            s = game.new_state(len(obs))
        obs.append(enc.encode(s, s.current_seat))
        masks.append(game.legal_action_mask(s))
        legal = game.legal_actions(s)
        game.step(s, legal[int(rng.integers(len(legal)))])
    return np.array(obs), np.array(masks)


def test_exported_policy_reproduces_sb3_deterministic_actions(tiny_model, tmp_path):
    from train.export import policy_file_from_model

    game = Game("classic", num_players=2)
    path = str(tmp_path / "p")
    policy_file_from_model(tiny_model, game, 256).save(path)
    agent = load_policy(path, game)
    obs, masks = _observations(game)
    ours = [agent.act(o, m) for o, m in zip(obs, masks)]
    theirs, _ = tiny_model.predict(obs, action_masks=masks.astype(bool), deterministic=True)
    assert ours == theirs.tolist()
    assert len(set(ours)) > 1


def test_policy_loads_and_plays_without_stable_baselines3(tiny_model, tmp_path):
    from train.export import policy_file_from_model

    game = Game("classic", num_players=2)
    path = str(tmp_path / "p")
    policy_file_from_model(tiny_model, game, 256).save(path)
    code = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('stable_baselines3', 'sb3_contrib', 'torch'):
            raise ImportError('blocked ' + name)
sys.meta_path.insert(0, Block())
import agents
from train.evaluation.stats import head_to_head
from uno_env import Game
game = Game('classic', num_players=2)
r = head_to_head(game, lambda i: agents.load({path!r}, game), lambda i: agents.load('random', seed=i), 20)
assert 'stable_baselines3' not in sys.modules and 'torch' not in sys.modules
print(r['games'])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=os.getcwd())
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "20"


def test_policy_file_refuses_a_mismatch_and_bad_files(tiny_model, tmp_path):
    from train.export import policy_file_from_model

    game = Game("classic", num_players=2)
    path = str(tmp_path / "p")
    policy_file_from_model(tiny_model, game, 256).save(path)
    with pytest.raises(PolicyFileError, match="variant 'classic'"):
        load_policy(path, Game("alphabet", num_players=2))
    with pytest.raises(PolicyFileError, match="2 players"):
        load_policy(path, Game("classic", num_players=3))
    assert isinstance(load_policy(path, Game("classic", num_players=3), strict_rules=False), PolicyAgent)
    with pytest.raises(PolicyFileError, match="rule options"):
        load_policy(path, Game("classic", num_players=2, stacking="any"))
    meta = json.load(open(path + ".json"))
    os.replace(path + ".npz", tmp_path / "bad.npz")  # weights beside each doctored metadata file below
    for key, value, words in (("observation_layout_version", 99, "observation layout version 99"),
                              ("num_actions", 7, "7 actions"), ("format", "pickle", "not an uno-env-policy"),
                              ("layers", [1, 2], "do not fit layers")):
        json.dump({**meta, key: value}, open(tmp_path / "bad.json", "w"))
        with pytest.raises(PolicyFileError, match=words):
            load_policy(str(tmp_path / "bad"), game)
    wrong = PolicyFile([np.zeros((3, 4)), np.zeros(4), np.zeros((4, 2)), np.zeros(2)], {**meta, "layers": [3, 4, 2]})
    wrong.save(str(tmp_path / "shape"))
    with pytest.raises(PolicyFileError, match="network input/output sizes 3/2"):
        load_policy(str(tmp_path / "shape"), game)
    assert meta["layers"][0] == ObservationEncoder(game).size and meta["layers"][-1] == game.num_actions
    np.savez(tmp_path / "obj.npz", p0=np.array([{"x": 1}], dtype=object))
    json.dump(meta, open(tmp_path / "obj.json", "w"))
    with pytest.raises(PolicyFileError, match="not a readable weight file"):
        PolicyFile.read(str(tmp_path / "obj"))
    with pytest.raises(PolicyFileError, match="no policy metadata"):
        PolicyFile.read(str(tmp_path / "missing"))


@pytest.mark.parametrize("name, variant, min_vs_random, other_variant", [
    ("classic-2p", "classic", 0.65, "xiangqi"), ("flex-2p", "flex", 0.8, "classic"), ("flip-2p", "flip", 0.8, "flex"),
    ("alphabet-2p", "alphabet", 0.8, "classic"), ("xiangqi-2p", "xiangqi", 0.8, "alphabet"), ("attack-2p", "attack", 0.8, "flip")])
def test_shipped_pretrained_agent_loads_and_plays(name, variant, min_vs_random, other_variant):
    game = Game(variant, num_players=2)
    assert name in agents.pretrained_names()
    bot = agents.load(f"pretrained:{name}", game)
    meta = bot.policy.metadata
    assert meta["variant"] == variant and meta["num_players"] == 2 and meta["training_steps"] > 1_000_000
    assert meta["config"]["run_name"] == name
    result = head_to_head(game, lambda i: bot, lambda i: agents.load("random", seed=i), games=200)
    assert result["win_rate"] >= min_vs_random, result
    with pytest.raises(PolicyFileError, match="variant"):
        agents.load(f"pretrained:{name}", Game(other_variant, num_players=2))


@pytest.mark.parametrize("variant, other_variant", [("classic", "alphabet"), ("alphabet", "xiangqi"),
                                                    ("xiangqi", "classic"), ("flex", "flip"), ("flip", "attack"),
                                                    ("attack", "flex")])
def test_shipped_native_agents_play_two_and_four_players(variant, other_variant):
    assert variant in agents.pretrained_names()
    for players, games, floor in ((2, 100, 0.8), (4, 80, 0.5)):  # parity: 50% and 25%
        game = Game(variant, num_players=players)
        bot = agents.load(f"pretrained:{variant}", game)  # no strict_rules=False: it trained at both sizes
        meta = bot.policy.metadata
        assert meta["table_sizes"] == [2, 4] and meta["observation_layout_version"] == 2
        assert meta["config"]["run_name"] == variant and meta["training_steps"] > 1_000_000
        result = head_to_head(game, lambda i: bot, lambda i: agents.load("random", game, seed=i), games=games)
        assert result["win_rate"] >= floor, result
    with pytest.raises(PolicyFileError, match="variant"):
        agents.load(f"pretrained:{variant}", Game(other_variant, num_players=2))
    with pytest.raises(PolicyFileError, match="2/4 players"):
        agents.load(f"pretrained:{variant}", Game(variant, num_players=3))


def test_pretrained_passes_over_an_sb3_specialist(tmp_path, monkeypatch):
    """``pretrained`` plays a native specialist of the table size; an SB3 one under that name is passed over."""
    data = os.path.join(DATA)
    for ext in ("npz", "json"):
        shutil.copy(os.path.join(data, f"sb3-attack-2p.{ext}"), tmp_path / f"attack-2p.{ext}")
        shutil.copy(os.path.join(agents.PRETRAINED_DIR, f"attack.{ext}"), tmp_path / f"attack.{ext}")
    monkeypatch.setattr(agents.loader, "PRETRAINED_DIR", str(tmp_path))  # the loader's module reads it
    assert agents.pretrained_names() == ["attack", "attack-2p"]
    assert agents.pretrained_for(Game("attack", 2)) == "attack"
    assert agents.load("pretrained", Game("attack", 2)).policy.metadata["config"]["run_name"] == "attack"


def test_pretrained_without_a_name_is_the_policy_of_the_games_variant():
    bot = agents.load("pretrained", Game("flex", num_players=3), seed=1, strict_rules=False)  # no 3p specialist
    assert bot.policy.metadata["config"]["run_name"] == "flex"
    assert agents.pretrained_for(Game("xiangqi", 3)) == "xiangqi"
    # a four-player specialist plays four-player tables, and only those
    for variant in ("classic", "xiangqi", "flex", "attack"):
        assert agents.load("pretrained", Game(variant, 4)).policy.metadata["config"]["run_name"] == f"{variant}-4p"
    assert agents.pretrained_for(Game("classic", 3)) == "classic"
    with pytest.raises(PolicyFileError, match="4 players"):
        agents.load("pretrained:classic-4p", Game("classic", num_players=2))
    # at two players, a native specialist of that size is preferred; an earlier SB3 one is not
    assert agents.load("pretrained", Game("classic", 2)).policy.metadata["config"]["run_name"] == "classic-2p"
    assert agents.pretrained_for(Game("alphabet", 2)) == "alphabet-2p"
    assert agents.pretrained_for(Game("attack", 2)) == "attack-2p"
    with pytest.raises(ValueError, match="pass game="):
        agents.load("pretrained")
    with pytest.raises(agents.AgentSpecError, match="did you mean .pretrained."):
        agents.load("pretraind", Game("classic"))


@pytest.mark.parametrize("name", agents.pretrained_names())
def test_each_shipped_policy_records_its_config_in_configs_train(name):
    """A policy file's recorded config is ``configs/train/<name>.yaml`` (keys newer than the file: defaults)."""
    from train.config import TrainConfig

    root = str(ROOT)
    with open(os.path.join(agents.PRETRAINED_DIR, f"{name}.json"), encoding="utf-8") as fh:
        recorded = json.load(fh)["config"]
    config = TrainConfig.from_yaml(os.path.join(root, "configs", "train", f"{name}.yaml")).to_dict()
    defaults = TrainConfig().to_dict()
    assert len(recorded) > 15
    assert {k: v for k, v in recorded.items() if config.get(k) != v} == {}
    assert {k: v for k, v in config.items() if k not in recorded and v != defaults[k]} == {}
