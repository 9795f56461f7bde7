"""The server at its edges: behind a proxy, out of descriptors, against many addresses.

    python benchmarks/edges.py proxy --users 120
    python benchmarks/edges.py descriptors --connections 1100 --seconds 20
    python benchmarks/edges.py addresses --addresses 63
    python benchmarks/edges.py lobby --subscribers 600 --seconds 10

`proxy` runs `--users` clients, each from an address of its own (127.0.0.2, 127.0.0.3, ...:
Linux answers on all of 127/8), through a real HAProxy with deploy/haproxy.cfg (one node on this
machine instead of Docker's three), each saying hello and creating one game; then the same
through the configuration as it was shipped before (no `send-proxy-v2`, a server without
`--proxy`): the baseline beside it. `descriptors` opens `--connections` plain TCP connections
from one address and holds them for `--seconds`, while another address asks `/healthz` every
0.2 s: the server's CPU, the health check's answers and the log's growth, with the server's
defaults, and with the door open wide (`--open-per-ip` and `--max-connections` huge) under a
hard limit of 1,024 descriptors, as a server without the door ran. `addresses` fills the game
slots from `--addresses` addresses, then counts the games newcomers still get; the clients
speak as a trusted proxy (a PROXY protocol header each), so that any addresses can be had,
IPv6 too: `--v6` clients of one /64 are then counted as one address. `lobby` subscribes
`--subscribers` connections (8 an address) to the lobby while 32 connections of one address
create and cancel games within their message budget, and a client pings: what the subscribers
are sent and the ping's time, with the lobby's window and without it (`--lobby-window 0`, as
before).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from ubao.protocol import (
    PROTOCOL_VERSION,
    Cancel,
    Create,
    Error,
    Hello,
    ListGames,
    Ok,
    Ping,
    SeatSpec,
    decode_server_message,
    encode,
)
from ubao.server.proxy_header import proxy_header

ROOT = Path(__file__).resolve().parents[1]
LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)/")
TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def server(
    folder: Path, flags: list[str], limit: Callable[[], None] | None = None
) -> AsyncIterator[tuple[asyncio.subprocess.Process, int, Path]]:
    """`ubao-server` on a free port with `flags`: its process, port and log."""
    log = folder / f"server-{time.monotonic_ns()}.log"
    with log.open("wb") as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "ubao.server",
            "--port",
            "0",
            "--db",
            ":memory:",
            *flags,
            stderr=out,
            preexec_fn=limit,
        )
    try:
        async with asyncio.timeout(TIMEOUT):
            while not (found := LISTENING.search(log.read_text())):
                await asyncio.sleep(0.05)
        yield process, int(found.group(1)), log
    finally:
        process.terminate()
        await process.wait()


def haproxy_config(server_port: int, port: int, send_proxy: bool) -> str:
    """deploy/haproxy.cfg with one node here; without `send_proxy`, as shipped before."""
    text = (ROOT / "deploy" / "haproxy.cfg").read_text()
    text = re.sub(r"\nresolvers docker\n(.+\n)+", "\n", text)
    text = text.replace(" resolvers docker init-addr last,libc,none", "")
    text = text.replace("bind :8765", f"bind 127.0.0.1:{port}")
    text = re.sub(r"    server node-1 .*\n", f"    server node-1 127.0.0.1:{server_port}\n", text)
    text = re.sub(r"    server node-[23] .*\n", "", text)
    text = text.replace("log stdout format raw local0", "")
    if not send_proxy:
        text = text.replace(" send-proxy-v2 check-send-proxy", "")
    return text


async def hello(ws: ClientConnection, name: str) -> Ok | Error:
    await ws.send(encode(Hello(id=1, proto=PROTOCOL_VERSION, name=name, role="human")))
    return await reply(ws)


async def reply(ws: ClientConnection) -> Ok | Error:
    while True:
        message = decode_server_message(await ws.recv())
        if isinstance(message, Ok | Error):
            return message


async def create(ws: ClientConnection, command_id: int) -> Ok | Error:
    seats = (SeatSpec.open(), SeatSpec.open())
    await ws.send(encode(Create(id=command_id, game="kalah", options={}, seats=seats)))
    return await reply(ws)


async def through_proxy(port: int, users: int) -> Counter[str]:
    """`users` clients, each from its own loopback address: who got in, who got a game."""
    counts: Counter[str] = Counter()
    stack = contextlib.AsyncExitStack()
    async with stack:
        sockets: list[ClientConnection] = []
        for index in range(users):
            source = f"127.0.{2 + index // 250}.{2 + index % 250}"
            try:
                ws = await stack.enter_async_context(
                    connect(f"ws://127.0.0.1:{port}/", local_addr=(source, 0))
                )
                said = await asyncio.wait_for(hello(ws, f"user{index}"), TIMEOUT)
            except (ConnectionClosed, InvalidStatus, OSError, TimeoutError):
                counts["refused"] += 1
                continue
            counts["connected" if isinstance(said, Ok) else "refused"] += 1
            sockets.append(ws)
        for index, ws in enumerate(sockets):
            try:
                made = await asyncio.wait_for(create(ws, 2 + index), TIMEOUT)
            except (ConnectionClosed, TimeoutError):
                counts["closed"] += 1
                continue
            counts["created" if isinstance(made, Ok) else made.code] += 1
    return counts


async def proxy(args: argparse.Namespace, folder: Path) -> None:
    program = shutil.which("haproxy")
    if program is None:
        raise SystemExit("edges.py proxy: needs haproxy (apt-get install haproxy)")
    print(f"{args.users} users, each from its own address, through HAProxy to one server")
    print(f"{'configuration':<40} {'connected':>9} {'refused':>8} {'created':>8} {'quota':>6}")
    for label, send_proxy in (("shipped (send-proxy-v2, --proxy)", True), ("before", False)):
        flags = ["--proxy", "127.0.0.1"] if send_proxy else []
        async with server(folder, flags) as (_, server_port, _):
            port = free_port()
            config = folder / "haproxy.cfg"
            config.write_text(haproxy_config(server_port, port, send_proxy))
            balancer = await asyncio.create_subprocess_exec(
                program,
                "-db",
                "-f",
                str(config),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                await asyncio.sleep(1.0)
                counts = await through_proxy(port, args.users)
            finally:
                balancer.terminate()
                await balancer.wait()
        print(
            f"{label:<40} {counts['connected']:>9} {counts['refused']:>8} "
            f"{counts['created']:>8} {counts['quota_exceeded']:>6}"
        )


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def health(port: int) -> float | None:
    """How long `/healthz` took from another address (s), or None if it did not answer in 2 s."""
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), 2, ("127.0.0.2", 0)) as sock:
            sock.settimeout(2)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: ubao\r\n\r\n")
            if not sock.recv(64).startswith(b"HTTP/1.1 200"):
                return None
    except OSError:
        return None
    return time.monotonic() - started


async def descriptors(args: argparse.Namespace, folder: Path) -> None:
    def narrow() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    wide = ["--open-per-ip", "1000000", "--max-connections", "1000000"]
    runs: list[tuple[str, list[str], Callable[[], None] | None]] = [
        ("defaults", [], None),
        ("door wide open, 1,024 descriptors", wide, narrow),
    ]
    print(
        f"{args.connections} plain TCP connections from one address, held {args.seconds:g} s; "
        "/healthz from another every 0.2 s"
    )
    print(f"{'server':<36} {'CPU':>6} {'healthz ok':>11} {'p50':>7} {'max':>7} {'log bytes':>10}")
    for label, flags, limit in runs:
        async with server(folder, flags, limit) as (process, port, log):
            before_log, before_cpu = log.stat().st_size, cpu_seconds(process.pid)
            flood = []
            started = time.monotonic()
            for _ in range(args.connections):
                sock = socket.socket()
                sock.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    sock.connect(("127.0.0.1", port))
                flood.append(sock)
            answers: list[float | None] = []
            while time.monotonic() - started < args.seconds:
                answers.append(await asyncio.to_thread(health, port))
                await asyncio.sleep(0.2)
            cpu = (cpu_seconds(process.pid) - before_cpu) / (time.monotonic() - started)
            grown = log.stat().st_size - before_log
            for sock in flood:
                sock.close()
        times = sorted(a for a in answers if a is not None)
        p50 = f"{1000 * times[len(times) // 2]:.0f} ms" if times else "-"
        most = f"{1000 * times[-1]:.0f} ms" if times else "-"
        print(
            f"{label:<36} {cpu:>5.0%} {len(times):>5}/{len(answers):<5} {p50:>7} {most:>7} "
            f"{grown:>10,}"
        )


async def as_client(port: int, client: tuple[str, int]) -> ClientConnection:
    """A connection that says, as the trusted proxy, that it comes from `client`."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(proxy_header(client, ("127.0.0.1", port)))
    sock.setblocking(False)
    return await connect(f"ws://127.0.0.1:{port}/", sock=sock)


async def fill(port: int, addresses: list[str], connections: int, games: int) -> Counter[str]:
    """From each address, `connections` connections that create `games` games each, at
    once: what they got."""
    counts: Counter[str] = Counter()

    async def one(address: str, index: int) -> None:
        try:
            ws = await as_client(port, (address, 40000 + index))
            said = await hello(ws, f"p{abs(hash((address, index))) % 10**9}")
        except (ConnectionClosed, InvalidStatus, OSError):
            counts["refused"] += 1
            return
        if isinstance(said, Error):
            counts["refused"] += 1
            return
        for command_id in range(games):
            try:
                made = await create(ws, 2 + command_id)
            except ConnectionClosed:
                counts["closed"] += 1
                return
            counts["created" if isinstance(made, Ok) else made.code] += 1
        held.append(ws)

    held: list[ClientConnection] = []
    await asyncio.gather(*(one(a, i) for a in addresses for i in range(connections)))
    return counts


async def addresses(args: argparse.Namespace, folder: Path) -> None:
    flags = ["--proxy", "127.0.0.1", "--connections-per-ip", "32"]
    async with server(folder, flags) as (_, port, _):
        many = [f"10.{n // 250}.{n % 250}.1" for n in range(args.addresses)]
        started = time.monotonic()
        filled = await fill(port, many, 4, 4)
        took = time.monotonic() - started
        print(
            f"{args.addresses} addresses × 4 connections × 4 games: {filled['created']} created "
            f"in {took:.1f} s, {filled['quota_exceeded']} quota_exceeded, "
            f"{filled['server_busy']} server_busy"
        )
        newcomers = [f"192.0.2.{n + 1}" for n in range(args.newcomers)]
        late = await fill(port, newcomers, 1, 1)
        print(
            f"then {args.newcomers} newcomers, one game each: {late['created']} created, "
            f"{late['server_busy']} server_busy"
        )
        v6 = [f"2001:db8:1:1:{n:x}::1" for n in range(args.v6)]
        six = await fill(port, v6, 1, 0)
        print(
            f"{args.v6} clients of one IPv6 /64, each from its own address: "
            f"{args.v6 - six['refused']} connected, {six['refused']} refused"
        )


async def lobby(args: argparse.Namespace, folder: Path) -> None:
    print(
        f"{args.subscribers} lobby subscribers ({args.subscribers // 8} addresses), 32 "
        f"connections of one address creating and cancelling games for {args.seconds:g} s"
    )
    print(f"{'server':<28} {'churn/s':>8} {'to subscribers':>15} {'ping p50':>9} {'p99':>7}")
    for label, window in (("--lobby-window 0.25", "0.25"), ("--lobby-window 0 (before)", "0")):
        flags = ["--proxy", "127.0.0.1", "--lobby-window", window]
        async with server(folder, flags) as (_, port, _):
            churns, sent, times = await churned(port, args.subscribers, args.seconds)
        p50, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
        print(
            f"{label:<28} {churns:>8.0f} {sent / 1e6:>11.2f} MB/s "
            f"{1000 * p50:>6.1f} ms {1000 * p99:>4.0f} ms"
        )


async def churned(port: int, subscribers: int, seconds: float) -> tuple[float, float, list[float]]:
    """Games created and cancelled a second, bytes sent to the subscribers a second, and the
    ping's round trips (sorted), while 32 connections of one address churn."""
    received = 0
    listening = []
    for n in range(subscribers):
        ws = await as_client(port, (f"10.1.{n // 8}.1", 40000 + n))
        await hello(ws, f"s{n}")
        await ws.send(encode(ListGames(id=2, subscribe=True)))
        await reply(ws)
        listening.append(ws)

    async def count(ws: ClientConnection) -> None:
        nonlocal received
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                received += len(frame)

    readers = [asyncio.create_task(count(ws)) for ws in listening]
    churners = []
    for n in range(32):
        ws = await as_client(port, ("10.9.9.9", 50000 + n))
        await hello(ws, f"c{n}")
        churners.append(ws)
    pinger = await as_client(port, ("10.8.8.8", 1))
    await hello(pinger, "pinger")
    done = 0
    stop = time.monotonic() + seconds

    async def churn(ws: ClientConnection) -> None:
        nonlocal done
        command_id = 10
        while time.monotonic() < stop:
            made = await create(ws, command_id)
            if isinstance(made, Ok) and made.game_id is not None:
                await ws.send(encode(Cancel(id=command_id + 1, game_id=made.game_id)))
                await reply(ws)
                done += 1
            command_id += 2
            await asyncio.sleep(0.1)  # 20 messages a second: within the budget

    async def pings() -> list[float]:
        times = []
        while time.monotonic() < stop:
            started = time.monotonic()
            await pinger.send(encode(Ping(id=1, t=0)))
            await reply(pinger)
            times.append(time.monotonic() - started)
            await asyncio.sleep(0.1)
        return sorted(times)

    started = time.monotonic()
    times, *_ = await asyncio.gather(pings(), *(churn(ws) for ws in churners))
    took = time.monotonic() - started
    for task in readers:
        task.cancel()
    return done / took, received / took, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    scenarios = parser.add_subparsers(dest="scenario", required=True)
    proxy_ = scenarios.add_parser("proxy", help="clients from many addresses through HAProxy")
    proxy_.add_argument("--users", type=int, default=120)
    fds = scenarios.add_parser("descriptors", help="one address opening plain connections")
    fds.add_argument("--connections", type=int, default=1100)
    fds.add_argument("--seconds", type=float, default=20.0)
    many = scenarios.add_parser("addresses", help="the game slots against many addresses")
    many.add_argument("--addresses", type=int, default=63)
    many.add_argument("--newcomers", type=int, default=20)
    many.add_argument("--v6", type=int, default=100)
    churn = scenarios.add_parser("lobby", help="lobby subscribers while one address churns")
    churn.add_argument("--subscribers", type=int, default=600)
    churn.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    run: dict[str, Any] = {
        "proxy": proxy,
        "descriptors": descriptors,
        "addresses": addresses,
        "lobby": lobby,
    }
    with tempfile.TemporaryDirectory(prefix="ubao-edges-") as folder:
        asyncio.run(run[args.scenario](args, Path(folder)))


if __name__ == "__main__":
    main()
