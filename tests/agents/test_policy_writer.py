"""The policy-file writer (``agents/policy_file/writer.py``) beside its reader: what it writes loads and plays alike."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import agents
from agents.policy_file import PolicyFile, PolicyFileError, load_policy, policy_file_from_weights, policy_metadata
from uno_env import Game
from uno_env.observation import ObservationEncoder
from paths import ROOT  # tests/paths.py


def _arrays(layers, seed=0, dtype=np.float32) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for a, b in zip(layers, layers[1:]):
        out += [rng.normal(size=(a, b)).astype(dtype), rng.normal(size=b).astype(dtype)]
    return out


def _network(game, hidden=(16, 8)) -> list[int]:
    return [ObservationEncoder(game).size, *hidden, game.num_actions]


def _observations(game, count=100):
    enc, rng, s = ObservationEncoder(game), np.random.default_rng(1), game.new_state(0)
    obs, masks = [], []
    while len(obs) < count:
        if s.is_over:
            s = game.new_state(len(obs))
        obs.append(enc.encode(s, s.current_seat))
        masks.append(game.legal_action_mask(s))
        legal = game.legal_actions(s)
        game.step(s, legal[int(rng.integers(len(legal)))])
    return obs, masks


@pytest.mark.parametrize("name", agents.pretrained_names())
def test_rewriting_a_shipped_policy_gives_its_files_back(name, tmp_path):
    """The writer's metadata is the trainers' of before: a shipped policy re-written from its own inputs is the same."""
    shipped = os.path.join(agents.PRETRAINED_DIR, name)
    policy = PolicyFile.read(shipped)
    m = policy.metadata
    game = Game(m["variant"], m["num_players"], m["rule_options"] or None)
    new = policy_file_from_weights(policy.weights, game, m["training_steps"], m["evaluation"], m["config"],
                                   m.get("table_sizes"), m["activation"])
    assert new.metadata == m
    new.save(str(tmp_path / name))
    with open(shipped + ".json", encoding="utf-8") as a, open(tmp_path / f"{name}.json", encoding="utf-8") as b:
        assert a.read() == b.read()
    back = PolicyFile.read(str(tmp_path / name))
    assert all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(back.weights, policy.weights))


def test_the_metadata_written_is_the_format_s():
    game = Game("classic", num_players=4, stacking="any")
    layers = _network(game)
    meta = policy_file_from_weights(_arrays(layers), game, 1234.0, {"win_rate": 0.5}, {"algo": "ppo"},
                                    table_sizes=[4, 2, 4]).metadata
    assert meta == {
        "format": "uno-env-policy", "format_version": 1, "variant": "classic", "num_players": 4, "table_sizes": [2, 4],
        "rule_options": {"stacking": "any"}, "observation_layout_version": 2, "observation_size": layers[0],
        "action_layout_version": 1, "num_actions": game.num_actions, "activation": "tanh", "layers": layers,
        "training_steps": 1234, "evaluation": {"win_rate": 0.5}, "config": {"algo": "ppo"}}
    assert policy_metadata(game, layers, 1234, {"win_rate": 0.5}, {"algo": "ppo"}, [2, 4]) == meta
    defaults = policy_file_from_weights(_arrays(layers), game, 0).metadata
    assert defaults["table_sizes"] == [4] and defaults["evaluation"] == {} == defaults["config"]


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_write_load_play_round_trip(tmp_path, activation):
    game = Game("classic", num_players=3)
    weights = _arrays(_network(game, (32, 16, 8)), seed=7)
    written = policy_file_from_weights(weights, game, 99, activation=activation)
    assert all(w is not v and np.array_equal(w, v) for w, v in zip(written.weights, weights))  # copied
    written.save(str(tmp_path / "p"))
    loaded = load_policy(str(tmp_path / "p.npz"), game)
    assert loaded.policy.metadata == json.loads(json.dumps(written.metadata))
    assert all(np.array_equal(a, b) for a, b in zip(loaded.policy.weights, weights))
    in_memory = agents.PolicyAgent(written)
    obs, masks = _observations(game)
    ours = [loaded.act(o, m) for o, m in zip(obs, masks)]
    assert ours == [in_memory.act(o, m) for o, m in zip(obs, masks)] and len(set(ours)) > 1
    assert all(m[a] for a, m in zip(ours, masks))


def test_arrays_of_another_order_or_dtype_are_written_as_given(tmp_path):
    game = Game("classic", num_players=2)
    weights = _arrays(_network(game), dtype=np.float64)
    weights[0] = np.asfortranarray(weights[0])
    written = policy_file_from_weights(weights, game, 0)
    assert written.weights[0].flags.c_contiguous and written.weights[0].dtype == np.float64
    written.save(str(tmp_path / "p"))
    back = PolicyFile.read(str(tmp_path / "p"))
    assert all(b.dtype == np.float32 and np.array_equal(b, w.astype(np.float32))
               for b, w in zip(back.weights, weights))


def test_what_the_reader_refuses_is_never_written():
    game = Game("classic", num_players=2)
    layers = _network(game)
    good = _arrays(layers)
    for weights, words in (([], "got 0 arrays"), (good[:-1], "got 5 arrays"), (good[1:] + good[:1], "got 6 arrays"),
                           ([good[0], good[1], good[2].T, good[3], good[4], good[5]], "not the weights and biases"),
                           (good[:4] + [good[4], good[5][:3]], "not the weights and biases"),
                           ([w.astype(complex) for w in good], "float or integer arrays")):
        with pytest.raises(ValueError, match=words):
            policy_file_from_weights(weights, game, 0)
    with pytest.raises(PolicyFileError, match="the new policy file: network input/output sizes"):
        policy_file_from_weights(_arrays([layers[0] + 1, 4, layers[-1]]), game, 0)
    with pytest.raises(PolicyFileError, match="the new policy file: activation 'gelu'"):
        policy_file_from_weights(good, game, 0, activation="gelu")
    with pytest.raises(PolicyFileError, match="table_sizes"):
        policy_file_from_weights(good, game, 0, table_sizes=[2, 0])


def test_every_name_of_the_policy_file_module_still_imports():
    from agents.policy_file import (  # noqa: F401
        ACTIVATIONS, FORMAT, FORMAT_VERSION, MAX_DIRECTORY_BYTES, MAX_LAYER_SIZE, MAX_LAYERS, MAX_MEMBERS,
        MAX_METADATA_BYTES, MAX_NPY_HEADER_BYTES, MAX_TABLE_SIZE, MAX_WEIGHT_ELEMENTS, READABLE_LAYOUT_VERSIONS,
        PolicyAgent, PolicyFile, PolicyFileError, load_policy, strip_extension)
    assert (FORMAT, FORMAT_VERSION, MAX_MEMBERS) == ("uno-env-policy", 1, 2 * (MAX_LAYERS - 1))
    assert agents.PolicyFileError is PolicyFileError and agents.PolicyAgent is PolicyAgent


def test_writing_a_policy_needs_numpy_only(tmp_path):
    code = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('stable_baselines3', 'sb3_contrib', 'torch', 'train'):
            raise ImportError('blocked ' + name)
sys.meta_path.insert(0, Block())
import numpy as np
from agents.policy_file import load_policy, policy_file_from_weights
from uno_env import Game
from uno_env.observation import ObservationEncoder
game = Game('classic', num_players=2)
sizes = [ObservationEncoder(game).size, 8, game.num_actions]
weights = [np.ones((sizes[0], 8)), np.zeros(8), np.ones((8, sizes[2])), np.zeros(sizes[2])]
policy_file_from_weights(weights, game, 0).save({str(tmp_path / 'p')!r})
load_policy({str(tmp_path / 'p')!r}, game)
assert not any(m.split('.')[0] in ('torch', 'train') for m in sys.modules)
print('ok')
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_the_torch_export_is_the_writer_over_the_linears_arrays():
    torch = pytest.importorskip("torch")
    from train.export import linear_arrays, policy_file_from_linears

    game = Game("classic", num_players=2, stacking="any")
    torch.manual_seed(0)
    sizes = _network(game)
    linears = [torch.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]
    exported = policy_file_from_linears(linears, game, 64, {"x": 1}, {"algo": "ppo"}, table_sizes=[2, 3])
    direct = policy_file_from_weights(linear_arrays(linears), game, 64, {"x": 1}, {"algo": "ppo"}, [2, 3])
    assert exported.metadata == direct.metadata and exported.metadata["layers"] == sizes
    for w, lin in zip(exported.weights[::2], linears):
        assert w.flags.c_contiguous and np.array_equal(w, lin.weight.detach().numpy().T)
    with torch.no_grad():
        linears[0].weight.zero_()  # the file holds copies, not views of the network's parameters
    assert exported.weights[0].any()
