"""IS-MCTS in the core (uno_env/core/search.cpp) makes the reference's decisions: the same root visits, the same
iterations and the same generator position after every search, on every variant and with every option.

The reference is agents/search.py's Python loop (``engine=python``); the core's twin (``engine=core``) must match
it exactly, as the differential harness makes the two engines match."""
from types import SimpleNamespace

import numpy as np
import pytest

from agents.search import ISMCTSAgent, SearchOptionError
from uno_env import Game, core
from uno_env.observation import ObservationEncoder

from search_tables import TABLES as SEARCH_TABLES  # tests/search_tables.py

pytestmark = pytest.mark.skipif(not core.available(), reason="the compiled core is not built")

# the search tests' tables, and Flip's fixed pairing, which the sampler redeals its own way
TABLES = SEARCH_TABLES + [("flip", 2, {"uno_call": "explicit", "flip.pairing": "fixed"})]


class SineGuide:
    """A guide with fixed, uneven logits (a stand-in for a policy file: only its numbers matter here)."""

    def __init__(self, game: Game):
        self.n = game.num_actions

    def logits(self, observation: np.ndarray) -> np.ndarray:
        return np.sin(np.arange(self.n) * 1.7 + float(observation.sum())).astype(np.float32)


def both(game: Game, seed: int, **options) -> tuple[ISMCTSAgent, ISMCTSAgent]:
    guide = SineGuide(game) if options.get("prior") else None
    return tuple(ISMCTSAgent(game, seed=seed, guide=guide, engine=engine, **options) for engine in ("python", "core"))


def assert_alike(game: Game, options: dict, games: int = 2, decisions: int = 40, iterations: int = 24,
                 make=both) -> int:
    """Search every position with a choice of a few seeded games with both loops (``make`` builds the pair); the
    count of positions searched."""
    searched = 0
    for seed in range(games):
        s = game.new_state(seed)
        pick = np.random.default_rng(seed)
        while not s.is_over and s.steps < decisions:
            legal = game.legal_actions(s)
            if len(legal) > 1:
                reference, twin = make(game, seed * 1000 + s.steps, iterations=iterations, **options)
                expected = reference.root_visits(s)
                assert twin.root_visits(s) == expected, (seed, s.steps, str(s.phase))
                assert twin.last_iterations == reference.last_iterations == iterations
                assert twin.rng.random() == reference.rng.random()  # the same draws, in the same number
                searched += bool(expected)
            game.step(s, legal[int(pick.integers(len(legal)))])
    return searched


@pytest.mark.parametrize("variant,players,rule_options", TABLES)
def test_same_visits_as_the_reference_on_every_variant(variant, players, rule_options):
    g = Game(variant, players, **rule_options)
    assert assert_alike(g, {}) > 20


@pytest.mark.parametrize("options", [{"opponents": "rollout"}, {"leaf": "sizes"}, {"void_weight": 0.3},
                                     {"c": 0.4, "rollout_depth": 3}, {"prior": "guide", "prior_weight": 2.0},
                                     {"prior": "guide", "prior_weight": 0.0}, {"void_weight": 0.0, "rollout_depth": 1},
                                     {"tree_depth": 1}, {"tree_depth": 3, "opponents": "rollout"}])
@pytest.mark.parametrize("variant,players", [("classic", 2), ("flex", 4), ("flip", 3), ("attack", 2)])
def test_same_visits_with_every_option(variant, players, options):
    g = Game(variant, players)
    assert assert_alike(g, options, games=1) > 10


def test_same_moves_through_whole_games_on_either_state():
    """act_state agrees move for move whether it is handed a native state or its Python twin (copied once)."""
    native = Game("classic", 3)
    python = Game("classic", 3, backend="python")
    reference, twin = (ISMCTSAgent(python, seed=5, iterations=40, engine=e) for e in ("python", "core"))
    s, t = native.new_state(11), python.new_state(11)
    while not s.is_over:
        a = twin.act_state(s)
        assert a == reference.act_state(t)
        native.step(s, a)
        python.step(t, a)
    assert t.is_over and s.winner == t.winner


def test_a_timed_search_stops_at_its_iterations_or_its_time():
    g = Game("classic", 2)
    s = g.new_state(3)
    while len(g.legal_actions(s)) < 2:
        g.step(s, g.legal_actions(s)[0])
    capped = ISMCTSAgent(g, seed=1, iterations=50, time=30.0, engine="core")  # iterations bind: reproducible
    again = ISMCTSAgent(g, seed=1, iterations=50, engine="core")
    assert capped.root_visits(s) == again.root_visits(s) and capped.last_iterations == 50
    timed = ISMCTSAgent(g, seed=1, iterations=10_000_000, time=0.02, engine="core")
    visits = timed.root_visits(s)
    assert 0 < timed.last_iterations < 10_000_000 and sum(visits.values()) == timed.last_iterations


def test_engine_option_is_checked_and_auto_follows_the_backend(monkeypatch):
    g = Game("classic", 2)
    with pytest.raises(SearchOptionError, match="engine"):
        ISMCTSAgent(g, engine="gpu")
    assert ISMCTSAgent(g).core_game is not None  # auto: the core where it is built
    assert ISMCTSAgent(g, engine="python").core_game is None
    monkeypatch.setenv("UNO_ENV_BACKEND", "python")
    assert ISMCTSAgent(g).core_game is None  # a process kept on the reference searches there too


def test_a_state_of_other_rules_is_refused():
    agent = ISMCTSAgent(Game("classic", 2), seed=0, iterations=5, engine="core")
    other = Game("classic", 3)
    with pytest.raises(ValueError, match="other rules"):
        agent.root_visits(other.new_state(0))


def test_the_binding_checks_what_it_is_handed():
    g = Game("classic", 2)
    s = g.new_state(0)
    agent = ISMCTSAgent(g, seed=0, iterations=5, engine="core")
    tables, rng = agent.core_game._tables, np.random.default_rng(0)
    good = dict(iterations=5, time=0.0, c=1.0, rollout_depth=2, void_weight=1.0, opponents_rollout=False,
                leaf_weights=[], prior=[], prior_weight=1.0, first=-1)
    core._core.ismcts_root_visits(tables, s._c, rng, **good)
    for bad, message in [({"iterations": 0}, "iterations"), ({"rollout_depth": 0}, "rollout_depth"),
                         ({"c": -1.0}, "finite"), ({"time": float("nan")}, "finite"), ({"void_weight": 2.0}, "void"),
                         ({"leaf_weights": [1.0] * 3}, "leaf_weights"), ({"prior": [0.5] * 3}, "prior"),
                         ({"first": g.num_actions}, "first"), ({"first": -2}, "first"),
                         ({"tree_depth": -1}, "tree_depth")]:
        with pytest.raises(ValueError, match=message):
            core._core.ismcts_root_visits(tables, s._c, rng, **{**good, **bad})
    other = Game("classic", 3)
    with pytest.raises(ValueError, match="other rules"):
        core._core.ismcts_root_visits(other._tables, s._c, rng, **good)
    while not s.is_over:
        g.step(s, g.legal_actions(s)[0])
    with pytest.raises(ValueError, match="over"):
        core._core.ismcts_root_visits(tables, s._c, rng, **good)


@pytest.mark.parametrize("variant,players,rule_options", TABLES)
def test_the_leaf_model_is_fitted_on_the_same_games_in_the_core(variant, players, rule_options):
    """leaf_value.fit's games played by the core's twin of the rollout policy give the reference's rows exactly."""
    from agents.leaf_value import FIT_SEED, SAMPLE_RATE, fit_rows
    from agents.search import RolloutPolicy

    python = Game(variant, players, backend="python", **rule_options)
    native = Game(variant, players, backend="native", **rule_options)
    x, off, y = fit_rows(python, RolloutPolicy(python), 12, np.random.default_rng(FIT_SEED))
    cx, coff, cy = core._core.leaf_fit_rows(native._tables, FIT_SEED, 12, SAMPLE_RATE, np.random.default_rng(FIT_SEED))
    assert len(y) > 20
    assert np.array_equal(x, cx) and np.array_equal(off, coff) and np.array_equal(y, cy)


def test_a_subclass_with_its_own_worlds_or_opponents_searches_in_python():
    """world() and opponent_model() are the documented extension points: the core's loop cannot call them."""
    class Sees(ISMCTSAgent):
        def world(self, state, me, rng):
            return state.clone(rng)

    g = Game("classic", 2)
    assert Sees(g, seed=0, iterations=4).core_game is None
    with pytest.raises(SearchOptionError, match="overrides world"):
        Sees(g, engine="core")


def test_the_core_bounds_what_a_huge_option_would_cost():
    """Any finite time and any iteration count are allowed: the core neither reserves memory for every iteration
    up front nor overflows its clock; the leaf fit's game count is capped."""
    g = Game("classic", 2)
    s = g.new_state(0)
    tables, rng = g._tables, np.random.default_rng(0)
    common = dict(c=1.0, rollout_depth=2, void_weight=1.0, opponents_rollout=False, leaf_weights=[], prior=[],
                  prior_weight=1.0, first=-1)
    _, done = core._core.ismcts_root_visits(tables, s._c, rng, iterations=7, time=1e300, **common)
    assert done == 7  # a time no clock can hold: the iterations bound the search
    _, done = core._core.ismcts_root_visits(tables, s._c, rng, iterations=2**31 - 1, time=0.01, **common)
    assert 0 < done < 2**31 - 1
    for games, rate, message in [(100_001, 0.2, "games"), (-1, 0.2, "games"), (5, 1.5, "sample_rate")]:
        with pytest.raises(ValueError, match=message):
            core._core.leaf_fit_rows(tables, 1, games, rate, rng)


class ReluPolicy:
    """An actor policy file's agent in miniature: uneven ReLU layers reading a prefix of the observation (as a
    layout-1 policy does), enough to exercise every shape the opponents' network may have."""

    def __init__(self, game: Game, inputs: int):
        rng = np.random.default_rng(3)
        sizes = [inputs, 24, 17, game.num_actions]
        weights = []
        for a, b in zip(sizes, sizes[1:]):
            weights += [rng.normal(0, 0.5, (a, b)).astype(np.float32), rng.normal(0, 0.1, b).astype(np.float32)]
        self.policy = SimpleNamespace(weights=weights, metadata={"activation": "relu"})
        self.scorer = None


def policy_opponents(guide):
    """A ``make`` for assert_alike: both loops with opponents=policy, the opponents playing ``guide``."""
    def make(game: Game, seed: int, **options) -> tuple[ISMCTSAgent, ISMCTSAgent]:
        return tuple(ISMCTSAgent(game, seed=seed, opponent_guide=guide, opponents="policy", engine=engine, **options)
                     for engine in ("python", "core"))
    return make


@pytest.mark.parametrize("variant,players,rule_options", TABLES)
def test_policy_opponents_choose_alike_on_every_variant(variant, players, rule_options):
    """opponents=policy: the core evaluates the opponents' network (the shipped tanh policy, and a ReLU one reading
    a prefix of the row) and chooses as the reference does."""
    import agents

    g = Game(variant, players, **rule_options)
    assert assert_alike(g, {}, games=1, make=policy_opponents(agents.load("pretrained", g, strict_rules=False))) > 10
    prefix = ObservationEncoder(g).size - 7
    assert assert_alike(g, {"rollout_depth": 2}, games=1, make=policy_opponents(ReluPolicy(g, prefix))) > 10


def test_policy_opponents_cannot_see_the_searchers_cards():
    """The opponents' choice reads only their own observation: the searcher's hand changed (same size), the same
    choice; their own hand changed, the network's input changes."""
    import agents
    from agents.search import PolicyOpponent

    g = Game("classic", 4, backend="python")
    opponent = PolicyOpponent(g, agents.load("pretrained", g))
    s = g.new_state(8)
    g.step(s, g.legal_actions(s)[0])
    seat, searcher = s.current_seat, (s.current_seat + 3) % 4
    legal = g.legal_actions(s)
    before = opponent.encoder.encode(s, seat)
    choice = opponent.choose(s, legal, np.random.default_rng(0))
    held = np.flatnonzero(np.asarray(s.hands[searcher]))
    unheld = np.flatnonzero(np.asarray(s.hands[searcher]) == 0)
    s.hands[searcher][held[0]] -= 1
    s.hands[searcher][unheld[0]] += 1
    assert np.array_equal(opponent.encoder.encode(s, seat), before)
    assert opponent.choose(s, legal, np.random.default_rng(0)) == choice
    s.hands[seat][int(np.flatnonzero(np.asarray(s.hands[seat]) == 0)[0])] += 1
    assert not np.array_equal(opponent.encoder.encode(s, seat), before)


def test_policy_opponents_are_checked():
    import agents
    from agents.loader import AgentSpecError

    g = Game("classic", 4)
    with pytest.raises(SearchOptionError, match="opponents=policy"):
        ISMCTSAgent(g, opponents="policy")  # no policy handed over
    with pytest.raises(SearchOptionError, match="opponents=policy"):
        ISMCTSAgent(g, opponent_guide=agents.load("pretrained", g))  # a policy, but the opponents search
    with pytest.raises(SearchOptionError, match="opponent_policy"):
        ISMCTSAgent(g, opponents="policy", opponent_guide=SineGuide(g))  # logits only: no layers to copy
    with pytest.raises((SearchOptionError, AgentSpecError), match="opponent_policy"):
        agents.load("ismcts:opponents=policy,opponent_policy=heuristic", g)
    with pytest.raises(SearchOptionError, match="opponents"):
        agents.load("ismcts:opponents=oracle", g)
    loaded = agents.load("ismcts:opponents=policy,opponent_policy=pretrained:classic-4p,iterations=5", g, seed=0)
    assert loaded.policy_opponent is not None and loaded.core_game is not None


def test_the_binding_checks_the_opponents_network():
    g = Game("classic", 2)
    s = g.new_state(0)
    agent = ISMCTSAgent(g, seed=0, iterations=5, engine="core")
    tables, rng = agent.core_game._tables, np.random.default_rng(0)
    layout = ObservationEncoder(g).layout()
    size = layout["size"]
    good = dict(iterations=5, time=0.0, c=1.0, rollout_depth=2, void_weight=1.0, opponents_rollout=False,
                leaf_weights=[], prior=[], prior_weight=1.0, first=-1, tree_depth=0, opponent_relu=False)
    layers = [np.zeros((size, 8)), np.zeros(8), np.zeros((8, g.num_actions)), np.zeros(g.num_actions)]
    core._core.ismcts_root_visits(tables, s._c, rng, opponent_layers=layers, layout=layout, **good)
    for bad, message in [(layers[:3], "alternate"), ([np.zeros((size + 1, 8))] + layers[1:], "inputs"),
                         ([layers[0], np.zeros(9)] + layers[2:], "bias"),
                         (layers[:2] + [np.zeros((9, g.num_actions)), layers[3]], "inputs"),
                         (layers[:2] + [np.zeros((8, 5)), np.zeros(5)], "per action"),
                         ([np.zeros(size)] + layers[1:], "matrix"),
                         (layers[:2] + [np.zeros((8, 4096)), np.zeros(4096)] + [np.zeros((4096, 4096)), np.zeros(4096)]
                          + layers[2:], "weights in all")]:
        with pytest.raises(ValueError, match=message):
            core._core.ismcts_root_visits(tables, s._c, rng, opponent_layers=bad, layout=layout, **good)
    with pytest.raises(ValueError, match="layout"):
        core._core.ismcts_root_visits(tables, s._c, rng, opponent_layers=layers, **good)


def weights_for(game: Game, seed: int) -> np.ndarray:
    """Uneven weights per hand and card kind, some zero: a stand-in belief (only its numbers matter here)."""
    rng = np.random.default_rng(seed)
    return rng.random((game.num_players, game.num_kinds)) * 3 * (rng.random((game.num_players, game.num_kinds)) > 0.2)


class Believer(ISMCTSAgent):
    """A search that deals its worlds by a belief: the extension point that keeps the search in the core."""

    def belief_of(self, state):
        return weights_for(self.game, int(state.steps) + 7 * state.current_seat)


@pytest.mark.parametrize("variant,players,rule_options", [t for t in TABLES if t[0] != "flip"])
@pytest.mark.parametrize("options", [{}, {"void_weight": 0.3}])
def test_same_visits_with_a_belief_on_every_one_sided_variant(variant, players, rule_options, options):
    """Worlds dealt by belief_of's weights (kind_weights, with the void weights or not) are the reference's worlds:
    the same visits and draws; root_visits reads the belief itself, as act_state does."""
    def believing(game, seed, **options):
        return tuple(Believer(game, seed=seed, engine=engine, **options) for engine in ("python", "core"))

    g = Game(variant, players, **rule_options)
    assert assert_alike(g, options, games=1, make=believing) > 10


def test_a_belief_stays_in_the_core_and_moves_alike_through_whole_games():
    """belief_of is read once a searched decision by act_state, on either loop; overriding it keeps the core's loop,
    and the belief changes the moves (so it is used)."""
    g = Game("classic", 2)
    twin, reference = Believer(g, seed=3, iterations=60), Believer(g, seed=3, iterations=60, engine="python")
    plain = ISMCTSAgent(g, seed=3, iterations=60)
    assert twin.core_game is not None
    s, differs = g.new_state(4), 0
    while not s.is_over:
        a = twin.act_state(s)
        assert a == reference.act_state(s)
        differs += a != plain.act_state(s)
        g.step(s, a)
    assert differs > 0


def test_the_binding_checks_the_belief():
    g = Game("classic", 2)
    s = g.new_state(0)
    agent = ISMCTSAgent(g, seed=0, iterations=5, engine="core")
    args = dict(iterations=5, time=0.0, c=1.0, rollout_depth=2, void_weight=1.0, opponents_rollout=False,
                leaf_weights=[], prior=[], prior_weight=1.0, first=-1)
    good = [1.0] * (2 * g.num_kinds)
    core._core.ismcts_root_visits(agent.core_game._tables, s._c, np.random.default_rng(0), **args, kind_weights=good)
    for bad, message in [(good[:-1], "players x kinds"), ([-1.0] + good[1:], ">= 0"),
                         ([float("nan")] + good[1:], "finite"), ([float("inf")] + good[1:], "finite")]:
        with pytest.raises(ValueError, match=message):
            core._core.ismcts_root_visits(agent.core_game._tables, s._c, np.random.default_rng(0), **args,
                                          kind_weights=bad)
    flip = Game("flip", 2)
    searcher = ISMCTSAgent(flip, seed=0, iterations=5, engine="core")
    with pytest.raises(ValueError, match="one-sided"):
        core._core.ismcts_root_visits(searcher.core_game._tables, flip.new_state(0)._c, np.random.default_rng(0),
                                      **args, kind_weights=[1.0] * (2 * flip.num_kinds))
    class Misshapen(ISMCTSAgent):
        def belief_of(self, state):
            return np.ones((3, g.num_kinds))

    with pytest.raises(ValueError, match=r"shape \(players, kinds\)"):  # named before the core is called
        Misshapen(g, seed=0, iterations=5, engine="core").root_visits(s)
