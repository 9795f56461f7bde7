"""The 8x8 Othello endgame solver on the FFO endgame test positions, beside Edax and Zebra.

The FFO positions (#1-#79, by Gunnar Andersson's numbering) are public with their exact scores;
Edax's repository has them as problem/fforum-1-19.obf, -20-39, -40-59 and -60-79, one position
a line: the board (64 of X, O, -, from a1 along each row), the side to move, then each move's
score. Each position is solved by ubao's native solver (a fresh table each, `--hash` MB, 64 by
default: about the memory of Zebra's 2^22 entries; a bigger one is slower, in cache misses), with
the `patterns` weights loaded as the engine loads them, and by Edax when its binary is given
(run from its own folder, where it finds data/eval.dat, one position at a time, so that its CPU
time is its children's):

    .venv/bin/python benchmarks/othello_endgame.py --obf EDAX/problem/fforum-40-59.obf \
        --first 40 --positions 40,41,42 [--edax EDAX/bin/lEdax-x86-64-v2] [--zebra ZEBRA/zebra]

Zebra (Gunnar Andersson's console program, its trained coeffs2.bin in its folder) is given each
position as a position file and solves it as its own engine does: a midgame search of at most
18 plies, then the exact endgame search (`-l 18 60 60 18 60 60`), no book, a table of 2^22
entries. It prints each position's exact score (checked against the file's best), CPU seconds
and positions searched, and the ratios of ubao's time and positions to Edax's and Zebra's
(`x`: ubao's over theirs, under 1 where ubao is faster); it exits with status 1 on a wrong
score.
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
ZEBRA_ROW = re.compile(r"^-->\s+\d+\s+([+-]\d+)\s+(\d+)(k?)\s")
"""Zebra's line for a finished exact search: `-->  20  +38   18927771  a2 b1 ...`, nodes from
100 M on in thousands (`468692k`); its lines of a search still going say `+38 @ 99%`."""


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


def child_run(
    program: Path, arguments: list[str], text: str, suffix: str
) -> tuple[str, float, float]:
    """Run `program` from its own folder on `text` written to a file (its name ends the
    arguments): its output, CPU seconds and wall seconds."""
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as file:
        file.write(text)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    output = subprocess.run(
        [str(program.resolve()), *arguments, file.name],
        cwd=program.resolve().parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    Path(file.name).unlink()
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return output, cpu, wall


def edax_run(edax: Path, line: str) -> Run:
    output, cpu, wall = child_run(
        edax, ["-n", "1", "-book-usage", "off", "-solve"], line + "\n", ".obf"
    )
    rows = [match for row in output.splitlines() if (match := EDAX_ROW.match(row))]
    if not rows:
        raise SystemExit(f"no result in Edax's output:\n{output}")
    return Run(int(rows[-1][2]), cpu, wall, int(rows[-1][3]))


def zebra_run(zebra: Path, line: str) -> Run:
    """Zebra's position file: the board (X, O, -) on one line, the side to move's name below."""
    board, side = line.split(";")[0].split()
    arguments = ["-l", "18", "60", "60", "18", "60", "60", "-test", "-b", "0", "-r", "0"]
    output, cpu, wall = child_run(
        zebra,
        [*arguments, "-h", "22", "-g"],
        f"{board}\n{'Black' if side == 'X' else 'White'}\n",
        ".txt",
    )
    rows = [match for row in output.splitlines() if (match := ZEBRA_ROW.match(row))]
    if not rows:
        raise SystemExit(f"no result in Zebra's output:\n{output}")
    score, nodes, thousands = rows[-1].groups()
    return Run(int(score), cpu, wall, int(nodes) * (1000 if thousands else 1))


def beside(name: str, mine: Run, theirs: Run, expected: int) -> tuple[str, str]:
    """The columns of another program's run beside ubao's, and a note if its score is wrong."""
    columns = (
        f" {theirs.cpu_seconds:>10.2f} {theirs.nodes:>12,} "
        f"{mine.cpu_seconds / max(theirs.cpu_seconds, 1e-3):>6.2f} "
        f"{mine.nodes / max(theirs.nodes, 1):>7.2f}"
    )
    note = "" if theirs.score == expected else f"  ({name} says {theirs.score:+d})"
    return columns, note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--obf", type=Path, required=True, help="an FFO .obf file")
    parser.add_argument("--first", type=int, default=40, help="its first position's number")
    parser.add_argument("--positions", default="40,41,42", help="the numbers to solve")
    parser.add_argument(
        "--hash", type=float, default=64.0, help="ubao's table in MB (Zebra's: 2^22 entries)"
    )
    parser.add_argument("--edax", type=Path, help="Edax's binary, to run beside")
    parser.add_argument("--zebra", type=Path, help="Zebra's console binary, to run beside")
    args = parser.parse_args()
    positions = read_obf(args.obf, args.first)
    lines = dict(zip(positions, args.obf.read_text().splitlines(), strict=True))
    others = [
        (name, program, run)
        for name, program, run in (("edax", args.edax, edax_run), ("zebra", args.zebra, zebra_run))
        if program is not None
    ]
    wrong = 0
    print(
        f"{'FFO':>4} {'empties':>7} {'score':>5} {'ubao cpu s':>10} {'ubao nodes':>12}"
        + "".join(
            f" {name + ' cpu s':>10} {name + ' nodes':>12} {'time x':>6} {'nodes x':>7}"
            for name, _, _ in others
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
        for name, program, run in others:
            columns, note = beside(name, mine, run(program, lines[number]), expected)
            row, ok = row + columns, ok + note
        print(row + ok, flush=True)
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
