"""The server against hostile frames, `kill -9` mid-game and SIGTERM with misbehaving clients.

    python benchmarks/resilience.py hostile --frames 100000 --connections 8
    python benchmarks/resilience.py kills --kills 20 --games 4
    python benchmarks/resilience.py sigterm --tries 5

Each starts `ubao-server` on a free port (a SQLite file in a temporary folder) with the test
suite's helpers (tests/support). `hostile` sends `--frames` random frames from `--connections`
connections: random bytes, text frames, msgpack that is not a map, and maps of a command type
(or none) with its fields and others filled at random. After each frame a ping: every frame
must be answered exactly once (one `ok` or `error`) before the ping's answer, or close the
connection (which then comes back); at the end `/healthz` and a new client must still be
answered. `kills` has `--games` pairs of scripted players play Kalah over the wire (a move
every 20 ms), kills the server with SIGKILL at a random moment `--kills` times, reads the
database each time for every move the server acknowledged with `ok`, and restarts it: the
players resume with their tokens. `sigterm` stops a server `--tries` times with SIGTERM while a
client reads nothing of a flood it asked for, a TCP connection never sends its handshake and
another sends half of one, beside a game in play: each time until the process exits.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import random
import socket
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the test suite's helpers, tests/support

from tests.support.server import TIMEOUT, Client  # noqa: E402
from tests.support.wire import create, http_get, join, server_process, stuck_client  # noqa: E402
from ubao.protocol import (  # noqa: E402
    COMMAND_TYPES,
    PROTOCOL_VERSION,
    Error,
    Hello,
    Move,
    Moved,
    Ok,
    Over,
    Ping,
    Resume,
    SeatEvent,
    Snapshot,
    Watch,
    decode_server_message,
    encode,
)

UNBOUNDED = ("--message-burst", "100000000", "--send-budget", "100000000")
SENTINEL = 2**40
"""The id of the ping after each hostile frame: no random frame uses it."""

NASTY = ["", "\x1b]0;pwned\x07", "a\u202eb", "nul\x00", "\u3164", "x" * 300, "1", "kalah"]


def nasty_value(rng: random.Random, depth: int = 0) -> Any:
    """A value of any msgpack type, often one a field does not expect."""
    kind = rng.randrange(10 if depth < 2 else 7)
    if kind == 0:
        return rng.choice([0, 1, -1, 2**63, -(2**63), 2**64 - 1, rng.randrange(-1000, 1000)])
    if kind == 1:
        return rng.choice(NASTY) + "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(3))
    if kind == 2:
        return rng.randbytes(rng.randrange(20))
    if kind == 3:
        return rng.choice([None, True, False, 1.5, float("nan"), float("inf")])
    if kind == 4:
        if rng.random() < 0.3:
            return msgpack.Timestamp(rng.randrange(2**32))
        return msgpack.ExtType(rng.randrange(10), rng.randbytes(rng.randrange(9)))
    if kind in (5, 6):
        return rng.choice(["1", "2", "a1", "pass", "g1", "ada", "open", "bot", "human"])
    if kind in (7, 8):
        return [nasty_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {str(nasty_value(rng, depth + 1)): nasty_value(rng, depth + 1) for _ in range(3)}


def hostile_frame(rng: random.Random) -> bytes | str:
    """One frame of what a hostile client might send, under the server's size limit."""
    kind = rng.randrange(10)
    if kind == 0:
        return rng.randbytes(rng.randrange(200))
    if kind == 1:
        return "a text frame " + rng.choice(NASTY)
    if kind == 2:
        return msgpack.packb(nasty_value(rng), use_bin_type=True)  # type: ignore[no-any-return]
    command = rng.choice(COMMAND_TYPES)
    frame: dict[Any, Any] = {"type": command.type} if rng.random() < 0.95 else {}
    frame["id"] = rng.randrange(1000) if rng.random() < 0.9 else nasty_value(rng)
    for field in dataclasses.fields(command):
        if field.name != "id" and rng.random() < 0.8:
            frame[field.name] = nasty_value(rng)
    if rng.random() < 0.2:
        frame[rng.choice([*NASTY, 7, None, b"k"])] = nasty_value(rng)
    with contextlib.suppress(TypeError, ValueError):  # a key msgpack cannot hash
        packed: bytes = msgpack.packb(frame, use_bin_type=True)
        if len(packed) < 4000:
            return packed
    return msgpack.packb({"type": command.type, "id": 1})  # type: ignore[no-any-return]


async def answers(ws: ClientConnection, frame: bytes | str) -> int:
    """Send `frame`, then a ping: how many `ok` and `error` came before the ping's (an answer
    the server works out off its loop, as a `claim`'s key, may come after it)."""
    await ws.send(frame)
    await ws.send(encode(Ping(id=SENTINEL, t=0)))
    count = 0
    while True:
        message = decode_server_message(await asyncio.wait_for(ws.recv(), TIMEOUT))
        if isinstance(message, Ok | Error):
            if message.id == SENTINEL and isinstance(message, Ok):
                return count
            count += 1


async def remaining(ws: ClientConnection, owed: int) -> int:
    """The `ok`s and `error`s still owed that come within a few seconds."""
    count = 0
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(5 if owed else 0.5):
            while True:
                message = decode_server_message(await ws.recv())
                count += isinstance(message, Ok | Error)
    return count


async def greeted(port: int, name: str) -> ClientConnection:
    ws = await connect(f"ws://127.0.0.1:{port}/", compression=None)
    await ws.send(encode(Hello(id=0, proto=PROTOCOL_VERSION, name=name, role="human")))
    decode_server_message(await ws.recv())
    return ws


async def hostile(args: argparse.Namespace, folder: Path) -> None:
    counts: Counter[str] = Counter()
    rng = random.Random(args.seed)
    share = args.frames // args.connections
    async with server_process(folder / "ubao.sqlite3", *UNBOUNDED) as (process, port):
        started = time.monotonic()

        async def sender(number: int) -> None:
            mine = random.Random(rng.random())
            ws = await greeted(port, f"h{number}")
            sent = answered = 0  # on this connection
            for _ in range(share):
                counts["sent"] += 1
                try:
                    got = await answers(ws, hostile_frame(mine))
                except ConnectionClosed:
                    counts[f"closed {ws.close_code}"] += 1
                    counts["unanswered"] += sent - answered
                    ws = await greeted(port, f"h{number}")
                    sent = answered = 0
                    continue
                sent, answered = sent + 1, answered + got
                counts["late"] += got == 0
            answered += await remaining(ws, sent - answered)
            counts["answered"] += answered
            counts["unanswered"] += max(0, sent - answered)
            counts["twice"] += max(0, answered - sent)
            await ws.close()

        await asyncio.gather(*(sender(n) for n in range(args.connections)))
        took = time.monotonic() - started
        status, _ = await http_get(port, "/healthz")
        async with Client.connected(port, "after") as after:
            await after.ok(Ping(id=0, t=0))
        alive = process.returncode is None and status == 200
    closes = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()) if k.startswith("closed"))
    print(
        f"{counts['sent']:,} hostile frames from {args.connections} connections in {took:.1f} s "
        f"({counts['sent'] / took:,.0f}/s): {counts['answered']:,} answered once "
        f"({counts['late']} after the next frame), {counts['unanswered']} unanswered, "
        f"{counts['twice']} answered twice; connections closed: {closes or 'none'}"
    )
    print(f"crashes: {0 if alive else 1} (/healthz {status}, a new client answered)")
    if not alive or counts["unanswered"] or counts["twice"]:
        raise SystemExit(1)


@dataclasses.dataclass
class Seat:
    name: str
    game_id: str
    token: str
    acked: list[tuple[int, str]]
    """(ply, move) the server said `ok` to."""


async def play(port: int, seat: Seat, rng: random.Random) -> None:
    """Resume the seat and play a random legal move every 20 ms until the game ends."""
    async with Client.connected(port, seat.name) as client:
        await client.ok(Resume(id=0, game_id=seat.game_id, token=seat.token, since_v=0))
        ply = 0
        while True:
            event = await client.event()
            if isinstance(event, Snapshot | SeatEvent) and event.legal is None:
                ply = getattr(event, "ply", ply)
                continue
            if isinstance(event, Snapshot):
                ply = event.ply
            elif isinstance(event, Moved):
                ply = event.ply + 1
            elif isinstance(event, Over):
                return
            legal = getattr(event, "legal", None)
            if legal:
                await asyncio.sleep(0.02)
                move = rng.choice(legal)
                await client.ok(
                    Move(id=0, game_id=seat.game_id, token=seat.token, ply=ply, move=move)
                )
                seat.acked.append((ply, move))


EMPTY = (Seat("", "", "", []), Seat("", "", "", []))
"""A table between games."""


async def new_pair(port: int, number: int) -> tuple[Seat, Seat]:
    south_name, north_name = f"s{number}", f"n{number}"
    async with Client.connected(port, south_name) as south:
        game_id = await create(south, options={})
        south_token = await join(south, game_id, 0)
    async with Client.connected(port, north_name) as north:
        north_token = await join(north, game_id, 1)
    return Seat(south_name, game_id, south_token, []), Seat(north_name, game_id, north_token, [])


def lost(db: Path, seats: list[Seat]) -> tuple[int, int]:
    """Moves acknowledged, and those of them the database does not hold."""
    with contextlib.closing(sqlite3.connect(db)) as database:
        stored = set(database.execute("SELECT game_id, ply, move FROM moves"))
    acked = [(seat.game_id, ply, move) for seat in seats for ply, move in seat.acked]
    return len(acked), sum(1 for move in acked if move not in stored)


async def kills(args: argparse.Namespace, folder: Path) -> None:
    rng = random.Random(args.seed)
    db = folder / "ubao.sqlite3"
    pairs = [EMPTY] * args.games
    finished: list[Seat] = []
    games = 0
    for kill in range(1, args.kills + 1):
        async with server_process(db, *UNBOUNDED) as (process, port):

            async def table(index: int) -> None:
                """Games at one table, one after another, until the server is killed."""
                nonlocal games
                with contextlib.suppress(ConnectionClosed, InvalidHandshake, OSError):  # killed
                    while True:
                        if pairs[index] == EMPTY:
                            pairs[index] = await new_pair(port, games := games + 1)
                        await asyncio.gather(*(play(port, s, rng) for s in pairs[index]))
                        finished.extend(pairs[index])
                        pairs[index] = EMPTY

            players = [asyncio.create_task(table(i)) for i in range(args.games)]
            await asyncio.sleep(rng.uniform(0.5, 1.5))
            process.kill()
            await process.wait()
            await asyncio.gather(*players)
        seats = finished + [seat for pair in pairs if pair != EMPTY for seat in pair]
        acked, missing = lost(db, seats)
        print(f"kill -9 {kill:>3}: {acked:>6,} moves acknowledged so far, {missing} lost")
        if missing:
            raise SystemExit(1)
    print(f"{args.kills} kills, {games} games, {acked:,} acknowledged moves, {missing} lost")


async def sigterm(args: argparse.Namespace, folder: Path) -> None:
    times = []
    for attempt in range(1, args.tries + 1):
        db = folder / f"ubao-{attempt}.sqlite3"
        async with (
            server_process(db, *UNBOUNDED) as (process, port),
            Client.connected(port, "south") as south,
            Client.connected(port, "north") as north,
            stuck_client(port) as stuck,
        ):
            game_id = await create(south)
            token = await join(south, game_id, 0)
            await join(north, game_id, 1)
            await south.ok(Move(id=0, game_id=game_id, token=token, ply=0, move="1"))
            for i in range(2000):  # answers and snapshots the stuck client never reads
                await stuck.send(encode(Watch(id=i + 1, game_id=game_id)))
            silent = socket.create_connection(("127.0.0.1", port))
            partial = socket.create_connection(("127.0.0.1", port))
            partial.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            await south.ok(Ping(id=0, t=0))  # the server is past the flood
            started = time.monotonic()
            process.terminate()
            code = await asyncio.wait_for(process.wait(), TIMEOUT)
            times.append(time.monotonic() - started)
            silent.close()
            partial.close()
        print(f"SIGTERM {attempt:>2}: exited {code} after {times[-1]:.2f} s")
    median = sorted(times)[len(times) // 2]
    print(f"{args.tries} SIGTERMs: longest {max(times):.2f} s, median {median:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=38)
    scenarios = parser.add_subparsers(dest="scenario", required=True)
    fuzz = scenarios.add_parser("hostile", help="random and hostile frames")
    fuzz.add_argument("--frames", type=int, default=100_000)
    fuzz.add_argument("--connections", type=int, default=8)
    killed = scenarios.add_parser("kills", help="kill -9 with games in play, then restart")
    killed.add_argument("--kills", type=int, default=20)
    killed.add_argument("--games", type=int, default=4)
    stops = scenarios.add_parser("sigterm", help="SIGTERM with misbehaving clients")
    stops.add_argument("--tries", type=int, default=5)
    args = parser.parse_args()
    run: dict[str, Any] = {"hostile": hostile, "kills": kills, "sigterm": sigterm}
    with tempfile.TemporaryDirectory(prefix="ubao-resilience-") as folder:
        asyncio.run(run[args.scenario](args, Path(folder)))


if __name__ == "__main__":
    main()
