"""The server's listener holds a burst of connections while its event loop is busy: clients that
connect all at once (a load test's set-up, every client reconnecting after a restart) wait in the
kernel's queue for the loop to accept them, instead of being dropped and coming back by TCP
retransmission seconds later, after their opening handshake's time is up (docs/benchmarks.md,
"The event loop")."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from tests.support.server import running_server

BURST = 300
"""Connections at once: three times asyncio's default backlog of 100."""


def somaxconn() -> int:
    """The kernel's cap on a listener's backlog (Linux), or 0 where it cannot be read."""
    try:
        return int(Path("/proc/sys/net/core/somaxconn").read_text())
    except (OSError, ValueError):
        return 0


def connected(sock: socket.socket) -> bool:
    try:
        sock.getpeername()
    except OSError:  # the handshake is still in progress: the kernel dropped its SYN
        return False
    return True


@pytest.mark.skipif(somaxconn() < BURST, reason="the kernel caps listen backlogs below the burst")
async def test_a_burst_of_connections_waits_for_a_busy_event_loop() -> None:
    async with running_server() as server:
        address = ("127.0.0.1", server.port)
        sockets = [socket.socket() for _ in range(BURST)]
        try:
            # No await until they are counted: the server's event loop accepts none of them.
            for sock in sockets:
                sock.setblocking(False)
                sock.connect_ex(address)
            time.sleep(0.5)  # the kernel answers a SYN at once, or drops it if its queue is full
            established = sum(connected(sock) for sock in sockets)
        finally:
            for sock in sockets:
                sock.close()
    assert established == BURST
