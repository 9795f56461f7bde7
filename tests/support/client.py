"""Helpers for the client tests: an in-process server, a proxy that can cut connections, and
screens driven through prompt_toolkit's pipe input. No tests here."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.support.server import SHARED_NICE
from ubao.client.connection import Backoff
from ubao.client.live import LiveGame
from ubao.client.seating import SeatSession
from ubao.client.tokens import TokenStore
from ubao.engine.games import make_game
from ubao.protocol import Create, Event, Ping, RematchOffer, SeatSpec, Snapshot
from ubao.server.app import GameServer, ServerConfig
from ubao.server.bots import BotSettings
from ubao.server.limits import Limits

FAST = Backoff(first=0.05, limit=0.2, jitter=0.0)
"""Reconnect at once in tests; a cut proxy refuses until it is restored, so nothing races."""
SMALL_KALAH = {"pits": 4, "seeds": 3}
WAIT_S = 30.0
"""How long a test waits for a condition before it fails (a bound, not a timing assumption)."""


async def until(condition: Callable[[], object], what: str = "condition") -> None:
    """Wait until `condition()` is true (polling the event loop), or fail after WAIT_S."""

    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(poll(), WAIT_S)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


@contextlib.asynccontextmanager
async def game_server(**limits: Any) -> AsyncIterator[GameServer]:
    """A real server on a free loopback port with an in-memory database and real engines, its
    analyses sharing the machine like any session's (`SHARED_NICE`)."""
    config = ServerConfig(
        port=0,
        db=":memory:",
        limits=dataclasses.replace(Limits(), **limits),
        bots=BotSettings(analysis_nice=SHARED_NICE),
    )
    async with GameServer(config) as server:
        yield server


def url_of(server: GameServer) -> str:
    return f"ws://127.0.0.1:{server.port}/"


def kalah_create(*seats: SeatSpec, options: dict[str, int] | None = None) -> Create:
    return Create(
        id=0,
        game="kalah",
        options=options or SMALL_KALAH,
        seats=(seats[0], seats[1]) if seats else (SeatSpec.open(), SeatSpec.open()),
    )


class Proxy:
    """A TCP relay to the server whose connections a test can cut, and refuse until restored:
    a network failure the client cannot tell from a real one."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.refusing = False
        self.port = 0
        self._pipes: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._pipes |= {writer, up_writer}

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    def cut(self) -> None:
        """Drop every connection now and refuse new ones."""
        self.refusing = True
        for writer in self._pipes:
            writer.transport.abort()
        self._pipes.clear()

    def restore(self) -> None:
        self.refusing = False

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


@dataclasses.dataclass
class Screen:
    """A running `LiveGame` and the pipe that types into it."""

    live: LiveGame
    keys: PipeInput
    task: asyncio.Task[None]

    def type(self, text: str) -> None:
        self.keys.send_text(text)

    async def quit(self) -> None:
        self.type("\x11")  # Ctrl-Q
        await asyncio.wait_for(self.task, WAIT_S)


@contextlib.asynccontextmanager
async def screen(url: str, name: str, tokens: Path, **kwargs: Any) -> AsyncIterator[Screen]:
    """A `LiveGame` screen on pipe input and dummy output, left with Ctrl-Q at the end."""
    with create_pipe_input() as keys:
        live = LiveGame(
            url,
            name,
            tokens=TokenStore(tokens),
            backoff=FAST,
            input=keys,
            output=DummyOutput(),
            step_seconds=kwargs.pop("step_seconds", 0),
            **kwargs,
        )
        task = asyncio.create_task(live.run())
        running = Screen(live, keys, task)
        try:
            yield running
        finally:
            if not task.done():
                await running.quit()


@contextlib.asynccontextmanager
async def two_players(tmp_path: Path) -> AsyncIterator[tuple[Screen, Screen]]:
    """Alice (South) and Bob at a new game of Kalah (3,2) on a server of their own, Alice to
    move; her `1` leaves Bob to move (no extra turn)."""
    async with game_server() as server:
        url = url_of(server)
        create = kalah_create(options={"pits": 3, "seeds": 2})
        async with screen(url, "alice", tmp_path / "a.json", create=create) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            async with screen(url, "bob", tmp_path / "b.json", game_id=alice.live.game_id) as bob:
                await until(lambda: alice.live.state.legal, "alice's turn")
                yield alice, bob


@contextlib.contextmanager
def recording(live: LiveGame) -> Iterator[list[Any]]:
    """Every command the screen's session sends while the block runs, but its periodic pings."""
    sent: list[Any] = []
    request = live.session.request

    async def spy(command: Any) -> Any:
        if not isinstance(command, Ping):
            sent.append(command)
        return await request(command)

    live.session.request = spy  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        live.session.request = request  # type: ignore[method-assign]


def replays_to_the_end(snapshot: Snapshot) -> bool:
    """The snapshot's history, replayed by the local rules, ends the game as the server says."""
    game = make_game(snapshot.game, snapshot.options)
    position = game.start()
    for move in snapshot.history:
        position = game.play_text(position, move)
    outcome = game.outcome(position)
    return (
        outcome is not None
        and snapshot.result is not None
        and (outcome.winner, outcome.reason) == (snapshot.result.winner, snapshot.result.reason)
    )


class Person(SeatSession):
    """A scripted person at a seat: its game as the server tells it, and the rematch offers it
    hears (an accepted one is followed into the new game, as the screen does)."""

    def __init__(self, url: str, name: str, tokens: TokenStore, **where: Any) -> None:
        super().__init__(url, name, "human", tokens=tokens, backoff=FAST, **where)
        self.offers: list[RematchOffer] = []

    def on_event(self, event: Event) -> None:
        self.state.apply(event, time.monotonic())

    def on_rematch(self, offer: RematchOffer) -> None:
        self.offers.append(offer)
        if offer.state == "accepted" and offer.game_id == self.game_id:
            self.follow_rematch(offer)

    def my_turn(self) -> bool:
        return bool(self.state.legal) and not self.state.over

    async def play(self, move: str) -> None:
        """Play `move` and wait until it is this seat's turn again (after an extra turn, or
        the opponent's answer), or the end."""
        ply = self.state.ply
        await self.move(ply, move)
        await until(lambda: self.state.over or (self.my_turn() and self.state.ply > ply))
