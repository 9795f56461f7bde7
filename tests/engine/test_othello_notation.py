"""Othello notation: squares a1..p16 and pass for moves, board plus side to move for positions."""

from __future__ import annotations

import pytest

from ubao.engine.game import IllegalMoveError, NotationError
from ubao.engine.othello.game import PASS, Othello

START_8X8 = "-" * 27 + "OX------XO" + "-" * 27 + " X"


# -- moves -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["d3", "D3", " d3 ", "\td3\n"])
def test_a_square_is_read_in_any_case_and_surrounding_space(text: str) -> None:
    game = Othello()
    assert game.parse_move(game.start(), text) == 2 * 8 + 3


@pytest.mark.parametrize("text", ["pass", "PASS", "Pass", " pass "])
def test_pass_is_read_in_any_case(text: str) -> None:
    game = Othello({"size": 4})
    position = game.parse_position("OX-------------- X")
    assert game.parse_move(position, text) == PASS


def test_squares_are_written_column_letter_then_row_from_the_top() -> None:
    game = Othello()
    start = game.start()
    assert game.format_move(start, 0) == "a1"
    assert game.format_move(start, 7) == "h1"
    assert game.format_move(start, 56) == "a8"
    assert game.format_move(start, 63) == "h8"
    assert game.format_move(start, PASS) == "pass"


def test_the_16x16_board_runs_from_a1_to_p16() -> None:
    game = Othello({"size": 16})
    start = game.start()
    assert game.format_move(start, 15) == "p1"
    assert game.format_move(start, 255) == "p16"
    assert game.format_move(start, 9 * 16 + 10) == "k10"


@pytest.mark.parametrize("size", range(4, 17, 2))
def test_every_legal_move_round_trips_through_its_text(size: int) -> None:
    game = Othello({"size": size})
    position = game.start()
    for _ in range(size):
        for move in game.legal_moves(position):
            assert game.parse_move(position, game.format_move(position, move)) == move
        position = game.play(position, game.legal_moves(position)[-1])


def test_formatting_a_number_off_the_board_is_refused() -> None:
    game = Othello({"size": 4})
    with pytest.raises(IllegalMoveError, match="16 is not a square of the 4x4 board"):
        game.format_move(game.start(), 16)


@pytest.mark.parametrize("text", ["", "d", "3", "3d", "dd3", "d03", "d3x", "d-3", "pas", "d 3"])
def test_malformed_move_text_is_a_notation_error(text: str) -> None:
    game = Othello()
    with pytest.raises(NotationError, match="is not a move: give a square"):
        game.parse_move(game.start(), text)


@pytest.mark.parametrize("text", ["i1", "z5", "a9", "h0", "a17"])
def test_a_square_off_the_8x8_board_is_a_notation_error(text: str) -> None:
    game = Othello()
    with pytest.raises(NotationError, match=r"is off the 8x8 board: columns run a-h, rows 1-8"):
        game.parse_move(game.start(), text)


def test_the_10x10_board_reaches_j10_but_not_k1() -> None:
    game = Othello({"size": 10})
    with pytest.raises(IllegalMoveError, match=r"^j10 flips no disc"):
        game.parse_move(game.start(), "J10")
    with pytest.raises(NotationError, match="'k1' is off the 10x10 board: columns run a-j"):
        game.parse_move(game.start(), "k1")


def test_an_occupied_square_is_an_illegal_move() -> None:
    game = Othello()
    with pytest.raises(IllegalMoveError, match=r"^d4 is occupied$"):
        game.parse_move(game.start(), "d4")


def test_a_square_that_flips_nothing_is_an_illegal_move() -> None:
    game = Othello()
    with pytest.raises(IllegalMoveError, match=r"^e3 flips no disc"):
        game.parse_move(game.start(), "E3")


def test_passing_while_a_move_exists_is_illegal_and_lists_the_moves() -> None:
    game = Othello()
    with pytest.raises(
        IllegalMoveError, match=r"^Black cannot pass while a move is possible: d3 c4 f5 e6$"
    ):
        game.parse_move(game.start(), "pass")


def test_placing_when_the_mover_must_pass_says_to_pass() -> None:
    game = Othello({"size": 4})
    position = game.parse_position("OX-------------- X")
    with pytest.raises(
        IllegalMoveError, match=r"^Black cannot play c1: no move is possible, so pass"
    ):
        game.parse_move(position, "c1")


@pytest.mark.parametrize("text", ["pass", "a4"])
def test_no_move_is_legal_once_the_game_is_over(text: str) -> None:
    game = Othello({"size": 4})
    over = game.parse_position("OOO------------- X")
    with pytest.raises(IllegalMoveError, match=r"^the game is over: neither player can move$"):
        game.parse_move(over, text)


def test_play_refuses_a_number_off_the_board() -> None:
    game = Othello()
    with pytest.raises(IllegalMoveError, match="64 is not a square of the 8x8 board"):
        game.play(game.start(), 64)


# -- positions -------------------------------------------------------------------------------


def test_the_8x8_start_is_written_row_by_row_then_the_side_to_move() -> None:
    game = Othello()
    assert game.format_position(game.start()) == START_8X8
    assert game.parse_position(START_8X8) == game.start()


def test_position_text_is_one_line_without_the_word_moves() -> None:
    game = Othello()
    text = game.format_position(game.start())
    assert "\n" not in text
    assert "moves" not in text.lower().split()


def test_white_to_move_is_written_o() -> None:
    game = Othello()
    after = game.play_text(game.start(), "f5")
    text = game.format_position(after)
    assert text.endswith(" O")
    assert game.parse_position(text) == after


def test_surrounding_and_repeated_spaces_are_tolerated() -> None:
    game = Othello()
    assert game.parse_position("  " + START_8X8.replace(" ", "   ") + "\n") == game.start()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"an othello position is the board \(64 characters X, O or -.*got 0 field\(s\)"),
        (START_8X8[:-2], r"got 1 field\(s\)"),
        (START_8X8 + " moves", r"got 3 field\(s\)"),
        ("-" * 63 + " X", r"^the board has 63 squares; 8x8 needs 64$"),
        ("-" * 65 + " X", r"^the board has 65 squares; 8x8 needs 64$"),
        ("x" + "-" * 63 + " X", r"^'x' at a1 is not a square: use X \(black\), O \(white\) or -"),
        ("-" * 63 + "0 X", r"^'0' at h8 is not a square"),
        (START_8X8[:-1] + "B", r"^the side to move must be X \(black\) or O \(white\), not 'B'$"),
        (START_8X8[:-1] + "x", r"not 'x'$"),
    ],
)
def test_malformed_positions_are_rejected_saying_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        Othello().parse_position(text)


def test_a_position_of_another_size_is_rejected() -> None:
    four = Othello({"size": 4})
    with pytest.raises(NotationError, match="the board has 16 squares; 6x6 needs 36"):
        Othello({"size": 6}).parse_position(four.format_position(four.start()))


def test_position_json_is_the_position_text() -> None:
    game = Othello()
    assert game.position_json(game.start()) == START_8X8
    assert game.parse_position_json(START_8X8) == game.start()
