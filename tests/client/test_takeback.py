"""Takeback requests on the game screen, against a real in-process server: asked with ^T or
`takeback`, answered y/n on the opponent's question line, granted at once by a server bot."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.client import game_server, kalah_create, screen, until, url_of
from ubao.protocol import SeatSpec

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
                await until(lambda: bob.live.app.answering_takeback, "bob is asked")
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
                await until(lambda: bob.live.app.answering_takeback, "bob is asked again")
                bob.type("n")
                await until(lambda: alice.live.app.message[1] == "takeback declined", "declined")
                assert alice.live.state.history == bob.live.state.history == ["1"]
                assert bob.live.state.legal and not bob.live.app.answering_takeback


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
