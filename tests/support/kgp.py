"""KGP from its spec, for the tests (no tests here): Kalah as the spec and its reference server
play it, written apart from ubao's rules, and a small agent that speaks KGP over TCP or
WebSocket the way the spec says, with its own line reading (not ubao's codec)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from websockets.asyncio.client import connect

TIMEOUT = 30.0

LINE = re.compile(r"^\s*(?:(\d*)(?:@(\d+))?\s+)?(\w+)(?:\s+(.*?))?\s*$")
BOARD = re.compile(r"<(\d+(?:,\d+)*)>")


@dataclass
class SpecBoard:
    """A board as the spec draws it: stores, then South's pits and North's, each from the pit
    farthest from its owner's store."""

    south_store: int
    north_store: int
    south: list[int]
    north: list[int]

    @classmethod
    def parse(cls, text: str) -> SpecBoard:
        numbers = [int(n) for n in text.strip("<>").split(",")]
        size = numbers[0]
        assert len(numbers) == 3 + 2 * size, text
        return cls(numbers[1], numbers[2], numbers[3 : 3 + size], numbers[3 + size :])

    def text(self) -> str:
        numbers = [len(self.south), self.south_store, self.north_store, *self.south, *self.north]
        return "<" + ",".join(map(str, numbers)) + ">"

    def total(self) -> int:
        return self.south_store + self.north_store + sum(self.south) + sum(self.north)

    def over(self) -> bool:
        """Either row empty, or a store holding more than half the seeds."""
        half = self.total() // 2
        return (
            not any(self.south)
            or not any(self.north)
            or self.south_store > half
            or self.north_store > half
        )

    def sow(self, pit: int) -> bool:
        """South sows its pit `pit` (0-based): the spec's rules; whether South moves again."""
        size = len(self.south)
        seeds, self.south[pit] = self.south[pit], 0
        rows = {False: self.south, True: self.north}
        side, position = False, pit + 1
        while seeds:
            if position == size:
                if not side:
                    self.south_store += 1
                    seeds -= 1
                side, position = not side, 0
            else:
                rows[side][position] += 1
                position += 1
                seeds -= 1
        again = position == 0 and side
        if not again and not side:
            last = position - 1
            facing = size - 1 - last
            if self.south[last] == 1 and self.north[facing] > 0:
                self.south_store += self.north[facing] + 1
                self.north[facing] = self.south[last] = 0
        if self.over():
            self.south_store += sum(self.south)
            self.north_store += sum(self.north)
            self.south = [0] * size
            self.north = [0] * size
        return again


def split_args(text: str) -> list[str]:
    return re.findall(r'"(?:\\.|[^"\\])*"|\S+', text or "")


@dataclass
class Line:
    id: int | None
    ref: int | None
    name: str
    args: list[str]


def parse(line: str) -> Line:
    match = LINE.match(line)
    assert match is not None, line
    id_text, ref, name, rest = match.groups()
    number = int(id_text) if id_text else None
    return Line(number, int(ref) if ref else None, name, split_args(rest))


@dataclass
class SpecAgent:
    """An agent on one connection: it answers every `state` with the last non-empty pit (or
    what `choose` says), a `move` and a `yield`, and keeps what it heard."""

    read_line: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    sent: list[str] = field(default_factory=list)
    heard: list[Line] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)
    states: list[tuple[int, SpecBoard]] = field(default_factory=list)
    errors: list[Line] = field(default_factory=list)
    answer: bool = True
    next_id: int = 1
    write: Callable[[str], None] | None = None

    async def line(self, timeout: float = TIMEOUT) -> Line:
        """The next line, as parsed; records it."""
        async with asyncio.timeout(timeout):
            text = await self.read_line.get()
        assert text is not None, "the server closed the connection"
        heard = parse(text)
        self.heard.append(heard)
        if heard.name == "error":
            self.errors.append(heard)
        if heard.name == "set" and heard.args[:1] == ["game:id"]:
            self.game_ids.append(heard.args[1].strip('"'))
        if heard.name == "state":
            assert heard.id is not None
            self.states.append((heard.id, SpecBoard.parse(heard.args[0])))
        return heard

    async def until(self, name: str, timeout: float = TIMEOUT) -> Line:
        """Lines up to the next `name` one (answering states on the way, when `answer`)."""
        while True:
            heard = await self.line(timeout)
            if heard.name == name:
                return heard
            if heard.name == "state" and self.answer:
                self.play(heard)

    def send(self, text: str) -> None:
        self.sent.append(text)
        assert self.write is not None
        self.write(text)

    def say(self, command: str, ref: int | None = None) -> int:
        sent_id = self.next_id
        self.next_id += 2
        head = f"{sent_id}@{ref}" if ref is not None else str(sent_id)
        self.send(f"{head} {command}")
        return sent_id

    def play(self, state: Line) -> None:
        board = SpecBoard.parse(state.args[0])
        pit = max(i for i, seeds in enumerate(board.south) if seeds)
        self.say(f"move {pit + 1}", state.id)
        self.say("yield", state.id)

    async def play_games(self, games: int, timeout: float = TIMEOUT * 4) -> None:
        """Answer states until `games` games have started and a further one begins, or the
        connection ends; the games played in between are over then."""
        async with asyncio.timeout(timeout):
            while len(self.game_ids) <= games:
                heard = await self.line(timeout)
                if heard.name == "state" and self.answer:
                    self.play(heard)

    async def hello(self, name: str, token: str | None = None, mode: str = "freeplay") -> None:
        first = await self.line()
        assert first.name == "kgp" and first.args[0] == "1", first
        self.say(f'set info:name "{name}"')
        if token is not None:
            self.say(f'set auth:token "{token}"')
        self.say(f"mode {mode}")


@contextlib.asynccontextmanager
async def tcp_agent(port: int) -> AsyncIterator[SpecAgent]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    agent = SpecAgent()
    agent.write = lambda text: writer.write(text.encode() + b"\r\n")

    async def pump() -> None:
        while data := await reader.readline():
            agent.read_line.put_nowait(data.decode().rstrip("\r\n"))
        agent.read_line.put_nowait(None)

    task = asyncio.create_task(pump())
    try:
        yield agent
    finally:
        task.cancel()
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


@contextlib.asynccontextmanager
async def ws_agent(port: int) -> AsyncIterator[SpecAgent]:
    async with connect(f"ws://127.0.0.1:{port}/kgp", compression=None) as ws:
        agent = SpecAgent()
        outgoing: asyncio.Queue[str] = asyncio.Queue()
        agent.write = outgoing.put_nowait

        async def send_all() -> None:
            with contextlib.suppress(Exception):
                while True:
                    await ws.send(await outgoing.get() + "\r\n")

        async def pump() -> None:
            with contextlib.suppress(Exception):
                async for message in ws:
                    text = message if isinstance(message, str) else message.decode()
                    for line in text.splitlines():
                        agent.read_line.put_nowait(line)
            agent.read_line.put_nowait(None)

        tasks = (asyncio.create_task(pump()), asyncio.create_task(send_all()))
        try:
            yield agent
        finally:
            for task in tasks:
                task.cancel()
