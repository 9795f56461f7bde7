"""Seat infos mark the seats bot clients play (`client: "bot"`, from the `hello` role), so that
a bot under a plain name shows as one: in seat events, the lobby, records and the screen's
model (issue 12)."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.support.client import FAST, game_server, kalah_create, url_of
from ubao.client.app import GameApp
from ubao.client.connection import ServerSession, fetch_snapshot, request_once
from ubao.client.export import record_of
from ubao.client.lobby import lobby_table
from ubao.client.state import GameState
from ubao.protocol import Event, Join, ListGames, SeatEvent, Snapshot

pytestmark = pytest.mark.timeout(60)


async def test_a_bot_clients_seat_says_so_wherever_seats_are_shown() -> None:
    async with game_server() as server:
        url = url_of(server)
        seen: list[Event] = []
        alice = ServerSession(url, "alice", "human", on_event=seen.append, backoff=FAST)
        carol = ServerSession(url, "carol", "bot", on_event=lambda event: None, backoff=FAST)
        tasks = [asyncio.create_task(session.run()) for session in (alice, carol)]
        try:
            await asyncio.gather(alice.connected.wait(), carol.connected.wait())
            game_id = (await alice.request(kalah_create())).game_id
            assert game_id is not None
            await alice.request(Join(id=0, game_id=game_id, seat=0))
            await carol.request(Join(id=0, game_id=game_id, seat=1))
            lobby = (await request_once(url, "x", "spectator", ListGames(id=0))).games or ()
            snapshot = await fetch_snapshot(url, "x", game_id)
        finally:
            for session in (alice, carol):
                await session.close()
            await asyncio.gather(*tasks, return_exceptions=True)

    assert [seat.client for seat in snapshot.seats] == [None, "bot"]
    assert [seat.client for seat in lobby[0].seats] == [None, "bot"]
    assert "alice (guest) vs BOT carol (guest)" in lobby_table(lobby)
    tags = record_of(snapshot).tags
    assert tags["NorthClient"] == "bot" and "SouthClient" not in tags

    # alice's screen heard of carol by a seat event after its snapshot.
    with create_pipe_input() as keys:
        state = GameState(game_id)
        app = GameApp(state, seat=0, input=keys, output=DummyOutput())
        for event in seen:
            state.apply(event, 0.0)
        assert [type(event) for event in seen[:2]] == [Snapshot, SeatEvent]
        assert [seat.client for seat in state.seats] == [None, "bot"]
        panel = fragment_list_to_text(app._players_text())
        assert "carol" in panel and "bot client, connected" in panel
