"""Othello perft from the 8x8 start: the reference count at depth 9 and the move generator's speed.

Depth 9 is too slow for the test suite (which checks depths 1 to 8), so it runs here:

    .venv/bin/python benchmarks/othello_perft.py [--depth N] [--size S]

Exits with status 1 if an 8x8 count disagrees with the table of docs/othello.md §5.
"""

from __future__ import annotations

import argparse
import sys
import time

from ubao.engine.othello.game import Othello
from ubao.engine.perft import perft

REFERENCE_8X8 = {
    1: 4,
    2: 12,
    3: 56,
    4: 244,
    5: 1_396,
    6: 8_200,
    7: 55_092,
    8: 390_216,
    9: 3_005_288,
}
"""The perft table of the rules specification."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=9, help="plies to count (default 9)")
    parser.add_argument("--size", type=int, default=8, help="board size (default 8)")
    args = parser.parse_args()
    game = Othello({"size": args.size})
    start = time.perf_counter()
    nodes = perft(game, game.start(), args.depth)
    seconds = time.perf_counter() - start
    print(f"othello({args.size}) perft {args.depth}: {nodes:,} nodes in {seconds:.2f} s")
    print(f"{nodes / seconds:,.0f} nodes/s (sequences counted per second)")
    expected = REFERENCE_8X8.get(args.depth) if args.size == 8 else None
    if expected is not None:
        verdict = "matches" if nodes == expected else "DIFFERS from"
        print(f"{verdict} the reference {expected:,}")
        if nodes != expected:
            sys.exit(1)


if __name__ == "__main__":
    main()
