"""Server defects a black-box protocol client's QA found (round 9), in the sans-I/O core: a
newer client's hello hears `unsupported_version` whatever its other fields; a finished game
whose rematch offer waits is not forgotten while others finish; a player of a forgotten game is
told to resume it, not that another connection plays it; a second store through a symbolic
link to the database finds it locked; SIGHUP stops the server gracefully; `/healthz` fails while
the store keeps nothing."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.server.test_restart import closed_by_restart, server_process
from tests.server.test_wire import create, http_get, join
from tests.support.server import (
    TIMEOUT,
    Client,
    failing_writes,
    healed,
    running_server,
)
from ubao.protocol import Move, Ok
from ubao.server.app import STORE_STALLED_MS
from ubao.server.clock import monotonic_ms
from ubao.server.store import DatabaseInUse, Store


def test_a_second_store_through_a_symbolic_link_finds_the_database_locked(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    first = Store(db)
    try:
        (tmp_path / "link.sqlite3").symlink_to(db.name)
        with pytest.raises(DatabaseInUse):
            Store(tmp_path / "link.sqlite3")
    finally:
        first.close()


async def test_sighup_shuts_the_server_down_gracefully(tmp_path: Path) -> None:
    """The terminal a server runs in closing (SIGHUP) is a graceful stop, not a crash."""
    async with server_process(tmp_path / "ubao.sqlite3") as (process, port):
        async with Client.connected(port, "ann") as ann:
            process.send_signal(signal.SIGHUP)
            await closed_by_restart(ann)
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0


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
