"""The search's leaf models: the fitted win model and the hand-size estimate."""
from __future__ import annotations

import math

import numpy as np
import pytest

from agents.leaf_value import FEATURES, LeafModel, estimate, fit, fitted_model
from agents.search import RolloutPolicy
from uno_env import Game


@pytest.mark.parametrize("variant, players", [("classic", 2), ("flip", 2), ("attack", 4)])
def test_a_fitted_model_predicts_winners_better_than_chance_and_favours_fewer_cards(variant, players):
    g = Game(variant, players, backend="python")  # the search's own engine; the test edits a state
    model = fit(g, RolloutPolicy(g), games=300)
    assert model.samples > 500 and len(model.weights) == len(FEATURES)
    assert model.log_loss < math.log(players)  # held-out states: better than a uniform guess
    s = g.new_state(3)
    s.hand_size = [1] + [7] * (players - 1)
    values = model(s)
    assert abs(sum(values)) < 1e-9 and all(-1 / (players - 1) <= v <= 1 for v in values)
    assert values[0] > 0 > values[1]


def test_fitting_is_deterministic_and_cached_per_rule_set():
    g = Game("classic", 2)
    first, second = fit(g, RolloutPolicy(g), games=100), fit(g, RolloutPolicy(g), games=100)
    assert first.weights == second.weights
    cached = fitted_model(g, RolloutPolicy(g))
    assert fitted_model(Game("classic", 2), RolloutPolicy(g)) is cached
    assert fitted_model(Game("classic", 3), RolloutPolicy(g)) is not cached
    assert fitted_model(Game("classic", 2, stacking="any"), RolloutPolicy(g)) is not cached


def test_a_seat_out_of_the_match_has_the_losing_value_in_both_models():
    g = Game("attack", 4, backend="python")
    s = g.new_state(0)
    s.eliminated = [False, False, True, False]
    model = LeafModel(g, np.array([-0.2] + [0.0] * (len(FEATURES) - 1)), math.nan, 0)
    for values in (model(s), estimate(s)):
        assert values[2] == pytest.approx(-1 / 3) and abs(sum(values)) < 1e-9
