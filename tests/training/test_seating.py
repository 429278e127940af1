"""The value learners' league (train/collect/seating.py): any agent spec holds a seat, and is asked to play."""
from __future__ import annotations

import numpy as np
import pytest

from agents.policy_file import PolicyAgent
from train.algorithm import run_algorithm
from train.collect.seating import LEARNER, Seating
from train.config import TrainConfig
from uno_env.vector import VectorGames

import benchmark_agents  # tests/benchmark_agents.py: agents reachable as module:callable specs

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_every_kind_of_spec_plays_its_seats_legally_a_search_agent_from_the_state():
    games = VectorGames(8, variant="classic", num_players=4)
    games.reset(seed=3)
    league = {"benchmark_agents:make_lowest_legal_agent": 1.0, "pretrained:classic-4p": 1.0,
              "ismcts:iterations=8": 1.0}
    seating = Seating(league, games, np.random.default_rng(0), opponent_seed=5)
    lowest, policy, search = seating.agents
    assert isinstance(lowest, benchmark_agents.LowestLegalAgent) and isinstance(policy, PolicyAgent)
    assert search.reads_state and not getattr(policy, "reads_state", False)
    asked, act_state = [], search.act_state
    search.act_state = lambda state: (asked.append(state), act_state(state))[1]
    played = set()
    for _ in range(40):
        seat, obs, mask = games.seat, games.obs, games.mask
        actions = np.zeros(games.num_games, dtype=np.int64)
        roles = seating.roles[np.arange(games.num_games), seat]
        opponents = np.flatnonzero(roles != LEARNER)
        before = len(asked)
        actions[opponents] = seating.act_rows(opponents, seat, obs, mask, games)
        searched = [i for i in opponents.tolist() if roles[i] == 2]
        assert asked[before:] == [games.states[i] for i in searched]  # only the search agent reads the state
        for i in range(games.num_games):
            role = int(roles[i])
            if role == LEARNER:
                actions[i] = np.flatnonzero(mask[i])[-1]
                continue
            assert mask[i][actions[i]]  # legal, whoever decided
            if role == 0:
                assert actions[i] == np.flatnonzero(mask[i])[0]  # the module:callable agent's own choice
            played.add(role)
        *_, terminated, truncated = games.step(actions)
        for i in np.flatnonzero(terminated | truncated).tolist():
            seating.deal(i)
    assert played == {0, 1, 2}


def test_opponents_with_act_batch_decide_their_rows_as_row_by_row():
    """act_rows hands random, greedy and heuristic all their rows at once: the same actions and generator draws
    as each deciding its rows one at a time."""
    league = {"random": 1.0, "greedy": 1.0, "heuristic": 1.0}
    games = VectorGames(16, variant="classic", num_players=4)
    games.reset(seed=7)
    batched, single = (Seating(league, games, np.random.default_rng(1), opponent_seed=9) for _ in range(2))
    for _ in range(60):
        seat, obs, mask = games.seat, games.obs, games.mask
        roles = batched.roles[np.arange(games.num_games), seat]
        rows = np.flatnonzero(roles != LEARNER)
        actions = np.array([np.flatnonzero(m)[0] for m in mask], dtype=np.int64)
        actions[rows] = batched.act_rows(rows, seat, obs, mask, games)
        for i in rows.tolist():
            assert actions[i] == single.agents[single.roles[i, seat[i]]].act(obs[i], mask[i])
        *_, terminated, truncated = games.step(actions)
        for i in np.flatnonzero(terminated | truncated).tolist():
            batched.deal(i)
            single.deal(i)


def test_a_dqn_trains_against_a_module_callable_opponent(tmp_path, monkeypatch):
    calls = []
    act = benchmark_agents.LowestLegalAgent.act
    monkeypatch.setattr(benchmark_agents.LowestLegalAgent, "act",
                        lambda self, obs, mask: (calls.append(1), act(self, obs, mask))[1])
    cfg = TrainConfig.from_dict({"algo": "dqn", "variant": "classic", "num_players": 2, "total_timesteps": 600,
                                 "num_games": 8, "net_arch": [16], "batch_size": 32, "learning_starts": 64,
                                 "opponents": {"benchmark_agents:make_lowest_legal_agent": 1.0},
                                 "out_dir": str(tmp_path)})
    run_algorithm(cfg, str(tmp_path / "run"))
    assert len(calls) > 300  # every opponent decision of the run (about one per learner decision)


#: A tiny run of each value learner (a few hundred learner decisions), as the module:callable test above.
TINY_RUNS = {
    "dqn": dict(net_arch=[16], batch_size=32, learning_starts=64),
    "nfsp": dict(net_arch=[16], batch_size=32, learning_starts=64, anticipatory=0.5),
    "dmc": dict(net_arch=[16], batch_size=32, dmc_actors=0),
}
#: The ``training_steps`` the league's policy file is written with: it tells its agent apart from any other.
MARK = 31_337


@pytest.mark.parametrize("algo", sorted(TINY_RUNS))
def test_a_value_learner_trains_against_a_policy_file_path_opponent(algo, tmp_path, monkeypatch):
    """A DQN, NFSP and DMC run seats a league opponent named by a policy-file path, and that file's agent plays."""
    from agents.policy_file import policy_file_from_weights
    from uno_env import Game
    from uno_env.observation import ObservationEncoder

    game = Game("classic", num_players=2)
    rng = np.random.default_rng(0)
    size = ObservationEncoder(game).size
    arrays = [rng.normal(size=(size, 8)).astype(np.float32), np.zeros(8, np.float32),
              rng.normal(size=(8, game.num_actions)).astype(np.float32), np.zeros(game.num_actions, np.float32)]
    path = str(tmp_path / "league" / "rival")
    (tmp_path / "league").mkdir()
    policy_file_from_weights(arrays, game, MARK).save(path)
    calls = []
    act = PolicyAgent.act

    def counted(self, obs, mask):
        action = act(self, obs, mask)
        if self.policy.metadata["training_steps"] == MARK:  # the league's file, not the learner's own export
            assert mask[action]
            calls.append(action)
        return action

    monkeypatch.setattr(PolicyAgent, "act", counted)
    cfg = TrainConfig.from_dict({"algo": algo, "variant": "classic", "num_players": 2, "total_timesteps": 600,
                                 "num_games": 8, "eval_games": 2, "opponents": {path: 1.0},
                                 "out_dir": str(tmp_path), **TINY_RUNS[algo]})
    run_algorithm(cfg, str(tmp_path / "run"))
    assert len(calls) > 200  # the opponent's seat of every game (about one decision per learner decision)
    assert len(set(calls)) > 3  # its own varied choices, not one fallback action
