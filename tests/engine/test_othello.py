"""Othello rules: options, the start, perft against the reference table, passes and game ends."""

from __future__ import annotations

import random

import pytest

from tests.support.engine import BACKENDS
from ubao.engine.game import IllegalMoveError, OptionsError, Outcome, PositionError, Step
from ubao.engine.games import make_game
from ubao.engine.othello.game import PASS, Othello, Position
from ubao.engine.othello.game import Position as OthelloPosition
from ubao.engine.perft import perft

# The reference counts of docs/othello.md §5 (8x8 from the start), copied as the project's
# own test data; depth 9 runs in benchmarks/othello_perft.py.
PERFT_8X8 = {1: 4, 2: 12, 3: 56, 4: 244, 5: 1_396, 6: 8_200, 7: 55_092, 8: 390_216}


def play_all(game: Othello, position: Position, moves: str) -> Position:
    for text in moves.split():
        position = game.play_text(position, text)
    return position


# -- options ---------------------------------------------------------------------------------


def test_default_board_is_8x8() -> None:
    game = Othello({})
    assert game.options == {"size": 8}
    assert game.describe() == "othello(8)"
    assert len(game.format_position(game.start()).split()[0]) == 64


@pytest.mark.parametrize("size", range(4, 17, 2))
def test_every_even_size_from_4_to_16_is_accepted(size: int) -> None:
    game = Othello({"size": size})
    assert game.options == {"size": size}
    assert len(game.format_position(game.start()).split()[0]) == size * size


@pytest.mark.parametrize("size", [2, 3, 5, 15, 17, 18, 0, -8])
def test_odd_or_out_of_range_sizes_are_rejected(size: int) -> None:
    with pytest.raises(OptionsError, match=r"option 'size' must be an even integer from 4 to 16"):
        Othello({"size": size})


@pytest.mark.parametrize("size", ["8", 8.0, True, None])
def test_a_size_that_is_not_an_integer_is_rejected(size: object) -> None:
    with pytest.raises(OptionsError, match=r"option 'size'"):
        Othello({"size": size})


def test_unknown_options_are_rejected_by_name() -> None:
    with pytest.raises(OptionsError, match=r"unknown option\(s\) 'pits' for othello; known: size"):
        Othello({"size": 8, "pits": 6})


def test_the_registry_builds_othello_with_its_options() -> None:
    game = make_game("othello", {"size": 6})
    assert isinstance(game, Othello)
    assert game.describe() == "othello(6)"


# -- the start -------------------------------------------------------------------------------


def test_start_has_white_on_d4_and_e5_and_black_to_move() -> None:
    game = Othello()
    text = game.format_position(game.start())
    board, side = text.split()
    assert side == "X"
    rows = [board[i : i + 8] for i in range(0, 64, 8)]
    assert rows[3] == "---OX---"
    assert rows[4] == "---XO---"
    assert board.count("-") == 60


@pytest.mark.parametrize("size", range(4, 17, 2))
def test_start_has_two_discs_each_on_the_centre_diagonals(size: int) -> None:
    game = Othello({"size": size})
    start = game.start()
    m = size // 2
    assert start.white == 1 << ((m - 1) * size + m - 1) | 1 << (m * size + m)
    assert start.black == 1 << ((m - 1) * size + m) | 1 << (m * size + m - 1)
    assert game.to_move(start) == 0
    assert len(game.legal_moves(start)) == 4


def test_black_opens_with_d3_c4_f5_e6_in_board_order() -> None:
    game = Othello()
    start = game.start()
    assert [game.format_move(start, m) for m in game.legal_moves(start)] == [
        "d3",
        "c4",
        "f5",
        "e6",
    ]


# -- perft -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("depth", "nodes"), PERFT_8X8.items())
def test_perft_from_the_start_matches_the_reference_table(depth: int, nodes: int) -> None:
    game = Othello()
    assert perft(game, game.start(), depth) == nodes


def test_children_are_the_legal_moves_played() -> None:
    game = Othello()
    position = play_all(game, game.start(), "f5 d6 c3 d3 c4")
    assert game.children(position) == [
        (move, game.play(position, move)) for move in game.legal_moves(position)
    ]


@pytest.mark.parametrize("size", [4, 6, 8, 10, 16])
def test_children_and_is_over_agree_with_play_and_outcome_in_random_games(size: int) -> None:
    game = Othello({"size": size})
    rng = random.Random(size)
    for _game in range(20 if size < 10 else 3):
        position = game.start()
        while True:
            moves = game.legal_moves(position)
            assert game.children(position) == [(move, game.play(position, move)) for move in moves]
            assert game.is_over(position) == (game.outcome(position) is not None) == (not moves)
            if not moves:
                break
            position = game.play(position, rng.choice(moves))


# -- playing a move --------------------------------------------------------------------------


def test_a_placement_flips_every_closed_line_and_hands_over_the_move() -> None:
    # a1 closes the row (b1 to c1), the column (a2 to a3) and the diagonal (b2 to c3);
    # b3 is in no closed line and stays white.
    game = Othello({"size": 4})
    position = game.parse_position("-OX-OO--XOX-----" + " X")
    after = game.play_text(position, "a1")
    assert game.format_position(after) == "XXX-XX--XOX----- O"


def test_sowing_path_places_then_flips_clockwise_from_north_nearest_first() -> None:
    game = Othello()
    # d5 closes north (d4, d3 to d2), east (e5 to f5) and south-west (c6 to b7).
    board = ["--------"] * 8
    board[1] = "---X----"
    board[2] = "---O----"
    board[3] = "---O----"
    board[4] = "----OX--"
    board[5] = "--O-----"
    board[6] = "-X------"
    position = game.parse_position("".join(board) + " X")
    path = game.sowing_path(position, game.parse_move(position, "d5"))
    assert path == [
        Step("d5", "place"),
        Step("d4", "flip"),
        Step("d3", "flip"),
        Step("e5", "flip"),
        Step("c6", "flip"),
    ]


def test_sowing_path_of_a_pass_touches_no_square() -> None:
    game = Othello({"size": 4})
    position = game.parse_position("OX-------------- X")
    assert game.sowing_path(position, PASS) == []


def test_sowing_path_rejects_an_illegal_move() -> None:
    game = Othello()
    with pytest.raises(IllegalMoveError, match="a1 flips no disc"):
        game.sowing_path(game.start(), 0)


def test_a_flip_does_not_wrap_round_the_edge_of_a_row() -> None:
    # Row 1 ends in O on d1 and row 2 starts with X on a2: index-wise they are neighbours,
    # but c1 must not flip d1 by "continuing" east into a2.
    game = Othello({"size": 4})
    position = game.parse_position("---OX----------- X")
    # Likewise White's b2 must not flip a2 by running west into d1: nobody can move.
    assert game.legal_moves(position) == []


# -- passes and the end ----------------------------------------------------------------------


def test_4x4_game_where_black_must_pass_after_b1_c1_d3_a1() -> None:
    game = Othello({"size": 4})
    position = play_all(game, game.start(), "b1 c1 d3 a1")
    assert game.format_position(position) == "OOO--XX--XXX---- X"
    assert game.legal_moves(position) == [PASS]
    assert game.outcome(position) is None
    after = game.play(position, PASS)
    assert game.format_position(after) == "OOO--XX--XXX---- O"
    assert PASS not in game.legal_moves(after)
    assert "a3" in [game.format_move(after, m) for m in game.legal_moves(after)]


def test_a_pass_hands_the_move_over_and_leaves_the_board() -> None:
    game = Othello({"size": 4})
    position = game.parse_position("OX-------------- X")
    assert game.legal_moves(position) == [PASS]
    after = game.play(position, PASS)
    assert after == Position(position.black, position.white, 1)


def test_the_game_ends_when_neither_player_can_move_even_with_empty_squares() -> None:
    # Black passes, White c1 takes Black's last disc: nobody can flip anything any more.
    game = Othello({"size": 4})
    position = play_all(game, game.parse_position("OX-------------- X"), "pass c1")
    assert game.format_position(position) == "OOO------------- X"
    assert game.legal_moves(position) == []
    assert game.children(position) == []
    assert game.outcome(position) == Outcome(winner=1, score=(0, 3))
    assert game.is_over(position)


def test_6x6_white_passes_and_black_then_ends_the_game_with_a_square_left() -> None:
    game = Othello({"size": 6})
    board = "XXXXXX" * 4 + "XXXXXO" + "XXXX--"
    position = game.parse_position(board + " O")
    assert game.legal_moves(position) == [PASS]
    black_to_move = game.play(position, PASS)
    assert [game.format_move(black_to_move, m) for m in game.legal_moves(black_to_move)] == ["f6"]
    end = game.play_text(black_to_move, "f6")
    assert game.format_position(end) == "XXXXXX" * 5 + "XXXX-X O"
    assert game.legal_moves(end) == []
    assert game.outcome(end) == Outcome(winner=0, score=(35, 0))


def test_6x6_full_board_with_equal_discs_is_a_draw() -> None:
    game = Othello({"size": 6})
    position = game.parse_position("XXXOOO" * 6 + " X")
    assert game.legal_moves(position) == []
    assert game.outcome(position) == Outcome(winner=None, score=(18, 18))


def test_6x6_black_wins_on_a_full_board_by_more_discs() -> None:
    game = Othello({"size": 6})
    position = game.parse_position("XXXXOO" * 6 + " O")
    assert game.outcome(position) == Outcome(winner=0, score=(24, 12))


def test_no_8x8_game_ends_within_8_plies() -> None:
    # The shortest possible Othello game takes 9 plies, so every sequence of perft 8 is full.
    game = Othello()
    frontier = [game.start()]
    for _ in range(8):
        assert all(not game.is_over(position) for position in frontier)
        frontier = list({child for p in frontier for _, child in game.children(p)})


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_othello_legal_moves_refuse_a_malformed_position(backend: str) -> None:
    othello = make_game("othello", backend=backend)
    for position in ((1, 1, 0), (1 << 64, 0, 0), (1, 2, 2)):
        with pytest.raises(PositionError, match="not a position of othello"):
            othello.legal_moves(OthelloPosition(*position))
