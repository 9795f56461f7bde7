"""Helpers shared by the server tests (no tests here): a hand-driven clock, a harness that
drives the sans-I/O core, and a real WebSocket client for the end-to-end tests."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from ubao.engine.game import GameError
from ubao.engine.games import make_game
from ubao.protocol import (
    PROTOCOL_VERSION,
    AnalysisEvent,
    BotInfo,
    Command,
    Create,
    Error,
    ErrorCode,
    Event,
    GameSummary,
    Hello,
    Join,
    ListGames,
    Lobby,
    Move,
    Ok,
    Over,
    Rematch,
    RematchOffer,
    Role,
    SeatSpec,
    ServerMessage,
    TournamentEvent,
    decode_server_message,
    encode,
)
from ubao.server.app import GameServer, ServerConfig
from ubao.server.bots import BotSettings
from ubao.server.core import Core
from ubao.server.limits import Limits
from ubao.server.outputs import AnalysisJob, BotsDone, BotTurn, Close, Save, SendMessage
from ubao.server.stores.sqlite import Store

FAKE_ENGINE = str(Path(__file__).with_name("fake_engine.py"))
SMALL_KALAH = {"pits": 3, "seeds": 2}
TIMEOUT = 30.0
"""Generous bound on any single wait: a slow shared machine must never fail a test."""


def fake_engine(mode: str = "good", state: Path | None = None) -> tuple[str, ...]:
    command = (sys.executable, FAKE_ENGINE, "--mode", mode)
    return (*command, "--state", str(state)) if state else command


FAILING_SEARCH = """
import runpy, sys
from ubao.engine.search import Searcher

search = Searcher.search

def fail(self, position, depth=None, time_ms=None, **kwargs):
    search(self, position, 1, **kwargs)  # one iteration, reported as usual
    raise RuntimeError("out of luck")

Searcher.search = fail
sys.argv = ["ubao-engine", "stdio"]
runpy.run_module("ubao.engine", run_name="__main__")
"""

FAILING_ENGINE = (sys.executable, "-c", FAILING_SEARCH)
"""The real `python -m ubao.engine stdio`, with a search that fails after its first iteration."""


class FakeClock:
    """Monotonic milliseconds that move only when a test says so."""

    def __init__(self, start: int = 1_000_000) -> None:
        self.t = start

    def __call__(self) -> int:
        return self.t

    def advance(self, ms: int) -> None:
        self.t += ms


def failing_writes(db: sqlite3.Connection, table: str) -> None:
    """Make every write to `table` fail from now on, through any connection (the store's writer
    thread too), as on a full or broken disk."""
    db.execute(
        f"CREATE TRIGGER fail_{table} BEFORE INSERT ON {table}"
        " BEGIN SELECT RAISE(ABORT, 'disk I/O error (test)'); END"
    )


def healed(db: sqlite3.Connection) -> None:
    """End `failing_writes`."""
    triggers = db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    for (name,) in triggers.fetchall():
        db.execute(f"DROP TRIGGER {name}")


# -- the pure core -----------------------------------------------------------------------------


class Peer:
    """One connection to the core, with everything the core sent it (decoded from bytes)."""

    def __init__(self, harness: Harness, conn: int) -> None:
        self.harness = harness
        self.conn = conn
        self.inbox: list[ServerMessage] = []
        self.closed: tuple[int, str] | None = None
        self._ids = itertools.count(1)

    def next_id(self) -> int:
        return next(self._ids)

    def send_raw(self, data: bytes | str) -> list[ServerMessage]:
        self.harness.core.receive(self.conn, data)
        return self.harness.pump()[self.conn]

    def send(self, command: Command) -> list[ServerMessage]:
        """The messages this peer got in answer (its reply first)."""
        return self.send_raw(encode(command))

    def ok(self, command: Command) -> Ok:
        got = self.send(command)
        assert got and isinstance(got[0], Ok), got
        return got[0]

    def error(self, command: Command) -> Error:
        got = self.send(command)
        assert got and isinstance(got[0], Error), got
        return got[0]

    def hello(self, name: str = "ada", role: Role = "human") -> Ok:
        return self.ok(Hello(id=self.next_id(), proto=PROTOCOL_VERSION, name=name, role=role))

    def create(self, *seats: SeatSpec, game: str = "kalah", **kwargs: Any) -> str:
        options = kwargs.pop("options", SMALL_KALAH)
        south, north = seats or (SeatSpec.open(), SeatSpec.open())
        command = Create(
            id=self.next_id(), game=game, options=options, seats=(south, north), **kwargs
        )
        game_id = self.ok(command).game_id
        assert game_id is not None
        return game_id

    def join(self, game_id: str, seat: int | None = None) -> tuple[int, str, list[ServerMessage]]:
        got = self.send(Join(id=self.next_id(), game_id=game_id, seat=seat))
        ok = got[0]
        assert isinstance(ok, Ok) and ok.seat is not None and ok.token is not None, got
        return ok.seat, ok.token, got[1:]

    def events(self) -> list[Event]:
        others = Ok | Error | Lobby | RematchOffer | TournamentEvent | AnalysisEvent
        return [m for m in self.inbox if not isinstance(m, others)]


class Harness:
    """The core with a fake clock and an in-memory store, and its outputs sorted per peer."""

    def __init__(self, limits: Limits | None = None, store: Store | None = None) -> None:
        self.clock = FakeClock()
        self.store = store or Store(":memory:")
        self.core = Core(self.store, limits or Limits(), now=self.clock, wall=lambda: 42)
        self.peers: dict[int, Peer] = {}
        self.bot_turns: list[BotTurn] = []
        self.bots_done: list[str] = []
        self.analysis_jobs: list[AnalysisJob] = []

    def connect(self, ip: str = "10.0.0.1") -> Peer:
        peer = Peer(self, self.core.connect(ip))
        self.peers[peer.conn] = peer
        self.pump()
        return peer

    def player(self, name: str = "ada", role: Role = "human") -> Peer:
        peer = self.connect()
        peer.hello(name, role)
        return peer

    def disconnect(self, peer: Peer) -> None:
        self.core.disconnect(peer.conn)
        self.pump()

    def shutdown(self) -> None:
        self.core.shutdown()
        self.pump()

    def advance(self, ms: int) -> None:
        self.clock.advance(ms)
        self.core.tick()
        self.pump()

    def pump(self) -> dict[int, list[ServerMessage]]:
        """Deliver the core's outputs; returns what each peer got."""
        got: dict[int, list[ServerMessage]] = {conn: [] for conn in self.peers}
        for output in self.core.outputs():
            if isinstance(output, Save):
                self.store.save(output.change)
            elif isinstance(output, SendMessage):
                frame = encode(output.message)
                for conn in output.to:
                    message = decode_server_message(frame)
                    self.peers[conn].inbox.append(message)
                    got[conn].append(message)
            elif isinstance(output, Close):
                self.peers[output.conn].closed = (output.code, output.reason)
            elif isinstance(output, BotTurn):
                self.bot_turns.append(output)
            elif isinstance(output, BotsDone):
                self.bots_done.append(output.game_id)
            elif isinstance(output, AnalysisJob):
                self.analysis_jobs.append(output)
        return got


# -- end to end over real sockets --------------------------------------------------------------


class Client:
    """A WebSocket client speaking protocol v1, for the end-to-end tests."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self.events: list[Event] = []
        """Events received while waiting for replies, in order."""
        self.tournament_events: list[TournamentEvent] = []
        """Tournament events received while waiting for replies, in order."""
        self.analysis_events: list[AnalysisEvent] = []
        """Analysis events received, in order."""

    @classmethod
    @contextlib.asynccontextmanager
    async def connected(
        cls, port: int, name: str = "ada", role: Role = "human", key: str | None = None
    ) -> AsyncIterator[Client]:
        """Said hello as `name` (with the key of its account, if given)."""
        async with connect(f"ws://127.0.0.1:{port}/", compression=None) as ws:
            client = cls(ws)
            hello = Hello(id=0, proto=PROTOCOL_VERSION, name=name, role=role, key=key)
            await client.ok(hello)
            yield client

    def next_id(self) -> int:
        return next(self._ids)

    async def send(self, command: Command) -> None:
        await self.ws.send(encode(command))

    async def recv(self) -> ServerMessage:
        data = await asyncio.wait_for(self.ws.recv(), TIMEOUT)
        assert isinstance(data, bytes)
        return decode_server_message(data)

    async def reply(self, command: Command) -> Ok | Error:
        """Send a command and wait for its reply; events that come first are kept in order."""
        command = dataclasses.replace(command, id=self.next_id())
        await self.send(command)
        while True:
            message = await self.recv()
            if isinstance(message, Ok | Error) and message.id == command.id:
                return message
            if isinstance(message, TournamentEvent):
                self.tournament_events.append(message)
                continue
            if isinstance(message, AnalysisEvent):
                self.analysis_events.append(message)
                continue
            assert not isinstance(message, Ok | Error | Lobby | RematchOffer), message
            self.events.append(message)

    async def ok(self, command: Command) -> Ok:
        reply = await self.reply(command)
        assert isinstance(reply, Ok), reply
        return reply

    async def error(self, command: Command) -> Error:
        reply = await self.reply(command)
        assert isinstance(reply, Error), reply
        return reply

    async def event(self) -> Event:
        """The next event (those already received first)."""
        if self.events:
            return self.events.pop(0)
        message = await self.recv()
        while isinstance(message, AnalysisEvent):
            self.analysis_events.append(message)
            message = await self.recv()
        assert not isinstance(message, Ok | Error | Lobby | RematchOffer | TournamentEvent), message
        return message

    async def analysis(self) -> AnalysisEvent:
        """The next analysis event (those already received first); game events before it are
        kept for `event`."""
        while not self.analysis_events:
            message = await self.recv()
            if isinstance(message, AnalysisEvent):
                return message
            assert not isinstance(message, Ok | Error | Lobby | RematchOffer | TournamentEvent)
            self.events.append(message)
        return self.analysis_events.pop(0)

    async def event_of(self, kind: type[Any]) -> Any:
        """Skip events until one of `kind`."""
        while True:
            event = await self.event()
            if isinstance(event, kind):
                return event


SHARED_NICE = 0
"""The analyses' scheduling group in test servers: a share of the machine like any session's,
so that an analysis a test waits for is made on a machine that other work saturates (at 19,
the server's default, it waits for an idle core: engine/protocols/review_process.py)."""


@contextlib.asynccontextmanager
async def running_server(
    *, db: str | Path = ":memory:", now: Any = None, **config: Any
) -> AsyncIterator[GameServer]:
    config.setdefault("bots", BotSettings(command=fake_engine(), analysis_nice=SHARED_NICE))
    server_config = ServerConfig(host="127.0.0.1", port=0, db=db, **config)
    server = GameServer(server_config, now=now) if now else GameServer(server_config)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def small_limits(**changes: Any) -> Limits:
    return dataclasses.replace(Limits(), **changes)


def started_game(h: Harness, **create: Any) -> tuple[str, Peer, str, Peer, str]:
    """A Kalah game with two joined players: (game_id, south, token, north, token)."""
    south, north = h.player("south"), h.player("north")
    game_id = south.create(**create)
    _, south_token, _ = south.join(game_id, 0)
    _, north_token, _ = north.join(game_id, 1)
    return game_id, south, south_token, north, north_token


def move(peer: Peer, game_id: str, token: str, ply: int, text: str) -> list[Any]:
    return peer.send(Move(id=peer.next_id(), game_id=game_id, token=token, ply=ply, move=text))


def started(h: Harness, **create: Any) -> tuple[str, Peer, str, Peer, str]:
    south, north = h.player("south"), h.player("north")
    game_id = south.create(**create)
    _, south_token, _ = south.join(game_id, 0)
    _, north_token, _ = north.join(game_id, 1)
    return game_id, south, south_token, north, north_token


def kinds(messages: list[Any]) -> list[str]:
    return [message.type for message in messages]


def offer(peer: Peer, game_id: str, token: str) -> list[Any]:
    return peer.send(Rematch(id=peer.next_id(), game_id=game_id, token=token))


def refused(got: list[Any], code: ErrorCode) -> None:
    assert len(got) == 1 and isinstance(got[0], Error) and got[0].code == code, got


ONE_SEED = {"pits": 1, "seeds": 1}
"""Kalah with one pit of one seed: South's first move ends the game."""


def over_at_once(h: Harness, north_role: Role = "human") -> tuple[str, Peer, str, Peer, str]:
    """alice (South) creates Kalah 1x1, bob (North) joins, alice plays 1: the game is over.
    Returns (game_id, alice, her token, bob, his token)."""
    alice, bob = h.player("alice"), h.player("bob", north_role)
    game_id = alice.create(options=ONE_SEED)
    _, a_token, _ = alice.join(game_id, 0)
    _, b_token, _ = bob.join(game_id, 1)
    move(alice, game_id, a_token, 0, "1")
    assert isinstance(bob.inbox[-1], Over)
    return game_id, alice, a_token, bob, b_token


def subscribed(h: Harness, name: str) -> Peer:
    """A player whose connection gets lobby events."""
    peer = h.player(name)
    peer.ok(ListGames(id=peer.next_id(), subscribe=True))
    return peer


def lobby_line(peer: Peer, game_id: str) -> GameSummary:
    games = peer.ok(ListGames(id=peer.next_id())).games or ()
    (line,) = [game for game in games if game.game_id == game_id]
    return line


def turn(game_id: str = "g", moves: tuple[str, ...] = ("1",), **changes: Any) -> BotTurn:
    bot_turn = BotTurn(
        game_id=game_id,
        seat=1,
        ply=len(moves),
        game="kalah",
        options=SMALL_KALAH,
        moves=moves,
        spec=SeatSpec.bot(2, eval="mobility"),
        clocks=None,
    )
    return dataclasses.replace(bot_turn, **changes)


class Referee:
    """Accepts a move exactly when the rules do, and records what it was offered."""

    def __init__(self, moves: tuple[str, ...] = ("1",)) -> None:
        game = make_game("kalah", SMALL_KALAH)
        position = game.start()
        for text in moves:
            position = game.play_text(position, text)
        self.game, self.position = game, position
        self.offered: list[tuple[str, BotInfo | None]] = []

    def __call__(self, move: str, info: BotInfo | None) -> bool:
        self.offered.append((move, info))
        try:
            self.game.parse_move(self.position, move)
        except GameError:
            return False
        return True
