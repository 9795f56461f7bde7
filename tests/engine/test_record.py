"""Game records: tag pairs and numbered moves that round-trip, with errors that say where."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ubao.engine.record import Record, RecordError, format_record, parse_record, result_token

KALAH_RECORD = """\
[Game "kalah"]
[Options "{\\"pits\\":4,\\"seeds\\":3}"]
[South "alice"]
[North "ubao-engine (depth 2)"]
[Result "1-0"]

1. 2 4 2. 1 3 3. 4 1-0
"""


def test_a_record_reads_its_tags_options_and_moves() -> None:
    record = parse_record(KALAH_RECORD)
    assert record.game == "kalah"
    assert record.options == {"pits": 4, "seeds": 3}
    assert record.tags["North"] == "ubao-engine (depth 2)"
    assert record.moves == ("2", "4", "1", "3", "4")
    assert record.result == "1-0"


def test_formatting_numbers_pairs_of_plies_and_ends_with_the_result() -> None:
    assert format_record(parse_record(KALAH_RECORD)) == KALAH_RECORD


def test_long_move_lists_wrap_and_still_read_back() -> None:
    record = Record({"Game": "othello", "Result": "*"}, tuple(["d3", "c5"] * 40))
    text = format_record(record, width=40)
    assert all(len(line) <= 40 for line in text.splitlines())
    assert parse_record(text) == record


def test_a_record_without_a_result_tag_is_unfinished() -> None:
    record = Record({"Game": "bao"}, ("A6L", "a5R"))
    text = format_record(record)
    assert text.endswith("1. A6L a5R *\n")
    assert parse_record(text) == record


@pytest.mark.parametrize(
    ("winner", "finished", "token"),
    [(0, True, "1-0"), (1, True, "0-1"), (None, True, "1/2-1/2"), (None, False, "*")],
)
def test_result_tokens(winner: int | None, finished: bool, token: str) -> None:
    assert result_token(winner, finished) == token


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[Game "kalah"]\n\n1. 3 2. 4 *\n', "move number 2. splits pair 1"),
        ('[Game "kalah"]\n\n1. 3 4 3. 5 *\n', "move number 3. should be 2."),
        ('[Game "kalah"]\n\n1. 3 4\n', "must end with a result"),
        ('[Game "kalah"]\n\n1. 3 4 * 5\n', "'5' after the result *"),
        ('[Game "kalah"]\n[Result "0-1"]\n\n1. 3 4 1-0\n', "Result tag says 0-1"),
        ('[Options "{}"]\n\n*\n', "no Game tag"),
        ("[Game kalah]\n\n*\n", "line 1: '[Game kalah]' is not a tag pair"),
        ('[Game "kalah"]\n[Game "bao"]\n\n*\n', "line 2: tag Game appears twice"),
    ],
)
def test_bad_records_are_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=re.escape(message)):
        parse_record(text)


@pytest.mark.parametrize("move", ["", "two words", "3.", "1-0", "*"])
def test_moves_that_would_not_read_back_are_refused(move: str) -> None:
    with pytest.raises(RecordError, match="cannot be written"):
        format_record(Record({"Game": "kalah"}, (move,)))


names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}", fullmatch=True)
values = st.text(
    # printable text: records escape the rest (tests/client/test_hostile.py)
    st.characters(exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"))
    | st.just(" "),
    max_size=20,
)
moves = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9+*:>]{0,5}", fullmatch=True).filter(
    lambda m: m not in ("1-0", "0-1") and not m.rstrip(".").isdigit()
)


@given(
    tags=st.dictionaries(names.filter(lambda n: n not in ("Game", "Result")), values, max_size=6),
    game=values,
    result=st.sampled_from(["1-0", "0-1", "1/2-1/2", "*"]),
    plies=st.lists(moves, max_size=30),
)
def test_format_and_parse_round_trip(
    tags: dict[str, str], game: str, result: str, plies: list[str]
) -> None:
    record = Record({"Game": game, **tags, "Result": result}, tuple(plies))
    assert parse_record(format_record(record)) == record


def test_a_move_carries_its_annotation_glyph_and_reads_back() -> None:
    text = KALAH_RECORD.replace("1. 2 4 2. 1 3 3. 4", "1. 2?! 4 2. 1?? 3! 3. 4!?")
    record = parse_record(text)
    assert record.moves == ("2", "4", "1", "3", "4")
    assert record.marks == ("?!", "", "??", "!", "!?")
    assert format_record(record) == text
    assert parse_record(format_record(record)) == record


def test_a_record_without_marks_is_the_record_it_always_was() -> None:
    """A record built without marks equals the one read from text without glyphs, and writes
    the same text as before the marks existed."""
    record = Record({"Game": "kalah", "Result": "*"}, ("3", "4"))
    assert record.marks == ("", "")
    assert parse_record(format_record(record)) == record
    assert format_record(record).endswith("\n1. 3 4 *\n")


@pytest.mark.parametrize(
    ("moves", "marks", "message"),
    [(("3", "4"), ("?",), "1 marks for 2 moves"), (("3",), ("?x",), "mark '?x' cannot be")],
)
def test_marks_that_do_not_fit_are_refused(
    moves: tuple[str, ...], marks: tuple[str, ...], message: str
) -> None:
    with pytest.raises(RecordError, match=re.escape(message)):
        format_record(Record({"Game": "kalah"}, moves, marks))


@pytest.mark.parametrize("move", ["3?", "a!"])
def test_a_move_ending_like_a_glyph_cannot_be_written(move: str) -> None:
    with pytest.raises(RecordError, match="cannot be written"):
        format_record(Record({"Game": "kalah"}, (move,)))


@given(
    plies=st.lists(
        st.tuples(moves, st.sampled_from(["", "?!", "?", "??", "!", "!!", "!?"])), max_size=20
    )
)
def test_marked_moves_round_trip(plies: list[tuple[str, str]]) -> None:
    record = Record(
        {"Game": "kalah", "Result": "*"},
        tuple(move for move, _ in plies),
        tuple(mark for _, mark in plies),
    )
    assert parse_record(format_record(record)) == record
