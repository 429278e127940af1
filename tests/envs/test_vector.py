"""The batched collector: the same games, observations, masks and rewards as the AEC env, in arrays."""
from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env import VARIANTS
from uno_env.errors import IllegalActionError
from uno_env.vector import VectorGames
from paths import ROOT  # tests/paths.py

CASES = [(v, n, {}) for v in VARIANTS for n in (2, 4)] + [
    ("classic", VARIANTS["classic"].max_players, {"stacking": "any", "jump_in": "on", "uno_call": "explicit"}),
    ("flex", 3, {"flex.allow_self_target": True}),
    ("attack", 3, {"scoring_method": "elimination", "target_score": 100}),
]


@pytest.mark.parametrize("variant, players, options", CASES, ids=lambda c: str(c))
def test_every_game_of_a_batch_is_the_aec_envs_game_with_that_seed(variant, players, options):
    """Game i of a batch reset with seed s plays as raw_env reset(seed=s+i), across automatic resets."""
    batch, seed, steps = 3, 40, 400
    vec = VectorGames(batch, variant, num_players=players, **options)
    envs = [uno_env.raw_env(variant=variant, num_players=players, **options) for _ in range(batch)]
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
    seat, obs, mask = vec.reset(seed=seed)
    rng = np.random.default_rng(0)
    endings = 0
    for _ in range(steps):
        actions = np.zeros(batch, dtype=np.int64)
        for i, env in enumerate(envs):
            agent = env.agent_selection
            expected = env.observe(agent)
            assert seat[i] == env.possible_agents.index(agent)
            assert np.array_equal(obs[i], expected["observation"])
            assert np.array_equal(mask[i], expected["action_mask"])
            legal = np.flatnonzero(mask[i])
            plays = legal[legal < vec.game.layout.draw]  # mostly card plays, so games end within the test
            actions[i] = rng.choice(plays if len(plays) and rng.random() < 0.9 else legal)
        seat, obs, mask, rewards, terminated, truncated = vec.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                endings += 1
                assert terminated[i] or truncated[i]
                assert rewards[i].tolist() == pytest.approx([env._cumulative_rewards[a] for a in env.possible_agents])
                assert vec.final_states[i].winner == env.state.winner
                env.reset()  # the env's next game from its own seeder, as the batch deals it
            else:
                assert not (terminated[i] or truncated[i]) and not rewards[i].any()
    assert endings > 0  # the comparison crossed automatic resets


def test_game_i_does_not_depend_on_the_batch_size():
    small, large = VectorGames(2, "classic", 3), VectorGames(5, "classic", 3)
    small.reset(seed=7)
    large.reset(seed=7)
    for _ in range(200):
        actions = [np.flatnonzero(row)[-1] for row in large.mask]
        assert np.array_equal(small.obs, large.obs[:2]) and np.array_equal(small.mask, large.mask[:2])
        small.step(np.array(actions[:2]))
        large.step(np.array(actions))


@pytest.mark.parametrize("variant, backend", [("flip", "python"), ("classic", "native")])
def test_arrays_are_preallocated_and_written_in_place(variant, backend):
    vec = VectorGames(3, variant, 2, backend=backend)
    seat, obs, mask = vec.reset(seed=1)
    out = vec.step(np.array([np.flatnonzero(row)[0] for row in mask]))
    assert out[0] is seat and out[1] is obs and out[2] is mask
    assert obs.dtype == np.float32 and mask.dtype == np.int8 and out[3].shape == (3, 2)


def test_an_illegal_action_names_the_game_and_moves_nothing():
    vec = VectorGames(3, "classic", 2)
    vec.reset(seed=3)
    before = [vec.game.to_spec(s) for s in vec.states]
    actions = np.array([np.flatnonzero(row)[0] for row in vec.mask])
    actions[1] = int(np.flatnonzero(vec.mask[1] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 1: action"):
        vec.step(actions)
    assert [vec.game.to_spec(s) for s in vec.states] == before
    with pytest.raises(IllegalActionError, match="3 integer ids"):
        vec.step(np.array([0.5, 1.0, 2.0]))


def test_bad_batch_sizes_and_options_are_refused():
    with pytest.raises(ValueError, match="num_games"):
        VectorGames(0)
    with pytest.raises(uno_env.RuleError, match="stacking"):
        VectorGames(2, "classic", 2, stacking="sometimes")
    for seed in (-1, "a", 1.5, True):
        with pytest.raises(ValueError, match="seed must be None or a whole number"):
            VectorGames(2).reset(seed=seed)


def test_numpy_integers_are_whole_numbers_too():
    games = VectorGames(np.int64(3), "classic", num_players=np.int64(4))
    assert games.num_games == 3 and games.num_players == 4 and type(games.game.rules.num_players) is int
    seat, _, _ = games.reset(seed=np.int64(5))
    assert np.array_equal(seat, VectorGames(3, "classic", 4).reset(seed=5)[0])


def test_the_documented_example_runs():
    import re

    text = (ROOT / "docs" / "environments.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "VectorGames" in b)
    namespace: dict = {}
    exec(block, namespace)  # noqa: S102 (the project's own docs)
    assert namespace["rewards"].shape == (64, 4)


@pytest.mark.parametrize("backend", ["python", "native"])
def test_cut_at_truncates_a_game_at_that_many_decisions_without_changing_the_rules(backend):
    cut = VectorGames(3, "classic", num_players=2, cut_at=7, backend=backend)
    full = VectorGames(3, "classic", num_players=2, backend=backend)
    assert cut.game.rules == full.game.rules  # a training cap, not a rule: a policy trained so fits the plain game
    seat, obs, mask = cut.reset(seed=5)
    full.reset(seed=5)
    for step in range(1, 8):
        actions = np.array([np.flatnonzero(row)[0] for row in mask])
        seat, obs, mask, rewards, terminated, truncated = cut.step(actions)
        _, full_obs, *_ = full.step(actions)
        if step < 7:
            assert not truncated.any() and np.array_equal(obs, full_obs)  # the same games until the cut
    assert truncated.all() and not terminated.any() and not rewards.any()  # cut, no winner, nothing paid
    assert all(s is not None and not s.is_over for s in cut.final_states)  # the cut games, as they stood
    assert not np.array_equal(obs, full_obs)  # dealt again at once
    with pytest.raises(ValueError, match="cut_at must be None or a whole number, 1 or more; got 0"):
        VectorGames(2, cut_at=0)
