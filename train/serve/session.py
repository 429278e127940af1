"""Browser games: one human seat against agents, built from untrusted request data.

Every request's input is checked here before it reaches the engine: the rule set through
``RuleSet.create`` (no deck manifest files), agent specs through ``load_opponent`` (built-in agents,
search and shipped policies; policy files only from the folder the server was started with, never
through ``..`` or an absolute path), actions against the legal actions of the human's own decision.
A rejected request raises ``RequestError`` and leaves the game as it was.
"""
from __future__ import annotations

import os
import secrets
import threading
from collections import OrderedDict

import numpy as np

import agents
from agents import AgentSpecError, PolicyFileError, SearchOptionError
from uno_env import Game, RuleSet, UnoError, VARIANTS
from uno_env.errors import did_you_mean
from uno_env.observation import ObservationEncoder
from uno_env.records import Recorder

from ..errors import UsageError, error_message
from ..play.terminal import step_narrated
from ..rule_args import parse_options
from .view import decision_json, result_json, table_view

MAX_SESSIONS = 64
"""Games kept at once; the least recently used one is dropped beyond this."""

INPUT_ERRORS = (UnoError, AgentSpecError, PolicyFileError, SearchOptionError, UsageError)


class RequestError(ValueError):
    """A request the server refuses; ``status`` is its HTTP status, the message says what was wrong."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def safe_agent_forms(folder: str | None) -> str:
    """The agent specs this server accepts, in words."""
    shipped = ", ".join(agents.pretrained_names()) or "none shipped"
    files = f"a policy file under {folder} named by its path there" if folder else \
        "policy files only when the server is started with --folder DIR"
    return f"{', '.join(agents.BUILTIN)}, ismcts[:key=value,...], pretrained (the game's variant), " \
           f"pretrained:<name> ({shipped}), {files}"


def load_opponent(spec, game: Game, seed: int, folder: str | None):
    """The agent of an untrusted ``spec``; policy files only inside ``folder`` (RequestError otherwise)."""
    if not isinstance(spec, str) or not spec.strip():
        raise RequestError(f"agent spec must be a non-empty string, got {spec!r}; allowed: {safe_agent_forms(folder)}")
    spec = spec.strip()
    if spec in (*agents.BUILTIN, "ismcts", "pretrained") or spec.startswith(("ismcts:", "pretrained:")):
        return agents.load(spec, game, seed=seed)
    if folder is None:
        if any(sep in spec for sep in ("/", "\\", os.sep)) or spec.endswith((".npz", ".json")):
            raise RequestError(f"agent spec {spec!r} is not allowed: this server loads no policy files; "
                               f"allowed: {safe_agent_forms(folder)}")
        known = [*agents.BUILTIN, "ismcts", "pretrained", *(f"pretrained:{n}" for n in agents.pretrained_names())]
        raise RequestError(f"unknown agent spec {spec!r}{did_you_mean(spec, known)}; allowed: {safe_agent_forms(folder)}")
    return agents.load(policy_path(spec, folder), game, seed=seed)


def policy_path(spec: str, folder: str) -> str:
    """The exported policy a relative spec names inside ``folder``; RequestError if it is missing or would leave it."""
    relative = spec
    for ext in (".npz", ".json"):
        relative = relative.removesuffix(ext)
    for ext in (".npz", ".json"):  # both files, each resolved on its own: a link may not lead outside
        if not os.path.isfile(resolve_inside(folder, relative + ext)):
            raise RequestError(f"agent spec {spec!r}: no exported policy <name>.npz + <name>.json at that path "
                               f"under {folder}; allowed: {safe_agent_forms(folder)}")
    return os.path.join(os.path.realpath(folder), relative)


def resolve_inside(folder: str, relative) -> str:
    """The real path of ``relative`` under ``folder``; RequestError for an absolute path or one that leaves it."""
    if not isinstance(relative, str) or not relative or "\0" in relative:
        raise RequestError(f"a file must be named by a non-empty path relative to {folder}, got {relative!r}")
    if os.path.isabs(relative):
        raise RequestError(f"{relative!r} is an absolute path; name a file relative to {folder}")
    root = os.path.realpath(folder)
    path = os.path.realpath(os.path.join(root, relative))
    if os.path.commonpath([root, path]) != root:
        raise RequestError(f"{relative!r} is outside {folder}; only files under that folder can be opened", 403)
    return path


def rules_from_request(data: dict) -> RuleSet:
    """The rule set of a new-game request: ``variant``, ``players`` and ``options`` (``KEY=VALUE`` strings)."""
    variant, players, pairs = data.get("variant", "classic"), data.get("players", 2), data.get("options") or []
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise RequestError(f"unknown variant {variant!r}; available: {', '.join(VARIANTS)}")
    if not isinstance(pairs, list) or not all(isinstance(p, str) for p in pairs):
        raise RequestError(f"options must be a list of KEY=VALUE strings, got {pairs!r}")
    rules = RuleSet.create(variant, players, parse_options(pairs))
    for key, value in rules.options.items():
        if key.endswith("deck_manifest") and value != "proposed":
            raise RequestError(f"rule option {key!r} = {value!r}: this server reads no deck manifest files; "
                               "allowed: proposed")
    return rules


class GameSession:
    """One browser game after another (rematches) with the same rules, opponents and human seat."""

    def __init__(self, rules: RuleSet, opponents: list, seat, seed, folder: str | None):
        n = rules.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise RequestError(f"seat must be an int in 0..{n - 1} with {n} players, got {seat!r}")
        if not isinstance(opponents, list) or len(opponents) not in (1, n - 1):
            raise RequestError(f"{n} players need {n - 1} opponent specs (or one for all), got {opponents!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31):
            raise RequestError(f"seed must be an int in 0..{2**31 - 1} or empty, got {seed!r}")
        self.rules, self.seat, self.folder = rules, seat, folder
        specs = opponents * (n - 1) if len(opponents) == 1 else list(opponents)
        self.spec_of = dict(zip([q for q in range(n) if q != seat], specs))
        self.names = [f"P{q} you" if q == seat else f"P{q} {agents.display_name(str(self.spec_of[q]))}"
                      for q in range(n)]
        self.seeds = np.random.default_rng(seed)  # seeds the first game and every rematch
        self.lock = threading.Lock()
        self.games = 0
        self.events = self.new_game(seed if seed is not None else self._next_seed())

    def _next_seed(self) -> int:
        return int(self.seeds.integers(2**31))

    def new_game(self, seed: int) -> list[dict]:
        """Deal a new game (loading the opponents afresh); returns the opponents' moves up to the human's decision."""
        self.game = game = Game(self.rules)
        self.policies = {q: load_opponent(spec, game, seed + q, self.folder) for q, spec in self.spec_of.items()}
        self.encoder = ObservationEncoder(game)
        self.seed = seed
        self.state = game.new_state(seed)
        self.recorder = Recorder(game, seed, [self.spec_of.get(q, "human") for q in range(game.num_players)])
        self.games += 1
        return self._run_opponents()

    def rematch(self) -> list[dict]:
        """The next game with a fresh seed from this session's generator."""
        with self.lock:
            return self.new_game(self._next_seed())

    def act(self, action, step=None) -> list[dict]:
        """Apply the human's ``action`` (checked: its decision, a legal action, the current ``step``), then the opponents'."""
        with self.lock:
            state = self.state
            if state.is_over:
                raise RequestError("the game is over; start a rematch or a new game", 409)
            if state.current_seat != self.seat:
                raise RequestError("it is not your decision", 409)
            if step is not None and step != state.steps:
                raise RequestError(f"stale request: it was sent at step {step!r}, the game is at step {state.steps}",
                                   409)
            legal = self.game.legal_actions(state)
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                options = ", ".join(self.game.action_to_string(a, state) for a in legal)
                raise RequestError(f"action {action!r} is not one of your legal actions now; allowed: {options}")
            events = [self._event(step_narrated(self.game, state, action, self.seat, self.recorder))]
            return [e for e in events if e["lines"]] + self._run_opponents()

    def _run_opponents(self) -> list[dict]:
        events = []
        state = self.state
        while not state.is_over and state.current_seat != self.seat:
            policy = self.policies[state.current_seat]
            action = agents.choose_action(policy, self.game, state, self.encoder)
            lines = step_narrated(self.game, state, action, self.seat, self.recorder)
            if lines:  # a declined window says nothing: whether it was offered depends on hidden cards
                events.append(self._event(lines))
        return events

    def _event(self, lines: list[str]) -> dict:
        return {"lines": lines, "view": table_view(self.game, self.state, self.seat, self.names)}

    def view(self) -> dict:
        """The human seat's view now, with its decision or the result."""
        with self.lock:
            game, state = self.game, self.state
            view = table_view(game, state, self.seat, self.names)
            view.update(step=state.steps, game_number=self.games, rules=self.rules.to_dict(), decision=None,
                        result=None)
            if state.is_over:
                view["result"] = result_json(game, state, self.seat)
            elif state.current_seat == self.seat:
                view["decision"] = decision_json(game, state)
            return view

    def record_text(self) -> str:
        """The finished game as a JSON-lines record (refused while it runs: seed and actions would show every hand)."""
        with self.lock:
            if not self.state.is_over:
                raise RequestError("a game can be saved once it is over (its record shows every hand)", 409)
            import io

            out = io.StringIO()
            self.recorder.finish(self.state).write(out)
            return out.getvalue()


class Sessions:
    """The running games, each under an unguessable id; at most ``limit``, the least recently used dropped first."""

    def __init__(self, folder: str | None = None, limit: int = MAX_SESSIONS):
        self.folder, self.limit = folder, limit
        self.games: OrderedDict[str, GameSession] = OrderedDict()
        self.lock = threading.Lock()

    def create(self, data) -> tuple[str, GameSession]:
        """A new session from a new-game request body."""
        if not isinstance(data, dict):
            raise RequestError("the request body must be a JSON object with variant, players, options, opponents, "
                               "seat and seed")
        try:
            rules = rules_from_request(data)
            session = GameSession(rules, data.get("opponents", ["heuristic"]), data.get("seat", 0), data.get("seed"),
                                  self.folder)
        except INPUT_ERRORS as exc:
            raise RequestError(error_message(exc)) from None
        sid = secrets.token_urlsafe(24)
        with self.lock:
            self.games[sid] = session
            while len(self.games) > self.limit:
                self.games.popitem(last=False)
        return sid, session

    def get(self, sid: str) -> GameSession:
        """The session ``sid``; RequestError 404 for an unknown (or dropped) one."""
        with self.lock:
            session = self.games.get(sid)
            if session is None:
                raise RequestError("no such game (unknown or expired session); start a new game", 404)
            self.games.move_to_end(sid)
            return session
