"""The ``uno-env`` command line: ``train``, ``eval``, ``play``, ``replay``, ``serve``, ``demo``, ``bench``, ``benchmark`` and ``exploit``.

Errors and exit statuses:

- ``0``: the command ran.
- ``1``: the reader of the output went away (``uno-env demo | head``); nothing is printed.
- ``2``: bad input, the same status argparse uses for a bad flag. The domain errors in
  ``DOMAIN_ERRORS`` (a rule option, a training config, an agent spec, a policy, record or YAML
  file, a missing or unreadable file) are printed as one line, ``uno-env <command>: error:
  <message>``, on stderr; so is a ``SystemExit("<message>")`` raised by a sub-command.
- ``130``: interrupted (Ctrl-C that no sub-command handled): one line, ``uno-env <command>: interrupted``.
- Any other exception is a bug and keeps its traceback.

``uno-env --debug <command> ...`` or the environment variable ``UNO_ENV_DEBUG=1`` re-raise the
errors above so the full traceback shows.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys

from train.arg_types import Parser
from train.errors import DOMAIN_ERRORS, EXIT_ERROR, EXIT_INTERRUPTED, error_message

DESCRIPTION = "Play, train, evaluate and benchmark agents for UNO and its variants."

EPILOG = """\
examples:
  uno-env demo --variant flip --players 3
  uno-env play --opponents pretrained:classic
  uno-env eval --agents heuristic greedy random --games 200
  uno-env train --config configs/train/classic.yaml
  uno-env rllib --config configs/rllib/classic.yaml
  uno-env replay games.jsonl --game 0
  uno-env serve --port 8000 --folder records
  uno-env bench engine --seconds 2
  uno-env benchmark --agent heuristic --out benchmark-results/heuristic
  uno-env exploit --agent pretrained:classic-2p --budget 1M

Run 'uno-env <command> --help' for a command's options and their defaults.
Bad input (a rule option, config key, agent spec or file) prints one line,
'uno-env <command>: error: ...', and exits with status 2;
'uno-env --debug <command> ...' (or UNO_ENV_DEBUG=1) shows the traceback instead.
Ctrl-C exits with status 130."""


def build_parser() -> argparse.ArgumentParser:
    """The ``uno-env`` parser with every sub-command registered."""
    parser = Parser(prog="uno-env", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error instead of one line (also: UNO_ENV_DEBUG=1)")
    from uno_env import __version__

    parser.add_argument("--version", action="version", version=f"uno-env {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, title="commands", metavar="<command>")
    from train.app import (bench_command, benchmark_command, eval_command, exploit_command, rllib_command,
                           train_command)
    from train.app.play import demo, terminal
    from train.app.replay import viewer
    from train.app.serve import command as serve

    for command in (train_command, eval_command, terminal, viewer, serve, demo, bench_command, benchmark_command,
                    exploit_command, rllib_command):
        command.add_parser(sub)
    for command_parser in sub.choices.values():  # `uno-env train --debug` works as well as `uno-env --debug train`
        command_parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                                    help="show the full traceback of an error instead of one line")
    return parser


def command_name() -> str:
    """How to call ``uno-env`` again from a fresh shell in this directory, for commands printed to the user.

    The bare name when the ``uno-env`` on PATH is the one running; otherwise (``make run`` calls
    ``.venv/bin/uno-env`` with the virtualenv not activated) the path of the running one, relative to
    the working directory when it lies under it.
    """
    invoked = sys.argv[0] if os.path.basename(sys.argv[0]) == "uno-env" else ""
    # run another way (python -m, a test runner): the uno-env beside this Python, if there is one
    beside = os.path.join(os.path.dirname(sys.executable), "uno-env")
    program = invoked or (beside if os.path.isfile(beside) else "")
    on_path = shutil.which("uno-env")
    if not program or (on_path and os.path.realpath(on_path) == os.path.realpath(program)):
        return "uno-env"
    program = os.path.abspath(program)
    relative = os.path.relpath(program)
    if relative.startswith(os.pardir):
        return program
    return relative if os.sep in relative else os.path.join(os.curdir, relative)


def debug_from_env() -> bool:
    """Whether ``UNO_ENV_DEBUG`` asks for tracebacks (any value but empty, 0, false, no, off)."""
    return os.environ.get("UNO_ENV_DEBUG", "").strip().lower() not in ("", "0", "false", "no", "off")


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``uno-env``: run a sub-command; bad input -> one line on stderr and status 2."""
    args = build_parser().parse_args(argv)
    debug = args.debug or debug_from_env()
    command = f"uno-env {args.command}"
    try:
        return args.run(args) or 0
    except BrokenPipeError:  # `uno-env demo | head`: the reader left; stop quietly
        _silence_stdout()
        return 1
    except DOMAIN_ERRORS as exc:
        if debug:
            raise
        return _fail(command, error_message(exc))
    except SystemExit as exc:
        if debug or not isinstance(exc.code, str):  # argparse and plain exits carry an int status
            raise
        return _fail(command, exc.code.removeprefix(f"{args.command}: "))
    except KeyboardInterrupt:
        if debug:
            raise
        print(f"{command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _fail(command: str, message: str) -> int:
    print(f"{command}: error: {' '.join(message.split())}", file=sys.stderr)  # one line, whatever the message held
    return EXIT_ERROR


def _silence_stdout() -> None:
    # Python flushes stdout at exit and would report the broken pipe again (see the signal module docs)
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main())
