"""The server's edge below the WebSocket: the file descriptors it may use, the connections it
accepts (counted and refused at the door, before any handshake), the PROXY protocol header a
trusted proxy sends first, and the accept errors asyncio reports. The decisions are the door's
(server/door.py) and the header's reader's (server/proxy_header.py); this module holds the
sockets."""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
from collections.abc import Callable
from typing import Any, ClassVar, cast

from websockets.asyncio.server import ServerConnection

from ubao.server.door import Door, Networks, Throttle, address_group
from ubao.server.proxy_header import ProxyHeaderError, read_proxy_header

log = logging.getLogger("ubao.server")

ACCEPT_ERROR = "socket.accept() out of system resource"
"""What asyncio's accept loop reports when descriptors (or memory) run out: once per
attempt, up to the listening backlog's length each time the socket is ready."""

ACCEPT_ERRORS_EVERY_MS = 10_000
"""At most one log line per this long for those."""

REFUSAL = (
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: {length}\r\nConnection: close\r\n\r\n{text}"
)


def raise_descriptor_limit() -> tuple[int, int]:
    """Raise the soft limit on open files to the hard one (a process is often given 1,024,
    under a hard limit hundreds of times larger): the soft limit before and after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft == hard:
        return soft, soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        return soft, soft
    return soft, hard


def descriptor_limit() -> int:
    """The soft limit on open files now."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Edge:
    """The door's I/O for one listening server: what `serve` makes its connections with."""

    def __init__(self, door: Door, proxies: Networks, header_timeout_s: float) -> None:
        self.door = door
        self.proxies = proxies
        self.header_timeout_s = header_timeout_s
        self.accept_errors = Throttle(ACCEPT_ERRORS_EVERY_MS)

    def connection_class(self) -> type[ServerConnection]:
        """`EdgeConnection` bound to this edge (websockets takes a class, not a factory)."""
        return cast(
            type[ServerConnection], type("EdgeConnection", (EdgeConnection,), {"edge": self})
        )

    def quiet_accept_errors(
        self, loop: asyncio.AbstractEventLoop, now: Callable[[], int]
    ) -> Callable[[], None]:
        """Log asyncio's accept errors through the throttle; the function that undoes it."""
        previous = loop.get_exception_handler()

        def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            if stale_accept_retry(context):
                log.debug("a retry to accept after the listening socket closed: %s", context)
                return
            if context.get("message") != ACCEPT_ERROR:
                if previous is not None:
                    previous(loop, context)
                else:
                    loop.default_exception_handler(context)
                return
            unsaid = self.accept_errors.say(now())
            if unsaid is not None:
                more = f" ({unsaid} more since the last line)" if unsaid else ""
                log.error("cannot accept a connection: %s%s", context.get("exception"), more)

        loop.set_exception_handler(handle)
        return lambda: loop.set_exception_handler(previous)


def stale_accept_retry(context: dict[str, Any]) -> bool:
    """Whether asyncio's retry to accept, which its accept loop schedules a second after running
    out of descriptors, found the listening socket closed meanwhile (the server stopping): it
    fails then on the socket's descriptor, -1, with nothing lost."""
    handle = context.get("handle")
    callback = getattr(handle, "_callback", None)
    arguments = getattr(handle, "_args", None) or ()
    return (
        getattr(callback, "__name__", None) == "_start_serving"
        and isinstance(context.get("exception"), ValueError)
        and any(isinstance(given, socket.socket) and given.fileno() == -1 for given in arguments)
    )


class EdgeConnection(ServerConnection):
    """A connection as accepted: counted at the door, refused there with a short HTTP 503, and
    from a trusted proxy its PROXY header read first. websockets hears of it (its handshake's
    timeout starts) only once it is admitted, from its client's address."""

    edge: ClassVar[Edge]

    _counted = False
    _admitted = False
    _group: str | None = None
    _client: Any = None
    _raw: asyncio.Transport | None = None
    _header = b""
    _header_timer: asyncio.TimerHandle | None = None

    @property
    def remote_address(self) -> Any:
        """The client's address: the one its proxy said, or the socket's peer."""
        return self._client

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        raw = cast(asyncio.Transport, transport)
        self._raw = raw
        why = self.edge.door.arrive()
        if why is not None:
            _refuse(raw, why)
            return
        self._counted = True
        peer = raw.get_extra_info("peername")
        if peer and str(peer[0]) in self.edge.proxies:
            loop = asyncio.get_running_loop()
            self._header_timer = loop.call_later(self.edge.header_timeout_s, raw.abort)
            return
        self._admit(peer)

    def _admit(self, client: Any) -> None:
        raw = self._raw
        assert raw is not None
        group = address_group(str(client[0])) if client else "unknown"
        why = self.edge.door.place(group)
        if why is not None:
            _refuse(raw, why)
            return
        self._group, self._client, self._admitted = group, client, True
        super().connection_made(raw)

    def data_received(self, data: bytes) -> None:
        if self._admitted:
            super().data_received(data)
        elif self._header_timer is not None:
            self._read_header(data)

    def _read_header(self, data: bytes) -> None:
        raw = self._raw
        assert raw is not None and self._header_timer is not None
        self._header += data
        try:
            header = read_proxy_header(self._header)
        except ProxyHeaderError as exc:
            log.warning("%s from %s: cut", exc, raw.get_extra_info("peername"))
            self._header_timer.cancel()
            self._header_timer = None
            raw.abort()
            return
        if header is None:
            return
        self._header_timer.cancel()
        self._header_timer = None
        rest = self._header[header.length :]
        self._header = b""
        self._admit(header.client or raw.get_extra_info("peername"))
        if self._admitted and rest:
            super().data_received(rest)

    def eof_received(self) -> None:
        if self._admitted:
            super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        if self._counted:
            self._counted = False
            self.edge.door.leave(self._group)
        if self._admitted:
            super().connection_lost(exc)

    def pause_writing(self) -> None:
        if self._admitted:
            super().pause_writing()

    def resume_writing(self) -> None:
        if self._admitted:
            super().resume_writing()


def _refuse(transport: asyncio.Transport, why: str) -> None:
    """Say why in a plain HTTP 503 and close: the descriptor is free again at once."""
    text = why + "\n"
    response = REFUSAL.format(length=len(text.encode()), text=text)
    transport.write(response.encode())
    transport.close()
