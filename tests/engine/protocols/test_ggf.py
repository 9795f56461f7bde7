"""GGF Othello records: read and written back exactly, clocks, passes written or left out, the
board sizes GGF has, and the mapping to ubao's positions with the rules checking every move."""

from __future__ import annotations

import pytest

from ubao.engine.games import make_game
from ubao.engine.protocols import EnginePosition
from ubao.engine.protocols.ggf import (
    GgfClock,
    GgfError,
    GgfGame,
    GgfMove,
    format_ggf,
    game_position,
    ggf_game,
    parse_clock,
    parse_ggf,
    parse_move_item,
)

START_8 = "8 ---------------------------O*------*O--------------------------- *"
NBOARD_EXAMPLE = (
    "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]"
    f"TY[8]BO[{START_8}]B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)"
)
"""The record of the NBoard protocol document's example session."""
GAME_MOVES = ("f5", "f6", "d3", "c5", "e6", "f7", "e7", "f4")


def test_the_nboard_documents_record_reads_as_the_game_it_is() -> None:
    game = parse_ggf(NBOARD_EXAMPLE)
    assert (game.size, game.black, game.white, game.place) == (8, "./mEdax", "chris", "NBoard")
    assert game.clocks == (GgfClock(900.0), GgfClock(900.0))
    assert [item.move for item in game.moves] == list(GAME_MOVES)
    othello = make_game("othello", {"size": 8})
    assert game.start == othello.format_position(othello.start())
    position = game_position(game)
    assert position == EnginePosition("othello", {"size": 8}, "startpos", GAME_MOVES, 0)


def test_a_record_is_written_back_as_it_was_read() -> None:
    game = parse_ggf(NBOARD_EXAMPLE)
    assert parse_ggf(format_ggf(game)) == game
    assert format_ggf(game) == NBOARD_EXAMPLE  # the same text, tag for tag


def test_moves_carry_their_evaluation_and_time() -> None:
    assert parse_move_item("F5/1.5/2.03") == GgfMove("f5", 1.5, 2.03)
    assert parse_move_item("pa") == GgfMove("pass")
    assert parse_move_item("d3//0.5") == GgfMove("d3", None, 0.5)
    assert parse_move_item("J10") == GgfMove("j10")  # rows past 9 on 10x10 and up
    record = f"(;GM[Othello]BO[{START_8}]B[f5/-1.00/3.20]W[d6];)"
    game = parse_ggf(record)
    assert game.moves == (GgfMove("f5", -1.0, 3.2), GgfMove("d6"))
    assert "B[F5/-1.00/3.20]W[D6]" in format_ggf(game)


def test_clocks_take_every_ggs_form() -> None:
    assert parse_clock("15:00") == GgfClock(900.0)
    assert parse_clock("1:02:03/5/2:00") == GgfClock(3723.0, 5.0, 120.0)
    assert parse_clock("05:00//02:00") == GgfClock(300.0, 0.0, 120.0)
    game = parse_ggf(f"(;GM[Othello]TB[10:00/2]TW[5:00]BO[{START_8}];)")
    assert game.clocks == (GgfClock(600.0, 2.0), GgfClock(300.0))
    assert "TB[10:00/0:02]TW[5:00]" in format_ggf(game)


def test_a_pass_left_out_of_a_record_is_put_back_and_one_written_is_kept() -> None:
    # 4x4: after b1 c1 d3 a1 Black has no move (tests/engine/test_othello.py), so White moves
    # twice in a row; a record may write Black's pass or leave it out
    othello = make_game("othello", {"size": 4})
    position, colours, moves = othello.start(), [], []
    for move in ["b1", "c1", "d3", "a1", "pass", None]:
        parsed = (
            othello.legal_moves(position)[0] if move is None else othello.parse_move(position, move)
        )
        colours.append("BW"[othello.to_move(position)])
        moves.append(othello.format_move(position, parsed))
        position = othello.play(position, parsed)
    assert moves[4] == "pass" and colours[3:6] == ["W", "B", "W"]
    board = "BO[4 " + "-----O*--*O----- *]"
    items = [f"{colour}[{move}]" for colour, move in zip(colours, moves, strict=True)]
    written = parse_ggf("(;GM[Othello]" + board + "".join(items) + ";)")
    assert [item.move for item in written.moves] == moves
    left_out = parse_ggf("(;GM[Othello]" + board + "".join(items[:4] + items[5:]) + ";)")
    assert left_out == written
    assert "B[PA]" in format_ggf(left_out)


def test_moves_the_rules_forbid_are_refused_with_the_reason() -> None:
    with pytest.raises(GgfError, match=r"move 2 \(F5\).*occupied"):
        parse_ggf(f"(;GM[Othello]BO[{START_8}]B[F5]W[F5];)")
    with pytest.raises(GgfError, match="not W's turn"):
        parse_ggf(f"(;GM[Othello]BO[{START_8}]W[F5];)")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("GM[Othello]", "enclosed"),
        (f"(;GM[Go]BO[{START_8}];)", "not Othello"),
        ("(;GM[Othello];)", "no start board"),
        ("(;GM[Othello]BO[16 " + "-" * 256 + " *];)", "not one of GGF's"),
        ("(;GM[Othello]BO[8 --- *];)", "has 3 cells"),
        ("(;GM[Othello]BO[8 " + "x" * 64 + " *];)", "cells are"),
        (f"(;GM[Othello]BO[{START_8}]B[Z];)", "not a square"),
        (f"(;GM[Othello]TI[soon]BO[{START_8}];)", "not a clock"),
        (f"(;GM[Othello]BO[{START_8}] junk;)", "expected TAG"),
    ],
)
def test_what_is_not_a_record_is_refused(text: str, message: str) -> None:
    with pytest.raises(GgfError, match=message):
        parse_ggf(text)


@pytest.mark.parametrize("size", [4, 6, 10, 14])
def test_every_ggf_board_size_maps_both_ways(size: int) -> None:
    othello = make_game("othello", {"size": size})
    position, moves = othello.start(), []
    for _ in range(6):
        move = othello.legal_moves(position)[-1]
        moves.append(othello.format_move(position, move))
        position = othello.play(position, move)
    engine_position = EnginePosition("othello", {"size": size}, "startpos", tuple(moves), 0)
    game = ggf_game(engine_position, black="b", white="w")
    text = format_ggf(game)
    assert f"TY[{size}]BO[{size} " in text
    assert game_position(parse_ggf(text)) == engine_position


def test_a_set_up_start_is_kept_and_boards_ggf_cannot_carry_are_refused() -> None:
    start = "-" * 27 + "OX" + "-" * 6 + "XX" + "-" * 27 + " O"
    position = EnginePosition("othello", {}, start, (), 1)
    text = format_ggf(ggf_game(position))
    assert "BO[8 " + "-" * 27 + "O*" + "-" * 6 + "**" + "-" * 27 + " O]" in text
    assert game_position(parse_ggf(text)) == EnginePosition("othello", {"size": 8}, start, (), 1)
    with pytest.raises(GgfError, match="no 16x16"):
        ggf_game(EnginePosition("othello", {"size": 16}, "startpos", (), 0))
    with pytest.raises(GgfError, match="not kalah"):
        ggf_game(EnginePosition("kalah", {}, "startpos", (), 0))


def test_names_cannot_end_their_field_early() -> None:
    game = GgfGame(8, make_game("othello", {}).format_position(make_game("othello", {}).start()))
    text = format_ggf(GgfGame(game.size, game.start, black="a]b[c"))
    assert parse_ggf(text).black == "a)b(c"
