"""The game screen on its own: events fed by hand, keys typed through pipe input."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_support import until

from ubao.client.app import MAX_STEP, GameApp, describe_seat, format_clock
from ubao.client.state import GameState
from ubao.engine.games import GAMES
from ubao.protocol import Moved, SeatInfo, Snapshot

pytestmark = pytest.mark.timeout(60)

SNAPSHOT = Snapshot(
    game_id="g1",
    v=1,
    game="kalah",
    options={"pits": 4, "seeds": 3},
    status="playing",
    position="kalah(4,3) S 3,3,3,3/3,3,3,3 0,0",
    to_move=0,
    ply=0,
    history=(),
    seats=(SeatInfo("bot", "b1", True), SeatInfo("bot", "b2", True)),
)
MOVED = Moved(
    game_id="g1",
    v=2,
    ply=0,
    seat=0,
    move="2",
    position="kalah(4,3) S 3,0,4,4/3,3,3,3 1,0",
    to_move=0,
)


class Running:
    def __init__(self, app: GameApp, keys: PipeInput, task: asyncio.Task[None]) -> None:
        self.app, self.keys, self.task = app, keys, task


@pytest.fixture
async def watching() -> AsyncIterator[Running]:
    """A spectator's screen with the animation at its slowest, so that it is surely running."""
    with create_pipe_input() as keys:
        app = GameApp(GameState("g1"), step_seconds=MAX_STEP, input=keys, output=DummyOutput())
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        yield Running(app, keys, task)
        app.quit()
        await asyncio.wait_for(task, 30)


async def test_esc_skips_the_sowing_animation(watching: Running) -> None:
    app = watching.app
    app.on_event(SNAPSHOT)
    app.on_event(MOVED)
    assert [frame.step.hole for frame in app.frames] == ["S2", "S3", "S4", "S*"]
    view, marks = app.board()
    assert marks.active == "S2" and view.values["S2"] == 0
    watching.keys.send_text("\x1b")
    await until(lambda: not app.frames, "the animation to stop")
    view, marks = app.board()
    assert marks.active is None and marks.last == frozenset({"S2"})


async def test_f1_shows_the_rules_summary_and_esc_closes_it(watching: Running) -> None:
    app = watching.app
    app.on_event(SNAPSHOT)
    assert "F1: rules" in fragment_list_to_text(app._help_text())
    watching.keys.send_text("\x1bOP")  # F1
    await until(lambda: app.showing_rules, "the rules")
    assert GAMES["kalah"].summary in fragment_list_to_text(app._rules_text())
    watching.keys.send_text("\x1b")
    await until(lambda: not app.showing_rules, "the rules to close")


async def test_ctrl_f_and_ctrl_b_change_the_animation_pace(watching: Running) -> None:
    watching.keys.send_text("\x06")  # Ctrl-F
    await until(lambda: watching.app.step_seconds == MAX_STEP / 2, "faster")
    watching.keys.send_text("\x02\x02")  # Ctrl-B twice: capped
    await until(lambda: watching.app.step_seconds == MAX_STEP, "slower")


async def test_a_spectator_cannot_enter_moves(watching: Running) -> None:
    watching.app.on_event(SNAPSHOT)
    watching.keys.send_text("2\r")
    await until(lambda: watching.app.message[1], "a message")
    assert watching.app.message[1] == "watching: moves cannot be entered"
    assert watching.app.state.history == []


async def test_q_leaves_a_spectators_screen(watching: Running) -> None:
    watching.keys.send_text("q")
    await asyncio.wait_for(watching.task, 30)


async def test_a_screen_told_to_quit_before_it_runs_leaves_at_once() -> None:
    with create_pipe_input() as keys:
        app = GameApp(GameState("g1"), input=keys, output=DummyOutput())
        app.quit()
        await asyncio.wait_for(app.run(), 30)


@pytest.mark.parametrize(("ms", "text"), [(300_000, "5:00"), (61_999, "1:01"), (9_450, "0:09.4")])
def test_clocks_show_minutes_and_seconds_and_tenths_at_the_end(ms: int, text: str) -> None:
    assert format_clock(ms) == text


def test_the_players_panel_names_bot_settings_and_seats_waiting_for_a_bot_client() -> None:
    assert describe_seat(SeatInfo("bot", "b", True, depth=3, time_ms=500, eval="mobility")) == (
        "server bot (depth 3, 500 ms, mobility)"
    )
    assert describe_seat(SeatInfo("bot", "b", True)) == "server bot"
    assert describe_seat(SeatInfo("open", None, False)) == "waiting for a player"
    wanted = SeatInfo("open", None, False, wants_bot=True, depth=4)
    assert describe_seat(wanted) == "waiting for a bot client (depth 4)"


async def test_the_players_panel_shows_the_lag_once_measured() -> None:
    with create_pipe_input() as keys:
        state = GameState("g1")
        app = GameApp(state, input=keys, output=DummyOutput())
        state.apply(SNAPSHOT, 0.0)
        panel = fragment_list_to_text(app._players_text())
        assert "lag -" in panel and "server bot" in panel
        state.rtt_ms = 42.4
        assert "lag 42 ms" in fragment_list_to_text(app._players_text())
