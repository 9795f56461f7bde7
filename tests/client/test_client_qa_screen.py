"""The game screen as QA used it (issue 12/13 follow-ups): games called off, the seat
countdown beside a clock, y/n with something typed, what a spectator sees during an animation,
and the wording of turns, hints, takeback requests and refusals."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input

from tests.client.test_takeback import status_lines
from tests.support.client import game_server, kalah_create, screen, until, url_of
from tests.support.screen import PEOPLE, Shown, SizedOutput, played
from ubao.client.__main__ import report_end
from ubao.client.app import GameApp
from ubao.client.export import record_of, replay_of
from ubao.client.record import format_record, parse_record
from ubao.client.replay import ReplayApp
from ubao.client.state import GameState
from ubao.protocol import (
    Over,
    Result,
    SeatEvent,
    SeatSpec,
    Snapshot,
)

pytestmark = pytest.mark.timeout(120)


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


def test_a_side_and_its_player_are_named_without_doubled_parentheses() -> None:
    snapshot, _ = played("othello")
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(80, 24))
        app.on_event(dataclasses.replace(snapshot, seats=PEOPLE, to_move=1))
        assert app.turn_text()[1] == "White (O), bob, to move"


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
