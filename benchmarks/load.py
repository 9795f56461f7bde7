"""Load benchmark for `ubao-server`: many games of scripted players, each watched by spectators.

    python benchmarks/load.py --games 100 --spectators 5 --pace 2 --seconds 30
    python benchmarks/load.py --games 100 --spectators 5 --pace 2 --seconds 30 --nodes 3
    python benchmarks/load.py --games 200 --spectators 1 --pace 2 --seconds 30 --bot-games 20 \
        --analyses 50
    python benchmarks/load.py --games 100 --spectators 2 --browser-spectators 3 --pace 2

With `--nodes N` it starts a redis-server of its own (append-only file, fsync always, on a free
port) and N nodes `ubao-server --redis` (docs/cluster.md), and spreads every game's clients over
the nodes: its players on two nodes, its spectators on all of them, so that most moves cross
nodes. The server figures are then the sum over the nodes and Redis.

It starts a server process on a free port with a fresh database (fsync and all), opens for
each game two players and the spectators (one connection each), and has the players play the
first legal move as soon as their turn comes, but a game's moves at least `--pace` seconds
apart (0: flat out), and a game's first move `--pace` seconds after the last of the game it
replaces (the first of all at a random point of the `--pace` seconds after its set-up), so that
the games' moves spread evenly over the pace. A game that ends is replaced by a new one; each
slot's first game is resigned at a random ply, so that the games also end, and are replaced,
evenly over time (set up together, games as long would all end together). After the
set-up it measures for `--seconds`: moves per second, the time from a move being sent to the
opponent and to each spectator receiving it (p50, p99, max), the server's CPU time and memory,
and errors (error replies, connections closed on the clients). The clients run in `--workers`
processes: on a small machine they compete with the server for the cores, and their delays are
in the figures.
With `--browser-spectators N`, each game also has N spectators that are what the browser page
is to the server (docs/browser.md): a person's `hello`, the lobby followed, the game watched,
and for every move the rules' replay answer asked over plain HTTP on the same port; `move →
browser` is the time until such a spectator holds both the move and its answer.
So that a latency can be told apart as the server's or the clients', the server and every
client process run inside a `Probe` during the window, and the figures end with what stalled
their event loops: how late a 10 ms ticker ran (p50, p99, max), the garbage collector's
collections and pauses, and how often the kernel took the loop's thread off a core.

With `--bot-games N` the first N games are between a player and a server bot (`--bot-depth`,
default 6; with `--nodes`, answered by `--engine-workers` `ubao-engine worker`s, default 2):
`move → bot's move` is the time from the player's move being sent to the bot's reply arriving,
its search included.
With `--analyses N` it measures twice, each time with a server of its own: first as above, then
after playing N games to their end and asking the server for their analyses (`analyse`,
docs/server.md "Analyses") from `--analysis-addresses` clients of their own loopback addresses
(127.0.0.2, …; default 25, two each: the server's default share), so that the second window
runs with N analyses queued, their engine working beside the games at low priority. It prints
both runs, how many analyses were made in the window, and the second's latencies over the
first's, percentile by percentile: a server that keeps its move latency keeps them near 1.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import cProfile
import gc
import hashlib
import itertools
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import sys
import tempfile
import time
from asyncio.subprocess import PIPE
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import msgpack

from ubao.engine.games import make_game

LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)/")
MANY = 1_000_000
"""For the server's per-client limits: every client of this benchmark is on one address."""


@dataclass
class Stats:
    moves: int = 0
    to_opponent: list[float] = field(default_factory=list)
    to_spectator: list[float] = field(default_factory=list)
    to_browser: list[float] = field(default_factory=list)
    """A browser-like spectator's: until it holds the move and the rules' replay answer."""
    to_bot: list[float] = field(default_factory=list)
    """A human-like player's move until the server bot's reply (its search included)."""
    errors: list[str] = field(default_factory=list)
    sent: dict[tuple[str, int], float] = field(default_factory=dict)
    """When each move (game, ply) was sent."""
    measuring: bool = False

    def received(self, game_id: str, ply: int, spectator: bool) -> None:
        sent = self.sent.get((game_id, ply))
        if sent is None or not self.measuring:
            return
        latency = time.monotonic() - sent
        (self.to_spectator if spectator else self.to_opponent).append(latency)

    def answered(self, game_id: str, ply: int) -> None:
        """The bot's move at `ply` came: the round trip of the player's move before it."""
        sent = self.sent.get((game_id, ply - 1))
        if sent is not None and self.measuring:
            self.to_bot.append(time.monotonic() - sent)

    def replayed(self, game_id: str, ply: int) -> None:
        sent = self.sent.get((game_id, ply))
        if sent is not None and self.measuring:
            self.to_browser.append(time.monotonic() - sent)


TICK_S = 0.01
"""How often a `Probe` looks at its event loop."""


class Probe:
    """What stalls a process's event loop during the measuring window, so that a latency can be
    told apart as the server's or the clients' (both are measured from the clients):

    - lag: how late a 10 ms ticker on the loop wakes (a long turn, the collector, a thread
      holding the interpreter lock, or the process waiting for a core);
    - the collector's pauses (`gc.callbacks`), wall and CPU time;
    - how often the kernel took the loop's thread off a core while it could run (involuntary
      context switches: other processes wanting the cores).

    The server runs inside one (`serve_measured`), and so does every client process."""

    def __init__(self, profile: str | None = None) -> None:
        self.measuring = False
        self.lags: list[float] = []
        self.pauses: list[tuple[int, float, float]] = []
        """(generation, wall s, CPU s) of each collection."""
        self._collecting = (0.0, 0.0)
        self._switches = 0
        self.profile = profile
        self._profiler = cProfile.Profile() if profile else None
        gc.callbacks.append(self._collector)

    async def tick(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(TICK_S)
            if self.measuring:
                self.lags.append(loop.time() - before - TICK_S)

    def _collector(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._collecting = (time.perf_counter(), time.thread_time())
        elif self.measuring:
            wall, cpu = self._collecting
            pause = (time.perf_counter() - wall, time.thread_time() - cpu)
            self.pauses.append((info["generation"], *pause))

    def start(self) -> None:
        self.measuring = True
        self._switches = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw
        if self._profiler is not None:
            self._profiler.enable()

    def stop(self) -> dict[str, Any]:
        """End the window: what was seen, as JSON-able data."""
        if self._profiler is not None:
            self._profiler.disable()
            self._profiler.dump_stats(str(self.profile))
        self.measuring = False
        switches = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw - self._switches
        return {"lags": self.lags, "pauses": self.pauses, "preempted": switches}


def serve_measured(report: str, profile: str, argv: list[str]) -> None:
    """`ubao-server argv` in this process, inside a `Probe` whose window the benchmark opens
    with SIGUSR1 and closes with SIGUSR2, which writes what it saw to `report`; with `profile`,
    cProfile over the same window (not the set-up, nor the teardown)."""
    from ubao.server import __main__ as server

    options = server.prepare(argv)
    probe = Probe(profile or None)

    def stop() -> None:
        Path(report).write_text(json.dumps(probe.stop()))

    async def measured() -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGUSR1, probe.start)
        loop.add_signal_handler(signal.SIGUSR2, stop)
        ticker = asyncio.create_task(probe.tick())
        try:
            await server.serve(options.server)
        finally:
            ticker.cancel()

    asyncio.run(measured())


WEBSOCKET_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
"""RFC 6455's constant for the handshake's Sec-WebSocket-Accept."""


class Conn(asyncio.Protocol):
    """One WebSocket client: commands by id, everything else to `on_event`.

    A lean RFC 6455 client of the benchmark's own, over a plain asyncio protocol: thousands of
    them share the cores with the server, so each frame costs them a few microseconds (a
    header parsed, a callback) instead of websockets' tasks, queues and futures. On the wire it
    is a WebSocket client like any other: the opening handshake, masked frames, pongs to the
    server's pings, a close frame at the end."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self.ids = itertools.count(1)
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.on_event: Callable[[dict[str, Any]], None] = lambda message: None
        self.key = base64.b64encode(os.urandom(16))
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.closing = False

    @classmethod
    async def open(
        cls, ports: list[int], at: int, name: str, role: str, stats: Stats, source: str = ""
    ) -> Conn:
        """A connection to node `at` (modulo their number), from address `source` if given (a
        loopback address: 127.0.0.2 is another client to the server than 127.0.0.1)."""
        port = ports[at % len(ports)]
        loop = asyncio.get_running_loop()
        local = (source, 0) if source else None
        async with asyncio.timeout(60):
            _, conn = await loop.create_connection(
                lambda: cls(stats), "127.0.0.1", port, local_addr=local
            )
            await conn.opened
        await conn.ask({"type": "hello", "proto": 1, "name": name, "role": role})
        return conn

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        host = "127.0.0.1:{}".format(transport.get_extra_info("peername")[1])
        transport.write(
            b"GET / HTTP/1.1\r\nHost: " + host.encode() + b"\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Key: " + self.key + b"\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n"
        )

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closing:
            self.stats.errors.append(f"connection lost: {exc or 'closed by the server'}")
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed during the handshake"))

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        if not self.opened.done():
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end])
            del buffer[: end + 4]
            accept = base64.b64encode(hashlib.sha1(self.key + WEBSOCKET_GUID).digest())
            if not head.startswith(b"HTTP/1.1 101") or accept not in head:
                self.opened.set_exception(ConnectionError(head.decode(errors="replace")))
                return
            self.opened.set_result(None)
        # The server's frames: unmasked, never fragmented (it sends each message whole).
        at, size = 0, len(buffer)
        while size - at >= 2:
            opcode, length = buffer[at] & 0x0F, buffer[at + 1] & 0x7F
            start = at + 2
            if length >= 126:
                start += 2 if length == 126 else 8
                if start > size:
                    break
                length = int.from_bytes(buffer[at + 2 : start], "big")
            if start + length > size:
                break
            payload = bytes(buffer[start : start + length])
            at = start + length
            if opcode == 0x2:
                self.message(payload)
            elif opcode == 0x9:
                self.send_frame(0xA, payload)  # the pong that keeps the connection
            elif opcode == 0x8:
                code = int.from_bytes(payload[:2], "big") if payload else 1005
                if not self.closing:
                    self.stats.errors.append(f"connection closed: {code} {payload[2:]!r}")
                    self.closing = True
                if self.transport is not None:
                    self.transport.close()
        del buffer[:at]

    def message(self, frame: bytes) -> None:
        message = msgpack.unpackb(frame)
        kind = message["type"]
        if kind == "error":
            self.stats.errors.append(f"{message['code']}: {message['message']}")
        if kind in ("ok", "error") and message.get("id") in self.replies:
            reply = self.replies.pop(message["id"])
            if not reply.done():  # cancelled when the run ended
                reply.set_result(message)
        elif kind not in ("ok", "error"):
            self.on_event(message)

    def send_frame(self, opcode: int, payload: bytes) -> None:
        """A masked frame, as clients send them."""
        if self.transport is None or self.transport.is_closing():
            return
        size = len(payload)
        if size < 126:
            head = bytes((0x80 | opcode, 0x80 | size))
        else:
            head = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
        mask = os.urandom(4)
        keys = int.from_bytes((mask * (size // 4 + 1))[:size], "big")
        masked = (int.from_bytes(payload, "big") ^ keys).to_bytes(size, "big")
        self.transport.write(head + mask + masked)

    async def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        """Send a command and wait for its reply."""
        command["id"] = next(self.ids)
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[command["id"]] = reply
        self.send_frame(0x2, msgpack.packb(command))
        return await reply

    def tell(self, command: dict[str, Any]) -> None:
        """Send a command without waiting for its reply (counted if it is an error)."""
        command["id"] = next(self.ids)
        self.send_frame(0x2, msgpack.packb(command))

    async def close(self) -> None:
        """Say goodbye (a close frame, 1000) and hang up without waiting for the answer."""
        if not self.closing:
            self.closing = True
            self.send_frame(0x8, (1000).to_bytes(2, "big"))
        if self.transport is not None:
            self.transport.close()


async def game_slot(
    ports: list[int], number: int, args: argparse.Namespace, stats: Stats, ready: asyncio.Event
) -> None:
    """One game after another between the same two players (the first `--bot-games` slots: a
    player and a server bot), watched by the same spectators: with several nodes, the players
    on two of them and the spectators on every one."""
    sides = (0,) if number < args.bot_games else (0, 1)
    players = [
        await Conn.open(ports, number + side, f"p{number}{'sn'[side]}", "human", stats)
        for side in sides
    ]
    fans = [
        await Conn.open(ports, number + i, f"f{number}-{i}", "spectator", stats)
        for i in range(args.spectators)
    ]
    browsers = []
    for i in range(args.browser_spectators):
        # As the page does (docs/browser.md): hello as a person, the lobby followed, the game
        # watched, and each move's replay answer asked over HTTP.
        at = number + args.spectators + i
        conn = await Conn.open(ports, at, f"b{number}-{i}", "human", stats)
        await conn.ask({"type": "games", "limit": 100, "subscribe": True})
        browsers.append((conn, ports[at % len(ports)]))
    last_move: list[float] = []  # when its last move was sent: one every `--pace` seconds
    # The slot's first game is resigned at a random ply of a whole game's length, so that the
    # games end, and are replaced, evenly over time: set up together and all as long, they
    # would otherwise all end within the same `--pace` seconds, again and again, a burst of a
    # thousand new games, ten commands each, in a load meant as one move per game per pace.
    resign_at: int | None = random.randint(1, plies_of(args.game))
    try:
        while True:
            await play_one(players, fans, browsers, args, stats, ready, last_move, resign_at)
            resign_at = None
    finally:
        for conn in players + fans + [conn for conn, _ in browsers]:
            await conn.close()


def plies_of(game: str) -> int:
    """How many plies a game lasts between two players who always play the first legal move
    (as the benchmark's do: the server lists the moves in the rules' order)."""
    rules = make_game(game)
    position, plies = rules.start(), 0
    while not rules.is_over(position):
        position = rules.play(position, rules.legal_moves(position)[0])
        plies += 1
    return plies


async def replay_answer(port: int, query: str, stats: Stats, game_id: str, ply: int) -> None:
    """`GET /api/replay?…` on a connection of its own, as a browser asks it; read to the end."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET /api/replay?{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        answer = await reader.read()
        writer.close()
    except OSError as error:
        stats.errors.append(f"replay: {error}")
        return
    if not answer.startswith(b"HTTP/1.1 200"):
        stats.errors.append(f"replay: {answer[:60]!r}")
        return
    stats.replayed(game_id, ply)


def browser_fan(
    port: int, game: str, game_id: str, stats: Stats
) -> Callable[[dict[str, Any]], None]:
    """A browser-like spectator's events: each move seen, then its replay answer asked."""
    position = [""]

    def on_event(message: dict[str, Any]) -> None:
        if message.get("game_id") != game_id:
            return
        if message["type"] == "snapshot":
            position[0] = message["position"]
        elif message["type"] == "moved":
            stats.received(game_id, message["ply"], spectator=True)
            query = urlencode({"game": game, "start": position[0], "moves": message["move"]})
            position[0] = message["position"]
            task = asyncio.create_task(replay_answer(port, query, stats, game_id, message["ply"]))
            REPLAYS.add(task)
            task.add_done_callback(REPLAYS.discard)

    return on_event


REPLAYS: set[asyncio.Task[None]] = set()
"""The replay answers being asked (kept from the collector until done)."""


async def play_one(
    players: list[Conn],
    fans: list[Conn],
    browsers: list[tuple[Conn, int]],
    args: argparse.Namespace,
    stats: Stats,
    ready: asyncio.Event,
    last_move: list[float],
    resign_at: int | None,
) -> None:
    """One game, resigned at ply `resign_at` if given; `last_move` holds when the slot's last
    move (or resignation) was sent. With one player, seat 1 is a server bot."""
    pace, game = args.pace, args.game
    over = asyncio.get_running_loop().create_future()
    seats: list[dict[str, Any]] = [{"kind": "open"}, {"kind": "open"}]
    if len(players) == 1:
        seats[1] = {"kind": "bot", "depth": args.bot_depth}
    created = await players[0].ask({"type": "create", "game": game, "options": {}, "seats": seats})
    game_id = created["game_id"]
    tokens: list[str] = []
    asked = [-1, -1]
    """The last ply each seat moved at."""

    def player(seat: int) -> Callable[[dict[str, Any]], None]:
        conn = players[seat]

        def on_event(message: dict[str, Any]) -> None:
            kind = message["type"]
            if kind == "over" and not over.done():
                over.set_result(None)
            if kind == "moved" and message["seat"] != seat:
                if len(players) == 1:
                    stats.answered(game_id, message["ply"])
                else:
                    stats.received(game_id, message["ply"], spectator=False)
            legal = message.get("legal")
            if kind not in ("moved", "snapshot") or not legal or message["game_id"] != game_id:
                return
            ply = message["ply"] + 1 if kind == "moved" else message["ply"]
            if ply <= asked[seat]:  # told twice (a move, and the snapshot asked for below)
                return
            asked[seat] = ply
            if ply == resign_at:
                move = {"type": "resign", "game_id": game_id, "token": tokens[seat]}
            else:
                move = {"type": "move", "game_id": game_id, "token": tokens[seat], "ply": ply}
                move["move"] = legal[0]
            delay = last_move[0] + pace - time.monotonic()
            asyncio.get_running_loop().call_later(max(0.0, delay), send, move)

        def send(move: dict[str, Any]) -> None:
            last_move[0] = time.monotonic()
            if move["type"] == "move":
                stats.sent[(game_id, move["ply"])] = last_move[0]
                if stats.measuring:
                    stats.moves += 1
            conn.tell(move)

        return on_event

    def fan(message: dict[str, Any]) -> None:
        if message["type"] == "moved" and message.get("game_id") == game_id:
            stats.received(game_id, message["ply"], spectator=True)

    for fan_conn in fans:
        fan_conn.on_event = fan
        await fan_conn.ask({"type": "watch", "game_id": game_id})
    for browser, port in browsers:
        browser.on_event = browser_fan(port, game, game_id, stats)
        await browser.ask({"type": "watch", "game_id": game_id})
    for seat, conn in enumerate(players):
        tokens.append("")
        conn.on_event = lambda message: None
        joined = await conn.ask({"type": "join", "game_id": game_id, "seat": seat})
        tokens[seat] = joined["token"]
    if not last_move:
        # The slot's first move at a random point of the pace once its first game is set up:
        # the games' moves spread evenly over the pace, where moving as soon as set up made
        # them come in bursts of the games set up at the same moment, and a bursty load's
        # latency (docs/benchmarks.md, "The event loop").
        last_move.append(time.monotonic() + random.uniform(0, pace) - pace)
    for seat, conn in enumerate(players):
        conn.on_event = player(seat)
    # The snapshot sent at the join came before the handler: ask again where the game is.
    for conn in players:
        await conn.ask({"type": "watch", "game_id": game_id})
    ready.set()
    await over
    for key in [key for key in stats.sent if key[0] == game_id]:
        del stats.sent[key]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_mb(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


QUANTILES = (0.5, 0.95, 0.99)


def at(values: list[float], q: float) -> float:
    """The `q` quantile of `values` (nearest rank), in ms."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def percentiles(values: list[float]) -> str:
    if not values:
        return "no samples"
    quantiles = "   ".join(f"p{round(q * 100)} {at(values, q):7.1f} ms" for q in QUANTILES)
    return f"{quantiles}   max {max(values) * 1000:7.1f} ms   ({len(values)} samples)"


def stalls(probes: list[dict[str, Any]], seconds: float) -> str:
    """How late the event loops of some processes of one kind ran: their ticker's lag, the
    collector's pauses, how often the kernel took their thread off a core, over the window."""
    lags: list[float] = sorted(lag for probe in probes for lag in probe["lags"])
    if not lags:
        return "not measured"
    pauses = [pause for probe in probes for pause in probe["pauses"]]
    by_generation = "/".join(str(sum(p[0] == g for p in pauses)) for g in range(3))
    longest = max(pauses, key=lambda pause: pause[1], default=(0, 0.0, 0.0))
    total = sum(pause[2] for pause in pauses)
    preempted = sum(probe["preempted"] for probe in probes) / seconds

    def at(q: float) -> float:
        return lags[min(len(lags) - 1, int(q * len(lags)))] * 1000

    return (
        f"lag p50 {at(0.5):.1f} / p99 {at(0.99):.1f} / max {lags[-1] * 1000:.1f} ms;"
        f" collections of generation 0/1/2: {by_generation}, {total * 1000:.0f} ms CPU in all,"
        f" the longest {longest[1] * 1000:.0f} ms ({longest[2] * 1000:.0f} ms CPU);"
        f" taken off a core {preempted:.0f} times/s"
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def start_redis(folder: Path) -> tuple[Any, str]:
    """A redis-server of the benchmark's own, durable as docs/cluster.md asks."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("--nodes needs redis-server (apt install redis-server)")
    port = free_port()
    (folder / "redis").mkdir()
    process = await asyncio.create_subprocess_exec(
        binary,
        *("--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder / "redis")),
        *("--save", "", "--appendonly", "yes", "--appendfsync", "always"),
        stdout=asyncio.subprocess.DEVNULL,
    )
    async with asyncio.timeout(30):
        while True:
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                return process, f"redis://127.0.0.1:{port}/0"
            await asyncio.sleep(0.05)


async def start_server(
    folder: Path,
    games: int,
    flags: list[str],
    profile: str | None,
    name: str = "server",
    analyses_each: int = MANY,
) -> tuple[Any, int]:
    """A server in a `Probe`, whose per-client limits this benchmark's one address cannot
    reach, but `analyses_each` analyses per address."""
    log = (folder / f"{name}.log").open("wb")
    # As environment variables, which a server without one of these settings ignores.
    limits = {"UBAO_MAX_GAMES": 2 * games, "UBAO_CONNECTIONS_PER_IP": MANY}
    for share in ("GAMES", "WAITING", "BOT_SEATS"):
        for scope in ("CONNECTION", "ADDRESS"):
            limits[f"UBAO_{share}_PER_{scope}"] = MANY
    limits |= {"UBAO_MESSAGE_BURST": MANY, "UBAO_MESSAGE_RATE": MANY}
    limits |= {"UBAO_MAX_ANALYSES": MANY, "UBAO_ANALYSES_PER_ADDRESS": max(1, analyses_each)}
    # In a `Probe` of this file (`serve_measured`): SIGUSR1 and SIGUSR2 open and close its window.
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--serve",
        str(folder / f"{name}.probe.json"),
        profile or "",
        "--port",
        "0",
        "--db",
        str(folder / "load.sqlite3"),
        *flags,
        stderr=log,
        env=os.environ | {key: str(value) for key, value in limits.items()},
    )
    async with asyncio.timeout(60):
        while True:
            match = LISTENING.search((folder / f"{name}.log").read_text())
            if match:
                return process, int(match.group(1))
            if process.returncode is not None:
                raise SystemExit((folder / f"{name}.log").read_text())
            await asyncio.sleep(0.05)


async def played_to_the_end(players: list[Conn]) -> str:
    """A Kalah game between the two connections, the first legal move each turn, flat out."""
    over = asyncio.get_running_loop().create_future()
    seats = [{"kind": "open"}, {"kind": "open"}]
    create = {"type": "create", "game": "kalah", "options": {}, "seats": seats}
    game_id = (await players[0].ask(create))["game_id"]
    tokens = ["", ""]

    def mover(seat: int) -> Callable[[dict[str, Any]], None]:
        def on_event(message: dict[str, Any]) -> None:
            if message.get("game_id") != game_id:
                return
            if message["type"] == "over" and not over.done():
                over.set_result(None)
            legal = message.get("legal")
            if legal:
                ply = message["ply"] + 1 if message["type"] == "moved" else message.get("ply", 0)
                move = {"type": "move", "game_id": game_id, "token": tokens[seat], "ply": ply}
                players[seat].tell({**move, "move": legal[0]})

        return on_event

    for seat, conn in enumerate(players):
        conn.on_event = mover(seat)
    for seat, conn in enumerate(players):
        joined = await conn.ask({"type": "join", "game_id": game_id, "seat": seat})
        tokens[seat] = joined["token"]
    async with asyncio.timeout(60):
        await over
    return str(game_id)


async def queue_analyses(
    port: int, count: int, addresses: int, stats: Stats
) -> tuple[list[Conn], list[int]]:
    """Play `count` games to their end and ask for the analysis of each, in turn from
    `addresses` clients of their own addresses (127.0.0.2, …; one: 127.0.0.1): the askers'
    connections, and a list of the analyses made while `stats.measuring`."""
    players = [await Conn.open([port], 0, f"a{side}", "human", stats) for side in (0, 1)]
    sources = [""] if addresses == 1 else [f"127.0.0.{2 + i}" for i in range(addresses)]
    askers = [
        await Conn.open([port], 0, f"asker{i}", "spectator", stats, source)
        for i, source in enumerate(sources)
    ]
    made: list[int] = []

    def heard(message: dict[str, Any]) -> None:
        if message["type"] == "analysis" and stats.measuring:
            made.append(1)

    for asker in askers:
        asker.on_event = heard
    for number in range(count):
        game_id = await played_to_the_end(players)
        await askers[number % addresses].ask({"type": "analyse", "game_id": game_id})
    for conn in players:
        await conn.close()
    return askers, made


async def drive(args: argparse.Namespace) -> None:
    """A worker: play its share of the games, say when they are all under way, measure from
    the moment the parent names, and report what it saw as JSON."""
    stats = Stats()
    loop = asyncio.get_running_loop()
    probe = Probe()
    ticker = asyncio.create_task(probe.tick())
    first, count = args.worker
    slots, ready = [], []
    for number in range(first, first + count):
        ready.append(asyncio.Event())
        slots.append(asyncio.create_task(game_slot(args.ports, number, args, stats, ready[-1])))
    for slot, event in zip(slots, ready, strict=True):
        # A game whose set-up failed (a connection refused or closed during its handshake)
        # ends the run with the reason, rather than leaving it waiting for that game forever.
        waiting = asyncio.create_task(event.wait())
        await asyncio.wait((slot, waiting), return_when=asyncio.FIRST_COMPLETED)
        if not event.is_set():
            waiting.cancel()
            raise SystemExit(f"a game's set-up failed: {slot.exception()!r}")
    # The connections and games live until the end: out of the cycle collector's way, so that
    # its pauses over thousands of connections do not count as the server's latency.
    gc.freeze()
    print("ready", flush=True)
    start = float(await loop.run_in_executor(None, sys.stdin.readline))
    await asyncio.sleep(start - time.monotonic())
    stats.measuring = True
    probe.start()
    cpu = time.process_time()
    await asyncio.sleep(start + args.seconds - time.monotonic())
    stats.measuring = False
    cpu = time.process_time() - cpu
    seen = probe.stop()
    ticker.cancel()
    for slot in slots:
        slot.cancel()
    await asyncio.gather(*slots, return_exceptions=True)
    report = {
        "moves": stats.moves,
        "to_opponent": stats.to_opponent,
        "to_spectator": stats.to_spectator,
        "to_browser": stats.to_browser,
        "to_bot": stats.to_bot,
        "errors": stats.errors,
        "cpu": cpu,
        "probe": seen,
    }
    print(json.dumps(report), flush=True)


async def measure(args: argparse.Namespace, queued: int) -> dict[str, Any]:
    """Start the server and the workers, with `queued` analyses asked for before the window,
    and measure: the figures as data (`report` prints them)."""
    analysis_stats = Stats()
    analyses: tuple[list[Conn], list[int]] | None = None
    with tempfile.TemporaryDirectory(prefix="ubao-load-") as tmp:
        folder = Path(tmp)
        processes = []
        nodes = []
        """The server processes (not Redis), which run in a `Probe`."""
        ports = []
        workers = []
        engine_workers: list[Any] = []
        """`ubao-engine worker`s of a cluster: its bots' and analyses' engines."""
        try:
            flags = args.server_flag
            if args.nodes > 1:
                redis, url = await start_redis(folder)
                processes.append(redis)
                flags = [*flags, "--redis", url]
                for number in range(args.engine_workers):
                    log = (folder / f"engine-worker{number}.log").open("wb")
                    command = ["-m", "ubao.engine", "worker", "--redis", url]
                    engine_workers.append(
                        await asyncio.create_subprocess_exec(sys.executable, *command, stderr=log)
                    )
            for node in range(args.nodes):
                name = f"node{node}" if args.nodes > 1 else "server"
                profile = (
                    f"{args.profile}.{name}" if args.profile and args.nodes > 1 else args.profile
                )
                process, port = await start_server(
                    folder, args.games, [*flags, "--node-id", name] if args.nodes > 1 else flags,
                    profile, name, -(-queued // args.analysis_addresses),
                )  # fmt: skip
                processes.append(process)
                nodes.append(process)
                ports.append(port)
            shares = [args.games * i // args.workers for i in range(args.workers + 1)]
            listed = ",".join(map(str, ports))
            for first, end in itertools.pairwise(shares):
                command = [__file__, "--ports", listed, "--worker", str(first), str(end - first)]
                names = ("spectators", "browser_spectators", "pace", "seconds", "game")
                for name in (*names, "bot_games", "bot_depth"):
                    command += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
                workers.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable, *command, stdin=PIPE, stdout=PIPE
                    )
                )
            for worker in workers:
                assert worker.stdout is not None
                line = await worker.stdout.readline()
                if line.strip() != b"ready":
                    raise SystemExit("a worker failed")
            if queued:
                analyses = await queue_analyses(
                    ports[0], queued, args.analysis_addresses, analysis_stats
                )
            start = time.monotonic() + 1.0 + args.pace  # every game has made a move
            for worker in workers:
                assert worker.stdin is not None
                worker.stdin.write(f"{start}\n".encode())
            await asyncio.sleep(start - time.monotonic())
            analysis_stats.measuring = True
            cpus = [cpu_seconds(process.pid) for process in processes]
            for process in nodes:
                process.send_signal(signal.SIGUSR1)
            await asyncio.sleep(args.seconds)
            cpus = [cpu_seconds(p.pid) - cpu for p, cpu in zip(processes, cpus, strict=True)]
            analysis_stats.measuring = False
            for asker in analyses[0] if analyses is not None else []:
                await asker.close()
            for process in nodes:
                process.send_signal(signal.SIGUSR2)
            rss = sum(memory_mb(process.pid, "VmRSS") for process in processes)
            peak = sum(memory_mb(process.pid, "VmHWM") for process in processes)
            reports = [json.loads((await worker.communicate())[0]) for worker in workers]
            probes = []
            async with asyncio.timeout(30):  # each node writes its own once its window closes
                for name in [f"node{n}" if args.nodes > 1 else "server" for n in range(args.nodes)]:
                    path = folder / f"{name}.probe.json"
                    while not path.exists() or not path.read_text():
                        await asyncio.sleep(0.05)
                    probes.append(json.loads(path.read_text()))
        finally:
            for worker in workers:
                if worker.returncode is None:
                    worker.kill()
                await worker.wait()
            for process in [*engine_workers, *reversed(processes)]:  # the nodes, then Redis
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
                await process.wait()
    return {
        "queued": queued,
        "moves": sum(report["moves"] for report in reports),
        **{
            kind: [t for report in reports for t in report[kind]]
            for kind in ("to_opponent", "to_bot", "to_spectator", "to_browser")
        },
        "errors": [error for report in reports for error in report["errors"]]
        + analysis_stats.errors,
        "cpus": cpus,
        "clients": sum(report["cpu"] for report in reports),
        "probes": probes,
        "client_probes": [report["probe"] for report in reports],
        "rss": rss,
        "peak": peak,
        "made": None if analyses is None else len(analyses[1]),
    }


def report(args: argparse.Namespace, figures: dict[str, Any]) -> None:
    """Print one run's figures."""
    moves, cpus, seconds = figures["moves"], figures["cpus"], args.seconds
    cpu = sum(cpus)
    if args.nodes > 1:
        print(f"cluster: {args.nodes} nodes over one redis-server")
    browsers = f" and {args.browser_spectators} browser-like" if args.browser_spectators else ""
    print(
        f"server load: {args.games} games of {args.game}, {args.spectators} spectators{browsers}"
        " each,"
    )
    if args.bot_games:
        print(f"{args.bot_games} of the games against a server bot (depth {args.bot_depth}),")
    print(f"pace {args.pace:g} s, {args.workers} client process(es), measured for {seconds:g} s")
    print(f"moves/s            {moves / seconds:9.1f}")
    print(f"move → opponent    {percentiles(figures['to_opponent'])}")
    if args.bot_games:
        print(f"move → bot's move  {percentiles(figures['to_bot'])} (its search included)")
    print(f"move → spectator   {percentiles(figures['to_spectator'])}")
    if args.browser_spectators:
        answer = "(the move and its replay answer)"
        print(f"move → browser     {percentiles(figures['to_browser'])} {answer}")
    per_move = f"{1000 * cpu / moves:.2f} ms per move" if moves else "no moves"
    print(f"server CPU         {100 * cpu / seconds:7.1f} % of one core ({per_move})")
    if args.nodes > 1:
        per_node = ", ".join(f"{100 * c / seconds:.0f} %" for c in cpus[1:])
        print(f"  per node         {per_node}; Redis {100 * cpus[0] / seconds:.0f} %")
    print(f"client CPU         {100 * figures['clients'] / seconds:7.1f} % of one core")
    print(f"server loop        {stalls(figures['probes'], seconds)}")
    print(f"client loops       {stalls(figures['client_probes'], seconds)}")
    print(f"server RSS         {figures['rss']:7.1f} MB (peak {figures['peak']:.1f} MB)")
    if figures["made"] is not None:
        queued, made = figures["queued"], figures["made"]
        print(f"analyses           {queued} queued, {made} made in the window")
    errors = figures["errors"]
    print(f"errors             {len(errors)}")
    for error in sorted(set(errors))[:5]:
        print(f"  {error}")


def compare(before: dict[str, Any], after: dict[str, Any]) -> None:
    """The second run's latencies over the first's, percentile by percentile."""
    print(f"with {after['queued']} analyses queued / without:")
    for kind, label in (("to_opponent", "move → opponent"), ("to_bot", "move → bot's move")):
        if before[kind] and after[kind]:
            ratios = "   ".join(
                f"p{round(q * 100)} {at(after[kind], q) / at(before[kind], q):5.2f}×"
                for q in QUANTILES
            )
            print(f"{label:<19}{ratios}")


async def run(args: argparse.Namespace) -> int:
    """Measure, print the figures; with `--analyses`, first a run without them, then one with
    them and the ratios. The number of errors."""
    if not args.analyses:
        figures = await measure(args, 0)
        report(args, figures)
        return len(figures["errors"])
    print("without analyses")
    before = await measure(args, 0)
    report(args, before)
    print(f"\nwith {args.analyses} analyses queued from {args.analysis_addresses} address(es)")
    after = await measure(args, args.analyses)
    report(args, after)
    print()
    compare(before, after)
    return len(before["errors"]) + len(after["errors"])


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:  # the server, started by `start_server`
        serve_measured(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="live games (default 100)")
    parser.add_argument("--spectators", type=int, default=5, help="per game (default 5)")
    parser.add_argument(
        "--browser-spectators",
        type=int,
        default=0,
        help="per game, besides: spectators as the browser page is one (default 0)",
    )
    parser.add_argument(
        "--pace", type=float, default=2.0, help="least seconds between a game's moves (0: flat out)"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="measuring time (default 30)")
    parser.add_argument("--game", default="kalah", help="what is played (default kalah)")
    parser.add_argument(
        "--server-flag",
        action="append",
        default=[],
        metavar="FLAG",
        help="passed on to ubao-server (repeat it: --server-flag=--send-budget --server-flag=1000)",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="cProfile of the server's event loop over the window, its statistics to FILE",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="client processes sharing the games (default 1)"
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=1,
        help="server nodes; more than 1: a cluster over a redis-server of its own (default 1)",
    )
    parser.add_argument(
        "--analyses",
        type=int,
        default=0,
        help="finished games whose analyses are queued during the window; the figures of a run "
        "without them first, then with them, and the ratios (default 0: one run, none)",
    )
    parser.add_argument(
        "--analysis-addresses",
        type=int,
        default=25,
        help="the addresses asking for them, each within its share of the queue (default 25: "
        "2 each, the server's default share, for 50)",
    )
    parser.add_argument(
        "--bot-games",
        type=int,
        default=0,
        help="of the games, the ones between a player and a server bot (default 0)",
    )
    parser.add_argument(
        "--engine-workers",
        type=int,
        default=2,
        help="with --nodes: `ubao-engine worker`s for the bots and analyses (default 2)",
    )
    parser.add_argument(
        "--bot-depth", type=int, default=6, help="the server bots' search depth (default 6)"
    )
    parser.add_argument(
        "--ports", type=lambda text: [int(p) for p in text.split(",")], help=argparse.SUPPRESS
    )
    parser.add_argument("--worker", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        asyncio.run(drive(args))
        return
    sys.exit(1 if asyncio.run(run(args)) else 0)


if __name__ == "__main__":
    main()
