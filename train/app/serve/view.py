"""The JSON the page draws: what one seat may see of a game (or, for a replay, the whole table).

A seat's view holds only public information and what that seat privately knows (docs/rules.md §1.13,
the same as the terminal player shows): its own hand, the top card and current colour, the
direction, every seat's card count, the pile's size, a pending penalty, a hand shown to it by a
challenge; Flex power cards; Flip's active side, the opponents' back faces, the draw pile top's
back face and the last duel; whose turn it is and which seat decides now (``deciding``: not always
the seat whose turn it is, e.g. the victim of a Wild Draw Four decides whether to challenge). An
opponent is named as deciding only when everyone knows it decides: a jump-in, a drawn card to play
or keep, another card of a multi-play, an Optimus placement and a penalty that can only be stacked
are offered only to a seat holding such a card, so saying who decides would tell what it holds.
"""
from __future__ import annotations

from uno_env import Game
from uno_env.cards import Effect
from uno_env.records import outcome_of

from train.app.play.demo import colour_text, outcome_line
from train.app.play.terminal import duel_text, outcome_text, pending_text

#: What the ``pass`` action means, said on its button, per phase.
PASS_LABELS = {"PLAY_OR_KEEP_DRAWN": "keep the drawn card", "JUMP_IN": "don't jump in", "MULTI_PLAY": "stop",
               "OPTIMUS_PLACE": "stop placing", "CATCH": "don't catch"}

#: The question of each phase, shown above its buttons.
PROMPTS = {"TURN": "your turn: play a highlighted card or draw", "CHOOSE_COLOUR": "choose a colour",
           "PLAY_OR_KEEP_DRAWN": "play the card you drew, or keep it",
           "CHALLENGE_OR_ACCEPT": "challenge the wild, or accept the penalty",
           "STACK_RESPONSE": "answer the penalty with a card, or accept it", "UNO_CALL": "call UNO?",
           "CATCH": "catch the player who did not call UNO?", "JUMP_IN": "jump in with an identical card?",
           "MULTI_PLAY": "play another card of the same rank, or stop", "CHOOSE_TARGET": "choose a target",
           "OPTIMUS_PLACE": "place a card under Optimus, or stop"}


#: A phase whose decider everyone knows (whatever the cards held): the seat is named to every viewer, as doing this.
PUBLIC_DECISIONS = {"TURN": "plays or draws", "CHOOSE_COLOUR": "chooses a colour", "UNO_CALL": "may call UNO",
                    "CATCH": "may catch the player who did not call UNO", "CHOOSE_TARGET": "chooses a target"}

#: A phase offered only to a seat holding some card (or one answering a penalty, public only while challengeable):
#: the seat is named to itself and in replays, as doing this.
PRIVATE_DECISIONS = {"PLAY_OR_KEEP_DRAWN": "plays or keeps the drawn card",
                     "CHALLENGE_OR_ACCEPT": "may challenge the wild or accept the penalty",
                     "STACK_RESPONSE": "answers the penalty", "JUMP_IN": "may jump in",
                     "MULTI_PLAY": "may play another card of the same rank",
                     "OPTIMUS_PLACE": "places cards under Optimus"}


#: What the page prints on a card of each effect (a number card shows its own label); words in the card's tooltip.
FACES = {Effect.SKIP: ("⊘", "skip"), Effect.REVERSE: ("⇄", "reverse"), Effect.DRAW_TWO: ("+2", "draw two"),
         Effect.WILD: ("★", "wild"), Effect.WILD_DRAW_FOUR: ("★+4", "wild draw four"),
         Effect.FLEX_SKIP: ("⊘", "flex skip"), Effect.FLEX_REVERSE: ("⇄", "flex reverse"),
         Effect.FLEX_DRAW_TWO: ("+2", "flex draw two"), Effect.WILD_ALL_FLIP: ("★↻", "wild all flip"),
         Effect.WILD_TARGET_DRAW_TWO: ("★+2→", "wild targeted draw two"),
         Effect.WILD_ALL_DRAW: ("★+all", "wild all draw"), Effect.DRAW_ONE: ("+1", "draw one"),
         Effect.DRAW_FIVE: ("+5", "draw five"), Effect.SKIP_EVERYONE: ("⊘⊘", "skip everyone"),
         Effect.FLIP: ("FLIP", "flip"), Effect.OPTIMUS: ("★OPT", "Optimus"), Effect.WILD_DRAW_TWO: ("★+2", "wild draw two"),
         Effect.MEGATRON: ("★MEG", "Megatron"), Effect.WILD_DRAW_COLOUR: ("★+C", "wild draw colour"),
         Effect.DISCARD_ALL: ("DA", "discard all"), Effect.HIT_ONE: ("H1", "hit 1"), Effect.HIT_TWO: ("H2", "hit 2"),
         Effect.WILD_ATTACK: ("★ATK", "wild attack")}


def card_json(game: Game, kind: int) -> dict:
    """A card as the page draws it: its name, colour letter(s) (``W`` for a wild), the face printed on it
    (a symbol for an action card) and its meaning in words (the card's tooltip)."""
    name = game.card_name(kind)
    sides = game.deck.side_colours
    colours = (sides[1] if name.startswith("D:") else sides[0]) if sides else game.deck.colours
    colour = "W" if game.is_wild[kind] else colours[game.colour_of[kind]]
    effect = game.effect_of[kind]
    bare = name.split(":", 1)[-1]  # Flip's side prefix
    if colour != "W" and bare.startswith(colour):
        bare = bare[len(colour):]
    bare = bare.lstrip("-")
    face, words = FACES.get(effect, (bare, f"number {bare}"))
    colour_word = "wild" if colour == "W" else COLOUR_WORDS.get(colour, colour)
    title = f"{name}: {words}" if colour == "W" else f"{name}: {colour_word} {words}"
    return {"name": name, "colour": colour, "face": face, "title": title}


COLOUR_WORDS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue", "Pk": "pink", "Tl": "teal", "Or": "orange",
                "Pu": "purple"}


def hand_json(game: Game, state, seat: int) -> list[dict]:
    """A seat's hand, sorted by kind (Flip: the active faces)."""
    return [card_json(game, k) for k, c in enumerate(state.hands[seat]) for _ in range(c)]


def table_view(game: Game, state, seat: int | None, names: list[str]) -> dict:
    """What ``seat`` may see now; ``seat=None``: the whole table with every hand (replays of finished games)."""
    spec = game.to_spec(state)
    n = state.num_players
    seats = []
    for q in range(n):
        entry = {"seat": q, "name": names[q], "cards": state.hand_size[q]}
        if "power" in spec:  # Flex: every power card is public
            entry["power"] = bool(spec["power"][q])
        if game.match:
            entry["score"], entry["out"] = state.scores[q], bool(state.eliminated[q])
        if game.physical is not None and q != seat:  # Flip: the back faces everyone but the holder sees
            entry["backs"] = [card_json(game, k) for k in sorted(game.physical.backs(state, q))]
        if seat is None:
            entry["hand"] = hand_json(game, state, q)
        seats.append(entry)
    deciding = deciding_seat(state, seat)
    view = {"variant": game.rules.variant, "players": n, "seat": seat, "seats": seats,
            "top": card_json(game, state.discard[-1]) if state.discard else None,
            "colour": colour_text(spec["colour"]), "colour_word": COLOUR_WORDS.get(spec["colour"]),
            "direction": "clockwise" if state.direction == 1 else "counter-clockwise",
            "pile": {"word": "launcher" if game.layout.draw_word == "press" else "draw pile",
                     "count": len(state.draw_pile)},
            "turn": None if state.is_over else state.turn_seat, "deciding": deciding,
            "status": status_text(state, seat, deciding),
            "pending": pending_text(game, spec, -1 if seat is None else seat),
            "hand": hand_json(game, state, seat) if seat is not None else None, "reveal": None, "flip": None}
    if seat is not None and state.reveals[seat] is not None:
        owner, counts = state.reveals[seat]
        view["reveal"] = {"owner": owner, "cards": [card_json(game, k) for k, c in enumerate(counts) for _ in range(c)]}
    if game.physical is not None:
        back = game.physical.draw_top_back(state)
        view["flip"] = {"side": "A" if state.side == 0 else "D",
                        "draw_top_back": card_json(game, back) if back >= 0 else None,
                        "duel": duel_text(game, state) if state.duel is not None else None}
    return view


def deciding_seat(state, seat: int | None) -> int | None:
    """The seat ``seat`` is told decides now: its own, or one whose deciding shows nothing hidden (every one in a
    replay, ``seat=None``); None once the game is over or when only whose turn it is may be said."""
    if state.is_over:
        return None
    decider, phase = state.current_seat, state.phase.value
    if seat is None or decider == seat or phase in PUBLIC_DECISIONS:
        return decider
    if phase in ("CHALLENGE_OR_ACCEPT", "STACK_RESPONSE") and state.penalty.challenge is not None:
        return decider  # a challengeable penalty's target is always asked: it may challenge
    return None


def status_text(state, seat: int | None, deciding: int | None) -> str:
    """The status line: who decides now (and what, when another seat does), and whose turn it is when that differs."""
    if state.is_over:
        return "game over"
    turn = "your turn" if state.turn_seat == seat else f"P{state.turn_seat}'s turn"
    phase = state.phase.value
    if deciding is None or deciding == state.turn_seat and (deciding == seat or phase == "TURN"):
        return turn
    if deciding == seat:
        return f"your decision ({turn})"  # the page shows the question beside it
    doing = PUBLIC_DECISIONS.get(phase) or PRIVATE_DECISIONS.get(phase, phase)
    return f"P{deciding} {doing}" + ("" if deciding == state.turn_seat else f" ({turn})")


def decision_json(game: Game, state) -> dict:
    """The decision the deciding seat faces: play actions by card name, every other action as a button."""
    phase = state.phase.value
    plays, buttons = {}, []
    for action in game.legal_actions(state):
        text = game.action_to_string(action, state)
        if text.startswith("play "):
            card = text.split()[1]
            plays.setdefault(card, []).append({"action": action, "text": text})
        else:
            label = PASS_LABELS.get(phase, "pass") if text == "pass" else text
            if text.startswith("colour "):  # the colour's word, on a button in that colour
                label = COLOUR_WORDS.get(text.split()[1], label)
            buttons.append({"action": action, "text": text, "label": label})
    return {"phase": phase, "prompt": PROMPTS.get(phase, phase), "plays": plays, "buttons": buttons}


def result_json(game: Game, state, seat: int | None) -> dict:
    """How a finished game ended: the winner, the points and a sentence for ``seat``."""
    out = outcome_of(state)
    out["text"] = outcome_text(game, state, seat) if seat is not None else outcome_line(state).strip()
    return out
