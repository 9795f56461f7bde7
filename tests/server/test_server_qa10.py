"""QA pass 10 on the server: a rematch where finished games are not kept says why, the lobby's
cursor is read as strictly as it is written, a msgpack timestamp is an extension type like any
other, and a write the database refuses for good does not hold the whole server up."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from pathlib import Path

import pytest

from tests.server.test_wire import create, join
from tests.server.test_writer import committed, quiet
from tests.support.server import Client, running_server
from ubao.protocol import (
    Move,
    Moved,
)

# -- 1. a rematch of a game the server no longer keeps ------------------------------------------


# -- 2. the lobby's cursor ---------------------------------------------------------------------


# -- 3. msgpack timestamps ---------------------------------------------------------------------


# -- 5. a write the database refuses for good ----------------------------------------------------


async def test_a_change_the_database_refuses_for_good_holds_up_neither_its_game_nor_others(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A move whose row is already there (put behind the server's back) was written again every
    second for ever, and every later change of every game waited behind it, unanswered. Now
    that game is stored no more, logged once, and the rest is kept; the foreign row stays."""
    caplog.set_level(logging.ERROR, "ubao.server")
    db = tmp_path / "ubao.sqlite3"
    async with (
        running_server(db=db) as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
    ):
        game_id = await create(south)
        tokens = {0: await join(south, game_id, 0), 1: await join(north, game_id, 1)}
        await quiet(south, north)
        with contextlib.closing(sqlite3.connect(db)) as other, other:
            row = "INSERT INTO moves (game_id, ply, seat, move) VALUES (?, 0, 1, '3')"
            other.execute(row, (game_id,))
        async with asyncio.timeout(5):  # before: never answered
            await south.ok(Move(id=0, game_id=game_id, token=tokens[0], ply=0, move="1"))
            moved = await north.event_of(Moved)
            assert moved.to_move == 1 and moved.legal and "1" in moved.legal
            await north.ok(Move(id=0, game_id=game_id, token=tokens[1], ply=1, move="1"))
            later = await create(north)  # another game, after the refused one: kept
        assert committed(db, "SELECT status FROM games WHERE game_id = ?", later) == [("waiting",)]
        assert server.core.rooms[game_id].ply == 2  # the game goes on in memory
    assert committed(db, "SELECT move FROM moves WHERE game_id = ?", game_id) == [("3",)]
    refusals = [r.getMessage() for r in caplog.records if "refuses" in r.getMessage()]
    assert len(refusals) == 1 and f"game {game_id}" in refusals[0], refusals
    assert not [r for r in caplog.records if "trying again" in r.getMessage()]
