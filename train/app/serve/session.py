"""Browser games: one human seat against agents, built from untrusted request data.

Every request's input is checked here before it reaches the engine: the rule set through
``RuleSet.create`` (no rule option that names a file, such as a deck manifest: ``refuse_file_options``;
``max_steps`` at most ``MAX_GAME_STEPS``), agent specs through ``load_opponent`` (built-in agents,
search within the ``MAX_SEARCH_*`` budgets and shipped policies; policy files, at any depth of a spec,
only from the folder the server was started with, never through ``..`` or an absolute path), actions
against the legal actions of the human's own decision. A rejected request raises ``RequestError`` and
leaves the game as it was.

A session's opponents stop deciding once the session is cancelled (dropped for a newer game beyond
``MAX_SESSIONS``, or its client went away mid-request): the run stops before the next opponent
decision and the session is discarded (its id then answers 404); no game is left half-advanced for a
later request.
"""
from __future__ import annotations

import os
import secrets
import threading
from collections import OrderedDict

import numpy as np

import agents
from agents import AgentSpecError, PolicyFileError, SearchOptionError
from uno_env import VARIANTS, Game, RuleSet, UnoError
from uno_env.errors import did_you_mean, short_repr
from uno_env.observation import ObservationEncoder
from uno_env.records import Recorder, file_options

from train.app.play.terminal import step_narrated
from train.app.serve.view import decision_json, result_json, table_view
from train.errors import UsageError, error_message
from train.rule_args import parse_options

MAX_SESSIONS = 64
"""Games kept at once; the least recently used one is dropped beyond this."""

MAX_SEARCH_ITERATIONS = 1000
"""Most ``ismcts`` iterations per decision a request may ask for (about 0.5-1.5 s per decision at a
10-player table, the dearest variant included)."""

MAX_SEARCH_SECONDS = 2.0
"""Most ``ismcts`` ``time`` (seconds per decision) a request may ask for."""

MAX_SEARCH_ROLLOUT_DEPTH = 50
"""Most ``ismcts`` ``rollout_depth`` (decisions per rollout) a request may ask for."""

MAX_GAME_STEPS = 20_000
"""Most ``max_steps`` (decisions per game or match) a request may ask for: the replay viewer's limit."""

MAX_SPEC_CHARS = 200
"""Longest agent spec a request may name (it is shown as the seat's name in every view)."""

MAX_PATH_CHARS = 1024
"""Longest file path (relative to the folder) a request may name."""

SEARCH_CAPS = {"iterations": MAX_SEARCH_ITERATIONS, "time": MAX_SEARCH_SECONDS,
               "rollout_depth": MAX_SEARCH_ROLLOUT_DEPTH}

INPUT_ERRORS = (UnoError, AgentSpecError, PolicyFileError, SearchOptionError, UsageError)

GONE = "no such game (it was dropped: too many games at once, or its page went away); start a new game"


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
    return f"{', '.join(agents.BUILTIN)}, ismcts[:key=value,...], level:<easy|medium|hard|expert>, " \
           "pretrained (the game's variant), " \
           f"pretrained:<name> ({shipped}), {files}"


def check_spec(spec, folder: str | None) -> str:
    """An untrusted agent spec, stripped; RequestError for a non-string, an overlong one or a search over a cap.

    Nothing is loaded or looked up on disk here: a refused spec costs nothing."""
    if not isinstance(spec, str) or not spec.strip():
        raise RequestError(f"agent spec must be a non-empty string, got {short_repr(spec)}; "
                           f"allowed: {safe_agent_forms(folder)}")
    spec = spec.strip()
    if len(spec) > MAX_SPEC_CHARS:
        raise RequestError(f"agent spec {short_repr(spec)} is longer than {MAX_SPEC_CHARS} characters")
    if spec == "ismcts" or spec.startswith("ismcts:"):
        try:
            options = agents.parse_options(spec[len("ismcts:"):])
        except SearchOptionError as exc:
            raise RequestError(error_message(exc)) from None
        for key, cap in SEARCH_CAPS.items():
            if options[key] > cap:
                raise RequestError(f"agent spec {short_repr(spec)}: ismcts {key}={options[key]} is over this "
                                   f"server's cap of {cap} per decision ({key} <= {cap})")
    return spec


def load_opponent(spec, game: Game, seed: int, folder: str | None):
    """The agent of an untrusted ``spec``; policy files (the spec's own or a search's ``prior=``) only inside
    ``folder``, none without one (RequestError otherwise)."""
    spec = check_spec(spec, folder)
    return agents.load(spec, game, seed=seed, resolve_path=policy_resolver(folder))


def policy_resolver(folder: str | None):
    """The ``resolve_path`` of ``agents.load`` for a request: a policy path under ``folder``, or RequestError.

    It is called for every spec that names no built-in agent, search or shipped policy, before any file
    is looked at, so a refusal never depends on what exists outside the folder."""
    def resolve(spec: str) -> str:
        if folder is not None:
            return policy_path(spec, folder)
        if any(sep in spec for sep in ("/", "\\", os.sep)) or spec.endswith((".npz", ".json")):
            raise RequestError(f"agent spec {short_repr(spec)} is not allowed: this server loads no policy files; "
                               f"allowed: {safe_agent_forms(folder)}")
        known = [*agents.BUILTIN, "ismcts", "pretrained", *(f"pretrained:{n}" for n in agents.pretrained_names())]
        raise RequestError(f"unknown agent spec {short_repr(spec)}{did_you_mean(spec, known)}; "
                           f"allowed: {safe_agent_forms(folder)}")
    return resolve


def policy_path(spec: str, folder: str) -> str:
    """The exported policy a relative spec names inside ``folder``; RequestError if it is missing or would leave it."""
    relative = spec
    for ext in (".npz", ".json"):
        relative = relative.removesuffix(ext)
    for ext in (".npz", ".json"):  # both files, each resolved on its own: a link may not lead outside
        if not os.path.isfile(resolve_inside(folder, relative + ext)):
            raise RequestError(f"agent spec {short_repr(spec)}: no exported policy <name>.npz + <name>.json at "
                               f"that path under {folder}; allowed: {safe_agent_forms(folder)}")
    return os.path.join(os.path.realpath(folder), relative)


def resolve_inside(folder: str, relative) -> str:
    """The real path of ``relative`` under ``folder``; RequestError for an absolute path or one that leaves it."""
    if not isinstance(relative, str) or not relative or "\0" in relative or len(relative) > MAX_PATH_CHARS:
        raise RequestError(f"a file must be named by a non-empty path relative to {folder} (at most "
                           f"{MAX_PATH_CHARS} characters), got {short_repr(relative)}")
    try:
        relative.encode("utf-8")
    except UnicodeEncodeError:
        raise RequestError(f"{short_repr(relative)} is not a valid file name") from None
    if os.path.isabs(relative):
        raise RequestError(f"{short_repr(relative)} is an absolute path; name a file relative to {folder}")
    root = os.path.realpath(folder)
    path = os.path.realpath(os.path.join(root, relative))
    if os.path.commonpath([root, path]) != root:
        raise RequestError(f"{short_repr(relative)} is outside {folder}; only files under that folder can be opened",
                           403)
    return path


def rules_from_request(data: dict) -> RuleSet:
    """The rule set of a new-game request: ``variant``, ``players`` and ``options`` (``KEY=VALUE`` strings)."""
    variant, players, pairs = data.get("variant", "classic"), data.get("players", 2), data.get("options") or []
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise RequestError(f"unknown variant {short_repr(variant)}; available: {', '.join(VARIANTS)}")
    vdef = VARIANTS[variant]
    if isinstance(players, bool) or not isinstance(players, int):
        raise RequestError(f"players must be an int in {vdef.min_players}..{vdef.max_players}, "
                           f"got {short_repr(players)}")
    if not vdef.min_players <= players <= vdef.max_players:
        raise RequestError(f"players = {short_repr(players)} is outside {variant}'s range "
                           f"{vdef.min_players}..{vdef.max_players}")
    if not isinstance(pairs, list) or not all(isinstance(p, str) for p in pairs):
        raise RequestError(f"options must be a list of KEY=VALUE strings, got {short_repr(pairs)}")
    rules = RuleSet.create(variant, players, parse_options(pairs))
    refuse_file_options(rules)
    if rules.options.get("max_steps", 0) > MAX_GAME_STEPS:
        raise RequestError(f"rule option max_steps = {short_repr(rules.options['max_steps'])} is over this server's "
                           f"cap of {MAX_GAME_STEPS} decisions per game (max_steps <= {MAX_GAME_STEPS})")
    return rules


def refuse_file_options(rules: RuleSet) -> None:
    """RequestError if ``rules`` set a rule option that names a file (``uno_env.records.file_options``: a deck
    manifest, any free-text option), before any file is opened; the answer is the same whatever the file is."""
    named = file_options(rules)
    if named:
        allowed = ", ".join(f"{key}={default}" for key, default in named.items())
        raise RequestError(f"rule option {', '.join(map(repr, named))} names a file: this server reads no "
                           f"deck manifest files or other files that a request names; allowed: {allowed}")


class GameSession:
    """One browser game after another (rematches) with the same rules, opponents and human seat."""

    def __init__(self, rules: RuleSet, opponents: list, seat, seed, folder: str | None,
                 cancelled: threading.Event | None = None):
        n = rules.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise RequestError(f"seat must be an int in 0..{n - 1} with {n} players, got {short_repr(seat)}")
        if not isinstance(opponents, list) or len(opponents) not in (1, n - 1):
            raise RequestError(f"{n} players need {n - 1} opponent specs (or one for all), got {short_repr(opponents)}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31):
            raise RequestError(f"seed must be an int in 0..{2**31 - 1} or empty, got {short_repr(seed)}")
        specs = [check_spec(spec, folder) for spec in opponents]  # every spec checked before anything is loaded
        self.rules, self.seat, self.folder = rules, seat, folder
        self.cancelled = cancelled if cancelled is not None else threading.Event()
        specs = specs * (n - 1) if len(specs) == 1 else specs
        self.spec_of = dict(zip([q for q in range(n) if q != seat], specs))
        self.names = [f"P{q} you" if q == seat else f"P{q} {agents.display_name(self.spec_of[q])}"
                      for q in range(n)]
        self.seeds = np.random.default_rng(seed)  # seeds the first game and every rematch
        self.lock = threading.Lock()
        self.games = 0
        self.events = self.new_game(seed if seed is not None else self._next_seed())

    def _next_seed(self) -> int:
        return int(self.seeds.integers(2**31))

    def new_game(self, seed: int) -> list[dict]:
        """Deal a new game (loading the opponents afresh); returns the opponents' moves up to the human's decision."""
        game = Game(self.rules)
        try:
            policies = {q: load_opponent(spec, game, seed + q, self.folder) for q, spec in self.spec_of.items()}
        except INPUT_ERRORS as exc:
            raise RequestError(error_message(exc)) from None
        self.game, self.policies = game, policies
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
                raise RequestError(f"stale request: it was sent at step {short_repr(step)}, the game is at step "
                                   f"{state.steps}", 409)
            legal = self.game.legal_actions(state)
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                options = ", ".join(self.game.action_to_string(a, state) for a in legal)
                raise RequestError(f"action {short_repr(action)} is not one of your legal actions now; "
                                   f"allowed: {options}")
            events = [self._event(step_narrated(self.game, state, action, self.seat, self.recorder))]
            return [e for e in events if e["lines"]] + self._run_opponents()

    def _run_opponents(self) -> list[dict]:
        """The opponents' decisions up to the human's (or the end); RequestError 404 once the session is cancelled."""
        events = []
        state = self.state
        while not state.is_over and state.current_seat != self.seat:
            if self.cancelled.is_set():  # dropped, or its client went away: no more work for it
                raise RequestError(GONE, 404)
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

    def create(self, data, cancelled: threading.Event | None = None) -> tuple[str, GameSession]:
        """A new session from a new-game request body; ``cancelled`` set: its opponents stop, nothing is kept."""
        if not isinstance(data, dict):
            raise RequestError("the request body must be a JSON object with variant, players, options, opponents, "
                               "seat and seed")
        try:
            rules = rules_from_request(data)
            session = GameSession(rules, data.get("opponents", ["heuristic"]), data.get("seat", 0), data.get("seed"),
                                  self.folder, cancelled)
        except INPUT_ERRORS as exc:
            raise RequestError(error_message(exc)) from None
        if session.cancelled.is_set():
            raise RequestError(GONE, 404)
        sid = secrets.token_urlsafe(24)
        with self.lock:
            self.games[sid] = session
            while len(self.games) > self.limit:
                _, dropped = self.games.popitem(last=False)
                dropped.cancelled.set()  # a request still running for it stops at its next opponent decision
        return sid, session

    def get(self, sid) -> GameSession:
        """The session ``sid``; RequestError 404 for an unknown (or dropped) one."""
        with self.lock:
            session = self.games.get(sid) if isinstance(sid, str) else None
            if session is None or session.cancelled.is_set():
                raise RequestError("no such game (unknown or expired session); start a new game", 404)
            self.games.move_to_end(sid)
            return session

    def drop(self, session: GameSession) -> None:
        """Cancel ``session`` (its opponents stop at their next decision) and forget it."""
        session.cancelled.set()
        with self.lock:
            for sid, kept in list(self.games.items()):
                if kept is session:
                    del self.games[sid]
