"""Many games of one rule set stepped together: the batched collector for self-play.

In the style of pgx and EnvPool: every call takes and returns numpy arrays over the batch, so a
learner can run one forward pass for the deciding seat of every game. Every seat of every game may
be a learner; the caller decides which policy answers which seat (``seat`` says who decides).

===================  =======================  =================================================
array                shape, dtype             meaning
===================  =======================  =================================================
``seat``             (B,) int64               the seat deciding now in game i
``obs``              (B, D) float32           that seat's observation (``uno_env/observation.py``)
``mask``             (B, A) int8              its legal actions
``rewards``          (B, N) float32           per-seat rewards of game i, set on the step that
                                              ended it (the AEC env's: winner +1, others
                                              -1/(N-1); or points), else 0
``terminated``       (B,) bool                game i ended on this step (someone won, or blocked)
``truncated``        (B,) bool                game i hit the step cap on this step (the rules'
                                              ``max_steps``, or ``cut_at``)
===================  =======================  =================================================

``cut_at`` (optional) is a training cap below the rules' own ``max_steps``: a game that reaches that
many decisions is truncated and dealt again, with no rewards, exactly as at the rules' cap, while the
rules (and so a trained policy file's) stay the ones given. A learner that bootstraps its values
(DQN) needs the cost of a stalled game near: at the rules' 5,000 decisions it is out of sight.

The arrays are allocated once and overwritten in place by every ``reset``/``step``: copy what
must outlive the next call. A game that ends is dealt again at once (automatic reset): ``seat``,
``obs`` and ``mask`` then describe the new game's first decision, and ``final_states[i]`` keeps the
finished game's state (winner, points) until game i ends again.

Seeding: ``reset(seed)`` gives game ``i`` its own generator seeded ``seed + i``, which deals each of
its games in turn exactly as ``uno_env.raw_env(...).reset(seed=seed + i)`` and then ``reset()`` do,
so game ``i`` of a batch is reproducible on its own, and its observations and masks are the AEC
env's: after every ``reset``/``step`` all rows are written at once by ``BatchEncoder``
(``uno_env/batch_observation.py``) and ``Game.legal_action_masks``, equal bit for bit to
``ObservationEncoder`` and ``Game.legal_action_mask`` row by row.

Backends: ``backend="native"`` (or ``UNO_ENV_BACKEND=native``) steps all the games inside the core per
call, writing every array there
(``uno_env/core/batch.cpp``; the observation rows by ``uno_env/core/observe.cpp``, from the encoder's
own layout table), and ``threads=`` (native only) steps slices of the batch on that many threads.
The arrays are the same, bit for bit, on either backend and for any thread count, from the same seed
(``tests/envs/test_native_vector.py``); ``states`` and ``final_states`` then hold ``NativeState`` objects.

    >>> import numpy as np
    >>> from uno_env.vector import VectorGames
    >>> games = VectorGames(4, "classic", num_players=3)
    >>> seat, obs, mask = games.reset(seed=0)
    >>> actions = np.array([np.flatnonzero(row)[0] for row in mask])
    >>> seat, obs, mask, rewards, terminated, truncated = games.step(actions)
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .batch_observation import BatchEncoder
from .env_common import final_rewards, game_for_env
from .errors import IllegalActionError, RuleError
from .game import Game
from .observation import NATIVE_BLOCKS, ObservationEncoder
from .rules import RuleSet
from .state import State

#: ``threads`` at most (the core starts that many threads once, for the batch's life).
MAX_THREADS = 256


class VectorGames:
    """``num_games`` games of one rule set, stepped together with numpy arrays in and out."""

    def __init__(self, num_games: int, variant: str = "classic", num_players: int = 2, reward: str = "win_loss",
                 rules: RuleSet | None = None, cut_at: int | None = None, backend: str | None = None,
                 threads: int = 1, **rule_options: Any):
        if isinstance(num_games, bool) or not isinstance(num_games, numbers.Integral) or num_games < 1:
            raise ValueError(f"num_games must be a whole number, 1 or more; got {num_games!r}")
        if cut_at is not None and (isinstance(cut_at, bool) or not isinstance(cut_at, numbers.Integral) or cut_at < 1):
            raise ValueError(f"cut_at must be None or a whole number, 1 or more; got {cut_at!r}")
        if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be a whole number from 1 to {MAX_THREADS}; got {threads!r}")
        num_games = int(num_games)
        self.cut_at = cut_at
        self.steps = np.zeros(num_games, dtype=np.int64)  # decisions of each game in progress
        self.game = game_for_env(variant, num_players, rules, rule_options, None, reward)
        if backend is not None and backend != self.game.backend:
            self.game = Game(self.game.rules, backend=backend)  # refuses a backend that cannot serve these rules
        self.encoder = ObservationEncoder(self.game)
        foreign = [b.name for b in self.encoder.extra_blocks if b.name not in NATIVE_BLOCKS]
        if self.game.backend == "native" and foreign:
            # a variant block without its twin in uno_env/core/observe.cpp: the batch stays in Python
            blocks = ", ".join(map(repr, foreign))
            if backend == "native":
                raise RuleError(f"backend='native': VectorGames writes its observations in the compiled core, which "
                                f"does not write the block(s) {blocks} of the {self.game.rules.variant!r} rules; "
                                f"use backend='python'")
            self.game = Game(self.game.rules, backend="python")  # UNO_ENV_BACKEND: the core only where it serves
            self.encoder = ObservationEncoder(self.game)
        self.backend = self.game.backend
        if threads != 1 and self.backend != "native":
            raise ValueError(f"threads={threads} needs backend='native' (the compiled core steps the slices); this "
                             f"batch runs on the Python engine: leave threads at 1")
        self.threads = int(threads)
        self.batch_encoder = BatchEncoder(self.game, self.encoder)
        self.reward_mode = reward
        self.num_games = num_games
        self.num_players = n = self.game.num_players
        self.num_actions = self.game.num_actions
        self.observation_size = self.encoder.size
        self.seat = np.zeros(num_games, dtype=np.int64)
        self.obs = np.zeros((num_games, self.observation_size), dtype=np.float32)
        self.mask = np.zeros((num_games, self.num_actions), dtype=np.int8)
        self.rewards = np.zeros((num_games, n), dtype=np.float32)
        self.terminated = np.zeros(num_games, dtype=bool)
        self.truncated = np.zeros(num_games, dtype=bool)
        self.states: list[State] = []
        self.final_states: list[State | None] = [None] * num_games
        self._seeders: list[np.random.Generator] = []
        self._batch = None
        if self.backend == "native":  # the games live in the core, which writes every array
            from .core import _core

            self._batch = _core.Batch(self.game._tables, self.encoder.layout(), num_games, reward == "points",
                                      min(cut_at or 0, 2**62), self.threads)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every game (game ``i`` from ``seed + i``; fresh entropy without a seed); returns ``seat, obs, mask``."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
            raise ValueError(f"seed must be None or a whole number, 0 or more; got {seed!r}")
        if seed is None:
            self._seeders = [np.random.default_rng(s) for s in np.random.SeedSequence().spawn(self.num_games)]
        else:
            self._seeders = [np.random.default_rng(seed + i) for i in range(self.num_games)]
        self.final_states = [None] * self.num_games
        self.steps[:] = 0
        if self._batch is not None:
            self.states = [None] * self.num_games
            for i in range(self.num_games):
                self._deal_native(i)
            self._batch.write_rows(None, self.seat, self.obs, self.mask)
        else:
            self.states = [self._deal(i) for i in range(self.num_games)]
            self._write_rows()
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        return self.seat, self.obs, self.mask

    def step(self, actions) -> tuple[np.ndarray, ...]:
        """Apply ``actions[i]`` for the deciding seat of game ``i``; returns ``seat, obs, mask, rewards, terminated, truncated``.

        Every action is checked before any game moves: an illegal one raises ``IllegalActionError``
        naming the game, and the batch is left as it was.
        """
        if not self.states:
            raise IllegalActionError("step() called before reset()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,) or actions.dtype.kind not in "iu":
            raise IllegalActionError(f"actions must be {self.num_games} integer ids (one per game), got "
                                     f"shape {actions.shape} of {actions.dtype}")
        if self._batch is not None:
            return self._step_native(actions)
        chosen = actions.tolist()
        inside = (actions >= 0) & (actions < self.num_actions)
        legal_ok = inside.copy()  # every game checked at once; the error names the first illegal one
        legal_ok[inside] = self.mask[np.flatnonzero(inside), actions[inside]] != 0
        if not legal_ok.all():
            i = int(np.flatnonzero(~legal_ok)[0])
            legal = np.flatnonzero(self.mask[i]).tolist()
            raise IllegalActionError(f"game {i}: action {chosen[i]} is not legal for P{self.seat[i]}; "
                                     f"legal ids: {legal}")
        game, rewards = self.game, self.rewards
        rewards[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        steps = self.steps
        steps += 1
        for i, a in enumerate(chosen):
            s = self.states[i]
            game.step(s, a)
            if s.is_over:
                rewards[i] = final_rewards(game, s, self.reward_mode)
                self.terminated[i] = not s.truncated
                self.truncated[i] = s.truncated
            elif self.cut_at is not None and steps[i] >= self.cut_at:  # the training cap: no winner, no rewards
                self.truncated[i] = True
            else:
                continue
            self.final_states[i] = s
            self.states[i] = self._deal(i)
            steps[i] = 0
        self._write_rows()
        return self.seat, self.obs, self.mask, rewards, self.terminated, self.truncated

    def _step_native(self, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        # the core checks every action, steps every game and writes every array; Python deals the ended games
        if actions.dtype != np.int64:
            too_big = np.flatnonzero(actions > np.iinfo(np.int64).max) if actions.dtype.kind == "u" else ()
            if len(too_big):  # a uint64 id past int64: refused as the core refuses any other id out of range
                i = int(too_big[0])
                raise IllegalActionError(f"game {i}: action {actions[i]} is not legal for P{self.seat[i]}; legal ids: "
                                         f"{np.flatnonzero(self.mask[i]).tolist()}")
        ended = self._batch.step(np.ascontiguousarray(actions, dtype=np.int64), self.seat, self.obs, self.mask,
                                 self.rewards, self.terminated, self.truncated, self.steps)
        if ended:
            for i in ended:
                self.final_states[i] = self._deal_native(i)
            self._batch.write_rows(ended, self.seat, self.obs, self.mask)
        return self.seat, self.obs, self.mask, self.rewards, self.terminated, self.truncated

    def _deal(self, i: int) -> State:
        # the AEC env's reset: one game seed drawn from the game's own generator
        return self.game.new_state(int(self._seeders[i].integers(2**63 - 1)))

    def _deal_native(self, i: int):
        # _deal's seed and generator (Game.new_state's), the game dealt in the core; returns the game it replaces
        from .core.native import NativeState

        old, new = self._batch.deal_seeded(i, self._seeders[i])  # _deal's draw and seeding, in the core
        self.states[i] = NativeState(new, self.game)
        return None if old is None else NativeState(old, self.game)

    def _write_rows(self) -> None:
        # every game's row at once: array operations over the batch instead of ~25 numpy calls per row
        states = self.states
        self.seat[:] = [s.current_seat for s in states]
        self.batch_encoder.encode(states, self.seat, self.obs)
        self.game.legal_action_masks(states, self.mask)
