"""``uno-env serve`` against hostile requests: policy files named inside agent specs, search budgets,
cross-site requests, malformed bodies, oversized answers and work for sessions that are gone.

Every refusal is a 4xx answer ``{"error": "<one line>"}``; attacks whose regression would eat memory or
a core run in a bounded subprocess (``run_bounded``), so they fail instead of hanging the suite."""
from __future__ import annotations

import asyncio
import io
import json
import re
import os
import shutil
import threading
import warnings

import pytest

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2 in its test client; httpx works the same here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import agents
from uno_env import Game
from uno_env.records import Recorder
from train.app.serve import replays
from train.app.serve.app import MAX_BODY_BYTES, build_app
from train.app.serve.session import (MAX_GAME_STEPS, MAX_SEARCH_ITERATIONS, MAX_SEARCH_ROLLOUT_DEPTH, MAX_SEARCH_SECONDS,
                                 RequestError, Sessions)

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

LOCAL = "http://127.0.0.1"
PRELOAD = ("train.app.serve.app", "starlette.testclient")


def client(folder=None, **kw) -> TestClient:
    return TestClient(build_app(None if folder is None else str(folder)), base_url=LOCAL, **kw)


def refused(r, status: int | tuple = (400, 403, 404, 409, 413, 415), says: str = "") -> str:
    """Assert ``r`` is a refusal: the status, a JSON ``{"error"}`` of one short line containing ``says``."""
    statuses = (status,) if isinstance(status, int) else status
    assert r.status_code in statuses, (r.status_code, r.text[:300])
    body = r.json()
    assert set(body) == {"error"} and isinstance(body["error"], str), r.text[:300]
    assert "\n" not in body["error"] and len(body["error"]) < 1200, body["error"][:300]
    assert says in body["error"], body["error"]
    return body["error"]


def post_json(c, path: str, body):
    """POST ``body`` as ASCII JSON (lone surrogates escaped, as a script could send them)."""
    return c.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def policy_pair(folder, name: str) -> None:
    for ext in (".npz", ".json"):
        shutil.copy(os.path.join(agents.PRETRAINED_DIR, "classic" + ext), folder / (name + ext))


# ---------------------------------------------------------------- 2: files named inside agent specs


def test_a_search_prior_cannot_load_a_policy_without_a_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    policy_pair(outside, "p")
    c = client()
    messages = {}
    for prior in (str(outside / "p"), str(outside / "absent"), "../outside/p", "../outside/absent", "p.json"):
        r = c.post("/api/games", json={"opponents": [f"ismcts:iterations=5,prior={prior}"]})
        messages[prior] = refused(r, 400, "this server loads no policy files")
    # the answer says nothing about whether the file exists
    def without_spec(message: str) -> str:  # the spec itself is echoed (cut short), so it differs by its length
        return re.sub(r"'[^']*'", "X", message, count=1)

    assert without_spec(messages[str(outside / "p")]) == without_spec(messages[str(outside / "absent")])
    assert len(c.app.state.sessions.games) == 0
    for prior in ("pretrained", "pretrained:classic", "none"):
        r = c.post("/api/games", json={"opponents": [f"ismcts:iterations=5,leaf=sizes,prior={prior}"], "seed": 1})
        assert r.status_code == 200, r.text


def test_a_searchs_opponent_policy_passes_the_same_rules_as_its_prior(tmp_path):
    """opponents=policy loads a policy file too: without a folder the server opens none, shipped ones play."""
    outside = tmp_path / "outside"
    outside.mkdir()
    policy_pair(outside, "p")
    c = client()
    for path in (str(outside / "p"), "../outside/p", str(outside / "absent")):
        r = c.post("/api/games", json={"opponents": [f"ismcts:iterations=5,opponents=policy,opponent_policy={path}"]})
        refused(r, 400, "this server loads no policy files")
    assert len(c.app.state.sessions.games) == 0
    r = c.post("/api/games", json={"opponents": ["ismcts:iterations=5,leaf=sizes,opponents=policy"], "seed": 1})
    assert r.status_code == 200, r.text
    assert c.app.state.sessions.get(r.json()["session"]).policies[1].policy_opponent is not None


def test_a_search_prior_obeys_the_folder_rules(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    policy_pair(outside, "p")
    folder = tmp_path / "allowed"
    (folder / "runs").mkdir(parents=True)
    policy_pair(folder / "runs", "mine")
    os.symlink(outside / "p.json", folder / "link.json")
    os.symlink(outside / "p.npz", folder / "link.npz")
    c = client(folder)
    r = c.post("/api/games", json={"opponents": ["ismcts:iterations=5,leaf=sizes,prior=runs/mine"], "seed": 1})
    assert r.status_code == 200, r.text
    session = c.app.state.sessions.get(r.json()["session"])
    assert session.policies[1].guide is not None
    said = {}
    for prior, status, says in (("../outside/p", 403, "outside"), ("../outside/absent", 403, "outside"),
                                (str(outside / "p"), 400, "absolute"), (str(outside / "absent"), 400, "absolute"),
                                ("link", 403, "outside"), ("runs/absent", 400, "no exported policy")):
        r = c.post("/api/games", json={"opponents": [f"ismcts:iterations=5,leaf=sizes,prior={prior}"]})
        said[prior] = refused(r, status, says)
    assert said["../outside/p"].replace("outside/p", "outside/X") == \
        said["../outside/absent"].replace("outside/absent", "outside/X")


def test_the_loader_hands_every_named_path_to_the_resolver_before_the_disk(tmp_path, monkeypatch):
    g = Game("classic", 2)
    asked = []

    class Refused(Exception):
        pass

    def resolve(path):
        asked.append(path)
        raise Refused(path)

    looked = []
    for name in ("exists", "isfile"):
        real = getattr(os.path, name)
        monkeypatch.setattr(os.path, name, lambda p, real=real: looked.append(p) or real(p))
    for spec, path in (("/etc/p", "/etc/p"), ("ismcts:prior=/etc/q.npz", "/etc/q.npz"),
                       ("ismcts:iterations=3,prior=../r", "../r"), ("runs/s", "runs/s")):
        with pytest.raises(Refused):
            agents.load(spec, g, resolve_path=resolve)
        assert asked[-1] == path
    assert not any("/etc/" in str(p) or str(p).endswith(("r", "s")) for p in looked), looked
    monkeypatch.undo()
    with pytest.raises(agents.SearchOptionError, match="is not a policy"):  # refused before a search is built
        agents.load("ismcts:prior=ismcts:iterations=5", g, resolve_path=resolve)
    allowed = str(tmp_path / "mine")
    policy_pair(tmp_path, "mine")
    agent = agents.load("ismcts:leaf=sizes,prior=anything", g, resolve_path=lambda p: allowed)
    assert agent.guide is not None


# ---------------------------------------------------------------- 3: search budgets and work for gone sessions


@pytest.mark.parametrize("option, cap", [("iterations", MAX_SEARCH_ITERATIONS), ("time", MAX_SEARCH_SECONDS),
                                         ("rollout_depth", MAX_SEARCH_ROLLOUT_DEPTH)])
def test_a_search_over_a_cap_is_refused_naming_the_cap(option, cap):
    c = client()
    over = cap + 0.5 if isinstance(cap, float) else cap + 1  # just over: a regression costs seconds, not hours
    r = c.post("/api/games", json={"opponents": [f"ismcts:leaf=sizes,{option}={over}"]})
    refused(r, 400, f"{option} <= {cap}")
    r = c.post("/api/games", json={"players": 3, "opponents": ["random", f"ismcts:leaf=sizes,{option}={over}"]})
    refused(r, 400, f"cap of {cap}")
    assert len(c.app.state.sessions.games) == 0
    r = c.post("/api/games", json={"opponents": [f"ismcts:leaf=sizes,iterations=5,{option}={cap}"], "seed": 1})
    assert r.status_code == 200, r.text


def test_a_huge_search_request_costs_nothing(run_bounded):
    out = run_bounded("""
        import warnings; warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
        from train.app.serve.app import build_app
        c = TestClient(build_app(), base_url="http://127.0.0.1")
        r = c.post("/api/games", json={"players": 10, "seat": 9,
                                       "opponents": ["ismcts:iterations=1000000000,time=1000000000"]})
        print(r.status_code, r.json()["error"])
        r = c.post("/api/games", json={"players": 10, "seat": 9, "opponents": ["random"],
                                       "options": ["max_steps=1000000000", "match=true", "target_score=1000000000"]})
        print(r.status_code, r.json()["error"])
    """, preload=PRELOAD)
    assert out.returncode == 0, out.stderr[-2000:]
    first, second = out.stdout.splitlines()
    assert first.startswith("400 ") and "cap" in first
    assert second.startswith("400 ") and f"max_steps <= {MAX_GAME_STEPS}" in second


def test_overlong_agent_specs_are_refused():
    r = client().post("/api/games", json={"opponents": ["ismcts:" + "c=1," * 100_000 + "c=1"]})
    assert len(refused(r, 400, "longer than")) < 600


def plain_play_ahead(session) -> tuple[int, int]:
    """Advance ``session`` (the human's lowest actions) to a decision where the human can play a coloured card;
    returns that action and the step: after it, an opponent decides."""
    game = session.game
    while True:
        state = session.state
        assert not state.is_over
        for a in game.legal_actions(state):
            text = game.action_to_string(a, state)
            if text.startswith("play ") and a < game.num_kinds and not game.is_wild[a] \
                    and state.hand_size[session.seat] > 2:
                return a, state.steps
        session.act(min(game.legal_actions(state)), state.steps)


def test_a_dropped_session_stops_its_opponents(monkeypatch):
    sessions = Sessions(limit=1)
    sid, gone = sessions.create({"players": 10, "opponents": ["random"], "seed": 4})
    action, step = plain_play_ahead(gone)
    real = agents.choose_action
    calls, entered = [], threading.Event()

    def held(policy, game, state, encoder):
        if state is gone.state:  # the dropped game's opponents: the first decision waits until it is dropped
            calls.append(state.steps)
            entered.set()
            assert gone.cancelled.wait(60)
        return real(policy, game, state, encoder)

    monkeypatch.setattr(agents, "choose_action", held)
    outcome = {}
    worker = threading.Thread(target=_act, args=(gone, action, step, outcome))
    worker.start()
    assert entered.wait(60)
    sessions.create({"players": 2, "opponents": ["random"], "seed": 5})  # a 2nd game beyond the limit drops it
    worker.join(60)
    assert not worker.is_alive()
    assert isinstance(outcome.get("error"), RequestError) and outcome["error"].status == 404
    assert len(calls) == 1, "no opponent decided after the game was dropped"
    assert gone.state.current_seat != gone.seat and not gone.state.is_over
    with pytest.raises(RequestError, match="no such game"):
        sessions.get(sid)


def _act(session, action, step, outcome):
    try:
        outcome["events"] = session.act(action, step)
    except RequestError as exc:
        outcome["error"] = exc


def asgi_post(app, path: str, body: dict) -> list[dict]:
    """POST ``body`` to ``app`` as a client that goes away right after sending it; the messages sent back."""
    raw = json.dumps(body).encode()
    delivered = False

    async def receive():
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": raw, "more_body": False}
        return {"type": "http.disconnect"}

    sent = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                         (b"content-length", str(len(raw)).encode())],
             "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80)}
    asyncio.run(app(scope, receive, send))
    return sent


def test_a_client_that_goes_away_stops_its_opponents(monkeypatch):
    c = client()
    data = c.post("/api/games", json={"players": 10, "opponents": ["random"], "seed": 4}).json()
    sessions = c.app.state.sessions
    gone = sessions.get(data["session"])
    action, step = plain_play_ahead(gone)
    real = agents.choose_action
    calls = []

    def held(policy, game, state, encoder):
        if state is gone.state:  # the first opponent decision lasts until the server sees the client gone
            calls.append(state.steps)
            assert gone.cancelled.wait(60)
        return real(policy, game, state, encoder)

    monkeypatch.setattr(agents, "choose_action", held)
    asgi_post(c.app, f"/api/games/{data['session']}/act", {"action": action, "step": step})
    assert len(calls) == 1, "no opponent decided after the client went away"
    assert gone.cancelled.is_set() and gone.state.current_seat != gone.seat
    refused(c.get(f"/api/games/{data['session']}"), 404, "no such game")


# ---------------------------------------------------------------- 4: cross-site requests


def test_cross_site_requests_are_refused_and_change_nothing():
    c = client()
    data = c.post("/api/games", json={"opponents": ["random"], "seed": 1}).json()
    sid, view = data["session"], data["view"]
    before = c.get(f"/api/games/{sid}").json()
    body = json.dumps({"opponents": ["random"]})
    posts = ("/api/games", f"/api/games/{sid}/act", f"/api/games/{sid}/rematch", "/api/replay")
    for path in posts:
        for headers, status in (({"content-type": "text/plain", "origin": "http://evil.example"}, 403),
                                ({"content-type": "application/json", "origin": "http://evil.example"}, 403),
                                ({"content-type": "application/json", "origin": "null"}, 403),
                                ({"content-type": "application/json", "origin": "http://127.0.0.1:8000"}, 403),
                                ({"content-type": "application/json", "origin": "https://127.0.0.1"}, 403),
                                ({"content-type": "application/json", "sec-fetch-site": "cross-site"}, 403),
                                ({"content-type": "application/json", "sec-fetch-site": "same-site"}, 403),
                                ({"content-type": "text/plain"}, 415),
                                ({"content-type": "application/x-www-form-urlencoded"}, 415),
                                ({"content-type": "multipart/form-data; boundary=x"}, 415),
                                ({}, 415)):
            r = c.post(path, content=body, headers=headers)
            refused(r, status)
    assert list(c.app.state.sessions.games) == [sid]
    assert c.get(f"/api/games/{sid}").json() == before
    # the page's own requests, and clients that are no browser page, still work
    for headers in ({"origin": LOCAL}, {"origin": LOCAL, "sec-fetch-site": "same-origin"},
                    {"sec-fetch-site": "none"}, {}):
        r = c.post("/api/games", json={"opponents": ["random"]}, headers=headers)
        assert r.status_code == 200, (headers, r.text)
    r = c.post(f"/api/games/{sid}/act", json={"action": min(a["action"] for acts in view["decision"]["plays"].values()
                                                             for a in acts) if view["decision"]["plays"] else
                                              view["decision"]["buttons"][0]["action"]},
               headers={"content-type": "application/json; charset=utf-8", "origin": LOCAL})
    assert r.status_code == 200, r.text
    # GET requests stay open (a page elsewhere can send them but cannot read the answers)
    assert c.get("/api/config", headers={"origin": "http://evil.example"}).status_code == 200


def test_the_page_sends_what_the_server_requires():
    with open(os.path.join(os.path.dirname(build_app.__code__.co_filename), "static", "app.js"),
              encoding="utf-8") as fh:
        script = fh.read()
    assert 'method: "POST", headers: {"Content-Type": "application/json"}' in script
    assert script.count("fetch(") == 1  # every request goes through api(), which sends that header


def test_sixty_four_cross_site_posts_evict_nobody():
    c = client()
    sid = c.post("/api/games", json={"opponents": ["random"], "seed": 1}).json()["session"]
    for _ in range(70):
        c.post("/api/games", content='{"opponents": ["random"]}',
               headers={"content-type": "text/plain", "origin": "http://evil.example"})
    assert c.get(f"/api/games/{sid}").status_code == 200


# ---------------------------------------------------------------- 6: bodies that used to be a 500


def test_deeply_nested_and_huge_number_bodies_are_400(run_bounded):
    out = run_bounded("""
        import warnings; warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
        from train.app.serve.app import build_app
        c = TestClient(build_app(), base_url="http://127.0.0.1", raise_server_exceptions=False)
        sid = c.post("/api/games", json={"opponents": ["random"], "seed": 1}).json()["session"]
        bodies = [b"[" * 100_000, b"{\\"a\\":" * 100_000, b'{"seed": ' + b"7" * 5000 + b"}",
                  b'{"action": ' + b"9" * 100_000 + b"}", b'[' * 900 + b']' * 900, b"NaN", b'{"seed": Infinity}',
                  b'{"seed": 1e999}', b'\\xff\\xfe', b'"\\\\ud800"']
        for path in ("/api/games", f"/api/games/{sid}/act", f"/api/games/{sid}/rematch", "/api/replay"):
            for raw in bodies:
                r = c.post(path, content=raw, headers={"content-type": "application/json"})
                print(path.split("/")[-1], r.status_code, len(r.content), r.headers["content-type"])
    """, preload=PRELOAD)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert len(lines) == 40
    for line in lines:
        _, status, size, kind = line.split(" ", 3)
        # a refusal is short; a rematch (which takes any body) answers with the new game's view
        refused_briefly = 400 <= int(status) < 500 and int(size) < 2000
        assert (refused_briefly or (status == "200" and "rematch" in line and int(size) < 20_000)) \
            and kind == "application/json", line


@pytest.mark.parametrize("body", [
    {"seat": 10**4000}, {"seed": 10**4000}, {"players": 10**4000}, {"players": 1e308}, {"players": [2]},
    {"seat": [0]}, {"seed": {"a": 1}}, {"variant": ["classic"]}, {"variant": "x" * 100_000},
    {"options": [["stacking=any"]]}, {"options": {"stacking": "any"}}, {"options": [None]}, {"options": "x" * 10_000},
    {"opponents": [7]}, {"opponents": [None]}, {"opponents": [["random"]]}, {"opponents": [{"a": 1}]},
    {"opponents": "random"}, {"opponents": ["\ud800"]}, {"opponents": ["x" * 100_000]},
    {"opponents": [[[[[[["deep"]]]]]]]}, {"opponents": ["runs/\ud800"]}, {"opponents": ["random"] * 100_000},
])
def test_odd_new_game_bodies_are_a_short_400(body):
    c = client(raise_server_exceptions=False)
    r = post_json(c, "/api/games", {"opponents": ["random"], **body})
    assert len(refused(r, 400)) < 1200
    assert len(c.app.state.sessions.games) == 0


@pytest.mark.parametrize("body", [None, 5, "x", [], [1, 2], {"action": 10**4000}, {"action": 1e308},
                                  {"action": float("inf")}, {"action": [0]}, {"action": {"a": 1}},
                                  {"action": 0, "step": 10**4000}, {"action": 0, "step": [1]},
                                  {"action": "\ud800"}])
def test_odd_action_bodies_are_a_short_4xx(body):
    c = client(raise_server_exceptions=False)
    data = c.post("/api/games", json={"opponents": ["random"], "seed": 1}).json()
    before = c.get(f"/api/games/{data['session']}").json()
    r = post_json(c, f"/api/games/{data['session']}/act", body)
    refused(r, (400, 409))
    assert c.get(f"/api/games/{data['session']}").json() == before


@pytest.mark.parametrize("body", [None, 5, [], {"text": ["x"]}, {"text": None}, {"path": 5}, {"path": ["a"]},
                                  {"path": "x" * 100_000}, {"text": "x", "game": 10**4000}, {"text": "x", "game": [0]},
                                  {"text": "x", "game": -1}, {"text": "x", "start": 1e308}, {"text": "x", "count": 0},
                                  {"text": "x", "count": 10**9}, {"text": "\ud800"}])
def test_odd_replay_bodies_are_a_short_4xx(body, tmp_path):
    for folder in (None, tmp_path):
        refused(post_json(client(folder, raise_server_exceptions=False), "/api/replay", body))


def header(**fields) -> str:
    head = {"type": "game", "format": "uno-env-record", "version": 1, "rules": {"variant": "classic"}, "seed": 1}
    return json.dumps({**head, **fields}) + "\n"


@pytest.mark.parametrize("text", [
    header(seed=-5), header(seed=True), header(players=5), header(players={"a": 1}), header(rules={"variant": ["x"]}),
    header(rules={"variant": "classic", "players": "x"}), header(rules={"variant": "classic", "stacking": [[1]]}),
    header() + '{"type": "action", "seat": 0, "phase": "TURN", "action": [1]}\n',
    header() + '{"type": "action", "seat": [0], "phase": {"a": 1}, "action": 1, "text": "' + "t" * 50_000 + '"}\n',
    header() + '{"type": "outcome", "winner": "' + "w" * 50_000 + '"}\n',
    header() + '{"type": "' + "q" * 50_000 + '"}\n', "[" * 50_000 + "\n", '{"a": ' + "1" * 5000 + "}\n",
    header() + "NaN\n",
])
def test_odd_records_are_a_short_400(text):
    r = post_json(client(raise_server_exceptions=False), "/api/replay", {"text": text})
    assert r.status_code == 200 or len(refused(r, 400)) < 1200
    assert len(r.content) < 20_000


def test_an_unexpected_failure_is_a_json_500_without_a_traceback(monkeypatch):
    import train.app.serve.app as app_module

    def boom(folder):
        raise RuntimeError("secret detail /home/someone")

    monkeypatch.setattr(app_module, "list_records", boom)
    r = client(raise_server_exceptions=False).get("/api/config")
    assert r.status_code == 500 and r.headers["content-type"] == "application/json"
    assert "secret" not in r.text and "Traceback" not in r.text and set(r.json()) == {"error"}


def test_a_body_too_large_is_refused_even_without_a_length():
    c = client()

    def chunks():
        for _ in range(MAX_BODY_BYTES // 2**20 + 2):
            yield b" " * 2**20

    r = c.post("/api/replay", content=chunks(), headers={"content-type": "application/json"})
    refused(r, 413, "larger than")


# ---------------------------------------------------------------- 9: bounded replay answers


def long_record(players: int = 10, variant: str = "flip", names=None, min_actions: int = 0) -> str:
    """A finished game of random players, of at least ``min_actions`` decisions, as record text (the first
    seed from 0 that plays one)."""
    game = Game(variant, players)
    for seed in range(100):
        policies = [agents.load("random", game, seed=seed + q) for q in range(players)]
        state = game.new_state(seed)
        recorder = Recorder(game, seed, names or [f"random{q}" for q in range(players)])
        while not state.is_over:
            recorder.step(state, policies[state.current_seat].act(None, game.legal_action_mask(state)))
        if state.steps >= min_actions:
            out = io.StringIO()
            recorder.finish(state).write(out)
            return out.getvalue()
    raise AssertionError(f"no seed in 0..99 plays {min_actions} decisions")


@pytest.mark.slow  # plays and pages a game of thousands of decisions
def test_a_long_replay_comes_in_bounded_pages_that_add_up_to_the_game():
    text = long_record(min_actions=3 * replays.REPLAY_PAGE_FRAMES)
    c = client()
    first = c.post("/api/replay", json={"text": text})
    assert first.status_code == 200, first.text
    page = first.json()
    total = page["total"]
    assert total > replays.REPLAY_PAGE_FRAMES and page["game_count"] == 1 and len(page["games"]) == 1
    frames, sizes, counts = list(page["frames"]), [len(first.content)], [len(page["frames"])]
    while page["next"] is not None:
        assert page["next"] == page["start"] + len(page["frames"])
        r = c.post("/api/replay", json={"text": text, "start": page["next"]})
        assert r.status_code == 200, r.text
        page = r.json()
        assert "games" not in page
        frames += page["frames"]
        sizes.append(len(r.content))
        counts.append(len(page["frames"]))
    assert len(frames) == total and [f["step"] for f in frames] == list(range(total))
    assert len(sizes) > 1 and 0 < min(counts) and max(counts) <= replays.REPLAY_PAGE_FRAMES
    assert max(sizes) < replays.REPLAY_PAGE_BYTES + 30_000, sizes  # the last frame past the limit and the result
    r = c.post("/api/replay", json={"text": text, "start": total - 2, "count": 5})
    assert [f["step"] for f in r.json()["frames"]] == [total - 2, total - 1] and r.json()["next"] is None
    refused(c.post("/api/replay", json={"text": text, "start": total}), 400, f"0..{total - 1}")
    refused(c.post("/api/replay", json={"text": text, "count": replays.REPLAY_PAGE_FRAMES + 1}), 400, "count")


def test_replay_answers_stay_small_whatever_the_record_holds():
    c = client()
    text = long_record(players=3, variant="classic", names=["n" * 200_000] * 3)
    r = c.post("/api/replay", json={"text": text})
    assert r.status_code == 200 and len(r.content) < 2 * replays.REPLAY_PAGE_BYTES
    assert all(len(s["name"]) <= replays.NAME_CHARS + 4 for s in r.json()["frames"][0]["view"]["seats"])
    tiny = header() * 5000
    r = c.post("/api/replay", json={"text": tiny, "game": 4321})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["game_count"] == 5000 and len(out["games"]) == replays.MAX_GAMES_LISTED


def test_a_later_page_stops_reading_after_its_game():
    text = long_record(players=2, variant="classic")
    broken = text + text + "this line is not JSON\n"  # game 0 ends where game 1 starts
    c = client()
    refused(c.post("/api/replay", json={"text": broken}), 400, "not a game record")
    r = c.post("/api/replay", json={"text": broken, "start": 1})
    assert r.status_code == 200 and r.json()["frames"][0]["step"] == 1


# ---------------------------------------------------------------- rule option values (read by train/rule_args.py)


def test_rule_option_values_cannot_blow_up_the_server(run_bounded):
    out = run_bounded("""
        import warnings; warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
        from train.app.serve.app import build_app
        c = TestClient(build_app(), base_url="http://127.0.0.1", raise_server_exceptions=False)
        bomb = "[&a [1,1,1,1,1,1,1,1,1], &b [*a,*a,*a,*a,*a,*a,*a,*a,*a], &c [*b,*b,*b,*b,*b,*b,*b,*b,*b], " \\
               "&d [*c,*c,*c,*c,*c,*c,*c,*c,*c], &e [*d,*d,*d,*d,*d,*d,*d,*d,*d], &f [*e,*e,*e,*e,*e,*e,*e,*e,*e], " \\
               "&g [*f,*f,*f,*f,*f,*f,*f,*f,*f], &h [*g,*g,*g,*g,*g,*g,*g,*g,*g], [*h,*h,*h,*h,*h,*h,*h,*h,*h]]"
        for value in (bomb, "[" * 5000 + "]" * 5000, "1" * 5000, "{a: " * 3000):
            for key in ("stacking", "attack.burst_probs", "max_steps"):
                r = c.post("/api/games", json={"variant": "attack", "opponents": ["random"],
                                               "options": [f"{key}={value}"]})
                print(r.status_code, len(r.content))
    """, preload=PRELOAD)
    assert out.returncode == 0, out.stderr[-2000:]
    for line in out.stdout.splitlines():
        status, size = line.split()
        assert status == "400" and int(size) < 2000, line
