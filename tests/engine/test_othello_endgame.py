"""The native 8x8 Othello endgame solver (engine/othello_endgame.py, engine/native/
othello_endgame.c) against the generic Python solver, against published exact scores, and as
the solver and the search use it."""

from __future__ import annotations

import random
import threading

import pytest

from ubao.engine.backend import NATIVE_BUILT, NativeOthello
from ubao.engine.othello.game import Othello, Position
from ubao.engine.othello_endgame import OthelloEndgame, endgame_for
from ubao.engine.search import Searcher
from ubao.engine.solve import Solver

if not NATIVE_BUILT:
    pytest.skip("the native core is not built", allow_module_level=True)

FFO = [
    ("--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X", 18),
    ("-XXXXXX---XOOOO--XOXXOOX-OOOOOOOOOOOXXOOOOOXXOOX--XXOO----XXXXX- X", 10),
    ("----OX----OOXX---OOOXX-XOOXXOOOOOXXOXXOOOXXXOOOOOXXXXOXO--OOOOOX X", 2),
    ("-XXXXXX-X-XXXOO-XOXXXOOXXXOXOOOX-OXOOXXX--OOOXXX--OOXX----XOXXO- X", 0),
    ("--XOXX--O-OOXXXX-OOOXXXX-XOXXXOXXXOXOOOXOXXOXOXX--OXOO----OOOO-- O", -8),
]
"""FFO endgame test positions #1-#4 and #9 (14 to 16 empties) with their published exact
scores for the side to move; every line of best play fills the board there, so the scores count
the empties for nobody, as ubao does."""


def native() -> NativeOthello:
    game = NativeOthello({"size": 8})
    return game


def late_position(game: Othello, empties: int, rng: random.Random) -> Position:
    """A position `empties` squares from the end of a random game, the game not over."""
    while True:
        position = game.start()
        while game.legal_moves(position):
            position = game.play(position, rng.choice(game.legal_moves(position)))
            if 64 - (position.black | position.white).bit_count() <= empties:
                break
        if game.legal_moves(position):
            return position


def mover_value(game: Othello, position: Position) -> int:
    """The mover's final margin by the generic Python solver (the oracle)."""
    value = Solver(game).solve(position).value
    return -value if position.player else value


@pytest.mark.parametrize("seed", range(12))
def test_the_native_margin_is_the_python_solvers_on_few_empties(seed: int) -> None:
    reference, solver = Othello({"size": 8}), OthelloEndgame(native(), 1.0)
    rng = random.Random(seed)
    position = late_position(reference, 8 + seed % 3, rng)
    exact = mover_value(reference, position)
    assert solver.margin(position) == exact
    # fail-soft windows: a bound on the right side, or the value inside
    for _ in range(6):
        alpha = rng.randint(-64, 62)
        beta = rng.randint(alpha + 1, 64)
        found = OthelloEndgame(native(), 1.0).margin(position, alpha, beta)
        assert found is not None
        if found <= alpha:
            assert exact <= found
        elif found >= beta:
            assert exact >= found
        else:
            assert found == exact


@pytest.mark.parametrize(("text", "score"), FFO)
def test_ffo_positions_get_their_published_exact_scores(text: str, score: int) -> None:
    game = native()
    position = game.parse_position(text)
    solver = OthelloEndgame(game, 16.0)
    assert solver.margin(position) == score
    # the line of best play ends the game with that margin
    end = position
    line = solver.line(position, score)
    for move in line:
        end = game.play(end, move)
    outcome = game.outcome(end)
    assert outcome is not None
    black, white = outcome.score
    assert (black - white) * (-1 if position.player else 1) == score


def test_solve_othello_on_the_native_backend_matches_the_python_backend() -> None:
    reference = Othello({"size": 8})
    position = late_position(reference, 9, random.Random(7))
    python = Solver(reference).solve(position)
    fast = Solver(native()).solve(position)
    assert (fast.value, fast.winner, fast.probes) == (python.value, python.winner, 1)
    end = position
    for move in fast.pv:
        end = reference.play(end, move)
    assert reference.is_over(end)


def test_only_the_native_8x8_board_has_the_endgame_solver() -> None:
    assert endgame_for(Othello({"size": 8}), 1.0) is None
    assert endgame_for(NativeOthello({"size": 6}), 1.0) is None
    assert endgame_for(native(), 1.0) is not None


def test_the_search_solves_a_position_within_reach_and_says_the_exact_result() -> None:
    game = native()
    text, score = FFO[0]
    position = game.parse_position(text)
    result = Searcher(game).search(position, time_ms=60_000)
    assert result.margin == score
    assert result.mate == len(result.pv)
    # the exact mode keeps searching node for node, to the depth asked
    exact = Searcher(game, exact=True).search(position, depth=2)
    assert exact.stats.depth == 2 and exact.margin is None


def test_stop_ends_a_solve_and_the_search_still_answers() -> None:
    game = native()
    # FFO #40, 20 empties: within an untimed search's reach, but seconds to solve
    position = game.parse_position(
        "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X"
    )
    searcher = Searcher(game)
    timer = threading.Timer(0.3, searcher.stop)
    timer.start()
    result = searcher.search(position)
    timer.join()
    assert result.stopped
    assert result.move in game.legal_moves(position)
