"""Seeded random games with every invariant checked after every step (docs/rules.md §6.7).

2,000 games per preset and per house rule (``UNO_INVARIANT_GAMES`` sets another number), shared
between the player counts it runs at: 2, 4 and the maximum for most, so 667 games at each (Flip:
with the physical two-sided cards conserved and oriented to the active side after every step).
Most games prefer card plays (``eager``) so they end in a win; every 40th game picks uniformly
among all legal actions (long games with many voluntary draws, reshuffles and truncations).
"""
from __future__ import annotations

import math
import os
from collections import Counter

import numpy as np
import pytest

from invariants import play_random_game
from uno_env import VARIANTS, Game


def _games_per_option_set() -> int:
    """``UNO_INVARIANT_GAMES``, else 2,000; anything but a whole number from 1 up is an error."""
    raw = os.environ.get("UNO_INVARIANT_GAMES", "2000")
    if not (raw.isdigit() and int(raw) >= 1):
        raise pytest.UsageError(f"UNO_INVARIANT_GAMES={raw!r}: expected a whole number of games, 1 or more")
    return int(raw)


GAMES = _games_per_option_set()
"""Games per variant and option set, shared between the player counts it is run at."""

PRESETS = [(v, n, {}) for v in ("classic", "alphabet", "xiangqi", "flex", "flip", "attack")
           for n in (2, 4, VARIANTS[v].max_players)]

HOUSE_RULES = [
    {"stacking": "any"},
    {"stacking": "same_value"},
    {"stacking": "draw_two_only"},
    {"jump_in": "on"},
    {"jump_in": "on", "jump_in_allow_wild": True},
    {"multi_play": "on"},
    {"multi_play": "on", "multi_play_subset": "any_subset", "multi_play_first_match": "any_legal"},
    {"madness": "on"},
    {"madness": "on", "stacking": "any", "madness_colour_rule": "free"},
    {"draw_rule": "draw_until_playable"},
    {"uno_call": "decide"},
    {"uno_call": "explicit"},
    {"restricted_wild_bluffing": False},
]
HOUSE = [("classic", n, opts) for opts in HOUSE_RULES for n in (2, 4, 10)]
HOUSE.append(("classic", 2, {"two_player_wild_miss_draw": 2}))
ALL_ON = {"stacking": "any", "jump_in": "on", "multi_play": "on", "madness": "on",
          "draw_rule": "draw_until_playable", "uno_call": "explicit"}
COMBINED = [(v, 4, ALL_ON) for v in ("classic", "alphabet", "xiangqi")]
FLEX_RULES = [
    {"flex.flex_requires_flex_colour_match": False, "flex.allow_self_target": True},
    {"flex.flex_w4f_restricted": True, "flex.wd4_counts_flexable_cards": False, "flex.wild_counts_as_match": False},
    # strict restricted wilds with held wilds counting (AMB-A9) lets two W4Fs lock each other in a hand
    # for ever, so the strict run counts only colours
    {"restricted_wild_bluffing": False, "flex.flex_w4f_restricted": True, "flex.wild_counts_as_match": False,
     "uno_call": "explicit"},
]
FLEX = [("flex", n, opts) for opts in FLEX_RULES for n in (2, 4, 8)]
FLIP_RULES = [
    {"flip.pairing": "fixed", "flip.megatron_no_number": "counts_as_lowest", "flip.wdc_wild_satisfies": True},
    {"restricted_wild_bluffing": False, "flip.optimus_place_requires_match": True, "uno_call": "explicit",
     "flip.last_card_flip_resolves": False, "flip.wild_counts_as_match": False},
]
FLIP = [("flip", n, opts) for opts in FLIP_RULES for n in (2, 4, 10)]
ATTACK_RULES = [  # every launcher model (geometric is the preset default), and the non-default resume rules
    {"attack.launcher_model": "categorical", "attack.mass_hit_resume": "after_absorber"},
    {"attack.launcher_model": "fixed", "attack.fixed_k": 2, "attack.wild_attack_resume": "next_after_target",
     "uno_call": "explicit"},
    {"attack.launcher_model": "geometric", "attack.p_fire": 0.9, "attack.q": 0.8, "attack.max_burst": 4,
     "attack.starter_reverse_first": "dealer", "attack.allow_self_target": True},
]
ATTACK = [("attack", n, opts) for opts in ATTACK_RULES for n in (2, 4, 10)]


def _id(case):
    variant, n, opts = case
    return f"{variant}-{n}p-" + ("-".join(f"{k}={v}" for k, v in opts.items()) or "default")


CASES = PRESETS + HOUSE + COMBINED + FLEX + FLIP + ATTACK
_TABLES = Counter((variant, tuple(sorted(opts.items()))) for variant, _, opts in CASES)


def _games(variant: str, opts: dict) -> int:
    """This table's share of its option set's games."""
    return math.ceil(GAMES / _TABLES[variant, tuple(sorted(opts.items()))])


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_random_games_keep_invariants(case):
    variant, n, opts = case
    game = Game(variant, num_players=n, **opts)
    games = _games(variant, opts)
    outcomes = {"win": 0, "blocked": 0, "truncated": 0}
    for seed in range(games):
        state, steps = play_random_game(game, seed, eager=0.0 if seed % 40 == 0 else 0.9)
        assert state.is_over and steps == state.steps
        outcomes["truncated" if state.truncated else "blocked" if state.blocked else "win"] += 1
        if state.truncated:
            assert state.steps == game.max_steps
    assert sum(outcomes.values()) == games
    assert outcomes["win"] > games // 2, outcomes  # games end by someone going out, not by the cap


@pytest.mark.parametrize("variant", ["classic", "alphabet", "xiangqi", "flex", "flip", "attack"])
def test_matches_keep_invariants(variant):
    game = Game(variant, num_players=3, match=True, max_steps=200_000)
    for seed in range(20):
        state, _ = play_random_game(game, seed, eager=0.9)
        assert state.is_over and not state.truncated
        assert max(state.scores) >= game.target_score
        assert state.winner == max(range(3), key=lambda q: state.scores[q])
        assert state.round_index >= 0


def test_penalty_low_match_winner_has_lowest_total():
    game = Game("classic", num_players=4, match=True, scoring_method="penalty_low", max_steps=200_000)
    for seed in range(10):
        state, _ = play_random_game(game, seed, eager=0.9)
        assert max(state.scores) >= game.target_score
        assert state.scores[state.winner] == min(state.scores)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4, 10])
def test_attack_scripted_launcher_games_keep_invariants(players):
    """The scripted launcher model: each game starts from a spec with a long seeded script of burst sizes."""
    game = Game("attack", num_players=players, **{"attack.launcher_model": "scripted"})
    games = math.ceil(GAMES / 3)  # the scripted model's games, shared between the three player counts
    wins = 0
    for seed in range(games):
        script = np.random.default_rng(seed).integers(0, 4, size=4000).tolist()
        spec = {"seed": seed, "start": True, "dealer": seed % players, "hands": [7] * players, "launcher": script}
        state, _ = play_random_game(game, seed, eager=0.0 if seed % 40 == 0 else 0.9,
                                    state=game.state_from_spec(spec))
        assert state.is_over
        wins += state.winner is not None
    assert wins > games // 2


@pytest.mark.parametrize("players", [3, 4, 10])
def test_attack_elimination_matches_keep_invariants(players):
    """Attack's elimination mode: seats reaching the limit are out; the last seat left wins the match."""
    game = Game("attack", num_players=players, scoring_method="elimination", target_score=150, max_steps=200_000)
    for seed in range(15):
        state, _ = play_random_game(game, seed, eager=0.9)
        assert state.is_over and not state.truncated and state.winner is not None
        assert state.eliminated.count(False) == 1 and not state.eliminated[state.winner]
        assert all(state.scores[q] >= game.target_score for q in range(players) if state.eliminated[q])
        assert state.scores[state.winner] < game.target_score

