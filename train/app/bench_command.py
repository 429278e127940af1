"""``uno-env bench``: the command line of the speed measurements (``train/benchmark/throughput.py`` for the engine,
the environments, split and encode; ``learning.py`` for train, ``search.py`` for search, ``parts.py`` for parts)."""
from __future__ import annotations

import argparse

from uno_env import Game

from train.arg_types import bounded_int, positive_float, positive_int
from train.benchmark import throughput
from train.benchmark.contenders import POLICIES
from train.benchmark.learning import MAX_MINIBATCH, SHARED
from train.benchmark.search import MAX_ITERATIONS, MAX_POSITIONS, MAX_ROUNDS
from train.config import MAX_LAYERS
from train.errors import UsageError

#: Units per hidden layer of ``--net`` at most (the shipped networks use 256; at most ``MAX_LAYERS`` layers).
MAX_NET_WIDTH = 4096
#: Decisions per trainer slice (``--native-steps``, ``--sb3-steps``) at most: 30 times the native default.
MAX_SLICE_STEPS = 10_000_000
#: ``--seconds`` per contender at most (an hour).
MAX_SECONDS = 3600.0
#: Player counts ``--players`` may list.
MAX_PLAYER_COUNTS = 16
#: Games in ``encode``'s batch at most (``--games``).
MAX_ENCODE_GAMES = 4096
#: ``--games`` and ``--native-steps`` when not given, per target.
DEFAULT_GAMES = {"encode": [64], "parts": [128]}
DEFAULT_NATIVE_STEPS = {"parts": 60_000}


def add_parser(sub) -> None:
    """Register the ``bench`` sub-command."""
    p = sub.add_parser("bench", help="games/s and decisions/s, side by side with RLCard's UNO",
                       description="Games and decisions per second of this engine and its environments, side by "
                                   "side with RLCard's UNO in one run (interleaved), under a policy matched to "
                                   "RLCard's random agent; 'split' shows where the engine's time per game goes.")
    p.add_argument("target", choices=["engine", "env", "split", "train", "search", "encode", "parts"],
                   help="engine: the Game facade against RLCard's bare game; env: the PettingZoo and "
                        "Gymnasium environments against PettingZoo's RLCard wrapper; split: where the "
                        "engine's time per game goes; train: learning samples/s of the native PPO "
                        "against the SB3 path; search: clones, hidden-information samples, rollouts and "
                        "ismcts iterations per second; encode: the reference and the batched observation "
                        "encoder and mask of VectorGames, µs per sample; parts: CPU µs per learning sample "
                        "of the native PPO, part by part (engine, encode, mask, opponents, forward and "
                        "sampling, bookkeeping, update)")
    p.add_argument("--seconds", type=seconds, default=5.0,
                   help=f"measuring time per contender, at most {MAX_SECONDS:g} (split: about 600 games a second, "
                        f"at most {throughput.MAX_SPLIT_GAMES:,})")
    p.add_argument("--players", type=positive_int, nargs="+", default=[2, 4],
                   help=f"player counts to measure (at most {MAX_PLAYER_COUNTS})")
    p.add_argument("--variant", default="classic", help="variant of this engine (RLCard plays classic)")
    p.add_argument("--policy", choices=POLICIES, default="matched",
                   help="matched: RLCard's random agent's choices; uniform: any legal id")
    p.add_argument("--net", type=bounded_int(1, MAX_NET_WIDTH), nargs="+", default=[256, 256],
                   help=f"train: hidden layer sizes of both trainers' networks, at most {MAX_LAYERS} layers of "
                        f"{MAX_NET_WIDTH} units")
    p.add_argument("--minibatch", type=minibatch_size, default=SHARED["batch_size"],
                   help=f"train: PPO minibatch size of both trainers, 1 to {MAX_MINIBATCH} (default: %(default)s)")
    p.add_argument("--native-steps", type=bounded_int(1, MAX_SLICE_STEPS), default=None,
                   help=f"train, parts: decisions per native PPO slice, at most {MAX_SLICE_STEPS:,} (default: "
                        f"300000 for train, {DEFAULT_NATIVE_STEPS['parts']} for parts)")
    p.add_argument("--sb3-steps", type=bounded_int(1, MAX_SLICE_STEPS), default=16_384,
                   help="train: decisions per SB3 slice, rounded up to whole rollouts, at most "
                        f"{MAX_SLICE_STEPS:,} (default: %(default)s)")
    p.add_argument("--games", type=bounded_int(1, MAX_ENCODE_GAMES), nargs="+", default=None,
                   help=f"encode: games in the batch; parts: the native PPO's num_games; one or more, each at most "
                        f"{MAX_ENCODE_GAMES:,} (default: 64 for encode, 128 for parts)")
    p.add_argument("--rounds", type=bounded_int(1, MAX_ROUNDS), default=3,
                   help=f"train, search, encode, parts: interleaved rounds of one slice per contender, at most {MAX_ROUNDS:,} "
                        "(default: %(default)s)")
    p.add_argument("--iterations", type=bounded_int(1, MAX_ITERATIONS), default=300,
                   help=f"search: ismcts iterations per searched decision, at most {MAX_ITERATIONS:,} "
                        "(default: %(default)s)")
    p.add_argument("--positions", type=bounded_int(1, MAX_POSITIONS), default=500,
                   help=f"search: positions every contender works through per round, at most {MAX_POSITIONS:,} "
                        "(default: %(default)s)")
    p.set_defaults(run=run)


def minibatch_size(text: str) -> int:
    """``--minibatch``: a whole number from 1 to ``MAX_MINIBATCH`` (one SB3 rollout must hold a minibatch)."""
    value = positive_int(text)
    if value > MAX_MINIBATCH:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_MINIBATCH} (the SB3 path's rollout, 8 environments "
                                         f"x 256 steps, must hold a whole minibatch); got {value}")
    return value


def seconds(text: str) -> float:
    """``--seconds``: a number above 0, at most ``MAX_SECONDS``."""
    value = positive_float(text)
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SECONDS:g} (an hour per contender); got {value:g}")
    return value


def run(args) -> int:
    """Run the measurements and print a table."""
    if len(args.players) > MAX_PLAYER_COUNTS:
        raise UsageError(f"--players lists {len(args.players):,} player counts; at most {MAX_PLAYER_COUNTS}")
    if args.target in ("train", "parts") and len(args.net) > MAX_LAYERS:
        raise UsageError(f"--net lists {len(args.net):,} hidden layers; at most {MAX_LAYERS}")
    for players in args.players:  # bad input is refused before any table is printed
        Game(args.variant, num_players=players)
    games = getattr(args, "games", None) or DEFAULT_GAMES.get(args.target, [])
    native_steps = getattr(args, "native_steps", None) or DEFAULT_NATIVE_STEPS.get(args.target, 300_000)
    if args.target == "parts":
        from train.benchmark import parts

        for players in args.players:
            figures = parts.measure(args.variant, players, list(args.net), games, native_steps, args.rounds)
            parts.print_table(figures, args.variant, players, list(args.net), native_steps)
        return 0
    if args.target == "train":
        from train.benchmark import learning

        for players in args.players:
            rows = learning.measure(args.variant, players, list(args.net), native_steps, args.sb3_steps,
                                    args.rounds, args.minibatch)
            learning.print_table(rows, args.variant, players, list(args.net), minibatch=args.minibatch)
        return 0
    if args.target == "search":
        from train.benchmark import search

        for players in args.players:
            rows = search.measure(args.variant, players, args.iterations, args.positions, args.rounds)
            search.print_table(rows, args.variant, players, args.iterations)
        return 0
    if args.target == "encode":
        for players in args.players:
            for batch in games:
                throughput.print_encoder_speed(args.variant, players, batch, args.rounds)
        return 0
    if args.target == "split":
        recorded = min(throughput.MAX_SPLIT_GAMES, max(1, int(args.seconds * 600)))  # about 600 games a second
        for players in args.players:
            throughput.print_split(args.variant, players, recorded, args.policy)
        return 0
    if args.target == "engine":
        throughput.print_engines(args.variant, args.players, args.policy, args.seconds)
    else:
        throughput.print_environments(args.variant, args.players, args.policy, args.seconds)
    return 0
