"""The KGP codec (engine/protocols/kgp.py): lines and boards both ways, and ubao's Kalah on KGP's
rules against Kalah as the spec plays it (tests/support/kgp.py), on both backends."""

from __future__ import annotations

import random

import pytest

from tests.support.kgp import SpecBoard
from ubao.engine.games import make_game
from ubao.engine.protocols.kgp import (
    MAX_LINE,
    Board,
    Command,
    KgpSyntaxError,
    Word,
    board_of_position,
    format_line,
    kgp_options,
    parse_board,
    parse_line,
    plays_kgp_rules,
    position_of_board,
)


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("kgp 1 0 1", Command("kgp", (1, 0, 1))),
        ("4 state <3,0,0,3,3,3,3,3,3>", Command("state", (Board(0, 0, (3, 3, 3), (3, 3, 3)),), 4)),
        ("@4 move 1", Command("move", (1,), ref=4)),
        ("6@4 stop", Command("stop", (), 6, 4)),
        ("  12 ok -.5 +3  ", Command("ok", (-0.5, 3), 12)),
        ('set info:name "a \\"b\\" \\\\ c"', Command("set", ("info:name", 'a "b" \\ c'))),
        ('set "info:name" "Minmax 16"', Command("set", ("info:name", "Minmax 16"))),
        ("mode freeplay", Command("mode", ("freeplay",))),
        ('error "two\\nlines"', Command("error", ("two\nlines",))),
    ],
)
def test_lines_parse_as_the_spec_writes_them(line: str, command: Command) -> None:
    assert parse_line(line) == command


def test_words_stay_words_and_strings_are_quoted_and_escaped() -> None:
    parsed = parse_line("set time:mode relative")
    assert parsed is not None and isinstance(parsed.args[1], Word)
    line = format_line(Command("set", (Word("info:name"), 'say "hi"\\\n'), 8, 3))
    assert line == '8@3 set info:name "say \\"hi\\"\\\\\\n"'
    assert parse_line(line) == Command("set", ("info:name", 'say "hi"\\\n'), 8, 3)


@pytest.mark.parametrize(
    "line",
    [
        '"unterminated',
        'set a"b"',
        "<3,1,2>",
        "state <2,0,0,1,1,1>",
        "move !",
        "x" * (MAX_LINE + 1),
        "99999999999999999999999 ok",
    ],
)
def test_malformed_lines_are_errors(line: str) -> None:
    with pytest.raises(KgpSyntaxError):
        parse_line(line)


def test_blank_lines_are_nothing() -> None:
    assert parse_line("  \r") is None


def test_a_board_literal_round_trips_and_mirrors() -> None:
    board = parse_board("<3,10,2,1,2,3,4,2,0>")
    assert board == Board(10, 2, (1, 2, 3), (4, 2, 0))
    assert board.mirrored() == Board(2, 10, (4, 2, 0), (1, 2, 3))
    assert format_line(Command("state", (board,), 2)) == "2 state <3,10,2,1,2,3,4,2,0>"


def test_the_board_is_the_movers_view_of_a_ubao_position() -> None:
    game = make_game("kalah", kgp_options(3, 3))
    position = game.parse_position("kalah(3,3) N 1,2,3/4,2,0 10,2")
    board = board_of_position(position)
    assert board == Board(2, 10, (4, 2, 0), (1, 2, 3))  # North sees his row as South's
    assert position_of_board(board, to_move=1) == position
    assert position_of_board(board_of_position(game.start())) == game.start()


def test_the_kgp_option_set() -> None:
    game = make_game("kalah", kgp_options(8, 8))
    assert plays_kgp_rules(game.options)
    assert not plays_kgp_rules(make_game("kalah", {}).options)  # ubao's default captures empty


def random_board(rng: random.Random) -> SpecBoard:
    size = rng.randrange(1, 13)
    return SpecBoard(
        rng.randrange(3 * size),
        rng.randrange(3 * size),
        [rng.randrange(2 * size) for _ in range(size)],
        [rng.randrange(2 * size) for _ in range(size)],
    )


@pytest.mark.parametrize("backend", ["python", "native"])
def test_ubao_kalah_on_kgp_options_plays_as_the_spec_says(backend: str) -> None:
    """Random boards (laps included), every legal move: the same board, the same extra turn,
    the same end (the early one, a store past half the seeds, included)."""
    rng = random.Random(32)
    compared = early = 0
    while compared < 3000:
        spec = random_board(rng)
        game = make_game("kalah", kgp_options(len(spec.south), 1), backend)
        plain = make_game("kalah", {**kgp_options(len(spec.south), 1), "early_end": False})
        position = position_of_board(parse_board(spec.text()))
        if spec.over():
            assert game.legal_moves(position) == []
            continue
        assert game.legal_moves(position) == [i + 1 for i, n in enumerate(spec.south) if n]
        for pit in game.legal_moves(position):
            after_spec = SpecBoard(spec.south_store, spec.north_store, [*spec.south], [*spec.north])
            again = after_spec.sow(pit - 1)
            after = game.play(position, pit)
            assert board_of_position((*after[:-1], 0)) == parse_board(after_spec.text())
            assert (after[-1] == 0) == again
            assert game.is_over(after) == after_spec.over()
            early += game.is_over(after) and not plain.is_over(plain.play(position, pit))
            compared += 1
    assert early > 0  # games ended by a store past half were among them
