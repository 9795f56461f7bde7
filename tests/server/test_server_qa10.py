"""QA pass 10 on the server: a rematch where finished games are not kept says why, the lobby's
cursor is read as strictly as it is written, a msgpack timestamp is an extension type like any
other, and a write the database refuses for good does not hold the whole server up."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from pathlib import Path

import msgpack
import pytest

from tests.server.test_wire import create, join
from tests.server.test_writer import committed, quiet
from tests.support.server import Client, Harness, running_server
from ubao.protocol import (
    Error,
    ErrorCode,
    Move,
    Moved,
)

# -- 1. a rematch of a game the server no longer keeps ------------------------------------------


# -- 2. the lobby's cursor ---------------------------------------------------------------------


# -- 3. msgpack timestamps ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "frame",
    [
        msgpack.packb({"type": "ping", "id": 1, "t": 5, "x": msgpack.Timestamp(1)}),  # 32-bit
        msgpack.packb({"type": "ping", "id": 1, "t": msgpack.Timestamp(1, 5)}),  # 64-bit
        msgpack.packb({"type": "ping", "id": 1, "t": msgpack.Timestamp(2**40, 5)}),  # 96-bit
        msgpack.packb({"type": "ping", "id": 1, "t": 5, "x": [{"y": msgpack.Timestamp(-1)}]}),
        b"\x83\xa4type\xa4ping\xa2id\x01\xa1t\xd6\xff\x00\x00\x00\x05",  # raw fixext 4, type -1
        b"\x83\xa4type\xa6castle\xa2id\x01\xa1t\xd6\xff\x00\x00\x00\x05",
    ],
)
def test_a_msgpack_timestamp_is_refused_as_an_extension_type(frame: bytes) -> None:
    """msgpack reads ext type -1 as a Timestamp without asking the codec's ext hook: such a
    frame got a field error (or, in an unknown type, `unknown_type`) with its id instead of the
    refusal of an extension type, with no id, that docs/protocol.md promises."""
    h = Harness()
    peer = h.player()
    (error,) = peer.send_raw(frame)
    assert isinstance(error, Error)
    assert (error.id, error.code) == (None, ErrorCode.BAD_MESSAGE)
    assert "extension types (timestamps included) are not allowed" in error.message
    assert h.core.rejected == {"bad_message:malformed": 1}


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
