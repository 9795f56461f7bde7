"""Trains Othello's `trained` evaluation (engine/othello/trained.py) from games ubao plays itself.

Two steps, each rerunnable; nothing comes from another program or a game database:

    .venv/bin/python benchmarks/othello_train.py generate --games 1500 --seed 37 --out DATA
    .venv/bin/python benchmarks/othello_train.py fit DATA

`generate` plays 8x8 self-play games on the native core: 0 to 10 random opening plies (drawn
from `--seed`), then a search of `--depth` plies (6) with the evaluation `--eval` (`standard`)
for both sides until 16 squares are empty; from there the game goes on by random moves and the
native endgame solver gives the exact final margin of every position. Every earlier position
of the game is labelled with the exact margin of the game's position at 16 empties (the result
of that self-play line under perfect play at the end). One line per position: Black's discs,
White's, the player to move, and the label (Black's final margin), as integers.

`fit` counts the features of every position (`trained.features`), fits one weight per feature
and game stage by least squares (a small ridge keeps rare features sane), and writes the weights,
scaled to integers, to engine/othello/trained_weights.py; then run
`python -m ubao.engine.tools.native_constants` so that the native core gets the same table.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from ubao.engine.backend import NativeOthello
from ubao.engine.othello import trained
from ubao.engine.othello.game import Othello, Position
from ubao.engine.othello_endgame import OthelloEndgame
from ubao.engine.search.driver import Searcher

SOLVED_EMPTIES = 16
"""From here on every position of a game is solved exactly."""
RIDGE = 1.0
WEIGHTS_FILE = Path(trained.__file__).with_name("trained_weights.py")


def generate(games: int, seed: int, out: Path, evaluation: str, depth: int) -> None:
    """Self-play games, one labelled position a line in `out`."""
    rng = random.Random(seed)
    game = NativeOthello({})
    solver = OthelloEndgame(game, 64)
    searcher = Searcher(game, evaluation=evaluation, hash_mb=16)
    with out.open("w") as sink:
        for number in range(games):
            position = game.start()
            line: list[Position] = []
            for _ in range(rng.randint(0, 10)):
                moves = game.legal_moves(position)
                if not moves:
                    break
                line.append(position)
                position = game.play(position, rng.choice(moves))
            while _empties(position) > SOLVED_EMPTIES and game.legal_moves(position):
                line.append(position)
                position = game.play(position, searcher.search(position, depth).move)
            end_label = _black_margin(solver, position)
            rows = [(p, end_label) for p in line]
            while True:
                moves = game.legal_moves(position)
                if not moves:
                    break
                label = _black_margin(solver, position)
                rows.append((position, label))
                position = game.play(position, moves[rng.randrange(len(moves))])
            for p, label in rows:
                sink.write(f"{p.black} {p.white} {p.player} {label}\n")
            if number % 100 == 99:
                print(f"{number + 1} games", file=sys.stderr, flush=True)


def _empties(position: Position) -> int:
    return 64 - (position.black | position.white).bit_count()


def _black_margin(solver: OthelloEndgame, position: Position) -> int:
    margin = solver.margin(position)
    assert margin is not None
    return -margin if position.player else margin


def fit(data: list[Path]) -> None:
    """Least squares per stage; writes WEIGHTS_FILE."""
    game = Othello({})
    n = len(trained.FEATURES)
    normal = [[[0.0] * n for _ in range(n)] for _ in range(trained.STAGES)]
    target = [[0.0] * n for _ in range(trained.STAGES)]
    counts = [0] * trained.STAGES
    for path in data:
        for text in path.read_text().splitlines():
            black, white, _, label = map(int, text.split())
            if game.size**2 - (black | white).bit_count() <= game.size:
                continue  # the evaluations count discs exactly here
            occupied = (black | white).bit_count()
            stage = trained.stage_of(occupied, game.size**2)
            values = game.trained_features(Position(black, white, 0))
            counts[stage] += 1
            for i in range(n):
                target[stage][i] += values[i] * label
                row = normal[stage][i]
                for j in range(n):
                    row[j] += values[i] * values[j]
    stages = []
    for stage in range(trained.STAGES):
        for i in range(n):
            normal[stage][i][i] += RIDGE
        weights = _solve(normal[stage], target[stage])
        stages.append(tuple(round(w * trained.SCALE) for w in weights))
        shown = ", ".join(
            f"{name} {w:+.2f}" for name, w in zip(trained.FEATURES, weights, strict=True)
        )
        print(f"stage {stage}: {counts[stage]} positions; {shown}")
    WEIGHTS_FILE.write_text(
        '"""Generated by benchmarks/othello_train.py fit: do not edit. The weights of\n'
        "engine/othello/trained.py, one row per game stage, one column per feature, in\n"
        "1/SCALE of a disc of final margin; DIGEST is trained.digest(WEIGHTS) as fitted, which\n"
        'tests/engine/test_othello_evaluations.py checks."""\n\n'
        "WEIGHTS = (\n"
        + "".join(f"    {row},\n" for row in stages)
        + ")\n"
        + f'DIGEST = "{trained.digest(tuple(stages))}"\n'
    )


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the matrix is small and positive definite)."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for column in range(n):
        pivot = max(range(column, n), key=lambda r: abs(a[r][column]))
        a[column], a[pivot] = a[pivot], a[column]
        for r in range(n):
            if r != column:
                factor = a[r][column] / a[column][column]
                for c in range(column, n + 1):
                    a[r][c] -= factor * a[column][c]
    return [a[i][n] / a[i][i] for i in range(n)]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    making = commands.add_parser("generate", help="self-play games, labelled positions")
    making.add_argument("--games", type=int, default=1500)
    making.add_argument("--seed", type=int, default=37)
    making.add_argument("--out", type=Path, required=True)
    making.add_argument("--eval", default="standard", help="the players' evaluation")
    making.add_argument("--depth", type=int, default=6, help="the players' search depth")
    fitting = commands.add_parser("fit", help="least squares; writes the weights module")
    fitting.add_argument("data", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "generate":
        generate(args.games, args.seed, args.out, args.eval, args.depth)
    else:
        fit(args.data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
