"""The server's I/O edges: back-pressure by bytes, keepalive, group commit, bot pace, and what
reaches logs and disk. Real servers on 127.0.0.1:0, real clients."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from tests.support.server import (
    TIMEOUT,
    Client,
    Harness,
    failing_writes,
    fake_engine,
    healed,
    running_server,
    small_limits,
)
from tests.support.wire import (
    CommitFails,
    create,
    join,
    messages,
    stuck_client,
    until,
    watch_to_end,
)
from ubao.protocol import (
    Move,
    Moved,
    Ok,
    Ping,
    Resume,
    SeatSpec,
    Watch,
    encode,
)
from ubao.server.app import GameServer
from ubao.server.bots import BotSettings
from ubao.server.stores.protocol import StoreError
from ubao.server.stores.sqlite import Store

BIG_SNAPSHOTS = {"size": 16}
"""A 16x16 Othello game: each `watch` of it answers with a snapshot of about 450 bytes."""


async def flood(ws: ClientConnection, game_id: str, until_gone: Callable[[], bool]) -> None:
    """Ask for snapshots the client never reads, until the server has let it go."""
    for i in range(1, 20_000):
        if until_gone():
            return
        with contextlib.suppress(ConnectionClosed):
            await ws.send(encode(Watch(id=i, game_id=game_id)))
        if i % 50 == 0:
            await asyncio.sleep(0.01)  # let the server answer, and answer others
    await until(until_gone)


def connections(server: GameServer) -> int:
    return len(server.core.conns)


async def pings(client: Client, stop: asyncio.Event) -> int:
    """Ping round trips until `stop`; every one must be answered."""
    answered = 0
    while not stop.is_set():
        await client.ok(Ping(id=0, t=answered))
        answered += 1
    return answered


# -- back-pressure -----------------------------------------------------------------------------


async def test_a_client_that_stops_reading_is_cut_at_its_byte_budget_while_others_play_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    limits = small_limits(burst=100_000)
    async with (
        running_server(limits=limits, send_budget=16 * 1024) as server,
        Client.connected(server.port, "busy") as busy,
    ):
        game_id = await create(busy, game="othello", options=BIG_SNAPSHOTS)
        async with stuck_client(server.port) as stuck:
            await until(lambda: connections(server) == 2)
            stop = asyncio.Event()
            answering = asyncio.create_task(pings(busy, stop))
            await flood(stuck, game_id, lambda: connections(server) == 1)
            stop.set()
            assert await answering > 0  # the others were answered all along
            with pytest.raises(ConnectionClosed):
                while True:
                    await asyncio.wait_for(stuck.recv(), TIMEOUT)
        assert "too slow to read its messages" in caplog.text
        await busy.ok(Ping(id=0, t=1))


async def test_a_ping_stuck_behind_unread_frames_still_times_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Far below the byte budget, but enough to fill the socket: the keepalive ping is written
    # behind frames the client does not read, and its pong never comes.
    caplog.set_level(logging.INFO)
    limits = small_limits(burst=100_000)
    async with running_server(
        limits=limits, send_budget=64 << 20, ping_interval_s=0.2, ping_timeout_s=1.0
    ) as server:
        async with Client.connected(server.port) as host:
            game_id = await create(host, game="othello", options=BIG_SNAPSHOTS)
        async with stuck_client(server.port) as stuck:
            await until(lambda: connections(server) == 1)
            await flood(stuck, game_id, lambda: connections(server) == 0)
    assert "no answer to its ping" in caplog.text
    assert "too slow" not in caplog.text


# -- group commit ------------------------------------------------------------------------------


async def test_nobody_hears_of_a_move_before_the_commit_that_keeps_it() -> None:
    async with (
        running_server() as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
    ):
        game_id = await create(south)
        south_token = await join(south, game_id, 0)
        await join(north, game_id, 1)
        failing_writes(server.store.db, "moves")
        await south.send(Move(id=99, game_id=game_id, token=south_token, ply=0, move="1"))
        # The retry comes after 1 s, and fails too: neither the mover nor the opponent hears.
        heard = await asyncio.gather(messages(south, 1.5), messages(north, 1.5))
        assert not [m for m in heard[0] + heard[1] if isinstance(m, Ok | Moved)]
        healed(server.store.db)
        reply = await south.recv()
        assert isinstance(reply, Ok) and reply.id == 99
        assert (await north.event_of(Moved)).move == "1"
        rows = server.store.db.execute("SELECT move FROM moves WHERE game_id = ?", (game_id,))
        assert rows.fetchall() == [("1",)]


def test_a_failed_commit_is_written_again_whole_with_what_came_after(tmp_path: Path) -> None:
    path = tmp_path / "ubao.sqlite3"
    store = Store(path)
    harness = Harness(store=store)
    ada = harness.player()
    first = ada.create()
    store.db = CommitFails(store.db)  # type: ignore[assignment]
    with pytest.raises(StoreError):
        store.commit()
    second = ada.create()
    store.commit()
    with contextlib.closing(sqlite3.connect(path)) as other:
        kept = {game_id for (game_id,) in other.execute("SELECT game_id FROM games")}
    assert kept == {first, second}
    store.close()


# -- pace --------------------------------------------------------------------------------------


async def test_a_paced_bot_game_moves_no_faster_than_its_pace() -> None:
    async with running_server() as server, Client.connected(server.port, "fan", "spectator") as fan:
        game_id = await create(fan, SeatSpec.bot(1), SeatSpec.bot(1), pace_ms=250)
        seen = await watch_to_end(fan, game_id)
        assert sum(isinstance(event, Moved) for event in seen) >= 3
        rows = server.store.db.execute(
            "SELECT (julianday(played_at) - 2440587.5) * 86400000 FROM moves"
            " WHERE game_id = ? ORDER BY ply",
            (game_id,),
        ).fetchall()
    times = [ms for (ms,) in rows]
    assert min(b - a for a, b in itertools.pairwise(times)) >= 250 - 2


def test_a_games_pace_is_kept_across_restarts(tmp_path: Path) -> None:
    path = tmp_path / "ubao.sqlite3"
    store = Store(path)
    ada = Harness(store=store).player()
    game_id = ada.create(SeatSpec.bot(1), SeatSpec.open(), pace_ms=250)
    store.commit()
    store.close()
    restarted = Harness(store=Store(path))
    assert restarted.core.restore() == 1
    assert restarted.core.rooms[game_id].pace_ms == 250
    restarted.store.close()


# -- secrets and files -------------------------------------------------------------------------


def traces(token: str) -> list[str]:
    """Every 8-character piece of a token, as text and as a frame dump's hex bytes."""
    pieces = [token[i : i + 8] for i in range(len(token) - 7)]
    return pieces + [" ".join(f"{byte:02x}" for byte in piece.encode()) for piece in pieces]


async def test_no_part_of_a_seat_token_reaches_the_log_even_at_debug_level(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    async with (
        running_server() as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
    ):
        game_id = await create(south)
        token = await join(south, game_id, 0)
        await join(north, game_id, 1)
        await south.ok(Move(id=0, game_id=game_id, token=token, ply=0, move="1"))
        await south.error(Move(id=0, game_id=game_id, token=token, ply=5, move="1"))
        async with Client.connected(server.port, "south") as again:
            await again.ok(Resume(id=0, game_id=game_id, token=token, since_v=0))
    # What the server logged (the test's own clients log frames at debug level too).
    logged = [r for r in caplog.records if not r.name.startswith("websockets.client")]
    assert any(r.levelno == logging.DEBUG for r in logged)
    text = "\n".join(r.getMessage() for r in logged)
    assert not [piece for piece in traces(token) if piece in text]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_the_store_is_the_users_alone(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "ubao"
    folder.parent.mkdir()  # a given --db makes its own folder only
    db = folder / "ubao.sqlite3"
    async with running_server(db=db) as server, Client.connected(server.port) as client:
        await create(client)
        await client.ok(Ping(id=0, t=0))  # the creation is committed
        assert mode(folder) == 0o700
        files = sorted(path.name for path in folder.iterdir())
        assert files == [
            "ubao.sqlite3",
            "ubao.sqlite3-shm",
            "ubao.sqlite3-wal",
            "ubao.sqlite3.lock",
        ]
        assert {mode(path) for path in folder.iterdir()} == {0o600}


def test_a_world_readable_database_is_made_private(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    db = shared / "old.sqlite3"
    db.touch()
    os.chmod(db, 0o644)
    Store(db).close()
    assert mode(db) == 0o600 and mode(shared) == 0o755  # a folder it did not make is kept


async def test_bot_settings_reach_the_engine_pool() -> None:
    bots = BotSettings(command=fake_engine(), engines=1)
    async with running_server(bots=bots) as server, Client.connected(server.port) as client:
        first = await create(client, SeatSpec.bot(1), SeatSpec.bot(1))
        second = await create(client, SeatSpec.bot(1), SeatSpec.bot(1))
        games = [server.core.rooms[first], server.core.rooms[second]]
        await until(lambda: all(room.status == "over" for room in games))
        assert [room.result.reason for room in games if room.result] == ["normal"] * 2
        assert len(server.bots.engines) == 1
