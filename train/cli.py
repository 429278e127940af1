"""The ``uno-env`` command line: ``train``, ``eval``, ``play``, ``replay``, ``demo`` and ``bench``."""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``uno-env``."""
    parser = argparse.ArgumentParser(prog="uno-env", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    from . import bench, demo, play, ppo, replay, tournament

    ppo.add_parser(sub)
    tournament.add_parser(sub)
    play.add_parser(sub)
    replay.add_parser(sub)
    demo.add_parser(sub)
    bench.add_parser(sub)
    args = parser.parse_args(argv)
    return args.run(args) or 0


if __name__ == "__main__":
    sys.exit(main())
