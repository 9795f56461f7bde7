"""Clocks on the game screen: where they go on a small terminal (whole, beside the input or on
the status line), the untimed first move's countdown and the seat countdown beside a clock."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import create_pipe_input

from tests.support.client import game_server, kalah_create, screen, until, url_of
from tests.support.screen import (
    PEOPLE,
    SIZES,
    Shown,
    SizedOutput,
    clocked,
    draw,
    legal_snapshot,
    played,
    start_of,
)
from ubao.client.app import GameApp
from ubao.client.layout import NBSP, fold, wrap_fragments
from ubao.client.state import GameState
from ubao.engine.games import GAMES
from ubao.protocol import Clocks, ClockSpec, Over, Result, SeatEvent, SeatInfo


async def test_at_60x16_the_clocks_ride_on_the_status_line_when_the_panel_folds() -> None:
    assert fold(16, 11, 2, beside=False, empty_feedback=True, clock_rows=0).clocks_in_status
    assert not fold(24, 11, 2, beside=False, empty_feedback=True, clock_rows=0).clocks_in_status
    for name in ("othello", "bao"):
        snapshot = dataclasses.replace(
            legal_snapshot(name),
            seats=PEOPLE,
            clock=ClockSpec(60_000, 1_000),
            clocks=Clocks((58_000, 47_000), running=None, increment_ms=1_000),
        )
        with create_pipe_input() as keys:
            app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(60, 16))
            app.set_connection("connected", True)
            app.on_event(snapshot)
            shown = "\n".join(draw(app.application, 60, 16))
        assert "too small" not in shown, shown
        assert "0:58" in shown and "0:47" in shown, shown


@pytest.mark.parametrize(
    ("over_after", "ended"),
    [
        (60.5, "Game aborted: South did not play the first move in time"),
        (20.0, "Game aborted"),  # a player's `abort`, the count still running: no timeout
    ],
)
def test_the_untimed_first_move_counts_down_for_everyone_and_the_abort_says_why(
    over_after: float, ended: str
) -> None:
    now = [100.0]
    people = (SeatInfo("open", "alice", True), SeatInfo("open", "bob", False))
    waiting = dataclasses.replace(
        start_of("kalah", {}, people),
        status="waiting",
        clock=ClockSpec(60_000, 0),
        clocks=Clocks((60_000, 60_000), None, 0),
    )
    screens = {
        seat: GameApp(GameState("AbCd1234"), seat=seat, output=SizedOutput(80, 24))
        for seat in (0, 1, None)
    }
    for app in screens.values():
        app.clock = lambda: now[0]
        app.set_connection("connected", True)
        app.on_event(waiting)
        assert "first move" not in app.turn_text()[1]
        app.on_event(
            SeatEvent(
                game_id="AbCd1234",
                v=2,
                seat=1,
                name="bob",
                connected=True,
                status="playing",
                clocks=Clocks((60_000, 60_000), None, 0, first_move_ms=60_000),
            )
        )
    assert screens[0].turn_text()[1] == "Your move (South): 60 s to play the first move"
    now[0] += 18
    for seat in (1, None):
        said = screens[seat].turn_text()[1]
        assert said == "South, alice, to move: 42 s to play the first move", said
    now[0] += over_after - 18
    over = Over(game_id="AbCd1234", v=3, result=Result(None, "aborted", None))
    for app in screens.values():
        app.on_event(over)
        assert app._result_text() == ended


async def test_a_clock_game_whose_first_move_never_comes_ends_saying_why(tmp_path: Path) -> None:
    create = dataclasses.replace(kalah_create(), clock=ClockSpec(60_000, 0))
    async with game_server(grace_ms=1_500) as server:
        url = url_of(server)
        async with screen(url, "alice", tmp_path / "a.json", create=create) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            game_id = alice.live.game_id
            async with screen(url, "bob", tmp_path / "b.json", game_id=game_id) as bob:
                await until(lambda: alice.live.state.first_move_due is not None, "the count")
                assert "to play the first move" in alice.live.app.turn_text()[1]
                await until(lambda: bob.live.state.over and alice.live.state.over, "the abort")
                for player in (alice, bob):
                    said = player.live.app._result_text()
                    assert said == "Game aborted: South did not play the first move in time"


def test_clocks_that_would_need_a_row_that_is_not_there_go_beside_the_input() -> None:
    # Othello 10x10 at 60x16: 13 board rows, a status line, input, keys: no row left.
    fit = fold(16, 13, 2, beside=False, empty_feedback=True, clock_rows=1)
    assert fit.clocks_by_input and not fit.clocks_in_status and fit.panel_rows == 0
    assert not fit.title and not fit.feedback
    # With a row to spare they stay on the status line; a message keeps its own row first.
    assert fold(16, 12, 2, beside=False, empty_feedback=True, clock_rows=1).clocks_in_status
    spared = fold(16, 12, 2, beside=False, empty_feedback=False, clock_rows=1)
    assert spared.clocks_by_input and spared.feedback


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
    assert any("B 5:00   W 5:00" in line for line in lines), shown


ESC = "\x1b"


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "shown", [(0, *size) for size in SIZES], indirect=True, ids=lambda p: f"{p[1]}x{p[2]}"
)
@pytest.mark.parametrize("name", sorted(GAMES))
async def test_the_seat_countdown_fits_beside_a_clock_and_goes_with_the_game(
    shown: Shown, name: str
) -> None:
    """A dropped opponent with 58 s to come back and 1:56 on the clock: both are read whole,
    at 80x24 and 60x20; once the game is over no countdown is left."""
    snapshot, _ = played(name)
    clocks = Clocks((292_000, 116_000), running=None, increment_ms=5_000)
    snapshot = dataclasses.replace(snapshot, seats=PEOPLE, clock=ClockSpec(300_000, 5_000))
    shown.app.on_event(dataclasses.replace(snapshot, clocks=clocks))
    v = snapshot.v + 1
    gone = SeatEvent(game_id="AbCd1234", v=v, seat=1, name="bob", connected=False, grace_ms=58_400)
    shown.app.on_event(gone)
    screen = shown.text()
    assert "1:56" in screen and re.search(r"1:56  away, 5\d s to return\b", screen), screen
    shown.app.on_event(Over(game_id="AbCd1234", v=v + 1, result=Result(0, "abandoned", None)))
    shown.keys.send_text(ESC)
    screen = shown.text()
    assert "to return" not in screen and "held" not in screen, screen


def test_a_screen_is_drawn_again_only_when_a_time_it_shows_changes() -> None:
    """Issue 36, 4: idle screens redrew twice a second. The next change is the running clock's
    next second (tenth under ten seconds) or a countdown's; none when no time runs."""
    state = GameState("AbCd1234")
    snapshot = dataclasses.replace(start_of("kalah", {}, PEOPLE), clock=ClockSpec(300_000, 0))
    state.apply(dataclasses.replace(snapshot, clocks=Clocks((300_000, 300_000), None, 0)), 100.0)
    assert state.next_change(100.0) is None  # nothing runs: an idle screen is not drawn
    running = Clocks((65_250, 300_000), running=0, increment_ms=0)
    state.apply(dataclasses.replace(snapshot, v=2, clocks=running), 100.0)
    assert state.next_change(100.0) == pytest.approx(0.25)  # 1:05 turns 1:04 in 250 ms
    assert state.next_change(100.25) == pytest.approx(1.0)
    assert state.next_change(156.0) == pytest.approx(0.05)  # 9.25 s left: tenths
    state.pause_clocks(100.5)
    assert state.next_change(101.0) is None  # the connection is down: the clocks stand still
    state.apply(Over(game_id="AbCd1234", v=3, result=Result(0, "resign", None)), 101.0)
    assert state.next_change(101.0) is None


@pytest.mark.parametrize("player", [("kalah", 80, 24)], indirect=True)
async def test_an_idle_game_screen_is_not_drawn_again(player: Shown) -> None:
    """Issue 36, 4: with no clock running, a screen left alone draws nothing more."""
    application = player.app.application
    await asyncio.sleep(0.3)  # the snapshot's own drawing
    drawn = application.render_counter
    await asyncio.sleep(1.6)
    assert application.render_counter == drawn
    player.keys.send_text("1")
    await until(lambda: application.render_counter > drawn, "a key's drawing")
