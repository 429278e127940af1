"""``uno-env serve`` against the second security review: records whose rules name a file (a secret, a FIFO,
``/dev/stdin``), replays whose client went away, slow connections, and ``--host 0.0.0.0``.

Every refusal is a 4xx answer ``{"error": "<one line>"}`` that repeats nothing of a file and does not depend
on whether the file exists."""
from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import warnings

import pytest

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2 in its test client; httpx works the same here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import agents
from uno_env import VARIANTS, Game, RuleSet
from uno_env.options import Option
from uno_env.records import RecordError, Recorder, file_options, names_a_file, read_records, replay
from train.app.serve import app as app_module
from train.app.serve import command, replays
from train.app.serve.app import build_app

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

LOCAL = "http://127.0.0.1"
SECRET = "root:x:0:0:SECRET-LINE-OF-A-PRIVATE-FILE\n"
#: Every (variant, option) whose value names a file, found by the rule (not by a list kept here).
FILE_OPTIONS = [(name, o.key) for name, vdef in VARIANTS.items() for o in vdef.options if names_a_file(name, o)]


def client(folder=None, **kw) -> TestClient:
    return TestClient(build_app(None if folder is None else str(folder)), base_url=LOCAL, **kw)


def refused(r, status: int, says: str) -> str:
    """Assert ``r`` is a refusal: the status, a JSON ``{"error"}`` of one short line containing ``says``."""
    assert r.status_code == status, (r.status_code, r.text[:300])
    body = r.json()
    assert set(body) == {"error"} and "\n" not in body["error"] and len(body["error"]) < 1200, r.text[:300]
    assert says in body["error"], body["error"]
    return body["error"]


def record_naming(variant: str, key: str, path: str) -> str:
    """A game header (no decisions) whose rules set ``key`` to ``path``."""
    return json.dumps({"type": "game", "format": "uno-env-record", "version": 1, "seed": 1, "players": [],
                       "rules": {"variant": variant, "num_players": 2, "options": {key: path}}}) + "\n"


def finished_record(variant: str = "classic", seed: int = 3) -> str:
    game = Game(variant, 2)
    policies = [agents.load("random", game, seed=seed + q) for q in range(2)]
    state = game.new_state(seed)
    recorder = Recorder(game, seed, ["random", "random"])
    while not state.is_over:
        recorder.step(state, policies[state.current_seat].act(None, game.legal_action_mask(state)))
    return "".join(json.dumps(obj) + "\n" for obj in recorder.finish(state).lines())


# ---------------------------------------------------------------- 1: a record's rules may name no file


def test_the_file_options_are_found_by_a_rule():
    assert {key for _, key in FILE_OPTIONS} >= {"flex.deck_manifest", "flip.deck_manifest", "attack.deck_manifest"}
    assert all(VARIANTS[name].deck_option in {key for n, key in FILE_OPTIONS if n == name}
               for name in VARIANTS if VARIANTS[name].deck_option)
    # a free-text option a variant might add later names a file too; fixed choices and numbers do not
    assert names_a_file("classic", Option("classic.some_path", "none", "a path", type=str))
    assert not any(names_a_file("classic", o) for o in VARIANTS["classic"].options)
    assert file_options(RuleSet.create("flex", 2)) == {}
    assert file_options(RuleSet.create("flex", 2, {"flex.deck_manifest": "/x"})) == {"flex.deck_manifest": "proposed"}


@pytest.mark.parametrize("variant, key", FILE_OPTIONS)
def test_a_record_whose_rules_name_a_file_is_refused_unread(tmp_path, variant, key):
    secret = tmp_path / "private.yaml"
    secret.write_text(SECRET)
    answers = set()
    for folder in (None, tmp_path):
        c = client(folder)
        for path in (str(secret), str(tmp_path / "absent.yaml"), "/etc/passwd", "/dev/stdin", "private.yaml"):
            r = c.post("/api/replay", json={"text": record_naming(variant, key, path)})
            answers.add(refused(r, 400, "reads no files a record names"))
            assert "SECRET" not in r.text and "root:" not in r.text and "Errno" not in r.text
    (tmp_path / "hostile.jsonl").write_text(record_naming(variant, key, str(secret)))
    r = client(tmp_path).post("/api/replay", json={"path": "hostile.jsonl"})
    answers.add(refused(r, 400, key))
    assert len(answers) == 1, "the answer tells nothing about the file it names"


@pytest.mark.parametrize("variant, key", FILE_OPTIONS)
def test_a_new_game_naming_a_file_is_refused_for_every_file_option(tmp_path, variant, key):
    secret = tmp_path / "private.yaml"
    secret.write_text(SECRET)
    r = client().post("/api/games", json={"variant": variant, "opponents": ["random"], "options": [f"{key}={secret}"]})
    assert "SECRET" not in refused(r, 400, "reads no deck manifest files")


def test_replay_refuses_file_options_only_when_asked(tmp_path):
    record = next(read_records(iter([record_naming("flex", "flex.deck_manifest", str(tmp_path / "absent.yaml"))])))
    with pytest.raises(RecordError, match="reads no files"):
        next(replay(record, read_files=False))
    with pytest.raises(RecordError, match="cannot read a deck manifest"):  # uno-env replay: the user's own files
        next(replay(record))


# ---------------------------------------------------------------- 2: nothing a request names can block a worker


def fifo_watch(path):
    """A FIFO at ``path`` and an event set once anything opens it for reading (a writer thread waits for that)."""
    os.mkfifo(path)
    opened = threading.Event()

    def writer():
        fd = os.open(path, os.O_WRONLY)  # blocks until a reader opens the FIFO
        opened.set()
        os.close(fd)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    return opened, thread


def release(path, thread) -> None:
    """Let the writer thread of ``fifo_watch`` finish (open the FIFO for reading without blocking)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    thread.join(30)
    os.close(fd)


def test_a_fifo_named_by_a_record_or_a_folder_path_is_never_opened(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    opened, thread = fifo_watch(fifo)
    try:
        for folder in (None, tmp_path):
            text = record_naming("flip", "flip.deck_manifest", str(fifo))
            r = client(folder).post("/api/replay", json={"text": text})
            refused(r, 400, "reads no files")
            r = client(folder).post("/api/games", json={"variant": "flip", "opponents": ["random"],
                                                        "options": [f"flip.deck_manifest={fifo}"]})
            refused(r, 400, "reads no deck manifest files")
        os.symlink(fifo, tmp_path / "pipe.jsonl")  # a FIFO under the folder, named like a record
        refused(client(tmp_path).post("/api/replay", json={"path": "pipe.jsonl"}), 404, "no record file")
        assert not opened.is_set(), "a request made the server open a FIFO"
    finally:
        release(fifo, thread)


def asgi_post(app, path: str, body: dict, receive=None) -> list[dict]:
    """POST ``body`` to ``app`` as a client that goes away right after sending it (or with its own ``receive``);
    the messages sent back. A server that never answers fails the test instead of hanging it."""
    raw = json.dumps(body).encode()
    delivered = False

    async def gone_after_body():
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

    async def call():
        await asyncio.wait_for(app(scope, receive or gone_after_body, send), 60)

    asyncio.run(call())
    return sent


def answer(sent: list[dict]) -> tuple[int, dict]:
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], json.loads(b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))


def test_a_replay_whose_client_goes_away_stops_at_its_next_frame(monkeypatch):
    text = finished_record()
    events, frames = [], []
    real_request, real_view = replays.replay_request, replays.table_view

    def spied_request(folder, data, cancelled=None):
        events.append(cancelled)
        return real_request(folder, data, cancelled)

    def held_view(*args):
        assert events and events[0] is not None, "the replay runs without a cancellation event"
        frames.append(len(frames))
        assert events[0].wait(60)  # the first frame lasts until the server sees the client gone
        return real_view(*args)

    monkeypatch.setattr(app_module, "replay_request", spied_request)
    monkeypatch.setattr(replays, "table_view", held_view)
    status, body = answer(asgi_post(build_app(), "/api/replay", {"text": text}))
    assert frames == [0], "no frame was made after the client went away"
    assert status == 400 and "cancelled" in body["error"]


# ---------------------------------------------------------------- 4: slow connections


def test_a_body_that_does_not_arrive_in_time_is_a_408(monkeypatch):
    monkeypatch.setattr(app_module, "BODY_TIMEOUT_SECONDS", 0.05)
    first = [True]

    async def slow_receive():  # a first chunk, then nothing: the client holds the request open
        if first[0]:
            first[0] = False
            return {"type": "http.request", "body": b'{"te', "more_body": True}
        await asyncio.get_running_loop().create_future()  # never done

    for path in ("/api/replay", "/api/games"):
        first[0] = True
        status, body = answer(asgi_post(build_app(), path, {}, receive=slow_receive))
        assert status == 408 and "did not arrive within" in body["error"], body


class Served:
    """``uno-env serve``'s uvicorn server (``command.server_config``) on a free port, in a thread."""

    def __init__(self):
        import uvicorn

        self.server = uvicorn.Server(command.server_config(build_app()))
        self.sock = command.bind("127.0.0.1", 0)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self):
        self.thread.start()
        for _ in range(600):
            if self.server.started:
                return self
            self.thread.join(0.05)
        raise AssertionError("the server did not start")

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(30)

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=30)


def closed_by_server(conn: socket.socket) -> bool:
    """Whether the server closes ``conn`` (reading whatever it sends first); False if it is still open after 30 s."""
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def read_answer(conn: socket.socket) -> bytes:
    """One HTTP answer (head and a Content-Length body) from ``conn``."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length"))
    while len(rest) < length:
        rest += conn.recv(65536)
    return head


def test_serve_closes_connections_whose_request_head_is_slow(monkeypatch):
    monkeypatch.setattr(command, "HEAD_TIMEOUT_SECONDS", 0.3)
    with Served() as served:
        with served.connect() as idle:  # connects and sends nothing
            assert closed_by_server(idle)
        with served.connect() as slow:  # a request line and one header, then nothing more
            slow.sendall(b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            assert closed_by_server(slow)
        with served.connect() as kept:  # a whole request is answered; the next head is timed afresh
            kept.sendall(b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert read_answer(kept).startswith(b"HTTP/1.1 200")
            kept.sendall(b"GET /api/config HTTP/1.1\r\n")
            assert closed_by_server(kept)


# ---------------------------------------------------------------- 5: --host 0.0.0.0 says what it turns off


@pytest.mark.parametrize("host, warned", [("0.0.0.0", True), ("127.0.0.1", False)])
def test_serve_on_every_address_warns_of_dns_rebinding_in_one_line(monkeypatch, capsys, host, warned):
    import uvicorn

    from train.app.cli import main

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    assert main(["serve", "--host", host, "--port", "0"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "DNS rebinding" in line]
    assert len(lines) == int(warned)
    if warned:
        assert "--host 127.0.0.1" in lines[0] and "proxy that checks the Host header" in lines[0]
