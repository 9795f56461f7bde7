"""The asyncio layer: moves frames between WebSocket connections and the session core.

It owns the sockets and their keepalive, the timer that wakes the core at its next
deadline, the release of what the core sends as the store makes it durable, and the bot
engines; every decision is the core's.

The core's `Save` outputs go to the store at once; everything else it sends waits for the
commit that covers the saves made before it, and goes out in the order it was made: nobody
hears of a change before it is durable. One path for both stores: the layer counts saves, hands
them over once per turn of the event loop (`flush`) and releases what waited when the store says
how many are durable. On one node the SQLite store commits on a writer thread of its own (group
commit: one fsync serves every change queued during the previous one), so the event loop never
waits for the disk; in a cluster Redis commits the turn's batch on the loop, in one round trip.
Each connection may have at most `send_budget` bytes waiting to be sent; a client that lets
more pile up is not reading and is closed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import shlex
import socket
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.http11 import Request, Response
from websockets.protocol import State

from ubao.engine.protocols.client import EngineFailure
from ubao.protocol import BotInfo, GameAnalysis, encode
from ubao.protocol.timing import monotonic_ms
from ubao.server.accounts import hash_key, key_matches, new_key
from ubao.server.analysis_runs import AnalysisRuns, Review, review_locally
from ubao.server.bots import Bots, BotSeats, BotSettings
from ubao.server.clock import Now, wall_ms
from ubao.server.core import Core
from ubao.server.door import Door, Networks, connections_for
from ubao.server.edge import Edge, descriptor_limit
from ubao.server.kgp_edge import WS_PATH, KgpGateway
from ubao.server.kgp_settings import KgpSettings
from ubao.server.limits import Limits
from ubao.server.outputs import (
    AnalysisJob,
    BotsDone,
    BotTurn,
    CheckKey,
    Close,
    Forward,
    Listed,
    MakeKey,
    Output,
    Save,
    SendMessage,
)
from ubao.server.routing import ClusterRouting
from ubao.server.stores.protocol import DurableStore, StoreError
from ubao.server.stores.sqlite import Store
from ubao.server.web import WebFront

if TYPE_CHECKING:
    from ubao.server.cluster import Cluster

log = logging.getLogger("ubao.server")

wire_log = logging.getLogger("ubao.server.websockets")
"""websockets' own logger, kept to warnings: its debug lines quote frames, and frames carry
seat tokens; its info lines repeat the server's own (a connection opened, closed) and add two
for every health check (a balancer's, every 2 s per node)."""
wire_log.setLevel(logging.WARNING)

STORE_RETRY_MS = 1_000
"""After a write the store refused, how long it waits before it tries again (a broken disk must
not make the server spin)."""

DRAIN_S = 2.0
"""At shutdown, how long the store's writer may take to keep what was saved: a failing disk
loses it (nobody heard of it)."""

HANDSHAKES_CUT_S = 0.5
"""At shutdown, after the close timeout, how long connections that never finished their
opening handshake may keep it from ending."""

LISTEN_BACKLOG = 2048
"""Connections the kernel may hold for the server to accept (uvicorn's default; Linux caps it at
`net.core.somaxconn`). asyncio's default of 100 overflowed when a thousand clients connected at
once (the load benchmark's set-up, or every client reconnecting after a restart): the kernel
dropped what did not fit, and those clients' first bytes came by TCP retransmission, seconds
apart and doubling, so that some opening handshakes outlasted `open_timeout_s` and were closed
while the event loop was busy (docs/benchmarks.md, "The event loop")."""

STORE_STALLED_MS = 10_000
"""How long saves may wait with the writer keeping none before `/healthz` says the server is
unhealthy (503): its disk fails, so it answers nobody (docs/server.md, "When the disk fails"),
and a balancer or container supervisor should stop sending it clients."""

SOCKET_SEND_BUFFER = 64 * 1024
"""The kernel's send buffer per connection (it grows to megabytes by itself): with it, what one
connection holds is bounded by its `send_budget` plus this."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How a `GameServer` runs; `ubao-server` has a flag and an environment variable for every
    field, and of `limits` and `bots` (server/__main__.py)."""

    host: str = "127.0.0.1"
    port: int = 8765
    """0 picks a free port (tests); `GameServer.port` tells which."""
    db: str | Path = ":memory:"
    redis: str = ""
    """A Redis URL: the server is one node of a cluster, its games in Redis (not `db`)."""
    node_id: str = ""
    """The node's name in the cluster; empty: a random one."""
    limits: Limits = field(default_factory=Limits)
    bots: BotSettings = field(default_factory=BotSettings)
    max_size: int = 4096
    """Largest frame a client may send, in bytes; larger ones close the connection (1009)."""
    max_queue: int = 16
    """Frames received but not yet handled, per connection (websockets' flow control)."""
    send_budget: int = 256 * 1024
    """Bytes waiting to be sent to one connection; a client that lets more pile up is closed."""
    open_timeout_s: float = 10.0
    """For the opening handshake."""
    ping_interval_s: float = 20.0
    """How often each connection is pinged..."""
    ping_timeout_s: float = 20.0
    """...and how long its pong may take (waiting for the ping to be written counts)."""
    close_timeout_s: float = 2.0
    """For a closing handshake; a connection that does not finish it is cut."""
    kgp: KgpSettings = field(default_factory=KgpSettings)
    """The KGP endpoint for Kalah agents (docs/kgp.md)."""
    proxies: tuple[str, ...] = ()
    """Addresses or networks of proxies that send the PROXY protocol (v2) header first; the
    limits count their clients by the address it names (docs/server.md, "Behind a proxy")."""


class Attached(Protocol):
    """A client inside the server: it takes the core's messages for its connection unframed."""

    def from_core(self, frame: bytes) -> None: ...

    def closed_by_core(self, reason: str) -> None: ...


def address(host: str, port: int) -> str:
    """`host:port` as a URL writes it: an IPv6 address in brackets (`[::1]:8765`, RFC 3986)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def websocket_frame(payload: bytes) -> bytes:
    """`payload` as the binary WebSocket frame a server sends (unmasked, in one piece, no
    extension: the server negotiates none): a message goes to every recipient as these same
    bytes, so it is framed once, not once per recipient. The header is RFC 6455's (FIN and the
    binary opcode, then the length in 7, 16 or 64 bits), written here rather than through
    websockets' `Frame.serialize` (2.4 µs a frame where this takes 0.4, at every message);
    tests/server/test_frames.py checks that both give the same bytes."""
    size = len(payload)
    if size < 126:
        return bytes((0x82, size)) + payload
    if size < 0x10000:
        return b"\x82\x7e" + size.to_bytes(2, "big") + payload
    return b"\x82\x7f" + size.to_bytes(8, "big") + payload


class Outbox:
    """One connection's outgoing frames and keepalive pings. Frames are written to the socket
    at once (the transport buffers what the kernel does not take), so that a slow reader never
    holds up the core or the other connections, and no task or await is spent per frame.

    They are written to the transport as framed bytes (`websocket_frame`), past websockets'
    own `send`, which would serialize each frame again for each recipient. websockets writes
    what it sends itself (pings, the close frame) to the same transport at once, so everything
    still goes out in the order it was sent."""

    def __init__(self, ws: ServerConnection, config: ServerConfig, conn: int) -> None:
        self.ws = ws
        self.conn = conn
        self.config = config
        self.closed = False
        self.closing: asyncio.Task[None] | None = None
        self._pinging: asyncio.Task[None] | None = None
        self._next_ping = asyncio.get_running_loop().call_later(config.ping_interval_s, self._ping)

    def send(self, frames: bytes) -> None:
        """Write `frames`: one or more whole frames of `websocket_frame`."""
        ws = self.ws
        transport = ws.transport
        if self.closed or ws.protocol.state is not State.OPEN or transport.is_closing():
            return
        waiting = transport.get_write_buffer_size()
        if waiting and waiting + len(frames) > self.config.send_budget:
            self.cut(CloseCode.POLICY_VIOLATION, "too slow to read its messages")
            return
        transport.write(frames)

    def close(self, code: int, reason: str) -> None:
        """Close after the frames already written (an error reply before its close)."""
        if not self.closed:
            self.closed = True
            self.closing = asyncio.create_task(self._close(code, reason))

    def cut(self, code: int, reason: str) -> None:
        """Close now, sending nothing more: the close frame waits behind what the client did
        not read, so the connection is cut if the closing handshake does not finish in time."""
        log.info("connection %d: %s", self.conn, reason)
        self.close(code, reason)

    def stop(self) -> None:
        self._next_ping.cancel()
        if self._pinging is not None:
            self._pinging.cancel()
        if self.closing is not None:
            self.closing.cancel()

    async def _close(self, code: int, reason: str) -> None:
        """The closing handshake, or a cut connection if it does not finish in time (writing
        the close frame alone waits for a client that reads)."""
        try:
            async with asyncio.timeout(self.config.close_timeout_s):
                await self.ws.close(code, reason)
        except TimeoutError:
            self.ws.transport.abort()

    def _ping(self) -> None:
        """Every `ping_interval_s` after the last pong: a task waits for the next pong. Between
        pings a connection's keepalive is this timer alone, not a task asleep: a sleeping task
        is a coroutine, a future and a timer per connection, which lived long enough to be
        promoted through the collector's generations and die there (thousands of connections,
        every `ping_interval_s`), so that its collections walked them."""
        self._pinging = asyncio.create_task(self._await_pong())

    async def _await_pong(self) -> None:
        """Ping; a client whose pong does not come in time is cut, even while the ping itself
        waits behind frames it does not read."""
        try:
            async with asyncio.timeout(self.config.ping_timeout_s):
                await (await self.ws.ping())
        except TimeoutError:
            log.info("connection %d: no answer to its ping", self.conn)
            self.ws.transport.abort()
            return
        except ConnectionClosed:
            return
        loop = asyncio.get_running_loop()
        self._next_ping = loop.call_later(self.config.ping_interval_s, self._ping)


class GameServer:
    """`ubao-server`: start, serve, stop gracefully (persisting everything)."""

    def __init__(self, config: ServerConfig, *, now: Now = monotonic_ms, wall: Now = wall_ms):
        if config.redis and config.bots.engine_bots:
            raise ValueError(
                "--engine-bot runs engines on this server; a cluster node runs none "
                "(its engine workers play ubao's engine)"
            )
        names = tuple(bot.name for bot in config.bots.engine_bots)
        config = dataclasses.replace(
            config, limits=dataclasses.replace(config.limits, engine_bots=names)
        )
        self.config = config
        self.now = now
        self.web = WebFront()
        self.cluster: Cluster | None = None
        self.database: DurableStore
        """Where the games are kept: the SQLite file, or Redis in a cluster."""
        self.bots: BotSeats
        review: Review
        if config.redis:
            from ubao.server.cluster import Cluster, node_name
            from ubao.server.workers import WorkerPool

            node = config.node_id or node_name()
            self.cluster = Cluster(config.redis, node, config.limits.keep_finished)
            self.database = self.cluster.store
            routing = ClusterRouting(self.cluster)
            self.core = Core(self.database, config.limits, now=now, wall=wall, routing=routing)
            self.cluster.attach(self.core, self)
            workers = WorkerPool(config.redis, config.bots)
            self.bots, review = workers, workers.review
        else:
            store = Store(config.db)
            log.info("database: %s", store.path)  # the file whose games are served, said first
            self.database = store
            self.core = Core(store, config.limits, now=now, wall=wall)
            self.bots = Bots(config.bots)
            review = review_locally(config.bots.analysis_nice)
        self.bots.max_time_ms = config.limits.max_bot_time_ms  # a seat without time_ms: this
        self.analyses = AnalysisRuns(
            review,
            self.bots.busy,
            self._analysed,
            self._analysis_failed,
            config.bots.analysis_engines,
        )
        self._outboxes: dict[int, Outbox] = {}
        self._attached: dict[int, Attached] = {}
        """Connections of clients inside the server (KGP agents): their messages unframed."""
        self.kgp = KgpGateway(self, config.kgp, f"ws://{address(config.host, config.port)}/")
        self._held: deque[tuple[int, list[Output]]] = deque()
        """The core's outputs but its saves, in order, in runs, each with the number of saves
        made before it: they wait until those saves are durable."""
        self._durable = 0
        """How many saves the store has kept."""
        self._kept = asyncio.Event()
        """Set whenever the store keeps more."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._release_at: asyncio.Handle | None = None
        """The next release of what is durable."""
        self._flushed = 0
        """How many saves the store was told to take."""
        self._kept_at = 0
        """When the store last kept saves, or was last handed saves while it had kept them all
        (`now`, ms): how long saves have waited without progress (`_store_stalled_ms`)."""
        self._flush_at: asyncio.Handle | None = None
        self._server: Server | None = None
        self._wake = asyncio.Event()
        self._timer: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        limits = config.limits
        total = limits.max_connections or connections_for(descriptor_limit())
        self.door = Door(total, limits.open_per_ip or 2 * limits.connections_per_ip)
        self.edge = Edge(self.door, Networks.parse(config.proxies), config.open_timeout_s)
        self._loud_accept_errors: Callable[[], None] | None = None

    @property
    def store(self) -> Store:
        """The SQLite store of a single node."""
        assert isinstance(self.database, Store), "a cluster node keeps its games in Redis"
        return self.database

    @property
    def port(self) -> int:
        assert self._server is not None, "the server is not started"
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        """Bind the port, then take the games up, then accept connections: a server that cannot
        listen (the port is taken) leaves the games alone."""
        self._server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            process_request=self._http,
            compression=None,
            max_size=self.config.max_size,
            max_queue=self.config.max_queue,
            open_timeout=self.config.open_timeout_s,
            ping_interval=None,  # the outboxes ping, without waiting for a drain
            close_timeout=self.config.close_timeout_s,
            logger=wire_log,
            backlog=LISTEN_BACKLOG,
            start_serving=False,
            create_connection=self.edge.connection_class(),
        )
        self._loud_accept_errors = self.edge.quiet_accept_errors(
            asyncio.get_running_loop(), self.now
        )
        try:
            await self._take_up()
        except BaseException:
            self._server.close()  # the port is free again for whoever comes next
            raise
        await self._server.start_serving()
        if self.config.port == 0:  # the address agents are told games are watched at
            self.kgp.public_url = f"ws://{address(self.config.host, self.port)}/"
        await self.kgp.start(self.config.host)
        self._timer = asyncio.create_task(self._run_timer())
        self._flush()
        log.info("listening on ws://%s/", address(self.config.host, self.port))

    async def check_engine(self) -> None:
        """Start a local engine now and keep it for the first bot turn (`Bots.check`): an
        `--engine` that cannot start or does not speak the protocol is an EngineFailure at
        the server's start rather than a forfeit (`engine_failure`) at the first bot turn. A
        cluster node starts no engines (its engine workers do)."""
        if isinstance(self.bots, Bots):
            await self.bots.check()

    async def check_engine_bots(self) -> None:
        """Start each `--engine-bot` once, as `check_engine` does `--engine`; an EngineFailure
        names the engine bot that does not work."""
        if isinstance(self.bots, Bots):
            for bot in self.config.bots.engine_bots:
                try:
                    await self.bots.check(bot.name)
                except EngineFailure as exc:
                    command = shlex.join(bot.command)
                    raise EngineFailure(f"--engine-bot {bot.name} ({command}): {exc}") from None

    async def _take_up(self) -> None:
        """Restore the database's games, or join the cluster (the games come as their leases
        expire); and start the store."""
        self._loop = asyncio.get_running_loop()
        if self.cluster is None:
            restored = self.core.restore()
            if restored:
                log.info("resumed %d unfinished game(s) from %s", restored, self.database.path)
        self.database.start(self._kept_by_store, STORE_RETRY_MS / 1000)
        if self.cluster is not None:
            await self.cluster.start()

    async def stop(self) -> None:
        """Persist every game with its clocks frozen, close every connection with 1012, stop the
        engines; in bounded time whatever clients and engines do."""
        log.info("shutting down")
        await self.kgp.stop()
        self.core.shutdown()
        self._flush()
        if self._flush_at is not None:
            self._flush_at.cancel()
        self._hand_over()
        await self._drain(self.database.saved)
        self._release()
        if self._release_at is not None:
            self._release_at.cancel()
        if self._timer is not None:
            self._timer.cancel()
        await asyncio.gather(self._close_connections(), self.bots.close(), self.analyses.close())
        await asyncio.gather(*self._background, return_exceptions=True)
        if self.cluster is not None:
            await self.cluster.stop()  # it closes the store
        else:
            self.database.close()
        if self._loud_accept_errors is not None:
            self._loud_accept_errors()
        log.info("stopped")

    async def _drain(self, saved: int) -> None:
        """Wait until the store has kept the first `saved` saves, for at most `DRAIN_S`."""
        try:
            async with asyncio.timeout(DRAIN_S):
                while self._durable < saved:
                    self._kept.clear()
                    await self._kept.wait()
        except TimeoutError:
            lost = saved - self._durable
            log.error("the store did not keep %d change(s) in %.1f s: lost", lost, DRAIN_S)

    async def _close_connections(self) -> None:
        if self._server is None:
            return
        self._server.close(code=CloseCode.SERVICE_RESTART, reason="service restart")
        try:
            async with asyncio.timeout(self.config.close_timeout_s):
                await self._server.wait_closed()
        except TimeoutError:  # clients that do not read do not see the close frame either
            for outbox in self._outboxes.values():
                outbox.ws.transport.abort()
            # What may still be open: connections in their opening handshake, which wait for
            # `open_timeout_s` (10 s) and owe nobody anything. Left to the process's end.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(HANDSHAKES_CUT_S):
                    await self._server.wait_closed()

    async def __aenter__(self) -> GameServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # -- connections ---------------------------------------------------------------------------

    def attach(self, conn: int, client: Attached) -> None:
        """Give the core's messages for `conn` to `client` (a KGP agent's session)."""
        self._attached[conn] = client

    def detach(self, conn: int) -> None:
        self._attached.pop(conn, None)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` in the background; the server waits for it when it stops."""
        self._in_background(work)

    async def _handle(self, ws: ServerConnection) -> None:
        if ws.request is not None and ws.request.path == WS_PATH:
            await self.kgp.serve_websocket(ws)
            return
        address = ws.remote_address
        ip = str(address[0]) if address else "unknown"
        conn = self.core.connect(ip)
        with contextlib.suppress(OSError):
            sock = ws.transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_SEND_BUFFER)
        self._outboxes[conn] = Outbox(ws, self.config, conn)
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
            if self.cluster is not None:
                self.cluster.disconnected(conn)
            self._outboxes.pop(conn).stop()
            self._flush()
            reason = f" {ws.close_reason}" if ws.close_reason else ""
            log.info("connection %d closed (%s%s)", conn, ws.close_code, reason)

    def _http(self, ws: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP beside the WebSocket: a health check, the rejection counters and the
        browser front (server/web.py)."""
        if request.path == "/healthz":
            stalled = self._store_stalled_ms()
            if stalled > STORE_STALLED_MS:
                message = f"the store has kept nothing for {stalled // 1000} s\n"
                return ws.respond(HTTPStatus.SERVICE_UNAVAILABLE, message)
            return ws.respond(HTTPStatus.OK, "ok\n")
        if request.path == "/metrics":
            return ws.respond(HTTPStatus.OK, self._metrics())
        return self.web.respond(request)  # the browser's page, or on to the WebSocket

    def _store_stalled_ms(self) -> int:
        """How long handed saves have waited with the SQLite writer keeping none (0: none
        waits)."""
        if self.cluster is not None or self._flushed <= self._durable:
            return 0
        return max(0, self.now() - self._kept_at)

    def _metrics(self) -> str:
        core = self.core
        lines = [
            f"ubao_connections {len(core.conns)}",
            f"ubao_connections_open {self.door.open}",
            f'ubao_games{{status="live"}} {sum(r.status != "over" for r in core.rooms.values())}',
            f"ubao_engines {len(self.bots.engines)}",
        ]
        if self.cluster is None:
            lines += [
                f"ubao_store_waiting {self.database.saved - self._durable}",
                f"ubao_store_stalled_seconds {self._store_stalled_ms() / 1000:.1f}",
            ]
        if self.cluster is not None:
            lines += [
                f"ubao_proxies {len(self.cluster.proxied)}",
                f"ubao_takeovers_total {self.cluster.takeovers}",
            ]
        lines += [
            f'ubao_rejected_total{{reason="{reason}"}} {count}'
            for reason, count in sorted((core.rejected + self.door.refused).items())
        ]
        return "\n".join(lines) + "\n"

    # -- the core's outputs --------------------------------------------------------------------

    # -- what the cluster asks (its `Host`) -------------------------------------------------------

    def deliver(self, conns: Sequence[int], frame: bytes) -> None:
        attached = self._attached
        for conn in conns:
            if conn in attached:
                attached[conn].from_core(frame)
        if conns:
            framed = [websocket_frame(frame)]
            self._post({conn: framed for conn in conns if conn not in attached})

    def close(self, conn: int, code: int, reason: str) -> None:
        attached = self._attached.get(conn)
        if attached is not None:
            attached.closed_by_core(reason)
        outbox = self._outboxes.get(conn)
        if outbox is not None:
            outbox.close(code, reason)

    def flush(self) -> None:
        self._flush()

    def _flush(self) -> None:
        """Take the core's outputs: its saves go to the store now, the rest once the saves made
        before them are durable (`_release`)."""
        outputs = self.core.outputs()
        database = self.database
        if outputs:
            sends: list[Output] = []
            for output in outputs:
                if isinstance(output, Save):
                    database.save(output.change)
                else:
                    sends.append(output)
            if sends:
                self._held.append((database.saved, sends))
        loop = asyncio.get_running_loop()
        if database.saved > self._flushed and self._flush_at is None:
            self._flush_at = loop.call_soon(self._hand_over)
        held, cluster = self._held, self.cluster
        ready = (bool(held) and held[0][0] <= self._durable) or (
            cluster is not None and cluster.pending
        )
        if ready and self._release_at is None and not self.core.closing:
            self._release_at = loop.call_soon(self._release)
        self._wake.set()  # what the core did may have moved its deadlines: the timer looks again

    def _hand_over(self) -> None:
        """Once per turn of the event loop: the store takes what the turn saved, in one batch
        (not the first save of the turn alone, then the rest)."""
        self._flush_at = None
        if self._flushed <= self._durable:  # the store had kept everything: a wait starts
            self._kept_at = self.now()
        self._flushed = self.database.saved
        self.database.flush()

    def _kept_by_store(self, saves: int) -> None:
        """The store kept the first `saves` saves (called on SQLite's writer thread, or on the
        loop by Redis's commit)."""
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop is closed: the server has stopped
            self._loop.call_soon_threadsafe(self._durable_until, saves)

    def _durable_until(self, saves: int) -> None:
        """On the loop: the first `saves` saves are durable."""
        self._durable = saves
        self._kept_at = self.now()
        self._kept.set()
        if self.cluster is not None:
            self.cluster.committed()  # games another node took meanwhile: their news is not sent
        self._release()

    def _release(self) -> None:
        """Send, in order, what the core made after changes the store has kept; in a cluster,
        then publish what waits for the other nodes."""
        if self._release_at is not None:
            self._release_at.cancel()
            self._release_at = None
        held = self._held
        durable = self._durable
        ready: list[Output] = []
        while held and held[0][0] <= durable:
            ready += held.popleft()[1]
        if ready:
            self._send_out(ready)
        if self.cluster is not None:
            self.cluster.send_out()
            self._flush()  # what closing proxies changed goes out after the next commit

    def _send_out(self, outputs: list[Output]) -> None:
        """Do what the core asked, now that the changes before it are durable."""
        cluster = self.cluster
        mail: dict[int, list[bytes]] = {}
        """Each connection's frames, written in one piece (a mover's `ok` with its `moved`)."""
        for output in outputs:
            if isinstance(output, SendMessage):
                frame = output.frame or encode(output.message)
                to = output.to if cluster is None else cluster.relay(output.to, frame)
                if to:
                    framed = websocket_frame(frame)
                    for conn in to:
                        if conn in self._attached:
                            self._attached[conn].from_core(frame)
                        elif conn in mail:
                            mail[conn].append(framed)
                        else:
                            mail[conn] = [framed]
            elif isinstance(output, Close):
                before = mail.pop(output.conn, None)  # the frames before the close go out first
                if before is not None:
                    self._post({output.conn: before})
                if cluster is None or not cluster.close(output.conn, output.code, output.reason):
                    self.close(output.conn, output.code, output.reason)
            elif isinstance(output, BotTurn):
                self.bots.spawn(output.game_id, asyncio.create_task(self._bot_turn(output)))
            elif isinstance(output, BotsDone):
                self._in_background(self.bots.release(output.game_id))
            elif isinstance(output, Forward) and cluster is not None:
                cluster.forward(output)
            elif isinstance(output, Listed) and cluster is not None:
                cluster.listed(output.game)
            elif isinstance(output, CheckKey | MakeKey):
                self._in_background(self._account_work(output))
            elif isinstance(output, AnalysisJob):
                self.analyses.add(output)
        self._post(mail)

    async def _account_work(self, work: CheckKey | MakeKey) -> None:
        """A key checked, or made and stored, on a worker thread: scrypt is slow on purpose,
        and the event loop serves everyone else meanwhile."""
        loop = asyncio.get_running_loop()
        try:
            if isinstance(work, CheckKey):
                key = work.hello.key or ""
                matches = await loop.run_in_executor(None, key_matches, key, work.account.key_hash)
                self.core.key_checked(work, matches)
            else:
                made = await loop.run_in_executor(None, self._make_key, work)
                self.core.key_made(work, made)
        except StoreError as exc:
            log.warning("account %r: %s", work.account.name, exc)
            command_id = work.hello.id if isinstance(work, CheckKey) else work.command_id
            self.core.key_failed(work.conn, command_id, "the account could not be stored")
        self._flush()

    def _make_key(self, work: MakeKey) -> str | None:
        """A new key, its hash stored as a new account's or the account's new one (on a worker
        thread); None if the name was claimed first."""
        key = new_key()
        account = dataclasses.replace(work.account, key_hash=hash_key(key))
        if not work.new:
            self.database.set_key(account.canonical, account.key_hash)
        elif not self.database.create_account(account):
            return None
        return key

    def _post(self, mail: dict[int, list[bytes]]) -> None:
        """Write each connection its framed messages, in one write."""
        outboxes = self._outboxes
        for conn, frames in mail.items():
            outbox = outboxes.get(conn)
            if outbox is not None:
                outbox.send(frames[0] if len(frames) == 1 else b"".join(frames))

    async def _bot_turn(self, turn: BotTurn) -> None:
        def accept(move: str, info: BotInfo | None) -> bool:
            accepted = self.core.bot_moved(turn, move, info)
            self._flush()
            return accepted

        try:
            room = self.core.rooms.get(turn.game_id)
            why = await self.bots.play(turn, accept, room.creator_ip if room else None)
        except Exception as exc:  # a bug in the driver must not leave the game hanging
            log.exception("bot turn in game %s failed", turn.game_id)
            why = f"internal error: {exc!r}"
        if why is not None:
            self.core.bot_failed(turn, why)
            self._flush()

    def _analysed(self, game_id: str, analysis: GameAnalysis) -> None:
        self.core.analysed(game_id, analysis)
        self._flush()

    def _analysis_failed(self, game_id: str, why: str) -> None:
        self.core.analysis_failed(game_id, why)
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
                # Not `wait_for`: on Python 3.11 it can swallow the cancel that stops the timer.
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            try:
                self.core.tick()
            except Exception:  # keep the clocks running for every other game
                log.exception("error while expiring games")
            self._flush()
