"""PettingZoo AEC and Gymnasium environments: API conformance, seeding, no hidden-information leaks."""
from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import uno_env
from uno_env import VARIANTS
from uno_env.errors import ActionOutOfSpaceError
from uno_env.gym_env import UnoEnv
from uno_env.observation import ObservationEncoder
from uno_env.registration import env_id

CASES = [(v, n) for v in VARIANTS for n in sorted({2, 4, VARIANTS[v].max_players})]


def _ids(case):
    return f"{case[0]}-{case[1]}p"


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        # PettingZoo's api_test recommends Box/Discrete observation spaces; classic games use a Dict with a mask
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        yield


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_pettingzoo_api_and_seed(case):
    variant, n = case
    api_test(uno_env.env(variant=variant, num_players=n), num_cycles=400)
    seed_test(lambda: uno_env.env(variant=variant, num_players=n), num_cycles=400)


def test_aec_game_to_the_end_zero_sum_rewards():
    env = uno_env.env(variant="classic", num_players=4, stacking="any", uno_call="explicit")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        assert env.unwrapped.state.current_seat == int(agent.split("_")[1])
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    assert sorted(totals.values()) == pytest.approx([-1 / 3] * 3 + [1.0])


def test_aec_out_of_turn_decider_is_selected():
    env = uno_env.raw_env(variant="classic", num_players=3, uno_call="explicit")
    env.reset(seed=1)
    env.state = env.game.state_from_spec({"discard": ["R7"], "hands": [["R3", "B9"], 3, 3]})
    env.agent_selection = "player_0"
    env.step(env.game.action_from_string("play R3"))
    assert env.agent_selection == "player_0" and env.state.phase == "UNO_CALL"
    env.step(env.game.action_from_string("no-call"))
    assert env.agent_selection == "player_1" and env.state.phase == "CATCH"
    assert env.observe("player_0")["action_mask"].sum() == 0
    assert env.observe("player_1")["action_mask"].sum() == 2


@pytest.mark.parametrize("reward, expected", [("win_loss", [1.0, -0.5, -0.5]), ("points", [0.21, 0.0, 0.0])])
def test_aec_reward_modes(reward, expected):
    env = uno_env.raw_env(variant="classic", num_players=3, reward=reward)
    env.reset(seed=1)
    env.state = env.game.state_from_spec({"discard": ["R7"], "hands": [["R3"], ["B9", "G2"], ["Y1", "G9"]]})
    env.agent_selection = "player_0"
    env.step(env.game.action_from_string("play R3"))
    assert [env.rewards[a] for a in env.possible_agents] == pytest.approx(expected)
    assert all(env.terminations.values())


def test_render_modes():
    env = uno_env.raw_env(variant="xiangqi", num_players=3, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "xiangqi UNO, 3 players" in text and "P0" in text and "draw pile" in text


def test_render_human_prints_the_table(capsys):
    env = uno_env.raw_env(variant="xiangqi", num_players=3, render_mode="human")
    env.reset(seed=2)
    assert env.render() is None
    assert "xiangqi UNO, 3 players" in capsys.readouterr().out


def test_observation_hides_hidden_information():
    game = uno_env.Game("classic", num_players=3, uno_call="explicit")
    enc = ObservationEncoder(game)
    base = {"discard": ["G5", "R7"], "hands": [["R3", "B9"], ["Y1", "Y2", "G8"], ["B1", "B2"]],
            "draw_pile": ["G1", "Y9", "R4"]}
    other = {**base, "hands": [["R3", "B9"], ["W4", "RS", "B+2"], ["Y5", "G6"]], "draw_pile": ["W", "B5", "Y3"]}
    a, b = game.state_from_spec(base), game.state_from_spec(other)
    assert np.array_equal(enc.encode(a, 0), enc.encode(b, 0))  # only the other seats' hidden cards differ
    # what P0 may see does change it: its own hand, and a public count
    c = game.state_from_spec({**base, "hands": [["R3", "B8"], ["Y1", "Y2", "G8"], ["B1", "B2"]]})
    assert not np.array_equal(enc.encode(a, 0), enc.encode(c, 0))
    d = game.state_from_spec({**base, "hands": [["R3", "B9"], ["Y1", "Y2"], ["B1", "B2"]]})
    assert not np.array_equal(enc.encode(a, 0), enc.encode(d, 0))


def test_flex_observation_shows_power_cards_but_no_hidden_cards():
    game = uno_env.Game("flex", num_players=3)
    enc = ObservationEncoder(game)
    base = {"discard": ["G5"], "hands": [["R3↻", "B7~R"], ["Y1~G", "WT2", "G8"], ["B1↻", "B2~Y"]],
            "draw_pile": ["G1↻", "W4F", "R4~Y"], "power": [True, False, True]}
    other = {**base, "hands": [["R3↻", "B7~R"], ["W4F", "FS:R~Y", "B+2"], ["Y5", "G6"]], "draw_pile": ["WAF"]}
    a, b = game.state_from_spec(base), game.state_from_spec(other)
    assert np.array_equal(enc.encode(a, 0), enc.encode(b, 0))
    power = enc.offsets["power"]
    assert enc.encode(a, 0)[power][:3].tolist() == [1.0, 0.0, 1.0]  # relative: me, P1, P2
    assert enc.encode(a, 1)[power][:3].tolist() == [0.0, 1.0, 1.0]  # P1's view: itself first
    c = game.state_from_spec({**base, "power": [True, True, True]})
    assert not np.array_equal(enc.encode(a, 0), enc.encode(c, 0))


def test_flip_observation_shows_opponents_back_faces_but_not_your_own():
    """docs/rules.md §1.13: opponents' inactive faces and the draw pile top's are public; a seat's own are not."""
    game = uno_env.Game("flip", num_players=3)
    enc = ObservationEncoder(game)
    base = {"discard": ["A:G5|D:Pu4"], "hands": [["A:R3|D:Pk1", "A:B9|D:Tl2"], ["A:Y1|D:Or5", "A:G8|D:Pu7"],
                                                   ["A:B1|D:Pk3"]], "draw_pile": ["A:Y5|D:Tl9", "A:R9|D:Or2"]}
    # P0's own backs, the opponents' active faces, the draw pile under its top: all hidden from P0
    hidden = {**base, "hands": [["A:R3|D:Or1", "A:B9|D:Tl3"], ["A:G2|D:Or5", "A:Y8|D:Pu7"], ["A:R1|D:Pk3"]],
              "draw_pile": ["A:G6|D:Tl9", "A:B2|D:Pk9"]}
    a, b = game.state_from_spec(base), game.state_from_spec(hidden)
    assert np.array_equal(enc.encode(a, 0), enc.encode(b, 0))
    assert not np.array_equal(enc.encode(a, 1), enc.encode(b, 1))  # P1 sees P0's backs
    flip = enc.offsets["flip"]
    faces = game.faces_per_side
    p1_backs = enc.encode(a, 0)[flip][1:1 + faces]
    assert [game.deck.name_of[54 + i] for i in np.flatnonzero(p1_backs)] == ["D:Or5", "D:Pu7"]
    # an opponent's backs and the draw pile's top back are visible
    c = game.state_from_spec({**base, "hands": [base["hands"][0], ["A:Y1|D:Or6", "A:G8|D:Pu7"], base["hands"][2]]})
    d = game.state_from_spec({**base, "draw_pile": ["A:Y5|D:Tl8", "A:R9|D:Or2"]})
    assert not np.array_equal(enc.encode(a, 0), enc.encode(c, 0))
    assert not np.array_equal(enc.encode(a, 0), enc.encode(d, 0))
    # after a FLIP the dark faces are active: P0 now sees its own D faces, the others' A faces as backs
    s = game.state_from_spec({**base, "hands": [["A:G-FLIP|D:Tl-SE", "A:R3|D:Pk1", "A:B9|D:Tl2"],
                                                base["hands"][1], base["hands"][2]]})
    game.step(s, "play A:G-FLIP")
    obs = enc.encode(s, 0)
    assert obs[flip][0] == 1.0 and obs[enc.offsets["hand"]][game.parse_card("D:Pk1")] == 1
    assert obs[flip][1 + faces:1 + 2 * faces][game.parse_card("A:B1")] == 1  # P2's back is now its A face


def test_flip_duel_reveals_reach_every_seat():
    """Megatron: both whole hands are shown to everyone (AMB-B18); Optimus: both highest numbers."""
    game = uno_env.Game("flip", num_players=3)
    enc = ObservationEncoder(game)
    s = game.state_from_spec({"side": "D", "discard": ["D:Pk2"], "draw_pile": ["D:Or1", "D:Or2"],
                              "hands": [["MEG", "D:Pk3", "D:Tl8"], ["D:Or5", "D:Pu9"], ["D:Pk4"]]})
    game.step(s, "play MEG")
    game.step(s, "target P1")
    duel = enc.offsets["duel"]
    shown = [enc.encode(s, q)[duel] for q in range(3)]
    k = game.num_kinds
    m = game.variant.max_players
    for q in range(3):
        cards_o = shown[q][2 + 2 * m:2 + 2 * m + k]
        cards_t = shown[q][2 + 2 * m + k:]
        assert cards_o[game.parse_card("D:Tl8")] == 1 and cards_t[game.parse_card("D:Pu9")] == 1
    assert shown[0][2] == 1 and shown[1][2 + 2] == 1  # relative seat of the originator P0


def test_attack_observation_shows_launcher_count_and_hits_but_not_the_launcher():
    """Cards left in the launcher and the pending hit stack (total, cards, target) are public; its order is not."""
    game = uno_env.Game("attack", num_players=3, **{"attack.launcher_model": "scripted"})
    enc = ObservationEncoder(game)
    base = {"discard": ["G3"], "hands": [["G-H1", "Y1"], ["R-H2", "B6"], ["Y2", "Y3"]],
            "draw_pile": ["R2", "Y4", "G7"], "launcher": [1, 1, 1]}
    a = game.state_from_spec(base)
    b = game.state_from_spec({**base, "draw_pile": ["B9", "G1", "R8"], "launcher": [0, 3, 2], "seed": 9})
    assert np.array_equal(enc.encode(a, 0), enc.encode(b, 0))  # the launcher's cards and script are hidden
    assert enc.encode(a, 0)[enc.offsets["draw_pile"]][0] == len(a.draw_pile) / 112  # how many it holds is public
    game.step(a, "play G-H1")  # P1 may add its Hit 2
    hits = enc.offsets["hits"]
    for seat in range(3):
        block = enc.encode(a, seat)[hits]
        assert block[:2].tolist() == [1.0, 1.0] and block[2 + (1 - seat) % 3] == 1.0  # 1 press, 1 card, aimed at P1
    game.step(a, "play R-H2")  # P2 holds no hit card: it presses the 3 at once and the block clears
    assert a.hand_size[2] == 2 + 3 and not enc.encode(a, 0)[hits].any()


def test_challenge_reveal_goes_to_the_challenger_only():
    game = uno_env.Game("classic", num_players=3)
    enc = ObservationEncoder(game)
    s = game.state_from_spec({"discard": ["G5"], "hands": [["W4", "G1", "R2"], ["Y1", "Y2"], ["B1", "B2"]]})
    before = [enc.encode(s, q) for q in range(3)]
    game.step(s, "play W4")
    game.step(s, "colour B")
    game.step(s, "challenge")  # guilty: P0 held G1
    rev = enc.offsets["revealed"]
    assert enc.encode(s, 1)[rev].sum() > 0
    assert enc.encode(s, 0)[rev].sum() == 0 and enc.encode(s, 2)[rev].sum() == 0
    assert before[1][rev].sum() == 0


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_gymnasium_and_sb3_check_env(variant):
    from gymnasium.utils.env_checker import check_env as gym_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gym.make(env_id(variant), num_players=3)
    gym_check_env(env.unwrapped, skip_render_check=True)
    sb3_check_env(UnoEnv(variant, 2), warn=False)


def test_gymnasium_reset_seed_is_deterministic():
    def rollout(seed):
        env = gym.make("uno_env/Classic-v0", num_players=3)
        obs, info = env.reset(seed=seed)
        trace = [obs.tobytes(), info["seat"]]
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            action = int(np.flatnonzero(mask)[0])
            obs, reward, term, trunc, info = env.step(action)
            trace += [obs.tobytes(), reward]
            done = term or trunc
        return trace

    assert rollout(5) == rollout(5)
    assert rollout(5) != rollout(6)


def test_gymnasium_step_types_and_illegal_action():
    env = UnoEnv("classic", 2, learner_seat=0)
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, term, trunc, info = env.step(illegal)
    assert type(reward) is float and type(term) is bool and type(trunc) is bool
    assert reward == -1.0 and term and info["illegal_action"]
    # outside the action space is a programming error, not an illegal move: it raises, the episode goes on
    legal = int(np.flatnonzero(env.action_masks())[0])
    for odd in ("x", None, np.array([1, 2]), 3.7, 1.0, -1, env.action_space.n):
        env.reset(seed=0)
        with pytest.raises(ActionOutOfSpaceError):
            env.step(odd)
        assert "illegal_action" not in env.step(legal)[4]  # the refused call changed nothing


def test_gymnasium_reset_seed_reseeds_agent_opponents():
    import agents

    env = UnoEnv("classic", 2, learner_seat=0, opponents=agents.RandomAgent(seed=123))
    episodes = []
    for seed in (4, 4):
        obs, _ = env.reset(seed=seed)
        trace, done = [obs.tobytes()], False
        while not done:
            obs, r, t, tr, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append(obs.tobytes())
            done = t or tr
        episodes.append(trace)
    assert episodes[0] == episodes[1]


def test_non_deciding_observer_does_not_see_the_decision():
    """A jump-in question exists only when its seat holds the identical card: others must not see it."""
    env = uno_env.raw_env(variant="classic", num_players=3, jump_in="on")
    env.reset(seed=0)
    env.state = env.game.state_from_spec({"discard": ["G2"], "hands": [["G7", "R1"], ["B1", "B2"], ["G7", "Y3"]]})
    env.agent_selection = "player_0"
    env.step(env.game.action_from_string("play G7"))
    assert env.state.phase == "JUMP_IN" and env.agent_selection == "player_2"
    enc = env.encoder
    phase, deciding = enc.offsets["phase"], enc.offsets["deciding"]
    for agent in ("player_0", "player_1"):
        obs = env.observe(agent)["observation"]
        assert obs[phase].sum() == 0 and obs[deciding].sum() == 0
    assert env.observe("player_2")["observation"][phase].sum() == 1


def test_raw_env_records_only_applied_actions(tmp_path):
    from uno_env.records import read_records, replay

    path = str(tmp_path / "g.jsonl")
    env = uno_env.raw_env(variant="classic", num_players=2, record=path)
    env.reset(seed=1)
    with pytest.raises(uno_env.IllegalActionError):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0]))
    _play_out_raw(env)
    rec = next(read_records(open(path)))
    assert len(rec.actions) == rec.outcome["steps"]
    list(replay(rec))


def _play_out_raw(env):
    rng = np.random.default_rng(0)
    while not env.state.is_over:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))


def test_registered_ids_work_with_sb3_make_vec_env():
    """SB3's ``make_vec_env`` asks for ``render_mode="rgb_array"`` first and falls back on a TypeError."""
    from stable_baselines3.common.env_util import make_vec_env

    from uno_env import RenderModeError

    with warnings.catch_warnings():  # gymnasium warns of the unlisted mode before the env refuses it
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(RenderModeError, match="'rgb_array' is not supported; allowed: ansi, human, None"):
            gym.make("uno_env/Classic-v0", render_mode="rgb_array")
        assert issubclass(RenderModeError, ValueError) and issubclass(RenderModeError, TypeError)
        venv = make_vec_env("uno_env/Classic-v0", n_envs=2, seed=3)
    obs = venv.reset()
    masks = np.array(venv.env_method("action_masks"))
    assert obs.shape == (2, venv.observation_space.shape[0]) and masks.shape == (2, venv.action_space.n)
    obs, rewards, dones, infos = venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    assert obs.shape[0] == 2 and rewards.shape == (2,)
    venv.close()
