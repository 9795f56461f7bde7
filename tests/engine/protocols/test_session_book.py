"""The stdio engine plays 8x8 Othello's opening book when a search plays, and searches when the
book is off, in the exact mode, in an analysis, or in another game (engine/protocols/session.py)."""

from __future__ import annotations

import pytest

from tests.support.stdio import Recorder, bestmove
from ubao.engine.protocols.session import EngineSession
from ubao.engine.tools.entrants import Entrant, parse_spec
from ubao.engine.tools.tournament import builtin_options

START = "position othello {} startpos"


def test_a_search_that_plays_answers_from_the_book_with_its_value() -> None:
    lines = Recorder().send(START, "go depth 3")
    move = bestmove(lines)
    assert lines[0].startswith(f"info string book move {move}, ")
    assert lines[1].startswith("info depth 0 score ") and lines[1].endswith(f" pv {move}")
    assert bestmove(lines) in {"d3", "c4", "f5", "e6"}


def test_the_books_choice_varies_from_game_to_game_and_repeats_with_a_seed() -> None:
    answers = {bestmove(Recorder().send(START, "go depth 3")) for _ in range(24)}
    assert len(answers) >= 2

    def seeded(seed: int) -> list[str]:
        lines: list[str] = []
        session = EngineSession(lines.append, book_seed=seed)
        for command in (START, "go depth 3", f"{START} moves d3", "go depth 3"):
            session.handle(command)
        return [line for line in lines if line.startswith("bestmove ")]

    assert seeded(7) == seeded(7)


@pytest.mark.parametrize(
    "commands",
    [
        ("setoption name Book value false", START, "go depth 3"),
        ("setoption name Exact value true", START, "go depth 3"),
        ("setoption name MultiPV value 2", START, "go depth 3"),
        (START, "go depth 3 searchmoves d3 c4"),
        ('position othello {"size":6} startpos', "go depth 3"),
    ],
)
def test_the_book_is_left_aside_where_the_engine_must_search(commands: tuple[str, ...]) -> None:
    lines = Recorder().send(*commands)
    assert not any("book" in line for line in lines)
    assert any(line.startswith("info depth 3 ") for line in lines)


def test_book_off_in_an_engines_settings_turns_the_option_off() -> None:
    spec = parse_spec("depth=3,book=off")
    assert spec is not None and not spec.book and spec.describe().endswith(":nobook")
    with pytest.raises(ValueError, match="book must be on or off"):
        parse_spec("depth=3,book=no")
    options = {"Algorithm": "negamax", "Eval": "<empty>", "Hash": "16", "Exact": "false"}
    expected = {**options, "Threads": "1", "ProbCut": "true", "Book": "true"}
    assert builtin_options_of("depth=3") == expected
    assert builtin_options_of("depth=3,book=off")["Book"] == "false"


def builtin_options_of(text: str) -> dict[str, str]:
    spec = parse_spec(text)
    assert spec is not None
    return builtin_options(Entrant("engine", spec))
