"""The Starlette application of ``uno-env serve``: the static page and a small JSON API.

    GET  /                          the page (static/index.html; static/app.js, static/style.css)
    GET  /api/config                variants, their player ranges and rule options, agent specs, record files
    POST /api/games                 new game {variant, players, options: ["key=value"], opponents, seat, seed}
    GET  /api/games/{id}            the human seat's view
    POST /api/games/{id}/act        {action, step}: the human's decision; the opponents' moves follow as events
    POST /api/games/{id}/rematch    the next game, same settings
    GET  /api/games/{id}/record     the finished game as a JSON-lines record (a download)
    POST /api/replay                {text | path, game, start, count}: a page of a recorded game's frames

Errors are JSON ``{"error": message}`` with a 4xx status; they never change a game (an unexpected
failure is a 500 ``{"error": ...}`` without details). Requests must name this server as their host
(``TrustedHostMiddleware``), so a web page elsewhere cannot reach it through a rebound DNS name, and
every state-changing request must be a same-origin JSON request (``SameOriginJSON``), so a web page
elsewhere cannot drive it with a form or a ``text/plain`` fetch. While the opponents decide or a record
replays, a request whose client goes away cancels its work (``watched``); a request body must arrive
within ``BODY_TIMEOUT_SECONDS`` (``uno-env serve`` also closes a connection whose request head is slow:
``train/app/serve/command.py``). No route reads a file a request's rules name (a deck manifest).
"""
from __future__ import annotations

import asyncio
import json
import os
import threading

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import agents
from agents.levels import LEVELS, measured as measured_levels
from uno_env import VARIANTS
from uno_env.records import names_a_file

from train.app.serve.replays import MAX_RECORD_BYTES, list_records, replay_request
from train.app.serve.session import RequestError, Sessions, safe_agent_forms

STATIC = os.path.join(os.path.dirname(__file__), "static")
LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

MAX_BODY_BYTES = MAX_RECORD_BYTES + 4096
"""Largest request body: a record upload of ``MAX_RECORD_BYTES`` and its JSON wrapping."""

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
"""Methods that change nothing; every other one must be a same-origin JSON request."""

DISCONNECT_POLL_SECONDS = 0.2
"""How often a request whose opponents are deciding checks that its client is still there."""

BODY_TIMEOUT_SECONDS = 30.0
"""Longest a request body may take to arrive (408 after that): a slow client cannot hold a request open.
A record upload of ``MAX_BODY_BYTES`` needs a little over 2 Mbit/s to arrive in time."""


class JSON(JSONResponse):
    """A JSON answer in ASCII: a lone surrogate a request sent (and an error message repeats) cannot break it."""

    def render(self, content) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def refusal(message: str, status: int) -> JSON:
    return JSON({"error": message}, status_code=status)


class SameOriginJSON:
    """ASGI middleware: a state-changing request (any method but GET, HEAD, OPTIONS) must come from this
    server's own page or from a client that is no browser page: ``Origin``, if sent, is this server's
    ``scheme://host[:port]`` and ``Sec-Fetch-Site``, if sent, is ``same-origin`` or ``none`` (else 403);
    its body is at most ``MAX_BODY_BYTES`` (413) of ``application/json`` (415), a type a cross-site page
    cannot send without a CORS preflight, which this server never grants."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            refused = state_change_refusal(scope)
            if refused is not None:
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


def state_change_refusal(scope) -> JSON | None:
    """The answer refusing a state-changing request, or None when it may go on."""
    headers = Headers(scope=scope)
    origin = headers.get("origin")
    if origin is not None:
        own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}".lower()
        if origin.strip().lower() != own:
            return refusal("cross-origin request refused: only this server's own page may change a game", 403)
    site = headers.get("sec-fetch-site")
    if site is not None and site.strip().lower() not in ("same-origin", "none"):
        return refusal("cross-site request refused: only this server's own page may change a game", 403)
    size = headers.get("content-length")
    if size is not None and (not size.isdigit() or len(size) > 15 or int(size) > MAX_BODY_BYTES):
        return refusal(f"the request body is larger than {MAX_BODY_BYTES // 2**20} MB", 413)
    media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        return refusal("the request body must be JSON sent as Content-Type: application/json", 415)
    return None


def option_schema() -> dict:
    """Per variant: the player range and every rule option (key, default, allowed values, doc) the page offers."""
    out = {}
    for name, vdef in VARIANTS.items():
        options = []
        for o in vdef.options:
            if names_a_file(name, o):  # the server reads no file a request names
                continue
            default = list(o.default) if isinstance(o.default, tuple) else o.default
            choices = list(o.choices) if o.choices is not None else ([True, False] if o.type is bool else None)
            options.append({"key": o.key, "default": default, "choices": choices, "doc": o.doc})
        out[name] = {"min_players": vdef.min_players, "max_players": vdef.max_players, "options": options}
    return out


def build_app(folder: str | None = None, allowed_hosts: list[str] | None = None) -> Starlette:
    """The application; ``folder``: the one folder whose records and policies requests may name."""
    if folder is not None and not os.path.isdir(folder):
        raise NotADirectoryError(f"--folder {folder!r} is not a directory")
    sessions = Sessions(folder)

    async def index(request: Request) -> Response:
        return FileResponse(os.path.join(STATIC, "index.html"))

    async def config(request: Request) -> Response:
        return JSON({"variants": schema,
                     "agents": [*(f"level:{name}" for name in LEVELS), *agents.BUILTIN, "ismcts:iterations=200",
                                *(f"pretrained:{n}" for n in agents.pretrained_names())],
                     # each level's spec and its measured win rate against heuristic per table (agents/levels.py)
                     "levels": {name: {"spec": level.spec, "about": level.about} for name, level in LEVELS.items()},
                     "level_rates": measured_levels(),
                     "agent_forms": safe_agent_forms(folder), "records": list_records(folder),
                     "folder": folder is not None})

    async def new_game(request: Request) -> Response:
        data = await body(request)
        cancelled = threading.Event()
        sid, session = await watched(request, cancelled, sessions.create, data, cancelled)
        return JSON({"session": sid, "events": session.events, "view": session.view()})

    async def show(request: Request) -> Response:
        return JSON({"view": sessions.get(request.path_params["sid"]).view()})

    async def act(request: Request) -> Response:
        session = sessions.get(request.path_params["sid"])
        data = await body(request)
        if not isinstance(data, dict) or "action" not in data:
            raise RequestError("the request body must be a JSON object {\"action\": <id>, \"step\": <step>}")
        events = await watched(request, session.cancelled, session.act, data["action"], data.get("step"),
                               drop=lambda: sessions.drop(session))
        return JSON({"events": events, "view": session.view()})

    async def rematch(request: Request) -> Response:
        session = sessions.get(request.path_params["sid"])
        await body(request, empty_ok=True)  # nothing is read from it
        events = await watched(request, session.cancelled, session.rematch, drop=lambda: sessions.drop(session))
        return JSON({"events": events, "view": session.view()})

    async def record(request: Request) -> Response:
        session = sessions.get(request.path_params["sid"])
        text = session.record_text()
        name = f"uno-{session.rules.variant}-game{session.games}-seed{session.seed}.jsonl"
        return Response(text, media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def replay(request: Request) -> Response:
        data = await body(request)
        cancelled = threading.Event()  # a replay, like a game, stops once its client goes away
        return JSON(await watched(request, cancelled, replay_request, folder, data, cancelled))

    async def refused(request: Request, exc: RequestError) -> Response:
        return refusal(str(exc), exc.status)

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return JSON({"error": exc.detail if isinstance(exc.detail, str) else "refused"}, status_code=exc.status_code,
                    headers=exc.headers)

    async def internal(request: Request, exc: Exception) -> Response:
        return refusal("internal server error (the server's log has the details)", 500)

    schema = option_schema()
    routes = [Route("/", index), Route("/api/config", config), Route("/api/games", new_game, methods=["POST"]),
              Route("/api/games/{sid}", show), Route("/api/games/{sid}/act", act, methods=["POST"]),
              Route("/api/games/{sid}/rematch", rematch, methods=["POST"]),
              Route("/api/games/{sid}/record", record), Route("/api/replay", replay, methods=["POST"]),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]
    hosts = allowed_hosts if allowed_hosts is not None else LOCAL_HOSTS
    app = Starlette(routes=routes,
                    exception_handlers={RequestError: refused, HTTPException: http_error, Exception: internal},
                    middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts), Middleware(SameOriginJSON)])
    app.state.sessions = sessions  # the tests compare what the page shows with the true state
    return app


async def watched(request: Request, cancelled: threading.Event, fn, *args, drop=None):
    """``fn(*args)`` in a worker thread; if the client goes away first, ``cancelled`` is set (the opponents
    stop before their next decision) and ``drop()`` forgets the session."""
    task = asyncio.ensure_future(run_in_threadpool(fn, *args))
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=DISCONNECT_POLL_SECONDS)
            if not task.done() and await request.is_disconnected():
                cancelled.set()
                if drop is not None:
                    drop()
                break
        return await task
    except asyncio.CancelledError:  # the server is stopping this request: stop its work too
        cancelled.set()
        if drop is not None:
            drop()
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # its refusal is nobody's to read
        raise


async def body(request: Request, empty_ok: bool = False):
    """The request's JSON body (RequestError: too large, too slow to arrive, not JSON, nested too deeply, a
    too long number); ``empty_ok``: an empty body is None."""
    chunks = []

    async def read() -> None:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise RequestError(f"the request body is larger than {MAX_BODY_BYTES // 2**20} MB", 413)
            chunks.append(chunk)

    try:
        await asyncio.wait_for(read(), BODY_TIMEOUT_SECONDS)
    except ClientDisconnect:
        raise RequestError("the client went away", 400) from None
    except asyncio.TimeoutError:
        raise RequestError(f"the request body did not arrive within {BODY_TIMEOUT_SECONDS:g} s", 408) from None
    raw = b"".join(chunks)
    if empty_ok and not raw.strip():
        return None
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except RecursionError:
        raise RequestError("the request body is nested too deeply") from None
    except ValueError as exc:  # not JSON, not UTF-8, NaN/Infinity, or an int of more than 4,300 digits
        raise RequestError(f"the request body is not JSON ({str(exc)[:200]})") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")
