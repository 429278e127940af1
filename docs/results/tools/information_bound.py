"""How much is hidden information worth? Search agents that cheat, to bound what a fair agent can reach.

Not agents to play with: each sees what a player cannot, to measure what limits the fair ones.

- ``sees_all``: ``ismcts`` (the same search, 300 iterations) whose worlds keep every real hand; only the
  draw pile's order is reshuffled each iteration (nobody could know it). The other seats in the
  tree search too, and see every hand as well.
- ``sees_all_models_heuristic``: the same, and the other seats are moved by the ``heuristic`` agent, in
  the tree and in rollouts (an exact model of those opponents, up to their tie-breaks); 100 iterations.
- ``models_heuristic``: a fair search (sampled worlds, as ``ismcts``) with the other seats moved by
  the ``heuristic``; 100 iterations. It measures the opponent model alone.

Use them wherever an agent spec is accepted, with the repository on ``PYTHONPATH``::

    PYTHONPATH=docs/results/tools uno-env eval --variant classic --players 4 --games 1008 --seed 500000 \\
        --agents information_bound:sees_all heuristic heuristic heuristic

Seeing every hand needs one-sided cards (not Flip, whose backs are a second secret).

And one fair search with a learned belief, to measure how much of that value the public record gives:

- ``belief``: ``ismcts`` whose sampled hands are dealt by a belief, a small network fitted to the
  hands of heuristic-only games (or of games ``--agent`` plays in every seat) from the deciding seat's
  observation, read once per searched decision through the search's ``belief_of`` (the weights
  ``Game.sample_hidden``'s ``kind_weights`` deals by), so the search runs in the core; 300 iterations, or
  ``UNO_BELIEF_ITERATIONS``. Fit one, then play it (the file is read from ``UNO_BELIEF``)::

    python docs/results/tools/information_bound.py fit-belief --games 20000 --out runs/belief-classic-4p.pt
    UNO_BELIEF=runs/belief-classic-4p.pt PYTHONPATH=docs/results/tools uno-env eval --variant classic --players 4 \\
        --games 1008 --seed 500000 --agents information_bound:belief heuristic heuristic heuristic
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch

import agents
from agents.base import choose_action
from agents.search import ISMCTSAgent
from uno_env import Game
from uno_env.observation import ObservationEncoder
from uno_env.state import Phase, State


class SeesAllSearch(ISMCTSAgent):
    """``ismcts`` whose every world is the real state, the draw pile reshuffled."""

    name = "sees-all"

    def __init__(self, game: Game, seed: int | None = None, **options):
        if game.physical is not None:
            raise ValueError("sees_all plays one-sided decks only: Flip's hidden back faces are not reshuffled")
        super().__init__(game, seed, **options)

    def world(self, state: State, me: int, rng: np.random.Generator) -> State:
        """The real state, with the draw pile's order drawn afresh."""
        world = state.clone(rng)
        pile = world.draw_pile
        world.draw_pile = [pile[i] for i in rng.permutation(len(pile)).tolist()]
        return world


class HeuristicModel:
    """``choose(world, legal, rng)``: the move the ``heuristic`` agent makes in ``world``, for its deciding seat."""

    def __init__(self, game: Game, seed: int | None):
        self.game = game
        self.encoder = ObservationEncoder(game)
        self.agent = agents.load("heuristic", game, seed=seed)

    def choose(self, world: State, legal: list[int], rng: np.random.Generator) -> int:
        """The heuristic's action for the seat deciding in ``world``."""
        seat = world.current_seat
        return self.agent.act(self.encoder.encode(world, seat), self.game.legal_action_mask(world))


class ModelsHeuristicSearch(ISMCTSAgent):
    """A fair ``ismcts`` in which the other seats play the ``heuristic`` (outside the tree)."""

    name = "models-heuristic"

    def __init__(self, game: Game, seed: int | None = None, **options):
        super().__init__(game, seed, **options)
        self.model = HeuristicModel(game, seed)

    def opponent_model(self):
        """The heuristic's move for every other seat (its tie-breaks drawn from the search's generator)."""
        self.model.agent.rng = self.rng
        return self.model.choose


class SeesAllModelsHeuristicSearch(SeesAllSearch, ModelsHeuristicSearch):
    """Every hand seen, and the other seats moved by the ``heuristic``."""

    name = "sees-all-models-heuristic"


def sees_all(game: Game, seed: int | None) -> SeesAllSearch:
    """The seeing search, 300 iterations per decision."""
    return SeesAllSearch(game, seed)


def sees_all_models_heuristic(game: Game, seed: int | None) -> SeesAllModelsHeuristicSearch:
    """The seeing search with heuristic opponents, 100 iterations per decision."""
    return SeesAllModelsHeuristicSearch(game, seed, iterations=100)


def models_heuristic(game: Game, seed: int | None) -> ModelsHeuristicSearch:
    """The fair search with heuristic opponents, 100 iterations per decision."""
    return ModelsHeuristicSearch(game, seed, iterations=100)


# -- a learned belief about the other hands: fair, it reads only the deciding seat's observation


def belief_data(game: Game, games: int, seed: int, keep: float = 0.3,
                agent: str = "heuristic") -> dict[str, np.ndarray]:
    """Rows of games ``agent`` plays in every seat (heuristic-only by default): at a share ``keep`` of the turns,
    the deciding seat's observation ``X``, the hidden cards per kind ``U`` (the other hands and the draw pile:
    the pool a deal draws from, but for a rare challenge reveal) and every other hand by relative seat ``Y``."""
    enc, n, k = ObservationEncoder(game), game.num_players, game.num_kinds
    rng = np.random.default_rng(seed)
    xs, us, ys = [], [], []
    for i in range(games):
        players = [agents.load(agent, game, seed=seed * 1000 + i * n + q) for q in range(n)]
        s = game.new_state(seed * 100000 + i)
        while not s.is_over:
            seat = s.current_seat
            obs = enc.encode(s, seat)
            if s.phase is Phase.TURN and rng.random() < keep:
                hands = np.array([s.hands[(seat + r) % n] for r in range(1, n)], dtype=np.float32)
                unseen = hands.sum(0) + np.bincount(s.draw_pile, minlength=k).astype(np.float32)
                xs.append(obs.astype(np.float32))
                us.append(unseen)
                ys.append(hands)
            game.step(s, choose_action(players[seat], game, s, enc))  # a search agent reads the state
    return {"X": np.stack(xs), "U": np.stack(us), "Y": np.stack(ys)}


def belief_net(game: Game) -> torch.nn.Module:
    """Observation -> one log-weight per other seat (relative offset 1..n-1) and card kind."""
    size = ObservationEncoder(game).size
    return torch.nn.Sequential(torch.nn.Linear(size, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                               torch.nn.ReLU(), torch.nn.Linear(256, (game.num_players - 1) * game.num_kinds))


def belief_loss(net: torch.nn.Module, x, unseen, hands) -> torch.Tensor:
    """Cross-entropy per held card of ``P(kind) ~ unseen[kind] * exp(weight)`` (no network: the uniform deal)."""
    log_p = torch.log(unseen.clamp_min(1e-9)).unsqueeze(1)
    if net is not None:
        log_p = log_p + net(x).view(hands.shape)
    log_p = log_p - torch.logsumexp(log_p, -1, keepdim=True)
    return -(hands * log_p).sum() / hands.sum()


def fit_belief(game: Game, data: dict, epochs: int, seed: int = 0) -> tuple[torch.nn.Module, dict]:
    """The belief network fitted to ``data`` (a tenth held out), and its held-out loss beside the uniform deal's."""
    torch.manual_seed(seed)
    x, unseen, hands = (torch.from_numpy(data[key]) for key in ("X", "U", "Y"))
    order = torch.randperm(len(x))
    test, train = order[:len(x) // 10], order[len(x) // 10:]
    net = belief_net(game)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for _ in range(epochs):
        shuffled = train[torch.randperm(len(train))]
        for start in range(0, len(shuffled), 1024):
            rows = shuffled[start:start + 1024]
            loss = belief_loss(net, x[rows], unseen[rows], hands[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        report = {"uniform": belief_loss(None, None, unseen[test], hands[test]).item(),
                  "belief": belief_loss(net, x[test], unseen[test], hands[test]).item()}
    return net, report


class BeliefSearch(ISMCTSAgent):
    """A fair ``ismcts`` that deals the other hands by a fitted belief instead of uniformly."""

    name = "belief"

    def __init__(self, game: Game, seed: int | None = None, belief_file: str | None = None, **options):
        super().__init__(game, seed, **options)
        self.encoder = ObservationEncoder(game)
        self.net = belief_net(game)
        path = belief_file or os.environ.get("UNO_BELIEF", "")
        if not os.path.isfile(path):
            raise ValueError(f"belief file {path!r} not found: fit one with `python docs/results/tools/information_bound.py "
                             "fit-belief --out FILE` and pass it (UNO_BELIEF=FILE)")
        self.net.load_state_dict(torch.load(path, weights_only=True))  # tensors only: no code is unpickled
        self.net.eval()

    def belief_of(self, state) -> np.ndarray:
        """The belief, read once per decision: every iteration's world deals the other hands by it (in the core,
        where it is built: ``belief_of`` is the search's extension point that keeps its loop there)."""
        me, n, k = state.current_seat, self.game.num_players, self.game.num_kinds
        obs = torch.from_numpy(self.encoder.encode(state, me).astype(np.float32))
        with torch.no_grad():
            log_w = self.net(obs).view(n - 1, k).clamp(-8, 8)
        weights = np.ones((n, k))
        for r in range(1, n):
            weights[(me + r) % n] = log_w[r - 1].exp().numpy()
        return weights


def belief(game: Game, seed: int | None, **options) -> BeliefSearch:
    """The belief search, 300 iterations per decision unless ``iterations`` says otherwise (``UNO_BELIEF_ITERATIONS``
    for a spec), its network read from ``UNO_BELIEF``."""
    options.setdefault("iterations", int(os.environ.get("UNO_BELIEF_ITERATIONS", "300")))
    return BeliefSearch(game, seed, **options)


def time_belief(game: Game, belief_file: str, games: int, iterations: int, seed: int = 800000) -> dict:
    """Milliseconds a searched decision of ``ismcts`` and of the belief search at ``iterations``, each position
    searched by both in turn (who goes first alternating), in games the plain search plays against ``heuristic``."""
    plain = ISMCTSAgent(game, seed=1, iterations=iterations)
    believer = BeliefSearch(game, seed=1, belief_file=belief_file, iterations=iterations)
    opponent, encoder = agents.load("heuristic", game, seed=0), ObservationEncoder(game)
    times: dict[str, list[float]] = {"plain": [], "belief": []}
    for i in range(games):
        s = game.new_state(seed + i)
        while not s.is_over:
            if s.current_seat == 0 and len(game.legal_actions(s)) > 1:
                pair = [("plain", plain), ("belief", believer)]
                for name, agent in pair if len(times["plain"]) % 2 else pair[::-1]:
                    start = time.perf_counter()
                    agent.act_state(s)
                    times[name].append(time.perf_counter() - start)
            game.step(s, plain.act_state(s) if s.current_seat == 0 else choose_action(opponent, game, s, encoder))
    return {name: {"decisions": len(t), "mean_ms": 1000 * float(np.mean(t)), "median_ms": 1000 * float(np.median(t))}
            for name, t in times.items()}


def main(argv: list[str] | None = None) -> dict:
    """``fit-belief``: collect games (heuristic-only by default), fit the belief network, save its weights."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    fit = sub.add_parser("fit-belief", help="fit a belief network to the hands of games one agent plays in every seat")
    fit.add_argument("--variant", default="classic")
    fit.add_argument("--players", type=int, default=4)
    fit.add_argument("--games", type=int, default=20000, help="games to learn from")
    fit.add_argument("--agent", default="heuristic", help="the agent spec playing every seat of those games")
    fit.add_argument("--epochs", type=int, default=6)
    fit.add_argument("--seed", type=int, default=7)
    fit.add_argument("--out", required=True, help="where to save the network's weights (torch.save)")
    timing = sub.add_parser("time-belief", help="ms a searched decision with and without a belief, in turn")
    timing.add_argument("--belief", required=True, help="a fitted belief's weights (fit-belief --out)")
    timing.add_argument("--variant", default="classic")
    timing.add_argument("--players", type=int, default=2)
    timing.add_argument("--games", type=int, default=8)
    timing.add_argument("--iterations", type=int, default=10000)
    args = parser.parse_args(argv)
    if args.command == "time-belief":
        report = time_belief(Game(args.variant, args.players), args.belief, args.games, args.iterations)
        for name, row in report.items():
            print(f"{name}: {row['decisions']} decisions, {row['mean_ms']:.1f} ms a decision "
                  f"(median {row['median_ms']:.1f})")
        return report
    game = Game(args.variant, args.players, backend="python")  # it edits states: the Python engine
    if game.physical is not None:
        parser.error("fit-belief: one-sided decks only (Flip's hidden back faces are not card kinds of a hand)")
    data = belief_data(game, args.games, args.seed, agent=args.agent)
    net, report = fit_belief(game, data, args.epochs)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    torch.save(net.state_dict(), args.out)
    report["rows"] = len(data["X"])
    print(f"{report['rows']} rows; held-out cross-entropy per held card: belief {report['belief']:.3f}, "
          f"uniform deal {report['uniform']:.3f} nats; saved {args.out}")
    return report


if __name__ == "__main__":
    main()
