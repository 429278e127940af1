"""What each hostile probe of the hardening issue costs now: CPU seconds and extra peak memory per refusal, and
how long the server takes to answer another client while a probe runs.

    .venv/bin/python tests/hostile_probes.py            # a table, one row per probe (docs/results/hardening.md)

Each probe runs in a fresh Python process: it imports what the probe needs, reads its own CPU time and peak
resident memory, runs the probe once, and reads both again; the differences are the probe's cost. A
measurement tool, not a test: the tests (tests/*/test_hostile_*.py, tests/apps/test_serve_hardening.py) assert the
refusals themselves, under a memory limit, without timings.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MEASURE = """
import json, resource, sys
{imports}
def _now():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_maxrss
_cpu0, _rss0 = _now()
{body}
_cpu1, _rss1 = _now()
print(json.dumps({{"cpu_s": _cpu1 - _cpu0, "extra_mb": (_rss1 - _rss0) / 1024, "outcome": str(outcome)[:90]}}))
"""

SERVER_IMPORTS = """
import warnings; warnings.simplefilter("ignore")
from starlette.testclient import TestClient
from train.app.serve.app import build_app
client = TestClient(build_app(), base_url="http://127.0.0.1")
client.get("/api/config")
"""

CLI_IMPORTS = """
import contextlib, io
import train.app.cli, train.app.train_command, train.evaluation.tournament, train.app.replay.viewer, train.app.play.demo
def cli(*argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = train.app.cli.main(list(argv))
        except SystemExit as exc:
            code = exc.code
    return f"exit {code}: {err.getvalue().strip()}"
"""


def alias_chain(levels: int) -> str:
    """A YAML flow list of ``levels`` nested anchors, each aliasing the one before eight times."""
    parts = ["&a0 [x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        parts.append(f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 8) + "]")
    return "[" + ", ".join(parts) + "]"


def write_files(folder: str) -> dict[str, str]:
    """The damaged and malicious files the CLI probes read."""
    import zlib
    import zipfile

    import numpy as np

    paths = {}
    paths["alias_rules"] = os.path.join(folder, "alias.yaml")
    with open(paths["alias_rules"], "w") as fh:
        fh.write(f"variant: classic\noptions:\n  stacking: {alias_chain(9)}\n")
    paths["alias_config"] = os.path.join(folder, "alias-config.yaml")
    with open(paths["alias_config"], "w") as fh:
        fh.write(f"variant: classic\nrule_options:\n  stacking: {alias_chain(9)}\n")
    paths["latin1_rules"] = os.path.join(folder, "latin1.yaml")
    with open(paths["latin1_rules"], "wb") as fh:
        fh.write("variant: classic\n# caf\xe9\n".encode("latin-1"))
    paths["empty_rules"] = os.path.join(folder, "empty.yaml")
    open(paths["empty_rules"], "w").close()
    # a policy whose first layer inflates to 405 x 2,500,000 float32 zeros (4 GB) from about 4 MB
    base = os.path.join(folder, "bomb")
    header_buf = __import__("io").BytesIO()
    shape = (405, 2_500_000)
    np.lib.format.write_array_header_1_0(header_buf, {"descr": "<f4", "fortran_order": False, "shape": shape})
    header = header_buf.getvalue()
    size = len(header) + 4 * shape[0] * shape[1]

    def block(data: bytes) -> bytes:
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        return c.compress(data) + c.flush(zlib.Z_FULL_FLUSH)

    chunk = 64 << 20
    whole, rest = divmod(size - len(header), chunk)
    stream = block(header) + block(bytes(chunk)) * whole + block(bytes(rest)) + b"\x03\x00"
    import struct

    members = [("p0.npy", stream, size, 0, zipfile.ZIP_DEFLATED)]
    layers = [405, 128, 128, 65]
    for i in range(1, 2 * (len(layers) - 1)):
        shape_i = (layers[i // 2], layers[i // 2 + 1]) if i % 2 == 0 else (layers[i // 2 + 1],)
        buf = __import__("io").BytesIO()
        np.lib.format.write_array(buf, np.zeros(shape_i, np.float32))
        data = buf.getvalue()
        members.append((f"p{i}.npy", data, len(data), zlib.crc32(data), zipfile.ZIP_STORED))
    out, directory = bytearray(), bytearray()
    for name, data, usize, crc, method in members:
        nb = name.encode()
        offset = len(out)
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, method, 0, 0x21, crc, len(data), usize, len(nb), 0) + nb
        out += data
        directory += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, method, 0, 0x21, crc, len(data), usize,
                                 len(nb), 0, 0, 0, 0, 0, offset) + nb
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(directory), len(out), 0)
    with open(base + ".npz", "wb") as fh:
        fh.write(bytes(out + directory + end))
    meta = {"format": "uno-env-policy", "format_version": 1, "variant": "classic", "num_players": 2,
            "table_sizes": [2], "rule_options": {}, "observation_layout_version": 2, "observation_size": 405,
            "action_layout_version": 1, "num_actions": 65, "activation": "tanh", "layers": layers,
            "training_steps": 0, "evaluation": {}, "config": {}}
    with open(base + ".json", "w") as fh:
        json.dump(meta, fh)
    paths["bomb"] = base
    # an empty native checkpoint in a run directory
    run = os.path.join(folder, "run")
    os.makedirs(os.path.join(run, "checkpoints"))
    open(os.path.join(run, "checkpoints", "native.pt"), "w").close()
    with open(os.path.join(ROOT, "configs", "train", "quick.yaml")) as src, \
            open(os.path.join(run, "config.yaml"), "w") as dst:
        dst.write(src.read())
    paths["run"] = run
    # a record of a million lines: one short game, then 999,999 action lines of a second
    record = os.path.join(folder, "big.jsonl")
    recorded = os.path.join(folder, "recorded")
    subprocess.run([sys.executable, "-m", "train.app.cli", "eval", "--agents", "random", "random", "--games", "1",
                    "--record", recorded, "--no-progress"], cwd=ROOT, capture_output=True, check=True)
    (name,) = [f for f in os.listdir(recorded) if f.endswith(".jsonl")]
    with open(os.path.join(recorded, name)) as fh:
        first = fh.read()
    header = first.splitlines()[0]
    with open(record, "w") as fh:
        fh.write(first + header + "\n" + '{"type": "action", "seat": 0, "action": 0}\n' * 999_999)
    paths["record"] = record
    # eval --resume: a row of valid JSON without its point fields
    resume = os.path.join(folder, "eval")
    subprocess.run([sys.executable, "-m", "train.app.cli", "eval", "--agents", "random", "random", "--games", "4",
                    "--out", resume, "--no-progress"], cwd=ROOT, capture_output=True, check=True)
    played = os.path.join(resume, "games-played.jsonl")
    with open(played) as fh:
        rows = [json.loads(line) for line in fh]
    rows[1].pop("round_points")
    with open(played, "w") as fh:
        fh.writelines(json.dumps(row) + "\n" for row in rows)
    paths["eval"] = resume
    return paths


def probes(paths: dict[str, str]) -> list[tuple[str, str, str]]:
    """(name, imports, body) of every probe; the body sets ``outcome``."""
    server = [
        ("1 YAML aliases in a request's option (9 levels)", SERVER_IMPORTS,
         f"r = client.post('/api/games', json={{'options': ['stacking=' + {alias_chain(9)!r}]}}); "
         "outcome = (r.status_code, len(r.content))"),
        ("2 ismcts:prior=<path> outside the folder", SERVER_IMPORTS,
         "r = client.post('/api/games', json={'opponents': ['ismcts:prior=/etc/passwd']}); "
         "outcome = (r.status_code, r.json()['error'][:60])"),
        ("3 ismcts:iterations=1e9,time=1e9 at ten players", SERVER_IMPORTS,
         "r = client.post('/api/games', json={'players': 10, 'seat': 9, "
         "'opponents': ['ismcts:iterations=1000000000,time=1000000000']}); outcome = r.status_code"),
        ("4 cross-site text/plain POST", SERVER_IMPORTS,
         "r = client.post('/api/games', content=b'{}', headers={'Content-Type': 'text/plain', "
         "'Origin': 'http://evil.example'}); outcome = r.status_code"),
        ("6 body of 100,000 '['", SERVER_IMPORTS,
         "r = client.post('/api/games', content=b'[' * 100000, headers={'Content-Type': 'application/json'}); "
         "outcome = r.status_code"),
        ("6 body with a 5,000-digit integer", SERVER_IMPORTS,
         "r = client.post('/api/games', content=b'{\"seed\": ' + b'9' * 5000 + b'}', "
         "headers={'Content-Type': 'application/json'}); outcome = r.status_code"),
    ]
    cli = [
        ("1 YAML aliases in a rules file (demo --rules)", CLI_IMPORTS, f"outcome = cli('demo', '--rules', {paths['alias_rules']!r})"),
        ("1 YAML aliases in a training config", CLI_IMPORTS,
         f"outcome = cli('train', '--config', {paths['alias_config']!r}, '--fresh')"),
        ("5 a 4 MB policy that inflates to 4 GB", CLI_IMPORTS,
         f"outcome = cli('eval', '--agents', {paths['bomb']!r}, 'random', '--games', '2')"),
        ("7 eval --resume with a row lacking its points", CLI_IMPORTS,
         f"outcome = cli('eval', '--agents', 'random', 'random', '--games', '4', '--out', {paths['eval']!r}, "
         "'--resume', '--no-progress')"),
        ("8 an empty native.pt (train --resume; torch imported first)", CLI_IMPORTS + "import torch, train.ppo.trainer\n", f"outcome = cli('train', '--resume', {paths['run']!r})"),
        ("8 a non-UTF-8 rules file", CLI_IMPORTS, f"outcome = cli('demo', '--rules', {paths['latin1_rules']!r})"),
        ("8 an empty rules file", CLI_IMPORTS, f"outcome = cli('demo', '--rules', {paths['empty_rules']!r})"),
        ("9 replay --game 0 of a 1M-line record", CLI_IMPORTS, f"outcome = cli('replay', {paths['record']!r}, '--game', '0')"),
    ]
    return server + cli


def run_probe(imports: str, body: str) -> dict:
    """One probe in a fresh process; its CPU seconds, extra peak memory and outcome."""
    code = MEASURE.format(imports=textwrap.dedent(imports), body=body)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    if out.returncode != 0 or not out.stdout.strip():
        return {"cpu_s": float("nan"), "extra_mb": float("nan"), "outcome": f"FAILED: {out.stderr[-200:]}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def other_client_latency() -> tuple[float, float]:
    """Seconds for GET /api/config on a real server: alone, and while a ten-player game of searching opponents
    at the caps is being answered to another client (the worst request within the limits)."""
    import socket

    import httpx
    import uvicorn

    from train.app.serve.app import build_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app(), log_level="error"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}"

    def ping() -> float:
        start = time.perf_counter()
        httpx.get(url + "/api/config", timeout=60).raise_for_status()
        return time.perf_counter() - start

    alone = min(ping() for _ in range(5))
    heavy = threading.Thread(target=lambda: httpx.post(url + "/api/games", timeout=600, json={
        "players": 10, "seat": 9, "seed": 1, "opponents": ["ismcts:iterations=1000,rollout_depth=50"]}))
    heavy.start()
    time.sleep(1.0)  # the search is under way
    during = max(ping() for _ in range(5))
    heavy.join()
    server.should_exit = True
    return alone, during


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(folder)
        print("| probe | outcome | CPU s | extra peak MB |")
        print("|---|---|---|---|")
        for name, imports, body in probes(paths):
            r = run_probe(imports, body)
            print(f"| {name} | {r['outcome']} | {r['cpu_s']:.2f} | {r['extra_mb']:.1f} |", flush=True)
    alone, during = other_client_latency()
    print(f"\nGET /api/config: {alone * 1000:.0f} ms alone, at most {during * 1000:.0f} ms while a ten-player game "
          "of searching opponents at the caps is answered")


if __name__ == "__main__":
    main()
