"""Read an observation vector back into named quantities (for rule-based agents)."""
from __future__ import annotations

import numpy as np

from uno_env import Game, Phase
from uno_env.observation import ObservationEncoder


class ObservationView:
    """Slices of one game's observation layout, decoded on demand."""

    def __init__(self, game: Game):
        self.game = game
        self.encoder = ObservationEncoder(game)
        self.o = self.encoder.offsets
        self.layout = game.layout
        self.num_kinds = game.num_kinds
        self.colour_of = np.array(game.colour_of)
        self.points_of = np.array(game.points_of, dtype=float)
        self.is_wild = np.array(game.is_wild)
        self.effect_of = np.array([int(e) for e in game.effect_of])
        self.flip_icon = np.array(game.deck.flip_icon_of)
        #: effect, is-wild, colour and points of each kind as plain Python lists (for per-play loops)
        self.tables = ([int(e) for e in game.effect_of], [bool(w) for w in game.is_wild],
                       [int(c) for c in game.colour_of], [float(p) for p in game.points_of])

    def hand(self, obs: np.ndarray) -> np.ndarray:
        """Own card counts per kind."""
        return obs[self.o["hand"]]

    def phase(self, obs: np.ndarray) -> Phase:
        """Phase of the decision."""
        return self.encoder.phases[int(np.argmax(obs[self.o["phase"]]))]

    def top(self, obs: np.ndarray) -> int:
        """Kind of the top card."""
        return int(np.argmax(obs[self.o["top_card"]]))

    def colour(self, obs: np.ndarray) -> int:
        """Current colour."""
        return int(np.argmax(obs[self.o["colour"]]))

    def hand_sizes(self, obs: np.ndarray) -> np.ndarray:
        """Cards held per relative seat (offset 0 = me); absent seats 0."""
        return np.rint(obs[self.o["hand_sizes"]] * self.game.hand_size).astype(int)

    def num_players(self, obs: np.ndarray) -> int:
        """Seats in the game."""
        return int(obs[self.o["seats"]].sum())

    def direction(self, obs: np.ndarray) -> int:
        """+1 clockwise, -1 counter-clockwise."""
        return 1 if obs[self.o["direction"]][0] >= 0 else -1

    def next_opponent_size(self, obs: np.ndarray) -> int:
        """Hand size of the seat that plays after me (passing over seats out of an elimination match: 0 cards)."""
        n = self.num_players(obs)
        sizes = self.hand_sizes(obs)
        d = self.direction(obs)
        for r in range(1, n):
            size = int(sizes[(r * d) % n])
            if size:
                return size
        return 0

    def discard_counts(self, obs: np.ndarray) -> np.ndarray:
        """Discard pile counts per kind."""
        return obs[self.o["discard"]]

    def colour_counts(self, counts: np.ndarray) -> np.ndarray:
        """Cards per colour in a per-kind count vector (wilds excluded)."""
        coloured = ~self.is_wild
        return np.bincount(self.colour_of[coloured], weights=counts[coloured], minlength=len(self.game.deck.colours))

    def plays(self, mask: np.ndarray) -> np.ndarray:
        """Legal card-play action ids: regular plays (= kind ids), then Flex FLEX-mode plays."""
        end = self.layout.draw  # every play id sits below the draw action
        return np.flatnonzero(mask[:end])

    def kind_of(self, action: int) -> int:
        """Card kind of a play action id (regular or FLEX mode)."""
        return action if action < self.num_kinds else action - self.layout.flex0

    def is_flex(self, action: int) -> bool:
        """Whether a play action id is a Flex FLEX-mode play."""
        return action >= self.num_kinds

    def power(self, obs: np.ndarray) -> np.ndarray:
        """Flex power cards per relative seat (1 = ✓); empty for other variants."""
        sl = self.o.get("power")
        return obs[sl] if sl is not None else np.zeros(0)

    def targets(self, mask: np.ndarray) -> list[tuple[int, int]]:
        """Legal (action id, relative offset) target choices."""
        L = self.layout
        out = [(L.target0 + i, i + 1) for i in range(L.num_targets) if mask[L.target0 + i]]
        if L.self_target >= 0 and mask[L.self_target]:
            out.append((L.self_target, 0))
        return out

    def opponent_backs(self, obs: np.ndarray, offset: int) -> np.ndarray:
        """Flip: the visible back faces of the opponent at relative ``offset``, counts per face of the other side."""
        sl = self.o["flip"]
        f = self.game.faces_per_side
        start = sl.start + 1 + (offset - 1) * f
        return obs[start:start + f]

    def side(self, obs: np.ndarray) -> int:
        """Flip: the active side (0 = A, 1 = D); 0 for other variants."""
        sl = self.o.get("flip")
        return int(obs[sl.start]) if sl is not None else 0

    def other_side_kind(self, obs: np.ndarray, face_index: int) -> int:
        """Flip: kind id of the face ``face_index`` of the inactive side."""
        return face_index if self.side(obs) == 1 else face_index + self.game.faces_per_side

