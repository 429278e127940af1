"""The core's own generators: numpy's PCG64 and SeedSequence bit for bit, handed to Python when it asks.

A native game seeded with an int holds its generator in the core (no numpy object), so dealing, copying a
state and Attack's launcher cost no Python; the first time Python asks for the generator (``state.rng``) it
gets a numpy Generator at the same position, and from then on Python and the core draw from that one.
"""
from __future__ import annotations

import numpy as np
import pytest

from uno_env import Game, core

pytestmark = pytest.mark.skipif(not core.available(), reason="the compiled core is not built")
ENGINE_BACKENDS = ("python",)  # every game here names its backend (conftest.py)

SEEDS = [0, 1, 7, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**53 + 3, 2**63 - 2, 2**64 - 1, 123456789012345678]


def python_twin(variant: str, players: int = 2, **options):
    return Game(variant, players, backend="python", **options), Game(variant, players, backend="native", **options)


def play_alike(py, nat, a, b, pick, draw_every: int = 0) -> None:
    """Play ``a`` (Python engine) and ``b`` (core) to the end with the same random legal actions, checking
    the legal actions at every decision and the whole state at the end; with ``draw_every``, Python also
    draws from both states' generators every that many steps (the stream they share with the core)."""
    while not a.is_over:
        if draw_every and a.steps % draw_every == 3:
            assert a.rng.integers(100) == b.rng.integers(100)
        legal = py.legal_actions(a)
        assert nat.legal_actions(b) == legal
        action = legal[int(pick.integers(len(legal)))]
        py.step(a, action)
        nat.step(b, action)
    assert py.to_spec(a) == nat.to_spec(b)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_seeded_game_deals_and_draws_as_numpy_seeds_it(seed):
    py, nat = python_twin("classic")
    a, b = py.new_state(seed), nat.new_state(seed)
    assert b.hands == a.hands and b.draw_pile == a.draw_pile and b.dealer == a.dealer
    # the core's generator, handed over, is numpy's at the same position, 32-bit buffer included
    assert b.rng.bit_generator.state == a.rng.bit_generator.state
    assert b.rng.integers(10**9, size=5).tolist() == a.rng.integers(10**9, size=5).tolist()
    assert b.rng.integers(10**6, dtype=np.int32) == a.rng.integers(10**6, dtype=np.int32)
    assert b.rng.bit_generator.state == a.rng.bit_generator.state


def test_python_and_the_core_share_one_stream_once_the_generator_is_handed_over():
    """Drawing from ``state.rng`` between steps moves the game's own stream, on both engines alike."""
    py, nat = python_twin("classic", 2)
    a, b = py.new_state(3), nat.new_state(3)
    play_alike(py, nat, a, b, np.random.default_rng(0), draw_every=7)
    assert b.rng.bit_generator.state == a.rng.bit_generator.state


@pytest.mark.parametrize("variant", ["classic", "flip", "attack"])
@pytest.mark.parametrize("hand_over", [False, True])
def test_a_clone_is_exact_and_independent(variant, hand_over):
    """``clone`` copies the generators in the core (from the core's own or from a numpy PCG64): the copy
    plays on as the original would, and playing it leaves the original's generators where they were."""
    py, nat = python_twin(variant, 2)
    a, b = py.new_state(11), nat.new_state(11)
    if hand_over:  # the state now draws from a numpy Generator: the clone copies that one's position
        assert b.rng is b.rng
    pick = np.random.default_rng(5)
    for _ in range(12):
        action = py.legal_actions(a)[0]
        py.step(a, action)
        nat.step(b, action)
    before = b.rng.bit_generator.state if hand_over else None
    ca, cb = py.clone(a), nat.clone(b)
    play_alike(py, nat, ca, cb, pick)
    if hand_over:
        assert b.rng.bit_generator.state == before
    assert b.rng.bit_generator.state == a.rng.bit_generator.state  # the original was not drawn from
    if variant == "attack":
        assert b.launcher_rng.bit_generator.state == a.launcher_rng.bit_generator.state


def test_a_clone_onto_a_given_generator_draws_from_it():
    py, nat = python_twin("attack", 2)
    a, b = py.new_state(4), nat.new_state(4)
    ra, rb = np.random.default_rng(9), np.random.default_rng(9)
    ca, cb = a.clone(ra), b.clone(rb)
    pick = np.random.default_rng(1)
    while not ca.is_over:
        legal = py.legal_actions(ca)
        action = legal[int(pick.integers(len(legal)))]
        py.step(ca, action)
        nat.step(cb, action)
    assert py.to_spec(ca) == nat.to_spec(cb)
    assert ra.bit_generator.state == rb.bit_generator.state


def test_a_state_on_another_bit_generator_is_still_copied_exactly():
    """A spec-built state may draw from any numpy bit generator: copying it falls back to numpy's own copy."""
    py, nat = python_twin("classic", 2)
    spec = py.to_spec(py.new_state(2))
    a = py.state_from_spec(spec)
    a.rng = np.random.Generator(np.random.Philox(8))
    from uno_env.core.native import from_python

    b = from_python(nat, a.clone())
    cb = nat.clone(b)
    assert type(cb.rng.bit_generator).__name__ == "Philox"
    assert cb.rng is not b.rng
    assert cb.rng.integers(2**62, size=4).tolist() == b.rng.integers(2**62, size=4).tolist()


def test_an_attack_launcher_is_seeded_in_the_core_as_default_rng_seeds_it():
    py, nat = python_twin("attack", 3)
    for seed in (0, 5, 2**40):
        a, b = py.new_state(seed), nat.new_state(seed)
        assert b.launcher_rng.bit_generator.state == a.launcher_rng.bit_generator.state


def test_a_seed_the_core_does_not_take_goes_through_numpy():
    """``None`` (fresh entropy) and seeds outside [0, 2**64) are numpy's to interpret, errors included."""
    nat = Game("classic", 2, backend="native")
    assert not nat.new_state(None).is_over
    assert nat.new_state(2**70).hands == Game("classic", 2, backend="python").new_state(2**70).hands
    with pytest.raises(ValueError):
        nat.new_state(-1)
