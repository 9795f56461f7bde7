"""The KGP endpoint's asyncio edge: agents over TCP (`--kgp-port`) and over WebSocket (`/kgp`
on the main port), each a `KgpSession` speaking to the core as a client of its own.

It carries lines both ways, feeds the core the session's commands on the session's connection
and the session the core's messages for it, wakes the session at its deadline, and remembers
which seat each `auth:token` holds, so that an agent that reconnects with it resumes its game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from ubao.engine.protocols.kgp import MAX_LINE
from ubao.protocol import ProtocolError, decode_server_message, encode
from ubao.protocol.timing import monotonic_ms
from ubao.server.kgp_effects import (
    CloseAgent,
    HeldSeat,
    Invite,
    SeatHeld,
    SendCommand,
    SendLine,
    Wait,
)
from ubao.server.kgp_gateway import KgpSession
from ubao.server.kgp_settings import KgpSettings

if TYPE_CHECKING:
    from ubao.server.app import GameServer

log = logging.getLogger("ubao.server.kgp")

WS_PATH = "/kgp"
"""The path of the main port where agents connect over WebSocket."""


class KgpAgent:
    """One agent's connection: its session, its core connection, its writer and its timer."""

    def __init__(
        self,
        gateway: KgpGateway,
        ip: str,
        write: Callable[[str], None],
        close: Callable[[], None],
    ) -> None:
        self.gateway = gateway
        self.server = gateway.server
        self.write = write
        self.close_transport = close
        self.conn = self.server.core.connect(ip)
        self.session = KgpSession(
            gateway.settings,
            monotonic_ms(),
            rng=gateway.rng,
            held_seat=gateway.seats.get,
            game_uri=gateway.game_uri,
            command_budget=(self.server.config.limits.burst, self.server.config.limits.per_second),
        )
        self.timer: asyncio.TimerHandle | None = None
        self.closed = False
        """No more lines go out (the session or the core closed it)."""
        self.detached = False
        self.server.attach(self.conn, self)
        self.run()

    def line(self, text: str) -> None:
        self.session.on_line(text, monotonic_ms())
        self.run()

    def from_core(self, frame: bytes) -> None:
        try:
            message = decode_server_message(frame)
        except ProtocolError:  # not for a client: nothing the agent needs
            return
        self.session.on_message(message, monotonic_ms())
        self.run()

    def wake(self) -> None:
        self.timer = None
        self.session.on_time(monotonic_ms())
        self.run()

    def run(self) -> None:
        """Carry out what the session asked, then set its timer."""
        core_touched = False
        for effect in self.session.take():
            if isinstance(effect, SendLine):
                if not self.closed:
                    self.write(effect.line)
            elif isinstance(effect, SendCommand):
                self.server.core.receive(self.conn, encode(effect.command))
                core_touched = True
            elif isinstance(effect, SeatHeld):
                self.gateway.hold(effect.auth, effect.seat)
            elif isinstance(effect, Wait):
                self.gateway.wait(self, effect.waiting)
            elif isinstance(effect, Invite):
                self.gateway.invite(self, effect)
            elif isinstance(effect, CloseAgent):
                self.closed = True
                self.close_transport()
        if core_touched:
            self.server.flush()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        deadline = self.session.deadline()
        if deadline is not None and not self.closed:
            delay = max(0, deadline - monotonic_ms()) / 1000
            self.timer = asyncio.get_running_loop().call_later(delay, self.wake)

    def closed_by_core(self, reason: str) -> None:
        """The core closed the connection (its seat taken over by the agent's new one)."""
        if not self.closed:
            self.write(f'error "{reason}"')
            self.write("goodbye")
            self.closed = True
            self.close_transport()

    def closed_by_peer(self) -> None:
        """The connection ended: the seat is held for the grace period, as anybody's."""
        if self.timer is not None:
            self.timer.cancel()
        if self.detached:
            return
        self.detached = True
        self.closed = True
        self.session.on_closed()
        self.gateway.wait(self, False)
        self.server.detach(self.conn)
        self.server.core.disconnect(self.conn)
        self.server.flush()


class KgpGateway:
    """The endpoint: the TCP listener, the WebSocket path's handler, the held seats."""

    def __init__(self, server: GameServer, settings: KgpSettings, public_url: str) -> None:
        self.server = server
        self.settings = settings
        self.public_url = public_url
        self.rng = random.Random()
        self.seats: dict[str, HeldSeat] = {}
        """The seat each `auth:token` holds in a game not over."""
        self.listener: asyncio.Server | None = None
        self.agents: set[KgpAgent] = set()
        self.waiting: list[KgpAgent] = []
        """Agents waiting for another, longest first."""
        self.guests: dict[KgpAgent, KgpAgent] = {}
        """Each agent that hosts a game for two, and the agent it is for."""

    def wait(self, agent: KgpAgent, waiting: bool) -> None:
        """Pair a waiting agent with the one that waited longest (not under the same
        `auth:token`, as go-kgp); the newcomer hosts the game."""
        if agent in self.waiting:
            self.waiting.remove(agent)
        self.guests.pop(agent, None)
        if not waiting:
            return
        auth = agent.session.auth
        partner = next((a for a in self.waiting if not auth or a.session.auth != auth), None)
        if partner is None:
            self.waiting.append(agent)
            return
        self.waiting.remove(partner)
        self.guests[agent] = partner
        agent.session.host(monotonic_ms())
        agent.run()

    def invite(self, host: KgpAgent, invite: Invite) -> None:
        guest = self.guests.pop(host, None)
        if guest is not None and not guest.closed:
            guest.session.invited(invite.game_id, invite.seat, monotonic_ms())
            guest.run()
        # a guest gone meanwhile: the open seat asks for a bot client, the next agent takes it

    def game_uri(self, game_id: str) -> str:
        """Where a game can be watched: the server's address, the game after `#`."""
        return f"{self.public_url}#{game_id}"

    def hold(self, auth: str, seat: HeldSeat | None) -> None:
        if seat is None:
            self.seats.pop(auth, None)
        else:
            self.seats[auth] = seat

    @property
    def port(self) -> int | None:
        if self.listener is None:
            return None
        port: int = self.listener.sockets[0].getsockname()[1]
        return port

    async def start(self, host: str) -> None:
        if self.settings.port >= 0:
            self.listener = await asyncio.start_server(
                self.serve_tcp, host, self.settings.port, limit=MAX_LINE + 2
            )
            log.info("KGP agents: tcp://%s:%d and %s", host, self.port, WS_PATH)

    async def stop(self) -> None:
        if self.listener is not None:
            self.listener.close()
        for agent in list(self.agents):
            agent.closed_by_core("the server is shutting down")
        if self.listener is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):
                    await self.listener.wait_closed()

    async def serve_tcp(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        ip = str(peer[0]) if peer else "unknown"

        def write(line: str) -> None:
            writer.write(line.encode() + b"\r\n")

        await self._serve(ip, write, writer.close, lambda: _read_line(reader))
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()

    async def serve_websocket(self, ws: ServerConnection) -> None:
        """An agent on the main port's `/kgp`: each text message is one line or more; each
        line sent is a message of its own, in order (one writer)."""
        address = ws.remote_address
        ip = str(address[0]) if address else "unknown"
        ws.protocol.max_message_size = 4 * MAX_LINE  # a 16 KB line (the main port's are small)
        pending: list[str] = []
        outgoing: asyncio.Queue[str | None] = asyncio.Queue()

        async def send_all() -> None:
            with contextlib.suppress(ConnectionClosed):
                while (line := await outgoing.get()) is not None:
                    await ws.send(line + "\r\n")
                await ws.close()

        async def read() -> str | None:
            while not pending:
                try:
                    data = await ws.recv()
                except ConnectionClosed:
                    return None
                text = data if isinstance(data, str) else data.decode(errors="replace")
                pending.extend(text.splitlines() or [""])
            return pending.pop(0)

        sender = asyncio.create_task(send_all())
        await self._serve(ip, outgoing.put_nowait, lambda: outgoing.put_nowait(None), read)
        outgoing.put_nowait(None)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.server.config.close_timeout_s):
                await sender
        await ws.close()

    async def _serve(
        self,
        ip: str,
        write: Callable[[str], None],
        close: Callable[[], None],
        read: Callable[[], Awaitable[str | None]],
    ) -> None:
        agent = KgpAgent(self, ip, write, close)
        self.agents.add(agent)
        log.info("KGP agent %d connected from %s", agent.conn, ip)
        try:
            while not agent.closed:
                line = await read()
                if line is None:
                    break
                agent.line(line)
        except (ConnectionError, OSError):
            pass
        finally:
            agent.closed_by_peer()
            self.agents.discard(agent)
            log.info("KGP agent %d left", agent.conn)


async def _read_line(reader: asyncio.StreamReader) -> str | None:
    """The next line, without its break; a line longer than MAX_LINE comes as one too long
    (the session answers it with `error`), the rest of it skipped; None at the end."""
    try:
        data = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        return exc.partial.decode(errors="replace") if exc.partial else None
    except asyncio.LimitOverrunError as exc:
        consumed = exc.consumed
        while True:  # drop the long line up to its end
            await reader.readexactly(consumed)
            try:
                await reader.readuntil(b"\n")
                break
            except asyncio.LimitOverrunError as again:
                consumed = again.consumed
            except asyncio.IncompleteReadError:
                return None
        return "x" * (MAX_LINE + 1)
    return data.decode(errors="replace").rstrip("\r\n")
