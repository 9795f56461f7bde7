"""Multi-ProbCut against the full-width search, beside each other on the native core:

    .venv/bin/python benchmarks/othello_selective.py --depth 12 --time-ms 1000

For each of six 8x8 middle-game positions (docs/othello.md, Move order), a fresh search to
`--depth` with ProbCut and without (nodes, CPU seconds, whether they chose the same move), then a
fresh search of `--time-ms` each (the depth each completed). Prints one row per position and
the totals as ratios; the evaluation is `--eval` (the 8x8 default, `trained`).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ubao.engine.backend import NativeOthello
from ubao.engine.search.driver import Searcher, SearchResult

POSITIONS = (
    "--OOO-----OOOO---OOXXO----XXXO-----XXO------X------O-X---------- X",
    "-----------X-X----OXXO----OXXXXX--OOXXX---OOOX----X-OX---------- X",
    "----------O-----OOOX-O-XOOXXO-X-OXXOXX--OOOOO-X-O--------------- X",
    "---O------OOO----XOO-X---XOXOO---XOXOO--XXOXO-O---XXX------X---- X",
    "------------------X-X-XO---XXXOO--OOOXXO--OOOXXO--O-XO-O--OOOOO- X",
    "---XX-O----XXO----OXOO---OOXXO--OOOXX----XXXXX----XXXO-----XXO-- X",
)


def timed(
    searcher: Searcher[Any, Any], position: Any, depth: int | None, ms: float | None
) -> tuple[SearchResult[Any], float]:
    """A search with a fresh table, and its CPU seconds."""
    searcher.clear()
    start = time.process_time()
    result = searcher.search(position, depth, ms)
    return result, time.process_time() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--time-ms", type=float, default=1000.0)
    parser.add_argument("--eval", default="trained")
    args = parser.parse_args(argv)
    game = NativeOthello({})
    selective = Searcher(game, evaluation=args.eval)
    full = Searcher(game, evaluation=args.eval, selective=False)
    if selective.probcut is None:
        print(f"no ProbCut fits for {args.eval!r}", file=sys.stderr)
        return 1
    totals: list[float] = [0] * 7
    print("position  nodes full  nodes PC  CPU s full  CPU s PC  same move  depth full/PC")
    for number, text in enumerate(POSITIONS, 1):
        position = game.parse_position(text)
        whole, whole_s = timed(full, position, args.depth, None)
        cut, cut_s = timed(selective, position, args.depth, None)
        whole_t, _ = timed(full, position, None, args.time_ms)
        cut_t, _ = timed(selective, position, None, args.time_ms)
        same = whole.move == cut.move
        print(
            f"{number:8}  {whole.stats.generated:10}  {cut.stats.generated:8}  "
            f"{whole_s:10.2f}  {cut_s:8.2f}  {'yes' if same else 'no':>9}  "
            f"{whole_t.stats.depth:6}/{cut_t.stats.depth}"
        )
        for i, value in enumerate(
            (
                whole.stats.generated,
                cut.stats.generated,
                whole_s,
                cut_s,
                same,
                whole_t.stats.depth,
                cut_t.stats.depth,
            )
        ):
            totals[i] += value
    n = len(POSITIONS)
    print(
        f"depth {args.depth}: {totals[0] / totals[1]:.2f}x fewer nodes, "
        f"{totals[2] / totals[3]:.2f}x less CPU with ProbCut; same move in {totals[4]} of {n}"
    )
    print(
        f"{args.time_ms:g} ms: mean depth {totals[5] / n:.1f} full width, "
        f"{totals[6] / n:.1f} with ProbCut"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
