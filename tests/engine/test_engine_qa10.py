"""QA round 10 of the engine: a single reply ends only a timed search, `Searcher.search`'s limits
checked up front alike on both backends, games that pickle and deep-copy, and `format_move`
refusing what is not a legal move."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from tests.support.engine import BACKENDS
from ubao.engine.backend import backend_of
from ubao.engine.bao_rules import BaoMove
from ubao.engine.game import Game, IllegalMoveError
from ubao.engine.games import GAMES, make_game
from ubao.engine.search import MAX_NODES, Searcher, SearchResult

pytestmark = pytest.mark.timeout(120)


# -- 1. a single reply ends the search only under a time limit -----------------------------------

ONE_REPLY = "kalah(6,4) S 0,0,0,0,0,20/4,4,4,4,4,4 0,0"
"""South's only move, 6, sows round the board: the game goes on for many plies."""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_single_reply_ends_only_a_timed_search(backend: str) -> None:
    game = make_game("kalah", {}, backend)
    position = game.parse_position(ONE_REPLY)
    assert game.legal_moves(position) == [6]
    searcher = Searcher(game)
    first = searcher.search(position, time_ms=60_000)
    assert first.move == 6 and not first.stopped and first.stats.depth == 2
    assert searcher.search(position, soft_time_ms=60_000).stats.depth == 2

    by_nodes = searcher.search(position, nodes=20_000)  # `go nodes 20000`
    assert by_nodes.move == 6 and by_nodes.stopped and by_nodes.stats.depth > 2

    def stop_at_depth_8(result: SearchResult[Any]) -> None:
        if result.stats.depth >= 8:
            searcher.stop()

    infinite = searcher.search(position, on_iteration=stop_at_depth_8)  # `go infinite`, `stop`
    assert infinite.move == 6 and infinite.stats.depth == 8


# -- 2. the search's limits, checked up front ----------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("limits", "error", "message"),
    [
        ({"depth": 2.0}, TypeError, "the depth must be an int, not 2.0"),
        ({"depth": "3"}, TypeError, "the depth must be an int, not '3'"),
        ({"depth": True}, TypeError, "the depth must be an int, not True"),
        ({"depth": 0}, ValueError, "the depth must be from 1 to 200, not 0"),
        ({"depth": 201}, ValueError, "the depth must be from 1 to 200, not 201"),
        ({"nodes": 2.5}, TypeError, "the node limit must be an int, not 2.5"),
        ({"nodes": True}, TypeError, "the node limit must be an int, not True"),
        ({"nodes": 0}, ValueError, "the node limit must be from 1 to"),
        ({"nodes": MAX_NODES + 1}, ValueError, "the node limit must be from 1 to"),
        ({"depth": 3, "mate": 2.5}, TypeError, "the mate distance in plies must be an int"),
        ({"depth": 3, "mate": True}, TypeError, "the mate distance in plies must be an int"),
        ({"depth": 3, "mate": 0}, ValueError, "the mate distance in plies must be 1 or more"),
        ({"time_ms": float("nan")}, ValueError, "time_ms must be 0 ms or more, not nan"),
        ({"time_ms": -1}, ValueError, "time_ms must be 0 ms or more, not -1"),
        ({"time_ms": "500"}, TypeError, "time_ms must be a number of milliseconds"),
        ({"time_ms": True}, TypeError, "time_ms must be a number of milliseconds"),
        ({"depth": 3, "soft_time_ms": float("nan")}, ValueError, "soft_time_ms must be 0 ms"),
        ({"depth": 3, "soft_time_ms": -0.5}, ValueError, "soft_time_ms must be 0 ms or more"),
        ({"depth": 3, "soft_time_ms": "5"}, TypeError, "soft_time_ms must be a number of"),
        ({"time_ms": 10**400}, ValueError, "time_ms is more milliseconds than a float holds"),
    ],
)
def test_search_limits_of_a_wrong_type_or_out_of_range_are_refused_up_front(
    backend: str, limits: dict[str, Any], error: type[Exception], message: str
) -> None:
    game = make_game("kalah", {}, backend)
    searcher = Searcher(game)
    with pytest.raises(error, match=f"^{message}"):
        searcher.search(game.start(), **limits)
    assert searcher.search(game.start(), depth=2).stats.depth == 2  # nothing was left behind


# -- 3. games pickle and deep-copy -----------------------------------------------------------------

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


# -- 4. format_move refuses what is not a legal move ----------------------------------------------


def refusals(game: Game[Any, Any], position: Any, moves: list[Any]) -> None:
    """Each of `moves` is refused by `format_move` with the IllegalMoveError `play` raises."""
    for move in moves:
        with pytest.raises(IllegalMoveError) as played:
            game.play(position, move)
        with pytest.raises(IllegalMoveError) as formatted:
            game.format_move(position, move)
        assert str(formatted.value) == str(played.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_mancala_move_that_is_not_legal_has_no_notation(backend: str) -> None:
    kalah = make_game("kalah", {}, backend)
    position = kalah.parse_position("kalah(6,4) S 4,0,4,4,4,4/4,4,4,4,4,4 0,4")
    refusals(kalah, position, [99, 0, -1, 7, 2, 3.0, True, "1"])
    assert [kalah.format_move(position, move) for move in kalah.legal_moves(position)] == [
        "1", "3", "4", "5", "6",
    ]  # fmt: skip
    over = kalah.parse_position("kalah(6,4) S 0,0,0,0,0,0/4,4,4,4,4,4 24,0")
    refusals(kalah, over, [1, 6])
    ethiopian = make_game("ethiopian", {}, backend)
    single = ethiopian.parse_position("ethiopian(6,4) S 1,4,4,4,4,4/4,4,4,4,4,4 0,0")
    refusals(ethiopian, single, [1, -1, 7, -7, 0])
    assert ethiopian.format_move(single, -2) == "2L"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bao_move_that_is_not_legal_has_no_notation(backend: str) -> None:
    bao = make_game("bao", {}, backend)
    start = bao.start()
    refusals(
        bao,
        start,
        [BaoMove(99, 1), BaoMove(0, 5), BaoMove(0, 1), BaoMove(5, 1, True), 3, "x", None],
    )
    texts = [bao.format_move(start, move) for move in bao.legal_moves(start)]
    assert texts == ["A6L", "A6R", "A7L", "A7R"]
    assert [bao.parse_move(start, text) for text in texts] == bao.legal_moves(start)
