"""What QA found in the terminal client (round 9): an old game's presence news applied to its
rematch (and the rematch's seat token forgotten), Othello 10x10 with a clock at 60x16, and a
clock broken between its side's letter and its time."""

from __future__ import annotations

import dataclasses

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import create_pipe_input

from tests.client.test_layout import clocked, start_of
from tests.client.test_rematch import old_game_left
from tests.support.screen import draw
from ubao.client.app import NBSP, fold, wrap_fragments
from ubao.client.state import Applied, GameState
from ubao.protocol import SeatInfo

PEOPLE = (SeatInfo("open", "root", True), SeatInfo("open", "bob", True))


# -- 1. a rematch's old game ---------------------------------------------------------------------


def test_an_event_of_another_game_changes_nothing() -> None:
    state = GameState("AbCd1234")
    assert state.apply(start_of("othello", {}, PEOPLE), 0.0) is Applied.APPLIED
    before = dataclasses.replace(state)
    assert state.apply(old_game_left(state.v + 1), 1.0) is Applied.OTHER_GAME
    assert state == before and not state.over and state.seats[1].connected
    other = dataclasses.replace(start_of("kalah", {}, PEOPLE), game_id="OldGameA", v=9)
    assert state.apply(other, 1.0) is Applied.OTHER_GAME and state.game_name == "othello"


# -- 2. Othello 10x10 with a clock at 60x16 ------------------------------------------------------


def test_clocks_that_would_need_a_row_that_is_not_there_go_beside_the_input() -> None:
    # Othello 10x10 at 60x16: 13 board rows, a status line, input, keys: no row left.
    fit = fold(16, 13, 2, beside=False, empty_feedback=True, clock_rows=1)
    assert fit.clocks_by_input and not fit.clocks_in_status and fit.panel_rows == 0
    assert not fit.title and not fit.feedback
    # With a row to spare they stay on the status line; a message keeps its own row first.
    assert fold(16, 12, 2, beside=False, empty_feedback=True, clock_rows=1).clocks_in_status
    spared = fold(16, 12, 2, beside=False, empty_feedback=False, clock_rows=1)
    assert spared.clocks_by_input and spared.feedback


# -- 3. a clock is never broken --------------------------------------------------------------


def test_a_clock_moves_whole_to_the_next_line() -> None:
    text: StyleAndTextTuples = [
        ("", "waiting for a player to join: ubao play --join=G1YpwalB"),
        ("", f"   B{NBSP}"),
        ("class:side.name", "5:00"),
        ("", f"   W{NBSP}"),
        ("class:side.name", "5:00"),
    ]
    lines = "".join(piece for _, piece, *_ in wrap_fragments(text, 60)).split("\n")
    assert lines == [
        "waiting for a player to join: ubao play --join=G1YpwalB",
        f"B{NBSP}5:00   W{NBSP}5:00",
    ]


async def test_the_waiting_status_line_keeps_each_clock_whole() -> None:
    with create_pipe_input() as keys:
        app = clocked(
            keys, "othello", {}, status="waiting", seats=(PEOPLE[0], SeatInfo("open", None, False))
        )
        lines = draw(app.application, 60, 16)
    shown = "\n".join(lines)
    assert "--join=AbCd1234" in shown, shown
    assert not any(line.rstrip().endswith((" B", " W")) for line in lines), shown
    assert any(line.startswith("B 5:00   W 5:00") for line in lines), shown
