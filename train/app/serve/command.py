"""``uno-env serve``: start the local web app and print its address (it opens no browser by itself)."""
from __future__ import annotations

import socket

from train.errors import UsageError


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
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])
    return 0


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
