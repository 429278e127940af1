"""The core's sampler (uno_env/core/sample.cpp) against the Python one (uno_env/sampling.py), draw for draw.

Games are played on both engines from one seed with random legal actions; at every decision both sample for
the deciding seat and for another one, from generators in the same state, with and without a shared
generator, ignoring or weighting the voids, with and without a belief per hand (kind_weights, one-sided decks).
The sampled states must be equal (every slot, the generators' positions, to_spec), the sampling generators
must end in the same state, the samples must play on alike, and the native original must be untouched.
A recorder on the Python sampler's helpers checks that the games reach its rarer paths (pinned cards, known
cards, weighted deals, a hand with no positive weight, a challenge's verdict, Flip's redraws).
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from uno_env import Game, sampling
from uno_env.core import _core

from native_diff import compare_states, slots  # tests/native_diff.py

ENGINE_BACKENDS = ("python",)  # every game here names its backend: no second run under UNO_ENV_BACKEND (conftest.py)

HOUSE = {"stacking": "any", "jump_in": "on", "multi_play": "on", "uno_call": "explicit", "madness": "on"}
PINS = {"pin_drawn", "pin_jump_in", "pin_multi_play"}
ONE_SIDED = {"weighted", "no_positive_weight", "known", "challenge"}
#: (variant, options, the Python sampler's paths the two-player games must reach)
CASES = {
    "classic": ("classic", HOUSE, ONE_SIDED | PINS),
    "alphabet": ("alphabet", HOUSE, ONE_SIDED | PINS),
    "xiangqi": ("xiangqi", {"jump_in": "on", "multi_play": "on", "stacking": "same_value"}, ONE_SIDED | PINS),
    "flex": ("flex", {"uno_call": "explicit"}, ONE_SIDED | {"pin_drawn"}),
    "attack": ("attack", {"attack.launcher_model": "categorical", "attack.allow_self_target": True,
                          "uno_call": "explicit"}, {"weighted", "no_positive_weight"}),
    "flip-random-pairing": ("flip", {"flip.pairing": "random_per_deck"},
                            {"unknown_pairing", "known", "pin_drawn", "challenge"}),
    "flip-fixed-pairing": ("flip", {"flip.pairing": "fixed", "uno_call": "explicit"},
                           {"physical", "known", "pin_drawn", "challenge", "fill_short"}),
}


@pytest.fixture
def paths(monkeypatch) -> Counter:
    """Counts of the Python sampler's paths taken (its helpers wrapped, their results unchanged)."""
    seen = Counter()

    def wrap(name, record):
        inner = getattr(sampling, name)

        def wrapper(*args):
            known_before = {h: list(c) for h, c in args[3].items()} if name == "_pin_pending_card" else None
            result = inner(*args)
            record(args, result, known_before)
            return result

        monkeypatch.setattr(sampling, name, wrapper)

    def pin(args, result, known_before):
        g, s, seat, known, rng = args
        if result >= 0:
            seen["pin_drawn"] += 1
        elif known != known_before:
            seen[f"pin_{s.phase.value.lower()}"] += 1  # pin_jump_in, pin_multi_play

    def picks(args, result, _):
        weights, count, rng = args
        seen["no_positive_weight"] += count > int(np.count_nonzero(weights))

    def recheck(args, result, _):
        g, t, seat, drawn = args
        pen = t.penalty
        seen["challenge"] += pen is not None and pen.challenge is not None and pen.challenge[0] != seat

    wrap("known_cards", lambda args, result, _: seen.update(["known"] if result else []))
    wrap("_pin_pending_card", pin)
    wrap("_deal_weighted", lambda *_: seen.update(["weighted"]))
    wrap("_weighted_picks", picks)
    wrap("_recheck_hidden_facts", recheck)
    wrap("_redeal_physical", lambda *_: seen.update(["physical"]))
    wrap("_redeal_unknown_pairing", lambda *_: seen.update(["unknown_pairing"]))
    shorts = []  # the back faces that ran short in a row

    def fill(args, result, _):
        if result is None:
            seen["fill_short"] += 1
            shorts.append(1)
            return
        seen["fill_kept_own"] += len(shorts) == 20  # the fill after 20 shorts: the own cards kept whole
        shorts.clear()

    wrap("_fill", fill)
    return seen


def native_fingerprint(s) -> tuple:
    """Everything of a native state a sample must leave alone: every slot, the generators' positions, legal cache."""
    return repr(slots(s.to_python(copy_rng=False))), repr(s.to_python(copy_rng=False).legal)


def sample_both(py: Game, a, nat: Game, b, seat: int, seed: int, where: str, **kw) -> tuple:
    """One sample of each engine's state from generators in the same state; checks they are the same sample."""
    ra, rb = np.random.default_rng(seed), np.random.default_rng(seed)
    ta = py.sample_hidden(a, seat, ra, **kw)
    tb = nat.sample_hidden(b, seat, rb, **kw)
    compare_states(py, ta, nat, tb, where)
    assert (ta.rng is ra, ta.launcher_rng is ra) == (tb.rng is rb, tb._c.launcher_generator is rb), \
        f"{where}: the samples' generators are not alike shared"
    assert ra.bit_generator.state == rb.bit_generator.state, f"{where}: the sampling generators differ afterwards"
    assert py.legal_actions(ta) == nat.legal_actions(tb), f"{where}: the samples' legal actions differ"
    return ta, tb


def play_on(py: Game, ta, nat: Game, tb, chooser, decisions: int, where: str) -> None:
    """A few random decisions on both samples: they go on alike (their generators included)."""
    for _ in range(decisions):
        if ta.is_over:
            break
        legal = py.legal_actions(ta)
        assert legal == nat.legal_actions(tb), f"{where}: a sample's legal actions differ while playing on"
        action = legal[int(chooser.integers(len(legal)))]
        py.step(ta, action)
        nat.step(tb, action)
    compare_states(py, ta, nat, tb, f"{where}, played on")


def compare_samplers(variant: str, players: int, options: dict, seeds, max_steps: int) -> int:
    py = Game(variant, players, backend="python", **options)
    nat = Game(variant, players, backend="native", **options)
    assert nat.backend == "native"
    one_sided = py.physical is None
    samples = 0
    for seed in seeds:
        a, b = py.new_state(seed), nat.new_state(seed)
        chooser = np.random.default_rng(seed + 1000)
        while not a.is_over and a.steps < max_steps:
            k = a.steps
            before = native_fingerprint(b)
            for seat in (a.current_seat, (a.current_seat + 1 + k % (players - 1)) % players):
                # a rotation of the options, both seats seeing each over a game
                share = (k + seat) % 2 == 0
                kw = {"share_rng": share, "void_weight": (1.0, 0.3, 0.0)[(k // 2 + seat) % 3]}
                if one_sided and k % 3 == seat % 3:
                    weights = chooser.random((players, py.num_kinds)) * (chooser.random((players, py.num_kinds)) > 0.3)
                    if k % 2:
                        weights[(seat + 1) % players] = 0.0  # a hand with no positive weight: filled at random
                    kw["kind_weights"] = weights
                where = f"{variant} {players}p {options} seed {seed} decision {k}, seat {seat}, {kw}"
                ta, tb = sample_both(py, a, nat, b, seat, seed * 100_003 + k * 7 + seat, where, **kw)
                samples += 1
                if k % 10 == 0:
                    play_on(py, ta, nat, tb, np.random.default_rng(k), 3, where)
            assert native_fingerprint(b) == before, f"{variant} seed {seed} decision {k}: sampling changed the state"
            legal = py.legal_actions(a)
            action = legal[int(chooser.integers(len(legal)))]
            py.step(a, action)
            nat.step(b, action)
    return samples


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("players", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_native_samples_are_the_python_samples(case, players, paths):
    variant, options, expected = CASES[case]
    seeds, steps = (range(3), 120) if players == 2 else (range(8), 300)
    assert compare_samplers(variant, players, options, seeds, steps) > 0
    if players == 2:
        reached = set(+paths)
        assert expected <= reached, f"paths not reached: {sorted(expected - reached)} (reached {dict(+paths)})"


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_native_samples_are_the_python_samples_in_long_games(case):
    variant, options, _ = CASES[case]
    assert compare_samplers(variant, 3, options, range(100, 106), 1000) > 0


def flip_position_whose_backs_run_short(py: Game) -> dict:
    """A fixed-pairing Flip spec where seat 0's own cards mostly take the cards seat 1's back faces need.

    Seat 0 holds one copy of eight A faces, seat 1 the other copy of each (a back face none of seat 0's cards
    and not the draw pile's single card shows): an own face is refilled with seat 1's copy half the time, and
    then seat 1's back runs short, so most samples end with the own cards kept whole after 20 tries.
    """
    phys, name = py.physical, py.deck.name_of
    copies: dict[int, list[int]] = {}
    for c in phys.fixed:
        copies.setdefault(phys.face(c, 0), []).append(c)
    own, theirs = [], []
    for face, cards in copies.items():
        if len(cards) != 2 or py.is_wild[face] or len(own) == 8:
            continue
        mine, other = cards
        own_backs = {phys.face(c, 1) for c in own + [mine]}
        their_backs = {phys.face(c, 1) for c in theirs + [other]}
        if not own_backs & their_backs and len(their_backs) == len(theirs) + 1:
            own.append(mine)
            theirs.append(other)
    rest = list((Counter(phys.fixed) - Counter(own + theirs)).elements())
    draw = next(c for c in rest if phys.face(c, 1) not in {phys.face(t, 1) for t in theirs})
    rest.remove(draw)
    top = next(c for c in rest if phys.face(c, 0) in py.number_kinds)
    rest.remove(top)

    def names(cards):
        return [f"{name[phys.face(c, 0)]}|{name[phys.face(c, 1)]}" for c in cards]

    return {"variant": "flip", "players": 2, "options": {"flip.pairing": "fixed"}, "current": 0, "side": "A",
            "colour": py.deck.colours[py.colour_of[phys.face(top, 0)]], "hands": [names(own), names(theirs)],
            "draw_pile": names([draw]), "discard": names(rest + [top])}


def test_flip_redraws_when_a_back_runs_short_and_keeps_the_own_cards_after_20(paths):
    """_redeal_physical's retries, and its fill with the own cards kept whole after 20 shorts, draw for draw."""
    py = Game("flip", 2, backend="python", **{"flip.pairing": "fixed"})
    nat = Game("flip", 2, backend="native", **{"flip.pairing": "fixed"})
    spec = flip_position_whose_backs_run_short(py)
    a, b = py.state_from_spec(spec), nat.state_from_spec(spec)
    before = native_fingerprint(b)
    for seed in range(20):
        for seat in (0, 1):
            sample_both(py, a, nat, b, seat, seed, f"seed {seed}, seat {seat}", share_rng=bool(seed % 2))
    assert native_fingerprint(b) == before
    assert paths["fill_kept_own"] >= 5 and paths["fill_short"] > 20 * paths["fill_kept_own"], dict(paths)


@pytest.mark.parametrize("variant, kwargs, message", [
    ("classic", {"seat": 2}, r"seat 2 is not a seat of this 2-player game \(0..1\)"),
    ("classic", {"seat": -1}, r"seat -1 is not a seat"),
    ("classic", {"void_weight": 1.5}, r"void_weight 1.5 is out of range: a weight in \[0, 1\]"),
    ("classic", {"kind_weights": np.ones((3, 54))}, r"shape \(players, kinds\) = \(2, 54\); got \(3, 54\)"),
    ("classic", {"kind_weights": -np.ones((2, 54))}, r"finite and >= 0 .*\[0, 0\] is -1.0"),
    ("classic", {"kind_weights": [[1.0, 2.0], [1.0]]}, "an array of numbers of shape"),
    ("flip", {"kind_weights": np.ones((2, 108))}, "one-sided decks only"),
])
def test_bad_arguments_are_refused_alike(variant, kwargs, message):
    for backend in ("python", "native"):
        g = Game(variant, 2, backend=backend)
        s = g.new_state(0)
        args = {"seat": 0, **kwargs}
        with pytest.raises(ValueError, match=message):
            g.sample_hidden(s, args.pop("seat"), np.random.default_rng(0), **args)


def test_the_binding_checks_what_it_is_handed():
    """Called directly, the core's sampler refuses a seat, a weight array or a state it cannot use."""
    g = Game("classic", 2, backend="native")
    other = Game("classic", 3, backend="native")
    s = g.new_state(0)
    rng = np.random.default_rng(0)
    for seat, weights, source, message in [
        (2, None, s._c, "seat 2 is not a seat"),
        (-1, None, s._c, "seat -1 is not a seat"),
        (0, np.ones((2, g.num_kinds - 1)), s._c, r"kind_weights has shape \(players, kinds\)"),
        (0, np.ones(g.num_kinds), s._c, r"kind_weights has shape \(players, kinds\)"),
        (0, None, other.new_state(0)._c, "a state of other rules"),
    ]:
        for share in (True, False):
            with pytest.raises(ValueError, match=message):
                _core.sample_hidden(g._tables, source, seat, rng, share, 1.0, weights)
    with pytest.raises(ValueError, match=r"void_weight is a weight in \[0, 1\]"):
        _core.sample_hidden(g._tables, s._c, 0, rng, True, float("nan"), None)


def test_many_samples_inside_the_core_draw_as_many_samples_through_the_facade():
    """``sample_many`` (bench search's in-core row) deals what ``count`` shared-generator samples deal."""
    g = Game("classic", 2, backend="native")
    s = g.new_state(4)
    for _ in range(9):
        g.step(s, g.legal_actions(s)[0])
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    cards = _core.sample_many(g._tables, s._c, s.current_seat, a, 5)
    worlds = [g.sample_hidden(s, s.current_seat, b, share_rng=True) for _ in range(5)]
    assert cards == sum(len(w.draw_pile) for w in worlds)
    assert a.bit_generator.state == b.bit_generator.state
    assert _core.clone_many(s._c, 3) == 3 * s.steps
    with pytest.raises(ValueError, match="count must be >= 0"):
        _core.sample_many(g._tables, s._c, 0, a, -1)


def test_a_belief_sample_with_nothing_left_to_deal():
    """A belief sample (kind_weights) when every hidden card is known: the draw pile empty and the other hand
    shown whole to the sampling seat (a challenge reveal). Both engines keep every card where it is; the
    Python sampler used to fail on the empty pool (an IndexError)."""
    from uno_env.core.native import from_python

    py, nat = Game("classic", 2, backend="python"), Game("classic", 2, backend="native")
    s = py.state_from_spec({"players": 2, "discard": ["G5"], "hands": [["R1", "W4"], ["Y1", "B2", "B7"]]})
    s.draw_pile = []  # the rest of the deck out of play, as if on the discard pile
    s.shown = [(0, 1, list(s.hands[1]))]
    weights = np.ones((2, py.num_kinds))
    for game, state in ((py, s), (nat, from_python(nat, s))):
        t = game.sample_hidden(state, 0, np.random.default_rng(3), kind_weights=weights)
        assert t.hands == s.hands and t.draw_pile == [] and t.hand_size == s.hand_size, game.backend
