"""Search distillation (``teacher:`` in a native config): labels, determinism, resume, the fit, config errors."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

from agents import load as load_agent
from train.ppo import distill
from train.ppo import trainer as native_ppo
from train.config import ConfigError, TrainConfig
from uno_env import Game
from uno_env.observation import ObservationEncoder

pytestmark = pytest.mark.slow  # labels games by search and trains: left out of make test-quick

TINY = dict(algo="ppo", gamma=1.0, total_timesteps=1_000, num_games=16, n_steps=32, batch_size=256,
            net_arch=[64, 64], eval_every=100_000, eval_games=4, run_name="distilled",
            opponents={"heuristic": 1.0}, teacher="ismcts:iterations=20", teacher_games=2 * distill.CHUNK_GAMES,
            teacher_epochs=2)


def _cfg(tmp_path, **kw) -> TrainConfig:
    return TrainConfig.from_dict({**TINY, "out_dir": str(tmp_path / "runs"), **kw})


@pytest.fixture(scope="module")
def labelled(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("labels")
    cfg = _cfg(tmp, table_sizes=[2, 3])
    return cfg, distill.label(cfg, str(tmp / "teacher"), workers=1, progress=False)


def test_labels_are_visit_distributions_over_legal_actions_of_the_teacher_seat(labelled):
    cfg, data = labelled
    n = len(data["obs"])
    assert n > 100 and data["mask"].shape == data["target"].shape == (n, Game("classic", 3).num_actions)
    assert np.allclose(data["target"].sum(1), 1.0)
    assert not (data["target"] * (data["mask"] == 0)).any()  # nothing on an illegal action
    assert (data["mask"].sum(1) > 1).all()                    # forced decisions are left out
    assert not np.isin(data["target"], [0.0, 1.0]).all()      # searched decisions give spread targets
    # the value target is the teacher seat's result: +1 for a win, -1/(n-1) for a loss, one per game
    games = np.unique(data["game"])
    assert set(games) <= set(range(cfg.teacher_games)) and len(games) > cfg.teacher_games // 2
    for g in games:
        results = set(data["result"][data["game"] == g].tolist())
        n_players = cfg.player_counts[g % 2]
        assert len(results) == 1 and results <= {1.0, -1.0 / (n_players - 1), -1.0}
    # the observation is the teacher seat's own: its hand block matches a mask's playable kinds
    enc = ObservationEncoder(Game("classic", 2))
    hand = data["obs"][:, enc.offsets["hand"]]
    plays = data["mask"][:, :hand.shape[1]].astype(bool)
    assert (hand[plays] > 0).all()


def test_labels_do_not_depend_on_the_worker_count_and_an_interrupted_labelling_resumes(labelled, tmp_path):
    cfg, data = labelled
    folder = tmp_path / "teacher"
    again = distill.label(cfg, str(folder), workers=2, progress=False)
    for key in data:
        assert np.array_equal(data[key], again[key]), key
    assert sorted(os.listdir(folder)) == ["chunk_00000.npz", "chunk_00001.npz", distill.IDENTITY]
    os.remove(folder / "chunk_00001.npz")       # as if stopped before the second chunk was saved
    first = os.path.getmtime(folder / "chunk_00000.npz")
    resumed = distill.label(cfg, str(folder), workers=1, progress=False)
    assert os.path.getmtime(folder / "chunk_00000.npz") == first  # kept, not labelled again
    for key in data:
        assert np.array_equal(data[key], resumed[key]), key
    # any setting the labels depend on, changed, is refused before anything is labelled or reused
    for change in ({"teacher": "ismcts:iterations=21"}, {"seed": 1}, {"opponents": {"greedy": 1.0}}):
        with pytest.raises(ValueError, match=f"{next(iter(change))} changed"):
            distill.label(_cfg(tmp_path, table_sizes=[2, 3], **change), str(folder), workers=1, progress=False)
    assert sorted(os.listdir(folder)) == ["chunk_00000.npz", "chunk_00001.npz", distill.IDENTITY]
    os.remove(folder / distill.IDENTITY)
    with pytest.raises(ValueError, match="without labelling.json"):
        distill.label(cfg, str(folder), workers=1, progress=False)


def test_raising_teacher_games_keeps_the_labelled_chunks_and_labels_only_the_new_games(labelled, tmp_path):
    cfg, data = labelled
    folder = tmp_path / "teacher"
    distill.label(cfg, str(folder), workers=1, progress=False)
    kept = {name: os.path.getmtime(folder / name) for name in ("chunk_00000.npz", "chunk_00001.npz")}

    def games_below(d: dict, n: int) -> dict:
        return {key: d[key][d["game"] < n] for key in d}

    chunk = distill.CHUNK_GAMES
    fewer = distill.label(_cfg(tmp_path, table_sizes=[2, 3], teacher_games=chunk), str(folder), workers=1,
                          progress=False)
    for key, value in games_below(data, chunk).items():
        assert np.array_equal(value, fewer[key]), key
    grown = distill.label(_cfg(tmp_path, table_sizes=[2, 3], teacher_games=2 * chunk + 5), str(folder), workers=1,
                          progress=False)
    assert {name: os.path.getmtime(folder / name) for name in kept} == kept  # reused, not labelled again
    assert (folder / "chunk_00002_5games.npz").exists()
    for key, value in data.items():
        assert np.array_equal(value, games_below(grown, 2 * chunk)[key]), key
    assert set(np.unique(grown["game"][grown["game"] >= 2 * chunk])) <= set(range(2 * chunk, 2 * chunk + 5))
    # as a folder labelled before labellings could grow: the partial chunk under the full name, the total recorded
    os.replace(folder / "chunk_00002_5games.npz", folder / "chunk_00002.npz")
    record = json.loads((folder / distill.IDENTITY).read_text(encoding="utf-8"))
    (folder / distill.IDENTITY).write_text(json.dumps({**record, "teacher_games": 2 * chunk + 5}), encoding="utf-8")
    # a whole third chunk labels the partial one's games again, the same way: game i does not depend on the total
    full = distill.label(_cfg(tmp_path, table_sizes=[2, 3], teacher_games=3 * chunk), str(folder), workers=1,
                         progress=False)
    for key, value in grown.items():
        assert np.array_equal(value, games_below(full, 2 * chunk + 5)[key]), key
    assert len(np.unique(full["game"])) > len(np.unique(grown["game"]))
    assert sorted(os.listdir(folder)) == ["chunk_00000.npz", "chunk_00001.npz", "chunk_00002.npz", distill.IDENTITY]
    assert "teacher_games" not in json.loads((folder / distill.IDENTITY).read_text(encoding="utf-8"))


def test_the_fit_learns_the_teachers_choices(labelled, tmp_path):
    cfg, data = labelled
    game = Game("classic", 2)
    torch.manual_seed(0)
    net = native_ppo.build_network(ObservationEncoder(game).size, game.num_actions, [64, 64])

    def agreement() -> float:
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(data["obs"]), torch.from_numpy(data["mask"]))
        return float((logits.argmax(-1).numpy() == data["target"].argmax(-1)).mean())

    before = agreement()
    report = distill.fit(net, data, TrainConfig.from_dict({**cfg.to_dict(), "teacher_epochs": 30}),
                         np.random.default_rng(0), str(tmp_path / "teacher.csv"))
    assert agreement() > before + 0.15, (before, agreement())
    assert report["epoch"] == 30 and report["held_out"] > 0
    rows = (tmp_path / "teacher.csv").read_text().splitlines()
    assert len(rows) == 31
    # each network keeps its best held-out epoch, not the last
    value_losses = [float(r.split(",")[4]) for r in rows[1:]]
    assert report["best_critic_loss"] == pytest.approx(min(value_losses), abs=1e-5)
    held = np.isin(data["game"], np.unique(data["game"])[::int(round(1 / distill.HELD_OUT))])
    with torch.no_grad():
        _, value = net(torch.from_numpy(data["obs"][held]), torch.from_numpy(data["mask"][held]))
    assert 0.5 * float(((value.numpy() - data["result"][held]) ** 2).mean()) == pytest.approx(min(value_losses),
                                                                                              abs=1e-5)


def test_the_fit_weighs_the_value_loss_and_clips_as_the_ppo_settings_say(tmp_path, monkeypatch):
    """``vf_coef`` and ``ppo_max_grad_norm`` reach the distillation: 0 leaves the critic as it was."""
    rng = np.random.default_rng(0)
    n, size, actions = 200, 12, 5
    mask = (rng.random((n, actions)) < 0.6).astype(np.int8)
    mask[:, 0] = 1
    target = mask * rng.random((n, actions))
    data = {"obs": rng.random((n, size), dtype=np.float32), "mask": mask,
            "target": (target / target.sum(1, keepdims=True)).astype(np.float32),
            "result": rng.choice([-1.0, 1.0], n).astype(np.float32), "game": np.arange(n) // 4}
    seen = []
    clip = torch.nn.utils.clip_grad_norm_
    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", lambda params, max_norm, *a, **k: (
        seen.append(max_norm), clip(params, max_norm, *a, **k))[1])
    torch.manual_seed(0)
    net = native_ppo.build_network(size, actions, [8])
    critic = {k: v.clone() for k, v in net.critic.state_dict().items()}
    actor = {k: v.clone() for k, v in net.actor.state_dict().items()}
    cfg = TrainConfig.from_dict({"algo": "ppo", "teacher_epochs": 2, "batch_size": 64, "vf_coef": 0.0,
                                 "ppo_max_grad_norm": 0.3})
    distill.fit(net, data, cfg, np.random.default_rng(0), str(tmp_path / "teacher.csv"))
    assert seen and set(seen) == {0.3}
    assert all(torch.equal(v, critic[k]) for k, v in net.critic.state_dict().items())  # no value loss: untouched
    assert not all(torch.equal(v, actor[k]) for k, v in net.actor.state_dict().items())
    seen.clear()
    distill.fit(net, data, TrainConfig.from_dict({"algo": "ppo", "teacher_epochs": 2, "batch_size": 64}),
                np.random.default_rng(0), str(tmp_path / "teacher.csv"))
    assert set(seen) == {0.5} and not all(torch.equal(v, critic[k]) for k, v in net.critic.state_dict().items())


def test_a_run_with_a_teacher_exports_the_distilled_policy_and_ppo_starts_from_it(tmp_path):
    summary = native_ppo.train(_cfg(tmp_path), progress=False)
    run = summary["run_dir"]
    game = Game("classic", 2)
    distilled = load_agent(os.path.join(run, "distilled", "policy"), game)
    final = load_agent(os.path.join(run, "policy"), game)
    assert distilled.policy.metadata["training_steps"] == 0 and final.policy.metadata["training_steps"] > 0
    assert len(os.listdir(os.path.join(run, "teacher"))) == 3  # two chunks and labelling.json
    # the PPO phase moved the distilled weights, but did not start from scratch: far closer to them than to a new net
    torch.manual_seed(123)
    fresh = native_ppo.build_network(ObservationEncoder(game).size, game.num_actions, [64, 64])
    first = fresh.actor[0].weight.detach().numpy().T
    d_final = np.abs(final.policy.weights[0] - distilled.policy.weights[0]).mean()
    assert 0 < d_final < np.abs(first - distilled.policy.weights[0]).mean() / 4


def test_the_labelling_games_seat_a_module_callable_opponent(tmp_path, monkeypatch):
    """Any league spec takes the other seats while the teacher labels, a ``module:callable`` agent too."""
    import benchmark_agents  # tests/benchmark_agents.py

    asked = []
    act = benchmark_agents.LowestLegalAgent.act
    monkeypatch.setattr(benchmark_agents.LowestLegalAgent, "act", lambda self, o, m: asked.append(1) or act(self, o, m))
    cfg = _cfg(tmp_path, opponents={"benchmark_agents:make_lowest_legal_agent": 1.0}, teacher="ismcts:iterations=4")
    rows = distill.label_chunk(cfg.to_dict(), 0)
    assert len(rows["obs"]) > 0 and len(asked) > distill.CHUNK_GAMES  # it played every game's other seat


def test_with_a_teacher_behaviour_the_student_moves_and_the_teacher_labels_its_positions(labelled, tmp_path,
                                                                                          monkeypatch):
    """DAgger: another agent makes the teacher seat's moves; every position it moves from is labelled by the search."""
    import benchmark_agents  # tests/benchmark_agents.py

    seen = []
    act = benchmark_agents.LowestLegalAgent.act
    monkeypatch.setattr(benchmark_agents.LowestLegalAgent, "act",
                        lambda self, o, m: seen.append((o.copy(), m.copy())) or act(self, o, m))
    cfg, plain = labelled
    spec = "benchmark_agents:make_lowest_legal_agent"
    dagger = _cfg(tmp_path, table_sizes=[2, 3], teacher_behaviour=spec)
    rows = distill.label(dagger, str(tmp_path / "teacher"), workers=1, progress=False)
    # the student moved from each labelled position, in order (and from the forced ones, which teach nothing)
    choices = [(o, m) for o, m in seen if m.sum() > 1]
    assert len(choices) == len(rows["obs"]) > 100
    for (obs, mask), row_obs, row_mask in zip(choices, rows["obs"], rows["mask"]):
        assert np.array_equal(obs, row_obs) and np.array_equal(mask, row_mask)
    assert np.allclose(rows["target"].sum(1), 1.0) and not np.isin(rows["target"], [0.0, 1.0]).all()
    # the same deals, other games: the student plays the lowest legal action, not the teacher's move
    assert len(rows["obs"]) != len(plain["obs"]) or not np.array_equal(rows["obs"], plain["obs"])
    assert np.mean(rows["mask"].argmax(1) == rows["target"].argmax(1)) < 0.9
    # deterministic, and a folder labelled with another mover (or none) is refused
    again = distill.label(dagger, str(tmp_path / "again"), workers=1, progress=False)
    for key in rows:
        assert np.array_equal(rows[key], again[key]), key
    with pytest.raises(ConfigError, match="teacher_behaviour changed"):
        distill.label(cfg, str(tmp_path / "teacher"), workers=1, progress=False)
    with pytest.raises(ConfigError, match="teacher_behaviour changed"):
        distill.label(_cfg(tmp_path, table_sizes=[2, 3], teacher_behaviour="greedy"), str(tmp_path / "teacher"),
                      workers=1, progress=False)


def test_a_labelling_with_a_mover_is_its_own_and_the_policy_file_it_names_is_part_of_it(labelled, tmp_path):
    """A folder labelled with the teacher moving refuses a mover (and the reverse); a policy file refitted under the
    same path is another mover; a seeded mover (``random``) labels the same whatever the worker count."""
    import shutil

    from agents.loader import pretrained_path

    cfg, _ = labelled
    plain = tmp_path / "plain"
    distill.label(_cfg(tmp_path, table_sizes=[2, 3], teacher_games=distill.CHUNK_GAMES), str(plain), workers=1,
                  progress=False)
    with pytest.raises(ConfigError, match="teacher_behaviour changed \\(None -> 'greedy'\\)"):
        distill.label(_cfg(tmp_path, table_sizes=[2, 3], teacher_behaviour="greedy"), str(plain), workers=1,
                      progress=False)
    student = tmp_path / "student"
    for ext in (".npz", ".json"):
        shutil.copy(pretrained_path("classic") + ext, str(student) + ext)
    moved = _cfg(tmp_path, teacher_games=distill.CHUNK_GAMES, teacher_behaviour=str(student))
    distill.label(moved, str(tmp_path / "moved"), workers=1, progress=False)
    record = json.loads((tmp_path / "moved" / distill.IDENTITY).read_text(encoding="utf-8"))
    assert len(record["teacher_behaviour_sha256"]) == 64
    with open(str(student) + ".json", "a", encoding="utf-8") as fh:
        fh.write("\n")  # the same path, another file
    with pytest.raises(ConfigError, match="teacher_behaviour_sha256 changed"):
        distill.label(moved, str(tmp_path / "moved"), workers=1, progress=False)
    seeded = _cfg(tmp_path, table_sizes=[2, 3], teacher_behaviour="random")
    one = distill.label(seeded, str(tmp_path / "one"), workers=1, progress=False)
    two = distill.label(seeded, str(tmp_path / "two"), workers=2, progress=False)
    for key in one:
        assert np.array_equal(one[key], two[key]), key


def test_the_policy_files_a_teacher_searches_with_are_part_of_its_labelling(tmp_path):
    """A prior (or opponent policy) refitted under the same path is another teacher; a record written before the
    prior's file was recorded is kept, and records it from then on."""
    import shutil

    from agents.loader import pretrained_path

    prior = tmp_path / "prior"
    for ext in (".npz", ".json"):
        shutil.copy(pretrained_path("classic") + ext, str(prior) + ext)
    guided = _cfg(tmp_path, teacher=f"ismcts:iterations=8,prior={prior}", teacher_games=distill.CHUNK_GAMES)
    folder = tmp_path / "guided"
    rows = distill.label(guided, str(folder), workers=1, progress=False)
    record = json.loads((folder / distill.IDENTITY).read_text(encoding="utf-8"))
    assert list(record["teacher_sha256"]) == ["prior"] and len(record["teacher_sha256"]["prior"]) == 64
    # a record from before: the labels are reused, and the file they were labelled with recorded
    (folder / distill.IDENTITY).write_text(json.dumps({k: v for k, v in record.items() if k != "teacher_sha256"}),
                                           encoding="utf-8")
    again = distill.label(guided, str(folder), workers=1, progress=False)
    assert all(np.array_equal(rows[key], again[key]) for key in rows)
    assert json.loads((folder / distill.IDENTITY).read_text(encoding="utf-8")) == record
    with open(str(prior) + ".json", "a", encoding="utf-8") as fh:
        fh.write("\n")  # the same path, another file
    with pytest.raises(ConfigError, match="teacher_sha256 changed"):
        distill.label(guided, str(folder), workers=1, progress=False)
    # the bare `pretrained` names the shipped policy of each table size; a teacher without a policy records none
    both = _cfg(tmp_path, table_sizes=[2, 3], teacher="ismcts:prior=pretrained,opponents=policy")
    assert sorted(distill.labelling_identity(both)["teacher_sha256"]) == ["opponent_policy@2p", "opponent_policy@3p",
                                                                          "prior@2p", "prior@3p"]
    assert "teacher_sha256" not in distill.labelling_identity(_cfg(tmp_path))


@pytest.mark.parametrize("bad, message", [({"teacher": "heuristic"}, "not a search agent spec"),
                                          ({"teacher": "ismcts:depth=3"}, "teacher: ismcts option"),
                                          ({"algo": "sb3"}, "needs algo: ppo"),
                                          ({"teacher_games": 0}, "teacher_games"),
                                          ({"teacher_learning_rate": 0.0}, "teacher_learning_rate"),
                                          ({"teacher_behaviour": "nonesuch"}, "teacher_behaviour: .*nonesuch"),
                                          ({"teacher": "", "teacher_behaviour": "greedy"},
                                           "'teacher_behaviour' needs a 'teacher'"),
                                          ({"teacher_game": 5}, "did you mean 'teacher_games'")])
def test_bad_teacher_config_is_a_clear_error(tmp_path, bad, message):
    with pytest.raises(ConfigError, match=message):
        _cfg(tmp_path, **bad)


def test_resume_of_a_run_stopped_while_labelling_labels_the_rest_then_trains(tmp_path):
    cfg = _cfg(tmp_path)
    run = os.path.join(cfg.out_dir, cfg.name)
    distill.label(cfg, os.path.join(run, "teacher"), workers=1, progress=False)
    os.remove(os.path.join(run, "teacher", "chunk_00001.npz"))  # stopped before the second chunk was saved
    summary = native_ppo.train(cfg, resume=run, progress=False)
    assert sorted(os.listdir(os.path.join(run, "teacher"))) == ["chunk_00000.npz", "chunk_00001.npz",
                                                                 distill.IDENTITY]
    assert summary["timesteps"] >= cfg.total_timesteps
    assert os.path.exists(os.path.join(run, "distilled", "policy.npz"))
