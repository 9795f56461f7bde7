"""The 8x8 Othello endgame solver on the FFO endgame test positions, beside Edax if given.

The FFO positions (#1-#79, by Gunnar Andersson's numbering) are public with their exact scores;
Edax's repository has them as problem/fforum-1-19.obf, -20-39, -40-59 and -60-79, one position
a line: the board (64 of X, O, -, from a1 along each row), the side to move, then each move's
score. Each position is solved by ubao's native solver (a fresh table each), and by Edax when
its binary is given (run from its own folder, where it finds data/eval.dat, one position at a
time, so that its CPU time is its children's):

    .venv/bin/python benchmarks/othello_endgame.py --obf EDAX/problem/fforum-40-59.obf \
        --first 40 --positions 40,41,42 [--edax EDAX/bin/lEdax-x86-64-v2]

It prints each position's exact score (checked against the file's best), CPU seconds and
positions searched, and the ratios to Edax; it exits with status 1 on a wrong score.
The figures before this solver (issue 37, the generic solver): FFO #40 in 286 s and 773 M
positions, #41 and #42 not solved in 10 minutes.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ubao.engine.backend import NativeOthello
from ubao.engine.othello_endgame import OthelloEndgame

EDAX_ROW = re.compile(r"^\s*\d+\|\s*(\d+)\s+([+-]\d+)\s+[\d:.]+\s+(\d+)")
"""A line of Edax's `-solve` table: depth (empties), score, time, nodes."""


@dataclass(frozen=True)
class Run:
    score: int
    cpu_seconds: float
    wall_seconds: float
    nodes: int


def read_obf(path: Path, first: int) -> dict[int, tuple[str, int]]:
    """The positions of an .obf file by number (the first line is `first`), each as ubao's
    position text and the best move's score."""
    positions = {}
    for number, line in enumerate(path.read_text().splitlines(), first):
        fields = line.split(";")
        board, side = fields[0].split()
        positions[number] = (f"{board} {side}", int(fields[1].split(":")[1]))
    return positions


def ubao_run(text: str, hash_mb: float) -> Run:
    game = NativeOthello({"size": 8})
    solver = OthelloEndgame(game, hash_mb)
    position = game.parse_position(text)
    cpu, wall = time.process_time(), time.perf_counter()
    score = solver.margin(position)
    assert score is not None
    return Run(score, time.process_time() - cpu, time.perf_counter() - wall, solver.nodes())


def edax_run(edax: Path, line: str) -> Run:
    with tempfile.NamedTemporaryFile("w", suffix=".obf", delete=False) as file:
        file.write(line + "\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    output = subprocess.run(
        [str(edax.resolve()), "-solve", file.name, "-n", "1", "-book-usage", "off"],
        cwd=edax.resolve().parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    Path(file.name).unlink()
    rows = [match for row in output.splitlines() if (match := EDAX_ROW.match(row))]
    if not rows:
        raise SystemExit(f"no result in Edax's output:\n{output}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Run(int(rows[-1][2]), cpu, wall, int(rows[-1][3]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--obf", type=Path, required=True, help="an FFO .obf file")
    parser.add_argument("--first", type=int, default=40, help="its first position's number")
    parser.add_argument("--positions", default="40,41,42", help="the numbers to solve")
    parser.add_argument("--hash", type=float, default=256.0, help="ubao's table in MB")
    parser.add_argument("--edax", type=Path, help="Edax's binary, to run beside")
    args = parser.parse_args()
    positions = read_obf(args.obf, args.first)
    lines = dict(zip(positions, args.obf.read_text().splitlines(), strict=True))
    wrong = 0
    print(
        f"{'FFO':>4} {'empties':>7} {'score':>5} {'ubao cpu s':>10} {'ubao nodes':>12}"
        + (
            f" {'edax cpu s':>10} {'edax nodes':>12} {'time x':>6} {'nodes x':>7}"
            if args.edax
            else ""
        )
    )
    for number in (int(item) for item in args.positions.split(",")):
        text, expected = positions[number]
        mine = ubao_run(text, args.hash)
        empties = text.count("-")
        ok = "" if mine.score == expected else f"  WRONG: {expected:+d} expected"
        wrong += bool(ok)
        row = (
            f"{number:>4} {empties:>7} {mine.score:>+5d} {mine.cpu_seconds:>10.2f} "
            f"{mine.nodes:>12,}"
        )
        if args.edax:
            theirs = edax_run(args.edax, lines[number])
            if theirs.score != expected:
                ok += f"  (Edax says {theirs.score:+d})"
            row += (
                f" {theirs.cpu_seconds:>10.2f} {theirs.nodes:>12,} "
                f"{mine.cpu_seconds / max(theirs.cpu_seconds, 1e-3):>6.1f} "
                f"{mine.nodes / max(theirs.nodes, 1):>7.2f}"
            )
        print(row + ok, flush=True)
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
