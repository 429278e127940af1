"""``uno-env eval --ray``: the tournament's games as Ray tasks, a chunk of consecutive games per task.

Each task plays its games with the same per-game code and seeds as the local pool
(``train.evaluation.worker.play_job``), so the results equal a local run's whatever the chunking,
the cluster or the order chunks finish in. The rules, agent specs and the policy agents loaded by
the driver travel once per tournament in Ray's object store: worker nodes need uno-env installed,
not the policy files. A Ray worker keeps its game and agents between the chunks of one tournament.

A chunk's games reach the games-played stream only when the whole chunk is back: a worker lost
mid-chunk loses nothing that was written, Ray runs the chunk again (``MAX_RETRIES`` times), and no
game is counted twice. Chunks are submitted a window at a time, so Ctrl-C leaves little to cancel.
"""
from __future__ import annotations

import json
import math
import uuid

from train.evaluation.stream import TournamentError
from train.evaluation.worker import init_worker, play_job
from train.progress import DEFAULT_INTERVAL, Progress
from train.scaleout.ray_session import require_ray, session

MAX_RETRIES = 3
"""Times Ray runs a chunk again after its worker process or node died."""
MAX_CHUNK_GAMES = 50
"""Games per task at most (fewer on a short tournament, so every CPU gets some)."""
CHUNKS_PER_CPU = 4
"""Chunks per CPU of the cluster, as the target chunk count and the window of chunks in flight."""

_SETUP: dict = {"token": None}  # worker side: the tournament whose game and agents this process holds


def play_chunk(setup: dict, jobs: list) -> list[dict]:
    """Play a chunk of games (worker side); the first chunk of a tournament in this process sets it up."""
    if _SETUP["token"] != setup["token"]:
        init_worker(setup["rules"], setup["specs"], setup["files"])
        _SETUP["token"] = setup["token"]
    return [play_job(job) for job in jobs]


#: Characters of a failed chunk's error the message repeats at most.
MAX_REASON_CHARS = 200


def last_line(exc: BaseException) -> str:
    """The last non-empty line of an exception's text (Ray puts the worker's error there), cut short."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[-1] if lines else "no message"
    return text if len(text) <= MAX_REASON_CHARS else text[:MAX_REASON_CHARS] + "..."


_REMOTE: dict = {}


def _remote_play_chunk():
    if "play_chunk" not in _REMOTE:
        ray = require_ray()
        _REMOTE["play_chunk"] = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(play_chunk)
    return _REMOTE["play_chunk"]


def chunk_size(num_jobs: int, cpus: float) -> int:
    """Games per chunk: about ``CHUNKS_PER_CPU`` chunks per CPU, at most ``MAX_CHUNK_GAMES``."""
    return max(1, min(MAX_CHUNK_GAMES, math.ceil(num_jobs / (CHUNKS_PER_CPU * max(cpus, 1.0)))))


def run_jobs(rules, specs: list[str], jobs: list, loaded: dict, progress: bool = True, sink=None,
             total: int | None = None, progress_interval: float = DEFAULT_INTERVAL, task=None) -> list[dict]:
    """Play ``jobs`` as Ray tasks on the connected cluster; each finished chunk goes to ``sink`` and the bar.

    ``loaded``: the driver's agents by spec (the policy agents among them are shipped to the workers);
    ``task``: the remote function that plays a chunk (``play_chunk`` unless a test swaps in its own).
    """
    import agents

    ray = require_ray()
    task = task or _remote_play_chunk()
    total = len(jobs) if total is None else total
    files = {spec: agent for spec, agent in loaded.items() if isinstance(agent, agents.PolicyAgent)}
    setup = ray.put({"token": uuid.uuid4().hex, "rules": rules.to_dict(), "specs": list(specs), "files": files})
    cpus = ray.cluster_resources().get("CPU", 1.0)
    size = chunk_size(len(jobs), cpus)
    chunks = [jobs[lo:lo + size] for lo in range(0, len(jobs), size)]
    window = max(2, int(CHUNKS_PER_CPU * cpus))
    bar = Progress("eval", total, "games", initial=total - len(jobs), enabled=progress, interval=progress_interval)
    results: list[dict] = []
    pending: dict = {}  # object ref -> its chunk
    next_chunk = 0
    try:
        while next_chunk < len(chunks) or pending:
            while next_chunk < len(chunks) and len(pending) < window:
                pending[task.remote(setup, chunks[next_chunk])] = chunks[next_chunk]
                next_chunk += 1
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                chunk = pending.pop(ref)
                try:
                    played = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    raise TournamentError(
                        f"games {chunk[0][0]}..{chunk[-1][0]} failed on Ray after {MAX_RETRIES} retries "
                        f"({type(exc).__name__}: {last_line(exc)}); every finished game is "
                        "kept: run the same command with --resume") from None
                for r in played:
                    if sink is not None:  # a whole chunk, flushed: a killed run keeps every finished chunk
                        sink.write(json.dumps(r, ensure_ascii=False) + "\n")
                if sink is not None:
                    sink.flush()
                results += played
                bar.update(len(played))
    finally:
        for ref in pending:  # Ctrl-C or a failed chunk: nothing more to play
            ray.cancel(ref)
        bar.close()
    return results


def ray_runner(address: str, num_cpus: int | None = None):
    """A ``run_tournament`` runner that plays the games as Ray tasks on the cluster at ``address``."""
    def run(rules, specs, jobs, loaded, progress, sink, total, progress_interval=DEFAULT_INTERVAL):
        with session(address, num_cpus=num_cpus):
            return run_jobs(rules, specs, jobs, loaded, progress, sink, total=total,
                            progress_interval=progress_interval)
    return run
