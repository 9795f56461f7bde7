"""4x4 Othello solved exactly: White wins by 8 discs (3-11) under perfect play.

The 3-11 result is the one usually quoted for the 4x4 board; it is found here twice, by an
exhaustive negamax written for this test and by the project's solver.
"""

from __future__ import annotations

import random

import pytest

from ubao.engine.othello.game import Othello, Position
from ubao.engine.solve import Solver

SOLVED_4X4 = -8
"""Black's discs minus White's at the end of a perfectly played 4x4 game."""


def negamax(game: Othello, position: Position, table: dict[Position, int]) -> int:
    """The mover's final disc lead under perfect play, searching every line to the end."""
    if position in table:
        return table[position]
    children = game.children(position)
    if children:
        value = max(-negamax(game, child, table) for _, child in children)
    else:
        outcome = game.outcome(position)
        assert outcome is not None
        black, white = outcome.score
        value = black - white if game.to_move(position) == 0 else white - black
    table[position] = value
    return value


def test_exhaustive_negamax_finds_white_wins_4x4_by_8_discs() -> None:
    game = Othello({"size": 4})
    assert negamax(game, game.start(), {}) == SOLVED_4X4


def test_the_solver_agrees_and_its_line_of_best_play_ends_3_to_11() -> None:
    game = Othello({"size": 4})
    solution = Solver(game).solve()
    assert solution.value == SOLVED_4X4
    assert solution.winner == 1
    position = game.start()
    for move in solution.pv:
        position = game.play(position, move)
    outcome = game.outcome(position)
    assert outcome is not None
    assert outcome.score == (3, 11)


def late_position(game: Othello, empties: int, seed: int) -> Position:
    """A position `empties` squares from the end of a random game, with a move to play."""
    rng = random.Random(seed)
    while True:
        position = game.start()
        while game.legal_moves(position):
            position = game.play(position, rng.choice(game.legal_moves(position)))
            if 64 - (position.black | position.white).bit_count() <= empties:
                break
        if game.legal_moves(position):
            return position


@pytest.mark.parametrize("seed", range(2))
def test_the_last_empties_of_an_8x8_game_are_solved_exactly(seed: int) -> None:
    game = Othello({"size": 8})
    position = late_position(game, 7, seed)
    lead = negamax(game, position, {})
    solution = Solver(game).solve(position)
    assert solution.value == (lead if game.to_move(position) == 0 else -lead)
    # and ten empties, solved by the solver alone in a fraction of a second
    assert Solver(game).solve(late_position(game, 10, seed)).expanded < 20_000
