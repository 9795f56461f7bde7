"""Every game behind the `Game` interface: games that pickle and deep-copy, moves and squares of
a wrong type refused with the game's own errors, a move only equal to a legal one refused."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from tests.support.engine import BACKENDS
from ubao.engine.backend import backend_of
from ubao.engine.game import Game, IllegalMoveError, NotationError, OptionsError
from ubao.engine.games import GAMES, make_game

OPTIONS: dict[str, dict[str, Any]] = {
    "kalah": {"pits": 4, "seeds": 3, "empty_capture": False},
    "egyptian": {"pits": 5},
    "ethiopian": {"seeds": 3, "remaining": "mover"},
    "bao": {"profile": "nierse", "max_plies": 60},
    "othello": {"size": 6},
}
"""Options other than the defaults, so that a copy made with the defaults would show."""


def same_rules(game: Game[Any, Any], twin: Game[Any, Any]) -> None:
    """`twin` is `game` rebuilt: the same class, options and backend, and the same play."""
    assert twin is not game and type(twin) is type(game)
    assert twin.options == game.options and twin.describe() == game.describe()
    assert backend_of(twin) == backend_of(game)
    position = twin.start()
    assert position == game.start()
    for _ in range(8):
        moves = twin.legal_moves(position)
        assert moves == game.legal_moves(position)
        if not moves:
            break
        move = moves[len(moves) // 2]
        assert twin.format_move(position, move) == game.format_move(position, move)
        position, after = twin.play(position, move), game.play(position, move)
        assert position == after and twin.outcome(position) == game.outcome(position)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_pickles_and_deep_copies(backend: str, name: str) -> None:
    game = make_game(name, OPTIONS.get(name), backend)
    game.legal_moves(game.start())  # a Bao game's cache holds something to leave behind
    same_rules(game, pickle.loads(pickle.dumps(game)))
    same_rules(game, copy.deepcopy(game))
    same_rules(game, copy.copy(game))
    pair = copy.deepcopy([game, game])
    assert pair[0] is pair[1]  # the memo keeps one game one


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_move_that_only_equals_a_legal_one_is_illegal(backend: str) -> None:
    kalah = make_game("kalah", backend=backend)
    for move in (3.0, True, "3", None):
        with pytest.raises(IllegalMoveError):
            kalah.play(kalah.start(), move)
    with pytest.raises(NotationError):
        kalah.parse_move(kalah.start(), "３")
    assert kalah.parse_move(kalah.start(), "03") == 3


WRONG_TYPES: list[Any] = [None, 3, 19.0, True, b"3", ["3"]]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_wrong_types_raise_the_games_own_errors(backend: str, name: str) -> None:
    game = make_game(name, {}, backend)
    start = game.start()
    for value in WRONG_TYPES:
        with pytest.raises(NotationError):
            game.parse_move(start, value)
        with pytest.raises(NotationError):
            game.parse_position(value)
        if not isinstance(value, bytes | list) and type(value) is not int:  # 3 may be legal
            with pytest.raises(IllegalMoveError):
                game.play(start, value)
    wrong_options: list[Any] = [[1], "size", 5, {1: 2}, {None: 1, "pits": 4}]
    for options in wrong_options:
        with pytest.raises(OptionsError):
            make_game(name, options, backend)
    for bad_name in (["kalah"], None, 3):
        with pytest.raises(OptionsError):
            make_game(bad_name, {}, backend)  # type: ignore[arg-type]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_othello_play_refuses_a_float_or_a_bool_square(backend: str) -> None:
    othello = make_game("othello", {}, backend)
    start = othello.start()
    for move in (19.0, True, 19.5):
        with pytest.raises(IllegalMoveError, match="not an othello move"):
            othello.play(start, move)
        with pytest.raises(IllegalMoveError, match="not an othello move"):
            othello.format_move(start, move)
    assert othello.play(start, 19) != start  # d3, an int, stays a move


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_ethiopian_play_names_a_move_of_the_wrong_type(backend: str) -> None:
    game = make_game("ethiopian", {}, backend)
    for move in (None, "3", 3.0):
        with pytest.raises(IllegalMoveError, match="not a move of ethiopian"):
            game.play(game.start(), move)
