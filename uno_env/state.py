"""Mutable game state: piles, hands, whose decision it is, and what is pending.

The state is plain data. The rules that change it live in ``turn.py`` (the shared turn
machine) and the variant modules; ``Game`` (``game.py``) is the public facade.
"""
from __future__ import annotations

from enum import Enum

import numpy as np


class Phase(str, Enum):
    """Kind of decision the deciding seat faces. Compares equal to its name (``phase == "TURN"``)."""

    TURN = "TURN"                                # play a card or draw
    CHOOSE_COLOUR = "CHOOSE_COLOUR"              # declare the colour of a wild (also the starter wild)
    PLAY_OR_KEEP_DRAWN = "PLAY_OR_KEEP_DRAWN"    # play the card just drawn, or keep it
    CHALLENGE_OR_ACCEPT = "CHALLENGE_OR_ACCEPT"  # victim of a restricted wild: challenge or take the penalty
    STACK_RESPONSE = "STACK_RESPONSE"            # target of a draw penalty: stack, deflect, challenge or take
    UNO_CALL = "UNO_CALL"                        # call UNO after a placement that left one card
    CATCH = "CATCH"                              # an opponent may catch a player who did not call
    JUMP_IN = "JUMP_IN"                          # a holder of an identical card may jump in
    MULTI_PLAY = "MULTI_PLAY"                    # continue placing cards of the same rank, or stop
    GAME_OVER = "GAME_OVER"                      # nobody decides any more
    # phases of single variants (after the common ones, so the common observation layout is stable)
    CHOOSE_TARGET = "CHOOSE_TARGET"              # Flex: the opponent a targeted FLEX wild hits; Flip: a duel opponent
    OPTIMUS_PLACE = "OPTIMUS_PLACE"              # Flip: the Optimus duel winner places a card under it, or stops

    def __str__(self) -> str:
        return self.value


class Penalty:
    """A pending draw penalty (Draw Two / WD4, possibly stacked or deflected)."""

    __slots__ = ("total", "target", "last_effect", "challenge", "resume", "until", "origin", "cards", "deflected")

    def __init__(self, total: int, target: int, last_effect: int, challenge: tuple | None, resume: int = -1,
                 until: int = -1, origin: int = -1, cards: int = 1, deflected: bool = False):
        self.total = total              # cards the final target draws
        self.target = target            # seat that must respond now
        self.last_effect = last_effect  # effect of the last draw card added (same_value stacking)
        self.challenge = challenge      # (offender, guilty) while the top card is a challengeable wild
        self.resume = resume            # seat whose turn follows, or -1: the seat after the one who drew
        self.until = until              # Flip's Wild Draw Colour: draw until this colour first, -1: no
        self.origin = origin            # seat that played the first card of the penalty (a stack's first)
        self.cards = cards              # cards in the penalty (a stack of several: Attack's Mass Hit)
        self.deflected = deflected      # a Skip/Reverse has passed it on (HR-4): no challenge from then on

    def copy(self) -> "Penalty":
        """Independent copy."""
        return Penalty(self.total, self.target, self.last_effect, self.challenge, self.resume, self.until,
                       self.origin, self.cards, self.deflected)

    def as_dict(self) -> dict:
        """Plain description for ``to_spec``."""
        d = {"total": self.total, "target": self.target}
        if self.cards > 1:
            d["cards"] = self.cards
        if self.until >= 0:
            d["until_colour"] = self.until
        if self.challenge is not None:
            d["challengeable"] = True
        if self.deflected:
            d["deflected"] = True
        return d


class State:
    """Everything about one game in progress. Created by ``Game.new_state`` or ``Game.state_from_spec``."""

    __slots__ = (
        "num_players", "hands", "hand_size", "draw_pile", "discard", "colour", "direction",
        "turn_seat", "current_seat", "phase", "agenda", "waiting", "next_seat", "penalty",
        "drawn_kind", "multi", "jump", "ref_colour", "colour_declarer", "reveals",
        "winner", "is_over", "truncated", "blocked", "scores", "round_points", "round_winner",
        "dealer", "round_index", "steps", "idle_turns", "progress", "rng", "legal",
        "power", "flex_play", "target",
        "side", "deck_cards", "physical_draw", "physical_discard", "physical_hands", "duel",
        "launcher_rng", "launcher_script", "eliminated", "voids", "last_played", "shown",
    )

    def __init__(self, num_players: int, num_kinds: int, rng: np.random.Generator):
        n = num_players
        self.num_players = n
        self.hands = [[0] * num_kinds for _ in range(n)]   # counts per card kind
        self.hand_size = [0] * n
        self.draw_pile: list[int] = []   # kind ids, top of the pile = last element
        self.discard: list[int] = []     # kind ids, top card = last element
        self.colour = 0                  # current colour (index into the deck's colours)
        self.direction = 1               # +1 clockwise, -1 counter-clockwise
        self.turn_seat = 0               # seat whose turn it is
        self.current_seat = 0            # seat that must decide now (-1 once the game is over)
        self.phase = Phase.TURN
        self.agenda: list[tuple] = []    # pending steps of the turn machine, last = next
        self.waiting: tuple | None = None  # the agenda step waiting for the current decision
        self.next_seat = 0               # seat whose turn starts when this turn ends
        self.penalty: Penalty | None = None
        self.drawn_kind = -1             # card just drawn (PLAY_OR_KEEP_DRAWN)
        self.multi: list | None = None   # [rank, cards placed so far] during a multi-play
        self.jump: tuple | None = None   # (kind, placer) that opens a jump-in window at turn end
        self.ref_colour = 0              # current colour before the last placement (restricted wilds)
        self.colour_declarer = -1        # seat that declared the current colour, -1 if a coloured card set it
        self.reveals: list = [None] * n  # per seat: (shown seat, tuple of counts per kind) last shown to it
        self.winner: int | None = None   # game winner (None while running, on a blocked round or truncation)
        self.is_over = False
        self.truncated = False
        self.blocked = False             # the last round ended blocked (CORE-12)
        self.scores = [0] * n            # match scores
        self.round_points = [0] * n      # points each seat gained in the last finished round
        self.round_winner: int | None = None
        self.dealer = 0
        self.round_index = 0
        self.steps = 0                   # decisions taken so far
        self.idle_turns = 0              # consecutive turns with no card placed or received
        self.progress = False            # a card was placed or received during this turn
        self.rng = rng
        self.legal: list[int] | None = None  # cached legal actions of the current decision
        self.power = [True] * n          # Flex power cards: True = ✓ (may flex), False = ✘
        self.flex_play = False           # Flex: the placement being resolved is in FLEX mode
        self.target = -1                 # seat chosen by the last CHOOSE_TARGET decision
        # Flip: physical two-sided cards (codes a * K + d of the A face a and D face d), kept beside the
        # active faces above: the piles in the same order, each hand in the order its cards arrived
        self.side = 0                    # active side: 0 = A (AUTOBOTS), 1 = D (DÉCEPTICONS)
        self.deck_cards: tuple = ()      # the game's 112 physical cards (its pairing of faces)
        self.physical_draw: list[int] = []
        self.physical_discard: list[int] = []
        self.physical_hands: list[list[int]] = []
        self.duel: tuple | None = None   # last duel, public: (kind, originator, target, shown_o, shown_t)
        # Attack: the card launcher's own random stream (burst sizes) and a scripted queue of them
        self.launcher_rng: np.random.Generator | None = None
        self.launcher_script: list[int] = []
        self.eliminated: list[bool] = [False] * n  # Attack's elimination mode: seats out of the match
        # public history of this round (observation block ``history``; rebuilt only by replaying decisions)
        self.voids = [0] * n             # per seat: bit c set = it drew on colour c since it last played c
        self.last_played = [-1] * n      # per seat: colour of its last placed card, 4 = a wild, -1 = none yet
        # cards shown during this round and still held: [observer (-1 = every seat), holder, counts per kind]
        # (a challenge reveal, a Flip duel); what ``Game.sample_hidden`` keeps with their holder
        self.shown: list[list] = []

    @property
    def returns(self) -> list[float]:
        """Per-seat outcome: winner +1, every other seat -1/(n-1); all 0 while running or without a winner."""
        n = self.num_players
        if self.winner is None:
            return [0.0] * n
        lose = -1.0 / (n - 1)
        return [1.0 if i == self.winner else lose for i in range(n)]

    @property
    def top_card(self) -> int:
        """Kind id of the discard pile's top card."""
        return self.discard[-1]

    def clone(self, rng: np.random.Generator | None = None) -> "State":
        """Independent deep copy, including the random generators' positions (or both set to ``rng``)."""
        other = State.__new__(State)
        for name in State.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = [h[:] for h in self.hands]
        other.hand_size = self.hand_size[:]
        other.draw_pile = self.draw_pile[:]
        other.discard = self.discard[:]
        other.agenda = self.agenda[:]
        other.penalty = self.penalty.copy() if self.penalty is not None else None
        other.multi = self.multi[:] if self.multi is not None else None
        other.reveals = self.reveals[:]
        other.power = self.power[:]
        other.physical_draw = self.physical_draw[:]
        other.physical_discard = self.physical_discard[:]
        other.physical_hands = [h[:] for h in self.physical_hands]
        other.scores = self.scores[:]
        other.round_points = self.round_points[:]
        other.legal = self.legal[:] if self.legal is not None else None
        if rng is not None:
            other.rng = rng
            if self.launcher_rng is not None:
                other.launcher_rng = rng
        else:
            other.rng = _copy_generator(self.rng)
            if self.launcher_rng is not None:
                other.launcher_rng = _copy_generator(self.launcher_rng)
        other.launcher_script = self.launcher_script[:]
        other.eliminated = self.eliminated[:]
        other.voids = self.voids[:]
        other.last_played = self.last_played[:]
        other.shown = [[o, h, c[:]] for o, h, c in self.shown] if self.shown else []
        return other


def _copy_generator(rng: np.random.Generator) -> np.random.Generator:
    # seeded with 0, not from OS entropy: the state is overwritten at once, and entropy costs microseconds
    bitgen = type(rng.bit_generator)(0)
    bitgen.state = rng.bit_generator.state
    return np.random.Generator(bitgen)
