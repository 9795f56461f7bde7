"""Real servers for the server tests (no tests here): raw websockets clients that create, join,
play and watch, a server process on a free port, and a database whose commit fails on demand."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.support.redis_server import RedisServer
from tests.support.server import SMALL_KALAH, TIMEOUT, Client
from ubao.protocol import (
    PROTOCOL_VERSION,
    Create,
    Event,
    Hello,
    Join,
    Move,
    Moved,
    Over,
    Resume,
    SeatSpec,
    ServerMessage,
    Snapshot,
    Watch,
    encode,
)


async def create(client: Client, *seats: SeatSpec, **fields: Any) -> str:
    fields.setdefault("game", "kalah")
    fields.setdefault("options", SMALL_KALAH)
    first, second = seats or (SeatSpec.open(), SeatSpec.open())
    ok = await client.ok(Create(id=0, seats=(first, second), **fields))
    assert ok.game_id is not None
    return ok.game_id


async def join(client: Client, game_id: str, seat: int | None = None) -> str:
    ok = await client.ok(Join(id=0, game_id=game_id, seat=seat))
    assert ok.game_id == game_id and ok.token is not None
    return ok.token


async def autoplay(
    client: Client, game_id: str, token: str, seen: list[Event], acked: list[str] | None = None
) -> Over:
    """Play the first legal move whenever the server offers legal moves, until the game ends;
    `acked` gets every move the server said `ok` to."""
    ply = 0
    while True:
        event = await client.event()
        seen.append(event)
        if isinstance(event, Snapshot):
            ply = event.ply
        elif isinstance(event, Moved):
            ply = event.ply + 1
        elif isinstance(event, Over):
            return event
        legal = getattr(event, "legal", None)
        if legal:
            await client.ok(Move(id=0, game_id=game_id, token=token, ply=ply, move=legal[0]))
            if acked is not None:
                acked.append(legal[0])


async def watch_to_end(client: Client, game_id: str) -> list[Event]:
    await client.ok(Watch(id=0, game_id=game_id))
    seen = [await client.event()]
    while not isinstance(seen[-1], Over):
        seen.append(await client.event())
    return seen


async def http_get(port: int, path: str) -> tuple[int, str]:
    """A plain HTTP GET, in a thread: the server runs on this event loop."""

    def get() -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=TIMEOUT) as reply:
                return reply.status, reply.read().decode()
        except urllib.error.HTTPError as error:  # an error status is an answer too
            return error.code, error.read().decode()

    return await asyncio.to_thread(get)


async def until(condition: Callable[[], bool]) -> None:
    """Wait (generously) for a condition the server reaches by itself."""
    async with asyncio.timeout(TIMEOUT):
        while not condition():
            await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def stuck_client(port: int) -> AsyncIterator[ClientConnection]:
    """A client that says hello and then reads nothing: a tiny receive buffer, and websockets
    stops reading the socket as soon as one message waits for the application."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    uri = f"ws://127.0.0.1:{port}/"
    async with connect(uri, sock=sock, max_queue=1, compression=None) as ws:
        await ws.send(encode(Hello(id=0, proto=PROTOCOL_VERSION, name="stuck", role="human")))
        yield ws


async def messages(client: Client, seconds: float) -> list[ServerMessage]:
    """What a client receives within `seconds`."""
    got: list[ServerMessage] = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            while True:
                got.append(await client.recv())
    return got


class CommitFails:
    """A database connection whose next COMMIT fails as on an I/O error: rolled back."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.failed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql == "COMMIT" and not self.failed:
            self.failed = True
            self.db.execute("ROLLBACK")
            raise sqlite3.OperationalError("disk I/O error (test)")
        return self.db.execute(sql, *args)


ROOT = Path(__file__).resolve().parents[2]


LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)/")


@contextlib.asynccontextmanager
async def server_process(
    db: Path, *flags: str
) -> AsyncIterator[tuple[asyncio.subprocess.Process, int]]:
    """`python -m ubao.server` on a free port; yields the process and its port."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ubao.server",
        "--port",
        "0",
        "--db",
        str(db),
        *flags,
        cwd=ROOT,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    log: list[str] = []
    port = None
    while port is None:
        line = (await asyncio.wait_for(process.stderr.readline(), TIMEOUT)).decode()
        assert line, f"the server exited: {''.join(log)}"
        log.append(line)
        match = LISTENING.search(line)
        port = int(match.group(1)) if match else None
    drain = asyncio.create_task(process.stderr.read())
    try:
        yield process, port
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
        await drain


def server_exit(*flags: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ubao.server", "--port", "0", "--db", str(tmp_path / "db"), *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@dataclasses.dataclass
class Node:
    process: asyncio.subprocess.Process
    port: int


@contextlib.asynccontextmanager
async def nodes(redis: RedisServer, count: int, *more: str) -> AsyncIterator[list[Node]]:
    """`count` nodes `python -m ubao.server --redis` (with flags `more`), each on a free port;
    killed at the end."""
    async with contextlib.AsyncExitStack() as stack:
        started = []
        for number in range(count):
            flags = ("--redis", redis.url, "--node-id", f"n{number}", *more)
            db = redis.folder / f"n{number}.sqlite3"  # not used: the games are in Redis
            process, port = await stack.enter_async_context(server_process(db, *flags))
            started.append(Node(process, port))
        yield started


async def resume_somewhere(
    ports: list[int], name: str, game_id: str, token: str, since_v: int
) -> tuple[contextlib.AsyncExitStack, Client, float]:
    """Reconnect (to each node in turn) until the seat resumes; how long that took."""
    start = time.monotonic()
    for attempt in range(200):
        stack = contextlib.AsyncExitStack()
        try:
            port = ports[attempt % len(ports)]
            client = await stack.enter_async_context(Client.connected(port, name))
            await client.ok(Resume(id=0, game_id=game_id, token=token, since_v=since_v))
        except (ConnectionClosed, OSError):
            await stack.aclose()
            await asyncio.sleep(0.2)
            continue
        return stack, client, time.monotonic() - start
    raise AssertionError("the seat never resumed")
