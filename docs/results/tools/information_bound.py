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
  hands of heuristic-only games from the deciding seat's observation (``Game.sample_hidden``'s
  ``kind_weights``). Fit one, then play it (the file is read from ``UNO_BELIEF``)::

    python docs/results/tools/information_bound.py fit-belief --games 20000 --out runs/belief-classic-4p.pt
    UNO_BELIEF=runs/belief-classic-4p.pt PYTHONPATH=docs/results/tools uno-env eval --variant classic --players 4 \\
        --games 1008 --seed 500000 --agents information_bound:belief heuristic heuristic heuristic
"""
from __future__ import annotations

import argparse
import os

import numpy as np
import torch

import agents
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


def belief_data(game: Game, games: int, seed: int, keep: float = 0.3) -> dict[str, np.ndarray]:
    """Rows of heuristic-only games: at a share ``keep`` of the turns, the deciding seat's observation
    ``X``, the hidden cards per kind ``U`` (the other hands and the draw pile: the pool a deal draws
    from, but for a rare challenge reveal) and every other hand by relative seat ``Y``."""
    enc, n, k = ObservationEncoder(game), game.num_players, game.num_kinds
    rng = np.random.default_rng(seed)
    xs, us, ys = [], [], []
    for i in range(games):
        players = [agents.load("heuristic", game, seed=seed * 1000 + i * n + q) for q in range(n)]
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
            game.step(s, players[seat].act(obs, game.legal_action_mask(s)))
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
        self.weights = None

    def root_visits(self, state: State) -> dict[int, int]:
        """The belief is read once per decision, then every iteration deals by it."""
        me, n, k = state.current_seat, self.game.num_players, self.game.num_kinds
        obs = torch.from_numpy(self.encoder.encode(state, me).astype(np.float32))
        with torch.no_grad():
            log_w = self.net(obs).view(n - 1, k).clamp(-8, 8)
        self.weights = np.ones((n, k))
        for r in range(1, n):
            self.weights[(me + r) % n] = log_w[r - 1].exp().numpy()
        return super().root_visits(state)

    def world(self, state: State, me: int, rng: np.random.Generator) -> State:
        """``state`` with the other hands dealt by the belief (and the ``void_weight`` option, if set)."""
        return self.game.sample_hidden(state, me, rng, share_rng=True, void_weight=self.options["void_weight"],
                                       kind_weights=self.weights)


def belief(game: Game, seed: int | None) -> BeliefSearch:
    """The belief search, 300 iterations per decision, its network read from ``UNO_BELIEF``."""
    return BeliefSearch(game, seed)


def main(argv: list[str] | None = None) -> dict:
    """``fit-belief``: collect heuristic games, fit the belief network, save its weights."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    fit = sub.add_parser("fit-belief", help="fit a belief network to heuristic-only games")
    fit.add_argument("--variant", default="classic")
    fit.add_argument("--players", type=int, default=4)
    fit.add_argument("--games", type=int, default=20000, help="heuristic-only games to learn from")
    fit.add_argument("--epochs", type=int, default=6)
    fit.add_argument("--seed", type=int, default=7)
    fit.add_argument("--out", required=True, help="where to save the network's weights (torch.save)")
    args = parser.parse_args(argv)
    game = Game(args.variant, args.players, backend="python")  # it edits states: the Python engine
    if game.physical is not None:
        parser.error("fit-belief: one-sided decks only (Flip's hidden back faces are not card kinds of a hand)")
    data = belief_data(game, args.games, args.seed)
    net, report = fit_belief(game, data, args.epochs)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    torch.save(net.state_dict(), args.out)
    report["rows"] = len(data["X"])
    print(f"{report['rows']} rows; held-out cross-entropy per held card: belief {report['belief']:.3f}, "
          f"uniform deal {report['uniform']:.3f} nats; saved {args.out}")
    return report


if __name__ == "__main__":
    main()
