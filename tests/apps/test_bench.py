"""``uno-env bench``: the matched policy, interleaved measuring, and what the table reports."""
from __future__ import annotations

import pytest

from train.app import bench_command
from train.benchmark import contenders, throughput
from uno_env import Game, load_scenario

pytestmark = pytest.mark.slow  # times training and the engine: left out of make test-quick


def _choose(game, legal, policy="matched"):
    return contenders.chooser(game, policy, contenders.UniformPicker(0))(legal)


def test_matched_policy_never_draws_while_holding_a_playable_card():
    game, state = load_scenario({"variant": "classic", "players": 2, "discard": ["R7"], "colour": "R",
                                 "hands": [["R3", "G7", "B1"], 5]})
    legal = game.legal_actions(state)
    assert game.layout.draw in legal
    picks = {contenders.chooser(game, "matched", contenders.UniformPicker(seed))(legal) for seed in range(50)}
    assert picks == {game.parse_card("R3"), game.parse_card("G7")}  # both plays, never the draw


def test_matched_policy_draws_only_with_nothing_to_play_and_plays_the_drawn_card():
    game, state = load_scenario({"variant": "classic", "players": 2, "discard": ["R7"], "colour": "R",
                                 "hands": [["G3", "B1"], 5], "draw_pile": ["R9"]})
    assert _choose(game, game.legal_actions(state)) == game.layout.draw
    game.step(state, "draw")
    assert state.phase == "PLAY_OR_KEEP_DRAWN"
    assert _choose(game, game.legal_actions(state)) == game.parse_card("R9")


def test_matched_policy_accepts_a_wild_draw_four():
    game, state = load_scenario({"variant": "classic", "players": 3, "discard": ["G5"], "colour": "G",
                                 "hands": [["W4", "R2", "B3"], 6, 6]})
    game.step(state, "play W4")
    game.step(state, "colour B")
    assert state.phase == "CHALLENGE_OR_ACCEPT"
    assert _choose(game, game.legal_actions(state)) == game.layout.accept


def test_matched_games_are_far_shorter_than_uniform_ones():
    """Uniform picks over all legal ids draw voluntarily and balloon the games; matched ones do not."""
    rows = {policy: contenders.engine_contender("classic", 2, policy) for policy in contenders.POLICIES}
    decisions = {p: sum(c.play_game(i) for i in range(30)) / 30 for p, c in rows.items()}
    assert decisions["matched"] < 120 < 3 * 120 < decisions["uniform"], decisions


def test_interleaved_runs_every_contender_in_every_round():
    calls = []
    a = contenders.Contender("a", lambda i: calls.append("a") or 10)
    b = contenders.Contender("b", lambda i: calls.append("b") or 20)
    rows = contenders.interleaved([a, None, b], seconds=0.0, rounds=3)
    assert calls == ["a", "b"] * 3
    assert rows[1] is None
    assert rows[0]["games"] == 3 and rows[0]["decisions_per_game"] == 10
    assert rows[2]["decisions"] == 60 and rows[2]["games_per_s"] > 0


def test_bench_table_reports_games_and_decisions_per_second(capsys, monkeypatch):
    monkeypatch.setattr(throughput, "rlcard_contender", lambda players, seed=0: None)
    assert bench_command.run(type("A", (), {"target": "engine", "seconds": 0.1, "players": [2], "variant": "flip",
                                            "policy": "matched"})()) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[1]
    assert "games/s" in header and "dec/s" in header and "dec/game" in header
    assert "uno_env python flip 2p" in out and "not installed" in out
    assert "uno_env native flip 2p" in out and "core whole games flip 2p" in out  # the core's rows beside it


def test_matched_chooser_reads_legal_ids_only_in_every_variant():
    for variant in ("classic", "flex", "flip", "attack"):
        game = Game(variant, num_players=3)
        choose = contenders.chooser(game, "matched", contenders.UniformPicker(1))
        state = game.new_state(3)
        for _ in range(200):
            if state.is_over:
                break
            legal = game.legal_actions(state)
            action = choose(legal)
            assert action in legal
            game.step(state, action)


def test_unknown_bench_policy_is_refused():
    with pytest.raises(ValueError, match="allowed: matched, uniform"):
        contenders.chooser(Game("classic"), "greedy", contenders.UniformPicker(0))


def test_bench_train_measures_every_trainer_on_the_same_network(capsys, monkeypatch):
    from train.benchmark import learning
    from train.app.cli import main

    labels = [label for label, _ in learning.contenders("classic", 2, [32])]
    assert any("native" in x for x in labels) and any("sb3" in x for x in labels)
    nets = {tuple(o["net_arch"]) for _, o in learning.contenders("classic", 2, [32])}
    assert nets == {(32,)}  # like with like: one network for all
    # the update row with a small batch and without torch.compile (a minute to compile; tests/training has it)
    monkeypatch.setattr(learning, "UPDATE_BATCH", 512)
    monkeypatch.setattr(learning, "UPDATE_OPTIONS", {k: v for k, v in learning.UPDATE_OPTIONS.items()
                                                     if "update_compile" not in v})
    assert main(["bench", "train", "--players", "2", "--net", "16", "--native-steps", "600", "--sb3-steps", "256",
                 "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("native", "sb3"))]
    assert len(rows) == len(labels)
    for row in rows:
        samples = int(row.split()[-4].replace(",", ""))
        assert samples > 0  # every trainer learned from something; no timing is asserted
    lines = out.splitlines()
    update = next(i for i, line in enumerate(lines) if line.startswith("the update alone"))
    assert "ppo_update on 512 decisions" in lines[update] and "median of 1 rounds between the slices" in lines[update]
    assert lines[update + 1].startswith("  its matrix products alone") and "FLOPs per sample" in lines[update + 1]
    ceiling = lines[update + 2]  # the real update's ceiling, beside its matrix products
    assert ceiling.startswith("  fp32:") and "x the matrix products" in ceiling
    assert "4 epochs allow at most" in ceiling and "the best sb3 row" in ceiling
    assert lines[update + 3].startswith("    its parts: gather")
    assert lines[update + 4].startswith("  bf16 autocast:")


def test_bench_train_minibatch_is_shared_and_bounded(capsys):
    from train.benchmark import learning
    from train.app.cli import main
    from train.config import TrainConfig

    entries = learning.contenders("classic", 2, [32], minibatch=2048)
    assert {o["batch_size"] for _, o in entries} == {2048}  # every trainer at the same minibatch
    for _, overrides in entries:  # each is a valid config, and one SB3 rollout holds a minibatch
        cfg = TrainConfig.from_dict(overrides)
        if cfg.algo == "sb3":
            assert cfg.n_envs * cfg.n_steps >= cfg.batch_size
    assert {o["batch_size"] for _, o in learning.contenders("classic", 2, [32])} == {learning.SHARED["batch_size"]}
    with pytest.raises(SystemExit):
        main(["bench", "train", "--minibatch", str(learning.MAX_MINIBATCH + 1)])
    assert f"must be at most {learning.MAX_MINIBATCH}" in capsys.readouterr().err


def test_learning_curves_are_copied_and_plotted(tmp_path):
    from train.evaluation import curves

    run = tmp_path / "run"
    run.mkdir()
    (run / "eval.csv").write_text("timesteps,opponent,games,win_rate,ci95_low,ci95_high\n"
                                  "1000,random,10,0.6,0.3,0.8\n1000,heuristic@4p,10,0.2,0.05,0.5\n"
                                  "2000,random,10,0.9,0.6,0.98\n")
    csv_path, png_path = curves.write_curve(str(run), str(tmp_path / "curve"))
    assert open(csv_path).read() == (run / "eval.csv").read_text()
    assert open(png_path, "rb").read(4) == b"\x89PNG"
    assert [r[0] for r in curves.read_eval(csv_path)["random"]] == [1000, 2000]
