"""The native 8x8 Othello endgame solver (engine/othello_endgame.py, engine/native/
othello_endgame.c) against the generic Python solver, against published exact scores, and as
the solver and the search use it."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading

import pytest

from ubao.engine.backend import NATIVE_BUILT, NativeOthello
from ubao.engine.othello.game import Othello, Position
from ubao.engine.othello_endgame import OthelloEndgame, endgame_for
from ubao.engine.search import Searcher
from ubao.engine.search.driver import RESULT_BASE, RESULT_REACH, result_reach
from ubao.engine.search.scores import format_score
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
        assert_fail_soft(found, exact, alpha, beta)


@pytest.mark.parametrize(("text", "score"), FFO)
def test_the_result_alone_of_ffo_positions_is_their_published_scores_sign(
    text: str, score: int
) -> None:
    """`Solver.result` by the endgame solver: who wins, in fewer positions than the margin."""
    game = native()
    position = game.parse_position(text)
    result = Solver(game).result(position)
    mover = game.to_move(position)
    assert result.winner == (None if score == 0 else mover if score > 0 else 1 - mover)
    assert result.move is not None
    child = OthelloEndgame(game, 16.0).margin(game.play(position, result.move))
    assert child is not None and (child > 0) - (child < 0) == -((score > 0) - (score < 0))
    exact = OthelloEndgame(game, 16.0)
    assert exact.margin(position) == score
    assert result.expanded < exact.nodes()


@pytest.mark.parametrize(("text", "score"), FFO)
def test_the_solvers_result_alone_is_the_published_scores_sign_with_a_move_that_keeps_it(
    text: str, score: int
) -> None:
    game = native()
    position = game.parse_position(text)
    solver = OthelloEndgame(game, 16.0)
    found = solver.result(position)
    assert found is not None
    bound, move = found
    assert (bound > 0) - (bound < 0) == (score > 0) - (score < 0)
    assert bound <= score if score > 0 else bound >= score  # a bound on the right side
    child = OthelloEndgame(game, 16.0).margin(game.play(position, move))
    assert child is not None and (child > 0) - (child < 0) == -((score > 0) - (score < 0))
    exact = OthelloEndgame(game, 16.0)
    assert exact.margin(position) == score
    assert solver.nodes() < exact.nodes()


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


def assert_fail_soft(found: int | None, exact: int, alpha: int, beta: int) -> None:
    """`found` is what a fail-soft search of the window (alpha, beta) may answer: the margin
    inside the window, else a bound on the right side of it."""
    assert found is not None
    if found <= alpha:
        assert exact <= found
    elif found >= beta:
        assert exact >= found
    else:
        assert found == exact


@pytest.mark.parametrize(("text", "score"), FFO)
def test_the_narrow_windows_at_the_root_keep_every_bound_right(text: str, score: int) -> None:
    # from 12 empties up a wide window is searched as narrow ones around a shallow guess
    game = native()
    position = game.parse_position(text)
    rng = random.Random(score)
    windows = [(-64, 64), (score - 9, score + 7), (score + 3, 64), (-64, score - 5)]
    windows += [(alpha, rng.randint(alpha + 3, 64)) for alpha in rng.sample(range(-64, 61), 4)]
    solver = OthelloEndgame(game, 4.0)
    for alpha, beta in windows:
        alpha, beta = max(alpha, -64), min(beta, 64)
        assert_fail_soft(
            OthelloEndgame(game, 4.0).margin(position, alpha, beta), score, alpha, beta
        )
        # and with what earlier searches proved still in the table
        assert_fail_soft(solver.margin(position, alpha, beta), score, alpha, beta)


UNLOADED_SOLVE = """
import json, sys
from ubao.engine import _native
from ubao.engine.othello.game import Othello, Position
game = Othello({"size": 8})
solver = _native.OthelloEndgame(_native.Othello(size=8, position_type=Position), 4.0)
found = []
for text in json.loads(sys.argv[1]):
    before = solver.nodes()
    margin = solver.search(game.parse_position(text), -64, 64)
    found.append((margin, solver.nodes() - before))
print(json.dumps(found))
"""
"""Solves positions in a process where no 8x8 NativeOthello has loaded the pattern weights:
each margin and the positions searched for it."""


def test_without_the_pattern_weights_the_order_differs_and_the_margins_do_not() -> None:
    # the weights are loaded once per process, by the first 8x8 NativeOthello: a fresh
    # process that never makes one solves with mobility alone sorting the moves
    texts = [text for text, _ in FFO[:3]]
    output = subprocess.run(
        [sys.executable, "-c", UNLOADED_SOLVE, json.dumps(texts)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    without = json.loads(output)
    game = native()
    for (text, score), (margin, nodes) in zip(FFO, without, strict=False):
        solver = OthelloEndgame(game, 4.0)
        assert margin == solver.margin(game.parse_position(text)) == score
        assert nodes != solver.nodes()


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


def test_on_a_clock_beyond_the_margins_reach_the_search_plays_the_one_winning_move() -> None:
    """FFO #47 (25 empties, White to move): g2 wins by 4, every other move loses by 24 or more.
    Out of the margin's reach on a clock, who wins is sought alone and its move played."""
    game = native()
    position = game.parse_position(
        "-OOOOO----OOOO---OOOOX--XXXXXX---OXOOX--OOOXOX----OOXX----XXXX-- O"
    )
    result = Searcher(game).search(position, time_ms=60_000)
    assert result.move is not None and game.format_move(position, result.move) == "g2"
    assert result.margin is not None and 0 < result.margin <= 4
    assert not result.proved and result.pv == (result.move,)
    assert format_score(result.score, result.proved).endswith(f"by at least {result.margin}")


def test_who_wins_is_sought_first_only_as_far_as_the_time_likely_reaches() -> None:
    """Each square more doubles what who-wins costs; a try that fails leaves the usual search a
    quarter of the time. So a second a move seeks it from 24 empty squares, each doubling of
    the time one square further, never beyond `RESULT_REACH`."""
    assert result_reach(1.0) == RESULT_BASE
    assert [result_reach(2.0**k) - RESULT_BASE for k in range(-2, 3)] == [-2, -1, 0, 1, 2]
    assert result_reach(3600.0) == RESULT_REACH
    assert result_reach(0.0) == 0


def test_stop_ends_a_solve_and_the_search_still_answers() -> None:
    game = native()
    # FFO #40, 20 empties: within an untimed search's reach, but a third of a second to solve
    position = game.parse_position(
        "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X"
    )
    searcher = Searcher(game)
    timer = threading.Timer(0.05, searcher.stop)
    timer.start()
    result = searcher.search(position)
    timer.join()
    assert result.stopped
    assert result.move in game.legal_moves(position)
