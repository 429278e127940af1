"""The learner's array bookkeeping (``train/ppo/trajectories.py``) builds the batch the row-by-row one did.

``RowByRow`` is the trainer's former ``Trajectories`` with ``network.batch_arrays``, kept here as the
reference: every decision a tuple in a dict keyed (collector, table, game, seat), GAE in a Python loop.
Both are fed the same random collection (several collectors and table sizes, out-of-turn decisions,
games ending at random, batches taken between them) and must hand out equal arrays, bit for bit.
"""
from __future__ import annotations

import numpy as np
import pytest

from train.ppo.trajectories import DecisionLog, Trajectories, gae


class RowByRow:
    """The former bookkeeping: a list per open seat, GAE per finished trajectory, the batch stacked at the end."""

    def __init__(self, gamma: float, lam: float):
        self.gamma, self.lam = gamma, lam
        self.open: dict[tuple, list] = {}
        self.done: list = []

    def add(self, key, obs, mask, action, logp, value):
        self.open.setdefault(key, []).append((obs, mask, action, logp, value))

    def finish(self, order, game_key, rewards):
        learners = []
        for seat, reward in enumerate(rewards):
            steps = self.open.pop((*game_key, seat), None)
            if not steps:
                continue
            learners.append(seat)
            advantage, next_value, out = 0.0, 0.0, []
            for t in range(len(steps) - 1, -1, -1):
                value = steps[t][4]
                delta = reward + self.gamma * next_value - value
                advantage = delta + self.gamma * self.lam * advantage
                out.append((*steps[t][:4], advantage, advantage + value))
                next_value, reward = value, 0.0
            out.reverse()
            self.done.append(((*order, seat), out))
        return learners

    def take(self):
        done, self.done = sorted(self.done, key=lambda item: item[0]), []
        batch = [step for _, steps in done for step in steps]
        if not batch:
            return None
        return (np.stack([t[0] for t in batch]), np.stack([t[1] for t in batch]),
                np.array([t[2] for t in batch], dtype=np.int64), np.array([t[3] for t in batch], dtype=np.float32),
                np.array([t[4] for t in batch], dtype=np.float32), np.array([t[5] for t in batch], dtype=np.float32))


def _collect(seed: int, gamma: float, lam: float, steps: int = 400, take_every: int = 37):
    """Feed both bookkeepers one random collection; every batch each hands out, side by side."""
    rng = np.random.default_rng(seed)
    sizes = [2, 3, 4]
    shares = [[3, 0, 2], [1, 2, 2]]  # collector 0 has no game at 3 players
    new = Trajectories(gamma, lam, [list(zip(share, sizes)) for share in shares])
    old = RowByRow(gamma, lam)
    deciding = [{(t, i): int(rng.integers(n)) for t, (g, n) in enumerate(zip(share, sizes)) for i in range(g)}
                for share in shares]
    counts, batches = [0, 0], []
    for step in range(steps):
        j = int(rng.integers(2))
        counts[j] += 1
        keys = np.array([(t, i, seat) for (t, i), seat in deciding[j].items() if rng.random() < 0.7],
                        dtype=np.int64).reshape(-1, 3)
        rows = rng.random((len(keys), 5), dtype=np.float32)
        mask = rng.integers(0, 2, (len(keys), 4), dtype=np.int8)
        actions = rng.integers(0, 4, len(keys))
        logps = -rng.random(len(keys), dtype=np.float32)
        values = rng.standard_normal(len(keys), dtype=np.float32)
        if len(keys):
            new.add(j, keys, rows, mask, actions, logps, values)
            for r, (t, i, seat) in enumerate(keys.tolist()):
                old.add((j, t, i, seat), rows[r], mask[r], int(actions[r]), float(logps[r]), float(values[r]))
        for (t, i) in list(deciding[j]):
            n = sizes[t]
            deciding[j][t, i] = int(rng.integers(n))  # out-of-turn and in-turn decisions alike
            if rng.random() < 0.08:  # the game ends
                rewards = rng.standard_normal(n).astype(np.float32).tolist()
                order = (j, counts[j], t, i)
                assert new.finish(order, j, t, i, rewards) == old.finish(order, (j, t, i), rewards)
        if step % take_every == take_every - 1:
            batches.append((new.take(), old.take()))
    batches.append((new.take(), old.take()))
    return batches


@pytest.mark.parametrize("seed, gamma, lam", [(0, 1.0, 0.95), (1, 0.995, 0.95), (2, 0.9, 1.0), (3, 0.99, 0.0)])
def test_the_array_bookkeeping_hands_out_the_row_by_row_batches(seed, gamma, lam):
    batches = _collect(seed, gamma, lam)
    assert sum(old is not None for _, old in batches) >= 5
    for new, old in batches:
        if old is None:
            assert new is None
            continue
        assert len(new) == len(old) == 6
        for got, want in zip(new, old):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)


def test_gae_of_one_trajectory_by_hand():
    values = np.array([0.5, -0.25, 1.0])
    advantages, returns = gae(values, np.array([3]), np.array([2.0]), gamma=0.5, lam=1.0)
    # deltas from the end: 2 - 1 = 1; 0 + 0.5 * 1 + 0.25 = 0.75; 0 + 0.5 * -0.25 - 0.5 = -0.625
    np.testing.assert_array_equal(advantages, [-0.625 + 0.5 * (0.75 + 0.5 * 1.0), 0.75 + 0.5 * 1.0, 1.0])
    np.testing.assert_array_equal(returns, advantages + values)


def test_a_seat_without_decisions_is_not_a_learner():
    traj = Trajectories(1.0, 1.0, [[(2, 2)]])
    traj.add(0, np.array([[0, 1, 1]]), np.zeros((1, 3), np.float32), np.ones((1, 2), np.int8), np.array([1]),
             np.array([-0.5], np.float32), np.array([0.25], np.float32))
    assert traj.finish((0, 1, 0, 0), 0, 0, 0, [1.0, -1.0]) == []
    assert traj.take() is None
    assert traj.finish((0, 2, 0, 1), 0, 0, 1, [1.0, -1.0]) == [1]
    obs, mask, action, logp, advantage, ret = traj.take()
    assert action.tolist() == [1] and advantage.tolist() == [-1.25] and ret.tolist() == [-1.0]


def test_the_log_moves_the_waiting_rows_in_place_and_grows_only_when_they_fill_half():
    log = DecisionLog()
    rng = np.random.default_rng(0)
    written = []
    for step in range(200):  # 600 rows through arrays of 192
        rows = rng.random((3, 2), dtype=np.float32)
        log.append(obs=rows, trajectory=np.arange(3 * step, 3 * step + 3))
        written += [(3 * step + r, rows[r]) for r in range(3)]
        if step % 5 == 4:  # hand out all but every seventh row
            tags = log.tags()
            tags[tags % 7 != 0] = -1
    # never grown: the waiting rows (a seventh, and the last steps') stay under half of 192
    assert len(log.columns["obs"]) == 3 * 64
    waiting = log.tags() >= 0
    kept = {tag: row for tag, row in written if tag % 7 == 0}
    assert sorted(log.tags()[waiting].tolist()) == sorted(kept)
    for tag, row in zip(log.tags()[waiting].tolist(), log.columns["obs"][:log.rows][waiting]):
        np.testing.assert_array_equal(row, kept[tag])


def test_a_game_cut_at_max_steps_pays_every_seat_the_truncation_reward(tmp_path):
    # test_native_ppo's check of the former bookkeeping, through the rollout that applies the reward
    from train.config import TrainConfig
    from train.ppo.rollout import Rollout

    cfg = TrainConfig.from_dict({"algo": "ppo", "gamma": 1.0, "gae_lambda": 1.0, "num_games": 4, "n_steps": 4,
                                 "net_arch": [8], "rule_options": {"max_steps": 3}, "self_play_games": 1.0,
                                 "out_dir": str(tmp_path)})
    trajectories = Trajectories(cfg.gamma, cfg.gae_lambda, [[(4, 2)]])
    rollout = Rollout(cfg, "local", trajectories, 1)
    rollout.open([[4]])
    rollout.start([], 0)

    def first_legal(j, request):
        actions = np.array([np.flatnonzero(m)[0] for m in request.mask])
        zeros = np.zeros(len(actions), dtype=np.float32)
        return request.obs, actions, zeros, zeros

    rollout.collect(first_legal, 3, type("Go", (), {"requested": False})())
    obs, mask, action, logp, advantage, ret = trajectories.take()
    assert len(action) == 3 * 4 and ret.tolist() == [cfg.truncation_reward] * 12  # every seat's steps learn -1
    assert rollout.take_league() == (0, 0)  # every seat the learner: no one-learner games
