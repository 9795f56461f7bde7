"""One server per database: a second `ubao-server` on the same file stops at once and leaves
the games to the first; a server whose port is taken stops before it takes any game up."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import stat
import sys
from pathlib import Path

import pytest

from tests.support.server import TIMEOUT, Client, Harness, move, started_game
from tests.support.wire import ROOT, server_process
from ubao.protocol import ClockSpec, Create, Join, Move, Moved, SeatSpec
from ubao.server.stores.sqlite import DatabaseInUse, Store

TABLES = ("games", "seats", "moves", "events")


def contents(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, in order: what a server that touched the games would change."""
    with contextlib.closing(sqlite3.connect(db)) as database:
        return {
            table: database.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
            for table in TABLES
        }


async def run_to_exit(db: Path, port: int) -> tuple[int, str]:
    """`python -m ubao.server` on `db` and `port`, which must exit by itself: its status and
    what it wrote to stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "ubao.server", "--port", str(port), "--db", str(db)),
        cwd=ROOT,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode is not None
    return process.returncode, err.decode()


async def test_a_second_server_on_the_same_database_exits_and_leaves_the_games_alone(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ubao.sqlite3"
    async with (
        server_process(db) as (first, port),
        Client.connected(port, "ann") as ann,
        Client.connected(port, "bob") as bob,
    ):
        clock = ClockSpec(initial_ms=600_000, increment_ms=0)
        seats = (SeatSpec.open(), SeatSpec.open())
        create = Create(id=0, game="kalah", options={}, seats=seats, clock=clock)
        game_id = (await ann.ok(create)).game_id
        assert game_id is not None
        ann_token = (await ann.ok(Join(id=0, game_id=game_id, seat=0))).token
        bob_token = (await bob.ok(Join(id=0, game_id=game_id, seat=1))).token
        assert ann_token and bob_token
        await ann.ok(Move(id=0, game_id=game_id, token=ann_token, ply=0, move="1"))
        await bob.event_of(Moved)
        assert (await ann.event_of(Moved)).ply == 0  # kept before anyone hears of it
        before = contents(db)

        status, err = await run_to_exit(db, 0)
        assert status == 2, err
        assert f"database {db} is in use by another ubao-server (pid {first.pid})" in err
        assert "resumed" not in err and "listening" not in err
        assert contents(db) == before

        # The first server still hosts the game, and keeps its moves.
        await bob.ok(Move(id=0, game_id=game_id, token=bob_token, ply=1, move="1"))
        assert (await ann.event_of(Moved)).ply == 1
    lock = db.with_name(db.name + ".lock")
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600


async def test_a_server_whose_port_is_taken_takes_no_game_up(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite3"
    store = Store(other)
    h = Harness(store=store)
    game_id, south, s_token, *_ = started_game(h, clock=ClockSpec(60_000, 0))
    move(south, game_id, s_token, 0, "1")
    store.commit()
    store.close()
    before = contents(other)

    async with server_process(tmp_path / "ubao.sqlite3") as (_, port):
        status, err = await run_to_exit(other, port)
    assert status != 0 and "cannot listen" in err, err
    assert "resumed" not in err and "restored game" not in err
    assert contents(other) == before
    # The lock went with the process: the games are there for the next server.
    Store(other).close()


def test_a_second_store_through_a_symbolic_link_finds_the_database_locked(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    first = Store(db)
    try:
        (tmp_path / "link.sqlite3").symlink_to(db.name)
        with pytest.raises(DatabaseInUse):
            Store(tmp_path / "link.sqlite3")
    finally:
        first.close()
