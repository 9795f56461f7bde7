"""The 8x8 Othello opening book: symmetric look-ups, the choice within the margin, the file and
its hash, and the shipped book's positions with every legal move (engine/othello_book.py)."""

from __future__ import annotations

import random

import pytest

from ubao.engine import othello_book
from ubao.engine.games import make_game
from ubao.engine.othello_book import (
    BookError,
    BookMove,
    OpeningBook,
    canonical,
    format_book,
    parse_book,
    shipped_book,
    transform_cells,
    transform_move,
)

OTHELLO = make_game("othello", {"size": 8})
AFTER_F5 = OTHELLO.format_position(OTHELLO.play_text(OTHELLO.start(), "f5"))


def book_of(text: str, moves: dict[str, float]) -> OpeningBook:
    """A book holding one position, given in any orientation, with its moves."""
    key, symmetry = canonical(text)
    return OpeningBook(
        {key: tuple(BookMove(transform_move(m, symmetry), v) for m, v in moves.items())}
    )


def test_a_position_is_found_in_each_of_its_eight_orientations_with_its_own_squares() -> None:
    book = book_of(AFTER_F5, {"d6": 0.5, "f6": 0.2, "f4": -3.0})
    cells, side = AFTER_F5.split()
    for symmetry in range(8):
        turned = f"{transform_cells(cells, symmetry)} {side}"
        moves = book.moves(turned)
        assert moves is not None
        expected = {transform_move(m, symmetry) for m in ("d6", "f6", "f4")}
        assert {m.move for m in moves} == expected
        position = OTHELLO.parse_position(turned)
        legal = {OTHELLO.format_move(position, m) for m in OTHELLO.legal_moves(position)}
        assert expected <= legal
        assert moves[0].value == 0.5  # best first
    assert book.moves(OTHELLO.format_position(OTHELLO.start())) is None


def test_the_choice_varies_among_the_moves_within_the_margin_and_repeats_with_its_seed() -> None:
    book = book_of(AFTER_F5, {"d6": 0.5, "f6": 0.2, "f4": -3.0})
    drawn = [book.choose(AFTER_F5, random.Random(seed)) for seed in range(40)]
    assert {move.move for move in drawn if move} == {"d6", "f6"}
    again = [book.choose(AFTER_F5, random.Random(seed)) for seed in range(40)]
    assert drawn == again
    narrow = {book.choose(AFTER_F5, random.Random(seed), margin=0.1) for seed in range(10)}
    assert narrow == {BookMove("d6", 0.5)}


def test_the_file_reads_back_what_was_written_and_refuses_a_bad_line() -> None:
    book = book_of(AFTER_F5, {"d6": 0.5, "f6": -0.25})
    text = format_book(book.entries, ["built for a test"])
    assert text.startswith("# built for a test\n")
    assert parse_book(text) == book.entries
    with pytest.raises(BookError, match="line 2"):
        parse_book("# comment\nXO X d3:+1\n")


def test_a_changed_book_file_is_refused_by_its_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped_book.cache_clear()
    monkeypatch.setattr(othello_book, "BOOK_SHA256", "0" * 64)
    try:
        with pytest.raises(BookError, match="SHA-256"):
            shipped_book()
    finally:
        shipped_book.cache_clear()


def test_the_shipped_book_has_the_start_and_every_legal_move_of_each_position() -> None:
    book = shipped_book()
    assert len(book) >= 1000
    start = book.moves(OTHELLO.format_position(OTHELLO.start()))
    assert start is not None and {m.move for m in start} == {"d3", "c4", "f5", "e6"}
    for key, moves in book.entries.items():
        position = OTHELLO.parse_position(key)
        legal = {OTHELLO.format_move(position, m) for m in OTHELLO.legal_moves(position)}
        assert {m.move for m in moves} == legal, key
