"""`ubao replay`'s screen as the game screen is (issue 36, 15): F1 opens the help over it
(the game, its notation and marks, and every key of the replay), and a step forward is shown
hole by hole, a key ending it; stepping back or jumping is not animated."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input

from tests.support.client import until
from tests.support.screen import PLIES, SIZES, SizedOutput, draw, played, whole
from ubao.client.export import replay_of
from ubao.client.replay import KEYS, STUDY_KEYS, ReplayApp
from ubao.engine.games import GAMES
from ubao.engine.record import Record

RIGHT, F1, ESCAPE, DOWN = "\x1b[C", "\x1bOP", "\x1b", "\x1b[B"
SLOW = 60.0
"""Seconds per hole: an animation that stays until a key ends it."""


def record_of(name: str) -> Record:
    _, events = played(name)
    sides = GAMES[name].sides
    tags = {"Game": name, "Options": "{}", sides[0]: "ann", sides[1]: "bo"}
    return Record(tags, tuple(event.move for event in events))


@pytest.mark.parametrize(("columns", "rows"), SIZES)
async def test_f1_opens_the_help_with_the_replays_keys_over_the_screen(
    columns: int, rows: int
) -> None:
    record = record_of("kalah")
    with create_pipe_input() as keys:
        app = ReplayApp(record, replay_of(record), input=keys, output=SizedOutput(columns, rows))
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        assert draw(app.application, columns, rows)[-1].startswith("F1: help")
        keys.send_text(F1)
        await until(lambda: app.showing_help, "the help")
        whole_help = " ".join(line for _, line in app._help_lines())
        for key in ("right:", "m/M:", "a: ask the server", "e: the engine", "t: type", "1-3:"):
            assert key in whole_help, whole_help
        assert "u or Backspace" in whole_help and "Esc: back to the game" in whole_help
        assert GAMES["kalah"].summary.split()[0] in whole_help
        shown = "\n".join(draw(app.application, columns, rows))
        assert "Help: replay of kalah" in shown, shown
        assert ("F1, ? or Esc closes" in shown) or ("Esc: close" in shown), shown
        keys.send_text(RIGHT + DOWN + ESCAPE)  # the help has the keys, Esc closes it
        await until(lambda: not app.showing_help, "the help closed")
        assert app.ply == 0  # the board stayed at the start
        keys.send_text("?")
        await until(lambda: app.showing_help, "the help again, with ?")
        keys.send_text("q")  # closes the help; a second q leaves
        await until(lambda: not app.showing_help, "the help closed by q")
        keys.send_text("q")
        await asyncio.wait_for(task, 10)


@pytest.mark.parametrize("name", sorted(GAMES))
async def test_a_step_forward_is_animated_and_a_key_ends_it(name: str) -> None:
    record = record_of(name)
    with create_pipe_input() as keys:
        output = SizedOutput(80, 24)
        app = ReplayApp(record, replay_of(record), input=keys, output=output, step_seconds=SLOW)
        app.go(1)
        final = fragment_list_to_text(app._board_core())
        app.go(0)
        app.forward()
        frame = app.animation.frame
        assert app.ply == 1 and frame is not None and frame.ply == 0
        moving = fragment_list_to_text(app._board_core())
        assert moving != final  # a frame of the move on its way
        app.skip()  # Esc: the animation ends at the position after the move
        assert app.ply == 1 and app.animation.frame is None
        assert fragment_list_to_text(app._board_core()) == final
        app.go(0)
        app.forward()
        app.forward()  # pressed again meanwhile: that move ends at once, the next one begins
        frame = app.animation.frame
        assert app.ply == 2 and frame is not None and frame.ply == 1
        app.go(0)
        for ply in (PLIES, PLIES - 1, 0):
            app.go(ply)  # End, left, Home: shown at once
            assert app.animation.frame is None
        app.jump(1)  # no marks: nothing to jump to, and nothing animated
        assert app.animation.frame is None
        await asyncio.sleep(0)


async def test_the_animation_runs_to_the_position_after_the_move() -> None:
    record = record_of("kalah")
    with create_pipe_input() as keys:
        app = ReplayApp(
            record, replay_of(record), input=keys, output=SizedOutput(60, 20), step_seconds=0.01
        )
        app.forward()
        assert app.animation.frame is not None
        await until(lambda: app.animation.frame is None, "the animation's end")
        assert app.ply == 1
        lines = draw(app.application, 60, 20)
        board = fragment_list_to_text(app._board_text()).splitlines()
        assert whole(board, lines), "\n".join(lines)


def test_the_key_line_fits_a_60_column_terminal() -> None:
    assert len(KEYS) <= 60 and len(STUDY_KEYS) <= 60
