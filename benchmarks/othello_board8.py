"""The 8x8 board operations' paths (portable, AVX2, AVX-512: engine/native/othello_board8.h) in
one build, side by side: perft, the midgame search and the endgame solver.

    .venv/bin/python benchmarks/othello_board8.py [--perft-depth 11] [--search-depth 12] \
        [--obf EDAX/problem/fforum-40-59.obf --first 40 --positions 40] [--repeats 3]

Each measure runs by each path this CPU has in turn, `--repeats` times, alternating, so that
all share the machine's load; it prints each path's best CPU seconds and its speed-up over the
portable path (portable's time over its), and exits with status 1 if the paths disagree (a
count, a node count, a score). Perft is from the start; the search is `analyse --depth N`
(the default evaluation, a fresh table) on the six positions of docs/othello.md "Move order",
their CPU seconds summed; the endgame solver is benchmarks/othello_endgame.py's, on the FFO
positions asked (Edax's repository has them as problem/fforum-40-59.obf).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

# The midgame positions of docs/othello.md "Move order" (this script runs from benchmarks/).
from othello_selective import POSITIONS as MIDGAME

from ubao.engine import _native
from ubao.engine.backend import NativeOthello
from ubao.engine.othello.game import Position as OthelloPosition
from ubao.engine.othello_endgame import OthelloEndgame
from ubao.engine.search.driver import Searcher


def timed(work: Callable[[], tuple[int, ...]]) -> tuple[float, tuple[int, ...]]:
    """CPU seconds of `work` and what it found."""
    start = time.process_time()
    counted = work()
    return time.process_time() - start, counted


def compare(name: str, work: Callable[[], tuple[int, ...]], repeats: int) -> bool:
    """Runs `work` by each path in turn; prints the best times and the speed-ups; whether every
    path found the same."""
    paths = _native.othello_board8_paths()
    best = dict.fromkeys(paths, float("inf"))
    found: set[tuple[int, ...]] = set()
    for _ in range(repeats):
        for path in paths:
            _native.set_othello_board8_path(path)
            seconds, result = timed(work)
            best[path] = min(best[path], seconds)
            found.add(result)
    figures = ", ".join(
        f"{path} {best[path]:.3f} s ({best['portable'] / best[path]:.2f}x)" for path in paths
    )
    results = "; ".join(", ".join(f"{value:,}" for value in result) for result in sorted(found))
    print(f"{name}: {figures}; {results}{'' if len(found) == 1 else ': THE PATHS DISAGREE'}")
    return len(found) == 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--perft-depth", type=int, default=11, help="perft plies (default 11)")
    parser.add_argument("--search-depth", type=int, default=12, help="search depth (default 12)")
    parser.add_argument("--obf", type=Path, help="the FFO positions' .obf file (no endgame if not)")
    parser.add_argument("--first", type=int, default=40, help="the file's first number (40)")
    parser.add_argument("--positions", default="40", help="FFO numbers, e.g. 40,41 (default 40)")
    parser.add_argument("--hash", type=float, default=64.0, help="endgame table MB (default 64)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per path (default 3)")
    args = parser.parse_args()
    if len(_native.othello_board8_paths()) < 2:
        sys.exit("this CPU runs the portable path only: nothing to compare")
    game = NativeOthello({"size": 8})
    start = game.start()
    agree = compare(
        f"perft {args.perft_depth} (sequences)",
        lambda: (game.perft(start, args.perft_depth),),
        args.repeats,
    )
    positions = [game.parse_position(text) for text in MIDGAME]

    def midgame() -> tuple[int, ...]:
        return tuple(
            Searcher(game).search(position, depth=args.search_depth).stats.generated
            for position in positions
        )

    agree &= compare(f"midgame depth {args.search_depth} (nodes each)", midgame, args.repeats)
    if args.obf is not None:
        lines = args.obf.read_text().splitlines()
        for number in (int(n) for n in args.positions.split(",")):
            board, side = lines[number - args.first].split(";")[0].split()
            position = game.parse_position(f"{board} {side}")

            def endgame(position: OthelloPosition = position) -> tuple[int, ...]:
                solver = OthelloEndgame(game, args.hash)
                margin = solver.margin(position)
                assert margin is not None
                return margin, solver.nodes()

            agree &= compare(f"FFO #{number} (margin, positions)", endgame, args.repeats)
    if not agree:
        sys.exit(1)


if __name__ == "__main__":
    main()
