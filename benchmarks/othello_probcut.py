"""Fits multi-ProbCut's checks for one 8x8 Othello evaluation (engine/othello/probcut.py).

    .venv/bin/python benchmarks/othello_probcut.py --eval trained --games 60 --depth 10

Positions come from self-play games on the native core (0 to 10 random opening plies, then
full-width searches of `--play-depth` plies by `--eval`), or from a file of
`benchmarks/othello_train.py generate` or `label` (`--data`, the evaluation's own training
positions).
Each position with more than 12 empty squares is searched full width (no ProbCut) to every
depth from 1 to `--depth` with one kept table, as iterative deepening does; then, per game stage
and depth d from 3, the value at d is regressed on the value at the shallow depth the search
pairs with d (`probcut.shallow_depth`): deep = slope * shallow + offset, and sigma, the
residuals' standard deviation. Positions whose values are forced results are left out. The fits
replace `--eval`'s in engine/othello/probcut_fits.py (`--dry-run`: printed only), so the lead can
refit after a new evaluation arrives; nothing else is read from another program.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

from ubao.engine.backend import NativeOthello
from ubao.engine.othello import probcut
from ubao.engine.othello.game import Position
from ubao.engine.othello.probcut_fits import FITS
from ubao.engine.search import MATE_BOUND
from ubao.engine.search.driver import Searcher

FITS_FILE = Path(probcut.__file__).with_name("probcut_fits.py")
LEAST_EMPTIES = 13
"""Positions nearer the end are left to the endgame solver."""
LEAST_SAMPLES = 20
"""A (stage, depth) pair with fewer positions gets no check."""


def self_play(games: int, seed: int, evaluation: str, depth: int, per_game: int) -> list[Position]:
    """`per_game` positions of each of `games` self-play games, spread over the game."""
    rng = random.Random(seed)
    game = NativeOthello({})
    searcher = Searcher(game, evaluation=evaluation, selective=False)
    positions: list[Position] = []
    for _ in range(games):
        position = game.start()
        searcher.clear()
        line: list[Position] = []
        for _ in range(rng.randint(0, 10)):
            moves = game.legal_moves(position)
            if not moves:
                break
            position = game.play(position, rng.choice(moves))
        while _empties(position) >= LEAST_EMPTIES and game.legal_moves(position):
            line.append(position)
            position = game.play(position, searcher.search(position, depth).move)
        positions.extend(rng.sample(line, min(per_game, len(line))))
    return positions


def from_data(path: Path, count: int, seed: int) -> list[Position]:
    """`count` positions drawn from a file of othello_train.py generate."""
    rows = []
    for text in path.read_text().splitlines():
        black, white, player = map(int, text.split()[:3])
        if 64 - (black | white).bit_count() >= LEAST_EMPTIES:
            rows.append(Position(black, white, player))
    return random.Random(seed).sample(rows, min(count, len(rows)))


def _empties(position: Position) -> int:
    return 64 - (position.black | position.white).bit_count()


def values(positions: list[Position], evaluation: str, depth: int) -> list[tuple[int, list[float]]]:
    """(stage, [value at depth 1, ..., value at `depth`]) of every position without a forced
    result, from the side to move's point of view."""
    game = NativeOthello({})
    searcher = Searcher(game, evaluation=evaluation, selective=False)
    rows = []
    start = time.perf_counter()
    for number, position in enumerate(positions, 1):
        searcher.clear()
        found = [searcher.search(position, d).score for d in range(1, depth + 1)]
        if all(abs(value) < MATE_BOUND for value in found):
            occupied = (position.black | position.white).bit_count()
            rows.append((probcut.stage(occupied), found))
        if number % 50 == 0:
            seconds = time.perf_counter() - start
            print(f"{number} positions searched, {seconds:.0f} s", file=sys.stderr, flush=True)
    return rows


def fit(
    rows: list[tuple[int, list[float]]], depth: int
) -> dict[tuple[int, int], tuple[float, float, float]]:
    """Least squares per (stage, depth): (slope, offset, sigma)."""
    fits = {}
    for stage in range(probcut.STAGES):
        for deep in range(probcut.LEAST_DEPTH, depth + 1):
            shallow = probcut.shallow_depth(deep)
            pairs = [(found[shallow - 1], found[deep - 1]) for s, found in rows if s == stage]
            n = len(pairs)
            if n < LEAST_SAMPLES:
                continue
            mean_x = sum(x for x, _ in pairs) / n
            mean_y = sum(y for _, y in pairs) / n
            sxx = sum((x - mean_x) ** 2 for x, _ in pairs)
            sxy = sum((x - mean_x) * (y - mean_y) for x, y in pairs)
            if sxx <= 0:
                continue
            slope = sxy / sxx
            if slope <= 0:
                continue
            offset = mean_y - slope * mean_x
            residuals = sum((y - slope * x - offset) ** 2 for x, y in pairs)
            sigma = math.sqrt(residuals / max(n - 2, 1))
            fits[stage, deep] = (round(slope, 4), round(offset, 4), round(sigma, 4))
            print(
                f"stage {stage} depth {deep} from {shallow}: {n} positions, "
                f"slope {slope:.3f}, offset {offset:+.3f}, sigma {sigma:.3f}"
            )
    return fits


def write(evaluation: str, fits: dict[tuple[int, int], tuple[float, float, float]]) -> None:
    """`fits` for `evaluation` into FITS_FILE, the other evaluations' kept."""
    every = {**FITS, evaluation: fits}
    lines = [
        '"""Generated by benchmarks/othello_probcut.py: do not edit. Multi-ProbCut\'s fits for '
        "8x8\nOthello by evaluation name: (stage, depth) -> (slope, offset, sigma) of the deep "
        'search\'s value\non the shallow one\'s (engine/othello/probcut.py)."""\n',
        "FITS: dict[str, dict[tuple[int, int], tuple[float, float, float]]] = {",
    ]
    for name in sorted(every):
        lines.append(f'    "{name}": {{')
        lines.extend(f"        {key}: {value}," for key, value in sorted(every[name].items()))
        lines.append("    },")
    lines.append("}\n")
    FITS_FILE.write_text("\n".join(lines))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--eval", default="trained", help="the evaluation to fit (trained)")
    parser.add_argument("--games", type=int, default=60, help="self-play games (60)")
    parser.add_argument("--per-game", type=int, default=8, help="positions per game (8)")
    parser.add_argument("--play-depth", type=int, default=4, help="self-play depth (4)")
    parser.add_argument("--data", type=Path, help="positions from othello_train.py generate")
    parser.add_argument("--positions", type=int, default=480, help="drawn from --data (480)")
    parser.add_argument("--depth", type=int, default=10, help="the deepest depth fitted (10)")
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--dry-run", action="store_true", help="print the fits only")
    args = parser.parse_args(argv)
    if args.data is not None:
        positions = from_data(args.data, args.positions, args.seed)
    else:
        positions = self_play(args.games, args.seed, args.eval, args.play_depth, args.per_game)
    print(f"{len(positions)} positions", file=sys.stderr, flush=True)
    fits = fit(values(positions, args.eval, args.depth), args.depth)
    if not args.dry_run:
        write(args.eval, fits)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
