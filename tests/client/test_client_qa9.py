"""What QA found in the terminal client (round 9): an old game's presence news applied to its
rematch (and the rematch's seat token forgotten), Othello 10x10 with a clock at 60x16, and a
clock broken between its side's letter and its time."""

from __future__ import annotations

import dataclasses

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import PipeInput, create_pipe_input

from tests.client.test_client_qa8 import start_of
from tests.client.test_layout import SizedOutput, draw
from tests.client.test_rematch import old_game_left
from ubao.client.app import NBSP, GameApp, fold, wrap_fragments
from ubao.client.state import Applied, GameState
from ubao.protocol import Clocks, ClockSpec, SeatInfo

PEOPLE = (SeatInfo("open", "root", True), SeatInfo("open", "bob", True))
CLOCK = ClockSpec(300_000, 0)
"""5+0: "5:00" on each clock."""


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


def clocked(
    keys: PipeInput, snapshot_game: str, options: dict[str, int], **fields: object
) -> GameApp:
    """A player's screen at 60x16 of a game with a 5+0 clock, its first move due."""
    snapshot = dataclasses.replace(
        start_of(snapshot_game, options, PEOPLE),
        clock=CLOCK,
        clocks=Clocks((300_000, 300_000), None, 0, first_move_ms=60_000),
        **fields,  # type: ignore[arg-type]
    )
    app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(60, 16))
    app.set_connection("connected", True)
    app.on_event(snapshot)
    return app


def test_clocks_that_would_need_a_row_that_is_not_there_go_beside_the_input() -> None:
    # Othello 10x10 at 60x16: 13 board rows, a status line, input, keys: no row left.
    fit = fold(16, 13, 2, beside=False, empty_feedback=True, clock_rows=1)
    assert fit.clocks_by_input and not fit.clocks_in_status and fit.panel_rows == 0
    assert not fit.title and not fit.feedback
    # With a row to spare they stay on the status line; a message keeps its own row first.
    assert fold(16, 12, 2, beside=False, empty_feedback=True, clock_rows=1).clocks_in_status
    spared = fold(16, 12, 2, beside=False, empty_feedback=False, clock_rows=1)
    assert spared.clocks_by_input and spared.feedback


async def test_othello_10x10_with_a_clock_fits_60x16() -> None:
    with create_pipe_input() as keys:
        app = clocked(keys, "othello", {"size": 10})
        lines = draw(app.application, 60, 16)
        shown = "\n".join(lines)
        assert "too small" not in shown.lower() and "needs a terminal" not in shown, shown
        assert " 10  ." in shown and lines[-3].startswith("Your move (Black (X)): 60 s"), shown
        assert lines[-2].startswith("move>") and lines[-2].endswith("B 5:00  W 5:00"), shown
        assert lines[-1].startswith("F1: help"), shown
        app.say("White (O) played e3")  # a message takes the key line's place
        lines = draw(app.application, 60, 16)
        assert lines[-1] == "White (O) played e3" and lines[-5].startswith(" 10  ."), lines
        assert lines[-2].endswith("W 5:00"), lines


async def test_a_status_line_too_long_for_the_board_says_the_size_it_needs() -> None:
    """A spectator's status line naming long bot names beside the first move's countdown
    takes two rows: the screen's own size message, never prompt_toolkit's."""
    bots = (
        SeatInfo("bot", "ubao-engine (depth 1)", True, depth=1),
        SeatInfo("bot", "ubao-engine (depth 3)", True, depth=3),
    )
    with create_pipe_input() as keys:
        app = clocked(keys, "othello", {"size": 10}, seats=bots)
        app.seat = None
        shown = " ".join(" ".join(draw(app.application, 60, 16)).split())
    assert "needs a terminal of at least 46x17" in shown and "is 60x16" in shown, shown
    assert "too small" not in shown.lower(), shown


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
