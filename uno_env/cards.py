"""Card kinds and per-deck lookup tables, loaded from the YAML manifests in ``decks/``.

A *kind* is a card face the rules can tell apart (``R7``, ``W4``, ``G-將``); physical copies of
one kind are interchangeable, so hands are counts per kind and piles are lists of kind ids.
Everything the hot path needs is a flat tuple indexed by kind id.
"""
from __future__ import annotations

import string
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from importlib import resources

from .errors import CardNotationError, RuleError, short_repr
from .safe_yaml import load_file

NO_COLOUR = -1


class Effect(IntEnum):
    """What a card does when placed (the variant's effect table maps these to handlers)."""

    NUMBER = 0
    SKIP = 1
    REVERSE = 2
    DRAW_TWO = 3
    WILD = 4
    WILD_DRAW_FOUR = 5
    # Flex (docs/rules.md §2.2): a flex action's REGULAR effect is its classic twin's
    FLEX_SKIP = 6
    FLEX_REVERSE = 7
    FLEX_DRAW_TWO = 8
    WILD_ALL_FLIP = 9
    WILD_TARGET_DRAW_TWO = 10
    WILD_ALL_DRAW = 11
    # Flip (docs/rules.md §2.3): light (A) and dark (D) faces
    DRAW_ONE = 12
    DRAW_FIVE = 13
    SKIP_EVERYONE = 14
    FLIP = 15
    OPTIMUS = 16
    WILD_DRAW_TWO = 17
    MEGATRON = 18
    WILD_DRAW_COLOUR = 19
    # Attack (docs/rules.md §2.4)
    DISCARD_ALL = 20
    HIT_ONE = 21
    HIT_TWO = 22
    WILD_ATTACK = 23


_EFFECT_NAMES = {e.name.lower(): e for e in Effect}


@dataclass(frozen=True)
class CardKind:
    """One distinguishable card face."""

    index: int
    name: str          # canonical notation, e.g. "R+2", "R-Q", "G-將", "W4"
    colour: int        # 0..3 into Deck.colours, or NO_COLOUR for wilds
    rank: str          # matching class (CORE-9 iii); unique per wild kind
    effect: Effect
    points: int
    count: int         # copies in the deck
    flex_colour: int = NO_COLOUR  # Flex: the second ("靈變") colour of a flex card
    flip_icon: bool = False       # Flex: a classic number card carrying the flip icon
    side: int = 0                 # Flip: 0 = light (A) face, 1 = dark (D) face

    @property
    def is_wild(self) -> bool:
        """True for colourless cards."""
        return self.colour == NO_COLOUR


class Deck:
    """Immutable description of one variant's deck, with flat lookup tables."""

    def __init__(self, name: str, colours: tuple[str, ...], kinds: tuple[CardKind, ...],
                 aliases: dict[str, int], side_colours: tuple[tuple[str, ...], ...] = ()):
        self.name = name
        self.colours = colours
        self.kinds = kinds
        self.num_kinds = len(kinds)
        # Flip: each side's colour names (a colour index is read on the active side); () for one-sided decks
        self.side_colours = side_colours
        self.side_of = tuple(k.side for k in kinds)
        # physical cards: a two-sided deck has as many cards as faces on one side
        self.size = sum(k.count for k in kinds if k.side == 0)
        self.colour_of = tuple(k.colour for k in kinds)
        self.effect_of = tuple(k.effect for k in kinds)
        self.points_of = tuple(k.points for k in kinds)
        self.count_of = tuple(k.count for k in kinds)
        self.is_wild = tuple(k.is_wild for k in kinds)
        self.name_of = tuple(k.name for k in kinds)
        ranks = sorted({k.rank for k in kinds}, key=lambda r: min(k.index for k in kinds if k.rank == r))
        self.rank_names = tuple(ranks)
        self.rank_of = tuple(ranks.index(k.rank) for k in kinds)
        self.kinds_of_colour = tuple(
            tuple(k.index for k in kinds if k.colour == c) for c in range(len(colours)))
        self.kinds_of_rank = tuple(
            tuple(k.index for k in kinds if self.rank_of[k.index] == r) for r in range(len(ranks)))
        self.wild_kinds = tuple(k.index for k in kinds if k.is_wild)
        self.flex_colour_of = tuple(k.flex_colour for k in kinds)
        self.flip_icon_of = tuple(k.flip_icon for k in kinds)
        self.kinds_of_flex_colour = tuple(
            tuple(k.index for k in kinds if k.flex_colour == c) for c in range(len(colours)))
        self._aliases = aliases

    def parse(self, text: str) -> int:
        """Kind id of a card written in notation (canonical or an accepted alias)."""
        if not isinstance(text, str):
            raise CardNotationError(f"card {text!r} must be a string in card notation, e.g. {self.name_of[0]!r}")
        key = text.strip()
        kind = self._aliases.get(key)
        if kind is None:
            kind = self._aliases.get(key.upper())
        if kind is None:
            examples = ", ".join(self.name_of[i] for i in (0, len(self.kinds) // 2, -1))
            raise CardNotationError(
                f"{text!r} is not a card of the {self.name} deck (examples: {examples}; "
                f"colours {', '.join(self.colours)})")
        return kind

    def colour_index(self, text: str) -> int:
        """Colour id of a colour letter such as 'R' (Flip: either side's names, e.g. 'Pk')."""
        key = str(text).strip().upper()
        for names in self.side_colours or (self.colours,):
            for i, c in enumerate(names):
                if c.upper() == key:
                    return i
        allowed = " / ".join(", ".join(names) for names in self.side_colours or (self.colours,))
        raise CardNotationError(f"{text!r} is not a colour of the {self.name} deck; allowed: {allowed}")


def _build_deck(manifest: dict, source: str) -> Deck:
    if isinstance(manifest, dict) and "sides" in manifest:
        return _build_two_sided(manifest, source)
    try:
        name = str(manifest["name"])
        colours = tuple(str(c) for c in manifest["colours"])
        coloured = manifest.get("coloured", [])
        wild = manifest.get("wild", [])
    except (KeyError, TypeError) as exc:
        raise RuleError(f"deck manifest {source}: missing or malformed key {short_repr(str(exc))}") from None
    kinds: list[CardKind] = []
    aliases: dict[str, int] = {}

    def add(kind: CardKind, spellings: list[str]) -> None:
        if not 0 <= kind.count <= MAX_DECK_CARDS:
            raise RuleError(f"deck manifest {source}: card {short_repr(kind.name)} has count {short_repr(kind.count)}; "
                            f"allowed: 0..{MAX_DECK_CARDS}")
        if len(kinds) >= MAX_DECK_KINDS or sum(k.count for k in kinds) + kind.count > MAX_DECK_CARDS:
            raise RuleError(f"deck manifest {source}: more than {MAX_DECK_KINDS:,} kinds of card or "
                            f"{MAX_DECK_CARDS:,} cards; a deck may hold at most that many")
        kinds.append(kind)
        for s in spellings:
            if s in aliases and aliases[s] != kind.index:
                raise RuleError(f"deck manifest {source}: spelling {short_repr(s)} names two cards")
            aliases[s] = kind.index
            aliases.setdefault(s.upper(), kind.index)

    for ci, colour in enumerate(colours):
        for entry in coloured:
            effect = _effect(entry, source)
            label = str(entry["label"])
            sep = str(entry.get("sep", ""))
            glyphs = {str(k): str(v) for k, v in (entry.get("glyphs") or {}).items()}
            shown = glyphs.get(colour, label)
            offset = entry.get("flex_offset")
            flex = NO_COLOUR if offset is None else (ci + int(offset)) % len(colours)
            if "notation" in entry:  # a template, e.g. "{colour}{label}~{flex}" for Flex's "Y4~G"
                fields = {"colour": colour, "label": label, "flex": colours[flex] if flex >= 0 else ""}
                templates = [str(entry["notation"]), *(str(a) for a in entry.get("alias_notation", []))]
                for tpl in templates:
                    _check_template(tpl, source)
                spellings = [tpl.format(**fields) for tpl in templates]
                card_name = spellings[0]
            else:
                labels = [label, *glyphs.values(), *(str(a) for a in entry.get("aliases", []))]
                spellings = [f"{colour}{sep}{lab}" for lab in dict.fromkeys([shown, *labels])]
                card_name = f"{colour}{sep}{shown}"
            add(CardKind(len(kinds), card_name, ci, str(entry["rank"]), effect, int(entry["points"]),
                         int(entry["count"]), flex, bool(entry.get("flip_icon", False))), spellings)
    for entry in wild:
        nm = str(entry["name"])
        add(CardKind(len(kinds), nm, NO_COLOUR, "wild:" + nm, _effect(entry, source),
                     int(entry["points"]), int(entry["count"])),
            [nm, *(str(a) for a in entry.get("aliases", []))])
    return Deck(name, colours, tuple(kinds), aliases)


def _build_two_sided(manifest: dict, source: str) -> Deck:
    """A Flip deck: the faces of both sides as one kind list (side A first), names prefixed ``A:`` / ``D:``."""
    try:
        name = str(manifest["name"])
        sides = list(manifest["sides"])
        if len(sides) != 2:
            raise ValueError("sides must list exactly two sides (A, then D)")
        faces = [_build_deck({"name": name, **{k: v for k, v in side.items() if k != "prefix"}}, source)
                 for side in sides]
        prefixes = [str(side["prefix"]) for side in sides]
    except (KeyError, TypeError, ValueError) as exc:
        raise RuleError(f"deck manifest {source}: malformed two-sided deck ({short_repr(str(exc))})") from None
    if faces[0].size != faces[1].size:
        raise RuleError(f"deck manifest {source}: side A has {faces[0].size} faces but side D {faces[1].size}; "
                        f"every physical card has one face per side")
    if faces[0].num_kinds != faces[1].num_kinds:  # the observation's per-side face blocks have one size
        raise RuleError(f"deck manifest {source}: side A lists {faces[0].num_kinds} kinds of face but side D "
                        f"{faces[1].num_kinds}; both sides must list the same number")
    kinds: list[CardKind] = []
    aliases: dict[str, int] = {}
    for side, (deck, prefix) in enumerate(zip(faces, prefixes)):
        offset = len(kinds)
        for k in deck.kinds:
            shown = k.name if k.is_wild else prefix + k.name  # docs/rules.md §0.3: A:R7, D:Pk-SE, but OPT, WDC
            kinds.append(CardKind(offset + k.index, shown, k.colour, f"{prefix}{k.rank}", k.effect, k.points,
                                  k.count, side=side))
        for spelling, index in deck._aliases.items():
            for s in (spelling, prefix + spelling, (prefix + spelling).upper()):
                if aliases.setdefault(s, offset + index) != offset + index:
                    raise RuleError(f"deck manifest {source}: spelling {short_repr(s)} names two cards")
    return Deck(name, faces[0].colours, tuple(kinds), aliases, side_colours=(faces[0].colours, faces[1].colours))


def _check_template(template: str, source: str) -> None:
    """A notation template may name {colour}, {label} and {flex}, without format specs (``{label:>999999999}``)."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise RuleError(f"deck manifest {source}: notation template {short_repr(template)} is malformed ({exc})") \
            from None
    for _, name, spec, conversion in parts:
        if name is not None and (name not in ("colour", "label", "flex") or spec or conversion):
            raise RuleError(f"deck manifest {source}: notation template {short_repr(template)} uses the field "
                            f"{short_repr('{' + name + (':' + spec if spec else '') + '}')}; allowed: {{colour}}, "
                            "{label}, {flex}, nothing else inside the braces")


def _effect(entry: dict, source: str) -> Effect:
    try:
        return _EFFECT_NAMES[str(entry["effect"])]
    except KeyError:
        raise RuleError(f"deck manifest {source}: unknown effect {short_repr(entry.get('effect'))}; "
                        f"allowed: {', '.join(_EFFECT_NAMES)}") from None


#: What a deck manifest holds (the end of the message about an empty one).
MANIFEST_CONTENT = "a deck manifest: a mapping with name, colours, coloured and wild (or name and sides)"
#: Kinds of card face a deck may list, and physical cards it may hold (the packaged decks: at most 272 cards).
MAX_DECK_KINDS = 1_000
MAX_DECK_CARDS = 10_000


@lru_cache(maxsize=None)
def load_deck(name: str) -> Deck:
    """Deck of a packaged manifest (``uno_env/decks/<name>.yaml``)."""
    path = resources.files("uno_env") / "decks" / f"{name}.yaml"
    return build_deck(load_file(path, MANIFEST_CONTENT), str(path))


def load_deck_file(path: str) -> Deck:
    """Deck of a manifest file outside the package (a replacement manifest).

    The file is read by ``uno_env.safe_yaml.load_file`` (bounded, no anchors or aliases:
    ``YamlFileError``); a manifest that does not describe a deck raises ``RuleError``.
    """
    return build_deck(load_file(path, MANIFEST_CONTENT), str(path))


def build_deck(manifest, source: str) -> Deck:
    """The deck a manifest's data describes; ``RuleError`` naming ``source`` for anything malformed."""
    if not isinstance(manifest, dict):
        raise RuleError(f"deck manifest {source}: expected {MANIFEST_CONTENT}; got {short_repr(manifest)}")
    try:
        deck = _build_deck(manifest, source)
    except RuleError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        raise RuleError(f"deck manifest {source}: malformed ({type(exc).__name__}: {short_repr(str(exc))}); "
                        f"expected {MANIFEST_CONTENT}, as in uno_env/decks/*.yaml") from None
    return deck
