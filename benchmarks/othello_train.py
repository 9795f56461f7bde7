"""Trains Othello's `trained` evaluation (engine/othello/trained.py) from games ubao plays itself.

Two steps, each rerunnable; nothing comes from another program or a game database:

    .venv/bin/python benchmarks/othello_train.py generate --games 1500 --seed 37 --out DATA
    .venv/bin/python benchmarks/othello_train.py fit DATA

and a third for the `patterns` training (benchmarks/othello_patterns_train.py), which reads
its output too:

    .venv/bin/python benchmarks/othello_train.py label DATA --depth 6 --out LABELLED

`generate` plays 8x8 self-play games on the native core: 0 to 10 random opening plies (drawn
from `--seed`), then a search of `--depth` plies (6) with the evaluation `--eval` (`standard`)
for both sides until 16 squares are empty (with `--explore P`, each of those plies is a random
legal move instead with probability P, so that games from one opening part ways); from there the
game goes on by random moves and the native endgame solver gives the exact final margin of every
position. Every earlier position of the game is labelled with the exact margin of the game's
position at 16 empties (the result of that self-play line under perfect play at the end). One
line per position: Black's discs, White's, the player to move, and the label (Black's final
margin), as integers.

`label` adds a fifth number to each line of `generate`'s output: the value of the position by
a search of `--depth` plies with the evaluation `--eval` (the 8x8 default, `patterns`, unless
said; multi-ProbCut as the engine plays) on the native core, Black's expected final margin in
discs, rounded to a disc; a forced result the search proves is its exact margin. Positions
with `--exact-empties` (16) squares empty or fewer, whose label is already exact, get that
label again (or, above 16, the endgame solver's). So the earlier positions get a label of
their own in place of their game's result, as Logistello and Edax were trained.

`game-labels` gives the positions with `--empties LOW-HIGH` squares empty of a `label` output
their game's label again in place of their search's: before the sixth step of the `patterns`
training (docs/othello.md) a search counted discs at a horizon in the last 8 empties, so that
12-ply labels at 17 to 20 empties were far off; from 16 empties on each game's positions are
solved exactly, so its label there is the result of near-perfect play from 4 plies on.

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
from ubao.engine.search.scores import forced_result

SOLVED_EMPTIES = 16
"""From here on every position of a game is solved exactly."""
RIDGE = 1.0
WEIGHTS_FILE = Path(trained.__file__).with_name("trained_weights.py")


def generate(
    games: int, seed: int, out: Path, evaluation: str, depth: int, explore: float = 0.0
) -> None:
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
                moves = game.legal_moves(position)
                if rng.random() < explore:
                    position = game.play(position, rng.choice(moves))
                else:
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


def label(source: Path, out: Path, evaluation: str, depth: int, exact_empties: int) -> None:
    """Each line of `source` with a fifth number: its search's (or solver's) label."""
    game = NativeOthello({})
    solver = OthelloEndgame(game, 64)
    searcher = Searcher(game, evaluation=evaluation, hash_mb=16)
    with source.open() as lines, out.open("w") as sink:
        for number, text in enumerate(lines):
            black, white, player, exact = map(int, text.split()[:4])
            position = Position(black, white, player)
            empties = _empties(position)
            if empties <= SOLVED_EMPTIES:
                value = exact
            elif empties <= exact_empties:
                value = _black_margin(solver, position)
            else:
                value = _black_value(searcher.search(position, depth).score, player)
            sink.write(f"{black} {white} {player} {exact} {value}\n")
            if number % 10000 == 9999:
                print(f"{number + 1} positions", file=sys.stderr, flush=True)


def game_labels(source: Path, out: Path, empties: range) -> None:
    """`source` with the search's label of each position with `empties` squares empty replaced
    by its game's."""
    with source.open() as lines, out.open("w") as sink:
        for text in lines:
            numbers = text.split()
            black, white = int(numbers[0]), int(numbers[1])
            if 64 - (black | white).bit_count() in empties:
                numbers[-1] = numbers[3]
            sink.write(" ".join(numbers) + "\n")


def _black_value(score: float, player: int) -> int:
    """A search's score (the mover's) as Black's margin in whole discs (a forced result: its
    margin)."""
    forced = forced_result(score)
    value = forced[1] if forced is not None else round(score)
    return -value if player else value


def _empties_range(text: str) -> range:
    """`LOW-HIGH` as the range of empty squares from LOW to HIGH."""
    low, _, high = text.partition("-")
    return range(int(low), int(high or low) + 1)


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
            black, white, _, label = map(int, text.split()[:4])
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
    making.add_argument(
        "--explore", type=float, default=0.0, help="the chance of a random move at a searched ply"
    )
    labelling = commands.add_parser("label", help="a search's label beside each position")
    labelling.add_argument("data", type=Path)
    labelling.add_argument("--out", type=Path, required=True)
    labelling.add_argument("--eval", default="patterns", help="the search's evaluation")
    labelling.add_argument("--depth", type=int, default=6, help="the search's depth")
    labelling.add_argument(
        "--exact-empties", type=int, default=SOLVED_EMPTIES, help="solve exactly from here on"
    )
    regaining = commands.add_parser("game-labels", help="the game's label back, by empties")
    regaining.add_argument("data", type=Path)
    regaining.add_argument("--out", type=Path, required=True)
    regaining.add_argument(
        "--empties", type=_empties_range, required=True, metavar="LOW-HIGH", help="e.g. 17-20"
    )
    fitting = commands.add_parser("fit", help="least squares; writes the weights module")
    fitting.add_argument("data", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "generate":
        generate(args.games, args.seed, args.out, args.eval, args.depth, args.explore)
    elif args.command == "label":
        label(args.data, args.out, args.eval, args.depth, args.exact_empties)
    elif args.command == "game-labels":
        game_labels(args.data, args.out, args.empties)
    else:
        fit(args.data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
