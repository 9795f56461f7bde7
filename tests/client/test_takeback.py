"""Takeback requests on the game screen, against a real in-process server: asked with ^T or
`takeback`, answered y/n on the opponent's question line, granted at once by a server bot."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.support.client import game_server, kalah_create, screen, two_players, until, url_of
from tests.support.screen import dialog, finished, sized, status_lines
from ubao.client.input_machine import Dialog
from ubao.protocol import Moved, SeatSpec, TakebackRequest

pytestmark = pytest.mark.timeout(120)

SMALL = {"pits": 3, "seeds": 2}
"""South's `1` leaves North to move (no extra turn)."""


async def test_the_opponent_is_asked_and_accepts_or_declines(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        create = kalah_create(options=SMALL)
        async with screen(url, "alice", tmp_path / "a.json", create=create) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            async with screen(url, "bob", tmp_path / "b.json", game_id=alice.live.game_id) as bob:
                await until(lambda: alice.live.state.legal, "alice's turn")
                alice.type("1\r")
                await until(lambda: bob.live.state.legal, "bob's turn")
                alice.type("\x14")  # Ctrl-T
                await until(lambda: dialog(bob.live.app) is Dialog.ANSWER_TAKEBACK, "bob is asked")
                question = bob.live.app._question()
                assert question == "South asks to take back their move: y = accept, n = decline"
                assert alice.live.app.message[1] == "takeback asked; waiting for the answer"
                bob.type("y")
                await until(lambda: alice.live.state.legal, "alice's turn again")
                assert alice.live.state.history == bob.live.state.history == []
                assert bob.live.app._question() is None and not bob.live.state.legal
                assert "last move taken back" in bob.live.app.message[1]

                alice.type("1\r")
                await until(lambda: bob.live.state.legal, "bob's turn")
                alice.type("takeback\r")
                await until(
                    lambda: dialog(bob.live.app) is Dialog.ANSWER_TAKEBACK, "bob is asked again"
                )
                bob.type("n")
                await until(lambda: alice.live.app.message[1] == "takeback declined", "declined")
                assert alice.live.state.history == bob.live.state.history == ["1"]
                assert bob.live.state.legal and dialog(bob.live.app) is not Dialog.ANSWER_TAKEBACK


async def test_a_server_bot_grants_a_takeback_at_once(tmp_path: Path) -> None:
    async with game_server() as server:
        create = kalah_create(SeatSpec.open(), SeatSpec.bot(1), options=SMALL)
        async with screen(url_of(server), "alice", tmp_path / "a.json", create=create) as alice:
            state = alice.live.state
            await until(lambda: state.legal, "alice's turn")
            alice.type("1\r")
            await until(lambda: len(state.history) >= 2 and state.legal, "the bot's reply")
            assert state.info  # the bot's report on its reply
            alice.type("takeback\r")
            await until(lambda: state.history == [], "the takeback")
            assert state.legal and state.to_move == 0 and state.takeback is None
            # Two plies (or more) went: the message says so, and the engine's report on the
            # reply taken back goes with it.
            await until(lambda: "taken back" in alice.live.app.message[1], "the message")
            assert alice.live.app.message[1].startswith("takeback: your last move and the ")
            assert state.info == {}


async def test_a_takeback_asked_on_the_askers_turn_says_it_takes_the_reply_too(
    tmp_path: Path,
) -> None:
    async with two_players(tmp_path) as (alice, bob):
        alice.type("1\r")
        await until(lambda: bob.live.state.legal, "bob's turn")
        bob.type(f"{bob.live.state.legal[0]}\r")
        await until(lambda: alice.live.state.legal, "alice's turn again")
        alice.type("\x14")  # Ctrl-T on her own turn: bob's reply goes too
        await until(lambda: dialog(bob.live.app) is Dialog.ANSWER_TAKEBACK, "bob is asked")
        assert bob.live.app._question() == (
            "South asks to take back their move and your reply: y = accept, n = decline"
        )


@pytest.mark.timeout(300)
def test_a_takeback_request_declined_by_a_move_is_said_with_the_move() -> None:
    """Alice (South) asks on Bob's turn; Bob moves instead: Alice and a spectator read both."""
    events = finished("kalah", 2)
    snapshot, first, second = events[0], events[1], events[2]
    assert isinstance(first, Moved) and isinstance(second, Moved) and second.seat == 1
    for seat in (0, None):
        app = sized(80, 24, seat=seat)
        app.on_event(snapshot)
        app.on_event(first)
        asked = TakebackRequest(game_id="AbCd1234", v=3, seat=0, state="asked", ply=1)
        declined = dataclasses.replace(asked, v=4, state="declined")
        app.on_event(asked)
        app.on_event(declined)
        app.on_event(dataclasses.replace(second, v=5))
        assert app.message[1] == f"North played {second.move} (takeback declined)", seat


async def test_y_answers_a_takeback_request_whatever_is_typed_and_it_is_asked_once(
    tmp_path: Path,
) -> None:
    """Bob has typed `3` when Alice asks to take her move back: the question is on his screen
    once, `y` grants it and his `3` stays typed; `n` that goes on with `resign` is typed."""
    async with two_players(tmp_path) as (alice, bob):
        app = bob.live.app
        alice.type("1\r")
        await until(lambda: bob.live.state.legal, "bob's turn")
        bob.type("3")
        await until(lambda: app.buffer.text == "3", "bob's 3")
        alice.type("\x14")  # Ctrl-T
        await until(lambda: dialog(app) is Dialog.ANSWER_TAKEBACK, "bob is asked")
        status = "\n".join(status_lines(app))
        assert status.count("take") == 1, status  # the question, not a message too
        assert "y = accept" in status
        bob.type("y")
        await until(lambda: alice.live.state.history == [], "the takeback")
        assert app.buffer.text == "3"

        bob.type("\x7f")  # Backspace: the line empty again
        alice.type("1\r")
        await until(lambda: bob.live.state.legal, "bob's turn again")
        alice.type("\x14")
        await until(lambda: dialog(app) is Dialog.ANSWER_TAKEBACK, "bob is asked again")
        bob.type("resig")
        await until(lambda: app.buffer.text == "resig", "bob's typing")
        bob.type("n")
        await until(lambda: app.buffer.text == "resign", "n goes on with the word")
        assert dialog(app) is Dialog.ANSWER_TAKEBACK
