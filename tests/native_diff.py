"""The differential harness: one game played by the Python engine and the compiled core side by side.

Both games start from the same seed and take the same actions (chosen by a policy reading the Python
game). After every decision the deciding seat, phase, legal actions, mask and the deciding seat's observation
row must be equal (the Python encoder's row of the Python state and the core's row of the native state, bit
for bit); every ``full_every`` decisions every seat's row too, and then and at the end the whole state (every
``State`` slot, the generator's position included, and ``to_spec``); at the end rewards, truncation and final
scores.
A difference raises ``AssertionError`` naming the game, the decision and what differed.
"""
from __future__ import annotations

import functools
import json

import numpy as np

import agents
from uno_env import Game, State
from uno_env.observation import ObservationEncoder

#: Compared otherwise: the generators by their positions (below), the cached legal list by legal_actions.
_SKIPPED = {"rng", "legal", "launcher_rng"}
SLOTS = tuple(n for n in State.__slots__ if n not in _SKIPPED)

#: Option sets of the Classic family the harness plays (every option of docs/rule-options.md appears).
CLASSIC_OPTION_SETS = (
    {},
    {"stacking": "any", "jump_in": "on", "multi_play": "on", "uno_call": "decide"},
    {"uno_call": "explicit", "restricted_wild_bluffing": False, "draw_rule": "draw_until_playable"},
    {"madness": "on", "stacking": "same_value", "madness_colour_rule": "free", "two_player_wild_miss_draw": 2},
    {"match": True, "scoring_method": "penalty_low", "target_score": 200, "dealer_rotation": "random"},
    {"jump_in": "on", "jump_in_allow_wild": True, "multi_play": "on", "multi_play_first_match": "any_legal",
     "multi_play_subset": "any_subset", "stacking": "draw_two_only", "uno_call": "off"},
    {"max_steps": 60, "match": True, "dealer_rotation": "winner", "two_player_reverse_as_skip": False},
    {"madness": "on", "stacking": "draw_two_only", "uno_call": "explicit", "target_score": 50, "match": True},
)

#: Option sets of Flex (its own options and the common ones).
FLEX_OPTION_SETS = (
    {},
    {"flex.flex_w4f_restricted": True, "flex.allow_self_target": True, "uno_call": "explicit"},
    {"flex.flex_requires_flex_colour_match": False, "flex.wd4_counts_flexable_cards": False,
     "flex.wild_counts_as_match": False, "restricted_wild_bluffing": False, "uno_call": "decide"},
    {"flex.flex_w4f_restricted": True, "restricted_wild_bluffing": False, "match": True, "target_score": 150,
     "scoring_method": "penalty_low", "dealer_rotation": "random"},
    {"flex.allow_self_target": True, "max_steps": 80, "match": True, "dealer_rotation": "winner",
     "two_player_reverse_as_skip": False},
)

#: Option sets of Attack (the launcher models, its resume rules, elimination matches).
ATTACK_OPTION_SETS = (
    {},
    {"attack.launcher_model": "categorical", "attack.wild_attack_resume": "next_after_target",
     "attack.mass_hit_resume": "after_absorber", "attack.allow_self_target": True, "uno_call": "explicit"},
    {"attack.launcher_model": "fixed", "attack.fixed_k": 2, "attack.starter_reverse_first": "dealer",
     "attack.wild_attack_resume": "next_after_attacker", "uno_call": "decide"},
    {"scoring_method": "elimination", "target_score": 60, "attack.empty_press_progress": False,
     "dealer_rotation": "random"},
    {"attack.p_fire": 0.9, "attack.q": 0.8, "attack.max_burst": 4, "match": True, "target_score": 200,
     "scoring_method": "penalty_low", "dealer_rotation": "winner", "max_steps": 150},
    {"attack.launcher_model": "categorical", "attack.burst_probs": [0.3, 0.3, 0.4], "scoring_method": "elimination",
     "target_score": 40, "attack.allow_self_target": True, "two_player_reverse_as_skip": False},
)

#: Option sets of Flip (pairings, duels, Optimus placements, the last FLIP, Wild Draw Colour).
FLIP_OPTION_SETS = (
    {},
    {"flip.pairing": "fixed", "flip.megatron_no_number": "counts_as_lowest", "uno_call": "explicit"},
    {"flip.optimus_place_requires_match": True, "flip.wdc_wild_satisfies": True, "flip.wild_counts_as_match": False,
     "restricted_wild_bluffing": False, "uno_call": "decide"},
    {"flip.last_card_flip_resolves": False, "match": True, "target_score": 250, "scoring_method": "penalty_low",
     "dealer_rotation": "random"},
    {"flip.pairing": "fixed", "flip.optimus_place_requires_match": True, "max_steps": 120, "match": True,
     "dealer_rotation": "winner", "two_player_reverse_as_skip": False},
)

#: Per variant: the option sets and the table sizes (two players and the largest table) the harness plays.
OPTION_SETS = {"classic": CLASSIC_OPTION_SETS, "alphabet": CLASSIC_OPTION_SETS, "xiangqi": CLASSIC_OPTION_SETS,
               "flex": FLEX_OPTION_SETS, "flip": FLIP_OPTION_SETS, "attack": ATTACK_OPTION_SETS}
TABLES = {"classic": (2, 4, 10), "alphabet": (2, 4, 10), "xiangqi": (2, 4, 10), "flex": (2, 4, 8),
          "flip": (2, 4, 10), "attack": (2, 4, 10)}


def slots(s) -> dict:
    """Every compared slot of a Python ``State`` as plain data, and the generator's position."""
    out = {}
    for name in SLOTS:
        v = getattr(s, name)
        if name == "penalty" and v is not None:
            v = (v.total, v.target, int(v.last_effect), v.challenge, v.resume, v.until, v.origin, v.cards,
                 v.deflected)
        elif name == "multi" and v is not None:
            v = list(v)
        out[name] = v
    out["rng"] = s.rng.bit_generator.state
    out["launcher_rng"] = None if s.launcher_rng is None else s.launcher_rng.bit_generator.state
    return out


def compare_states(py: Game, a, nat: Game, b, where: str) -> None:
    """The whole state: every slot and ``to_spec``."""
    fa, fb = slots(a), slots(b.to_python(copy_rng=False))
    for key in fa:
        assert fa[key] == fb[key], f"{where}: state slot {key!r} differs: python {fa[key]!r}, native {fb[key]!r}"
    assert py.to_spec(a) == nat.to_spec(b), f"{where}: to_spec differs"


@functools.lru_cache(maxsize=64)
def _games(variant: str, players: int, options: str) -> tuple:
    """Both games of one table and option set (as JSON), and their encoders (built once: a game is immutable)."""
    py = Game(variant, players, backend="python", **json.loads(options))
    nat = Game(variant, players, backend="native", **json.loads(options))
    assert nat.backend == "native"
    # the core's writer (uno_env/core/observe.cpp) for native states
    return py, nat, ObservationEncoder(py), ObservationEncoder(nat)


def play_pair(variant: str, players: int, options: dict, seed: int, policy: str = "random",
              full_every: int = 100) -> int:
    """One game on both engines; returns the decisions compared."""
    py, nat, encoder, native_encoder = _games(variant, players, json.dumps(options, sort_keys=True))
    a, b = py.new_state(seed), nat.new_state(seed)
    chooser = np.random.default_rng(seed + 7919)
    bots = [agents.load(policy, py, seed=seed * 10 + q) for q in range(players)] if policy != "random" else None
    mask_a = np.zeros(py.num_actions, dtype=np.int8)
    mask_b = np.zeros(nat.num_actions, dtype=np.int8)
    k = 0
    where = f"{variant} {players}p {options} seed {seed} ({policy})"
    while True:
        here = f"{where}, decision {k}"
        la, lb = py.legal_actions(a), nat.legal_actions(b)
        assert la == lb, f"{here}: legal actions differ: python {la}, native {lb}"
        assert (a.current_seat, a.phase, a.is_over) == (b.current_seat, b.phase, b.is_over), \
            f"{here}: seat/phase differ: python {(a.current_seat, a.phase)}, native {(b.current_seat, b.phase)}"
        py.legal_action_mask(a, mask_a)
        nat.legal_action_mask(b, mask_b)
        assert np.array_equal(mask_a, mask_b), f"{here}: masks differ"
        if a.is_over:
            compare_states(py, a, nat, b, here)
            assert (a.winner, a.returns, a.truncated, a.blocked) == (b.winner, b.returns, b.truncated, b.blocked), \
                f"{here}: outcome differs"
            return k
        # the deciding seat's row at every decision, every seat's with the whole state (bit for bit: float32)
        seats = range(players) if k % full_every == 0 else (a.current_seat,)
        for seat in seats:
            obs_a, obs_b = encoder.encode(a, seat), native_encoder.encode(b, seat)
            assert obs_a.tobytes() == obs_b.tobytes(), \
                f"{here}: P{seat}'s observation rows differ at {np.flatnonzero(obs_a != obs_b)[:6].tolist()}"
            if seat == a.current_seat:
                row = obs_a
        if k % full_every == 0:
            compare_states(py, a, nat, b, here)
        if bots is None:
            action = la[int(chooser.integers(len(la)))]
        else:
            action = bots[a.current_seat].act(row, mask_a)
        py.step(a, action)
        nat.step(b, action)
        k += 1
