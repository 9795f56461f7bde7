"""KGP's verify mode, pure: a problem posed (a random board and a legal move of South's) and
an agent's solution judged by ubao's Kalah on KGP's rules, as go-kgp poses and judges them."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ubao.engine.games import make_game
from ubao.engine.protocols.kgp import (
    Argument,
    Board,
    Command,
    board_of_position,
    format_line,
    kgp_options,
    position_of_board,
)


@dataclass(slots=True)
class Problem:
    board: Board
    move: int


def random_problem(rng: random.Random) -> Problem:
    """A random board (go-kgp's sizes and counts) of a game not over and a legal move of
    South's."""
    while True:
        size = rng.randrange(6, 12)
        board = Board(
            rng.randrange(4 * size),
            rng.randrange(4 * size),
            tuple(rng.randrange(2 * size) for _ in range(size)),
            tuple(rng.randrange(2 * size) for _ in range(size)),
        )
        game = make_game("kalah", kgp_options(size, 1))
        legal = game.legal_moves(position_of_board(board))  # none once over
        if legal:
            break
    return Problem(board, rng.choice(legal))


def sown(board: Board, move: int) -> tuple[Board, bool]:
    """`board` after South sows `move` by ubao's Kalah on KGP's rules; whether South moves
    again."""
    game = make_game("kalah", kgp_options(board.size, 1))
    after = game.play(position_of_board(board), move)
    south_again = after[-1] == 0
    return board_of_position((*after[:-1], 0)), south_again


def mistake(problem: Problem, solution: tuple[Argument, ...]) -> str | None:
    """What is wrong with a `solution`'s arguments (a board and 0 or 1), or None if right."""
    board, again = solution if len(solution) == 2 else (None, None)
    expected, repeat = sown(problem.board, problem.move)
    if not isinstance(board, Board) or not isinstance(again, int):
        return "a solution is a board and 0 or 1"
    if board != expected:
        return f"expected state {format_line(Command('', (expected,)))[1:]}"
    if bool(again) != repeat:
        return "was a repeat move" if repeat else "was not a repeat move"
    return None
