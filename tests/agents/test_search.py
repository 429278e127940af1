"""The ``ismcts`` search agent: legal moves in every phase, reproducible, usable wherever a spec is."""
import numpy as np
import pytest

import agents
from agents.search import ISMCTSAgent, SearchOptionError
from train.benchmark.search import positions
from train.config import ConfigError, TrainConfig
from train.evaluation.stats import head_to_head
from uno_env import Game
from uno_env.gym_env import UnoEnv
from uno_env.observation import ObservationEncoder

from search_tables import TABLES  # tests/search_tables.py

COMMON = {"TURN", "CHOOSE_COLOUR"}
# the decisions the legality test must have searched at each table (its games are seeded)
SEARCHED = [COMMON | {"CHALLENGE_OR_ACCEPT", "PLAY_OR_KEEP_DRAWN"},
            COMMON | {"JUMP_IN", "MULTI_PLAY", "PLAY_OR_KEEP_DRAWN", "STACK_RESPONSE"},
            COMMON | {"CHALLENGE_OR_ACCEPT", "PLAY_OR_KEEP_DRAWN"},
            COMMON | {"CHALLENGE_OR_ACCEPT", "PLAY_OR_KEEP_DRAWN"},
            COMMON | {"CHALLENGE_OR_ACCEPT", "CHOOSE_TARGET", "PLAY_OR_KEEP_DRAWN"},
            COMMON | {"CHALLENGE_OR_ACCEPT", "CHOOSE_TARGET", "OPTIMUS_PLACE", "PLAY_OR_KEEP_DRAWN"},
            COMMON | {"CHALLENGE_OR_ACCEPT", "OPTIMUS_PLACE", "PLAY_OR_KEEP_DRAWN"},
            COMMON | {"CHOOSE_TARGET", "STACK_RESPONSE"},
            COMMON | {"STACK_RESPONSE"}]


@pytest.mark.parametrize("variant,players,options,expected", [t + (e,) for t, e in zip(TABLES, SEARCHED)])
def test_only_legal_actions_in_every_phase_searched(variant, players, options, expected):
    """Random games; decisions with a choice are searched (small budget) and must be legal; every decision type
    the table reached (targets, challenges, stack responses, jump-ins, multi-plays, Optimus) was searched."""
    g = Game(variant, players, **options)
    agent = ISMCTSAgent(g, seed=0, iterations=8)
    rng = np.random.default_rng(3)
    phases_searched = set()
    for seed in range(4):
        s = g.new_state(seed)
        while not s.is_over and s.steps < 150:
            legal = g.legal_actions(s)
            if len(legal) > 1 and rng.random() < 0.5:
                a = agent.act_state(s)
                assert a in legal
                if agent.last_iterations:
                    phases_searched.add(str(s.phase))
            else:
                a = legal[int(rng.integers(len(legal)))]
            g.step(s, a)
    assert phases_searched >= expected, sorted(expected - phases_searched)


@pytest.mark.parametrize("variant,players,options", [TABLES[1], TABLES[5], TABLES[7]])
def test_opponents_modelled_by_the_rollout_policy_legal_and_reproducible(variant, players, options):
    """With opponents=rollout the other seats play the rollout policy inside the search: still only legal,
    reproducible moves."""
    g = Game(variant, players, **options)
    rng = np.random.default_rng(5)
    searched = 0
    for seed in range(3):
        s = g.new_state(seed)
        while not s.is_over and s.steps < 120:
            legal = g.legal_actions(s)
            if len(legal) > 1 and rng.random() < 0.3:
                first = ISMCTSAgent(g, seed=seed, iterations=12, opponents="rollout")
                a = first.act_state(s)
                assert a in legal and a == ISMCTSAgent(g, seed=seed, iterations=12, opponents="rollout").act_state(s)
                searched += first.last_iterations > 0
            else:
                a = legal[int(rng.integers(len(legal)))]
            g.step(s, a)
    assert searched > 0


def test_same_seed_same_move_and_the_state_is_untouched():
    g = Game("classic", 3)
    s = g.new_state(11)
    while len(g.legal_actions(s)) < 3:
        g.step(s, g.legal_actions(s)[0])
    before = (repr(g.to_spec(s)), repr(s.rng.bit_generator.state))
    moves = [ISMCTSAgent(g, seed=7, iterations=60).act_state(s) for _ in range(2)]
    assert moves[0] == moves[1]
    assert (repr(g.to_spec(s)), repr(s.rng.bit_generator.state)) == before
    a = ISMCTSAgent(g, seed=7, iterations=60)
    a.act_state(s)
    assert a.last_iterations == 60
    a.seed(7)
    assert a.act_state(s) == moves[0]


@pytest.mark.parametrize("variant,players,options", [("flip", 2, {}), ("attack", 3, {}), ("flex", 2, {}),
                                                      ("classic", 4, {"void_weight": 0.3})])
def test_same_seed_same_moves_along_a_game(variant, players, options):
    """Two agents built with the same seed choose the same move at every searched decision of a game."""
    g = Game(variant, players)
    first, second = (ISMCTSAgent(g, seed=9, iterations=20, **options) for _ in range(2))
    s = g.new_state(21)
    searched = 0
    while not s.is_over and s.steps < 80:
        a = first.act_state(s)
        assert second.act_state(s) == a
        searched += first.last_iterations > 0
        g.step(s, a)
    assert searched >= 5


def test_spec_options_and_bad_options():
    g = Game("classic", 2)
    a = agents.load("ismcts:iterations=25,c=0.5", g, seed=1)
    assert isinstance(a, ISMCTSAgent) and a.options["iterations"] == 25 and a.options["c"] == 0.5
    assert agents.load("ismcts", g).options["iterations"] == 300
    assert agents.load("ismcts:leaf=sizes", g).options["leaf"] == "sizes" and agents.load("ismcts", g).options["leaf"] == "fitted"
    assert agents.load("ismcts:opponents=rollout", g).options["opponents"] == "rollout"
    assert agents.load("ismcts:void_weight=0.1", g).options["void_weight"] == 0.1
    for spec, words in [("ismcts:iterations=0", "out of range"), ("ismcts:depth=3", "allowed: iterations"),
                        ("ismcts:iterations=many", "must be a int"), ("ismcts:c", "key=value"),
                        ("ismcts:time=-1", "out of range"), ("ismcts:leaf=cards", "not one of: fitted, sizes"),
                        ("ismcts:opponents=heuristic", "not one of: search, rollout"),
                        ("ismcts:void_weight=2", "out of range")]:
        with pytest.raises(SearchOptionError, match=words):
            agents.load(spec, g)
    with pytest.raises(SearchOptionError, match="out of range"):
        ISMCTSAgent(g, iterations=0)
    with pytest.raises(TypeError, match="act_state"):
        a.act(np.zeros(3), np.ones(3))


def test_a_prior_of_weight_zero_searches_exactly_as_without_one():
    g = Game("classic", 4)
    plain = ISMCTSAgent(g, seed=4, iterations=40)
    guided = agents.load("ismcts:iterations=40,prior=pretrained,prior_weight=0", g, seed=4)
    for s in positions(g, 12):
        assert guided.act_state(s) == plain.act_state(s)
        assert guided.root_prior and abs(sum(guided.root_prior.values()) - 1) < 1e-9


def test_a_heavy_prior_plays_the_guiding_policys_clear_favourite():
    """With a huge weight the root's visits follow the guide: where its favourite is clearly ahead (1.5 times
    the runner-up's probability), the search plays it."""
    g = Game("classic", 4)
    guide, encoder = agents.load("pretrained", g), ObservationEncoder(g)
    search = agents.load("ismcts:iterations=60,prior=pretrained,prior_weight=1000000", g, seed=2)
    plain = ISMCTSAgent(g, seed=2, iterations=60)
    checked = differs = 0
    for s in positions(g, 60, seed=10):
        legal = g.legal_actions(s)
        p = search.prior_of(s, legal)
        if search.unsearched_action(s, legal) is not None:
            continue
        ranked = sorted(p.values(), reverse=True)
        if ranked[0] < 1.5 * ranked[1]:
            continue
        favourite = max(p, key=p.get)
        assert search.act_state(s) == favourite
        assert favourite == guide.act(encoder.encode(s, s.current_seat), g.legal_action_mask(s))
        differs += plain.act_state(s) != favourite
        checked += 1
    assert checked >= 15 and differs > 0  # the plain search disagrees somewhere, so the prior did the steering


def test_bad_prior_options_are_errors_naming_what_is_allowed():
    g = Game("classic", 2)
    for spec, error, words in [("ismcts:prior=heuristic", SearchOptionError, "is not a policy: allowed none, pretrained"),
                               ("ismcts:prior=pretrained:nope", agents.AgentSpecError, "no pretrained policy 'nope'"),
                               ("ismcts:prior=", SearchOptionError, "is empty"),
                               ("ismcts:prior=pretrained,prior_weight=-1", SearchOptionError, "out of range"),
                               ("ismcts:prior=pretrained:flip", agents.PolicyFileError, "flip")]:
        with pytest.raises(error, match=words):
            agents.load(spec, g)
    assert agents.load("ismcts", g).guide is None


def test_the_search_is_handed_its_prior_already_loaded():
    """The loader builds the prior and hands it over; a search built by hand with the same guide plays the same."""
    g = Game("classic", 2)
    guide = agents.load("pretrained", g, seed=3)
    by_hand = ISMCTSAgent(g, seed=3, guide=guide, iterations=20, prior="pretrained")
    by_spec = agents.load("ismcts:iterations=20,prior=pretrained", g, seed=3)
    assert by_hand.guide is guide and type(by_spec.guide) is type(guide)
    for s in positions(g, 6):
        assert by_hand.act_state(s) == by_spec.act_state(s)
    # naming a prior without its policy would search unguided without a word; a guide must be a policy
    with pytest.raises(SearchOptionError, match="does not load"):
        ISMCTSAgent(g, prior="pretrained")
    with pytest.raises(SearchOptionError, match="no logits"):
        ISMCTSAgent(g, guide=agents.load("heuristic", g))


@pytest.mark.slow  # a statistical strength check: hundreds of searched decisions
def test_search_beats_random_and_plays_in_every_tool():
    g = Game("classic", 2)
    result = head_to_head(g, lambda i: agents.load("ismcts:iterations=40", g, seed=i),
                          lambda i: agents.load("random", g, seed=100 + i), games=30, seed=5)
    assert result["win_rate"] >= 0.75  # random wins about half of even games
    # the Gymnasium env takes it as an opponent (it reads the state, not the observation)
    env = UnoEnv("flip", 2, opponents=agents.load("ismcts:iterations=5", Game("flip", 2), seed=0))
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, reward, term, trunc, info = env.step(int(legal[0]))
        done = term or trunc


def test_native_league_accepts_search_opponents(tmp_path):
    cfg = TrainConfig.from_dict({"algo": "ppo", "variant": "classic", "num_games": 4, "n_steps": 8, "batch_size": 32,
                                 "total_timesteps": 64, "opponents": {"ismcts:iterations=4": 1.0},
                                 "self_play_games": 0.0, "eval_every": 10**9, "eval_games": 2,
                                 "snapshot_every": 10**9, "net_arch": [8], "out_dir": str(tmp_path), "run_name": "s"})
    from train.ppo import trainer as native_ppo

    summary = native_ppo.train(cfg, progress=False)
    assert summary["timesteps"] >= 64
    with pytest.raises(ConfigError, match="ismcts option"):
        TrainConfig.from_dict({"algo": "ppo", "opponents": {"ismcts:iterations=x": 1.0}})


def test_the_cut_rollout_estimate_is_zero_sum_and_favours_fewer_cards():
    from agents.search import estimate

    g = Game("attack", 4, backend="python")  # the search's own engine; the test edits a state
    s = g.new_state(0)
    s.hand_size = [2, 5, 7, 5]
    values = estimate(s)
    assert abs(sum(values)) < 1e-9
    assert values[0] > values[1] == values[3] > values[2]
    s.eliminated = [False, False, True, False]  # a seat out of the match cannot win
    assert estimate(s)[2] == pytest.approx(-1 / 3)


def test_bench_search_reports_every_part_of_the_search_path(capsys):
    from train.app.cli import main

    assert main(["bench", "search", "--players", "2", "--positions", "20", "--rounds", "1",
                 "--iterations", "5"]) == 0
    out = capsys.readouterr().out
    for label in ("clone", "sample (own generator)", "sample (shared generator)", "sample (shared, void_weight=0.2)",
                  "rollout", "rollout, uniform random", "ismcts iterations=5",
                  "core clone", "core sample (shared generator)", "core clone, inside the core",
                  "core sample, inside the core", "core rollout, uniform random"):
        assert label in out


def test_root_visits_alone_searches_guided_as_act_state_does():
    """The distillation's teacher calls root_visits, not act_state: the prior is read there, so its visits are
    act_state's (from the same generator), and a heavy prior changes them."""
    g = Game("classic", 2)
    spec = "ismcts:iterations=60,prior=pretrained,prior_weight=50"
    changed = 0
    for s in positions(g, 8):
        if len(g.legal_actions(s)) < 2 or ISMCTSAgent(g).unsearched_action(s, g.legal_actions(s)) is not None:
            continue
        alone, acting = agents.load(spec, g, seed=2), agents.load(spec, g, seed=2)
        visits = alone.root_visits(s)
        assert alone.root_prior and acting.act_state(s) == max(visits, key=lambda a: (visits[a], -a))
        changed += visits != ISMCTSAgent(g, seed=2, iterations=60).root_visits(s)
    assert changed > 0
