"""``uno-env demo``: play and print one seeded game between random players."""
from __future__ import annotations

import numpy as np

from uno_env import Game, RuleError, RuleSet

from train import shipped_configs
from train.arg_types import bounded_int
from train.rule_args import add_rule_arguments, parse_options

#: Shown instead of the colour while a wild waits for its colour to be declared.
COLOUR_PENDING = "to be chosen"
#: Largest ``--seed`` of ``demo`` and ``play`` (a 64-bit signed int, as records and replays keep it).
MAX_SEED = 2**63 - 1


def add_parser(sub) -> None:
    """Register the ``demo`` sub-command."""
    p = sub.add_parser("demo", help="play and print one seeded game between random players",
                       description="Play and print one seeded game between random players, decision by decision.")
    add_rule_arguments(p, players=4)
    p.add_argument("--seed", type=bounded_int(0, MAX_SEED), default=0,
                   help="seeds the deal and the players' choices, 0 to 2**63 - 1")
    p.add_argument("--rules", metavar="FILE",
                   help="YAML rule config (configs/rules/*.yaml) or a shipped one by name (e.g. classic-house); "
                        "overrides --variant/--players")
    p.set_defaults(run=run)


def colour_text(colour: str | None) -> str:
    """The current colour for printing; ``to be chosen`` while a wild waits for its declaration."""
    return COLOUR_PENDING if colour is None else colour


def run(args) -> int:
    """Play the game and print every decision."""
    if args.rules:
        try:
            rules = RuleSet.from_yaml(shipped_configs.resolve(args.rules, "rules"))
        except RuleError as exc:  # name the file: the message alone does not say where the option came from
            raise RuleError(f"{args.rules}: {exc}") from None
        game = Game(rules, options=parse_options(args.option) or None)
    else:
        game = Game(args.variant, num_players=args.players, **parse_options(args.option))
    state = game.new_state(seed=args.seed)
    rng = np.random.default_rng(args.seed + 1)
    print(f"{game!r}, seed {args.seed}; dealer P{state.dealer}")
    for seat in range(game.num_players):
        print(f"  P{seat}: {' '.join(game.hand_cards(state, seat))}")
    spec = game.to_spec(state)
    print(f"  starter {spec['discard'][-1]} (colour {colour_text(spec['colour'])})\n")
    while not state.is_over:
        seat, phase = state.current_seat, state.phase.value
        legal = game.legal_actions(state)
        action = legal[int(rng.integers(len(legal)))]
        text = game.action_to_string(action, state)
        game.step(state, action)
        print(step_line(game, state, seat, phase, text))
    print(outcome_line(state))
    return 0


def step_line(game, state, seat: int, phase: str, text: str) -> str:
    """One printed line for a decision just applied."""
    top = ""
    if not state.is_over:
        spec = game.to_spec(state)
        top = f"top {spec['discard'][-1]:<5} colour {colour_text(spec['colour'])}  hands {state.hand_size}"
    return f"{state.steps:5d}  P{seat} {phase:<19} {text:<14} {top}"


def outcome_line(state) -> str:
    """How the game ended."""
    decisions = f"{state.steps} decision{'' if state.steps == 1 else 's'}"
    if state.winner is not None:
        return f"\nP{state.winner} wins after {decisions}; round points {state.round_points}"
    why = "truncated at the step cap" if state.truncated else "blocked (nothing left to draw)"
    return f"\nno winner: {why} after {decisions}"
