"""The bell (`--bell`, off by default): the opponent's move rings it while nobody looks at the
terminal, as its focus reports say, or after a while without a key (issue 36, features)."""

from __future__ import annotations

import asyncio
import dataclasses

from prompt_toolkit.input import create_pipe_input

from tests.support.client import until
from tests.support.screen import PEOPLE, SizedOutput, played
from ubao.client.__main__ import build_parser, with_command
from ubao.client.app import GameApp
from ubao.client.bell import FOCUS_IN, FOCUS_OUT, LOOKED_AT_S, Attention
from ubao.client.state import GameState


class Bells(SizedOutput):
    """A terminal that counts its bells."""

    def __init__(self) -> None:
        super().__init__(80, 24)
        self.rung = 0
        self.written: list[str] = []

    def bell(self) -> None:
        self.rung += 1

    def write_raw(self, data: str) -> None:
        self.written.append(data)


def test_who_is_looking_is_the_focus_report_else_a_recent_key() -> None:
    attention = Attention()
    assert not attention.looked_at(100.0)  # no key yet, no report
    attention.last_key = 100.0
    assert attention.looked_at(100.0 + LOOKED_AT_S - 1) and not attention.looked_at(200.0)
    attention.focused = False
    assert not attention.looked_at(100.0) and attention.rings_for(1, 0, 100.0)
    assert not attention.rings_for(0, 0, 100.0) and not attention.rings_for(1, None, 100.0)
    attention.focused = True
    assert attention.looked_at(500.0)


async def rings(bell: bool) -> Bells:
    """A player's screen (seat 0) hearing its own moves, then the opponent's, unlooked at;
    then, with the bell, a focus report in, a move, and a report out."""
    snapshot, events = played("kalah")
    theirs = next(event for event in events if event.seat == 1)
    output = Bells()
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=output, bell=bell)
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        app.on_event(dataclasses.replace(snapshot, seats=PEOPLE))
        for event in events[: events.index(theirs) + 1]:  # the player's own moves never ring
            app.on_event(event)
        assert output.rung == (1 if bell else 0)
        attention = app.attention
        if attention is not None:
            keys.send_text(FOCUS_IN)
            await until(lambda: attention.focused, "the focus report")
            app.on_event(events[events.index(theirs) + 1])  # looked at: no bell
            assert output.rung == 1 and app.buffer.text == ""  # a report types nothing
            keys.send_text(FOCUS_OUT)
            await until(lambda: attention.focused is False, "the report of its loss")
        app.quit()
        await asyncio.wait_for(task, 30)
    return output


async def test_the_opponents_move_rings_only_while_the_terminal_is_not_looked_at() -> None:
    quiet, ringing = await rings(False), await rings(True)
    assert quiet.rung == 0 and not any("1004" in data for data in quiet.written)
    assert ringing.rung == 1
    assert "\x1b[?1004h" in ringing.written and "\x1b[?1004l" in ringing.written


def test_the_bell_is_off_unless_asked_for() -> None:
    parse = build_parser().parse_args
    assert not parse(["play", "--new", "kalah"]).bell
    assert parse(["play", "--new", "kalah", "--bell"]).bell
    assert parse(with_command(["--bell"])).bell  # the lobby's games too
