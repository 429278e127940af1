"""``uno-env serve``: start the local web app and print its address (it opens no browser by itself).

The server closes slow connections: a request head (request line and headers) must arrive within
``HEAD_TIMEOUT_SECONDS`` of the connection or of the previous answer, an idle kept-alive connection
closes after ``KEEP_ALIVE_SECONDS``, and a body must arrive within the app's ``BODY_TIMEOUT_SECONDS``.
"""
from __future__ import annotations

import functools
import socket

from train.errors import UsageError

HEAD_TIMEOUT_SECONDS = 10.0
"""Longest a request's head (request line and headers, at most h11's 16 KiB) may take to arrive."""

KEEP_ALIVE_SECONDS = 5
"""Longest an idle connection is kept open after an answer."""

REBINDING_WARNING = ("uno-env serve: warning: --host {host} accepts any Host name, so a web page on another site "
                     "can reach this server through DNS rebinding; keep the default --host 127.0.0.1, or serve "
                     "it behind a proxy that checks the Host header")


def add_parser(sub) -> None:
    """Register the ``serve`` sub-command."""
    p = sub.add_parser("serve", help="play against agents and replay records in the browser (a local web app)",
                       description="Start a local web app to play one seat against agents (any variant, rule "
                                   "options and player count) and to replay game records. It prints the address "
                                   "to open; stop it with Ctrl-C.")
    p.add_argument("--port", type=int, default=8000, help="TCP port (0: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on; anything but 127.0.0.1/localhost lets other machines play")
    p.add_argument("--folder", metavar="DIR",
                   help="the one folder the page may open files from: its .jsonl records in the replay viewer and "
                        "its exported policies as agent specs, named by their path under DIR (default: none; "
                        "records can still be uploaded)")
    p.set_defaults(run=run)


def run(args) -> int:
    """Bind the port, print the URL, serve until interrupted."""
    try:
        import uvicorn

        from train.app.serve.app import build_app
    except ImportError as exc:
        raise UsageError(f"uno-env serve needs the web extra ({exc.name} is missing): "
                         "pip install 'uno-env[web]'") from None
    if not 0 <= args.port < 65536:
        raise UsageError(f"--port must be 0..65535, got {args.port}")
    local = args.host in ("127.0.0.1", "localhost", "::1")
    anywhere = args.host in ("0.0.0.0", "::", "")
    hosts = ["*"] if anywhere else sorted({args.host, "127.0.0.1", "localhost", "[::1]"})
    app = build_app(args.folder, allowed_hosts=hosts)
    sock = bind(args.host, args.port)
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"uno-env serve: open http://{shown}:{port}/ in a browser (Ctrl-C stops)", flush=True)
    if not local:
        print(f"uno-env serve: listening on {args.host}: other machines that reach it can play", flush=True)
    if anywhere:  # the Host check is off: see docs/browser-play.md, "Threat model"
        print(REBINDING_WARNING.format(host=args.host or "''"), flush=True)
    server = uvicorn.Server(server_config(app))
    server.run(sockets=[sock])
    return 0


def server_config(app):
    """The uvicorn configuration of ``uno-env serve``: quiet, and closing slow connections."""
    import uvicorn

    return uvicorn.Config(app, log_level="warning", http=head_timeout_protocol(),
                          timeout_keep_alive=KEEP_ALIVE_SECONDS)


@functools.cache
def head_timeout_protocol():
    """uvicorn's h11 protocol, closing a connection whose request head has not arrived within
    ``HEAD_TIMEOUT_SECONDS`` (uvicorn itself waits for ever on a client that sends a header a minute)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadTimeoutH11Protocol(H11Protocol):
        head_timer = None

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._await_head()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:  # the head is in: the app's body timeout takes over
                self._cancel_head_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.conn.their_state is h11.IDLE:  # the next request's head: timed afresh
                self._await_head()
            else:
                self._cancel_head_timer()

        def connection_lost(self, exc) -> None:
            self._cancel_head_timer()
            super().connection_lost(exc)

        def _await_head(self) -> None:
            self._cancel_head_timer()
            self.head_timer = self.loop.call_later(HEAD_TIMEOUT_SECONDS, self._head_timed_out)

        def _cancel_head_timer(self) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None

        def _head_timed_out(self) -> None:
            self.head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return HeadTimeoutH11Protocol


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (UsageError when the address cannot be used)."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
