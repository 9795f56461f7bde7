"""How far Othello searches are from the exact result, by stage, on the positions of real games:

    .venv/bin/python benchmarks/othello_search_error.py MATCH_OUT... --depth 8 [--zebra ZEBRA/zebra]

Each MATCH_OUT is the `--out` folder of an 8x8 `ubao-engine match` (its `games/*.txt` records).
In each game the first position with `--exact-at` (22) squares empty or fewer (or the end, if
sooner) is solved exactly by the native endgame solver: that margin (the play that followed,
then perfect play) is the reference for each earlier position of the game with an even number
of squares empty, from 52 down. Each of those is searched to `--depth` plies, with a fresh
table, by ubao's native search (`--eval`, the 8x8 default `patterns`; multi-ProbCut as the
engine plays, which cuts nothing at 10 plies or fewer; `--no-probcut` for full width) and, when
its binary is given, by Zebra at the same depth (`-l D 0 0`: no clock, no cut at these depths;
its coefficients in its folder). Per band of empty squares, in discs from the mover's side: the
root mean square of the search's error against the reference, its mean (positive: the search
rates the position too well for the mover) and its spread about the mean. docs/benchmarks.md
("Where the middle game is lost") reads these figures: a band's spread is the evaluation's
quality there, its mean the mover's bias.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from zebra_nboard import run_zebra, zebra_limits

from ubao.engine.backend import NativeOthello
from ubao.engine.othello.game import Position
from ubao.engine.othello_endgame import OthelloEndgame
from ubao.engine.record import parse_record
from ubao.engine.search.driver import Searcher
from ubao.engine.search.scores import forced_result

BANDS = ((50, 52), (44, 48), (38, 42), (32, 36), (26, 30), (24, 24))
"""Bands of empty squares, as docs/benchmarks.md reports them."""
LATEST = 52
"""The earliest position measured: empties of the random openings of a match and more are not."""


@dataclass(frozen=True)
class Sample:
    position: Position
    reference: int
    """The exact margin at `--exact-at`, from this position's mover's side."""


@dataclass(frozen=True)
class Error:
    rms: float
    mean: float
    spread: float


def empties(position: Position) -> int:
    return 64 - (position.black | position.white).bit_count()


def samples(
    game: NativeOthello, solver: OthelloEndgame, folder: Path, exact_at: int
) -> Iterator[Sample]:
    """The positions of each game in `folder` with their reference margins."""
    for path in sorted((folder / "games").glob("*.txt")):
        record = parse_record(path.read_text())
        position = game.start()
        seen: list[Position] = []
        for move in record.moves:
            if empties(position) <= exact_at:
                break
            if empties(position) <= LATEST and empties(position) % 2 == 0:
                seen.append(position)
            position = game.play(position, game.parse_move(position, move))
        if empties(position) > exact_at and not game.is_over(position):
            continue  # an unfinished record; a game over sooner is its own reference
        margin = solver.margin(position)
        assert margin is not None  # no time limit
        for earlier in seen:
            same_mover = earlier.player == position.player
            yield Sample(earlier, margin if same_mover else -margin)


def error(errors: list[float]) -> Error:
    rms = math.sqrt(sum(x * x for x in errors) / len(errors))
    mean = sum(errors) / len(errors)
    return Error(rms, mean, math.sqrt(max(0.0, rms * rms - mean * mean)))


def by_band(rows: list[tuple[int, float]], exact_at: int) -> list[tuple[str, Error | None]]:
    """`(empties, error)` rows summed up per band above `exact_at`, then over all."""
    table: list[tuple[str, Error | None]] = []
    for low, high in BANDS:
        if high > exact_at:
            errors = [e for n, e in rows if low <= n <= high]
            name = f"{low}-{high}" if low < high else f"{low}"
            table.append((name, error(errors) if errors else None))
    table.append(("all", error([e for _, e in rows]) if rows else None))
    return table


def ubao_searcher(
    game: NativeOthello, evaluation: str, probcut: bool
) -> Callable[[Position, int], float]:
    searcher = Searcher(game, evaluation=evaluation, hash_mb=16, selective=probcut)

    def value(position: Position, depth: int) -> float:
        searcher.clear()
        score = searcher.search(position, depth).score
        forced = forced_result(score)
        return forced[1] if forced is not None else score

    return value


def zebra_searcher(game: NativeOthello, zebra: Path) -> Callable[[Position, int], float]:
    def value(position: Position, depth: int) -> float:
        cells, side = game.format_position(position).split()
        text = f"{cells}\n{'Black' if side == 'X' else 'White'}\n"
        _, score = run_zebra(
            zebra, text, ["-h", "20", *zebra_limits(0.0, depth, empties(position))]
        )
        if score is None:
            raise SystemExit(f"Zebra gave no score for {cells} {side}")
        return score

    return value


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", type=Path, nargs="+", help="`ubao-engine match --out` folders")
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--exact-at", type=int, default=22, help="empties of the reference")
    parser.add_argument("--eval", default="patterns", help="ubao's evaluation")
    parser.add_argument("--no-probcut", action="store_true", help="ubao searches full width")
    parser.add_argument("--zebra", type=Path, help="Zebra's console binary, to measure beside")
    args = parser.parse_args(argv)
    game = NativeOthello({})
    solver = OthelloEndgame(game, 64)
    engines = {"ubao": ubao_searcher(game, args.eval, not args.no_probcut)}
    if args.zebra is not None:
        engines["Zebra"] = zebra_searcher(game, args.zebra)
    rows: dict[str, list[tuple[int, float]]] = {name: [] for name in engines}
    count = 0
    for folder in args.folders:
        for sample in samples(game, solver, folder, args.exact_at):
            for name, value in engines.items():
                found = value(sample.position, args.depth)
                rows[name].append((empties(sample.position), found - sample.reference))
            count += 1
    if not count:
        print("no positions: no game reached the reference", file=sys.stderr)
        return 1
    print(f"{count} positions, depth {args.depth}, against the exact margin at {args.exact_at}")
    print("empties  " + "  ".join(f"{name + ': rms (mean, spread)':<28}" for name in engines))
    tables = [by_band(rows[name], args.exact_at) for name in engines]
    for line in zip(*tables, strict=True):
        cells = [f"{e.rms:5.2f} ({e.mean:+.2f}, {e.spread:.2f})" if e else "-" for _, e in line]
        print(f"{line[0][0]:<8} " + "  ".join(f"{cell:<28}" for cell in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
