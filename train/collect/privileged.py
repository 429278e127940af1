"""What a training critic may see beyond the seat's own observation (``privileged_critic: true``).

The same block's ``other_hands`` part is the target of the actor's auxiliary hand prediction
(``hand_prediction_coef``), and with ``oracle_guiding_steps`` the actor reads a copy of the whole
block early in a run, less of it later, and none once the run is past the schedule (the exported
policy never does).

An asymmetric actor-critic: the critic only serves as the baseline of the policy gradient during
training, and a baseline may depend on anything that does not depend on the action, hidden cards
included, without biasing the gradient. Knowing every hand and the next cards to be drawn, it
explains much more of a game's outcome than the seat's own view can, so the advantages it gives are
less noisy. The exported, played actor never reads this block.

=============  =========  ===============================================================
block          size       meaning
=============  =========  ===============================================================
other_hands    K (M - 1)  each other seat's cards, count per kind, by relative offset 1..M-1
                          (absent seats zero)
next_draws     K          the next ``PEEK`` cards of the draw pile, count per kind
=============  =========  ===============================================================
"""
from __future__ import annotations

import numpy as np

#: Cards at the top of the draw pile the critic is shown.
PEEK = 4


class PrivilegedEncoder:
    """Builds the critic-only block of any seat for one ``Game``."""

    def __init__(self, game):
        self.kinds = game.num_kinds
        self.size = self.kinds * game.variant.max_players
        self.hands_size = self.size - self.kinds  # the other_hands part (``hand_prediction_coef``'s target)

    def encode_into(self, s, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s privileged block into ``out`` (a float32 row of ``size``)."""
        k, n = self.kinds, s.num_players
        out[:] = 0.0
        for r in range(1, n):
            out[(r - 1) * k:r * k] = s.hands[(seat + r) % n]
        tail = out[self.size - k:]
        for kind in s.draw_pile[-PEEK:]:
            tail[kind] += 1.0
