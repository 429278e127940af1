"""``uno-env play``: a person plays in the terminal against agents.

Shows only what the person's seat may see (own hand, top card, current colour, direction, every
opponent's card count, a pending penalty, a hand shown to it by a challenge; Flex power cards;
Flip's active side, the opponents' back faces, the draw pile top's back face, the last duel), lists the legal
options numbered, and also accepts typed actions (``play R7``, ``colour B``, ``draw``, ``pass``) or
just a card (``R7``). Every sub-decision is asked. Opponents' actions are narrated with public
information only (their drawn cards are counted, never named); cards entering the person's own hand
are named to them. Bad input re-prompts; ``help`` lists what may be typed; ``quit`` leaves. The end
says who won, with the points.
"""
from __future__ import annotations

import os
import sys
from typing import IO

from uno_env import Game, RuleSet
from uno_env.errors import UnoError, short_repr
from uno_env.observation import ObservationEncoder
from uno_env.records import Recorder
from uno_env.variants.registry import VARIANTS

from agents.levels import LEVELS, is_level, level_of, rate_line

from train.agent_specs import SPEC_FORMS, load_agent
from train.app.play.demo import MAX_SEED, colour_text
from train.arg_types import bounded_int
from train.errors import UsageError
from train.rule_args import add_rule_arguments, rules_from_args

#: Characters of a typed line read at most (the longest action is under 40); the rest of the line is skipped.
MAX_INPUT_CHARS = 200
#: The largest seat of any variant (``--seat``).
MAX_SEAT = max(v.max_players for v in VARIANTS.values()) - 1

#: Said at the start of a two-player game, where the rule surprises people who play with more.
REVERSE_AS_SKIP = "with two players a Reverse acts as a Skip: whoever plays it plays again"

ANSI = {"R": "31", "Y": "33", "G": "32", "B": "34", "Pk": "95", "Tl": "36", "Or": "91", "Pu": "35"}


class Terminal:
    """Reads choices and writes text, with colour when the output is a terminal."""

    def __init__(self, inp: IO[str], out: IO[str], colour: bool | None = None):
        self.inp, self.out = inp, out
        if colour is None:
            colour = hasattr(out, "isatty") and out.isatty() and not os.environ.get("NO_COLOR")
        self.colour = colour

    def say(self, text: str = "") -> None:
        """Print a line."""
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> str | None:
        """One line of input (None at end of input)."""
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline(MAX_INPUT_CHARS + 1)
        if line == "":
            return None
        if len(line) > MAX_INPUT_CHARS and not line.endswith("\n"):  # skip the rest of an overlong line
            while True:
                rest = self.inp.readline(65536)
                if not rest or rest.endswith("\n"):
                    break
        return line.strip()

    def card(self, name: str) -> str:
        """A card name, coloured by its colour letter when colour is on."""
        face = name[2:] if name[1:2] == ":" else name  # Flip: A:R7 / D:Pk7 are coloured by R / Pk
        code = ANSI.get(face[:2]) or ANSI.get(face[:1]) if face[:1] != "W" else None
        return f"\033[{code}m{name}\033[0m" if self.colour and code else name


def describe_view(game: Game, state, seat: int, term: Terminal) -> list[str]:
    """What ``seat`` may see now, as lines."""
    spec = game.to_spec(state)
    n = state.num_players
    direction = "clockwise" if state.direction == 1 else "counter-clockwise"
    colour = colour_text(spec["colour"])
    lines = [f"top {term.card(game.card_name(state.discard[-1]))}   colour {colour}   direction {direction}   "
             f"{'launcher' if game.layout.draw_word == 'press' else 'draw pile'} {len(state.draw_pile)}",
             "opponents: " + ", ".join(f"P{q} {state.hand_size[q]} cards" for q in range(n) if q != seat)]
    if "power" in spec:  # Flex: every power card is public
        lines.append("power cards: " + ", ".join(
            f"{'you' if q == seat else f'P{q}'} {'✓' if spec['power'][q] else '✘'}" for q in range(n)))
    if game.match:
        out = [f"P{q}" for q in range(n) if state.eliminated[q]]
        lines.append(f"match totals {state.scores}" + (f"; out: {', '.join(out)}" if out else ""))
    if game.physical is not None:  # Flip: the side, and the back faces this seat may see (never its own)
        lines += _flip_view(game, state, seat)
    pending = pending_text(game, spec, seat)
    if pending:
        lines.append(pending)
    shown = state.reveals[seat]
    if shown is not None:
        owner, counts = shown
        cards = [game.card_name(k) for k, c in enumerate(counts) for _ in range(c)]
        lines.append(f"P{owner} showed you: {' '.join(term.card(c) for c in cards)}")
    lines.append("your hand: " + " ".join(term.card(c) for c in game.hand_cards(state, seat)))
    return lines


def _flip_view(game: Game, state, seat: int) -> list[str]:
    names = game.deck.name_of
    side = "A (AUTOBOTS)" if state.side == 0 else "D (DÉCEPTICONS)"
    lines = [f"active side {side}"]
    for q in range(state.num_players):
        if q != seat:
            lines.append(f"  P{q}'s back faces: " + " ".join(names[k] for k in sorted(game.physical.backs(state, q))))
    back = game.physical.draw_top_back(state)
    if back >= 0:
        lines.append(f"  draw pile top's back face: {names[back]}")
    if state.duel is not None:
        lines.append("  " + duel_text(game, state))
    return lines


def pending_text(game: Game, spec: dict, seat: int) -> str | None:
    """The pending penalty as said to ``seat`` (``spec``: ``game.to_spec(state)``), or None."""
    pen = (spec["pending"] or {}).get("penalty")
    if not pen:
        return None
    who = "you" if pen["target"] == seat else f"P{pen['target']}"
    amount = f"until {pen['until_colour']}" + (f" + {pen['total']}" if pen["total"] else "") \
        if "until_colour" in pen else pen["total"]
    return (f"pending: {game.layout.draw_word} {amount} for {who}"
            + (" (challengeable)" if pen.get("challengeable") else ""))


def duel_text(game: Game, state) -> str:
    """Flip: the last duel (public: both seats showed their cards to everyone)."""
    names = game.deck.name_of
    kind, p, t, shown_p, shown_t = state.duel
    return (f"last duel ({names[kind]}): P{p} showed {' '.join(names[k] for k in shown_p) or 'no number'}, "
            f"P{t} showed {' '.join(names[k] for k in shown_t) or 'no number'}")


def narrate(state, seat: int, text: str, before_sizes: list[int], me: int,
            my_new_cards: list[str] | None = None) -> list[str]:
    """Public description of ``seat``'s action: what everyone sees, nothing that depends on hidden cards.

    The one private part is for ``me``: ``my_new_cards``, the cards that entered my own hand, are
    named to me (``you drew R7``); any other seat's new cards are only counted.

    Declining (``pass``) and taking a penalty (``accept``) are not narrated by themselves: whether
    such a question was asked at all depends on the decider's cards (a jump-in is offered only to
    a holder of the identical card, a drawn card only when it is playable). Card movements are
    narrated as counts on their own lines, so a penalty reads the same whether it was taken
    automatically or by decision.
    """
    lines = []
    if text not in ("pass", "accept"):
        who = "you" if seat == me else f"P{seat}"
        lines.append(f"{who}: {'draws' if text == 'draw' else 'presses' if text == 'press' else text}")
    for q, (b, a) in enumerate(zip(before_sizes, state.hand_size)):
        if a <= b:
            continue
        if q == me and my_new_cards and len(my_new_cards) == a - b:
            lines.append(f"  you drew {' '.join(my_new_cards)}")
        else:
            lines.append(f"  {'you' if q == me else f'P{q}'} +{a - b} card{'s' if a - b > 1 else ''}")
    return lines


def new_cards(game: Game, state, seat: int, before_counts: list[int], before_side: int) -> list[str]:
    """Names of the cards that entered ``seat``'s hand since ``before_counts`` (its counts per kind)."""
    if state.side != before_side:  # Flip turned the cards over: kinds changed, the difference means nothing
        return []
    after = state.hands[seat]
    return [game.card_name(k) for k, (b, a) in enumerate(zip(before_counts, after)) for _ in range(a - b)]


def help_lines(game: Game, names: list[str], state=None) -> list[str]:
    """What the person may type at a decision: the commands and the forms of actions (colours as ``state`` names them)."""
    card = next((n[5:] for n in names if n.startswith("play ") and " " not in n[5:]), "R7")
    forms = game.layout.vocabulary(game.colour_names(state)).removeprefix("accepted: ")
    numbers = "1" if len(names) == 1 else f"1-{len(names)}"
    return ["you may type:",
            f"  {numbers:<15}  an option's number from the list",
            f"  an action        {forms}",
            f"  a card           short for 'play <card>', e.g. {card}",
            "  help, ?          this list, then the options again",
            "  quit, q, exit    leave the game (the end of input leaves too)"]


def show_options(names: list[str], term: Terminal) -> None:
    """The numbered legal options."""
    for i, name in enumerate(names, 1):
        shown = name
        if name.startswith("play "):
            shown = "play " + term.card(name[5:])
        term.say(f"  {i}) {shown}")


def choose(game: Game, state, term: Terminal) -> int | None:
    """Ask the person for one of the legal actions (None: quit)."""
    legal = game.legal_actions(state)
    names = [game.action_to_string(a, state) for a in legal]
    term.say(f"-- your decision ({state.phase.value}) --")
    show_options(names, term)
    while True:
        answer = term.ask("> ")
        if answer is None or answer.lower() in ("q", "quit", "exit"):
            return None
        if answer.lower() in ("help", "?"):
            for line in help_lines(game, names, state):
                term.say(line)
            show_options(names, term)
            continue
        if answer.isdecimal() and answer.isascii() and len(answer) <= 9 and 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        for text in (answer, "play " + answer):
            try:
                action = game.action_from_string(text, state)
            except UnoError:
                continue
            if action in legal:
                return action
        numbers = "1" if len(legal) == 1 else f"a number 1-{len(legal)}"
        term.say(f"not an option here: {short_repr(answer)}; type {numbers} or an action such as {names[0]!r}"
                 " (help: what may be typed)")


def play_session(rules: RuleSet, opponents: list[str], seat: int, seed: int, term: Terminal,
                 record_path: str | None = None) -> int | None:
    """Play one game with the person in ``seat``; returns the winner (None: no winner or quit)."""
    import agents

    game = Game(rules)
    n = game.num_players
    specs = opponents * (n - 1) if len(opponents) == 1 else opponents
    if len(specs) != n - 1:
        raise UsageError(f"{n} players need {n - 1} opponent{'' if n == 2 else 's'} (or one spec for all), got "
                         f"{len(opponents)}: {' '.join(opponents)}")
    others = [q for q in range(n) if q != seat]
    spec_of = dict(zip(others, specs))
    policies = {q: load_agent(spec_of[q], game, seed=seed + q) for q in others}  # every spec eval takes
    enc = ObservationEncoder(game)
    state = game.new_state(seed)
    rec = Recorder(game, seed, [spec_of.get(q, "human") for q in range(n)], record_path) if record_path else None
    term.say(f"{rules.variant} UNO, {n} players; you are P{seat}. "
             + ", ".join(f"P{q}: {agents.display_name(spec_of[q])}" for q in others))
    for spec in dict.fromkeys(specs):  # each level once, with its measured strength at this table
        if is_level(spec):
            term.say(rate_line(level_of(spec).name, rules.variant, n))
    if n == 2 and game.reverse_as_skip:
        term.say(REVERSE_AS_SKIP)
    while not state.is_over:
        actor = state.current_seat
        if actor == seat:
            term.say("")
            for line in describe_view(game, state, seat, term):
                term.say(line)
            action = choose(game, state, term)
            if action is None:
                term.say("you left the game")
                return None
        else:
            action = agents.choose_action(policies[actor], game, state, enc)
        for line in step_narrated(game, state, action, seat, rec or game, term.card):
            term.say(line)
    term.say(outcome_text(game, state, seat))
    return state.winner


def step_narrated(game: Game, state, action: int, me: int, stepper=None, card=str) -> list[str]:
    """Apply ``action`` (through ``stepper``: the game or a Recorder) and narrate it to ``me`` with public information.

    ``card`` formats the names of cards that entered ``me``'s own hand. A match that dealt its next
    round says so in one line.
    """
    actor = state.current_seat
    text = game.action_to_string(action, state)
    before = list(state.hand_size)
    mine, side = list(state.hands[me]), state.side
    round_index = state.round_index
    (stepper or game).step(state, action)
    if state.round_index != round_index:  # a match dealt its next round
        return [f"{text}: round over, points {state.round_points}, totals {state.scores}; new deal"]
    drawn = [card(c) for c in new_cards(game, state, me, mine, side)]
    return narrate(state, actor, text, before, me, drawn)


def outcome_text(game: Game, state, seat: int) -> str:
    """The last line of a game: who won, with the points, said to the person in ``seat``."""
    w = state.winner
    if w is None:
        return "Game over: no winner" + (" (the step cap was reached)" if state.truncated else
                                         " (blocked: nothing left to draw)")
    if game.match:
        who = "you win the match" if w == seat else f"P{w} wins the match; you lose"
        return f"Game over: {who} with {state.scores[w]} points; totals {state.scores}"
    who = "you win" if w == seat else f"P{w} wins"
    return f"Game over: {who} with {state.round_points[w]} points" + ("" if w == seat else "; you lose")


def add_parser(sub) -> None:
    """Register the ``play`` sub-command."""
    p = sub.add_parser("play", help="play in the terminal against agents",
                       description="Play in the terminal against agents. At a decision, type an option's "
                                   "number, an action (play R7, draw, colour B), a card, help or quit.")
    add_rule_arguments(p, players=2, players_help="number of players, you included")
    p.add_argument("--opponents", nargs="+", default=None, metavar="SPEC",
                   help=f"agent specs, one per opponent or one for all (default: heuristic): {SPEC_FORMS}")
    p.add_argument("--level", choices=list(LEVELS), default=None,
                   help="every opponent at this strength (the spec level:<name>; shown with its measured win rate "
                        "against heuristic); instead of --opponents")
    p.add_argument("--seat", type=bounded_int(0, MAX_SEAT), default=0, help="your seat, 0..players-1")
    p.add_argument("--seed", type=bounded_int(0, MAX_SEED), default=None,
                   help="seeds the deal and the agents, 0 to 2**63 - 1 (default: random)")
    p.add_argument("--record", metavar="FILE", help="append the game to this JSON-lines file (for uno-env replay)")
    p.add_argument("--no-colour", action="store_true", help="plain text, no ANSI colours (also: NO_COLOR=1)")
    p.set_defaults(run=run)


def run(args) -> int:
    """CLI entry."""
    import numpy as np

    rules = rules_from_args(args)
    if not 0 <= args.seat < rules.num_players:
        raise UsageError(f"--seat must be 0..{rules.num_players - 1} with {rules.num_players} players, "
                         f"got {args.seat}")
    if args.level is not None and args.opponents is not None:
        raise UsageError("--level and --opponents both choose the opponents: give one of them")
    opponents = [f"level:{args.level}"] if args.level is not None else args.opponents or ["heuristic"]
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    term = Terminal(sys.stdin, sys.stdout, colour=False if args.no_colour else None)
    play_session(rules, opponents, args.seat, seed, term, args.record)
    return 0
