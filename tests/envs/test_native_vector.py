"""``VectorGames(..., backend="native")``: the batch stepped in the compiled core, array for array the Python batch.

Both backends play the same seeds with the same random legal actions; every array of every step must be equal
bit for bit (seat, float32 observation rows, masks, rewards, end flags), and so must the new games' deals and
the finished games' states, for any thread count (uno_env/core/batch.cpp, observe.cpp).
"""
from __future__ import annotations

import numpy as np
import pytest

from agents.view import ObservationView
from uno_env import VARIANTS, Game, IllegalActionError, RuleError, core
from uno_env.batch_observation import BatchEncoder
from uno_env.observation import ObservationEncoder
from uno_env import vector as vector_module
from uno_env.vector import VectorGames

from native_diff import ATTACK_OPTION_SETS, CLASSIC_OPTION_SETS, FLEX_OPTION_SETS, FLIP_OPTION_SETS  # tests/native_diff.py

NAMES = ("seat", "obs", "mask", "rewards", "terminated", "truncated")


def test_the_core_is_built():
    assert core.available(), core.why_unavailable()


def random_actions(mask: np.ndarray, layout, rng: np.random.Generator) -> np.ndarray:
    """Seeded random legal actions, mostly card plays so that games end (and the batch deals again) within the test."""
    actions = np.zeros(len(mask), dtype=np.int64)
    for i, row in enumerate(mask):
        legal = np.flatnonzero(row)
        plays = legal[legal < layout.draw]
        actions[i] = rng.choice(plays if len(plays) and rng.random() < 0.9 else legal)
    return actions


def assert_same(py_out, nat_out, where: str) -> None:
    for name, a, b in zip(NAMES, py_out, nat_out):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {name} differs in dtype or shape"
        assert a.tobytes() == b.tobytes(), f"{where}: {name} differs at {np.argwhere(a != b)[:4].tolist()}"


def play_both(variant: str, players: int, options: dict, reward: str, cut_at, threads: int, steps: int,
              games: int = 5, seed: int = 21) -> tuple[int, int]:
    """Both backends side by side; returns (games ended, games truncated)."""
    py = VectorGames(games, variant, players, reward=reward, cut_at=cut_at, backend="python", **options)
    nat = VectorGames(games, variant, players, reward=reward, cut_at=cut_at, backend="native", threads=threads,
                      **options)
    assert nat.backend == "native" and py.backend == "python"
    assert_same(py.reset(seed=seed) + (py.rewards, py.terminated, py.truncated),
                nat.reset(seed=seed) + (nat.rewards, nat.terminated, nat.truncated), "reset")
    rng = np.random.default_rng(seed)
    ended = truncated = 0
    for k in range(steps):
        actions = random_actions(py.mask, py.game.layout, rng)
        py_out, nat_out = py.step(actions), nat.step(actions)
        assert_same(py_out, nat_out, f"{variant} {players}p {options} step {k}")
        assert np.array_equal(py.steps, nat.steps)
        for i in np.flatnonzero(py.terminated | py.truncated).tolist():
            ended += 1
            truncated += int(py.truncated[i])
            a, b = py.final_states[i], nat.final_states[i]
            assert (a.winner, a.is_over, a.steps) == (b.winner, b.is_over, b.steps)
            assert py.game.to_spec(a) == nat.game.to_spec(b)  # the finished game, as it stood
            assert py.game.to_spec(py.states[i]) == nat.game.to_spec(nat.states[i])  # the new deal
    return ended, truncated


#: Every option set at 2 and 10 players; each reward mode, with and without ``cut_at``, on 1 and 2 threads.
CASES = [(opts, players, ("win_loss", "points")[(j + players) % 2], (None, 35)[(j + (players == 10)) % 2],
          (1, 2)[(j // 2 + players) % 2])
         for j, opts in enumerate(CLASSIC_OPTION_SETS) for players in (2, 10)]


@pytest.mark.parametrize("options, players, reward, cut_at, threads", CASES, ids=lambda c: str(c))
def test_the_native_batch_is_the_python_batch_array_for_array(options, players, reward, cut_at, threads):
    ended, truncated = play_both("classic", players, options, reward, cut_at, threads, steps=300)
    assert ended > 0  # the comparison crossed automatic resets
    if cut_at is not None:
        assert truncated > 0


#: Every variant the core covers batches in the core, its own observation blocks written there too.
BATCHED = sorted(core.NATIVE_VARIANTS)
VARIANT_OPTIONS = {"flex": FLEX_OPTION_SETS, "attack": ATTACK_OPTION_SETS, "flip": FLIP_OPTION_SETS}


@pytest.mark.parametrize("variant", [v for v in BATCHED if v != "classic"])
@pytest.mark.parametrize("reward", ["win_loss", "points"])
def test_every_other_variant_too(variant, reward):
    sets = VARIANT_OPTIONS.get(variant, ({"match": True, "target_score": 100, "stacking": "any", "uno_call": "explicit"},))
    ended = 0
    for j, options in enumerate(sets):
        ended += play_both(variant, (3, 4)[j % 2], options, reward, None, 1 + j % 2, steps=200)[0]
    assert ended > 0


def test_the_outputs_do_not_depend_on_the_thread_count():
    """Uneven slices (7 games on 3 threads) and more threads than games give the one-thread arrays."""
    batches = [VectorGames(7, "classic", 4, backend="native", threads=t, stacking="any", jump_in="on")
               for t in (1, 3, 16)]
    outs = [b.reset(seed=5) for b in batches]
    rng = np.random.default_rng(3)
    for k in range(250):
        actions = random_actions(batches[0].mask, batches[0].game.layout, rng)
        outs = [b.step(actions) for b in batches]
        for other in outs[1:]:
            assert_same(outs[0], other, f"step {k}")


def test_reset_deals_again_from_the_seed():
    vec = VectorGames(4, "classic", 3, backend="native")
    first = [a.copy() for a in vec.reset(seed=9)]
    rng = np.random.default_rng(0)
    for _ in range(30):
        vec.step(random_actions(vec.mask, vec.game.layout, rng))
    again = vec.reset(seed=9)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert vec.final_states == [None] * 4 and not vec.steps.any()


OBSERVER_OPTIONS = {"stacking": "any", "jump_in": "on", "uno_call": "explicit", "match": True, "target_score": 150}


def test_any_seats_observation_is_the_reference_encoders_row():
    """Batch.encode for every seat, deciding or not (others' penalties, reveals after challenges, history)."""
    vec = VectorGames(6, "classic", 4, backend="native", **OBSERVER_OPTIONS)
    reference = ObservationEncoder(vec.game)
    vec.reset(seed=4)
    rng = np.random.default_rng(2)
    rows = np.empty_like(vec.obs)
    shown = 0
    for k in range(300):
        for offset in range(4):
            seats = (vec.seat + offset) % 4
            vec._batch.encode(seats, rows)
            states = [s.to_python(copy_rng=False) for s in vec.states]
            expected = np.stack([reference.encode(s, int(p)) for s, p in zip(states, seats)])
            assert rows.tobytes() == expected.tobytes(), f"step {k}, offset {offset}"
            shown += sum(s.reveals[int(p)] is not None for s, p in zip(states, seats))
        vec.step(random_actions(vec.mask, vec.game.layout, rng))
    assert shown > 0  # a challenge revealed a hand to some observer


def permuted_encoder(game) -> ObservationEncoder:
    """The game's encoder with its blocks in reverse order and the history fields shuffled: another layout table."""
    enc = ObservationEncoder(game)
    offsets, pos = {}, 0
    for name, _, size in reversed(enc.rows()):
        offsets[name] = slice(pos, pos + size)
        pos += size
    enc.offsets = offsets
    enc.history_at = {"two_cards": 0, "last_colour": 1, "one_card": 6, "voids": 7}
    return enc


def test_every_writer_reads_the_layout_table_it_is_given():
    """The reference, the batched encoder and the core all follow the encoder's table: none recomputes offsets."""
    from uno_env.core.native import NativeState

    game = Game("classic", 3, backend="native", **OBSERVER_OPTIONS)
    enc = permuted_encoder(game)
    batched = BatchEncoder(game, enc)
    batch = core._core.Batch(game._tables, enc.layout(), 5, False, 0, 1)
    states = [NativeState(batch.deal(i, np.random.default_rng(i))[1], game) for i in range(5)]
    seat = np.zeros(5, dtype=np.int64)
    rows = np.zeros((5, enc.size), dtype=np.float32)
    batched_rows = np.zeros_like(rows)
    mask = np.zeros((5, game.num_actions), dtype=np.int8)
    rng = np.random.default_rng(1)
    for k in range(200):
        batch.write_rows(None, seat, rows, mask)
        python_states = [s.to_python(copy_rng=False) for s in states]
        expected = np.stack([enc.encode(s, int(p)) for s, p in zip(python_states, seat)])
        batched.encode(python_states, seat, batched_rows)
        assert rows.tobytes() == expected.tobytes(), f"core, step {k}"
        assert batched_rows.tobytes() == expected.tobytes(), f"BatchEncoder, step {k}"
        for i, s in enumerate(states):
            game.step(s, int(rng.choice(np.flatnonzero(mask[i]))))
            if s.is_over:
                states[i] = NativeState(batch.deal(i, np.random.default_rng(100 + k))[1], game)


def test_the_agents_view_decodes_native_rows():
    vec = VectorGames(3, "classic", 3, backend="native")
    view = ObservationView(vec.game)
    seat, obs, mask = vec.reset(seed=8)
    rng = np.random.default_rng(0)
    for _ in range(40):
        for i, s in enumerate(vec.states):
            p = s.to_python(copy_rng=False)
            assert view.hand(obs[i]).tolist() == p.hands[seat[i]]
            assert (view.top(obs[i]), view.colour(obs[i]), view.phase(obs[i])) == (p.discard[-1], p.colour, p.phase)
            assert view.hand_sizes(obs[i])[:3].tolist() == [p.hand_size[(seat[i] + r) % 3] for r in range(3)]
        seat, obs, mask, *_ = vec.step(random_actions(mask, vec.game.layout, rng))


# --------------------------------------------------------------------------- bad input

def test_an_illegal_action_is_refused_as_the_python_batch_refuses_it_and_moves_nothing():
    messages = []
    for backend in ("python", "native"):
        vec = VectorGames(3, "classic", 2, backend=backend)
        vec.reset(seed=3)
        before = [vec.game.to_spec(s) for s in vec.states]
        arrays = [a.copy() for a in (vec.seat, vec.obs, vec.mask, vec.rewards, vec.terminated, vec.truncated)]
        actions = np.array([np.flatnonzero(row)[0] for row in vec.mask])
        actions[1] = int(np.flatnonzero(vec.mask[1] == 0)[0])
        with pytest.raises(IllegalActionError, match="game 1: action") as err:
            vec.step(actions)
        messages.append(str(err.value))
        assert [vec.game.to_spec(s) for s in vec.states] == before
        now = (vec.seat, vec.obs, vec.mask, vec.rewards, vec.terminated, vec.truncated)
        assert all(np.array_equal(a, b) for a, b in zip(arrays, now))
        for bad in (-1, 10**6):
            actions[1] = bad
            with pytest.raises(IllegalActionError, match=f"game 1: action {bad} is not legal for P"):
                vec.step(actions)
        with pytest.raises(IllegalActionError, match="game 0: action 18446744073709551615 is not legal"):
            vec.step(np.array([2**64 - 1, 0, 0], dtype=np.uint64))
        with pytest.raises(IllegalActionError, match="3 integer ids"):
            vec.step(np.array([0.5, 1.0, 2.0]))
        with pytest.raises(IllegalActionError, match="3 integer ids"):
            vec.step(np.zeros(4, dtype=np.int64))
    assert messages[0] == messages[1]


def test_actions_of_any_integer_dtype_and_layout_are_taken():
    vec, ref = VectorGames(4, "classic", 2, backend="native"), VectorGames(4, "classic", 2, backend="python")
    vec.reset(seed=1)
    ref.reset(seed=1)
    rng = np.random.default_rng(0)
    for dtype in (np.int8, np.uint16, np.int32, np.uint64):
        actions = random_actions(vec.mask, vec.game.layout, rng)
        strided = np.zeros(8, dtype=dtype)[::2]  # not contiguous
        strided[:] = actions
        assert_same(ref.step(actions), vec.step(strided), str(dtype))


def test_step_before_reset_and_bad_arguments_are_refused():
    with pytest.raises(IllegalActionError, match="before reset"):
        VectorGames(2, backend="native").step(np.zeros(2, dtype=np.int64))
    for threads in (0, 257, True, 1.5, "2"):
        with pytest.raises(ValueError, match="threads must be a whole number from 1 to 256"):
            VectorGames(2, backend="native", threads=threads)
    with pytest.raises(ValueError, match="threads=2 needs backend='native'"):
        VectorGames(2, backend="python", threads=2)
    with pytest.raises(RuleError, match="backend 'gpu' is not allowed"):
        VectorGames(2, backend="gpu")


def test_the_environment_variable_batches_in_the_core_where_it_can(monkeypatch):
    monkeypatch.setenv(core.ENV_VAR, "native")
    assert all(VectorGames(2, v).backend == "native" for v in VARIANTS)
    # a variant block without its twin in the core (as when one is added in Python first): the Python batch
    monkeypatch.setattr(vector_module, "NATIVE_BLOCKS", frozenset({"hits", "flip", "duel"}))
    vec = VectorGames(2, "flex", 3)
    assert vec.backend == "python" and vec.game.backend == "python"
    vec.reset(seed=0)
    vec.step(np.array([np.flatnonzero(row)[0] for row in vec.mask]))
    with pytest.raises(RuleError, match="does not write the block\\(s\\) 'power' of the 'flex' rules"):
        VectorGames(2, "flex", backend="native")


def test_the_core_batch_checks_every_array():
    vec = VectorGames(3, "classic", 2, backend="native")
    vec.reset(seed=0)
    b, size = vec._batch, vec.observation_size
    good = dict(actions=np.array([np.flatnonzero(r)[0] for r in vec.mask], dtype=np.int64), seat=vec.seat,
                obs=vec.obs, mask=vec.mask, rewards=vec.rewards, terminated=vec.terminated,
                truncated=vec.truncated, steps=vec.steps)
    readonly = vec.obs.copy()
    readonly.flags.writeable = False
    bad = {"obs": [(np.zeros((3, size)), f"obs must be a C-contiguous float32 array of shape \\(3, {size}\\), got "
                    f"float64 \\(3, {size}\\)"),
                   (np.zeros((size, 3), dtype=np.float32).T, "obs must be a C-contiguous float32"),
                   (readonly, "obs must be writable")],
           "mask": [(np.zeros((3, 64), dtype=np.int8), "mask must be a C-contiguous int8 array of shape \\(3, 65\\)")],
           "rewards": [(np.zeros((3, 3), dtype=np.float32), "rewards must be a C-contiguous float32 array of shape "
                        "\\(3, 2\\)")],
           "terminated": [(np.zeros(3, dtype=np.int8), "terminated must be a C-contiguous bool array of shape \\(3,\\)")],
           "actions": [(np.zeros(3, dtype=np.int32), "actions must be a C-contiguous int64 array")],
           "steps": [(np.zeros(2, dtype=np.int64), "steps must be a C-contiguous int64 array of shape \\(3,\\)")]}
    for name, cases in bad.items():
        for array, message in cases:
            with pytest.raises(ValueError, match=message):
                b.step(**{**good, name: array})
    with pytest.raises(TypeError):  # a list is not an array: a converted copy would swallow the writes
        b.step(**{**good, "seat": [0, 0, 0]})
    with pytest.raises(ValueError, match="seats\\[1\\] = 2 is not a seat of the table \\(0 to 1\\)"):
        b.encode(np.array([0, 2, 0]), np.zeros((3, size), dtype=np.float32))
    with pytest.raises(IndexError, match="game index 3 is outside the batch \\(0 to 2\\)"):
        b.deal(3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="threads must be 1 to 256"):
        core._core.Batch(vec.game._tables, vec.encoder.layout(), 2, False, 0, 0)


def test_a_layout_with_variant_blocks_or_wrong_sizes_is_refused():
    game = Game("classic", 2, backend="native")
    layout = ObservationEncoder(game).layout()
    extra = {**layout, "blocks": {**layout["blocks"], "power": (layout["size"] - 1, 1)}}
    with pytest.raises(ValueError, match="block 'power' does not belong to these rules"):
        core._core.Batch(game._tables, extra, 2, False, 0, 1)
    unknown = {**layout, "blocks": {**layout["blocks"], "mystery": (layout["size"] - 1, 1)}}
    with pytest.raises(ValueError, match="block 'mystery' is a block the compiled encoder does not write"):
        core._core.Batch(game._tables, unknown, 2, False, 0, 1)
    flex = Game("flex", 2, backend="native")
    flex_layout = ObservationEncoder(flex).layout()
    no_power = {**flex_layout, "blocks": {k: v for k, v in flex_layout["blocks"].items() if k != "power"}}
    with pytest.raises(ValueError, match="block 'power' is missing \\(these rules have it\\)"):
        core._core.Batch(flex._tables, no_power, 2, False, 0, 1)
    short_power = {**flex_layout, "blocks": {**flex_layout["blocks"], "power": (0, 3)}}
    with pytest.raises(ValueError, match="block 'power' has 3 entries; these rules need"):
        core._core.RowEncoder(flex._tables, short_power)
    short = {**layout, "blocks": {**layout["blocks"], "hand": (0, 10)}}
    with pytest.raises(ValueError, match="block 'hand' has 10 entries, which does not fit these rules"):
        core._core.Batch(game._tables, short, 2, False, 0, 1)
    outside = {**layout, "blocks": {**layout["blocks"], "scores": (layout["size"] - 2, 10)}}
    with pytest.raises(ValueError, match="block 'scores' does not lie within the row"):
        core._core.Batch(game._tables, outside, 2, False, 0, 1)
    missing = {**layout, "blocks": {k: v for k, v in layout["blocks"].items() if k != "history"}}
    with pytest.raises(ValueError, match="block 'history' is missing"):
        core._core.Batch(game._tables, missing, 2, False, 0, 1)


def test_the_bench_measures_both_backends_where_the_core_serves():
    from train.benchmark.throughput import vector_speed

    rows, why = vector_speed("classic", 2, games=4, seconds=0.05, rounds=2)
    assert [r["name"] for r in rows] == ["VectorGames python classic 2p", "VectorGames native classic 2p"] and not why
    assert all(r["samples"] > 0 and 0 < r["step_seconds"] <= r["seconds"] for r in rows)
    assert all(r["agent_samples"] > 0 and r["agent_seconds"] > 0 for r in rows)
    rows, why = vector_speed("flip", 2, games=4, seconds=0.05, rounds=2)
    assert [r["name"] for r in rows] == ["VectorGames python flip 2p", "VectorGames native flip 2p"] and not why


def test_the_envs_take_backend_as_game_does_and_play_alike():
    """uno_env.env, raw_env and UnoEnv: backend= picks the engine (rules= too); the same seed, the same game."""
    import uno_env
    from uno_env import RuleSet
    from uno_env.gym_env import UnoEnv

    assert uno_env.env(variant="flip", num_players=3, backend="python").unwrapped.game.backend == "python"
    assert uno_env.raw_env(variant="flip", num_players=3, backend="native").game.backend == "native"
    assert UnoEnv(rules=RuleSet.create("attack", 2), backend="python").game.backend == "python"
    with pytest.raises(RuleError, match="backend 'cuda' is not allowed"):
        UnoEnv("classic", 2, backend="cuda")
    runs = {}
    for backend in ("python", "native"):
        env = uno_env.raw_env(variant="classic", num_players=3, backend=backend)
        env.reset(seed=5)
        rng, seen = np.random.default_rng(1), []
        for agent in env.agent_iter(max_iter=300):
            obs, reward, terminated, truncated, _ = env.last()
            seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if terminated or truncated else int(rng.choice(legal)))
        runs[backend] = seen
    assert runs["python"] == runs["native"] and len(runs["python"]) > 50
