"""Out of descriptors: connections counted from accept and refused at once beyond the door's
counts, the soft open-files limit raised at start, and asyncio's accept errors logged once in
a while rather than once per attempt."""

from __future__ import annotations

import asyncio
import logging
import re
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.server import TIMEOUT, Client, running_server, small_limits
from ubao.server.door import Door, Networks
from ubao.server.edge import Edge


async def raw_connection(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port)


async def test_plain_connections_beyond_an_address_share_are_refused_at_accept() -> None:
    async with running_server(limits=small_limits(open_per_ip=3)) as server:
        held = [await raw_connection(server.port) for _ in range(3)]  # no handshake at all
        reader, writer = await raw_connection(server.port)
        answer = await asyncio.wait_for(reader.read(), TIMEOUT)
        assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
        assert answer.endswith(b"\r\n\r\ntoo many connections from this address\n")
        writer.close()
        assert server.door.open == 3
        for _, held_writer in held:
            held_writer.close()
        async with asyncio.timeout(TIMEOUT):
            while server.door.open:
                await asyncio.sleep(0.01)
        async with Client.connected(server.port):  # the address may come back
            assert 'ubao_rejected_total{reason="address_full"} 1' in server._metrics()


async def test_connections_beyond_the_total_are_refused_at_accept() -> None:
    async with (
        running_server(limits=small_limits(max_connections=2)) as server,
        Client.connected(server.port),
        Client.connected(server.port, "bob"),
    ):
        reader, writer = await raw_connection(server.port)
        answer = await asyncio.wait_for(reader.read(), TIMEOUT)
        assert answer.endswith(b"the server has too many connections\n")
        writer.close()


def test_out_of_descriptors_the_server_logs_a_line_now_and_then_and_recovers(
    tmp_path: Path,
) -> None:
    """A server started under a soft limit of 64 open files (hard 96) raises it to 96; told to
    take far more connections than that, it runs out of descriptors, logs it once rather than
    for each of the thousands of accepts asyncio tries, and answers again once they close."""

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 96))

    log = tmp_path / "server.log"
    command = [sys.executable, "-m", "ubao.server", "--port", "0", "--db", ":memory:"]
    command += ["--max-connections", "1000", "--open-per-ip", "1000", "--log-level", "info"]
    with log.open("w") as out:
        server = subprocess.Popen(command, stderr=out, preexec_fn=low_limit)
    flood: list[socket.socket] = []
    try:
        port = int(wait_for_line(log, r"listening on ws://127\.0\.0\.1:(\d+)/"))
        assert "open files: limit raised from 64 to 96" in log.read_text()
        for _ in range(200):  # beyond 96: the kernel queues the rest
            flood.append(socket.create_connection(("127.0.0.1", port)))
        time.sleep(2.5)  # asyncio retries every second, up to 2,048 accepts each time
        errors = log.read_text().count("Too many open files")
        assert 1 <= errors <= 2
        for sock in flood:
            sock.close()
        flood.clear()
        assert http_status(port, "/healthz") == 200
    finally:
        for sock in flood:
            sock.close()
        server.terminate()
        server.wait(TIMEOUT)
    assert "Traceback" not in log.read_text()


async def test_a_retry_to_accept_after_the_socket_closed_logs_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Out of descriptors, asyncio retries accepting a second later even if the server closes
    its socket meanwhile; that retry fails on descriptor -1 as the server stops, which is no
    error of ours. Other errors in callbacks still reach the loop's handler."""

    def _start_serving(*arguments: object) -> None:  # named as asyncio's retry
        """Stands for the retry asyncio schedules."""

    loop = asyncio.get_running_loop()
    edge = Edge(Door(10, 10), Networks.parse([]), 1.0)
    heard: list[dict[str, object]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: heard.append(context))
    undo = edge.quiet_accept_errors(loop, lambda: 0)
    listening = socket.socket()
    listening.close()
    retry = loop.call_later(60, _start_serving, None, listening)
    other = loop.call_later(60, print)
    try:
        with caplog.at_level(logging.DEBUG, logger="ubao.server"):
            failure = ValueError("Invalid file descriptor: -1")
            stale = {"message": "Exception in callback", "exception": failure, "handle": retry}
            loop.call_exception_handler(stale)
            assert heard == [] and not [r for r in caplog.records if r.levelno >= logging.WARNING]
            loop.call_exception_handler({"message": "boom", "exception": failure, "handle": other})
            assert [context["message"] for context in heard] == ["boom"]
    finally:
        retry.cancel()
        other.cancel()
        undo()
        loop.set_exception_handler(previous)


def wait_for_line(log: Path, pattern: str) -> str:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text())
        if found:
            return found.group(1)
        time.sleep(0.05)
    raise AssertionError(f"no {pattern!r} in the log:\n{log.read_text()}")


def http_status(port: int, path: str) -> int:
    """The status of a GET, retried while the server is still out of descriptors."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(f"GET {path} HTTP/1.1\r\nHost: ubao\r\n\r\n".encode())
                status = sock.recv(64).split(b" ", 2)[1]
                return int(status)
        except (OSError, IndexError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
