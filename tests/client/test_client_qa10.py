"""QA round 10 of the terminal client: `r: rematch` is offered only while the server would take
the offer, as on lichess, where the rematch button goes once the opponent has left; the move
list of a bot's game reaches down to the game-over box, and gets every row the players and the
engine's report do not fill."""

from __future__ import annotations

import dataclasses

import pytest
from prompt_toolkit.input import create_pipe_input

from tests.client.test_client_qa7 import finished
from tests.client.test_layout import SizedOutput, draw
from ubao.client.app import GameApp
from ubao.client.state import GameState
from ubao.protocol import BotInfo, Moved, SeatInfo, Snapshot

pytestmark = pytest.mark.timeout(120)


def against_a_bot(name: str, plies: int, over: bool) -> list[str]:
    """Alice's screen at 80x24, `plies` into a game of `name` against a server bot that reports
    on each of its moves, drawn (after the game's end if `over`); in a running event loop."""
    report = BotInfo(depth=2, score=0, nodes=30, time_ms=1, pv=("1",))
    bot = (SeatInfo("open", "alice", True), SeatInfo("bot", "ubao-engine (depth 2)", False))
    events = finished(name, plies)
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(80, 24))
        app.set_connection("connected", True)
        for event in events if over else events[:-1]:
            if isinstance(event, Snapshot):
                event = dataclasses.replace(event, seats=bot)
            if isinstance(event, Moved) and event.seat == 1:
                event = dataclasses.replace(event, info=report)
            app.on_event(event)
        app.animation.skip()
        assert app.ending() == over and app.state.info
        return draw(app.application, 80, 24)


async def test_a_bot_games_move_list_reaches_down_to_the_game_over_box() -> None:
    """The box would cover the engine's report under the list: the report goes while the box
    is shown, and the list's last move is right above the box (the list once left the box's
    height blank above the report, scrolling most moves away)."""
    lines = against_a_bot("othello", 30, over=True)
    top = next(row for row, line in enumerate(lines) if "Game over" in line)
    assert lines[top - 1].endswith("30. W f4"), "\n".join(lines)
    assert "Engine" not in "\n".join(lines)  # under the box: it goes, and the list reaches down


async def test_the_move_list_gets_the_rows_the_report_does_not_fill() -> None:
    """Bao against a bot, 12 plies in, at 80x24: the engine's report sits at the panel's foot
    with no blank row under it, and the list shows all it has room for (it once scrolled
    three moves away while blank rows stayed under the report and the players)."""
    panel = [line.partition("|")[2] for line in against_a_bot("bao", 12, over=False)[:20]]
    assert panel[-1].strip() == "30 nodes, 1 ms, pv 1", panel
    assert panel[6].strip().startswith("2. N"), panel  # moves 2 to 12: all that fits


def test_news_from_before_goes_when_the_connection_drops() -> None:
    app = GameApp(GameState("AbCd1234"), seat=0, output=SizedOutput(80, 24))
    app.set_connection("connected", True)
    app.say("North, bob, is here")
    app.set_connection("server unreachable; reconnecting in 2 s", False)
    assert app.message[1] == ""


async def test_the_panels_divider_never_moves_back_while_the_board_text_changes() -> None:
    """Watching Othello at 80x24: the to-move mark goes from side to side, the discs reach
    two digits, looking back shortens the title; the divider once moved back and forth with
    each of them. Now it only ever moves out, to the widest the board has been."""
    events = finished("othello", 30)[:-1]
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=None, input=keys, output=SizedOutput(80, 24))
        app.set_connection("connected", True)
        dividers = []
        for event in events:
            app.on_event(event)
            app.animation.skip()
            dividers.append(draw(app.application, 80, 24)[0].index("|"))
        app.browse(3)
        dividers.append(draw(app.application, 80, 24)[0].index("|"))
    assert dividers == sorted(dividers) and len(set(dividers)) <= 3, dividers
