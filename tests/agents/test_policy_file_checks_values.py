"""Policy files whose values lie (``agents/policy_file/``): weights that are NaN or infinite, and a home table
(``num_players``) that is not among the player counts it claims to be trained at (``table_sizes``).

Each is refused when the file is read, in one line naming the array or the keys, so it can neither play
as a silent "first legal action" bot nor fail at its first sampled decision.
"""
from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.policy_file import PolicyFile, PolicyFileError, load_policy, policy_file_from_weights
from train.app.cli import main
from uno_env import Game
from uno_env.action_features import action_features
from uno_env.observation import ObservationEncoder

GAME = Game("classic", num_players=2)


def _layers(game: Game = GAME, hidden: int = 8) -> list[int]:
    return [ObservationEncoder(game).size, hidden, game.num_actions]


def _arrays(layers: list[int]) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    out = []
    for a, b in zip(layers, layers[1:]):
        out += [rng.normal(size=(a, b)).astype(np.float32), rng.normal(size=b).astype(np.float32)]
    return out


def _saved(tmp_path, arrays=None, name="p", **meta_change) -> str:
    """A policy for GAME written the way trainers write one, with ``arrays`` as its weights; its base path."""
    arrays = _arrays(_layers()) if arrays is None else arrays
    policy = policy_file_from_weights(_arrays(_layers()), GAME, 10)
    policy = PolicyFile(arrays, {**policy.metadata, **meta_change})
    base = str(tmp_path / name)
    policy.save(base)
    return base


def _refused(base: str, *words: str) -> str:
    with pytest.raises(PolicyFileError) as info:
        PolicyFile.read(base)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    for word in words:
        assert word in message, (word, message)
    return message


# --------------------------------------------------------------------------- non-finite weights


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("member, what", [(0, "the weights of layer 0"), (3, "the biases of layer 1")])
def test_a_weight_that_is_not_a_finite_number_is_refused_naming_its_array(tmp_path, bad, member, what):
    arrays = _arrays(_layers())
    arrays[member].flat[-1] = bad
    base = _saved(tmp_path, arrays)
    _refused(base, base + ".npz", f"p{member}.npy ({what})", "1 NaN or infinite value;", "finite")


def test_the_count_of_bad_values_is_told(tmp_path):
    arrays = _arrays(_layers())
    arrays[2][:, :3] = np.nan
    _refused(_saved(tmp_path, arrays), f"p2.npy (the weights of layer 1) holds {3 * arrays[2].shape[0]:,} NaN")


def test_float64_weights_are_checked_too(tmp_path):
    """numpy's own ``savez`` of float64 arrays: a hand-made file is checked like an exported one."""
    base = _saved(tmp_path)
    arrays = [a.astype(np.float64) for a in _arrays(_layers())]
    arrays[1][0] = np.inf
    np.savez(base + ".npz", **{f"p{k}": a for k, a in enumerate(arrays)})
    _refused(base, "p1.npy (the biases of layer 0)")


def test_integer_and_finite_weights_still_load(tmp_path):
    arrays = [np.round(a).astype(np.int32) for a in _arrays(_layers())]
    base = _saved(tmp_path, arrays, name="ints")
    np.savez(base + ".npz", **{f"p{k}": a for k, a in enumerate(arrays)})  # (save would store them as float32)
    assert PolicyFile.read(base).weights[0].dtype == np.int32
    extreme = _arrays(_layers())
    extreme[0][0, 0] = np.finfo(np.float32).max
    assert PolicyFile.read(_saved(tmp_path, extreme, name="big")).weights[0][0, 0] == np.finfo(np.float32).max


@pytest.mark.parametrize("deterministic", [True, False])
def test_a_nan_policy_does_not_load_as_an_agent(tmp_path, deterministic):
    """The reported behaviour: deterministic, it played the first legal action every turn; sampled, it raised
    a bare ValueError at its first decision. Now neither gets as far as a game."""
    arrays = _arrays(_layers())
    arrays[0][:] = np.nan
    with pytest.raises(PolicyFileError, match=r"p0\.npy \(the weights of layer 0\) holds .* NaN or infinite"):
        load_policy(_saved(tmp_path, arrays), GAME, deterministic=deterministic, seed=0)


def test_a_nan_action_feature_table_is_refused(tmp_path):
    features = action_features(GAME).astype(np.float32)
    layers = [ObservationEncoder(GAME).size + features.shape[1], 8, 1]
    good = policy_file_from_weights(_arrays(layers), GAME, 10, activation="relu", action_features=features)
    good.save(str(tmp_path / "q"))
    assert PolicyFile.read(str(tmp_path / "q")).action_features.shape == features.shape
    features[5, 0] = np.nan
    PolicyFile(good.weights, good.metadata, features).save(str(tmp_path / "q"))
    _refused(str(tmp_path / "q"), f"p{len(good.weights)}.npy (the action-feature table) holds 1 NaN")


def test_the_command_line_says_it_in_one_line(tmp_path, capsys):
    arrays = _arrays(_layers())
    arrays[1][:] = np.inf
    base = _saved(tmp_path, arrays)
    assert main(["eval", "--agents", base, "random", "--games", "2", "--workers", "1", "--no-progress"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("uno-env eval: error: "), lines
    assert "p1.npy (the biases of layer 0)" in lines[0] and "NaN or infinite" in lines[0]


# --------------------------------------------------------------------------- num_players against table_sizes


@pytest.mark.parametrize("change", [{"table_sizes": [3, 4]}, {"table_sizes": [4]}, {"num_players": 3}])
def test_num_players_outside_its_table_sizes_is_refused(tmp_path, change):
    base = _saved(tmp_path, **change)
    meta = {"num_players": 2, "table_sizes": [2], **change}
    _refused(base, base + ".json", f"num_players {meta['num_players']} is not one of its table_sizes "
                                   f"{meta['table_sizes']}")


@pytest.mark.parametrize("change", [{"table_sizes": [2, 3]}, {"table_sizes": [2]}, {"table_sizes": []}, {}])
def test_num_players_among_its_table_sizes_loads(tmp_path, change):
    policy = PolicyFile.read(_saved(tmp_path, **change))
    policy.check_game(GAME)
    assert policy.metadata["num_players"] == 2


def test_a_contradicting_file_does_not_load_for_either_table(tmp_path):
    """Before, such a file loaded at whichever table ``table_sizes`` named, or failed the game check oddly."""
    base = _saved(tmp_path, table_sizes=[3])
    for players in (2, 3):
        with pytest.raises(PolicyFileError, match="num_players 2 is not one of its table_sizes"):
            agents.load(base, Game("classic", num_players=players))


def test_the_writer_refuses_to_write_one(tmp_path):
    with pytest.raises(PolicyFileError, match=r"num_players 2 is not one of its table_sizes \[3, 4\]"):
        policy_file_from_weights(_arrays(_layers()), GAME, 10, table_sizes=[3, 4])
    assert policy_file_from_weights(_arrays(_layers()), GAME, 10, table_sizes=[4, 2]).metadata["table_sizes"] == [2, 4]
