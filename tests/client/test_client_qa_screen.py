"""The game screen as QA used it (issue 12/13 follow-ups): games called off, the seat
countdown beside a clock, y/n with something typed, what a spectator sees during an animation,
and the wording of turns, hints, takeback requests and refusals."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import PipeInput, create_pipe_input

from tests.client.test_takeback import status_lines
from tests.support.client import game_server, kalah_create, screen, until, url_of
from tests.support.screen import SIZES, SizedOutput, draw, played
from ubao.client.__main__ import report_end
from ubao.client.app import MAX_STEP, GameApp
from ubao.client.entry import Reject, resolve
from ubao.client.export import record_of, replay_of
from ubao.client.record import format_record, parse_record
from ubao.client.replay import ReplayApp
from ubao.client.state import GameState
from ubao.engine.games import GAMES, make_game
from ubao.protocol import (
    Clocks,
    ClockSpec,
    Over,
    Result,
    SeatEvent,
    SeatInfo,
    SeatSpec,
    Snapshot,
)

pytestmark = pytest.mark.timeout(120)

ESC = "\x1b"
PEOPLE = (SeatInfo("open", "root", True), SeatInfo("open", "bob", True))


class Shown:
    """A running screen of a given size and the pipe that types into it."""

    def __init__(self, app: GameApp, keys: PipeInput, columns: int, rows: int) -> None:
        self.app, self.keys, self.columns, self.rows = app, keys, columns, rows

    def text(self) -> str:
        return "\n".join(draw(self.app.application, self.columns, self.rows))


@pytest.fixture
async def shown(request: pytest.FixtureRequest) -> AsyncIterator[Shown]:
    """A running screen: (seat, columns, rows) = request.param, the animation at its slowest
    so that a move is surely being shown when looked at."""
    seat, columns, rows = getattr(request, "param", (None, 80, 24))
    with create_pipe_input() as keys:
        app = GameApp(
            GameState("AbCd1234"),
            seat=seat,
            step_seconds=MAX_STEP,
            input=keys,
            output=SizedOutput(columns, rows),
        )
        app.set_connection("connected", True)
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        yield Shown(app, keys, columns, rows)
        app.quit()
        await asyncio.wait_for(task, 30)


# -- games called off --------------------------------------------------------------------------


def aborted_game() -> tuple[Snapshot, Over]:
    snapshot, _ = played("kalah")
    start = dataclasses.replace(snapshot, seats=PEOPLE)
    return start, Over(game_id="AbCd1234", v=2, result=Result(None, "aborted", None))


async def test_an_aborted_game_reads_game_aborted_on_screen_not_a_draw(shown: Shown) -> None:
    snapshot, over = aborted_game()
    shown.app.on_event(snapshot)
    shown.app.on_event(over)
    assert shown.app.turn_text()[1] == "Game aborted"
    screen = shown.text()
    assert "Game aborted" in screen and "Draw" not in screen, screen


def test_an_aborted_game_is_exported_without_a_result_and_replayed_as_aborted() -> None:
    snapshot, over = aborted_game()
    ended = dataclasses.replace(snapshot, status="over", result=over.result)
    text = format_record(record_of(ended))
    assert '[Result "*"]' in text and '[Reason "aborted"]' in text and "1/2-1/2" not in text
    record = parse_record(text)
    with create_pipe_input() as keys:
        replay = ReplayApp(record, replay_of(record), input=keys, output=SizedOutput(80, 24))
        assert "Game aborted" in fragment_list_to_text(replay._tags_text())
        assert "to move" not in fragment_list_to_text(replay._board_text())


# -- the seat countdown ------------------------------------------------------------------------


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


@pytest.mark.parametrize("shown", [(0, 80, 24)], indirect=True, ids=["seat 0"])
async def test_a_player_back_after_a_restart_hears_of_the_other_not_of_himself(
    shown: Shown,
) -> None:
    """After a server restart both seats come back: the status line names the opponent's
    return, never the player's own ("South, root, is here" on root's screen)."""
    snapshot, _ = played("kalah")
    shown.app.on_event(dataclasses.replace(snapshot, seats=PEOPLE))
    v = snapshot.v + 1
    shown.app.on_event(SeatEvent(game_id="AbCd1234", v=v, seat=0, name="root", connected=True))
    assert "is here" not in "\n".join(status_lines(shown.app))
    shown.app.on_event(SeatEvent(game_id="AbCd1234", v=v + 1, seat=1, name="bob", connected=True))
    assert "bob, is here" in "\n".join(status_lines(shown.app))


# -- y and n, whatever is typed ----------------------------------------------------------------


# -- what a spectator sees while a move is animated --------------------------------------------


async def test_during_an_animation_title_board_panel_and_status_tell_the_same_move(
    shown: Shown,
) -> None:
    """Three moves and the end arrive at once (`--pace 0`): while the first is shown, the
    title gives its ply and no end, the status line says who sows and nobody else to move, the
    board and the panel mark its mover; once every move is shown, the game's end."""
    snapshot, events = played("kalah")
    app = shown.app
    app.on_event(dataclasses.replace(snapshot, seats=PEOPLE))
    for event in events[:3]:
        app.on_event(event)
    app.on_event(Over(game_id="AbCd1234", v=5, result=Result(1, "resign", None)))
    frame = app.animation.frame
    assert frame is not None
    mover = app.side_name(frame.mover)
    assert "ply 1  playing" in app._title() and "over" not in app._title()
    first, *_ = status_lines(app)
    assert first.startswith(f"{mover} ") and "to move" not in first, first
    board = fragment_list_to_text(app._board_text()).splitlines()
    marked = [line for line in board if "<- to move" in line]
    assert len(marked) == 1 and marked[0].startswith(f"{mover}:"), board
    panel = fragment_list_to_text(app._players_text())
    assert f"> {mover}:" in panel, panel
    assert app.shown_ply == 1
    app.step_seconds = 0.01  # the rest at once (the frame shown now keeps its time)
    await until(lambda: app.settled, "every move shown")
    assert "ply 3  over" in app._title()
    assert status_lines(app)[0].startswith("Game over: North, bob, wins by resignation")


# -- wording -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "cell"), [("othello", "square"), ("kalah", "pit")])
def test_the_entry_hint_names_the_games_own_cells(name: str, cell: str) -> None:
    game = make_game(name)
    start = game.start()
    legal = [game.format_move(start, move) for move in game.legal_moves(start)]
    refusal = resolve("", legal, game, start)
    assert isinstance(refusal, Reject) and f"pick a {cell} with the arrow keys" in refusal.message


def test_a_side_and_its_player_are_named_without_doubled_parentheses() -> None:
    snapshot, _ = played("othello")
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(80, 24))
        app.on_event(dataclasses.replace(snapshot, seats=PEOPLE, to_move=1))
        assert app.turn_text()[1] == "White (O), bob, to move"


def test_a_move_typed_before_the_opponent_came_says_so() -> None:
    snapshot, _ = played("kalah")
    waiting = dataclasses.replace(
        snapshot, status="waiting", seats=(PEOPLE[0], SeatInfo("open", None, False))
    )
    with create_pipe_input() as keys:
        app = GameApp(GameState("g"), seat=0, input=keys, output=SizedOutput(80, 24))
        app.on_event(waiting)
        app.enter("3")
        assert app.message[1] == "the opponent has not joined yet"


async def test_joining_a_full_game_suggests_watching_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with game_server() as server:
        url = url_of(server)
        create = kalah_create(SeatSpec.open(), SeatSpec.bot(1))
        async with screen(url, "alice", tmp_path / "a.json", create=create) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            game_id = alice.live.game_id
            assert game_id is not None
            async with screen(url, "carol", tmp_path / "c.json", game_id=game_id) as carol:
                await asyncio.wait_for(carol.task, 30)  # refused: the screen closes
            assert report_end(carol.live) == 1
    error = capsys.readouterr().err
    assert "is taken" in error and f"to watch it: ubao watch --server={url} {game_id}" in error
