"""The example in examples/ and the measurement tools in docs/results/tools/ run on a tiny budget and respect
the masks, and the docs' claims about generic RL tooling (docs/environments.md, "Using generic RL libraries") hold."""
from __future__ import annotations

import importlib.util
import json
import os
import sys

import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv

import uno_env
from uno_env.gym_env import UnoEnv
from paths import ROOT  # tests/paths.py

pytestmark = pytest.mark.slow  # trains the example agents: left out of make test-quick

EXAMPLES = ROOT / "examples"
TOOLS = ROOT / "docs" / "results" / "tools"  # the measurement tools behind docs/results/agents-history.md


def _load(name: str):
    folder = TOOLS if (TOOLS / f"{name}.py").exists() else EXAMPLES
    spec = importlib.util.spec_from_file_location(f"examples_{name}", folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_cleanrl_ppo_spends_exactly_its_budget_and_only_takes_legal_actions(monkeypatch):
    calls: list[tuple[UnoEnv, bool]] = []  # every UnoEnv.step: the env and whether the action was legal
    resets: list[UnoEnv] = []
    step, reset = UnoEnv.step, UnoEnv.reset

    def checked_step(self, action):
        calls.append((self, bool(self.action_masks()[int(action)])))
        return step(self, action)

    def counted_reset(self, *args, **kwargs):
        resets.append(self)
        return reset(self, *args, **kwargs)

    monkeypatch.setattr(UnoEnv, "step", checked_step)
    monkeypatch.setattr(UnoEnv, "reset", counted_reset)
    # 2 envs x 512 steps x 2 iterations: long enough for several games to end and autoreset
    result = _load("cleanrl_ppo").main(["--total-timesteps", "2048", "--num-envs", "2", "--num-steps", "512",
                                        "--eval-episodes", "2", "--update-epochs", "1"])

    assert isinstance(result["win_rate"], float) and 0.0 <= result["win_rate"] <= 1.0
    assert result["env_steps"] == 2048
    assert result["illegal_actions"] == 0 and all(legal for _, legal in calls)
    eval_env = calls[-1][0]  # built after training; the training envs are the others
    train_calls = [env for env, _ in calls if env is not eval_env]
    train_resets = [env for env in resets if env is not eval_env]
    assert len({id(env) for env in train_calls}) == 2
    # every sub-env step was either a decision (UnoEnv.step) or Gymnasium's autoreset (UnoEnv.reset)
    assert result["train_games"] > 0 and result["autoreset_steps"] > 0
    assert len(train_calls) == result["decisions"] == 2048 - result["autoreset_steps"]
    assert len(train_resets) == 2 + result["autoreset_steps"]
    assert result["train_games"] - 2 <= result["autoreset_steps"] <= result["train_games"]



def test_vector_autoreset_gives_the_finished_games_mask_then_ignores_one_action():
    """docs/environments.md: what SyncVectorEnv (Gymnasium 1.x, next-step autoreset) does with UnoEnv."""
    envs = SyncVectorEnv([lambda: UnoEnv("classic", 2)])
    envs.reset(seed=3)
    rng = np.random.default_rng(3)
    terminated = truncated = np.array([False])
    while not (terminated[0] or truncated[0]):
        mask = envs.call("action_masks")[0]
        _, _, terminated, truncated, _ = envs.step(np.array([rng.choice(np.flatnonzero(mask))]))
    assert not envs.call("action_masks")[0].any()  # the finished game's mask: nothing is legal
    inner = envs.envs[0]
    finished = inner.state
    obs, reward, terminated, truncated, info = envs.step(np.array([0]))  # action 0 is ignored, not judged
    assert inner.state is not finished and not inner.state.is_over  # a new game was dealt
    assert reward[0] == 0.0 and not terminated[0] and not truncated[0] and "illegal_action" not in info
    assert np.array_equal(obs[0], inner.encoder.encode(inner.state, inner.seat))
    assert envs.call("action_masks")[0].any()
    envs.close()


def test_aec_to_parallel_refuses_the_turn_based_env():
    from pettingzoo.utils.conversions import aec_to_parallel

    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(uno_env.env(variant="classic", num_players=2))


def test_information_bound_searches_see_the_real_hands_and_model_the_heuristic():
    """The seeing search's worlds keep every real hand (the draw pile only reordered); the modelling search moves
    the other seats as the heuristic does; the seeing search plays legal moves, and refuses Flip."""
    import agents
    from agents.search import ISMCTSAgent
    from uno_env import Game
    from uno_env.observation import ObservationEncoder

    bound = _load("information_bound")
    g = Game("classic", 4, backend="python")
    s = g.new_state(3)
    seeing = bound.SeesAllModelsHeuristicSearch(g, 0, iterations=30)
    worlds = [seeing.world(s, s.current_seat, np.random.default_rng(i)) for i in range(3)]
    assert all(w.hands == s.hands and sorted(w.draw_pile) == sorted(s.draw_pile) for w in worlds)
    assert any(w.draw_pile != s.draw_pile for w in worlds)
    fair = ISMCTSAgent(g, 0).world(s, s.current_seat, np.random.default_rng(0))
    assert fair.hands != s.hands  # what the fair search does instead: redraw them

    heuristic, enc = agents.load("heuristic", g, seed=0), ObservationEncoder(g)
    modelled = 0
    while not s.is_over and modelled < 20:
        legal = g.legal_actions(s)
        if s.current_seat == 0:
            action = seeing.act_state(s)
        else:
            action = heuristic.act(enc.encode(s, s.current_seat), g.legal_action_mask(s))
            if len(legal) > 1:  # the model, given the same tie-breaking generator, moves as the heuristic did
                heuristic.rng, seeing.rng = np.random.default_rng(modelled), np.random.default_rng(modelled)
                expected = heuristic.act(enc.encode(s, s.current_seat), g.legal_action_mask(s))
                assert seeing.opponent_model()(s, legal, seeing.rng) == expected
                modelled += 1
        assert action in legal
        g.step(s, action)
    assert modelled > 0
    with pytest.raises(ValueError, match="one-sided decks only"):
        bound.sees_all(Game("flip", 2), 0)


def test_information_bound_belief_fits_saves_and_deals_by_its_rows(tmp_path, monkeypatch):
    """fit-belief writes a weights file the belief search loads (without unpickling code); the search deals the
    other hands by the network's rows and plays legal moves; a missing file is an error naming the fix."""
    from uno_env import Game

    bound = _load("information_bound")
    out = tmp_path / "belief.pt"
    report = bound.main(["fit-belief", "--games", "6", "--epochs", "2", "--out", str(out)])
    assert report["rows"] > 20 and np.isfinite(report["belief"]) and report["uniform"] > 2.0
    g = Game("classic", 4, backend="python")
    monkeypatch.setenv("UNO_BELIEF", str(out))
    agent = bound.belief(g, 0, iterations=20)
    assert agent.options["iterations"] == 20
    s = g.new_state(1)
    action = agent.act_state(s)
    assert action in g.legal_actions(s)
    weights = agent.hand_weights  # belief_of the root, read by act_state
    me = s.current_seat
    assert weights.shape == (4, g.num_kinds) and np.all(weights[me] == 1) and np.all(weights > 0)
    assert not np.allclose(weights[(me + 1) % 4], 1)
    # every world is dealt by those rows: a kind pulled hard into the next seat's row lands there
    nxt = (me + 1) % 4
    unseen = np.bincount(s.draw_pile, minlength=g.num_kinds) + sum(np.array(s.hands[q]) for q in range(4) if q != me)
    kind = int(np.argmax(unseen))
    agent.hand_weights = np.ones((4, g.num_kinds))
    agent.hand_weights[:, kind] = 0.0  # the seats dealt before it (seat order) leave that kind alone ...
    agent.hand_weights[nxt, kind] = 1e9  # ... and the next seat takes every copy it has room for
    world = agent.world(s, me, np.random.default_rng(0))
    assert world.hands[nxt][kind] == min(int(unseen[kind]), s.hand_size[nxt])
    monkeypatch.setenv("UNO_BELIEF_ITERATIONS", "7")
    assert bound.belief(g, 0).options["iterations"] == 7
    timed = bound.time_belief(Game("classic", 4), str(out), games=1, iterations=5)
    assert timed["plain"]["decisions"] == timed["belief"]["decisions"] > 0
    assert timed["belief"]["mean_ms"] > 0 and timed["plain"]["mean_ms"] > 0
    # the rows can come from any agent, one that searches the state too
    data = bound.belief_data(Game("classic", 2, backend="python"), 2, seed=3, agent="ismcts:iterations=5")
    assert len(data["X"]) > 3 and data["Y"].shape[1:] == (1, g.num_kinds)
    monkeypatch.setenv("UNO_BELIEF", str(tmp_path / "missing.pt"))
    with pytest.raises(ValueError, match="fit-belief"):
        bound.belief(g, 0)


def test_reads_decisions_evidence_holds_for_the_heuristic_and_rules_hands_out():
    """Every heuristic seat's real hand fits the evidence read from its decisions, at every step of whole games;
    the evidence is not vacuous (it turns away many uniformly drawn hands); other rules are refused by name."""
    import agents
    from uno_env import Game
    from uno_env.observation import ObservationEncoder

    reads = _load("reads_decisions")
    g = Game("classic", 4, backend="python")
    enc = ObservationEncoder(g)
    rng = np.random.default_rng(0)
    checked = refused = drawn = 0
    kinds = set()
    for game_seed in range(12):
        evidence = reads.HeuristicEvidence(g)
        players = [agents.load("heuristic", g, seed=game_seed * 4 + q) for q in range(4)]
        s = g.new_state(game_seed)
        while not s.is_over:
            action = players[s.current_seat].act(enc.encode(s, s.current_seat), g.legal_action_mask(s))
            evidence.observe(s, action)
            g.step(s, action)
            evidence.settle(s)
            for q in range(4):
                if evidence.seats[q]:
                    kinds.update(ev.kind for ev in evidence.seats[q])
                    assert evidence.agrees(q, np.array([s.hands[q]], float))[0], (game_seed, q, s.steps)
                    checked += 1
                    # uniform hands of the same size from the cards the others cannot see
                    pool = np.repeat(np.arange(g.num_kinds), np.bincount(s.draw_pile, minlength=g.num_kinds)
                                     + np.array(s.hands[q]))
                    hands = np.zeros((20, g.num_kinds))
                    for row in hands:
                        np.add.at(row, rng.choice(pool, s.hand_size[q], replace=False), 1)
                    refused += int((~evidence.agrees(q, hands)).sum())
                    drawn += 20
    assert checked > 1000 and kinds == {"play", "colour", "draw"}
    assert refused > 0.3 * drawn
    with pytest.raises(ValueError, match="Classic's default rules only"):
        reads.HeuristicEvidence(Game("flex", 4))
    with pytest.raises(ValueError, match="Classic's default rules only"):
        reads.HeuristicEvidence(Game("classic", 4, stacking="any"))


def test_reads_decisions_worlds_keep_the_cards_and_plays_the_eval_games(tmp_path):
    """The reading search's worlds keep its own hand, every hand size and the unseen cards, and give each seat
    with evidence a hand from its bank; its games are `uno-env eval`'s (the same winners for the same agent)."""
    from train.evaluation.tournament import run_tournament
    from uno_env import Game

    import agents

    reads = _load("reads_decisions")
    g = Game("classic", 4, backend="python")
    agent = reads.ReadsDecisionsSearch(g, 0, iterations=10)
    heuristics = [agents.load("heuristic", g, seed=q) for q in range(4)]
    enc = reads.ObservationEncoder(g)
    s = g.new_state(5)
    worlds = from_bank = seats = 0
    while not s.is_over and worlds < 30:
        me = s.current_seat
        if me == 0 and len(g.legal_actions(s)) > 1:
            agent.evidence.settle(s)
            agent.banks = agent.agreeing_hands(s)
            unseen = sorted(s.draw_pile + [k for q in range(1, 4) for k in range(g.num_kinds) for _ in range(s.hands[q][k])])
            for i in range(3):
                w = agent.world(s, 0, np.random.default_rng(i))
                assert w.hands[0] == s.hands[0] and w.hand_size == s.hand_size
                assert [sum(h) for h in w.hands] == s.hand_size
                assert sorted(w.draw_pile + [k for q in range(1, 4) for k in range(g.num_kinds)
                                             for _ in range(w.hands[q][k])]) == unseen
                for q, bank in agent.banks.items():
                    assert agent.evidence.agrees(q, bank.astype(float)).all()
                    from_bank += int((bank == np.array(w.hands[q])).all(1).any())
                    seats += 1
                worlds += 1
        action = agent.act_state(s) if me == 0 else heuristics[me].act(enc.encode(s, me), g.legal_action_mask(s))
        agent.observe(s, action)
        g.step(s, action)
    assert worlds > 0 and seats > 0 and from_bank >= 0.8 * seats

    # the runner plays eval's games: a plain search there wins exactly where it wins in `uno-env eval`
    rows = reads.play_against_heuristics(g, lambda sd: agents.load("ismcts:iterations=10", g, seed=sd), 4, 321,
                                         str(tmp_path / "games.jsonl"))
    run_tournament(g.rules, ["ismcts:iterations=10"] + ["heuristic"] * 3, 4, seed=321,
                   workers=1, progress=False, out_dir=str(tmp_path / "eval"))
    with open(tmp_path / "eval" / "games-played.jsonl") as fh:
        played = {r["index"]: r for r in map(json.loads, fh) if "index" in r}
    assert [(r["seating"], r["winner"]) for r in rows] == [(played[i]["seating"], played[i]["winner"]) for i in range(4)]
    n, diff, low, high = reads.paired_difference(rows, list(played.values()))
    assert (n, diff) == (4, 0.0)


def test_expert_iteration_table_prints_the_file_it_is_given_and_names_a_missing_one(tmp_path, capsys):
    """``expert_iteration.py table FILE`` prints FILE's rounds (the first run's figures are kept beside the second
    run's), and a file that is not there is an error naming it rather than an empty table."""
    tool = _load("expert_iteration")
    ci = {"win_rate": 0.5, "ci95": [0.48, 0.52], "wins": 1000, "games": 2000}
    record = {"round": 2, "fitted_on": 12345, "held_out_top_action_agreement": 0.716, "vs_heuristic": ci,
              "shipped_vs_heuristic": {**ci, "win_rate": 0.62}, "vs_shipped": {**ci, "win_rate": 0.455}}
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"flex-4p": [record]}), encoding="utf-8")
    tool.table(str(results))
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| flex-4p")]
    assert rows == ["| flex-4p | 2 | 12,345 | 72% | 50.0% (48.0-52.0%) | 62.0% (48.0-52.0%) | 45.5% (48.0-52.0%) |"]
    with pytest.raises(SystemExit, match="no results file .*missing.json"):
        tool.table(str(tmp_path / "missing.json"))
    hostile = tmp_path / "hostile.json"
    for text, message in [("[1, 2]", "not a results file"), ("{not json", "not JSON"),
                          ('{"flex-4p": [{"round": 2}]}', "round 2 of 'flex-4p' is not a round"),
                          (" " * (tool.MAX_RESULTS_BYTES + 1), "at most")]:
        hostile.write_text(text, encoding="utf-8")
        with pytest.raises(SystemExit, match=message):
            tool.table(str(hostile))


@pytest.mark.parametrize("run", ["run_dagger", "run_scale"])
def test_expert_iteration_variations_need_the_plain_run_and_say_so(tmp_path, monkeypatch, run):
    """``run-dagger`` and ``run-scale`` build on the plain run's round 1: without its record or its policy they stop
    with an error naming what is missing and the command that makes it, before labelling anything."""
    tool = _load("expert_iteration")
    monkeypatch.setattr(tool, "OUT", str(tmp_path / "results.json"))
    monkeypatch.setattr(tool, "RUNS", str(tmp_path / "runs"))
    args = ("classic-2p",) if run == "run_dagger" else ("classic-2p", 8000)
    with pytest.raises(SystemExit, match=r"round 1 of the plain run is missing .*run classic-2p` first"):
        getattr(tool, run)(*args)
    record = {"round": 1, "labelled_games": 2000}
    (tmp_path / "results.json").write_text(json.dumps({"classic-2p": [record]}), encoding="utf-8")
    with pytest.raises(SystemExit, match="round 1 of the plain run is missing"):  # the record, but no policy
        getattr(tool, run)(*args)
    policy = tmp_path / "runs" / "classic-2p" / "round-1" / "policy.npz"
    policy.parent.mkdir(parents=True)
    policy.write_bytes(b"")
    (tmp_path / "results.json").write_text(json.dumps({"classic-2p": [{**record, "labelled_games": "all"}]}),
                                           encoding="utf-8")
    with pytest.raises(SystemExit, match="labelled_games 'all', not a count of games"):
        getattr(tool, run)(*args)
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["classic-2p"]  # nothing labelled or fitted


def test_expert_iteration_ppo_starts_from_a_round_by_the_shipped_recipe_and_needs_that_round(tmp_path, monkeypatch):
    """``run-ppo RUN ROUND`` stops with an error naming a missing round before training; its config is the table's
    shipped recipe without the teacher, started from the round's policy with that policy's layers."""
    import shutil

    from agents.loader import pretrained_path
    from train.config import TrainConfig

    tool = _load("expert_iteration")
    monkeypatch.setattr(tool, "OUT", str(tmp_path / "results.json"))
    monkeypatch.setattr(tool, "RUNS", str(tmp_path / "runs"))
    with pytest.raises(SystemExit, match="no round 1 of classic-2p.*run it first"):
        tool.run_ppo("classic-2p", 1)
    with pytest.raises(SystemExit, match="compare classic-2p\\+ppo 1: no round 1 of classic-2p\\+ppo"):
        tool.compare("classic-2p+ppo", 1)
    copy = tmp_path / "runs" / "classic-2p" / "round-1" / "policy"
    copy.parent.mkdir(parents=True)
    for ext in (".npz", ".json"):
        shutil.copy(pretrained_path("classic") + ext, str(copy) + ext)
    settings = tool.ppo_config("classic-2p", 1)
    cfg = TrainConfig.from_dict(settings)
    assert not cfg.teacher and cfg.critic_warmup_steps > 0 and cfg.algo == "ppo" and cfg.num_players == 2
    assert os.path.samefile(os.path.join(tool.ROOT, cfg.init_from) + ".npz", str(copy) + ".npz")
    layers = json.loads((tmp_path / "runs" / "classic-2p" / "round-1" / "policy.json").read_text("utf-8"))["layers"]
    assert list(cfg.net_arch) == layers[1:-1]
    assert os.path.realpath(os.path.join(tool.ROOT, settings["out_dir"])) == \
        os.path.realpath(tmp_path / "runs" / "classic-2p+ppo")
    assert not (tmp_path / "runs" / "classic-2p+ppo").exists()  # nothing trained
