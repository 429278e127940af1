"""``ismcts``: single-observer information-set Monte Carlo tree search (SO-ISMCTS).

Each iteration redraws what the deciding seat cannot see (``Game.sample_hidden``: the other
hands, the draw pile, the generators), then walks one tree shared by all those worlds: the tree's
nodes are sequences of decisions (who decided, what), so statistics gathered in one world inform
the others, and the agent's choice is made for its information set rather than for one guessed
world (the strategy fusion of plain determinized UCT, which averages separate per-world trees).
In a world, only the children legal there compete; each child counts the iterations in which it
was available, and the selection uses that count (UCB with availability, Cowling, Powley and
Whitehouse 2012). A new node is added per iteration (the rollout policy's choice first), then the
world is played on by a fast rule-based rollout policy for ``rollout_depth`` decisions and scored:
the result if the game ended (winner +1, the others -1/(n-1)), else the leaf model's expected result
(``leaf_value.py``: by default a win model fitted at first use to rollout-policy games of the same
rules, ``leaf=fitted``; or ``leaf=sizes``, a fixed function of the hand sizes). Short rollouts scored
so were as strong as full ones in two-player Classic and several times cheaper. Every node keeps the mean result of the seat that chose it, so every seat maximises
its own result at any table size.

A policy may guide the root (``prior=pretrained``, or any policy file): the loader (``agents/loader.py``)
loads it, its path passing the loader's ``resolve_path`` when one is given, and hands it to the search as
``guide``; the search opens no file. Its probabilities ``p`` of the searching seat's legal actions add
``prior_weight * p / (visits + 1)`` to each root child's selection score (a progressive bias, fading as the
child is visited), and its favourite is expanded first. The search then plays the policy's choice unless the
sampled worlds find a clearly better one.

Forced decisions (one legal action) are played without a node; calling UNO and catching a player
who did not call are taken without a search (they never cost anything). Known limit of the single-observer
form: in the worlds it samples, the opponents' tree moves are chosen with the searcher's true hand
in the world, so the opponents search as if they could see it (and do not model that their own
choices reveal information). ``opponents=policy`` takes that away: the other seats' tree decisions are
played by a policy network that reads only their own observation (``PolicyOpponent``); it costs a forward
pass per such decision.

Extension points for a subclass: ``belief_of`` (weights per hand and card kind that every world of a decision is
dealt by: a belief about the other hands; the search stays in the core), ``world`` and ``opponent_model``
(arbitrary worlds and opponents: the search then runs its Python loop).

Options (``ismcts:iterations=400,c=1.0``): see ``OPTIONS``. With ``time`` > 0 the search stops at
that many seconds per decision (or at ``iterations``, whichever comes first), and is then no longer
reproducible from the seed alone.
"""
from __future__ import annotations

import math
import time

import numpy as np

from uno_env import Game, core
from uno_env.errors import short_repr
from uno_env.observation import ObservationEncoder
from uno_env.sampling import _checked_kind_weights
from uno_env.state import Phase, State

from .leaf_value import KindIndex, LeafModel, estimate, fitted_model
from .policy_file import ACTIVATIONS

#: name: (type, default, meaning) of every option of the spec.
OPTIONS: dict[str, tuple[type, object, str]] = {
    "iterations": (int, 300, "search iterations (sampled worlds) per decision, >= 1"),
    "time": (float, 0.0, "seconds per decision, 0 = no time limit (then only iterations bound the search)"),
    "c": (float, 1.0, "UCB exploration constant, >= 0 (results are in [-1, 1])"),
    "rollout_depth": (int, 8, "decisions per rollout before the world is scored by the leaf model, >= 1"),
    "tree_depth": (int, 0, "tree decisions per iteration at most, the rest played by the rollout policy (>= 0; 0: "
                           "no limit)"),
    "leaf": (str, "fitted", "leaf model of a cut rollout: fitted (a win model fitted to rollout-policy games of "
                            "the same rules) or sizes (hand sizes only)"),
    "void_weight": (float, 1.0, "chance of a card of a colour an opponent drew on (and has not played since) in "
                                "its sampled hand, relative to another card, in [0, 1]; 1 ignores that evidence"),
    "opponents": (str, "search", "how the other seats decide inside the tree: search (each maximises its own result "
                                 "by UCB), rollout (they play the rollout policy; the tree holds only this seat's "
                                 "decisions) or policy (they play opponent_policy, which reads only their own "
                                 "observation, in the tree; the rollouts as with search)"),
    "opponent_policy": (str, "pretrained", "the policy the other seats play in the tree with opponents=policy: "
                                           "pretrained (the game's shipped policy), pretrained:<name> or a policy "
                                           "file path"),
    "prior": (str, "none", "a policy guiding the root decision: none, pretrained (the game's shipped policy), "
                           "pretrained:<name> or a policy file path"),
    "prior_weight": (float, 3.0, "weight of the prior's probability in the root's selection score, added as "
                                 "weight * p / (visits + 1), >= 0"),
    "engine": (str, "auto", "where the tree loop runs: core (the compiled core, uno_env/core/search.cpp), python "
                            "(this module, the reference) or auto (the core wherever it is built and covers the "
                            "rules); both make the same decisions from the same seed"),
}

CHOICES = {"leaf": ("fitted", "sizes"), "opponents": ("search", "rollout", "policy"), "engine": ("auto", "core", "python")}


class SearchOptionError(ValueError):
    """A bad option of a search agent's spec."""


def parse_options(text: str) -> dict:
    """``key=value,key=value`` into typed options, every key checked against ``OPTIONS``."""
    out = {name: default for name, (_, default, _) in OPTIONS.items()}
    if not text:
        return out
    allowed = ", ".join(f"{k} ({t.__name__}, default {d})" for k, (t, d, _) in OPTIONS.items())
    for item in text.split(","):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in OPTIONS:
            raise SearchOptionError(f"ismcts option {short_repr(item)} is not key=value with a known key; "
                                    f"allowed: {allowed}")
        kind = OPTIONS[key][0]
        try:
            parsed = kind(value.strip())
        except ValueError:
            raise SearchOptionError(f"ismcts option {key}={short_repr(value)} must be a {kind.__name__}; "
                                    f"allowed: {allowed}") from None
        if kind is str:
            if key in CHOICES and parsed not in CHOICES[key]:
                raise SearchOptionError(f"ismcts option {key}={short_repr(value)} is not one of: "
                                        f"{', '.join(CHOICES[key])}")
            if not parsed:
                raise SearchOptionError(f"ismcts option {key}= is empty: {OPTIONS[key][2]}")
        elif (key in ("iterations", "rollout_depth") and parsed < 1) \
                or (key in ("time", "c", "prior_weight", "tree_depth") and parsed < 0) \
                or (key == "void_weight" and not 0 <= parsed <= 1) or not math.isfinite(parsed):
            raise SearchOptionError(f"ismcts option {key}={short_repr(value)} is out of range: {OPTIONS[key][2]}")
        out[key] = parsed
    return out


class _Node:
    __slots__ = ("seat", "visits", "total", "avail", "children")

    def __init__(self, seat: int):
        self.seat = seat          # the seat whose decision led here
        self.visits = 0
        self.total = 0.0          # sum of that seat's results
        self.avail = 0            # iterations in which this decision was legal
        self.children: dict[tuple[int, int], _Node] = {}


def _python_twin(state):
    """The search runs on the Python engine: a native state (the compiled core's) becomes its Python twin,
    generators copied, so the search never moves the caller's game; a Python state is used as it is."""
    return state if isinstance(state, State) else state.to_python()


class ISMCTSAgent:
    """SO-ISMCTS over ``Game.sample_hidden`` worlds with a fast rule-based rollout policy."""

    name = "ismcts"
    reads_state = True  # callers hand it the game state (it sees only what ``sample_hidden`` keeps)

    def __init__(self, game: Game, seed: int | None = None, guide=None, opponent_guide=None, **options):
        """``guide``: the policy the ``prior`` option names, already loaded (``agents.load`` builds it), or None.
        Anything with ``logits(observation)`` guides; the search itself loads nothing. ``opponent_guide``: the
        policy ``opponent_policy`` names (an MLP policy file's agent), needed with ``opponents=policy``."""
        # the reference loop below runs on the Python engine (a native state is copied once per decision); the
        # core's twin of it (engine=core) on the compiled core, where states are copied and redrawn in C++
        game = game if game.backend == "python" else Game(game.rules, backend="python")
        self.game = game
        # keyword options pass the same checks as a spec's
        self.options = parse_options(",".join(f"{key}={value}" for key, value in options.items()))
        self.core_game = self._core_game(game)
        if guide is None and self.options["prior"] != "none":
            # naming a prior without loading it would silently search unguided
            raise SearchOptionError(f"ismcts option prior={short_repr(self.options['prior'])} names a policy the "
                                    "search does not load: build it with agents.load(spec) or pass guide=")
        if guide is not None and not callable(getattr(guide, "logits", None)):
            raise SearchOptionError(f"ismcts guide of type {type(guide).__name__} is not a policy: it has no logits()")
        self.guide = guide
        if (opponent_guide is not None) != (self.options["opponents"] == "policy"):
            raise SearchOptionError("ismcts option opponents=policy plays the policy opponent_policy names, loaded "
                                    "by agents.load(spec) (or passed as opponent_guide=); other opponents take none")
        self.policy_opponent = PolicyOpponent(game, opponent_guide) if opponent_guide is not None else None
        self.rng = np.random.default_rng(seed)
        self.rollout = RolloutPolicy(game)
        self.leaf = fitted_model(game, self.rollout, self.core_game) if self.options["leaf"] == "fitted" else estimate
        self.obvious = {Phase.UNO_CALL: game.layout.call, Phase.CATCH: game.layout.catch}
        self.last_iterations = 0
        self.encoder = ObservationEncoder(game) if self.guide is not None else None
        self.root_prior: dict[int, float] = {}  # the guide's probabilities of the root's legal actions
        self.hand_weights: np.ndarray | None = None  # belief_of the root: how this decision's worlds are dealt
        # the fitted leaf model's weights, handed to the core's loop (none: the hand-size estimate)
        self.leaf_weights = list(self.leaf.weights) if isinstance(self.leaf, LeafModel) else []

    def _core_game(self, game: Game):
        """The native game the core's loop runs on, or None where the search runs in Python (``engine``)."""
        engine = self.options["engine"]
        if engine == "python":
            return None
        if engine == "auto" and core.resolve(None, game.rules) != "native":  # UNO_ENV_BACKEND=python is heard
            return None
        # a subclass's own worlds or opponents live in Python: the core's loop cannot call them
        overridden = [name for name in ("world", "opponent_model")
                      if getattr(type(self), name) is not getattr(ISMCTSAgent, name)]
        if overridden:
            if engine == "core":
                raise SearchOptionError(f"ismcts option engine=core: {type(self).__name__} overrides "
                                        f"{' and '.join(overridden)}, which the core's loop cannot call; use "
                                        "engine=python or engine=auto")
            return None
        if not (core.available() and core.covers(game.rules)):
            why = core.why_unavailable() or f"the compiled core does not cover the {game.rules.variant!r} rules"
            raise SearchOptionError(f"ismcts option engine=core: {why}; use engine=python or engine=auto")
        return Game(game.rules, backend="native")

    def _core_state(self, state):
        """``state`` as a state of the core (a Python state is copied once; a native one is used as it is)."""
        if isinstance(state, State):
            from uno_env.core.native import from_python

            return from_python(self.core_game, state)
        if state._game.rules != self.core_game.rules:
            raise ValueError(f"the ismcts agent searches {self.core_game.rules.variant!r} games; it was handed a "
                             f"state of other rules ({state._game.rules.variant!r})")
        return state

    def seed(self, seed: int | None) -> None:
        """Restart the search's generator."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Not available: a search needs the game state (``act_state``)."""
        raise TypeError("the ismcts agent searches the game state: call act_state(state); the evaluation, play and "
                        "training tools do this for any agent with reads_state = True")

    def _searched_state(self, state):
        """``state`` on the engine the search runs on (copied once where it is not), and its legal actions."""
        if self.core_game is None:
            state = _python_twin(state)
            return state, self.game.legal_actions(state)
        state = self._core_state(state)
        return state, self.core_game.legal_actions(state)

    def act_state(self, state: State) -> int:
        """The most visited root decision after the search, for the seat deciding in ``state``."""
        state, legal = self._searched_state(state)
        self.last_iterations = 0
        self.root_prior, self.hand_weights = {}, None  # an unsearched decision reads neither
        unsearched = self.unsearched_action(state, legal)
        if unsearched is not None:
            return unsearched
        visits = self.root_visits(state)
        return max(legal, key=lambda a: (visits.get(a, 0), -a))

    def prior_of(self, state: State, legal: list[int]) -> dict[int, float]:
        """The guiding policy's probability of each legal action in ``state`` (empty without a ``prior``)."""
        if self.guide is None:
            return {}
        state = _python_twin(state)
        logits = self.guide.logits(self.encoder.encode(state, state.current_seat)).astype(np.float64)
        z = logits[legal]
        p = np.exp(z - z.max())
        return dict(zip(legal, (p / p.sum()).tolist()))

    def unsearched_action(self, state: State, legal: list[int]) -> int | None:
        """The action taken without a search (a forced move, calling UNO, catching), or None."""
        if len(legal) == 1:
            return legal[0]
        obvious = self.obvious.get(state.phase)  # calling UNO and catching never cost anything: no search
        if obvious is not None and obvious in legal:
            return obvious
        return None

    def belief_of(self, state) -> np.ndarray | None:
        """A belief about the other hands for this decision's worlds, read once per searched decision: weights
        (players x card kinds, ``Game.sample_hidden``'s ``kind_weights``) each world's hands are dealt by, or
        None for the uniform deal (the search's own). An extension point: a subclass that overrides it still
        searches in the core. ``state`` is the engine's the search runs on: a native state in the core's loop,
        a Python ``State`` in the Python loop (the public facade, ``ObservationEncoder`` and hand sizes, reads
        either)."""
        return None

    def world(self, state: State, me: int, rng: np.random.Generator) -> State:
        """One iteration's world: ``state`` with what seat ``me`` cannot see redrawn (``Game.sample_hidden``),
        the other hands dealt by ``belief_of`` the root where it gives weights."""
        return self.game.sample_hidden(state, me, rng, share_rng=True, void_weight=self.options["void_weight"],
                                       kind_weights=self.hand_weights)

    def opponent_model(self):
        """``choose(world, legal, rng)`` for the other seats outside the tree, or None when they search."""
        return self.rollout.choose if self.options["opponents"] == "rollout" else None

    def root_visits(self, state: State) -> dict[int, int]:
        """One search from ``state``: how often each of the deciding seat's actions was chosen at the root. The
        guide's prior (``prior_of``) and the belief about the other hands (``belief_of``) are read here, once,
        so a caller of this method (the distillation's teacher) searches as ``act_state`` does."""
        state, legal = self._searched_state(state)
        self.root_prior = self.prior_of(state, legal)
        self.hand_weights = self.belief_of(state)
        if self.core_game is not None:
            return self._core_root_visits(state)
        g = self.game
        opts = self.options
        me = state.current_seat
        root = _Node(-1)
        rng = self.rng
        c = opts["c"]
        limit = opts["rollout_depth"]
        tree_depth = opts["tree_depth"] or math.inf
        deadline = time.perf_counter() + opts["time"] if opts["time"] > 0 else None
        step, legal_of, rollout, obvious, leaf = g.step, g.legal_actions, self.rollout.choose, self.obvious, self.leaf
        world_of, model = self.world, self.opponent_model()
        inside = model or (self.policy_opponent.choose if self.policy_opponent is not None else None)
        prior, weight = self.root_prior, opts["prior_weight"]
        first = max(prior, key=prior.get) if prior and weight > 0 else None  # the guide's choice is expanded first
        done = 0
        for done in range(1, opts["iterations"] + 1):
            world = world_of(state, me, rng)
            node, path = root, []
            while not world.is_over:  # selection, then one expansion
                acts = legal_of(world)
                p = world.current_seat
                if len(acts) == 1:
                    step(world, acts[0])
                    continue
                a = obvious.get(world.phase)
                if a is not None and a in acts:
                    step(world, a)
                    continue
                if inside is not None and p != me:  # opponents=rollout or policy: no node of theirs
                    step(world, inside(world, acts, rng))
                    continue
                if len(path) >= tree_depth:  # deep enough: the rollout policy plays on from here
                    break
                children = node.children
                fresh = [a for a in acts if (p, a) not in children]
                for a in acts:
                    child = children.get((p, a))
                    if child is not None:
                        child.avail += 1
                if fresh:
                    if node is root and first in fresh:
                        a = first
                    else:
                        a = rollout(world, acts, rng)  # the rollout policy's choice is tried first
                        if a not in fresh:
                            a = fresh[int(rng.integers(len(fresh)))]
                    child = children[(p, a)] = _Node(p)
                    child.avail = 1
                    step(world, a)
                    path.append(child)
                    break
                best, best_score = None, -math.inf
                biased = prior and node is root
                for a in acts:
                    child = children[(p, a)]
                    score = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                    if biased:  # progressive bias: the guide's favourites first, fading with visits
                        score += weight * prior.get(a, 0.0) / (child.visits + 1)
                    if score > best_score:
                        best, best_score = a, score
                node = children[(p, best)]
                step(world, best)
                path.append(node)
            moves = 0
            while not world.is_over and moves < limit:  # rollout
                acts = legal_of(world)
                if model is not None and world.current_seat != me and len(acts) > 1:
                    step(world, model(world, acts, rng))
                else:
                    step(world, rollout(world, acts, rng))
                moves += 1
            result = world.returns if world.is_over else leaf(world)
            for node in path:
                node.visits += 1
                node.total += result[node.seat]
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        return {a: ch.visits for (p, a), ch in root.children.items() if p == me}

    def _core_root_visits(self, state) -> dict[int, int]:
        """``root_visits`` by the core's twin of the loop above (uno_env/core/search.cpp), on the same generator."""
        opts = self.options
        prior, weight = self.root_prior, opts["prior_weight"]
        first = max(prior, key=prior.get) if prior and weight > 0 else -1
        dense = [0.0] * self.game.num_actions if prior else []
        for a, p in prior.items():
            dense[a] = p
        belief = [] if self.hand_weights is None else _checked_kind_weights(self.game, state, self.hand_weights)
        visits, done = core._core.ismcts_root_visits(
            self.core_game._tables, state._c, self.rng, opts["iterations"], opts["time"], opts["c"],
            opts["rollout_depth"], opts["void_weight"], opts["opponents"] == "rollout", self.leaf_weights, dense,
            weight, first, opts["tree_depth"], *self._core_opponent(), kind_weights=np.ravel(belief).tolist())
        self.last_iterations = done
        return {a: v for a, v in enumerate(visits.tolist()) if v}

    def _core_opponent(self) -> tuple:
        """The core's arguments for ``opponents=policy``: the layers, whether they are ReLU, the layout."""
        if self.policy_opponent is None:
            return [], False, None
        o = self.policy_opponent
        return o.layers, o.activation == "relu", o.layout


class PolicyOpponent:
    """``opponents=policy``: the other seats' tree decisions by a policy network reading only their own observation.

    The single-observer tree lets an opponent choose by results computed with the searcher's true cards; a policy
    that reads the opponent's observation cannot see them. It plays its highest-logit legal action (the lowest
    action among equal ones), the network evaluated in doubles so that the core's twin (``PolicyOpponent`` in
    uno_env/core/search.cpp) chooses the same.
    """

    def __init__(self, game: Game, agent):
        policy = getattr(agent, "policy", None)
        weights = getattr(policy, "weights", None)
        activation = getattr(policy, "metadata", {}).get("activation", "tanh") if policy is not None else None
        if weights is None or getattr(agent, "scorer", None) is not None or activation not in ACTIVATIONS:
            raise SearchOptionError("ismcts option opponent_policy must name an actor policy file (an MLP with tanh "
                                    f"or relu layers), not {type(agent).__name__}")
        self.layers = [np.asarray(w, dtype=np.float64) for w in weights]
        self.activation = activation  # its name, for the core's twin (which has tanh and relu: ACTIVATIONS' two)
        self.squash = ACTIVATIONS[activation]
        self.encoder = ObservationEncoder(game)
        self.layout = self.encoder.layout()  # handed to the core's twin, which writes the same rows
        self.inputs = self.layers[0].shape[0]

    def choose(self, world: State, legal: list[int], rng: np.random.Generator) -> int:
        h = self.encoder.encode(world, world.current_seat)[:self.inputs].astype(np.float64)
        last = len(self.layers) // 2 - 1
        for i in range(last):
            h = h @ self.layers[2 * i] + self.layers[2 * i + 1]
            h = self.squash(h)
        z = h @ self.layers[2 * last] + self.layers[2 * last + 1]
        return max(legal, key=lambda a: (z[a], -a))


class RolloutPolicy:
    """A fast default policy reading the state directly: shed cards, keep wilds for last, call, catch.

    Plays a coloured card when it can (one of the colour it holds most, action cards first), a wild
    only when nothing else fits, draws last; declares the colour it holds most; plays a drawn card;
    accepts challengeable penalties; stacks and jumps in when it can; always calls and catches.
    """

    def __init__(self, game: Game):
        g = self.game = game
        L = g.layout
        self.L = L
        kinds = self.kinds = KindIndex(g)
        self.num_kinds = kinds.num_kinds
        self.is_wild, self.colour_of, self.is_number = kinds.is_wild, kinds.colour_of, kinds.is_number
        self._colour_counts = kinds.colour_counts
        self.fallbacks = (L.accept, L.pass_, L.draw)

    def choose(self, s: State, legal: list[int], rng: np.random.Generator) -> int:
        """A legal action for the deciding seat of ``s``."""
        if len(legal) == 1:
            return legal[0]
        L = self.L
        phase = s.phase
        if phase is Phase.TURN or phase is Phase.STACK_RESPONSE or phase is Phase.JUMP_IN \
                or phase is Phase.PLAY_OR_KEEP_DRAWN:
            return self._play(s, legal, rng)
        if phase is Phase.CHOOSE_COLOUR:
            counts = self._colour_counts(s.hands[s.current_seat])
            best = max(range(4), key=counts.__getitem__)
            a = L.colour0 + best
            return a if a in legal else legal[int(rng.integers(len(legal)))]
        if phase is Phase.UNO_CALL and L.call in legal:
            return L.call
        if phase is Phase.CATCH and L.catch in legal:
            return L.catch
        if phase is Phase.CHALLENGE_OR_ACCEPT and L.accept in legal:
            return L.accept
        if phase is Phase.MULTI_PLAY:
            plays = [a for a in legal if a != L.pass_]
            return plays[0] if plays else legal[0]
        if phase is Phase.OPTIMUS_PLACE:
            plays = [a for a in legal if a < self.num_kinds and not self.is_wild[a]]
            return plays[0] if plays else L.pass_
        return legal[int(rng.integers(len(legal)))]

    def _play(self, s: State, legal: list[int], rng: np.random.Generator) -> int:
        k = self.num_kinds
        flex0 = self.L.flex0
        coloured, wilds, other = [], [], []
        for a in legal:
            kind = a if a < k else (a - flex0 if flex0 >= 0 and a < 2 * k else -1)
            if kind < 0:
                other.append(a)
            elif self.is_wild[kind]:
                wilds.append(a)
            else:
                coloured.append((a, kind))
        if coloured:
            if len(coloured) == 1:
                return coloured[0][0]
            colour_of, is_number = self.colour_of, self.is_number
            counts = self._colour_counts(s.hands[s.current_seat])
            # most-held colour first, action cards before numbers, then a random tie-break
            best = max(coloured, key=lambda ak: (counts[colour_of[ak[1]]], not is_number[ak[1]], rng.random()))
            return best[0]
        if wilds:
            return wilds[int(rng.integers(len(wilds)))]
        for a in self.fallbacks:  # nothing to place: take the penalty, decline, or draw (never challenge)
            if a in other:
                return a
        return other[0]
