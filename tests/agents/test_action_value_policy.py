"""Action-value policy files (``network: action-value``, agents/policy_file/) and their action features (uno_env/)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import agents
from agents.policy_file import (MAX_WEIGHT_ELEMENTS, PolicyAgent, PolicyFile, PolicyFileError, load_policy,
                                policy_file_from_weights)
from uno_env import Game
from uno_env.action_features import ACTION_KINDS, action_feature_blocks, action_features
from uno_env.observation import ObservationEncoder
from paths import ROOT  # tests/paths.py

VARIANTS = ("classic", "flip", "flex", "attack", "alphabet", "xiangqi")


def _network(game: Game, hidden=(16, 8), seed=0) -> tuple[list[np.ndarray], np.ndarray]:
    """Random relu Q-network arrays for ``game`` (observation + features in, one out) and the feature table."""
    table = action_features(game)
    sizes = [ObservationEncoder(game).size + table.shape[1], *hidden, 1]
    rng = np.random.default_rng(seed)
    arrays = []
    for a, b in zip(sizes, sizes[1:]):
        arrays += [(rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32), rng.normal(size=b).astype(np.float32)]
    return arrays, table


def _positions(game: Game, count=60, seed=1):
    enc, rng, s = ObservationEncoder(game), np.random.default_rng(seed), game.new_state(seed)
    out = []
    while len(out) < count:
        if s.is_over:
            s = game.new_state(len(out))
        out.append((enc.encode(s, s.current_seat), game.legal_action_mask(s)))
        legal = game.legal_actions(s)
        game.step(s, legal[int(rng.integers(len(legal)))])
    return out


def _q_by_concat(arrays, table, obs) -> np.ndarray:
    """Q of every action the plain way: the MLP on concat(observation, features[a])."""
    h = np.concatenate([np.repeat(obs[None], len(table), 0), table], 1)
    for i in range(len(arrays) // 2 - 1):
        h = np.maximum(h @ arrays[2 * i] + arrays[2 * i + 1], 0.0)
    return (h @ arrays[-2] + arrays[-1])[:, 0]


@pytest.mark.parametrize("variant", VARIANTS)
def test_action_features_are_one_row_per_action_all_different(variant):
    game = Game(variant, num_players=2)
    table = action_features(game)
    width = sum(n for _, n in action_feature_blocks(game))
    assert table.dtype == np.float32 and table.shape == (game.num_actions, width)
    assert len(np.unique(table, axis=0)) == game.num_actions  # every action told apart
    kinds = table[:, game.num_actions:game.num_actions + len(ACTION_KINDS)]
    assert (kinds.sum(1) == 1).all()  # each action is exactly one kind
    assert np.isfinite(table).all() and np.array_equal(table, action_features(Game(variant, num_players=4)))


def test_action_features_read_the_cards():
    game = Game("classic", num_players=2)
    table, layout = action_features(game), game.layout
    blocks = dict(action_feature_blocks(game))
    colour0 = blocks["action"] + blocks["kind"]
    red7, blue7 = layout.from_string("play R7"), layout.from_string("play B7")
    assert table[red7, colour0 + 0] == 1 and table[blue7, colour0 + 3] == 1
    rank = slice(colour0 + 5, colour0 + 5 + blocks["rank"])
    assert np.array_equal(table[red7, rank], table[blue7, rank])  # the same rank, told apart by colour
    assert table[layout.from_string("colour B"), colour0 + 3] == 1
    kind0 = blocks["action"]
    assert table[layout.draw, kind0 + ACTION_KINDS.index("draw")] == 1
    assert table[layout.pass_, kind0 + ACTION_KINDS.index("pass")] == 1
    assert table[layout.challenge, kind0 + ACTION_KINDS.index("challenge")] == 1


def test_an_action_value_file_round_trips_and_plays_the_arg_max(tmp_path):
    game = Game("classic", num_players=2)
    arrays, table = _network(game)
    policy = policy_file_from_weights(arrays, game, 1234, config={"algo": "dmc"}, activation="relu",
                                      action_features=table)
    meta = policy.metadata
    assert meta["network"] == "action-value" and meta["action_features"] == table.shape[1]
    assert meta["layers"] == [ObservationEncoder(game).size + table.shape[1], 16, 8, 1]
    policy.save(str(tmp_path / "q"))
    back = PolicyFile.read(str(tmp_path / "q"))
    assert back.metadata == meta and back.network == "action-value" and np.array_equal(back.action_features, table)
    assert all(np.array_equal(x, y) for x, y in zip(back.weights, arrays))
    agent = agents.load(str(tmp_path / "q"), game, seed=0)
    assert isinstance(agent, PolicyAgent)
    for obs, mask in _positions(game):
        q = _q_by_concat(arrays, table, obs)
        np.testing.assert_allclose(agent.logits(obs), q, rtol=1e-4, atol=1e-4)
        a = agent.act(obs, mask)
        assert mask[a] == 1
        assert q[a] >= q[mask == 1].max() - 1e-4  # the arg-max over the legal actions


def test_a_sampled_action_value_agent_plays_only_legal_actions(tmp_path):
    game = Game("flex", num_players=3)
    arrays, table = _network(game, hidden=(8,))
    policy_file_from_weights(arrays, game, 0, activation="relu", action_features=table).save(str(tmp_path / "q"))
    agent = load_policy(str(tmp_path / "q"), game, deterministic=False, seed=3)
    for obs, mask in _positions(game, 80):
        assert mask[agent.act(obs, mask)] == 1
    assert agent.logits(np.stack([p[0] for p in _positions(game, 3)])).shape == (3, game.num_actions)


def test_an_action_value_policy_plays_without_torch(tmp_path):
    game = Game("classic", num_players=2)
    arrays, table = _network(game)
    policy_file_from_weights(arrays, game, 0, activation="relu", action_features=table).save(str(tmp_path / "q"))
    code = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('torch', 'train', 'stable_baselines3', 'sb3_contrib'):
            raise ImportError('blocked ' + name)
sys.meta_path.insert(0, Block())
import agents
from uno_env import Game
from uno_env.observation import ObservationEncoder
game = Game('classic', num_players=2)
bot = agents.load({str(tmp_path / 'q')!r}, game, seed=0)
enc = ObservationEncoder(game)
played = []
for seed in range(3):
    s = game.new_state(seed)
    while not s.is_over:
        mask = game.legal_action_mask(s)
        a = bot.act(enc.encode(s, s.current_seat), mask)
        assert mask[a] == 1
        game.step(s, a)
        played.append(int(a))
print(played)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    # the same games as the agent loaded here (torch importable) plays them: the same actions, move by move
    bot, enc, played = load_policy(str(tmp_path / "q"), game, seed=0), ObservationEncoder(game), []
    for seed in range(3):
        s = game.new_state(seed)
        while not s.is_over:
            a = bot.act(enc.encode(s, s.current_seat), game.legal_action_mask(s))
            game.step(s, a)
            played.append(int(a))
    assert out.stdout.strip() == str(played) and len(played) > 30


def _saved(tmp_path, name="q", game=None):
    game = game or Game("classic", num_players=2)
    arrays, table = _network(game, hidden=(4,))
    policy = policy_file_from_weights(arrays, game, 0, activation="relu", action_features=table)
    policy.save(str(tmp_path / name))
    return str(tmp_path / name), policy


@pytest.mark.parametrize("change, words", [
    ({"network": "transformer"}, "network 'transformer'; this version reads the MLP (no 'network' key) or "
                                 "'action-value'"),
    ({"action_features": 0}, "action_features 0 must be a whole number"),
    ({"action_features": "wide"}, "action_features 'wide' must be a whole number"),
    ({"action_features_version": None}, "action_features_version None must be a whole number"),
    ({"action_features": 131}, "need (65, 131) (the action-feature table)"),
    ({"action_features": 131, "layers": [536, 4, 1]}, "p0.npy has shape (537, 4); layers [536, 4, 1] need (536, 4)"),
    ({"num_actions": 64}, "p4.npy has shape (65, 132); layers [537, 4, 1] need (64, 132) (the action-feature table)"),
    ({"num_actions": 60_000, "action_features": 60_000, "layers": [60_405, 1]},
     "action-feature table make 3,600,060,406 numbers; a policy file holds at most"),
])
def test_damaged_action_value_metadata_is_refused_in_one_line(tmp_path, change, words):
    base, policy = _saved(tmp_path)
    meta = {**policy.metadata, **change}
    with open(base + ".json", "w", encoding="utf-8") as fh:
        json.dump(meta, fh)
    with pytest.raises(PolicyFileError) as info:
        PolicyFile.read(base)
    message = str(info.value)
    assert words in message and "\n" not in message and len(message) < 400


def test_a_missing_or_oversized_feature_table_is_refused_before_it_is_read(tmp_path):
    base, policy = _saved(tmp_path)
    np.savez(base + ".npz", **{f"p{i}": w for i, w in enumerate(policy.weights)})  # the table left out
    with pytest.raises(PolicyFileError, match=r"weight arrays do not fit layers .*they need p0.npy to p4.npy"):
        PolicyFile.read(base)
    big = np.zeros((65, 4000), np.float32)  # a table wider than the metadata says
    np.savez(base + ".npz", **{f"p{i}": w for i, w in enumerate(policy.weights + [big])})
    with pytest.raises(PolicyFileError, match=r"p4.npy has shape \(65, 4000\); .* \(the action-feature table\)"):
        PolicyFile.read(base)
    too_deep = {**policy.metadata, "layers": [537] + [2] * 14 + [1]}
    with open(base + ".json", "w", encoding="utf-8") as fh:
        json.dump(too_deep, fh)
    with pytest.raises(PolicyFileError, match="an action-value network has at most 15 layer sizes"):
        PolicyFile.read(base)
    assert MAX_WEIGHT_ELEMENTS == 1 << 24


def test_a_damaged_action_value_archive_is_a_policy_file_error(tmp_path):
    base, _ = _saved(tmp_path)
    data = open(base + ".npz", "rb").read()
    for cut in (10, len(data) // 2, len(data) - 5):
        with open(base + ".npz", "wb") as fh:
            fh.write(data[:cut])
        with pytest.raises(PolicyFileError):
            PolicyFile.read(base)


def test_an_action_value_file_of_another_game_is_refused():
    game = Game("classic", num_players=2)
    arrays, table = _network(game, hidden=(4,))
    policy = policy_file_from_weights(arrays, game, 0, activation="relu", action_features=table)
    with pytest.raises(PolicyFileError, match="variant 'classic'"):
        policy.check_game(Game("xiangqi", num_players=2))
    broken = PolicyFile(policy.weights, policy.metadata, table[:, :10])
    with pytest.raises(PolicyFileError, match=r"action-feature table of shape \(65, 10\)"):
        broken.check_game(game)
    with pytest.raises(PolicyFileError, match="an action-feature table without network: action-value"):
        PolicyFile(policy.weights, {k: v for k, v in policy.metadata.items() if k != "network"}, table).check_game(game)
    with pytest.raises(ValueError, match="num_actions x F"):
        policy_file_from_weights(arrays, game, 0, activation="relu", action_features=table[:10])


def test_older_mlp_files_are_read_and_written_as_before(tmp_path):
    """No ``network`` key: the MLP of observation to logits, its metadata and archive exactly as before."""
    game = Game("classic", num_players=2)
    size = ObservationEncoder(game).size
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(size, 8)).astype(np.float32), np.zeros(8, np.float32),
              rng.normal(size=(8, game.num_actions)).astype(np.float32), np.zeros(game.num_actions, np.float32)]
    policy = policy_file_from_weights(arrays, game, 0)
    assert "network" not in policy.metadata and policy.action_features is None and policy.network == "mlp"
    policy.save(str(tmp_path / "mlp"))
    import zipfile

    assert sorted(zipfile.ZipFile(tmp_path / "mlp.npz").namelist()) == ["p0.npy", "p1.npy", "p2.npy", "p3.npy"]
    agent = load_policy(str(tmp_path / "mlp"), game)
    obs, mask = _positions(game, 1)[0]
    assert agent.scorer is None and agent.logits(obs).shape == (game.num_actions,) and mask[agent.act(obs, mask)]
    shipped = os.path.join(agents.PRETRAINED_DIR, "classic-2p")
    assert PolicyFile.read(shipped).action_features is None


# ----------------------------------------------------------------------------- through the command-line apps

@pytest.fixture(scope="module")
def dmc_policy(tmp_path_factory):
    """A tiny DMC run's exported action-value policy (classic, 2 players): ``(folder, folder/dmcbot/policy)``."""
    import torch

    from train.algorithm import run_algorithm
    from train.config import TrainConfig

    folder = tmp_path_factory.mktemp("dmc")
    cfg = TrainConfig.from_dict({"algo": "dmc", "variant": "classic", "num_players": 2, "total_timesteps": 600,
                                 "num_games": 8, "net_arch": [16], "batch_size": 64, "dmc_actors": 0,
                                 "opponents": {"random": 1.0}, "eval_games": 2, "out_dir": str(folder)})
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        path = run_algorithm(cfg, str(folder / "dmcbot"))
    finally:
        torch.set_num_threads(threads)
    assert PolicyFile.read(path).network == "action-value"
    return folder, path


def _check_moves_of(records, spec: str, path: str) -> int:
    """Every move of the seat named ``spec`` in ``records`` is legal and the file's own arg-max; how many there were."""
    from uno_env import RuleSet

    checked = 0
    for rec in records:
        game = Game(RuleSet.from_dict(rec.rules))
        agent, enc, state = load_policy(path, game), ObservationEncoder(game), game.new_state(rec.seed)
        for a in rec.actions:
            if rec.players[state.current_seat] == spec:
                mask = game.legal_action_mask(state)
                assert mask[a["action"]] and a["action"] == agent.act(enc.encode(state, state.current_seat), mask)
                checked += 1
            game.step(state, a["action"])
        assert state.is_over
    return checked


def test_uno_env_eval_plays_an_action_value_policy(dmc_policy, tmp_path, capsys):
    """``uno-env eval`` rates the DMC file by its run's name, every one of its moves the file's legal arg-max."""
    from train.app.cli import main
    from uno_env.records import read_records

    _, path = dmc_policy
    out, rec = tmp_path / "out", tmp_path / "rec"
    assert main(["eval", "--agents", path, "random", "--games", "6", "--out", str(out), "--record", str(rec),
                 "--workers", "1", "--no-progress"]) == 0
    assert "| dmcbot | 6 |" in capsys.readouterr().out
    row = next(a for a in json.loads((out / "results.json").read_text())["agents"] if a["agent"] == "dmcbot")
    assert row["spec"] == path and row["games"] == 6 and 0 <= row["win_rate"] <= 1
    assert row["wins"] == round(row["win_rate"] * 6)
    records = list(read_records(open(rec / "games.jsonl", encoding="utf-8")))
    assert len(records) == 6 and _check_moves_of(records, path, path) > 30


def test_uno_env_play_against_an_action_value_policy(dmc_policy, tmp_path, capsys, monkeypatch):
    """``uno-env play`` with scripted input plays a whole game against the DMC file, which moves by its arg-max."""
    import io

    from train.app.cli import main
    from uno_env.records import read_records

    _, path = dmc_policy
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    record = tmp_path / "game.jsonl"
    assert main(["play", "--opponents", path, "--seed", "3", "--no-colour", "--record", str(record)]) == 0
    text = capsys.readouterr().out
    assert "you are P0. P1: dmcbot" in text and "Game over:" in text and "\nP1: play " in text  # the agent's moves
    (rec,) = read_records(open(record, encoding="utf-8"))
    assert rec.players == ["human", path] and _check_moves_of([rec], path, path) > 0


@pytest.mark.filterwarnings("ignore:Using `httpx`")
def test_uno_env_serve_plays_an_action_value_policy_from_its_folder(dmc_policy):
    """``uno-env serve`` seats the DMC file from its folder; it moves first, and every move is its arg-max."""
    import io
    import warnings

    with warnings.catch_warnings():  # as tests/apps/test_serve.py: Starlette's test client asks for httpx2
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from train.app.serve.app import build_app
    from uno_env.records import read_records

    folder, path = dmc_policy
    c = TestClient(build_app(str(folder)), base_url="http://127.0.0.1")
    r = c.post("/api/games", json={"opponents": ["dmcbot/policy"], "players": 2, "seat": 1, "seed": 4})
    assert r.status_code == 200, r.text
    data = r.json()
    sid = data["session"]
    assert data["view"]["seats"][0]["name"] == "P0 dmcbot"
    assert data["events"] and data["events"][0]["lines"][0].startswith("P0: ")  # the agent moved first
    assert c.app.state.sessions.get(sid).policies[0].policy.network == "action-value"
    view = data["view"]
    while view["result"] is None:  # the human's lowest legal action, each answered by the agent's moves
        d = view["decision"]
        action = min([a["action"] for acts in d["plays"].values() for a in acts]
                     + [b["action"] for b in d["buttons"]])
        r = c.post(f"/api/games/{sid}/act", json={"action": action, "step": view["step"]})
        assert r.status_code == 200, r.text
        view = r.json()["view"]
    text = c.get(f"/api/games/{sid}/record").text
    (rec,) = read_records(io.StringIO(text))
    assert rec.players == ["dmcbot/policy", "human"]
    assert _check_moves_of([rec], "dmcbot/policy", path) > 1


def test_uno_env_benchmark_runs_an_action_value_policy(dmc_policy, tmp_path, capsys):
    """``uno-env benchmark --agent <file>``, one task at 2 games: the file's games, win rate and fingerprint."""
    from train.app.cli import main

    _, path = dmc_policy
    out = tmp_path / "bench"
    assert main(["benchmark", "--agent", path, "--tasks", "classic-2p", "--games-per-task", "2", "--workers", "1",
                 "--no-progress", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"# Benchmark: `{path}`" in printed and "| classic-2p |" in printed and "not comparable" in printed
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["agent"] == path and results["official"] is False
    (task,) = results["tasks"]
    assert task["id"] == "classic-2p" and task["games"] == 2 and 0 <= task["win_rate"] <= 1
    assert task["wins"] == round(task["win_rate"] * 2) and "normalised_score" in task
    header = json.loads((out / "games" / "classic-2p" / "games-played.jsonl").read_text().splitlines()[0])
    assert header["agents"] == [path, "heuristic"] and len(header["policies"][path]) == 64  # the file's fingerprint
