"""A spawned worker process behind a pipe: how the collector workers and the updater start, answer and stop."""
from __future__ import annotations

import multiprocessing as mp
import signal
import threading


def start(target, args: tuple, name: str):
    """Spawn ``target(child_end, *args)``; returns (the learner's end of the pipe, the process)."""
    ctx = mp.get_context("spawn")  # a clean interpreter: no copied torch threads or open files
    conn, child = ctx.Pipe()
    process = ctx.Process(target=target, args=(child, *args), daemon=True, name=name)
    # started with Ctrl-C ignored (a spawned interpreter keeps an ignored SIGINT ignored): a Ctrl-C
    # while it imports must not kill it; the learner handles Ctrl-C and stops its workers itself
    ignoring = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if ignoring else None
    try:
        process.start()
    finally:
        if ignoring:
            signal.signal(signal.SIGINT, previous)
    child.close()
    return conn, process


def receive(conn, process, what: str):
    """The worker's next reply; its failure (a traceback sent as text) or its exit is a RuntimeError."""
    try:
        reply = conn.recv()
    except EOFError:
        process.join(timeout=1)  # reaped, so the exit code is known (a killed worker: minus the signal)
        raise RuntimeError(f"{what} exited (code {process.exitcode})") from None
    if isinstance(reply, str):
        raise RuntimeError(f"{what} failed:\n{reply}")
    return reply


def commands(conn):
    """In the worker: the learner's ``(command, args)`` messages, until it says close or goes away."""
    while True:
        try:
            command, args = conn.recv()
        except EOFError:
            return
        if command == "close":
            return
        yield command, args


def stop(conn, process) -> None:
    """Ask the worker to close, wait up to 5 s, then terminate it; close the pipe."""
    try:
        conn.send(("close", ()))
    except (OSError, BrokenPipeError):
        pass
    process.join(timeout=5)
    if process.is_alive():
        process.terminate()
        process.join(timeout=1)  # reaped: no zombie left behind in a long-lived caller
    conn.close()
