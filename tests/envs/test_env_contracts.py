"""What the environments do with wrong calls, and that ``uno_env.env`` keeps PettingZoo's wrapper semantics."""
from __future__ import annotations

import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from pettingzoo.utils import wrappers

import uno_env
from uno_env.errors import ActionOutOfSpaceError, IllegalActionError
from uno_env.gym_env import UnoEnv


def _stock(**kw):
    """The same raw env under PettingZoo's own three wrappers, for comparison."""
    e = uno_env.raw_env(**kw)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def _play(env, seed, pick_illegal_at=None):
    """A whole game with the first legal action (or an illegal one at decision ``pick_illegal_at``)."""
    env.reset(seed=seed)
    trace = []
    for i, agent in enumerate(env.agent_iter()):
        obs, reward, term, trunc, info = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        action = int(np.flatnonzero(mask == 0)[0]) if i == pick_illegal_at else int(np.flatnonzero(mask)[0])
        env.step(action)
    final = {t[0]: t[3] for t in trace if t[4] or t[5]}  # each agent's reward as it was told it is done
    return trace, final


@pytest.mark.parametrize("players", [2, 4])
def test_env_matches_the_stock_wrappers_step_for_step(players):
    for seed in range(3):
        assert _play(uno_env.env(num_players=players), seed) == _play(_stock(num_players=players), seed)
        # an illegal move: the game ends at once, -1 for its player, 0 for the others
        ours = _play(uno_env.env(num_players=players), seed, pick_illegal_at=3)
        assert ours == _play(_stock(num_players=players), seed, pick_illegal_at=3)
        assert sorted(ours[1].values()) == [-1] + [0] * (players - 1)


@pytest.mark.parametrize("make", [uno_env.env, uno_env.raw_env])
@pytest.mark.parametrize("bad", [1.5, 1.0, "3", True, np.array([1, 2]), -1, 10_000])
def test_actions_outside_the_space_raise_and_change_nothing(make, bad):
    env = make()
    env.reset(seed=0)
    before = env.unwrapped.game.to_spec(env.unwrapped.state)
    with pytest.raises(ActionOutOfSpaceError, match="action"):
        env.step(bad)
    assert env.unwrapped.game.to_spec(env.unwrapped.state) == before
    assert not any(env.terminations.values())


@pytest.mark.parametrize("make", [uno_env.env, uno_env.raw_env])
def test_none_for_a_live_agent_is_a_clear_error(make):
    env = make()
    env.reset(seed=0)
    with pytest.raises(ActionOutOfSpaceError, match="still playing"):
        env.step(None)


def test_out_of_space_is_still_an_assertion_error_as_with_pettingzoos_wrapper():
    env = uno_env.env()
    env.reset(seed=0)
    with pytest.raises(AssertionError):
        env.step(1.5)


def test_numpy_integers_are_actions():
    env = uno_env.env()
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    env.step(np.int64(legal))
    assert env.unwrapped.state.steps == 1


def test_raw_env_raises_on_an_illegal_action():
    env = uno_env.raw_env()
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)


def test_env_refuses_calls_before_reset():
    env = uno_env.env()
    with pytest.raises(AttributeError, match="before reset"):
        env.agent_selection
    with pytest.raises(Exception, match="reset"):
        env.step(0)


def test_gymnasium_step_after_the_episode_ended_raises():
    env = UnoEnv("classic", 2, learner_seat=0)
    env.reset(seed=0)
    done = False
    while not done:
        _obs, _r, term, trunc, _info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = term or trunc
    with pytest.raises(ResetNeeded, match="reset"):
        env.step(0)
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # a new episode steps again


def test_gymnasium_step_after_an_illegal_action_raises_until_reset():
    env = UnoEnv("classic", 2, learner_seat=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    assert env.step(illegal)[4]["illegal_action"]
    with pytest.raises(ResetNeeded):
        env.step(illegal)


def test_gymnasium_step_before_reset_raises():
    with pytest.raises(ResetNeeded, match="before reset"):
        UnoEnv("classic", 2).step(0)
    with pytest.raises(ResetNeeded, match="before reset"):
        UnoEnv("classic", 2).action_masks()
