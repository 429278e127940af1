"""The turn machine shared by every variant: placing, drawing, penalties, UNO calls, turn ends.

A placement is resolved in the order of docs/rules.md §1.6: card to the discard pile, colour
(declared in its own step for wilds), win check, card effect, UNO call, decisions of other
seats (challenge, stack, deflection), jump-in window, turn passes. Steps that may need a
decision are pushed on ``state.agenda`` (a stack: last element runs next); ``run`` executes
them until one needs a decision, which it records as ``state.waiting`` with ``phase`` and
``current_seat`` set. The action handlers in ``game.py`` apply that decision and call ``run``.

Functions take ``(g, s)``: ``g`` the immutable ``Game`` (rules and lookup tables), ``s`` the
``State`` they change.
"""
from __future__ import annotations

from .cards import Effect
from .state import Penalty, Phase

# Agenda step codes.
AFTER_PLACE, COLOUR, UNO, CATCH, RESPOND, END_TURN, START_TURN, TARGET = range(8)

END_TURN_STEP = (END_TURN, 0)
RESPOND_STEP = (RESPOND,)


def seat_after(g, s, p: int, k: int = 1) -> int:
    """The seat ``k`` places after ``p`` in the current direction (passing over seats out of an elimination match)."""
    if not g.elimination:
        return (p + k * s.direction) % s.num_players
    n = s.num_players
    out = s.eliminated
    q = p
    for _ in range(k):
        q = (q + s.direction) % n
        while out[q]:
            q = (q + s.direction) % n
    return q


def players_in(g, s) -> int:
    """Seats still playing (all of them unless an elimination match has put some out)."""
    return s.num_players - sum(s.eliminated) if g.elimination else s.num_players


def run(g, s) -> None:
    """Execute agenda steps until one waits for a decision (or the game ends)."""
    agenda = s.agenda
    steps = g.agenda_steps  # STEPS, then a variant's own steps (Flip's duel)
    while agenda:
        step = agenda.pop()
        waiting = steps[step[0]](g, s, step)
        if waiting is not None:
            s.waiting = waiting
            return
    s.waiting = None


# --------------------------------------------------------------------------- placing cards

def note_placement(g, s, p: int, kind: int) -> None:
    """Public history: seat ``p`` placed a ``kind`` on the pile (its colour, or 4 for a wild; the colour is no longer void)."""
    if s.shown:
        card_left_hand(s, p, kind)
    if g.is_wild[kind]:
        s.last_played[p] = 4
    else:
        c = g.colour_of[kind]
        s.last_played[p] = c
        s.voids[p] &= ~(1 << c)


def show_cards(s, observer: int, holder: int, counts) -> None:
    """``holder``'s cards ``counts`` (per kind) were shown to ``observer`` (-1: to every seat); replaces what it showed it before."""
    s.shown = [e for e in s.shown if e[0] != observer or e[1] != holder]
    s.shown.append([observer, holder, list(counts)])


def card_left_hand(s, p: int, kind: int, count: int = 1) -> None:
    """Seat ``p`` no longer holds ``count`` cards of ``kind``: shown ones among them are forgotten."""
    for entry in s.shown:
        if entry[1] == p and entry[2][kind]:
            entry[2][kind] = max(0, entry[2][kind] - count)


def play_card(g, s, p: int, kind: int, response: bool = False, flex: bool = False, drawn: bool = False) -> None:
    """Seat ``p`` places a card of ``kind`` (``flex``: in Flex's FLEX mode; ``drawn``: the card it just drew)."""
    note_placement(g, s, p, kind)
    s.ref_colour = s.colour
    s.flex_play = flex
    s.hands[p][kind] -= 1
    s.hand_size[p] -= 1
    s.discard.append(kind)
    if g.physical is not None:
        g.physical.place(s, p, kind, drawn)  # Flip: the physical card (and its other face) goes along
    s.progress = True
    resolve_placement(g, s, p, kind, 1, response)


def resolve_placement(g, s, p: int, kind: int, count: int, response: bool = False) -> None:
    """Resolve cards already on the discard pile (``count`` of one rank, top = ``kind``)."""
    if g.is_wild[kind]:
        s.agenda.append((AFTER_PLACE, p, kind, count, response))
        s.agenda += g.wild_steps(g, s, p, kind)
    else:
        s.colour = g.colour_of[kind]
        s.colour_declarer = -1
        after_colour(g, s, p, kind, count, response)
    run(g, s)


def wild_steps(g, s, p: int, kind: int) -> list[tuple]:
    """Decisions a wild asks for before its effect, as agenda steps (the last runs first)."""
    if s.flex_play and kind in g.flex_target_kinds:  # Flex: the target is chosen first, then the colour
        return [(COLOUR, p), (TARGET, p)]
    return [(COLOUR, p)]


def after_colour(g, s, p: int, kind: int, count: int, response: bool) -> None:
    """Steps (3)-(9) of §1.6 once the colour is known."""
    final = s.hand_size[p] == 0
    one_left = s.hand_size[p] == 1  # the UNO obligation is the placement's (§1.6 step 3), even if its effect draws
    if not response:  # a response placement reuses the END_TURN of the card it answers
        s.agenda.append(END_TURN_STEP)
    g.effect_fn_of[kind](g, s, p, kind, count, final)
    if g.after_effect is not None:
        g.after_effect(g, s, p, kind)  # e.g. Flex power-card updates (§2.2), after the card's effect
    s.flex_play = False
    if final or s.hand_size[p] == 0:  # (Attack's Discard All may empty the hand by its effect)
        end_round(g, s, p)
        return
    if g.jump_in:  # the window belongs to the last card placed: a wild answering a stack closes the earlier one
        s.jump = (kind, p) if g.jump_in_wild or not g.is_wild[kind] else None
    if (one_left or s.hand_size[p] == 1) and g.uno_asks and kind not in g.early_call_kinds:
        s.agenda.append((UNO, p))


# --------------------------------------------------------------------------- drawing

def draw_cards(g, s, seat: int, count: int) -> int:
    """``seat`` draws up to ``count`` cards (reshuffling as needed); returns how many it got."""
    pile = s.draw_pile
    hand = s.hands[seat]
    got = 0
    while got < count:
        if not pile:
            if not reshuffle(g, s):
                break  # exhaustion: the remaining draws are forfeited (CORE-12)
            pile = s.draw_pile
        hand[pile.pop()] += 1
        got += 1
    if got:
        s.hand_size[seat] += got
        s.progress = True
    return got


def draw_one(g, s, seat: int) -> int:
    """``seat`` draws one card; returns its kind, or -1 when nothing can be drawn."""
    if not s.draw_pile and not reshuffle(g, s):
        return -1
    kind = s.draw_pile.pop()
    s.hands[seat][kind] += 1
    s.hand_size[seat] += 1
    s.progress = True
    return kind


def draw_until_colour(g, s, seat: int, colour: int, wild_satisfies: bool = False) -> None:
    """``seat`` draws one card at a time until one of ``colour`` (Flip's Wild Draw Colour)."""
    while True:
        kind = g.draw_one(g, s, seat)
        if kind < 0:
            return  # nothing left to draw: the obligation ends (CORE-12)
        if g.colour_of[kind] == colour or (wild_satisfies and g.is_wild[kind]):
            return


def reshuffle(g, s) -> bool:
    """Shuffle every discard but the top card into a new draw pile (CORE-11); False if none."""
    discard = s.discard
    if len(discard) <= 1:
        return False
    rest = discard[:-1]
    s.rng.shuffle(rest)
    s.draw_pile = rest
    s.discard = [discard[-1]]
    return True


def holds_colour(g, s, seat: int, colour: int, playing: int = -1) -> bool:
    """Whether ``seat`` holds a card matching ``colour`` for the restricted-wild test (CORE-16).

    ``playing``: the kind about to be played, still in the hand; that one copy does not count.
    """
    hand = s.hands[seat]
    for k in g.kinds_of_colour[colour]:
        if hand[k]:
            return True
    if g.wild_counts_as_match:
        for k in g.wild_kinds:
            if hand[k] > (k == playing):
                return True
    if g.flexable_counts and s.power[seat]:  # Flex AMB-A10: a flex card it could have played by flex colour
        for k in g.kinds_of_flex_colour[colour]:
            if hand[k]:
                return True
    return False


def penalty_draw(g, s, seat: int) -> None:
    """The UNO penalty (CORE-21): draw two cards."""
    g.draw_cards(g, s, seat, g.uno_penalty)


# --------------------------------------------------------------------------- draw penalties

def add_penalty(g, s, p: int, amount: int, effect: int, challenge: tuple | None, final: bool,
                target: int = -1, resume: int = -1, until: int = -1) -> None:
    """Start or extend a draw penalty aimed at ``target`` (default: the seat after ``p``; HR-1 stacks extend it).

    ``resume`` is the seat whose turn follows once it is resolved (default: the seat after the one who drew);
    ``until`` a colour to draw until before the ``amount`` (Flip's Wild Draw Colour).
    """
    if target < 0:
        target = seat_after(g, s, p)
    pen = s.penalty
    if pen is None:
        s.penalty = pen = Penalty(amount, target, effect, challenge, resume, until, origin=p)
    else:
        pen.total += amount
        pen.target = target
        pen.last_effect = effect
        pen.challenge = None if pen.deflected else challenge  # HR-4 step 3: a WD4 stacked after a deflection
        pen.resume = resume
        pen.cards += 1
    _await_response(g, s, final)


def deflect(g, s, p: int, final: bool) -> None:
    """A Skip/Reverse passes the pending penalty on to the seat after ``p`` (HR-4)."""
    pen = s.penalty
    pen.target = seat_after(g, s, p)
    pen.challenge = None
    pen.deflected = True
    _await_response(g, s, final)


def _await_response(g, s, final: bool) -> None:
    # A target with nothing to answer takes the penalty now, as an automatic part of the effect,
    # so that it draws before the placer's UNO call (§1.6 step 7). A last card's penalty is taken
    # without response (CORE-24).
    if final or len(response_actions(g, s)) == 1:
        absorb(g, s)
    else:
        s.agenda.append(RESPOND_STEP)


def _pay(g, s, seat: int, pen: Penalty, extra: int) -> None:
    """``seat`` draws what ``pen`` asks (until its colour first, if any) plus ``extra``."""
    if pen.until >= 0:
        draw_until_colour(g, s, seat, pen.until, g.until_wild_satisfies)
    g.draw_cards(g, s, seat, pen.total + extra)


def absorb(g, s) -> None:
    """The penalty's target draws the total and loses the turn."""
    pen = s.penalty
    s.penalty = None
    _pay(g, s, pen.target, pen, 0)
    s.next_seat = pen.resume if pen.resume >= 0 else seat_after(g, s, pen.target)


def challenge(g, s, challenger: int) -> None:
    """Resolve a challenge of the challengeable wild on top of the pending penalty (CORE-18, HR-1)."""
    pen = s.penalty
    s.penalty = None
    offender, guilty = pen.challenge
    s.reveals[challenger] = (offender, tuple(s.hands[offender]))
    show_cards(s, challenger, offender, s.hands[offender])
    if guilty:
        _pay(g, s, offender, pen, 0)
        s.next_seat = challenger  # the successful challenger takes a normal turn (AMB-G13)
    else:
        _pay(g, s, challenger, pen, g.challenge_fail_extra)
        s.next_seat = seat_after(g, s, challenger)  # and a losing one loses it (CORE-18)
    if pen.resume >= 0 and (guilty or pen.resume != challenger):
        s.next_seat = pen.resume  # a penalty that skips nobody (Flex's targeted draw) resumes where it said


def response_actions(g, s) -> list[int]:
    """Legal answers of the penalty's target: stack/deflect plays, challenge, accept."""
    pen = s.penalty
    hand = s.hands[pen.target]
    acts = [k for k in g.response_kinds if hand[k] and g.can_respond_with(g, s, pen, k)]
    if pen.challenge is not None:
        acts.append(g.layout.challenge)
    acts.append(g.layout.accept)
    return acts


# --------------------------------------------------------------------------- round end

def hand_points(g, s, seat: int) -> int:
    """Card points held by ``seat``."""
    pts = g.points_of
    return sum(c * pts[k] for k, c in enumerate(s.hands[seat]) if c)


def end_round(g, s, winner: int | None) -> None:
    """Score the round (None = blocked) and end the game, or deal the next round of a match."""
    n = s.num_players
    s.agenda.clear()
    s.penalty = None
    s.multi = None
    s.jump = None
    points = [0] * n
    if winner is not None:
        values = [hand_points(g, s, q) for q in range(n)]
        if g.scoring == "winner_takes":
            points[winner] = sum(values)
        else:  # penalty_low / elimination: every loser adds its own hand value
            points = values
            points[winner] = 0
        for q in range(n):
            s.scores[q] += points[q]
    s.round_points = points
    s.round_winner = winner
    s.blocked = winner is None
    if g.elimination:  # Attack's elimination mode: a seat reaching the limit is out; the last one left wins
        out = s.eliminated
        for q in range(n):
            if not out[q] and s.scores[q] >= g.target_score:
                out[q] = True
        alive = [q for q in range(n) if not out[q]]
        if len(alive) >= 2:
            next_round(g, s, winner)
            return
        s.winner = alive[0]
    elif g.match:
        if max(s.scores) < g.target_score:
            next_round(g, s, winner)
            return
        s.winner = match_leader(g, s)
    else:
        s.winner = winner
    finish(s)


def match_leader(g, s) -> int | None:
    """Seat still in with the best match total (highest for winner_takes, else lowest); None on a tie."""
    scores = [v for q, v in enumerate(s.scores) if not s.eliminated[q]]
    best = max(scores) if g.scoring == "winner_takes" else min(scores)
    leaders = [q for q, v in enumerate(s.scores) if v == best and not s.eliminated[q]]
    return leaders[0] if len(leaders) == 1 else None


def finish(s) -> None:
    """Mark the game as over."""
    s.is_over = True
    s.phase = Phase.GAME_OVER
    s.current_seat = -1
    s.agenda.clear()
    s.waiting = None
    s.legal = None


def next_round(g, s, last_winner: int | None) -> None:
    """Rotate the dealer and deal a new round of the match."""
    n = s.num_players
    if g.dealer_rotation == "random":
        s.dealer = int(s.rng.integers(n))
    elif g.dealer_rotation == "winner" and last_winner is not None:
        s.dealer = last_winner
    else:
        s.dealer = (s.dealer + 1) % n
    while s.eliminated[s.dealer]:  # (elimination mode) the deal passes to a seat still playing
        s.dealer = (s.dealer + 1) % n
    s.round_index += 1
    deal_round(g, s)


def deal_round(g, s) -> None:
    """Shuffle the whole deck, deal one card at a time from the dealer's left, resolve the starter."""
    n = s.num_players
    s.discard = []
    s.hands = [[0] * g.num_kinds for _ in range(n)]
    s.hand_size = [0] * n
    if g.physical is not None:  # Flip: shuffle the physical cards, A faces up
        g.physical.new_round(s)
        for i in range(g.hand_size * n):
            g.draw_one(g, s, (s.dealer + 1 + i) % n)
    else:
        s.draw_pile = s.rng.permutation(g.deck_array).tolist()
        pile = s.draw_pile
        seats = [(s.dealer + 1 + i) % n for i in range(n)]
        seats = [q for q in seats if not s.eliminated[q]]  # (elimination mode) seats out get no cards
        for i in range(g.hand_size * len(seats)):
            seat = seats[i % len(seats)]
            s.hands[seat][pile.pop()] += 1
            s.hand_size[seat] += 1
    s.direction = 1
    s.penalty = None
    s.reveals = [None] * n
    s.shown = []
    s.power = [True] * n  # Flex: every power card starts green (✓)
    s.idle_turns = 0
    s.progress = False
    s.colour_declarer = -1
    g.variant.start_round(g, s)


def number_starter(g, s) -> None:
    """Turn starters until a number card is on top; the ignored cards stay beneath it (Flex AMB-A13, Flip AMB-B6)."""
    pile = s.draw_pile
    while True:
        kind = pile.pop()
        s.discard.append(kind)
        if g.physical is not None:  # Flip: the physical card goes along
            s.physical_discard.append(s.physical_draw.pop())
        if g.effect_of[kind] == Effect.NUMBER or not pile:
            break
    s.direction = 1
    first = (s.dealer + 1) % s.num_players
    s.agenda.append(start_turn_step(first))
    if g.is_wild[kind]:  # only if the whole pile held no number card
        s.agenda.append((COLOUR, first))
    else:
        s.colour = g.colour_of[kind]


def start_turn_step(seat: int) -> tuple:
    """Agenda step that starts ``seat``'s normal turn."""
    return (START_TURN, seat)


# --------------------------------------------------------------------------- agenda steps

def _after_place(g, s, step):
    _, p, kind, count, response = step
    after_colour(g, s, p, kind, count, response)
    return None


def _colour(g, s, step):
    s.phase = Phase.CHOOSE_COLOUR
    s.current_seat = step[1]
    return step


def _uno(g, s, step):
    s.phase = Phase.UNO_CALL
    s.current_seat = step[1]
    return step


def _catch(g, s, step):
    _, p, i = step
    q = (p + i * s.direction) % s.num_players
    if s.eliminated[q]:  # (elimination mode) a seat out of the match does not catch
        if i + 1 < s.num_players:
            s.agenda.append((CATCH, p, i + 1))
        return None
    s.phase = Phase.CATCH
    s.current_seat = q
    return step


def _respond(g, s, step):
    acts = response_actions(g, s)
    if len(acts) == 1:  # nothing to decide: take it
        absorb(g, s)
        return None
    s.phase = Phase.STACK_RESPONSE if acts[0] < g.layout.num_kinds else Phase.CHALLENGE_OR_ACCEPT
    s.current_seat = s.penalty.target
    s.legal = acts
    return step


def _end_turn(g, s, step):
    jump = s.jump
    if jump is not None:
        kind, placer = jump
        n = s.num_players
        i = step[1]
        while i < n:
            q = (s.next_seat + i * s.direction) % n
            i += 1
            if q != placer and s.hands[q][kind]:
                s.phase = Phase.JUMP_IN
                s.current_seat = q
                return (END_TURN, i)
        s.jump = None
    if s.progress:
        s.idle_turns = 0
    else:
        s.idle_turns += 1
        if s.idle_turns >= players_in(g, s):
            end_round(g, s, None)  # blocked round (CORE-12)
            return None
    s.progress = False
    seat = s.next_seat
    s.turn_seat = s.current_seat = seat
    s.phase = Phase.TURN
    if g.on_turn_start is not None:
        g.on_turn_start(g, s)  # Attack: reload an empty launcher
    return step


def _target(g, s, step):
    s.phase = Phase.CHOOSE_TARGET
    s.current_seat = step[1]
    return step


def _start_turn(g, s, step):
    s.turn_seat = s.current_seat = step[1]
    s.phase = Phase.TURN
    s.progress = False
    if g.on_turn_start is not None:
        g.on_turn_start(g, s)
    return step


#: Agenda step handlers by step code; a variant may append its own (``Game.agenda_steps``).
STEPS = (_after_place, _colour, _uno, _catch, _respond, _end_turn, _start_turn, _target)


def effect_number(g, s, p, kind, count, final):
    """No effect: the next seat plays."""
    # (inline arithmetic unless seats are out: this is the hot path of every number card)
    s.next_seat = seat_after(g, s, p) if g.elimination else (p + s.direction) % s.num_players


def effect_skip(g, s, p, kind, count, final):
    """Skip ``count`` seats (CORE-13, HR-3); against a pending penalty it deflects (HR-4)."""
    if s.penalty is not None:
        deflect(g, s, p, final)
        return
    s.next_seat = seat_after(g, s, p, count + 1)


def effect_reverse(g, s, p, kind, count, final):
    """Reverse the direction (CORE-14); two players: acts as a Skip; against a penalty it deflects."""
    if final and s.penalty is None:  # a last card's reverse is not resolved (CORE-24)
        return
    if count % 2:
        s.direction = -s.direction
    if s.penalty is not None:
        deflect(g, s, p, final)
        return
    if g.reverse_as_skip and players_in(g, s) == 2:
        s.next_seat = seat_after(g, s, p, count + 1)
    else:
        s.next_seat = seat_after(g, s, p)


def effect_wild(g, s, p, kind, count, final):
    """Colour already declared: the next seat plays."""
    s.next_seat = seat_after(g, s, p) if g.elimination else (p + s.direction) % s.num_players


def effect_draw_two(g, s, p, kind, count, final):
    """The next seat draws 2 per card and loses its turn, unless it stacks or deflects."""
    add_penalty(g, s, p, 2 * count, Effect.DRAW_TWO, None, final)


def effect_wild_draw_four(g, s, p, kind, count, final):
    """The next seat draws 4 and loses its turn, or challenges (CORE-16..18)."""
    chal = None
    if g.bluffing and not final:
        chal = (p, holds_colour(g, s, p, s.ref_colour))
    add_penalty(g, s, p, 4, Effect.WILD_DRAW_FOUR, chal, final)
