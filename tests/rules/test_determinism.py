"""Same seed + same actions => same game, in this process and in a fresh one; clone is independent."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import numpy as np
import pytest

from uno_env import Game

OPTIONS = {"stacking": "any", "jump_in": "on", "uno_call": "explicit"}


def trajectory_digest(variant: str, players: int, seed: int, games: int = 5) -> str:
    """Hash of every state (as a spec) along random games whose choices come from the seed too."""
    game = Game(variant, num_players=players, **(OPTIONS if variant == "classic" else {"uno_call": "explicit"}))
    h = hashlib.sha256()
    for g in range(games):
        state = game.new_state(seed + g)
        rng = np.random.default_rng(seed + g)
        while not state.is_over:
            legal = game.legal_actions(state)
            game.step(state, legal[int(rng.integers(len(legal)))])
            h.update(json.dumps(game.to_spec(state), sort_keys=True, ensure_ascii=False).encode())
    return h.hexdigest()


def test_same_seed_same_trajectory():
    assert trajectory_digest("classic", 4, 7) == trajectory_digest("classic", 4, 7)
    assert trajectory_digest("classic", 4, 7) != trajectory_digest("classic", 4, 8)


@pytest.mark.parametrize("variant", ["flex", pytest.param("flip", marks=pytest.mark.slow), "attack"])  # flip: long games
def test_variant_same_seed_same_trajectory(variant):
    assert trajectory_digest(variant, 4, 3) == trajectory_digest(variant, 4, 3)
    assert trajectory_digest(variant, 4, 3) != trajectory_digest(variant, 4, 4)


def test_flip_pairing_comes_from_the_seed_or_the_fixed_table():
    random_game = Game("flip", num_players=2)
    assert random_game.new_state(1).deck_cards == random_game.new_state(1).deck_cards
    assert random_game.new_state(1).deck_cards != random_game.new_state(2).deck_cards
    fixed = Game("flip", num_players=2, **{"flip.pairing": "fixed"})
    assert fixed.new_state(1).deck_cards == fixed.new_state(2).deck_cards


def test_same_trajectory_in_a_fresh_process():
    code = ("import sys; sys.path.insert(0, 'tests/rules'); from test_determinism import trajectory_digest; "
            "print(trajectory_digest('alphabet', 3, 11))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "123", "PATH": ""}, cwd=".")
    assert out.stdout.strip() == trajectory_digest("alphabet", 3, 11)


def test_new_state_is_seeded():
    game = Game("xiangqi", num_players=5)
    assert game.to_spec(game.new_state(3)) == game.to_spec(game.new_state(3))
    assert game.to_spec(game.new_state(3)) != game.to_spec(game.new_state(4))


def test_clone_is_independent_and_replays_identically():
    game = Game("classic", num_players=3, **OPTIONS)
    state = game.new_state(5)
    rng = np.random.default_rng(0)
    for _ in range(30):
        legal = game.legal_actions(state)
        game.step(state, legal[int(rng.integers(len(legal)))])
    copy = game.clone(state)
    snapshot = game.to_spec(state)
    actions = []
    while not copy.is_over:  # play the copy to the end: the original must not move
        legal = game.legal_actions(copy)
        actions.append(legal[int(rng.integers(len(legal)))])
        game.step(copy, actions[-1])
    assert game.to_spec(state) == snapshot
    for a in actions:  # the same actions on the original reach the same end (same reshuffles)
        game.step(state, a)
    assert game.to_spec(state) == game.to_spec(copy)
    assert state.returns == copy.returns


def test_attack_launcher_has_its_own_stream():
    """The launcher's bursts come from their own generator: a clone reproduces them, the deal's rng does not move."""
    game = Game("attack", num_players=2)
    state = game.new_state(5)
    copy = state.clone()
    before = state.rng.bit_generator.state
    bursts = [game.launcher.burst(state, 50) for _ in range(200)]
    assert bursts == [game.launcher.burst(copy, 50) for _ in range(200)]
    assert state.rng.bit_generator.state == before and len(set(bursts)) > 2
    assert game.new_state(5).launcher_rng.random() != game.new_state(6).launcher_rng.random()

