"""The asyncio layer: moves frames between WebSocket connections and the session core.

It owns the sockets, one writer task per connection, the timer that wakes the core at its next
deadline, and the bot engines; every decision is the core's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.http11 import Request, Response

from ubao.protocol import BotInfo, encode
from ubao.server.bots import Bots, BotSettings
from ubao.server.clock import Now, monotonic_ms, wall_ms
from ubao.server.core import BotsDone, BotTurn, Close, Core, Limits, Send
from ubao.server.store import Store

log = logging.getLogger("ubao.server")


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How a `GameServer` runs; `ubao-server` has a flag and an environment variable for every
    field, and of `limits` and `bots` (server/__main__.py)."""

    host: str = "127.0.0.1"
    port: int = 8765
    """0 picks a free port (tests); `GameServer.port` tells which."""
    db: str | Path = ":memory:"
    limits: Limits = field(default_factory=Limits)
    bots: BotSettings = field(default_factory=BotSettings)
    max_size: int = 4096
    """Largest frame a client may send, in bytes; larger ones close the connection (1009)."""
    max_queue: int = 16
    """Frames received but not yet handled, per connection (websockets' flow control)."""
    outbox: int = 1024
    """Frames waiting to be sent to one connection; a client that lets more pile up is closed."""
    open_timeout_s: float = 10.0
    """For the opening handshake."""


class Outbox:
    """One connection's outgoing frames, written in order by their own task so that a slow
    reader never holds up the core or the other connections."""

    def __init__(self, ws: ServerConnection, limit: int) -> None:
        self.ws = ws
        self.limit = limit
        self.queue: asyncio.Queue[bytes | tuple[int, str]] = asyncio.Queue()
        self.closed = False
        self.task = asyncio.create_task(self._run())

    def send(self, frame: bytes) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.limit:
            self.close(CloseCode.POLICY_VIOLATION, "too slow to read its messages")
            return
        self.queue.put_nowait(frame)

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait((code, reason))

    async def _run(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                item = await self.queue.get()
                if isinstance(item, bytes):
                    await self.ws.send(item)
                else:
                    await self.ws.close(*item)
                    return


class GameServer:
    """`ubao-server`: start, serve, stop gracefully (persisting everything)."""

    def __init__(self, config: ServerConfig, *, now: Now = monotonic_ms, wall: Now = wall_ms):
        self.config = config
        self.now = now
        self.store = Store(config.db)
        self.core = Core(self.store, config.limits, now=now, wall=wall)
        self.bots = Bots(config.bots)
        self._outboxes: dict[int, Outbox] = {}
        self._server: Server | None = None
        self._wake = asyncio.Event()
        self._timer: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        assert self._server is not None, "the server is not started"
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        restored = self.core.restore()
        if restored:
            log.info("resumed %d unfinished game(s) from %s", restored, self.store.path)
        self._server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            process_request=self._http,
            compression=None,
            max_size=self.config.max_size,
            max_queue=self.config.max_queue,
            open_timeout=self.config.open_timeout_s,
        )
        self._timer = asyncio.create_task(self._run_timer())
        self._flush()
        log.info("listening on ws://%s:%d/", self.config.host, self.port)

    async def stop(self) -> None:
        """Persist every game with its clocks frozen, close every connection with 1012."""
        log.info("shutting down")
        self.core.shutdown()
        self._flush()
        if self._server is not None:
            self._server.close(code=CloseCode.SERVICE_RESTART, reason="service restart")
            await self._server.wait_closed()
        if self._timer is not None:
            self._timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._timer
        await self.bots.close()
        # Engines of finished games are still being closed: let them finish (it is bounded).
        await asyncio.gather(*self._background, return_exceptions=True)
        self.store.close()
        log.info("stopped")

    async def __aenter__(self) -> GameServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    def wake(self) -> None:
        """Have the timer look at the core's deadlines again (tests call it after moving an
        injected clock)."""
        self._wake.set()

    # -- connections ---------------------------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        address = ws.remote_address
        ip = str(address[0]) if address else "unknown"
        conn = self.core.connect(ip)
        self._outboxes[conn] = Outbox(ws, self.config.outbox)
        log.info("connection %d opened from %s", conn, ip)
        self._flush()
        try:
            async for data in ws:
                self.core.receive(conn, data)
                self._flush()
        except ConnectionClosed:
            pass
        finally:
            self.core.disconnect(conn)
            outbox = self._outboxes.pop(conn)
            self._flush()
            outbox.task.cancel()
            log.info("connection %d closed (%s %s)", conn, ws.close_code, ws.close_reason or "")

    def _http(self, ws: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP beside the WebSocket: a health check and the rejection counters."""
        if request.path == "/healthz":
            return ws.respond(HTTPStatus.OK, "ok\n")
        if request.path == "/metrics":
            return ws.respond(HTTPStatus.OK, self._metrics())
        return None

    def _metrics(self) -> str:
        core = self.core
        lines = [
            f"ubao_connections {len(core.conns)}",
            f'ubao_games{{status="live"}} {sum(r.status != "over" for r in core.rooms.values())}',
        ]
        lines += [
            f'ubao_rejected_total{{reason="{reason}"}} {count}'
            for reason, count in sorted(core.rejected.items())
        ]
        return "\n".join(lines) + "\n"

    # -- the core's outputs --------------------------------------------------------------------

    def _flush(self) -> None:
        for output in self.core.outputs():
            if isinstance(output, Send):
                frame = encode(output.message)
                for conn in output.to:
                    outbox = self._outboxes.get(conn)
                    if outbox is not None:
                        outbox.send(frame)
            elif isinstance(output, Close):
                outbox = self._outboxes.get(output.conn)
                if outbox is not None:
                    outbox.close(output.code, output.reason)
            elif isinstance(output, BotTurn):
                self.bots.spawn(output.game_id, asyncio.create_task(self._bot_turn(output)))
            elif isinstance(output, BotsDone):
                self._in_background(self.bots.release(output.game_id))
        self._wake.set()

    async def _bot_turn(self, turn: BotTurn) -> None:
        def accept(move: str, info: BotInfo | None) -> bool:
            accepted = self.core.bot_moved(turn, move, info)
            self._flush()
            return accepted

        try:
            why = await self.bots.play(turn, accept)
        except Exception as exc:  # a bug in the driver must not leave the game hanging
            log.exception("bot turn in game %s failed", turn.game_id)
            why = f"internal error: {exc!r}"
        if why is not None:
            self.core.bot_failed(turn, why)
            self._flush()

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _run_timer(self) -> None:
        """Wake the core at its next deadline (a flag fall, a grace period's end)."""
        while True:
            self._wake.clear()
            deadline = self.core.next_deadline()
            timeout = None if deadline is None else max(0, deadline - self.now()) / 1000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
            try:
                self.core.tick()
            except Exception:  # keep the clocks running for every other game
                log.exception("error while expiring games")
            self._flush()
