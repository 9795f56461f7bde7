"""Whether a search's score is proved (issue 37's smaller findings): the exact mode ends once an
iteration evaluates no leaf instead of searching the whole tree again at every depth, and a
forced result found past a horizon is said as a bound, not as the exact margin."""

from __future__ import annotations

import random

import pytest

from tests.support.engine import BACKENDS
from ubao.engine.games import make_game
from ubao.engine.othello.game import Othello, Position
from ubao.engine.search import Searcher
from ubao.engine.search.scores import MATE, PLY_SPAN, format_score
from ubao.engine.solve import Solver


def late_position(game: Othello, empties: int, seed: int) -> Position:
    """A position `empties` squares from the end of a random game, the game not over."""
    rng = random.Random(seed)
    while True:
        position = game.start()
        while game.legal_moves(position):
            position = game.play(position, rng.choice(game.legal_moves(position)))
            if 64 - (position.black | position.white).bit_count() <= empties:
                break
        if game.legal_moves(position):
            return position


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_exact_mode_stops_once_every_line_ended_with_the_solvers_value(backend: str) -> None:
    game = make_game("othello", {"size": 8}, backend)
    assert isinstance(game, Othello)
    position = late_position(game, 6, 5)
    result = Searcher(game, exact=True).search(position, depth=40)
    assert result.proved
    assert result.stats.depth < 20  # six empties end within a dozen plies, passes included
    solved = Solver(make_game("othello", {"size": 8}, "python")).solve(position)
    mover_margin = solved.value if position.player == 0 else -solved.value
    assert result.margin == mover_margin


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_horizon_leaves_the_score_unproved(backend: str) -> None:
    game = make_game("othello", {"size": 8}, backend)
    result = Searcher(game).search(game.start(), depth=3)
    assert not result.proved


def test_an_unproved_forced_margin_is_said_as_a_bound() -> None:
    win = MATE + PLY_SPAN * 20 - 20
    assert format_score(win) == "win in 20 by 20"
    assert format_score(win, proved=False) == "win in 20 by at least 20"
    assert format_score(-win, proved=False) == "loss in 20 by at least 20"
    assert format_score(3, proved=False) == "+3"
