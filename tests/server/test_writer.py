"""The SQLite store's writer thread: the event loop goes on serving while a commit waits for the
disk, nothing is heard before its commit and everything in the order it was made, a refused
write is tried again with what came after it, reads never see a game older than its last save,
and a stopping server keeps everything it was given."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import (
    SMALL_KALAH,
    TIMEOUT,
    Client,
    Harness,
    Peer,
    failing_writes,
    healed,
    running_server,
    small_limits,
)
from tests.support.wire import CommitFails, create, http_get, join, messages, until
from ubao.protocol import Create, ErrorCode, Move, Moved, Ok, Ping, Resign, SeatSpec, Watch
from ubao.protocol.timing import monotonic_ms
from ubao.server.app import STORE_STALLED_MS
from ubao.server.limits import Limits
from ubao.server.stores import sqlite as store_module
from ubao.server.stores.protocol import StoreError
from ubao.server.stores.sqlite import Store


class Disk:
    """How slow the disk is: every COMMIT takes `commit_s` (an fsync that waits)."""

    def __init__(self) -> None:
        self.commit_s = 0.0


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Disk:
    """Every SQLite connection made from now on commits as slowly as `Disk.commit_s` says,
    whichever thread commits."""
    disk = Disk()
    real = sqlite3.connect

    class SlowDisk(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            if sql == "COMMIT" and disk.commit_s:
                time.sleep(disk.commit_s)
            return super().execute(sql, *args)

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs.setdefault("factory", SlowDisk)
        connection: sqlite3.Connection = real(*args, **kwargs)
        return connection

    monkeypatch.setattr(sqlite3, "connect", connect)
    return disk


def committed(path: Path, sql: str, *args: Any) -> list[Any]:
    """What another process would read in the database now: only what is committed."""
    with contextlib.closing(sqlite3.connect(path)) as other:
        return other.execute(sql, args).fetchall()


async def quiet(*clients: Client) -> None:
    """Read and drop what the clients were sent so far: what they receive next comes after."""
    for client in clients:
        await client.ok(Ping(id=0, t=0))
        client.events.clear()


async def seated(south: Client, north: Client) -> tuple[str, str]:
    """A new game with `south` and `north` in its seats, both quiet: its id and south's token."""
    game_id = await create(south)
    token = await join(south, game_id, 0)
    await join(north, game_id, 1)
    await quiet(south, north)
    return game_id, token


def writers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "ubao-store-writer"]


async def test_the_loop_serves_while_a_commit_waits_for_the_disk(
    tmp_path: Path, disk: Disk
) -> None:
    async with (
        running_server(db=tmp_path / "ubao.sqlite3") as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
    ):
        game_id, token = await seated(south, north)
        disk.commit_s = 2.0
        move = Move(id=0, game_id=game_id, token=token, ply=0, move="1")
        reply = asyncio.create_task(south.reply(move))
        await until(lambda: server.core.rooms[game_id].ply == 1)  # its commit has begun
        async with asyncio.timeout(TIMEOUT):
            await (await north.ws.ping())  # the loop answers...
        seats = (SeatSpec.open(), SeatSpec.open())
        await north.send(Create(id=8, game="kalah", options=SMALL_KALAH, seats=seats))
        await until(lambda: len(server.core.rooms) == 2)  # ...and takes another game
        assert not reply.done()  # while the move is still not durable, so not heard of
        disk.commit_s = 0.0
        assert isinstance(await reply, Ok)


async def test_replies_wait_behind_the_changes_made_before_them_and_keep_their_order(
    tmp_path: Path, disk: Disk
) -> None:
    db = tmp_path / "ubao.sqlite3"
    async with (
        running_server(db=db) as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
    ):
        game_id, token = await seated(south, north)
        disk.commit_s = 0.5
        await south.send(Move(id=99, game_id=game_id, token=token, ply=0, move="1"))
        await south.send(Ping(id=100, t=0))  # changes nothing, yet comes after the move
        got = [await south.recv()]
        # The move is on disk before its mover hears of it.
        assert committed(db, "SELECT move FROM moves WHERE game_id = ?", game_id) == [("1",)]
        got += [await south.recv(), await south.recv()]
        assert [(type(m), getattr(m, "id", None)) for m in got] == [
            (Ok, 99),
            (Moved, None),
            (Ok, 100),
        ]
        disk.commit_s = 0.0
        assert isinstance(await north.event(), Moved)
        assert server.core.rooms[game_id].ply == 1


async def test_a_refused_write_is_heard_of_only_once_kept_and_what_came_later_waits_behind_it(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ubao.sqlite3"
    async with (
        running_server(db=db) as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
    ):
        game_id, token = await seated(south, north)
        failing_writes(server.store.db, "moves")
        await south.send(Move(id=99, game_id=game_id, token=token, ply=0, move="1"))
        await until(lambda: server.core.rooms[game_id].ply == 1)
        # A new game writes no move, but it comes after the refused move: it waits too.
        seats = (SeatSpec.open(), SeatSpec.open())
        await north.send(Create(id=6, game="kalah", options=SMALL_KALAH, seats=seats))
        await until(lambda: len(server.core.rooms) == 2)
        heard = await asyncio.gather(messages(south, 1.5), messages(north, 1.5))
        assert not heard[0] and not heard[1]  # the writer tried again after 1 s, and failed again
        healed(server.store.db)
        ok = await south.recv()
        assert isinstance(ok, Ok) and ok.id == 99
        assert isinstance(await north.recv(), Moved)
        created = await north.recv()
        assert isinstance(created, Ok) and created.id == 6 and created.game_id is not None
        assert committed(db, "SELECT status FROM games WHERE game_id = ?", created.game_id)
    assert committed(db, "SELECT move FROM moves WHERE game_id = ?", game_id) == [("1",)]


async def test_a_stopping_server_keeps_everything_it_was_given_and_its_writer_ends(
    tmp_path: Path, disk: Disk
) -> None:
    db = tmp_path / "ubao.sqlite3"
    async with (
        running_server(db=db) as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
    ):
        game_id, token = await seated(south, north)
        assert len(writers()) == 1
        disk.commit_s = 0.5
        await south.send(Move(id=99, game_id=game_id, token=token, ply=0, move="1"))
        await until(lambda: server.core.rooms[game_id].ply == 1)
    assert committed(db, "SELECT move FROM moves WHERE game_id = ?", game_id) == [("1",)]
    assert not writers()


# -- the store alone ---------------------------------------------------------------------------


def finished_game(h: Harness, peer: Peer) -> str:
    game_id = peer.create()
    _, token, _ = peer.join(game_id, 0)
    peer.join(game_id, 1)
    peer.ok(Resign(id=peer.next_id(), game_id=game_id, token=token))
    return game_id


@contextlib.contextmanager
def started(path: Path, limits: Limits | None = None) -> Iterator[tuple[Harness, list[int]]]:
    """The core over a store whose writer runs; the counts it reported kept."""
    store = Store(path)
    kept: list[int] = []
    store.start(kept.append, 0.05)
    try:
        yield Harness(limits, store=store), kept
    finally:
        store.close()


def test_the_writer_keeps_every_save_and_says_how_many(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    with started(db) as (h, kept):
        peer = h.player()
        game_id = finished_game(h, peer)
        saved = h.store.saved
        assert saved >= 4  # created, two seats taken, resigned
        h.store.flush()  # as a server does at the end of each turn of its event loop
        deadline = time.monotonic() + TIMEOUT
        while (not kept or kept[-1] < saved) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert kept[-1] == saved and kept == sorted(kept)
        assert committed(db, "SELECT status FROM games WHERE game_id = ?", game_id) == [("over",)]


def test_a_game_is_read_as_last_saved_even_while_its_saves_wait_for_the_disk(
    tmp_path: Path, disk: Disk
) -> None:
    with started(tmp_path / "ubao.sqlite3") as (h, _):
        peer = h.player()
        disk.commit_s = 0.3
        game_id = finished_game(h, peer)
        stored = h.store.load(game_id)  # its saves are queued: it waits for them
        assert stored is not None and stored.status == "over"


def test_a_game_whose_saves_the_disk_refuses_is_not_read_from_an_older_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "LOAD_WAIT_S", 0.2)
    with started(tmp_path / "ubao.sqlite3", small_limits(keep_finished=1)) as (h, _):
        peer = h.player()
        failing_writes(h.store.db, "events")
        first = finished_game(h, peer)
        with pytest.raises(StoreError):
            h.store.load(first)
        finished_game(h, peer)  # the first is no longer in memory
        assert first not in h.core.rooms
        assert peer.error(Watch(id=9, game_id=first)).code == ErrorCode.STORAGE_ERROR
        healed(h.store.db)
        got = peer.send(Watch(id=10, game_id=first))
        assert isinstance(got[0], Ok)


def test_a_batch_is_written_in_a_few_statements_however_many_changes_it_holds(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "ubao.sqlite3")
    h = Harness(store=store)
    south, north = h.player("south"), h.player("north")
    games = []
    for _ in range(8):  # a connection's share
        game_id = south.create()
        _, token, _ = south.join(game_id, 0)
        north.join(game_id, 1)
        south.ok(Move(id=south.next_id(), game_id=game_id, token=token, ply=0, move="1"))
        games.append(game_id)
    store.db = CommitFails(store.db)  # type: ignore[assignment]
    with pytest.raises(StoreError):
        store.commit()
    statements: list[str] = []
    store.db.set_trace_callback(statements.append)
    store.commit()  # everything again, in one go: 32 changes of 8 games
    writes = [s.split()[0] for s in statements if s.split()[0] in ("INSERT", "UPDATE", "DELETE")]
    assert len(writes) == 4  # games, seats, moves, events
    moves = committed(tmp_path / "ubao.sqlite3", "SELECT game_id FROM moves ORDER BY game_id")
    assert moves == [(game_id,) for game_id in sorted(games)]
    store.close()


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


async def test_healthz_says_unhealthy_while_the_store_keeps_nothing() -> None:
    """An operator's balancer must stop sending clients to a server whose disk fails: it
    answers nobody until the disk takes its changes again."""
    skew = [0]

    def now() -> int:
        return monotonic_ms() + skew[0]

    async with (
        running_server(now=now) as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
    ):
        game_id = await create(south)
        south_token = await join(south, game_id, 0)
        await join(north, game_id, 1)
        failing_writes(server.store.db, "moves")
        await south.send(Move(id=99, game_id=game_id, token=south_token, ply=0, move="1"))
        await asyncio.sleep(0.3)  # handed to the writer, which fails and tries again
        assert await http_get(server.port, "/healthz") == (200, "ok\n")  # a blip is no stall
        skew[0] = STORE_STALLED_MS + 1_000
        status, text = await http_get(server.port, "/healthz")
        assert status == 503 and "kept nothing" in text
        assert "ubao_store_waiting 1" in (await http_get(server.port, "/metrics"))[1]
        healed(server.store.db)
        reply = await asyncio.wait_for(south.recv(), TIMEOUT)
        while not (isinstance(reply, Ok) and reply.id == 99):  # after the join's messages
            reply = await asyncio.wait_for(south.recv(), TIMEOUT)
        assert await http_get(server.port, "/healthz") == (200, "ok\n")
