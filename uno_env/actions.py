"""The fixed action space of a rule set, and action strings.

One ``Discrete(size)`` per rule set; the size depends on the variant (its card kinds) and the
variant's maximum seat count, never on the state. Layout, in order:

=====================  ===================  ===========================================
ids                    string               meaning
=====================  ===================  ===========================================
0 .. K-1               ``play <card>``      place a card of kind k (K = deck kinds)
K .. 2K-1 (Flex only)  ``play <card> flex`` place kind k in FLEX mode
next                   ``draw``             draw a card (Attack: ``press``)
+4                     ``colour <C>``       declare colour C (the deck's colour order)
+N-1 (targeted only)   ``target P<seat>``   choose the opponent at relative offset 1..N-1
+1 (Flex, Attack)      ``target P<seat>``   choose oneself (legal only with <variant>.allow_self_target)
+1 each                ``challenge`` ``accept`` ``call`` ``no-call`` ``catch`` ``pass``
=====================  ===================  ===========================================

``pass`` declines an optional opportunity: keep the drawn card, skip a jump-in, stop a
multi-play, don't catch. ``accept`` takes a pending penalty (a challengeable wild, a stack).
Target strings name the absolute seat; the action id holds the offset from the deciding seat.
"""
from __future__ import annotations

from .cards import Deck
from .errors import ActionParseError

#: Bumped whenever the action layout changes (exported policies record it).
ACTION_LAYOUT_VERSION = 1

SPECIAL_WORDS = ("challenge", "accept", "call", "no-call", "catch", "pass")
_SPECIAL_ALIASES = {"no_call": "no-call", "nocall": "no-call", "keep": "pass", "stop": "pass",
                    "take": "accept"}


class AbsoluteTarget(int):
    """The id of ``target P<seat>`` read without a state, which keeps its text.

    Its value is read against the seat that decided last in the game that read it; ``Game.step``
    reads the text again against the state it is applied to, so the right seat is aimed at either way.
    """

    def __new__(cls, action: int, text: str):
        obj = super().__new__(cls, action)
        obj.text = text
        return obj

    def __getnewargs__(self):
        return int(self), self.text


class ActionLayout:
    """Where each kind of action sits in the flat action space."""

    def __init__(self, deck: Deck, max_players: int, flex_plays: bool = False,
                 targets: bool = False, draw_word: str = "draw", self_target: bool = False):
        self.self_target_option = f"{deck.name}.allow_self_target"
        self.deck = deck
        k = deck.num_kinds
        self.num_kinds = k
        self.flex0 = k if flex_plays else -1
        i = 2 * k if flex_plays else k
        self.draw = i
        self.draw_word = draw_word
        self.colour0 = i + 1
        i += 5
        self.num_targets = max_players - 1 if targets else 0
        self.target0 = i if targets else -1
        i += self.num_targets
        self.self_target = i if self_target else -1
        i += 1 if self_target else 0
        (self.challenge, self.accept, self.call, self.no_call,
         self.catch, self.pass_) = range(i, i + 6)
        self.size = i + 6

    def rows(self) -> list[tuple[str, str]]:
        """(id range, meaning) rows describing the layout, for docs and renderers."""
        k = self.num_kinds
        out = [(f"0..{k - 1}", "play <card>, one id per card kind")]
        if self.flex0 >= 0:
            out.append((f"{self.flex0}..{self.flex0 + k - 1}", "play <card> flex"))
        out.append((str(self.draw), self.draw_word))
        colours = " or ".join("/".join(c) for c in self.deck.side_colours or (self.deck.colours,))
        out.append((f"{self.colour0}..{self.colour0 + 3}", "colour " + colours + (" (the active side's)"
                                                                                 if self.deck.side_colours else "")))
        if self.num_targets:
            out.append((f"{self.target0}..{self.target0 + self.num_targets - 1}", "target, relative offset 1.."
                        f"{self.num_targets}"))
        if self.self_target >= 0:
            out.append((str(self.self_target), f"target yourself (only with {self.self_target_option})"))
        for word in SPECIAL_WORDS:
            out.append((str(self.challenge + SPECIAL_WORDS.index(word)), word))
        return out

    def to_string(self, action: int, seat: int | None = None, num_players: int | None = None,
                  colours: tuple[str, ...] | None = None) -> str:
        """Readable form of an action id (targets as absolute seats when the deciding seat is given).

        ``colours``: the colour names to use (Flip: the active side's); default the deck's.
        """
        a = int(action)
        k = self.num_kinds
        names = self.deck.name_of
        if 0 <= a < k:
            return f"play {names[a]}"
        if self.flex0 >= 0 and self.flex0 <= a < self.flex0 + k:
            return f"play {names[a - self.flex0]} flex"
        if a == self.draw:
            return self.draw_word
        if self.colour0 <= a < self.colour0 + 4:
            return f"colour {(colours or self.deck.colours)[a - self.colour0]}"
        if self.num_targets and self.target0 <= a < self.target0 + self.num_targets:
            offset = a - self.target0 + 1
            if seat is None or num_players is None:
                return f"target +{offset}"
            return f"target P{(seat + offset) % num_players}"
        if a == self.self_target >= 0:
            return "target self" if seat is None else f"target P{seat}"
        if self.challenge <= a < self.size:
            return SPECIAL_WORDS[a - self.challenge]
        raise ActionParseError(f"action id {action!r} is outside the action space 0..{self.size - 1}")

    def from_string(self, text: str, seat: int | None = None, num_players: int | None = None,
                    colours: tuple[str, ...] | None = None, side: int = 0) -> int:
        """Action id of an action string (``play R7``, ``colour B``, ``target P2``, ``pass`` …).

        ``colours``: the colour names the state reads (Flip: the active side's); others are refused.
        ``side``: Flip's active side, whose face a whole card (``play A:R7|D:Pk3``) is played by.
        """
        if not isinstance(text, str):
            raise ActionParseError(f"action string expected, got {text!r}")
        words = text.strip().split()
        if not words:
            raise ActionParseError("empty action string; " + self.vocabulary(colours))
        verb = words[0].lower()
        if verb == "play" and len(words) in (2, 3):
            try:
                kind = self._card(words[1], side)
            except ActionParseError:
                raise
            except ValueError as exc:
                raise ActionParseError(f"{text!r}: {exc}") from None
            if len(words) == 3:
                if words[2].lower() != "flex" or self.flex0 < 0:
                    raise ActionParseError(f"{text!r}: unexpected {words[2]!r}; " + self.vocabulary(colours))
                return self.flex0 + kind
            return kind
        if verb in ("draw", "press") and len(words) == 1:
            return self.draw
        if verb in ("colour", "color") and len(words) == 2:
            if colours is not None:
                names = [c.upper() for c in colours]
                if words[1].upper() not in names:
                    raise ActionParseError(f"{text!r}: {words[1]!r} is not a colour of the active side; "
                                           f"allowed: {', '.join(colours)}")
                return self.colour0 + names.index(words[1].upper())
            try:
                return self.colour0 + self.deck.colour_index(words[1])
            except ValueError as exc:
                raise ActionParseError(f"{text!r}: {exc}") from None
        if verb == "target" and len(words) == 2 and self.num_targets:
            return self._target(text, words[1], seat, num_players)
        word = _SPECIAL_ALIASES.get(verb, verb)
        if word in SPECIAL_WORDS and len(words) == 1:
            return self.challenge + SPECIAL_WORDS.index(word)
        raise ActionParseError(f"cannot read action {text!r}; " + self.vocabulary(colours))

    def _card(self, text: str, side: int) -> int:
        """The kind a ``play`` names: a card in notation, or a Flip card written whole as its active face."""
        if "|" not in text or not self.deck.side_colours:
            return self.deck.parse(text)
        faces = [self.deck.parse(part) for part in text.split("|")]
        if len(faces) != 2 or {self.deck.side_of[f] for f in faces} != {0, 1}:
            raise ActionParseError(f"{text!r}: a whole Flip card is written A-face|D-face, one face of each side")
        return next(f for f in faces if self.deck.side_of[f] == side)

    def _target(self, text: str, arg: str, seat: int | None, num_players: int | None) -> int:
        if arg.startswith("+") and arg[1:].isdigit():
            offset = int(arg[1:])
        elif arg.upper().startswith("P") and arg[1:].isdigit():
            if seat is None or num_players is None:
                raise ActionParseError(f"{text!r}: an absolute target needs the state (pass state=...)")
            target = int(arg[1:])
            if not 0 <= target < num_players:
                raise ActionParseError(f"{text!r}: no seat P{target} in a {num_players}-player game")
            offset = (target - seat) % num_players
        elif arg.lower() == "self" and self.self_target >= 0:
            return self.self_target
        else:
            raise ActionParseError(f"{text!r}: a target is written P<seat> or +<offset>")
        if offset == 0 and self.self_target >= 0:
            return self.self_target
        if not 1 <= offset <= self.num_targets:
            raise ActionParseError(f"{text!r}: target offset must be 1..{self.num_targets} (not the deciding seat)")
        return self.target0 + offset - 1

    def vocabulary(self, colours: tuple[str, ...] | None = None) -> str:
        """One line listing the accepted action strings (``colours``: the names in force, default the deck's)."""
        words = ["play <card>"] + (["play <card> flex"] if self.flex0 >= 0 else []) + \
            [self.draw_word, "colour <" + "|".join(colours or self.deck.colours) + ">"] + \
            (["target P<seat>"] if self.num_targets else []) + list(SPECIAL_WORDS)
        return "accepted: " + ", ".join(words)
