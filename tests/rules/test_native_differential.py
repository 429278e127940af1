"""The compiled core against the Python engine: the same games, decision by decision (tests/native_diff.py).

`make test-quick` compares at least 50,000 decisions per variant the core covers, `make test` at least
1,000,000 more; both at two players and the largest table, under every option set of the Classic family,
with random, `greedy` and `heuristic` players. Also: the backend switch, and the facade's answers on the core.
"""
from __future__ import annotations

import itertools
import pickle
import warnings

import numpy as np
import pytest

from uno_env import Game, IllegalActionError, RuleError, core
from uno_env.core.native import NativeGame, NativeState

from paths import ROOT  # tests/paths.py
from native_diff import OPTION_SETS, TABLES, compare_states, play_pair  # tests/native_diff.py

VARIANTS = sorted(core.NATIVE_VARIANTS)
ENGINE_BACKENDS = ("python",)  # every game here names its backend: no second run under UNO_ENV_BACKEND (conftest.py)


def test_the_core_is_built():
    """`make test` installs the package, which builds the core: the comparisons below must not be skipped."""
    assert core.available(), core.why_unavailable()


def compare_until(variant: str, target: int, first_seed: int) -> int:
    """Games in a fixed rotation of tables, option sets and players until ``target`` decisions are compared."""
    combos = itertools.cycle(itertools.product(OPTION_SETS[variant], TABLES[variant], ("random", "greedy", "heuristic")))
    total, seed = 0, first_seed
    while total < target:
        options, players, policy = next(combos)
        total += play_pair(variant, players, options, seed, policy)
        seed += 1
    return total


@pytest.mark.parametrize("variant", VARIANTS)
def test_fifty_thousand_decisions_equal_per_variant(variant):
    assert compare_until(variant, 50_000, first_seed=0) >= 50_000


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_million_decisions_equal_per_variant(variant):
    assert compare_until(variant, 1_000_000, first_seed=100_000) >= 1_000_000


@pytest.mark.parametrize("variant", VARIANTS)
def test_whole_games_in_the_core_end_as_the_python_engine_ends_them(variant):
    """``play_random`` (whole games without Python per decision) draws its choices as the harness's chooser."""
    from uno_env.core import _core

    options = OPTION_SETS[variant][1]
    nat = Game(variant, 3, backend="native", **options)
    py = Game(variant, 3, backend="python", **options)
    for seed in range(20):
        b = nat.new_state(seed)
        decisions = _core.play_random(nat._tables, b._c, np.random.default_rng(seed))
        a, chooser = py.new_state(seed), np.random.default_rng(seed)
        while not a.is_over:
            legal = py.legal_actions(a)
            py.step(a, legal[int(chooser.integers(len(legal)))])
        assert decisions == a.steps
        compare_states(py, a, nat, b, f"{variant} seed {seed}")


def test_scenario_specs_round_trip_through_the_core():
    """state_from_spec -> core -> to_spec gives the spec's state back, and both engines go on alike."""
    spec = {"variant": "classic", "players": 3, "options": {"stacking": "any", "jump_in": "on"}, "seed": 4,
            "current": 1, "direction": -1, "discard": ["R7", "G5"], "colour": "G",
            "hands": [["W4", "G1", "R2"], ["G7", "G+2", "B+2", "Y5"], 5], "draw_pile": ["R9", "Y2"],
            "scores": [10, 0, 30]}
    py, nat = Game.from_spec(spec), Game("classic", 3, backend="native", stacking="any", jump_in="on")
    a, b = py.state_from_spec(spec), nat.state_from_spec(spec)
    assert isinstance(b, NativeState)
    compare_states(py, a, nat, b, "spec")
    for action in ("play G+2", "accept"):
        assert py.legal_action_strings(a) == nat.legal_action_strings(b)
        py.step(a, action)
        nat.step(b, action)
        compare_states(py, a, nat, b, f"after {action}")


def test_the_backend_switch(monkeypatch):
    monkeypatch.delenv(core.ENV_VAR, raising=False)
    assert type(Game("classic", 2)) is NativeGame and Game("flip", 10).backend == "native"  # the default
    assert type(Game("xiangqi", 4, backend="native")) is NativeGame and Game("flex", 3, backend="native").backend == "native"
    manifest = str(ROOT / "uno_env" / "decks" / "flex.yaml")  # a replacement manifest: not covered
    with pytest.raises(RuleError, match="does not cover the 'flex' rules"):
        Game("flex", 2, backend="native", **{"flex.deck_manifest": manifest})
    with pytest.raises(RuleError, match="backend 'rust' is not allowed; allowed: native, python"):
        Game("classic", 2, backend="rust")
    monkeypatch.setenv(core.ENV_VAR, "native")
    assert Game("classic", 2).backend == "native"
    assert Game("flex", 2, **{"flex.deck_manifest": manifest}).backend == "python"  # the core where it covers
    assert Game("classic", 2, backend="python").backend == "python"
    monkeypatch.setenv(core.ENV_VAR, "python")
    assert type(Game("classic", 2)) is Game and Game("attack", 4).backend == "python"
    monkeypatch.setenv(core.ENV_VAR, "fortran")
    with pytest.raises(RuleError, match="UNO_ENV_BACKEND='fortran' is not allowed"):
        Game("classic", 2)


def test_without_the_core_the_default_is_the_python_engine_and_says_once_how_to_build_it(monkeypatch):
    monkeypatch.delenv(core.ENV_VAR, raising=False)
    monkeypatch.setattr(core, "_core", None)
    monkeypatch.setattr(core, "_why_missing", "the compiled core is not built (test); build it with `pip install -e .`")
    monkeypatch.setattr(core, "_told", False)
    with pytest.warns(RuntimeWarning, match="build it with `pip install -e .`; using the Python engine"):
        assert type(Game("classic", 2)) is Game
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once: the second game is silent
        assert Game("flip", 3).backend == "python"
    with pytest.raises(RuleError, match="backend='native': the compiled core is not built"):
        Game("classic", 2, backend="native")


def test_native_games_pickle_and_copy_onto_the_same_backend():
    nat = Game("alphabet", 3, backend="native", multi_play="on")
    again = pickle.loads(pickle.dumps(nat))
    assert type(again) is NativeGame and again.rules == nat.rules
    assert nat.legal_actions(nat.new_state(3)) == again.legal_actions(again.new_state(3))
    py = pickle.loads(pickle.dumps(Game("alphabet", 3, backend="python")))
    assert type(py) is Game


def test_an_illegal_action_is_refused_alike_and_changes_nothing():
    py, nat = Game("classic", 2), Game("classic", 2, backend="native")
    a, b = py.new_state(5), nat.new_state(5)
    illegal = next(k for k in range(py.num_kinds) if k not in py.legal_actions(a))
    for action in (illegal, py.num_actions + 3, -1, 2 ** 40):
        with pytest.raises(IllegalActionError) as on_python:
            py.step(a, action)
        with pytest.raises(IllegalActionError) as on_native:
            nat.step(b, action)
        assert str(on_python.value) == str(on_native.value)
    compare_states(py, a, nat, b, "after refusals")


def test_clones_are_independent_and_continue_alike():
    nat = Game("classic", 4, backend="native")
    s = nat.new_state(11)
    for _ in range(30):
        nat.step(s, nat.legal_actions(s)[0])
    t = s.clone()
    before = nat.to_spec(s)
    nat.step(t, nat.legal_actions(t)[-1])
    assert nat.to_spec(s) == before  # the original did not move
    u = s.clone()
    for _ in range(200):
        if s.is_over:
            break
        nat.step(s, nat.legal_actions(s)[-1])
        nat.step(u, nat.legal_actions(u)[-1])
    assert nat.to_spec(s) == nat.to_spec(u)  # a clone's generator is at the same position


@pytest.mark.parametrize("variant, players, options", [("classic", 3, {}), ("attack", 4, {}), ("flip", 3, {})])
def test_sample_hidden_on_a_native_state_matches_the_python_sampler_and_leaves_the_state_alone(variant, players,
                                                                                               options):
    """The same sample from the same generator on either engine; the sampled state is not moved (its generators
    included: it goes on exactly as its Python twin), with a shared or a fresh generator."""
    py, nat = Game(variant, players, backend="python", **options), Game(variant, players, backend="native", **options)
    a, b = py.new_state(11), nat.new_state(11)
    chooser = np.random.default_rng(3)
    for _ in range(25):
        legal = py.legal_actions(a)
        action = legal[int(chooser.integers(len(legal)))]
        py.step(a, action)
        nat.step(b, action)
    for share in (True, False):
        ta = py.sample_hidden(a, a.current_seat, np.random.default_rng(9), share_rng=share)
        tb = nat.sample_hidden(b, b.current_seat, np.random.default_rng(9), share_rng=share)
        compare_states(py, ta, nat, tb, f"sample (share_rng={share})")
    compare_states(py, a, nat, b, "after sampling")
    while not a.is_over:  # the sampled-from states go on alike: their generators were not drawn from
        legal = py.legal_actions(a)
        assert legal == nat.legal_actions(b)
        action = legal[int(chooser.integers(len(legal)))]
        py.step(a, action)
        nat.step(b, action)
    compare_states(py, a, nat, b, "end")
