"""Server tournaments benchmark: how fast a server runs its tournaments, and what a game costs it.

    python benchmarks/tournaments.py round-robin --depths 1-6
    python benchmarks/tournaments.py swiss --clients 20 --depth 2
    python benchmarks/tournaments.py kills --kills 20
    python benchmarks/tournaments.py cluster-kills --kills 20

Each starts `ubao-server` on a free port with a fresh database (fsync and all) and runs one
tournament to its end (docs/tournaments-server.md):

- `round-robin`: a double round-robin of server bots at the depths given (Kalah, 6 pits and 4
  seeds unless `--options` says otherwise), `--concurrency` games at once;
- `swiss`: a Swiss of `--clients` bot clients (`ubao bot --tournament`, run in this process as
  that command runs them), each under an account of its own, at `--depth`;
- `kills`: a double round-robin of five server bots during which the server is killed (-9)
  `--kills` times at a random moment and started again; after each kill the stored tournament
  is replayed from its stored games and must agree with what the server last showed, and at
  the end its standings must equal what the stored games give.
- `cluster-kills`: the same tournament on a cluster (a redis-server of its own, two nodes
  `--redis`, one engine worker): `--kills` times the node that owns the tournament is killed
  (-9) and a new node started in its place; the other node takes the tournament over. After
  each kill the tournament stored in Redis must keep every pairing and result the killed node
  showed; at the end its standings must equal what the stored games give, and Redis must hold
  exactly the tournament's games (none started twice). It prints, besides, how long each
  takeover took (from the kill until another node held the tournament's lease).

It prints games per minute (the tournament's games over its wall time from start to end), the
server's CPU time per game from the start to the end (its own process, and its engine processes
for server bots; for `kills`, since the last restart only) and, for the Swiss, the bot clients'
CPU per game (this process). Standings are checked against the stored games every time.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import random
import re
import resource
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import redis
from load import start_redis
from websockets.asyncio.client import ClientConnection, connect

from ubao.client.bot import EngineSettings
from ubao.client.tournament_bot import play_tournament
from ubao.protocol import (
    PROTOCOL_VERSION,
    Claim,
    Command,
    Error,
    Hello,
    Ok,
    SeatSpec,
    TournamentJoin,
    TournamentNew,
    TournamentShow,
    TournamentStart,
    TournamentView,
    decode_server_message,
    encode,
)
from ubao.server.stores.redis import RedisStore, lease_key
from ubao.server.stores.sqlite import Store
from ubao.server.tournament import Outcome, Tournament, standings
from ubao.server.tournaments import decimal, replayed

LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)/")
TICKS = os.sysconf("SC_CLK_TCK")


class Server:
    """`python -m ubao.server` on a free port, its log in the folder."""

    def __init__(self, folder: Path, redis_url: str = "", node: str = "server") -> None:
        self.folder = folder
        self.redis_url = redis_url
        """A cluster's Redis: the server is one node (`node`) of it."""
        self.node = node
        self.db = folder / "tournaments.sqlite3"
        self.process: asyncio.subprocess.Process | None = None
        self.port = 0
        self.started = 0
        self.mark = (0.0, 0.0)
        """CPU times when the tournament started (`cpu_seconds` counts from there)."""

    async def start(self) -> None:
        self.started += 1
        log_path = self.folder / f"{self.node}{self.started}.log"
        flags = ["--connections-per-ip", "1000", "--keys-per-address", "1000"]
        if self.redis_url:
            flags += ["--redis", self.redis_url, "--node-id", self.node]
        flags += ["--message-burst", "1000", "--message-rate", "1000"]
        with log_path.open("wb") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "ubao.server", "--port", "0", "--db", str(self.db),
                *flags, stderr=log,
            )  # fmt: skip
        async with asyncio.timeout(60):
            while True:
                match = LISTENING.search(log_path.read_text())
                if match:
                    self.port = int(match.group(1))
                    return
                if self.process.returncode is not None:
                    raise SystemExit(log_path.read_text())
                await asyncio.sleep(0.05)

    def start_counting(self) -> None:
        self.mark = (0.0, 0.0)
        self.mark = self.cpu_seconds()

    def cpu_seconds(self) -> tuple[float, float]:
        """CPU time since `start_counting` of the server process, and of its children (the
        engines)."""
        assert self.process is not None
        pid = self.process.pid
        own = children = 0.0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            ppid, utime, stime, cutime, cstime = (int(fields[i]) for i in (1, 11, 12, 13, 14))
            if int(entry.name) == pid:
                own = (utime + stime) / TICKS
                children += (cutime + cstime) / TICKS
            elif ppid == pid:
                children += (utime + stime + cutime + cstime) / TICKS
        return own - self.mark[0], children - self.mark[1]

    async def stop(self, how: signal.Signals = signal.SIGTERM) -> None:
        assert self.process is not None
        self.process.send_signal(how)
        await asyncio.wait_for(self.process.wait(), 60)


class Client:
    """One connection: commands and their replies, events dropped."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = 0

    @classmethod
    async def open(cls, port: int, name: str, key: str | None = None) -> Client:
        client = cls(await connect(f"ws://127.0.0.1:{port}/", compression=None))
        await client.ask(Hello(id=0, proto=PROTOCOL_VERSION, name=name, role="human", key=key))
        return client

    async def ask(self, command: Command) -> Ok:
        self.ids += 1
        await self.ws.send(encode(dataclasses.replace(command, id=self.ids)))
        while True:
            reply = decode_server_message(await self.ws.recv())
            if isinstance(reply, Error) and reply.id == self.ids:
                raise SystemExit(f"{command.type}: {reply.code}: {reply.message}")
            if isinstance(reply, Ok) and reply.id == self.ids:
                return reply

    async def view(self, tid: str) -> TournamentView:
        view = (await self.ask(TournamentShow(id=0, tournament_id=tid))).tournament
        assert view is not None
        return view


async def until_over(client: Client, tid: str) -> TournamentView:
    while True:
        view = await client.view(tid)
        if view.status == "finished":
            return view
        await asyncio.sleep(0.25)


def check(db: Path | str, view: TournamentView) -> None:
    """The view's standings equal what the stored games give (`db`: SQLite's file, or the
    cluster's Redis URL)."""
    t, results = stored(db, view.tournament_id)
    table = [(r.entrant, decimal(r.points), decimal(r.sonneborn_berger), decimal(r.buchholz))
             for r in standings(t, results)]  # fmt: skip
    shown = [(s.entrant, s.points, s.sonneborn_berger, s.buchholz) for s in view.standings]
    if shown != table:
        raise SystemExit(f"standings differ from the stored games:\n{shown}\n{table}")


def stored(db: Path | str, tid: str) -> tuple[Tournament, dict[str, Outcome | None]]:
    """The stored tournament and its stored games' results."""
    store = (
        RedisStore(redis.Redis.from_url(db), "benchmark", 3_000, 100)
        if isinstance(db, str)
        else Store(db)
    )
    try:
        (body,) = [body for t, body in store.tournaments() if t == tid]
        return replayed(tid, body, store.load)
    finally:
        store.close()


Measured = tuple[TournamentView, float, dict[str, Any]]
"""A tournament run to its end: its last view, its wall time, figures of its own."""


def report(
    name: str, view: TournamentView, wall_s: float, cpu: tuple[float, float], extra: dict[str, Any]
) -> dict[str, Any]:
    """The figures per game, the games counted from the view."""
    games = sum(1 for p in view.pairings if p.black is not None)
    own, engines = cpu
    top = [f"{view.entrants[s.entrant]} {s.points}" for s in view.standings]
    return {
        "tournament": name,
        "games": games,
        "wall_s": round(wall_s, 1),
        "games_per_minute": round(games * 60 / wall_s, 1),
        "server_cpu_ms_per_game": round(own * 1000 / games, 1),
        "engines_cpu_ms_per_game": round(engines * 1000 / games, 1),
        **{key: round(value * 1000 / games, 1) for key, value in extra.pop("cpu_s", {}).items()},
        **extra,
        "standings": top,
    }


def depths(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


async def round_robin(args: argparse.Namespace, server: Server) -> Measured:
    organiser = await Client.open(server.port, "organiser")
    tid = await new(organiser, args, args.depths, double=True)
    server.start_counting()
    started = time.monotonic()
    await organiser.ask(TournamentStart(id=0, tournament_id=tid))
    view = await until_over(organiser, tid)
    return view, time.monotonic() - started, {}


async def new(client: Client, args: argparse.Namespace, bots: list[int], **more: Any) -> str:
    options = json.loads(args.options)
    command = TournamentNew(
        id=0, name=args.command, game="kalah", options=options, concurrency=args.concurrency,
        **more,
    )  # fmt: skip
    tid = (await client.ask(command)).tournament_id
    assert tid is not None
    for depth in bots:
        await client.ask(TournamentJoin(id=0, tournament_id=tid, bot=SeatSpec("bot", depth)))
    return tid


async def swiss(args: argparse.Namespace, server: Server) -> Measured:
    organiser = await Client.open(server.port, "organiser")
    keys = {}
    for i in range(args.clients):
        keys[f"bot{i:02d}"] = (await organiser.ask(Claim(id=0, name=f"bot{i:02d}", bot=True))).key
    tid = await new(organiser, args, [], format="swiss", rounds=args.rounds)
    url = f"ws://127.0.0.1:{server.port}/"
    settings = EngineSettings(args.depth)
    playing = [
        asyncio.create_task(play_tournament(url, name, settings, tid, key=key or ""))
        for name, key in keys.items()
    ]
    while len((await organiser.view(tid)).entrants) < args.clients:
        await asyncio.sleep(0.1)
    clients_before = resource.getrusage(resource.RUSAGE_SELF)
    server.start_counting()
    started = time.monotonic()
    await organiser.ask(TournamentStart(id=0, tournament_id=tid))
    await asyncio.gather(*playing)
    view = await until_over(organiser, tid)
    wall = time.monotonic() - started
    used = resource.getrusage(resource.RUSAGE_SELF)
    clients_cpu = used.ru_utime + used.ru_stime - clients_before.ru_utime - clients_before.ru_stime
    met = [frozenset((p.white, p.black)) for p in view.pairings if p.black is not None]
    assert len(met) == len(set(met)), "a pairing repeated"
    return view, wall, {"rounds": view.rounds, "cpu_s": {"clients_cpu_ms_per_game": clients_cpu}}


async def kills(args: argparse.Namespace, server: Server) -> Measured:
    rng = random.Random(args.seed)
    organiser = await Client.open(server.port, "organiser")
    tid = await new(organiser, args, [1, 2, 3, 4, 5], double=True, pace_ms=args.pace_ms)
    started = time.monotonic()
    await organiser.ask(TournamentStart(id=0, tournament_id=tid))
    done_before = []
    for _ in range(args.kills):
        await asyncio.sleep(rng.uniform(0.2, 1.5))
        view = await organiser.view(tid)
        done_before.append(sum(p.result not in (None, "*") for p in view.pairings))
        await server.stop(signal.SIGKILL)
        kept(server.db, view)
        await server.start()
        organiser = await Client.open(server.port, "organiser")
    view = await until_over(organiser, tid)
    extra = {"kills": args.kills, "games_over_at_each_kill": done_before}
    return view, time.monotonic() - started, extra


def kept(db: Path | str, view: TournamentView) -> None:
    """Every pairing and result the view showed is stored."""
    t, results = stored(db, view.tournament_id)
    pairings = {(p.round, p.white, p.black, p.game_id) for p in t.pairings}
    for p in view.pairings:
        if p.game_id is not None:
            assert (p.round, p.white, p.black, p.game_id) in pairings, "a pairing lost"
            if p.result not in (None, "*"):
                assert results[p.game_id] is not None, "a result lost"


async def cluster_kills(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """`cluster-kills` (see the module's docstring): the figures, all checked."""
    redis_process, url = await start_redis(folder)
    nodes = {name: Server(folder, url, name) for name in ("a", "b")}
    worker_log = (folder / "worker.log").open("wb")
    worker = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ubao.engine", "worker", "--redis", url, "--hash", "1",
        stderr=worker_log,
    )  # fmt: skip
    client = redis.Redis.from_url(url)
    rng = random.Random(args.seed)
    try:
        for node in nodes.values():
            await node.start()
        organiser = await Client.open(nodes["a"].port, "organiser")
        tid = await new(organiser, args, [1, 2, 3, 4, 5], double=True, pace_ms=args.pace_ms)
        started = time.monotonic()
        await organiser.ask(TournamentStart(id=0, tournament_id=tid))
        takeovers, done_before = [], []
        for _ in range(args.kills):
            await asyncio.sleep(rng.uniform(0.5, 2.0))
            lease = client.get(lease_key(tid))
            if lease is None:  # between owners, or over
                continue
            owner = nodes[lease.decode().split("/")[0]]
            other = next(node for node in nodes.values() if node is not owner)
            organiser = await Client.open(other.port, "organiser")
            view = await organiser.view(tid)
            if view.status == "finished":
                break
            done_before.append(sum(p.result not in (None, "*") for p in view.pairings))
            await owner.stop(signal.SIGKILL)
            killed = time.monotonic()
            kept(url, view)
            async with asyncio.timeout(60):
                while (client.get(lease_key(tid)) or lease) == lease:
                    await asyncio.sleep(0.05)
            takeovers.append(round(time.monotonic() - killed, 2))
            await owner.start()  # a new node in its place
        organiser = await Client.open(nodes["a"].port, "organiser")
        view = await until_over(organiser, tid)
        wall = time.monotonic() - started
    finally:
        for node in nodes.values():
            if node.process is not None and node.process.returncode is None:
                await node.stop()
        worker.kill()
        await worker.wait()
    check(url, view)
    games = {p.game_id for p in view.pairings if p.black is not None}
    made = {key.decode().split(":", 2)[2] for key in client.scan_iter(match="ubao:game:*")}
    assert made == games, f"games started twice or lost: {sorted(made ^ games)}"
    redis_process.kill()
    await redis_process.wait()
    extra = {"kills": len(takeovers), "takeover_s": takeovers, "games_over_at_kills": done_before}
    figures = report(args.command, view, wall, (0.0, 0.0), extra)
    del figures["server_cpu_ms_per_game"], figures["engines_cpu_ms_per_game"]  # nodes restart
    return figures


COMMANDS: dict[str, Callable[[argparse.Namespace, Server], Awaitable[Measured]]] = {
    "round-robin": round_robin,
    "swiss": swiss,
    "kills": kills,
}


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="ubao-tournaments-") as folder:
        if args.command == "cluster-kills":
            print(json.dumps(await cluster_kills(args, Path(folder))))
            return
        server = Server(Path(folder))
        await server.start()
        try:
            view, wall, extra = await COMMANDS[args.command](args, server)
            cpu = server.cpu_seconds()  # before it stops: its engines are still there
        finally:
            await server.stop()
        check(server.db, view)  # the server holds the database while it runs
        print(json.dumps(report(args.command, view, wall, cpu, extra)))


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=[*COMMANDS, "cluster-kills"])
    parser.add_argument("--depths", type=depths, default=depths("1-6"), help="round-robin")
    parser.add_argument("--clients", type=int, default=20, help="swiss: bot clients")
    parser.add_argument("--depth", type=int, default=2, help="swiss: the bot clients' depth")
    parser.add_argument("--rounds", type=int, default=0, help="swiss: rounds (0: enough)")
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--pace-ms", type=int, default=150, help="kills: between bot moves")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--concurrency", type=int, default=3)
    parser.add_argument("--options", default='{"pits": 6, "seeds": 4}', help="Kalah's options")
    return parser


if __name__ == "__main__":
    asyncio.run(main(parser().parse_args()))
