"""A protocol session that survives dropped connections.

`ServerSession.run()` connects (to the first of its servers that answers: several are a cluster's
nodes, any of which serves any game, docs/cluster.md), says `hello`, calls the owner's
`on_ready` (which resumes its seat or watches its game again, with the last version it saw),
then passes every game event to `on_event` (and `lobby` events, after a `games` with
`subscribe`, to `on_lobby`) until the connection drops; then it waits (exponential backoff with
jitter) and starts over, with the next server of its list. Commands go through `request`, which
assigns the id, waits for the `ok` or `error` with that id, and paces every command within the
server's message budget (a token bucket, so that a bot moving as fast as its turns allow is not
closed for flooding). While connected, it pings the server every few seconds (app-level `ping`)
to measure the round trip, which screens show and use to correct their clocks. Every frame is
built and read by `protocol/`: nothing here knows msgpack.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
import random
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from ubao.client.lag import Lag
from ubao.client.tokens import SeatToken, TokenStore
from ubao.protocol import (
    PROTOCOL_VERSION,
    Analyse,
    AnalysisEvent,
    AppCloseCode,
    Command,
    Error,
    ErrorCode,
    Event,
    GameAnalysis,
    GameSummary,
    Hello,
    Join,
    Lobby,
    Ok,
    Ping,
    ProtocolError,
    RematchOffer,
    Resume,
    Role,
    Snapshot,
    TournamentEvent,
    TournamentView,
    Watch,
    decode_server_message,
    encode,
    escape,
)
from ubao.protocol.timing import monotonic_ms

DEFAULT_SERVER = "ws://127.0.0.1:8765/"
log = logging.getLogger(__name__)


def servers(url: str) -> list[str]:
    """The servers of a `--server` value: one URL, or several separated by commas (a
    cluster's nodes), tried in turn."""
    return [part.strip() for part in url.split(",") if part.strip()] or [url]


class ServerError(Exception):
    """The server refused a command: `code` is the protocol's error code, the message human."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message


class Disconnected(Exception):
    """The connection dropped before the command was answered; it may or may not have run."""


class SessionClosed(Exception):
    """The session ended for good: closed by its owner, or by the server for a reason that
    reconnecting cannot mend (seat taken over, unsupported version)."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """Delays between reconnection attempts: doubling from `first` up to `limit`, each varied
    by up to `jitter` of itself so that many clients dropped together do not return together."""

    first: float = 0.5
    limit: float = 10.0
    jitter: float = 0.25

    def delay(self, attempt: int) -> float:
        base: float = min(self.first * 2.0**attempt, self.limit)
        return base * (1 + random.uniform(-self.jitter, self.jitter))


DEFAULT_BACKOFF = Backoff()


@dataclass(frozen=True, slots=True)
class Budget:
    """How many commands a client sends at once (`burst`) and per second after that. The
    defaults keep to half the burst and three quarters of the rate of a default server's budget
    (60, then 20 a second, docs/server.md): what is left over absorbs frames that the network
    or a busy server bunches together."""

    burst: int = 30
    per_second: float = 15.0


DEFAULT_BUDGET = Budget()


class Pacer:
    """A token bucket over a `Budget`: `take` waits until a command fits in it. After a
    `rate_limited` reply the server's budget is smaller than thought: the pacer halves its own
    and starts empty, so that the reconnected session keeps within it."""

    def __init__(self, budget: Budget) -> None:
        self.burst = float(budget.burst)
        self.per_second = budget.per_second
        self.tokens = self.burst
        self._last = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self._last) * self.per_second)
        self._last = now

    async def take(self) -> None:
        """Spend one command of the budget, waiting for it if it is spent."""
        self._refill()
        while self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / self.per_second)
            self._refill()
        self.tokens -= 1

    def back_off(self) -> None:
        self._refill()
        self.burst = max(self.burst / 2, 1.0)
        self.per_second /= 2
        self.tokens = 0.0


FATAL_CLOSE_CODES: dict[int, str] = {
    AppCloseCode.SEAT_TAKEN_OVER: "another connection took over this seat",
    AppCloseCode.UNSUPPORTED_VERSION: "the server does not speak this protocol version",
}
"""Close codes after which reconnecting would only repeat the failure."""

CONNECT_OPTIONS: dict[str, Any] = {"max_size": 1 << 22, "compression": None, "open_timeout": 10}
"""Snapshots of long games are the largest frames a client receives; no compression, as the
server has none."""

FIRST_ATTEMPTS = 5
"""Attempts to reach a server never reached yet before giving up (about 8 s with the default
backoff): a wrong address or a server not running is said, not retried for ever."""

MAX_REASON = 200
"""Most characters of a close reason or a network error that a status line shows: they come
from the server or the network, unchecked by the protocol, so they are escaped and cut."""

PING_SECONDS = 5.0
"""Between two app-level pings while connected."""

EventHandler = Callable[[Event], None]
StateHandler = Callable[[str], None]
ReadyHandler = Callable[[], Awaitable[None]]
LagHandler = Callable[[float], None]
"""Called with the smoothed round-trip time in milliseconds after every ping."""
LobbyHandler = Callable[[GameSummary], None]
"""Called with a game's summary on every `lobby` event (after a `games` with `subscribe`)."""
RematchHandler = Callable[[RematchOffer], None]
TournamentHandler = Callable[[TournamentView], None]
"""Called on every `rematch_offer` (they belong to no game's versions)."""
AnalysisHandler = Callable[[AnalysisEvent], None]
"""Called on every `analysis` event (a finished game's analysis made, or failed)."""


def describe_close(reason: str | None) -> str:
    """A connection that ended, in words: the server's reason if it gave one."""
    if not reason:
        return "connection lost"
    return f"the server closed the connection ({escape(reason, MAX_REASON)})"


def describe_failure(error: BaseException) -> str:
    """Why a connection could not be opened, in words a player reads rather than the socket
    error (which goes to the log)."""
    if isinstance(error, ConnectionRefusedError) or "Connect call failed" in str(error):
        return "server unreachable"  # (with several addresses, asyncio words it so)
    if isinstance(error, socket.gaierror):
        return "server address unknown"
    if isinstance(error, TimeoutError):
        return "server not answering"
    if isinstance(error, InvalidHandshake):
        return f"not a ubao server ({escape(str(error) or type(error).__name__, MAX_REASON)})"
    if isinstance(error, ConnectionError):
        return "connection lost"
    return f"network error ({escape(str(error) or type(error).__name__, MAX_REASON)})"


class ServerSession:
    """One client's protocol session with a server, reconnected whenever it drops."""

    def __init__(
        self,
        url: str,
        name: str,
        role: Role,
        *,
        on_event: EventHandler,
        on_ready: ReadyHandler | None = None,
        on_state: StateHandler | None = None,
        on_lag: LagHandler | None = None,
        on_lobby: LobbyHandler | None = None,
        on_rematch: RematchHandler | None = None,
        on_tournament: TournamentHandler | None = None,
        on_analysis: AnalysisHandler | None = None,
        backoff: Backoff = DEFAULT_BACKOFF,
        ping_seconds: float = PING_SECONDS,
        first_attempts: int = FIRST_ATTEMPTS,
        budget: Budget = DEFAULT_BUDGET,
        key: str | None = None,
    ) -> None:
        self.url = url
        """As given (one URL or several, comma separated): the key of the seat tokens."""
        self.servers = servers(url)
        self.server = self.servers[0]
        """The server connected to, or tried next."""
        self.name = name
        self.role: Role = role
        self.key = key
        """The key of `name`'s account, said in every `hello` (None: a guest)."""
        self.account = False
        """The server took `key` (the last `hello`'s `ok`): this session plays as the account."""
        self.on_event = on_event
        self.on_ready = on_ready
        self.on_state = on_state or (lambda text: None)
        self.on_lag = on_lag or (lambda rtt_ms: None)
        self.on_lobby = on_lobby or (lambda summary: None)
        self.on_rematch = on_rematch or (lambda offer: None)
        self.on_tournament = on_tournament or (lambda view: None)
        """A tournament subscribed to changed (`tournament_show` with `subscribe`)."""
        self.on_analysis = on_analysis or (lambda event: None)
        self.backoff = backoff
        self.ping_seconds = ping_seconds
        self.first_attempts = first_attempts
        self.reached = False
        self.engines: tuple[str, ...] = ()
        """The server's engine bots, which a bot seat may ask for (`hello`'s `ok`)."""
        """A connection was established once: from then on, dropped ones are retried forever."""
        self.lag = Lag()
        """The round trip to the server, from the pings."""
        self.pacer = Pacer(budget)
        """Every command waits for its turn here, across reconnections."""
        self.connected = asyncio.Event()
        """Set while a connection is open and `hello` (and `on_ready`) succeeded."""
        self.reconnects = 0
        """How many established connections were lost (and then opened again)."""
        self._ws: ClientConnection | None = None
        self._pending: dict[int, asyncio.Future[Ok]] = {}
        self._next_id = 1
        self._closing = False

    @property
    def closing(self) -> bool:
        """`close()` was called: the session is ending by its owner's wish."""
        return self._closing

    async def run(self) -> None:
        """Connect and reconnect until `close()`; raises SessionClosed when the session ends."""
        attempt = 0
        at = 0
        while not self._closing:
            self.server = self.servers[at % len(self.servers)]
            at += 1  # the next attempt, after a drop or a failure, tries the next server
            self.on_state("connecting")
            try:
                async with connect(self.server, **CONNECT_OPTIONS) as ws:
                    attempt = 0
                    with contextlib.suppress(ConnectionClosed, Disconnected):
                        await self._serve(ws)
                    reason = describe_close(ws.close_reason)
                    fatal = FATAL_CLOSE_CODES.get(ws.close_code or 0)
                    if fatal is not None:
                        raise SessionClosed(fatal)
                    self.reconnects += 1
            except ServerError as error:
                # Refused while coming back (hello, resume): for good, unless only too fast,
                # after which the server closes and a slower session may come back.
                if error.code != ErrorCode.RATE_LIMITED:
                    raise SessionClosed(error.message) from None
                reason = "too fast for the server"
            except InvalidURI as error:
                address = escape(str(error), MAX_REASON)
                raise SessionClosed(f"bad server address: {address}") from None
            except (OSError, TimeoutError, InvalidHandshake) as error:
                log.info("cannot connect to %s: %s", self.server, error)
                reason = describe_failure(error)
            finally:
                self._ws = None
                self.connected.clear()
                self._fail_pending()
            if self._closing:
                break
            if not self.reached and attempt + 1 >= max(self.first_attempts, len(self.servers)):
                raise SessionClosed(f"cannot reach {self.url}: {reason}")
            delay = self.backoff.delay(attempt)
            attempt += 1
            self.on_state(f"{reason}; reconnecting in {math.ceil(delay)} s")
            await asyncio.sleep(delay)
        raise SessionClosed("closed")

    async def _serve(self, ws: ClientConnection) -> None:
        """Say hello, let the owner resume, then read until the connection ends."""
        self._ws = ws
        reader = asyncio.create_task(self._read(ws))
        pinger: asyncio.Task[None] | None = None
        try:
            hello = Hello(
                id=0, proto=PROTOCOL_VERSION, name=self.name, role=self.role, key=self.key
            )
            welcome = await self.request(hello)
            self.engines, self.account = welcome.engines or (), welcome.account
            self.reached = True
            if self.on_ready is not None:
                await self.on_ready()
            self.connected.set()
            self.on_state("connected")
            pinger = asyncio.create_task(self._ping())
            await reader
        finally:
            for task in (reader, pinger):
                if task is not None:
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)

    async def _ping(self) -> None:
        """Measure the round trip now and every `ping_seconds`, until the connection ends."""
        with contextlib.suppress(Disconnected, ServerError):
            while True:
                ok = await self.request(Ping(id=0, t=monotonic_ms()))
                if ok.t is not None:
                    self.on_lag(self.lag.observe(ok.t, monotonic_ms()))
                await asyncio.sleep(self.ping_seconds)

    async def _read(self, ws: ClientConnection) -> None:
        """Route every frame: replies to their waiting command, events to the owner."""
        try:
            await self._route(ws)
        finally:
            # Commands still waiting can never be answered on this connection.
            self._fail_pending()

    async def _route(self, ws: ClientConnection) -> None:
        async for frame in ws:
            try:
                message = decode_server_message(frame)
            except ProtocolError as error:
                log.warning("ignoring a frame the protocol does not allow: %s", error)
                continue
            if isinstance(message, Ok | Error):
                self._answer(message)
            elif isinstance(message, Lobby):
                self.on_lobby(message.game)
            elif isinstance(message, RematchOffer):
                self.on_rematch(message)
            elif isinstance(message, TournamentEvent):
                self.on_tournament(message.tournament)
            elif isinstance(message, AnalysisEvent):
                self.on_analysis(message)
            else:
                self.on_event(message)

    def _answer(self, reply: Ok | Error) -> None:
        if isinstance(reply, Error) and reply.code == ErrorCode.RATE_LIMITED:
            self.pacer.back_off()
            self.on_state(f"too fast for the server: slowing to {self.pacer.per_second:g}/s")
        future = self._pending.pop(reply.id, None) if reply.id is not None else None
        if future is None or future.done():
            if isinstance(reply, Error):
                self.on_state(f"server: {reply.message}")
            return
        if isinstance(reply, Error):
            future.set_exception(ServerError(reply.code, reply.message))
        else:
            future.set_result(reply)

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(Disconnected("the connection dropped"))
        self._pending.clear()

    async def request(self, command: Command) -> Ok:
        """Send `command` (its `id` is replaced by a fresh one) and wait for its `ok`.

        Raises ServerError for an `error` reply, Disconnected if no connection is open or it
        drops before the reply.
        """
        await self.pacer.take()
        ws = self._ws
        if ws is None:
            raise Disconnected("not connected")
        command_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[Ok] = asyncio.get_running_loop().create_future()
        self._pending[command_id] = future
        try:
            await ws.send(encode(dataclasses.replace(command, id=command_id)))
        except ConnectionClosed:
            self._pending.pop(command_id, None)
            raise Disconnected("the connection dropped") from None
        return await future

    async def close(self) -> None:
        """End the session: no more reconnects; `run()` returns with SessionClosed."""
        self._closing = True
        if self._ws is not None:
            await self._ws.close()


async def take_seat(
    session: ServerSession,
    tokens: TokenStore,
    game_id: str,
    *,
    seat: int | None,
    held: SeatToken | None,
    since_v: int,
) -> SeatToken:
    """Come back to the seat held (or stored under this player's name) for `game_id`, else join
    one and store its token.

    A stored token is only ever this name's own (another name's seat is never resumed, even
    from the same file), and it is passed over when `seat` asks for the other seat. A stored
    token the server no longer knows (`not_your_seat`) is forgotten and a seat joined.
    """
    name = session.name
    held = held or tokens.get(session.url, game_id, name)
    if held is not None and seat in (None, held.seat):
        try:
            await session.request(Resume(id=0, game_id=game_id, token=held.token, since_v=since_v))
        except ServerError as error:
            if error.code != ErrorCode.NOT_YOUR_SEAT:
                raise
            tokens.remove(session.url, game_id, name)
        else:
            return held
    ok = await session.request(Join(id=0, game_id=game_id, seat=seat))
    assert ok.seat is not None and ok.token is not None
    held = SeatToken(ok.seat, ok.token)
    tokens.put(session.url, game_id, name, held)
    return held


async def _exchange(ws: ClientConnection, command: Command, command_id: int) -> Ok:
    """Send one command and read until its reply; events before it are dropped."""
    await ws.send(encode(dataclasses.replace(command, id=command_id)))
    while True:
        reply = decode_server_message(await ws.recv())
        if isinstance(reply, Error) and reply.id == command_id:
            raise ServerError(reply.code, reply.message)
        if isinstance(reply, Ok) and reply.id == command_id:
            return reply


@contextlib.asynccontextmanager
async def connect_first(url: str) -> AsyncIterator[ClientConnection]:
    """A connection to the first of the servers of `url` that answers; the last one's
    error if none does."""
    urls = servers(url)
    for index, server in enumerate(urls):
        try:
            ws = await connect(server, **CONNECT_OPTIONS)
        except (OSError, TimeoutError, InvalidHandshake):
            if index + 1 == len(urls):
                raise
            continue
        async with ws:
            yield ws
        return


async def request_once(
    url: str, name: str, role: Role, command: Command, key: str | None = None
) -> Ok:
    """Connect, say hello (with the key of `name`'s account, if given), send one command and
    return its `ok` (for `ubao games`, `ubao account`)."""
    async with connect_first(url) as ws:
        await _exchange(ws, Hello(id=0, proto=PROTOCOL_VERSION, name=name, role=role, key=key), 1)
        return await _exchange(ws, command, 2)


async def hello_once(url: str, name: str, role: Role, key: str | None) -> Ok:
    """Connect and say hello: the server's `ok` (whether it took the key: `account`)."""
    async with connect_first(url) as ws:
        return await _exchange(
            ws, Hello(id=0, proto=PROTOCOL_VERSION, name=name, role=role, key=key), 1
        )


async def fetch_snapshot(url: str, name: str, game_id: str, key: str | None = None) -> Snapshot:
    """Watch `game_id` just long enough to receive its snapshot (for `ubao export`)."""
    async with connect_first(url) as ws:
        hello = Hello(id=0, proto=PROTOCOL_VERSION, name=name, role="spectator", key=key)
        await _exchange(ws, hello, 1)
        await _exchange(ws, Watch(id=0, game_id=game_id), 2)
        while True:
            message = decode_server_message(await ws.recv())
            if isinstance(message, Snapshot) and message.game_id == game_id:
                return message


async def fetch_analysis(
    url: str,
    name: str,
    game_id: str,
    key: str | None = None,
    queued: Callable[[int], None] | None = None,
) -> GameAnalysis:
    """The server's analysis of finished game `game_id` (`analyse`): the stored one, or, once
    made, the one queued (`queued` is told how many are ahead). ServerError if the server
    refuses or the analysis fails."""
    async with connect_first(url) as ws:
        hello = Hello(id=0, proto=PROTOCOL_VERSION, name=name, role="spectator", key=key)
        await _exchange(ws, hello, 1)
        ok = await _exchange(ws, Analyse(id=0, game_id=game_id), 2)
        if ok.analysis is not None:
            return ok.analysis
        if queued is not None:
            queued(ok.queued or 0)
        while True:
            message = decode_server_message(await ws.recv())
            if isinstance(message, AnalysisEvent) and message.game_id == game_id:
                if message.analysis is None:
                    raise ServerError("analysis_failed", message.message or "the analysis failed")
                return message.analysis
