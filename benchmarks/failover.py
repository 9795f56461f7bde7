"""Failover benchmark for a cluster: kill -9 random nodes during play, count what was lost.

    python benchmarks/failover.py --nodes 3 --games 12 --kills 20

It starts a redis-server of its own (append-only file, fsync always) and `--nodes` nodes
`ubao-server --redis`, creates `--games` games and has two scripted players play each, every
player on a node of its own choosing, reconnecting to another node (and resuming its seat)
whenever its connection drops. Every `--every` seconds it kills a random node with SIGKILL and
starts a new one in its place, and measures the takeover of each of the dead node's games not
over: the time from the kill until another node holds the game's lease (read from Redis). At
the end it reads every game back and counts the acknowledged moves (those the server answered
`ok`) that are not in it, at their ply: the target is 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
import redis.asyncio
from load import percentiles, start_redis, start_server
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

SINCE_EVER = 1 << 40
"""A `since_v` no game reaches: the server answers a `resume` with it with a snapshot."""


class Cluster:
    """The nodes (by name, with their port and process), started and killed by the benchmark."""

    def __init__(self, folder: Path, url: str, games: int) -> None:
        self.folder = folder
        self.url = url
        self.games = games
        self.nodes: dict[str, tuple[Any, int]] = {}
        self.started = 0

    async def start(self) -> None:
        name = f"n{self.started}"
        self.started += 1
        flags = ["--redis", self.url, "--node-id", name, "--grace", "120"]
        self.nodes[name] = await start_server(self.folder, self.games, flags, None, name)

    def ports(self) -> list[int]:
        return [port for _, port in self.nodes.values()]

    async def kill(self, name: str) -> None:
        process, _ = self.nodes.pop(name)
        process.kill()
        await process.wait()

    async def stop(self) -> None:
        for process, _ in self.nodes.values():
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            await process.wait()


async def ask(ws: ClientConnection, command: dict[str, Any]) -> dict[str, Any]:
    """Send a command and read until its reply (events before it are dropped)."""
    command["id"] = random.randrange(1, 1 << 30)
    await ws.send(msgpack.packb(command))
    while True:
        message = msgpack.unpackb(await ws.recv())
        if message["type"] in ("ok", "error") and message.get("id") == command["id"]:
            return message  # type: ignore[no-any-return]


async def hello(port: int, name: str) -> ClientConnection:
    ws = await connect(f"ws://127.0.0.1:{port}/", compression=None, open_timeout=10)
    await ask(ws, {"type": "hello", "proto": 1, "name": name, "role": "human"})
    return ws


async def player(
    cluster: Cluster,
    game_id: str,
    seat: int,
    token: str,
    pace: float,
    acked: dict[tuple[str, int], str],
    stop: asyncio.Event,
) -> None:
    """Play the seat's first legal move whenever it is to move, until the game ends or the
    benchmark stops; after every dropped connection, resume on a random node."""
    while not stop.is_set():
        try:
            ws = await hello(random.choice(cluster.ports()), f"p{seat}")
        except (OSError, TimeoutError, ConnectionClosed):
            await asyncio.sleep(0.2)
            continue
        try:
            reply = await asyncio.wait_for(
                ask(ws, {"type": "resume", "game_id": game_id, "token": token,
                         "since_v": SINCE_EVER}),
                10,
            )  # fmt: skip
            if reply["type"] == "error":
                await asyncio.sleep(0.2)  # the game is being taken over: again
                continue
            if await play(ws, game_id, seat, token, pace, acked, stop):
                return
        except (ConnectionClosed, TimeoutError, OSError):
            await asyncio.sleep(0.1)
        finally:
            await ws.close()


async def play(
    ws: ClientConnection,
    game_id: str,
    seat: int,
    token: str,
    pace: float,
    acked: dict[tuple[str, int], str],
    stop: asyncio.Event,
) -> bool:
    """Play on this connection; True once the game is over."""
    pending: dict[int, tuple[int, str]] = {}
    while not stop.is_set():
        message = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 30))
        kind = message["type"]
        if kind == "ok" and message.get("id") in pending:
            ply, move = pending.pop(message["id"])
            acked[(game_id, ply)] = move
        elif kind == "over" or (kind == "snapshot" and message["status"] == "over"):
            return True
        legal = message.get("legal")
        if kind in ("moved", "snapshot") and legal:  # the snapshot: after each resume
            ply = message["ply"] + 1 if kind == "moved" else message["ply"]
            await asyncio.sleep(pace)
            command = {"type": "move", "game_id": game_id, "token": token, "ply": ply}
            command |= {"move": legal[0], "id": random.randrange(1, 1 << 30)}
            pending[command["id"]] = (ply, legal[0])
            await ws.send(msgpack.packb(command))
    return False


async def owners(client: redis.asyncio.Redis, game_ids: list[str]) -> dict[str, str | None]:
    """The node holding each game's lease, if any."""
    values = await client.mget([f"ubao:lease:{game_id}" for game_id in game_ids])
    return {
        game_id: value.decode().rpartition("/")[0] if value else None
        for game_id, value in zip(game_ids, values, strict=True)
    }


async def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="ubao-failover-") as tmp:
        folder = Path(tmp)
        redis_process, url = await start_redis(folder)
        cluster = Cluster(folder, url, args.games)
        client = redis.asyncio.Redis.from_url(url)
        stop = asyncio.Event()
        tasks: list[asyncio.Task[None]] = []
        acked: dict[tuple[str, int], str] = {}
        takeovers: list[float] = []
        try:
            for _ in range(args.nodes):
                await cluster.start()
            game_ids = []
            for number in range(args.games):
                port = cluster.ports()[number % args.nodes]
                ws = await hello(port, "host")
                seats = [{"kind": "open"}, {"kind": "open"}]
                created = await ask(
                    ws, {"type": "create", "game": args.game, "options": {}, "seats": seats}
                )
                game_id = created["game_id"]
                game_ids.append(game_id)
                for seat in (0, 1):
                    joined = await ask(ws, {"type": "join", "game_id": game_id, "seat": seat})
                    tasks.append(
                        asyncio.create_task(
                            player(cluster, game_id, seat, joined["token"], args.pace, acked, stop)
                        )
                    )
                await ws.close()
            for kill in range(args.kills):
                await asyncio.sleep(args.every)
                victim = random.choice(sorted(cluster.nodes))
                live = {member.decode() for member in await client.smembers("ubao:live")}
                held = [
                    game_id
                    for game_id, node in (await owners(client, sorted(live))).items()
                    if node == victim
                ]  # its games not over (a finished one keeps its lease, with nothing to take)
                await cluster.kill(victim)
                killed = time.monotonic()
                await cluster.start()
                waiting = set(held)
                while waiting and time.monotonic() - killed < 60:
                    now = await owners(client, sorted(waiting))
                    for game_id, node in now.items():
                        if node is not None and node != victim:
                            waiting.discard(game_id)
                            takeovers.append(time.monotonic() - killed)
                    await asyncio.sleep(0.05)
                print(
                    f"kill {kill + 1:2d}: node {victim} with {len(held)} game(s); "
                    f"{len(held) - len(waiting)} taken over, {len(acked)} moves acknowledged",
                    flush=True,
                )
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            lost = await count_lost(cluster, game_ids, acked)
        finally:
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await cluster.stop()
            await client.aclose()
            redis_process.send_signal(signal.SIGTERM)
            await redis_process.wait()
    print(f"failover: {args.nodes} nodes, {args.games} games, {args.kills} kill -9")
    print(f"takeover           {percentiles(takeovers)}")
    print(f"moves acknowledged {len(acked)}")
    print(f"acknowledged lost  {lost}")
    return lost


async def count_lost(
    cluster: Cluster, game_ids: list[str], acked: dict[tuple[str, int], str]
) -> int:
    """The acknowledged moves missing from the games as the cluster has them now."""
    ws = await hello(cluster.ports()[0], "auditor")
    lost = 0
    try:
        for game_id in game_ids:
            await ask(ws, {"type": "watch", "game_id": game_id})
            while True:
                message = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 30))
                if message["type"] == "snapshot" and message["game_id"] == game_id:
                    break
            history = message["history"]
            for (game, ply), move in acked.items():
                if game == game_id and (ply >= len(history) or history[ply] != move):
                    lost += 1
    finally:
        await ws.close()
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=3, help="server nodes (default 3)")
    parser.add_argument("--games", type=int, default=12, help="games played (default 12)")
    parser.add_argument("--kills", type=int, default=20, help="nodes killed (default 20)")
    parser.add_argument(
        "--every", type=float, default=5.0, help="seconds between kills (default 5)"
    )
    parser.add_argument(
        "--pace", type=float, default=1.5, help="seconds before each move (default 1.5)"
    )
    parser.add_argument("--game", default="othello", help="what is played (default othello)")
    args = parser.parse_args()
    sys.exit(1 if asyncio.run(run(args)) else 0)


if __name__ == "__main__":
    main()
