"""What QA found in the terminal client (round 7): a Bao question at 60x16, clocks on a short
terminal, the game-over box over the move list, a seat taken over, token-store URLs, the keys
of the connecting and waiting screens, status-line wording, tokens of finished games, and the
bot log's ply numbers."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input

from tests.support.client import FAST, game_server, kalah_create, url_of
from tests.support.screen import PEOPLE, SizedOutput, draw, legal_snapshot, sized
from ubao.client.app import SEAT_LOST
from ubao.client.bot import BotGame, EngineSettings
from ubao.client.connection import FATAL_CLOSE_CODES
from ubao.client.live import LiveGame
from ubao.client.tokens import TokenStore
from ubao.engine.games import make_game
from ubao.protocol import (
    AppCloseCode,
    Clocks,
    ClockSpec,
    Moved,
    RematchOffer,
    SeatEvent,
    SeatInfo,
    SeatSpec,
)

# -- 1. a Bao question at 60x16 ----------------------------------------------------------------


# -- 2. clocks at 60x16 --------------------------------------------------------------------------


# -- 3. the game-over box and the move list ------------------------------------------------------


# -- 4. a seat taken over ------------------------------------------------------------------------


async def test_a_screen_whose_seat_was_taken_over_no_longer_acts_live(tmp_path: Path) -> None:
    snapshot = dataclasses.replace(
        legal_snapshot("kalah"),
        seats=PEOPLE,
        clock=ClockSpec(60_000, 1_000),
        clocks=Clocks((58_000, 47_000), running=0, increment_ms=1_000),
    )
    with create_pipe_input() as keys:
        live = LiveGame(
            "ws://127.0.0.1:9/",
            "root",
            game_id="AbCd1234",
            tokens=TokenStore(tmp_path / "tokens.json"),
            input=keys,
            output=SizedOutput(80, 24),
        )
        app = live.app
        app.set_seat(0)
        app.set_connection("connected", True)
        app.on_event(snapshot)
        assert app.turn_text()[1].startswith("Your move")
        live.on_closed(FATAL_CLOSE_CODES[AppCloseCode.SEAT_TAKEN_OVER])
        shown = "\n".join(draw(app.application, 80, 24))
        assert "Your move" not in shown and "lag -" in shown, shown
        assert " connected" not in shown and "not known" in shown, shown
        assert not app.my_turn and app._clock(0, app.clock() + 5)[0][0] == "class:label"
        app.enter("3")
        assert app.message == ("class:status.error", SEAT_LOST)
        assert app.unsent is None


# -- 5. the spelling of server URLs --------------------------------------------------------------


# -- 6. the keys of the connecting and waiting screens -------------------------------------------


def test_connecting_shows_only_quit_and_waiting_shows_the_command_to_join() -> None:
    app = sized(80, 24, seat=None)
    assert fragment_list_to_text(app._help_text()) == "^Q: leave"
    waiting = dataclasses.replace(
        legal_snapshot("kalah"),
        status="waiting",
        seats=(PEOPLE[0], SeatInfo("open", None, False)),
        legal=None,
    )
    app.set_seat(0)
    app.on_event(waiting)
    keys = fragment_list_to_text(app._help_text())
    assert "Tab" not in keys and "arrows" not in keys and "^Q: leave" in keys
    assert "ubao play --join=AbCd1234" in app.turn_text()[1]


# -- 7. status-line wording ----------------------------------------------------------------------


def test_status_line_wording_resign_rematch_reconnect_and_one_legal_move() -> None:
    app = sized(80, 24)
    app.on_event(dataclasses.replace(legal_snapshot("kalah"), seats=PEOPLE))
    app.ask_resign()
    app.confirm_resign(False)
    assert app.message[1] == "not resigned"
    app.ask_resign()
    assert app._question() == "Resign this game? y = yes, n or Esc = no" and not app.message[1]
    app.confirm_resign(False)
    # A move sent again after a reconnection, then the opponent is back: the move stays said.
    game = make_game("kalah", {})
    start = game.start()
    move = game.legal_moves(start)[1]
    after = game.play(start, move)
    app.on_event(
        Moved(
            game_id="AbCd1234",
            v=2,
            ply=0,
            seat=0,
            move=game.format_move(start, move),
            position=game.format_position(after),
            to_move=game.to_move(after),
        )
    )
    said = app.message[1]
    assert said.startswith("You played ")
    app.on_event(SeatEvent(game_id="AbCd1234", v=3, seat=1, name="bob", connected=True))
    assert app.message[1] == said
    # The player who declines an offer is told it was them.
    app.on_rematch(RematchOffer(game_id="AbCd1234", seat=1, state="declined"))
    assert app.message == ("", "you declined the rematch")


# -- 8. tokens of finished games -----------------------------------------------------------------


# -- 9. the bot log's ply numbers ----------------------------------------------------------------


async def test_the_bot_log_numbers_plies_as_the_screens_move_list(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="ubao.bot")
    async with game_server() as server:
        bot = BotGame(
            url_of(server),
            "robo",
            EngineSettings(depth=2),
            create=kalah_create(SeatSpec.open(), SeatSpec.bot(1)),
            seat=0,
            tokens=TokenStore(tmp_path / "t.json"),
            backoff=FAST,
        )
        assert await asyncio.wait_for(bot.run(), 60) is not None
    history, movers = bot.state.history, bot.state.movers
    logged = [
        re.fullmatch(r"game \S+ ply (\d+): (\S+) \(.*", record.getMessage())
        for record in caplog.records
        if " ply " in record.getMessage()
    ]
    assert logged and all(match is not None for match in logged)
    for match in logged:
        assert match is not None
        number = int(match[1])  # "6. S 3" on the screen is "ply 6: 3" in the log
        assert (history[number - 1], movers[number - 1]) == (match[2], 0)
