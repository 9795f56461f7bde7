"""A plain MTD(f) Kalah solver in about 80 lines, the baseline `ubao-engine solve` must beat.

It is what a Kalah solver needs and nothing more: the board from the mover's side (his pits,
then the opponent's), values relative to the stores (what the mover still gains from the
board), a dict of bounds per board, extra turns and captures first. Side by side with ubao's
solver, one cell per line:

    .venv/bin/python benchmarks/kalah_mtdf.py [--cells 4x4,5x3] [--baseline-only]

Only the default `kalah` rules (capture_sower, empty_capture, end_check "either", remaining
"owner"); the values are the table of docs/mancala.md §7. Times are CPU seconds (the machine
is shared); `UBAO_BACKEND=python` runs ubao's rules in Python too.
"""

from __future__ import annotations

import argparse
import sys
import time

Board = tuple[int, ...]


def moves(board: Board, m: int) -> list[tuple[int, bool, Board]]:
    """(seeds the mover banks, extra turn, the next board from its mover's side) per move."""
    lap = 2 * m + 1  # holes the mover sows into: his pits, his store (index m), the other pits
    found = []
    for pit in reversed(range(m)):
        seeds = board[pit]
        if not seeds:
            continue
        ring = [*board[:m], 0, *board[m:]]
        ring[pit] = 0
        hole = pit
        for _ in range(seeds):
            hole = (hole + 1) % lap
            ring[hole] += 1
        if hole < m and ring[hole] == 1:  # capture, even of an empty pit
            ring[m] += 1 + ring[2 * m - hole]
            ring[hole] = ring[2 * m - hole] = 0
        gain, own, other = ring[m], ring[:m], ring[m + 1 :]
        if not any(own) or not any(other):  # the game ends: each side banks its own seeds
            found.append((gain + sum(own) - sum(other), False, (0,) * (2 * m)))
        elif hole == m:
            found.append((gain, True, (*own, *other)))
        else:
            found.append((gain, False, (*other, *own)))
    # extra turns, then the most seeds banked (captures), then from the right (stable sort)
    found.sort(key=lambda move: (move[1], move[0]), reverse=True)
    return found


def solve(m: int, n: int) -> tuple[int, int, float]:
    """South's final margin in Kalah (m, n), the boards expanded, and the CPU seconds taken."""
    table: dict[Board, tuple[int, int]] = {}
    expanded = 0

    def test(board: Board, beta: int) -> int:
        """The mover's gain from `board` on: exact if in [beta-1, beta], else a bound."""
        nonlocal expanded
        low, high = table.get(board, (-999, 999))
        if low >= beta or high < beta:
            return low if low >= beta else high
        kids = moves(board, m)
        if not kids:
            return 0
        expanded += 1
        best = -999
        for gain, again, child in kids:
            if again:
                value = gain + test(child, beta - gain)
            else:
                value = gain - test(child, gain - beta + 1)
            best = max(best, value)
            if best >= beta:
                break
        table[board] = (best, high) if best >= beta else (low, best)
        return best

    start = time.process_time()
    sys.setrecursionlimit(20_000)
    board, guess, low, high = (n,) * (2 * m), 0, -999, 999
    while low < high:
        beta = guess + 1 if guess == low else guess
        guess = test(board, beta)
        low, high = (guess, high) if guess >= beta else (low, guess)
    return low, expanded, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default="4x4,5x3", help="PITSxSEEDS list, e.g. 4x4,5x3")
    parser.add_argument("--baseline-only", action="store_true", help="skip ubao's solver")
    args = parser.parse_args()
    for cell in args.cells.split(","):
        m, n = map(int, cell.split("x"))
        value, expanded, seconds = solve(m, n)
        print(f"kalah({m},{n}) baseline: {value:+d}, {expanded} expanded, {seconds:.2f} s")
        if not args.baseline_only:
            from ubao.engine.games import make_game
            from ubao.engine.solve import Solver

            start = time.process_time()
            solution = Solver(make_game("kalah", {"pits": m, "seeds": n})).solve()
            print(
                f"kalah({m},{n}) ubao:     {solution.value:+d}, {solution.expanded} expanded, "
                f"{time.process_time() - start:.2f} s, {solution.table_entries} table entries"
            )


if __name__ == "__main__":
    main()
