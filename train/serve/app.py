"""The Starlette application of ``uno-env serve``: the static page and a small JSON API.

    GET  /                          the page (static/index.html; static/app.js, static/style.css)
    GET  /api/config                variants, their player ranges and rule options, agent specs, record files
    POST /api/games                 new game {variant, players, options: ["key=value"], opponents, seat, seed}
    GET  /api/games/{id}            the human seat's view
    POST /api/games/{id}/act        {action, step}: the human's decision; the opponents' moves follow as events
    POST /api/games/{id}/rematch    the next game, same settings
    GET  /api/games/{id}/record     the finished game as a JSON-lines record (a download)
    POST /api/replay                {text | path, game}: every frame of a recorded game, all hands shown

Errors are JSON ``{"error": message}`` with a 4xx status; they never change a game. Requests must
name this server as their host (``TrustedHostMiddleware``), so a web page elsewhere cannot reach it
through a rebound DNS name.
"""
from __future__ import annotations

import json
import os

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import agents
from uno_env import VARIANTS

from .replays import MAX_RECORD_BYTES, list_records, read_folder_record, replay_game
from .session import RequestError, Sessions, safe_agent_forms

STATIC = os.path.join(os.path.dirname(__file__), "static")
LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]"]


def option_schema() -> dict:
    """Per variant: the player range and every rule option (key, default, allowed values, doc) the page offers."""
    out = {}
    for name, vdef in VARIANTS.items():
        options = []
        for o in vdef.options:
            if o.key.endswith("deck_manifest"):  # names a file: the server reads none
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
        return JSONResponse({"variants": schema, "agents": [*agents.BUILTIN, "ismcts:iterations=200",
                                                            *(f"pretrained:{n}" for n in agents.pretrained_names())],
                             "agent_forms": safe_agent_forms(folder), "records": list_records(folder),
                             "folder": folder is not None})

    async def new_game(request: Request) -> Response:
        data = await body(request)
        sid, session = await run_in_threadpool(sessions.create, data)
        return JSONResponse({"session": sid, "events": session.events, "view": session.view()})

    async def show(request: Request) -> Response:
        return JSONResponse({"view": sessions.get(request.path_params["sid"]).view()})

    async def act(request: Request) -> Response:
        session = sessions.get(request.path_params["sid"])
        data = await body(request)
        if not isinstance(data, dict) or "action" not in data:
            raise RequestError("the request body must be a JSON object {\"action\": <id>, \"step\": <step>}")
        events = await run_in_threadpool(session.act, data["action"], data.get("step"))
        return JSONResponse({"events": events, "view": session.view()})

    async def rematch(request: Request) -> Response:
        session = sessions.get(request.path_params["sid"])
        events = await run_in_threadpool(session.rematch)
        return JSONResponse({"events": events, "view": session.view()})

    async def record(request: Request) -> Response:
        session = sessions.get(request.path_params["sid"])
        text = session.record_text()
        name = f"uno-{session.rules.variant}-game{session.games}-seed{session.seed}.jsonl"
        return Response(text, media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def replay(request: Request) -> Response:
        data = await body(request)
        if not isinstance(data, dict):
            raise RequestError("the request body must be a JSON object {\"text\": ...} or {\"path\": ...}")
        text = data.get("text") if "text" in data else read_folder_record(folder, data.get("path"))
        return JSONResponse(await run_in_threadpool(replay_game, text, data.get("game", 0)))

    async def refused(request: Request, exc: RequestError) -> Response:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    schema = option_schema()
    routes = [Route("/", index), Route("/api/config", config), Route("/api/games", new_game, methods=["POST"]),
              Route("/api/games/{sid}", show), Route("/api/games/{sid}/act", act, methods=["POST"]),
              Route("/api/games/{sid}/rematch", rematch, methods=["POST"]),
              Route("/api/games/{sid}/record", record), Route("/api/replay", replay, methods=["POST"]),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]
    hosts = allowed_hosts if allowed_hosts is not None else LOCAL_HOSTS
    app = Starlette(routes=routes, exception_handlers={RequestError: refused},
                    middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])
    app.state.sessions = sessions  # the tests compare what the page shows with the true state
    return app


async def body(request: Request):
    """The request's JSON body (RequestError: too large or not JSON)."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_RECORD_BYTES + 4096):
        raise RequestError(f"the request body is larger than {MAX_RECORD_BYTES // 2**20} MB", 413)
    raw = await request.body()
    if len(raw) > MAX_RECORD_BYTES + 4096:
        raise RequestError(f"the request body is larger than {MAX_RECORD_BYTES // 2**20} MB", 413)
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RequestError(f"the request body is not JSON ({exc})") from None
