"""Plain-text rendering of a game state (an omniscient table: every hand is shown)."""
from __future__ import annotations

from .state import State


def render_text(game, s: State) -> str:
    """A readable multi-line table of the state."""
    spec = game.to_spec(s)
    n = s.num_players
    head = f"{game.rules.variant} UNO, {n} players, step {s.steps}: "
    if s.is_over:
        if s.winner is not None:
            head += f"game over, P{s.winner} wins"
        else:
            head += "game over, " + ("truncated" if s.truncated else "blocked, no winner")
    else:
        head += f"P{s.current_seat} decides ({s.phase.value}), turn of P{s.turn_seat}"
    pile = "launcher" if game.layout.draw_word == "press" else "draw pile"
    lines = [head,
             f"top {spec['discard'][-1]}  colour {spec['colour']}  direction "
             f"{'clockwise' if s.direction == 1 else 'counter-clockwise'}  {pile} {len(s.draw_pile)}  "
             f"discard {len(s.discard)}" + (f"  side {spec['side']}" if "side" in spec else "")]
    pending = spec["pending"] or {}
    if "penalty" in pending:
        pen = pending["penalty"]
        lines.append(f"pending: {game.layout.draw_word} {pen['total']} for P{pen['target']}"
                     + (" (challengeable)" if pen.get("challengeable") else ""))
    if "target_for" in pending:
        lines.append(f"pending: P{s.current_seat} chooses the target of {pending['target_for']}")
    power = spec.get("power")
    for q in range(n):
        mark = ">" if q == s.current_seat else " "
        score = f"  score {s.scores[q]}" if game.match or any(s.scores) else ""
        pw = ("  power ✓" if power[q] else "  power ✘") if power is not None else ""
        out = "  (out)" if s.eliminated[q] else ""
        lines.append(f"{mark} P{q} {s.hand_size[q]:>3} cards{score}{pw}{out}  {' '.join(spec['hands'][q])}")
    return "\n".join(lines)


def render_mode_output(mode: str | None, game, s: State) -> str | None:
    """What an environment's ``render()`` does: ``ansi`` returns the table, ``human`` prints it."""
    if mode is None:
        return None
    text = render_text(game, s)
    if mode == "human":
        print(text)
        return None
    return text

