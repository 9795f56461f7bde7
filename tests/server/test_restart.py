"""A server process stopped with SIGTERM mid-game, and a new process on the same database:
the games go on where they were, and the players resume with their tokens."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from tests.support.server import SMALL_KALAH, TIMEOUT, Client
from tests.support.wire import ROOT, autoplay, create, join, server_process, stuck_client
from ubao.protocol import (
    ClockSpec,
    Create,
    Join,
    Move,
    Moved,
    Over,
    Ping,
    Resume,
    SeatEvent,
    SeatSpec,
    Snapshot,
    Watch,
    encode,
)
from ubao.server.__main__ import SERVER_SETTINGS
from ubao.server.stores.sqlite import default_db_path


def test_the_command_line_explains_itself() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ubao.server", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0
    for setting in SERVER_SETTINGS:
        assert setting.flag in result.stdout and setting.env in result.stdout


def test_the_default_database_is_in_the_users_data_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "ubao" / "ubao.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_db_path() == Path.home() / ".local" / "share" / "ubao" / "ubao.sqlite3"


async def closed_by_restart(client: Client) -> None:
    with pytest.raises(ConnectionClosed):
        while True:
            await client.recv()
    assert (client.ws.close_code, client.ws.close_reason) == (1012, "service restart")


async def test_a_new_server_process_resumes_every_game_with_nothing_lost(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    async with server_process(db) as (process, port):
        async with (
            Client.connected(port, "south") as south,
            Client.connected(port, "north") as north,
        ):
            clock = ClockSpec(initial_ms=600_000, increment_ms=0)
            seats = (SeatSpec.open(), SeatSpec.open())
            create = Create(id=0, game="kalah", options={}, seats=seats, clock=clock)
            game_id = (await south.ok(create)).game_id
            assert game_id is not None
            south_token = (await south.ok(Join(id=0, game_id=game_id, seat=0))).token
            north_token = (await north.ok(Join(id=0, game_id=game_id, seat=1))).token
            assert south_token and north_token
            # Moves that stay on South's side keep turns simple: 3 then 1 (no extra turn).
            await south.ok(Move(id=0, game_id=game_id, token=south_token, ply=0, move="1"))
            seen = (await north.event_of(Moved)).v
            await north.ok(Move(id=0, game_id=game_id, token=north_token, ply=1, move="1"))
            last = await north.event_of(Moved)
            assert last.clocks is not None
            north_left = last.clocks.remaining_ms[1]

            bot_game = (
                await north.ok(
                    Create(
                        id=0,
                        game="kalah",
                        options=SMALL_KALAH,
                        seats=(SeatSpec.bot(2), SeatSpec.open()),
                    )
                )
            ).game_id
            assert bot_game is not None
            bot_token = (await north.ok(Join(id=0, game_id=bot_game, seat=1))).token
            assert bot_token
            bot_moved = await north.event_of(Moved)
            assert bot_moved.seat == 0 and bot_moved.info is not None

            process.send_signal(signal.SIGTERM)
            await closed_by_restart(south)
            await closed_by_restart(north)
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0

    async with server_process(db) as (_, port), Client.connected(port, "south") as south:
        await south.ok(Resume(id=0, game_id=game_id, token=south_token, since_v=seen))
        missed = [await south.event(), await south.event()]
        # North's move, which South had not seen, then South's own return.
        assert isinstance(missed[0], Moved) and missed[0].ply == 1 and missed[0].legal
        assert isinstance(missed[1], SeatEvent) and missed[1].connected
        async with Client.connected(port, "north") as north:
            await north.ok(Resume(id=0, game_id=game_id, token=north_token, since_v=0))
            snapshot = await north.event_of(Snapshot)
            assert snapshot.history == ("1", "1") and snapshot.ply == 2
            assert snapshot.clocks is not None
            assert snapshot.clocks.remaining_ms[1] == north_left  # North's clock is stopped
            south_play = autoplay(south, game_id, south_token, [missed[0]])
            # South moves from the legal moves it got in the replay.
            await south.ok(
                Move(id=0, game_id=game_id, token=south_token, ply=2, move=missed[0].legal[0])
            )
            over, _ = await asyncio.gather(autoplay(north, game_id, north_token, []), south_play)
            assert isinstance(over, Over) and over.result.reason == "normal"

            await north.ok(Resume(id=0, game_id=bot_game, token=bot_token, since_v=0))
            bot_over = await autoplay(north, bot_game, bot_token, [])
            assert bot_over.result.reason == "normal"

    with contextlib.closing(sqlite3.connect(db)) as database:
        rows = database.execute(
            "SELECT g.status, g.ply, COUNT(m.ply) FROM games g JOIN moves m USING (game_id)"
            " WHERE game_id = ? GROUP BY game_id",
            (game_id,),
        ).fetchall()
    ((status, ply, moves),) = rows
    assert status == "over" and ply == moves > 2


async def test_sigterm_ends_the_server_soon_whatever_clients_and_engines_do(tmp_path: Path) -> None:
    # A client that reads nothing (its close handshake cannot finish) and two server bots in
    # the middle of long searches: the server still stops within its bounds (close timeout,
    # engines killed), and keeps every move it acknowledged.
    db = tmp_path / "ubao.sqlite3"
    flags = ("--message-burst", "100000", "--send-budget", "100000000")
    async with (
        server_process(db, *flags) as (process, port),
        Client.connected(port, "south") as south,
        Client.connected(port, "north") as north,
        stuck_client(port) as stuck,
    ):
        game_id = await create(south)
        south_token = await join(south, game_id, 0)
        north_token = await join(north, game_id, 1)
        await south.ok(Move(id=0, game_id=game_id, token=south_token, ply=0, move="1"))
        await north.ok(Move(id=0, game_id=game_id, token=north_token, ply=1, move="1"))
        thinker = SeatSpec.bot(20, time_ms=2000)
        bots = await create(north, thinker, thinker, game="othello", options={})
        await north.ok(Watch(id=0, game_id=bots))
        await north.event_of(Moved)  # the engines run: the second search has begun
        for i in range(2000):  # some 900 KB the stuck client never reads
            await stuck.send(encode(Watch(id=i + 1, game_id=bots)))
        await south.ok(Ping(id=0, t=0))  # the server is past the flood
        loop = asyncio.get_running_loop()
        start = loop.time()
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0
        stopped_after = loop.time() - start
    # About 2 s (--close-timeout); before, 10 s (websockets' close timeout) when the close frame
    # could still be written, and forever when it could not.
    assert stopped_after < 8
    with contextlib.closing(sqlite3.connect(db)) as database:
        moves = database.execute(
            "SELECT ply, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
        ).fetchall()
    assert moves == [(0, "1"), (1, "1")]


async def test_sigterm_does_not_wait_for_a_connection_stuck_in_its_opening_handshake(
    tmp_path: Path,
) -> None:
    """A TCP connection that never sends its HTTP request (or half of it) does not hold the
    server, and its database's lock, for the handshake's timeout after SIGTERM."""
    db = tmp_path / "ubao.sqlite3"
    async with server_process(db, "--handshake-timeout", "60") as (process, port):
        silent = socket.create_connection(("127.0.0.1", port))
        partial = socket.create_connection(("127.0.0.1", port))
        partial.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        try:
            await asyncio.sleep(0.2)  # both accepted: their handshakes wait
            loop = asyncio.get_running_loop()
            start = loop.time()
            process.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0
            stopped_after = loop.time() - start
        finally:
            silent.close()
            partial.close()
    # About 2.5 s (--close-timeout, then half a second); before, the handshake timeout (60 s).
    assert stopped_after < 8


async def test_sighup_shuts_the_server_down_gracefully(tmp_path: Path) -> None:
    """The terminal a server runs in closing (SIGHUP) is a graceful stop, not a crash."""
    async with server_process(tmp_path / "ubao.sqlite3") as (process, port):
        async with Client.connected(port, "ann") as ann:
            process.send_signal(signal.SIGHUP)
            await closed_by_restart(ann)
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0
