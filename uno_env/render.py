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
    lines = [head,
             f"top {spec['discard'][-1]}  colour {spec['colour']}  direction "
             f"{'clockwise' if s.direction == 1 else 'counter-clockwise'}  draw pile {len(s.draw_pile)}  "
             f"discard {len(s.discard)}"]
    pending = spec["pending"] or {}
    if "penalty" in pending:
        pen = pending["penalty"]
        lines.append(f"pending: draw {pen['total']} for P{pen['target']}"
                     + (" (challengeable)" if pen.get("challengeable") else ""))
    for q in range(n):
        mark = ">" if q == s.current_seat else " "
        score = f"  score {s.scores[q]}" if game.match or any(s.scores) else ""
        lines.append(f"{mark} P{q} {s.hand_size[q]:>3} cards{score}  {' '.join(spec['hands'][q])}")
    return "\n".join(lines)
