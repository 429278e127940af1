"""``Game.sample_hidden``: the redrawn worlds a search plays out are indistinguishable to the seat."""
from collections import Counter

import numpy as np
import pytest

from uno_env import Game
from uno_env import turn
from uno_env.observation import ObservationEncoder

VARIANTS = ["classic", "alphabet", "xiangqi", "flex", "flip", "attack"]
HOUSE = {"stacking": "any", "jump_in": "on", "multi_play": "on", "uno_call": "explicit", "madness": "on"}


def physical(s) -> list:
    """Every physical card of a Flip game, wherever it is."""
    return s.physical_draw + s.physical_discard + [c for h in s.physical_hands for c in h]


def all_cards(g: Game, s) -> Counter:
    """Every card of the game (in Flip: every face of either side), wherever it is."""
    if g.physical is not None:
        return Counter((side, g.physical.face(c, side)) for c in physical(s) for side in (0, 1))
    return Counter(s.draw_pile + s.discard + [k for h in s.hands for k, c in enumerate(h) for _ in range(c)])


def fingerprint(g: Game, s):
    """Everything a sample must not change in the original (spec, generators, physical piles)."""
    return (repr(g.to_spec(s)), repr(s.rng.bit_generator.state), list(s.draw_pile), [h[:] for h in s.hands],
            [h[:] for h in s.physical_hands], list(s.physical_draw), repr(s.shown))


def check_sample(g: Game, enc: ObservationEncoder, s, seat: int, rng, void_weight: float = 1.0) -> None:
    before = fingerprint(g, s)
    t = g.sample_hidden(s, seat, rng, void_weight=void_weight)
    assert fingerprint(g, s) == before  # the original is untouched
    assert np.array_equal(enc.encode(s, seat), enc.encode(t, seat))
    assert all_cards(g, t) == all_cards(g, s)
    assert t.hands[seat] == s.hands[seat] and t.hand_size == s.hand_size and t.discard == s.discard
    if g.physical is not None:  # own backs are redrawn, own faces kept
        assert sorted(g.physical.face(c, s.side) for c in t.physical_hands[seat]) == \
            sorted(g.physical.face(c, s.side) for c in s.physical_hands[seat])
    assert len(t.draw_pile) == len(s.draw_pile)
    assert all(sum(h) == n for h, n in zip(t.hands, t.hand_size))
    if s.current_seat == seat:
        assert g.legal_actions(t) == g.legal_actions(s)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("players", [2, pytest.param(4, marks=pytest.mark.slow)])  # 4 seats: twice the hidden hands
def test_samples_keep_what_the_seat_sees(variant, players):
    """Along random games: the observation of the deciding seat and of another seat is unchanged, cards are
    conserved, and either sample plays on (another seat's sample keeps the decider's pending jump-in or
    drawn card possible)."""
    options = HOUSE if variant in ("classic", "alphabet") and players == 4 else {}
    g = Game(variant, players, **options)
    enc = ObservationEncoder(g)
    rng = np.random.default_rng(1)
    for seed in range(6):
        s = g.new_state(seed)
        while not s.is_over and s.steps < 200:
            check_sample(g, enc, s, s.current_seat, rng)
            check_sample(g, enc, s, (s.current_seat + 1) % players, rng)
            check_sample(g, enc, s, s.current_seat, rng, void_weight=0.2)  # weighted by the voids: same guarantees
            for observer in (s.current_seat, (s.current_seat + 1) % players):
                world = g.sample_hidden(s, observer, rng, share_rng=True)
                cards = all_cards(g, world)
                for _ in range(3):  # a sample is a playable game, for the decider and for another seat
                    if world.is_over:
                        break
                    acts = g.legal_actions(world)
                    g.step(world, acts[int(rng.integers(len(acts)))])
                    assert all(c >= 0 for h in world.hands for c in h) and all_cards(g, world) == cards
            acts = g.legal_actions(s)
            g.step(s, acts[int(rng.integers(len(acts)))])


def test_every_unseen_card_reaches_every_place_it_could_be():
    g = Game("classic", 3)
    s = g.state_from_spec({"players": 3, "discard": ["G5"], "hands": [["R1", "W4"], ["Y1", "Y2", "B7"], ["B1", "B2"]],
                           "draw_pile": ["R9", "G9", "B9", "Y9", "W"]})
    own = s.hands[0][:]
    unseen = set(k for k, c in enumerate(s.hands[1]) if c) | set(k for k, c in enumerate(s.hands[2]) if c) \
        | set(s.draw_pile)
    rng = np.random.default_rng(0)
    seen_in = {1: set(), 2: set(), "draw": set()}
    for _ in range(600):
        t = g.sample_hidden(s, 0, rng)
        assert t.hands[0] == own
        seen_in[1] |= {k for k, c in enumerate(t.hands[1]) if c}
        seen_in[2] |= {k for k, c in enumerate(t.hands[2]) if c}
        seen_in["draw"] |= set(t.draw_pile)
    assert seen_in[1] == seen_in[2] == seen_in["draw"] == unseen


@pytest.mark.parametrize("variant", ["alphabet", "xiangqi", "flex", "attack"])
def test_every_unseen_kind_reaches_every_hidden_place_in_one_sided_variants(variant):
    """From a position a few moves into a game: each kind the seat has not seen turns up in every other hand
    and in the draw pile over many samples (the shared-generator path the search uses, the original untouched)."""
    g = Game(variant, 3)
    s = g.new_state(4)
    rng = np.random.default_rng(2)
    for _ in range(6):
        acts = g.legal_actions(s)
        g.step(s, acts[0])
    me = s.current_seat
    others = [h for h in range(3) if h != me]
    unseen = {k for h in others for k, c in enumerate(s.hands[h]) if c} | set(s.draw_pile)
    before = fingerprint(g, s)
    seen_in = {place: set() for place in others + ["draw"]}
    for _ in range(1500):
        t = g.sample_hidden(s, me, rng, share_rng=True)
        for h in others:
            seen_in[h] |= {k for k, c in enumerate(t.hands[h]) if c}
        seen_in["draw"] |= set(t.draw_pile)
    assert fingerprint(g, s) == before
    assert all(s.hand_size[h] >= 3 for h in others)  # large enough hands for 1,500 samples to reach every kind
    for place, kinds in seen_in.items():
        assert kinds == unseen, (place, sorted(unseen - kinds))


@pytest.mark.python_engine  # edits the state directly
def test_void_weight_keeps_a_colour_out_of_the_hand_that_drew_on_it():
    """Seat 1 drew on blue (its void bit): weight 0 deals it no blue while others remain, 0.25 clearly fewer than
    uniform; cards are conserved either way."""
    g = Game("classic", 3)
    s = g.state_from_spec({"players": 3, "discard": ["G5"], "hands": [["R1", "W4"], ["Y1", "B2", "B7"], ["B1", "G2"]],
                           "draw_pile": ["R9", "G9", "B9", "Y9", "W", "R2", "G3", "Y4"]})
    blue = int(g.colour_of[g.parse_card("B1")])
    s.voids[1] = 1 << blue
    is_blue = [not g.is_wild[k] and g.colour_of[k] == blue for k in range(g.num_kinds)]

    def blue_in(t, h):
        return sum(c for k, c in enumerate(t.hands[h]) if is_blue[k])

    rng = np.random.default_rng(0)
    mean = {}
    for weight in (1.0, 0.25, 0.0):
        samples = [g.sample_hidden(s, 0, rng, void_weight=weight) for _ in range(800)]
        for t in samples:
            assert all_cards(g, t) == all_cards(g, s) and t.hand_size == s.hand_size
        mean[weight] = np.mean([blue_in(t, 1) for t in samples])
    assert mean[0.0] == 0 and 0 < mean[0.25] < mean[1.0] * 0.75
    with pytest.raises(ValueError, match=r"void_weight 1.5 is out of range: a weight in \[0, 1\]"):
        g.sample_hidden(s, 0, rng, void_weight=1.5)


def test_kind_weights_deal_each_hand_by_its_row():
    """A belief per hand: a zero keeps a kind out of that hand while other cards remain, a large weight pulls it
    in, other seats' rows do not bleed into it; cards and every public fact are kept; the same generator gives
    the same sample."""
    g = Game("classic", 3)
    s = g.state_from_spec({"players": 3, "discard": ["G5"], "hands": [["R1", "W4"], ["Y1", "B2", "B7"], ["B1", "G2"]],
                           "draw_pile": ["R9", "G9", "B9", "Y9", "W", "R2", "G3", "Y4"]})
    enc = ObservationEncoder(g)
    y9, wild = g.parse_card("Y9"), g.parse_card("W")
    weights = np.ones((3, g.num_kinds))
    weights[1, y9] = 0.0     # seat 1 cannot hold Y9 ...
    weights[2, wild] = 50.0  # ... and seat 2 very likely holds the wild
    rng = np.random.default_rng(0)
    samples = [g.sample_hidden(s, 0, rng, kind_weights=weights) for _ in range(600)]
    for t in samples[:50]:
        assert all_cards(g, t) == all_cards(g, s) and t.hand_size == s.hand_size
        assert np.array_equal(enc.encode(s, 0), enc.encode(t, 0))
    uniform = [g.sample_hidden(s, 0, rng) for _ in range(600)]
    assert sum(t.hands[1][y9] for t in samples) == 0 and sum(t.hands[1][y9] for t in uniform) > 15
    assert np.mean([t.hands[2][wild] for t in samples]) > 0.8 > 2 * np.mean([t.hands[2][wild] for t in uniform])
    # seat 1's zero does not leak into seat 2's deal: seat 2 gets Y9 as often as when seat 1's row is all ones
    # (about 1.4% of its slots: the pulled wilds take most of its two; a leak would make it 0)
    ones_1 = weights.copy()
    ones_1[1] = 1.0
    rng = np.random.default_rng(0)
    seat_1_free = [g.sample_hidden(s, 0, rng, kind_weights=ones_1) for _ in range(600)]
    y9_in_2 = [sum(t.hands[2][y9] for t in ss) for ss in (samples, seat_1_free)]
    assert y9_in_2[0] > 0 and abs(y9_in_2[0] - y9_in_2[1]) < 15, y9_in_2
    # nor seat 2's pull into seat 1's: seat 1 is dealt first, by its own row, so the same generator deals it the
    # same hand whatever seat 2's row says
    ones_2 = weights.copy()
    ones_2[2] = 1.0
    for seed in range(20):
        assert g.sample_hidden(s, 0, np.random.default_rng(seed), kind_weights=weights).hands[1] == \
            g.sample_hidden(s, 0, np.random.default_rng(seed), kind_weights=ones_2).hands[1]
    a = g.sample_hidden(s, 0, np.random.default_rng(5), kind_weights=weights)
    b = g.sample_hidden(s, 0, np.random.default_rng(5), kind_weights=weights)
    assert a.hands == b.hands and a.draw_pile == b.draw_pile
    own = weights.copy()
    own[0] = 0.0  # the deciding seat's own row is not used
    c = g.sample_hidden(s, 0, np.random.default_rng(5), kind_weights=own)
    assert c.hands == a.hands and c.draw_pile == a.draw_pile


def test_a_hand_with_no_positive_weight_is_filled_at_random():
    """All-zero weights cannot keep a hand empty: its cards are then drawn at random from the unseen ones, never
    in the pool's order (whose front is the real draw pile)."""
    g = Game("classic", 3)
    s = g.new_state(2)
    weights = np.ones((3, g.num_kinds))
    weights[1] = 0.0
    rng = np.random.default_rng(0)
    hands = {tuple(g.sample_hidden(s, 0, rng, kind_weights=weights).hands[1]) for _ in range(20)}
    assert len(hands) > 15
    bottom = [0] * g.num_kinds
    for k in s.draw_pile[:s.hand_size[1]]:
        bottom[k] += 1
    assert tuple(bottom) not in hands


def reference_picks(weights: list[float], count: int, rng) -> list[int]:
    """``sampling._weighted_picks`` as documented, in plain Python floats and loops (what the C++ twin does)."""
    largest = max(weights, default=0.0)
    left = [w / largest for w in weights] if largest > 0 else list(weights)
    taken = [False] * len(left)
    picks = []
    for _ in range(count):
        running, total = [], 0.0
        for w in left:
            total += w
            running.append(total)
        if total > 0:
            target = rng.random() * total
            i = next((j for j, r in enumerate(running) if r > target), None)
            if i is None:
                i = max(j for j, w in enumerate(left) if w > 0)
        else:
            rest = [j for j, t in enumerate(taken) if not t]
            i = rest[int(rng.integers(len(rest)))]
        picks.append(i)
        left[i] = 0.0
        taken[i] = True
    return picks


def test_weighted_picks_are_the_documented_draws_bit_for_bit():
    """Odd weights (zeros, ties, 1e-300 beside 1e300, thirds): the picks and the generator's state afterwards are
    those of the plain left-to-right loop, so another machine or a C++ loop in the same order picks the same."""
    from uno_env.sampling import _weighted_picks

    maker = np.random.default_rng(3)
    for case in range(300):
        n = int(maker.integers(1, 40))
        weights = maker.choice([0.0, 1.0, 1 / 3, 0.1, 0.2, 1e-300, 1e300, 7.0], size=n) * maker.random(n) ** (case % 2)
        count = int(maker.integers(0, n + 1))
        a, b = np.random.default_rng(case), np.random.default_rng(case)
        assert _weighted_picks(weights, count, a) == reference_picks(weights.tolist(), count, b), (case, weights)
        assert a.bit_generator.state == b.bit_generator.state


class _FixedDraws:
    """A generator stand-in returning given uniforms, and recording the integers asked for."""

    def __init__(self, uniforms):
        self.uniforms, self.bounds = list(uniforms), []

    def random(self):
        return self.uniforms.pop(0)

    def integers(self, n):
        self.bounds.append(n)
        return n - 1


def test_weighted_picks_guard_the_end_and_fill_with_weight_0_cards_at_random():
    """A target at the total (not reachable with Generator.random() < 1, whose product with the total stays
    below it, but a loop must end somewhere) picks the last positive weight, never the weight-0 card behind it;
    once no positive weight is left, one integers(n) per pick among the cards left."""
    from uno_env.sampling import _weighted_picks

    draws = _FixedDraws([1.0, 0.0])
    assert _weighted_picks(np.array([0.1, 0.2, 0.0]), 3, draws) == [1, 0, 2]
    assert draws.bounds == [1] and draws.uniforms == []
    draws = _FixedDraws([])
    assert _weighted_picks(np.zeros(4), 4, draws) == [3, 2, 1, 0] and draws.bounds == [4, 3, 2, 1]


def test_weighted_picks_follow_the_weights():
    """Two picks from weights 1, 2, 0, 4, 1: every ordered pair as often as successive sampling says (ignoring
    the weights would give every pair of the four positive cards 1/12); the weight-0 card is never among them."""
    from uno_env.sampling import _weighted_picks

    weights = np.array([1.0, 2.0, 0.0, 4.0, 1.0])
    rng = np.random.default_rng(0)
    trials = 20_000
    seen = Counter(tuple(_weighted_picks(weights, 2, rng)) for _ in range(trials))
    total = weights.sum()
    for i in range(5):
        for j in range(5):
            p = 0.0 if i == j else weights[i] / total * weights[j] / (total - weights[i])
            sd = np.sqrt(trials * p * (1 - p))
            assert abs(seen[(i, j)] - trials * p) <= 4.5 * sd + 1e-9, ((i, j), seen[(i, j)], trials * p)
    assert not any(2 in pair for pair in seen)
    # all five: the weight-0 card always last
    assert all(_weighted_picks(weights, 5, rng)[-1] == 2 for _ in range(200))


@pytest.mark.python_engine  # edits the state directly
def test_the_weighted_deal_uses_no_logarithm(monkeypatch):
    """No transcendental function orders the weighted deal (numpy's log differs from libm's in the last digit, by
    CPU): the void-weighted and the belief-weighted samples are made with np.log and np.exp unavailable, and
    the same generator gives the same sample."""
    g = Game("classic", 3)
    s = g.new_state(5)
    s.voids[1] = 0b11  # seat 1 drew on its first two colours
    weights = np.random.default_rng(1).random((3, g.num_kinds)) * 3

    def boom(*args, **kwargs):
        raise AssertionError("the weighted deal called a transcendental function")

    for name in ("log", "exp", "log1p", "power"):
        monkeypatch.setattr(np, name, boom)
    for kwargs in ({"void_weight": 0.3}, {"kind_weights": weights}):
        a = g.sample_hidden(s, 0, np.random.default_rng(9), **kwargs)
        b = g.sample_hidden(s, 0, np.random.default_rng(9), **kwargs)
        assert a.hands == b.hands and a.draw_pile == b.draw_pile


@pytest.mark.parametrize("weights, message", [
    (np.ones((2, 54)), r"shape \(players, kinds\) = \(3, 54\); got \(2, 54\)"),
    (-np.ones((3, 54)), r"finite and >= 0 \(a relative chance per card kind\); \[0, 0\] is -1.0"),
    (np.full((3, 54), np.nan), r"\[0, 0\] is nan"),
    ([[1.0, 2.0], [1.0]], "an array of numbers of shape"),
])
def test_bad_kind_weights_are_refused_naming_the_rule(weights, message):
    g = Game("classic", 3)
    with pytest.raises(ValueError, match=message):
        g.sample_hidden(g.new_state(0), 0, np.random.default_rng(0), kind_weights=weights)


def test_kind_weights_are_refused_for_flip():
    g = Game("flip", 3)
    with pytest.raises(ValueError, match="one-sided decks only"):
        g.sample_hidden(g.new_state(0), 0, np.random.default_rng(0), kind_weights=np.ones((3, g.num_kinds)))


def test_flip_slots_keep_their_back_faces_and_take_every_matching_card():
    """With the fixed (published, so known) pairing, slots are refilled with real cards of the deck."""
    g = Game("flip", 3, **{"flip.pairing": "fixed"})
    s = g.new_state(4)
    phys, other = g.physical, 1 - s.side
    rng = np.random.default_rng(0)
    reached: dict[int, set] = {1: set(), 2: set()}
    pool = Counter(s.physical_draw + s.physical_hands[1] + s.physical_hands[2])
    own_backs = set()
    for _ in range(400):
        t = g.sample_hidden(s, 0, rng)
        assert sorted(phys.face(c, s.side) for c in t.physical_hands[0]) == \
            sorted(phys.face(c, s.side) for c in s.physical_hands[0])
        own_backs.add(tuple(sorted(phys.face(c, other) for c in t.physical_hands[0])))
        for h in (1, 2):
            assert [phys.face(c, other) for c in t.physical_hands[h]] == [phys.face(c, other) for c in s.physical_hands[h]]
            reached[h] |= set(t.physical_hands[h])
        assert phys.face(t.physical_draw[-1], other) == phys.face(s.physical_draw[-1], other)
    assert len(own_backs) > 1  # the seat does not see its own backs: they are redrawn
    for h in (1, 2):
        backs = {phys.face(c, other) for c in s.physical_hands[h]}
        assert reached[h] == {c for c in pool | Counter(s.physical_hands[0]) if phys.face(c, other) in backs}


@pytest.mark.python_engine  # edits the state directly
def test_a_challenge_reveal_stays_with_its_holder_until_played():
    g = Game("classic", 3)
    s = g.state_from_spec({"players": 3, "discard": ["G5"], "hands": [["W4", "G1", "R2"], ["Y1", "R3"], ["B1", "B2"]],
                           "draw_pile": ["B5", "B6", "B8", "B9", "Y7", "Y8", "Y9"]})
    for a in ("play W4", "colour R", "challenge"):  # guilty: P0 held G1; it draws 4, P1 saw [G1, R2]
        g.step(s, a)
    g1, r2 = g.parse_card("G1"), g.parse_card("R2")
    rng = np.random.default_rng(0)
    samples = [g.sample_hidden(s, 1, rng) for _ in range(200)]
    assert all(t.hands[0][g1] >= 1 and t.hands[0][r2] >= 1 for t in samples)
    others = [g.sample_hidden(s, 2, rng) for _ in range(200)]  # P2 saw nothing
    assert any(t.hands[0][g1] == 0 for t in others)
    turn.card_left_hand(s, 0, r2)  # as when P0 places its R2: that card is no longer known to be held
    assert any(g.sample_hidden(s, 1, rng).hands[0][r2] == 0 for _ in range(200))
    assert all(g.sample_hidden(s, 1, rng).hands[0][g1] >= 1 for _ in range(50))


def test_megatron_shows_both_hands_to_every_seat():
    g = Game("flip", 3)
    s = g.state_from_spec({"variant": "flip", "players": 3, "side": "D", "discard": ["D:Pk5"],
                           "hands": [["MEG", "D:Pk2", "D:Tl8"], ["D:Or5", "D:Pu9"], ["D:Tl3", "D:Or6"]],
                           "draw_pile": ["D:Tl1", "D:Tl2", "D:Tl4"]})
    g.step(s, "play MEG")
    g.step(s, "target P1")  # P0's lowest 2 < 5: P0 draws 2
    rng = np.random.default_rng(0)
    for _ in range(100):
        t = g.sample_hidden(s, 2, rng)
        assert sorted(g.hand_cards(t, 1)) == sorted(["D:Or5", "D:Pu9"])
        assert Counter(g.hand_cards(t, 0)) >= Counter(["D:Pk2", "D:Tl8"])


def test_a_pending_challenge_verdict_follows_the_redrawn_hand():
    g = Game("classic", 2)
    s = g.state_from_spec({"players": 2, "discard": ["G5"], "hands": [["W4", "G1", "R2", "B3"], ["Y1", "Y2"]]})
    g.step(s, "play W4")
    g.step(s, "colour R")
    assert s.penalty.challenge == (0, True)
    rng = np.random.default_rng(0)
    verdicts = set()
    for _ in range(300):
        t = g.sample_hidden(s, 1, rng)
        verdicts.add(t.penalty.challenge[1])
        assert t.penalty.challenge[1] == turn.holds_colour(g, t, 0, t.ref_colour)
    assert verdicts == {True, False}


def test_same_generator_same_sample_and_bad_seat():
    g = Game("attack", 3)
    s = g.new_state(2)
    a = g.sample_hidden(s, 0, np.random.default_rng(5))
    b = g.sample_hidden(s, 0, np.random.default_rng(5))
    assert g.to_spec(a) == g.to_spec(b)
    for _ in range(20):  # the futures agree too (launcher and reshuffles from the sample's own generators)
        if a.is_over:
            break
        g.step(a, g.legal_actions(a)[-1])
        g.step(b, g.legal_actions(b)[-1])
    assert g.to_spec(a) == g.to_spec(b)
    with pytest.raises(ValueError, match="seat 3 is not a seat"):
        g.sample_hidden(s, 3, np.random.default_rng(0))


def test_flip_random_pairing_is_redrawn_for_cards_not_seen_on_both_sides():
    """The default pairing is drawn per game: a visible back says nothing about the face behind it."""
    g = Game("flip", 3)
    s = g.new_state(4)
    phys, side, other = g.physical, s.side, 1 - s.side
    real_fronts = {}  # back face -> active faces it has in the real deck
    for c in s.deck_cards:
        real_fronts.setdefault(phys.face(c, other), set()).add(phys.face(c, side))
    rng = np.random.default_rng(0)
    beyond_real = False
    for _ in range(200):
        t = g.sample_hidden(s, 0, rng)
        assert sorted(phys.face(c, side) for c in t.physical_hands[0]) == \
            sorted(phys.face(c, side) for c in s.physical_hands[0])
        for h in (1, 2):
            assert [phys.face(c, other) for c in t.physical_hands[h]] == [phys.face(c, other) for c in s.physical_hands[h]]
            beyond_real |= any(phys.face(c, side) not in real_fronts[phys.face(c, other)] for c in t.physical_hands[h])
        assert phys.face(t.physical_draw[-1], other) == phys.face(s.physical_draw[-1], other)
        assert t.physical_discard == s.physical_discard
        assert Counter(t.deck_cards) == Counter(physical(t))
    assert beyond_real  # samples pair faces the real deck does not: the pairing is not leaked
