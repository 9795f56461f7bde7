"""Behind a proxy: the PROXY protocol v2 header from a configured proxy names the client, and
the limits count that client, through a real HAProxy running the shipped configuration."""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.support.server import TIMEOUT, Client, running_server, small_limits
from ubao.protocol import PROTOCOL_VERSION, Hello
from ubao.server.app import GameServer
from ubao.server.proxy_header import proxy_header

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def shipped_config_for(server_port: int, port: int) -> str:
    """deploy/haproxy.cfg with one node on this machine instead of Docker's three."""
    text = (ROOT / "deploy" / "haproxy.cfg").read_text()
    text = re.sub(r"\nresolvers docker\n(.+\n)+", "\n", text)
    text = text.replace(" resolvers docker init-addr last,libc,none", "")
    text = text.replace("bind :8765", f"bind 127.0.0.1:{port}")
    text = re.sub(r"    server node-1 .*\n", f"    server node-1 127.0.0.1:{server_port}\n", text)
    text = re.sub(r"    server node-[23] .*\n", "", text)
    assert "send-proxy-v2" in text and "check-send-proxy" in text
    return text


@contextlib.contextmanager
def haproxy(config: str, tmp_path: Path) -> Iterator[None]:
    program = shutil.which("haproxy")
    if program is None:
        pytest.skip("haproxy is not installed (apt-get install haproxy)")
    path = tmp_path / "haproxy.cfg"
    path.write_text(config)
    process = subprocess.Popen(
        [program, "-db", "-f", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        yield
    finally:
        process.terminate()
        process.wait(TIMEOUT)
        assert process.stderr is not None
        process.stderr.close()


@contextlib.asynccontextmanager
async def client_from(port: int, source: str, name: str) -> AsyncIterator[Client]:
    """A client that said hello, connected from the loopback address `source`."""
    async with connect(f"ws://127.0.0.1:{port}/", local_addr=(source, 0)) as ws:
        client = Client(ws)
        await client.ok(Hello(id=0, proto=PROTOCOL_VERSION, name=name, role="human"))
        yield client


async def until_listening(port: int) -> None:
    async with asyncio.timeout(TIMEOUT):
        while True:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            writer.close()
            return


def client_addresses(server: GameServer) -> list[str]:
    return sorted(conn.ip for conn in server.core.conns.values())


async def test_behind_haproxy_each_client_counts_as_its_own_address(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    limits = small_limits(connections_per_ip=2)
    async with running_server(limits=limits, proxies=("127.0.0.1",)) as server:
        port = free_port()
        with haproxy(shipped_config_for(server.port, port), tmp_path):
            await until_listening(port)
            async with (
                client_from(port, "127.0.0.2", "ada"),
                client_from(port, "127.0.0.3", "bob"),
                client_from(port, "127.0.0.4", "cy"),
                client_from(port, "127.0.0.2", "dee"),
            ):
                expected = ["127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.4"]
                assert client_addresses(server) == expected
                # The limits count the clients, not the balancer: a third from one address
                # is one too many, however many others share the proxy.
                async with connect(f"ws://127.0.0.1:{port}/", local_addr=("127.0.0.2", 0)) as ws:
                    with pytest.raises(ConnectionClosed):
                        await asyncio.wait_for(ws.recv(), TIMEOUT)
                    assert ws.close_code == 1008
    assert "PROXY protocol" not in caplog.text  # its health checks sent the header too


async def test_a_configured_proxy_names_the_client_directly() -> None:
    async with running_server(proxies=("127.0.0.0/8",)) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(proxy_header(("2001:db8:5:6::9", 40000), ("127.0.0.1", server.port)))
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: ubao\r\n\r\n")
        status = await asyncio.wait_for(reader.readline(), TIMEOUT)
        assert status.startswith(b"HTTP/1.1 200")
        writer.close()
        async with connect(
            f"ws://127.0.0.1:{server.port}/",
            sock=await proxied_socket(server.port, ("2001:db8:5:6:ffff::1", 1234)),
        ) as ws:
            client = Client(ws)
            await client.ok(Hello(id=0, proto=PROTOCOL_VERSION, name="ada", role="human"))
            assert client_addresses(server) == ["2001:db8:5:6::/64"]


async def proxied_socket(port: int, client: tuple[str, int]) -> socket.socket:
    """A socket to the server that has sent the PROXY header naming `client`."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(proxy_header(client, ("127.0.0.1", port)))
    sock.setblocking(False)
    return sock


async def test_a_configured_proxy_that_sends_no_header_is_cut(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running_server(proxies=("127.0.0.1",)) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: ubao\r\n\r\n")
        assert await asyncio.wait_for(reader.read(), TIMEOUT) == b""
        writer.close()
        assert server.door.open == 0
    assert "no PROXY protocol v2 header" in caplog.text


async def test_a_header_from_anybody_else_is_not_believed() -> None:
    async with running_server(proxies=("192.0.2.1",)) as server:
        sock = await proxied_socket(server.port, ("198.51.100.7", 1))
        with pytest.raises(Exception):  # noqa: B017 (the handshake reads garbage)
            async with connect(f"ws://127.0.0.1:{server.port}/", sock=sock):
                pass
        assert "198.51.100.7" not in client_addresses(server)
