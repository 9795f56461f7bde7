"""`ubao-engine kgp`: ubao's engine as an agent on any KGP server (docs/kgp.md).

`KgpAgent` is the protocol, pure: the server's lines in, lines out and searches to start or
stop (`Search`, `Halt`). `run_agent` is the edge: a TCP or WebSocket connection and ubao's own
engine through the engine-protocol library (`EngineClient` over `SessionTransport`), whose
reports of each finished depth of iterative deepening go out as `move`s, the last one followed
by `yield`; a server's `stop` ends the search and nothing more is sent for that state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from ubao.engine.games import make_game
from ubao.engine.protocols import EnginePosition, Info, Limits, UbaoDialect
from ubao.engine.protocols.client import EngineClient, EngineFailure
from ubao.engine.protocols.kgp import (
    Argument,
    Board,
    Command,
    KgpSyntaxError,
    Word,
    format_line,
    kgp_options,
    parse_line,
    position_of_board,
)
from ubao.engine.protocols.transports import SessionTransport

log = logging.getLogger("ubao.engine.kgp")

DEFAULT_PORT = 2671
CLOCK_SHARE = 0.8
"""Of a relative `time:clock` (the time for this state), what a search takes."""
ABSOLUTE_SHARE = 1 / 20
"""Of an absolute `time:clock` (the time left for the game), what a search takes."""
UNTIMED_MS = 1_000
"""A search's time when neither the command line nor the server says one."""


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """What `ubao-engine kgp` is told."""

    depth: int | None = None
    time_ms: int | None = None
    info: Mapping[str, str] = field(default_factory=dict)
    """`info:*` options sent on connecting (name, authors, description)."""
    token: str | None = None
    games: int | None = None
    """Leave after this many games (`game:id` changes); None: stay."""
    tournament: str | None = None
    """A ubao server's tournament to play in (`tournament:id`, docs/kgp.md): the server enters
    the agent's account and gives it that tournament's games, then says goodbye at its end."""


@dataclass(frozen=True, slots=True)
class Search:
    """Start searching this board for `state` `request`."""

    request: int
    board: Board
    limits: Limits


@dataclass(frozen=True, slots=True)
class Halt:
    """Stop the search of `request`, sending nothing more for it."""

    request: int


@dataclass(frozen=True, slots=True)
class Say:
    line: str


@dataclass(frozen=True, slots=True)
class Leave:
    """The server said goodbye, or the agent played its games: close."""


Action = Search | Halt | Say | Leave


class KgpAgent:
    """The client side of KGP's freeplay mode, pure (see the module's docstring)."""

    def __init__(self, settings: AgentSettings) -> None:
        self.settings = settings
        self.next_id = -1
        self.request: int | None = None
        """The state being searched."""
        self.sent: int | None = None
        """The move last sent for it."""
        self.move_ids: set[int] = set()
        """The ids of the `move`s sent for it."""
        self.clock_ms: int | None = None
        self.clock_mode = "none"
        self.game_id: str | None = None
        """The `game:id` the server last set (go-kgp sets none)."""
        self.last_board: Board | None = None
        self.games_seen = 0
        self.errors: list[str] = []
        """The server's `error` messages, for the log."""

    def on_line(self, line: str) -> list[Action]:
        try:
            command = parse_line(line)
        except KgpSyntaxError as exc:
            log.warning("unreadable line from the server (%s): %r", exc, line[:200])
            return []
        if command is None:
            return []
        name, args = command.name, command.args
        if name == "kgp":
            if not args or args[0] != 1:
                return [self._say("error", "only KGP 1.x is spoken here", ref=command.id), Leave()]
            sets = [self._say("set", Word(f"info:{key}"), value) for key, value in self._infos()]
            if self.settings.token:
                sets.append(self._say("set", Word("auth:token"), self.settings.token))
            if self.settings.tournament:
                sets.append(self._say("set", Word("tournament:id"), self.settings.tournament))
            return [*sets, self._say("mode", Word("freeplay"))]
        if name == "state" and args and isinstance(args[0], Board) and command.id is not None:
            board, last = args[0], self.last_board
            self.last_board = board
            if self.game_id is None and (last is None or _another_game(last, board)):
                leave = self._new_game()
                if leave:
                    return leave
            return self._state(command.id, board)
        if name == "stop":
            if command.ref is not None and command.ref == self.request:
                self.request = None
                return [Halt(command.ref)]
            return []
        if name == "set" and len(args) == 2:
            return self._set(str(args[0]), args[1])
        if name == "ping":
            return [self._say("pong", *args[:1], ref=command.id)]
        if name == "error":
            if command.ref in self.move_ids:  # go-kgp may not know a state answered at once:
                self.sent = None  # the move is sent again with the search's answer
            self.errors.append(str(args[0]) if args else "")
            log.warning("the server says: %s", args[0] if args else "error")
            return []
        if name == "goodbye":
            return [Leave()]
        return []

    def _infos(self) -> list[tuple[str, str]]:
        return list(self.settings.info.items())

    def _state(self, request: int, board: Board) -> list[Action]:
        actions: list[Action] = []
        if self.request is not None:
            actions.append(Halt(self.request))
        self.request, self.sent = request, None
        self.move_ids.clear()
        actions.append(Search(request, board, self._limits()))
        return actions

    def _limits(self) -> Limits:
        settings = self.settings
        if settings.depth is not None:
            return Limits(depth=settings.depth, time_ms=settings.time_ms)
        if settings.time_ms is not None:
            return Limits(time_ms=settings.time_ms)
        clock = self.clock_ms
        if clock is None or self.clock_mode == "none":
            return Limits(time_ms=UNTIMED_MS)
        share = CLOCK_SHARE if self.clock_mode == "relative" else ABSOLUTE_SHARE
        return Limits(time_ms=max(1, int(clock * share)))

    def _set(self, option: str, value: object) -> list[Action]:
        if option == "time:mode":
            self.clock_mode = str(value)
        elif option == "time:clock" and isinstance(value, int | float):
            self.clock_ms = int(value * 1000)
        elif option == "game:id" and value != self.game_id:
            self.game_id = str(value)
            return self._new_game()
        return []

    def _new_game(self) -> list[Action]:
        """Another game began: leave if the games asked for are played."""
        self.games_seen += 1
        if self.settings.games is not None and self.games_seen > self.settings.games:
            return [self._say("goodbye"), Leave()]
        return []

    def improved(self, request: int, move: int) -> list[Action]:
        """The search found `move` best at a new depth: send it if it is news."""
        if request != self.request or move == self.sent:
            return []
        self.sent = move
        say = self._say("move", move, ref=request)
        self.move_ids.add(self.next_id)
        return [say]

    def finished(self, request: int, move: int | None) -> list[Action]:
        """The search ended by itself: its move, then `yield`."""
        if request != self.request:
            return []
        actions = [] if move is None else self.improved(request, move)
        self.request = None
        return [*actions, self._say("yield", ref=request)]

    def _say(self, name: str, *args: Argument, ref: int | None = None) -> Say:
        self.next_id += 2  # odd ids, the servers' are even by custom
        return Say(format_line(Command(name, args, self.next_id, ref)))


def _another_game(last: Board, board: Board) -> bool:
    """Whether `board` cannot follow `last` in one game (for servers that set no `game:id`):
    the stores never lose seeds, and no seed comes or goes."""
    stored = last.south_store + last.north_store
    return (
        board.size != last.size
        or board.seeds() != last.seeds()
        or board.south_store + board.north_store < stored
    )


# -- the edge --------------------------------------------------------------------------------


def parse_server(text: str) -> tuple[str, int] | str:
    """`HOST:PORT` (or `HOST`, port 2671) as a TCP address, or a ws:// or wss:// URL as is."""
    if text.startswith(("ws://", "wss://")):
        return text
    host, _, port = text.rpartition(":") if ":" in text else (text, "", str(DEFAULT_PORT))
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r}: give HOST:PORT, ws://... or wss://...")
    return host.strip("[]") or "localhost", int(port)


Read = Callable[[], Awaitable[str | None]]
Write = Callable[[str], None]


@contextlib.asynccontextmanager
async def connect(server: tuple[str, int] | str) -> AsyncIterator[tuple[Read, Write]]:
    """(read a line, write a line) over TCP or WebSocket; lines are written in order."""
    if isinstance(server, str):
        async with ws_connect(server, compression=None, max_size=1 << 20) as ws:
            pending: list[str] = []
            outgoing: asyncio.Queue[str] = asyncio.Queue()

            async def ws_read() -> str | None:
                while not pending:
                    try:
                        data = await ws.recv()
                    except ConnectionClosed:
                        return None
                    text = data if isinstance(data, str) else data.decode(errors="replace")
                    pending.extend(text.splitlines() or [""])
                return pending.pop(0)

            async def ws_send() -> None:
                with contextlib.suppress(ConnectionClosed):
                    while True:
                        await ws.send(await outgoing.get() + "\r\n")

            sender = asyncio.create_task(ws_send())
            try:
                yield ws_read, outgoing.put_nowait
                while not outgoing.empty() and not sender.done():
                    await asyncio.sleep(0.01)
            finally:
                sender.cancel()
        return
    reader, writer = await asyncio.open_connection(*server, limit=1 << 20)

    async def tcp_read() -> str | None:
        data = await reader.readline()
        return data.decode(errors="replace").rstrip("\r\n") if data else None

    def tcp_write(line: str) -> None:
        if not writer.is_closing():
            writer.write(line.encode() + b"\r\n")

    try:
        yield tcp_read, tcp_write
        with contextlib.suppress(OSError):
            await writer.drain()
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def run_agent(server: tuple[str, int] | str, settings: AgentSettings) -> int:
    """Play on `server` until it says goodbye or the games are played; how many states were
    answered."""
    agent = KgpAgent(settings)
    engine = await EngineClient.start(SessionTransport(), UbaoDialect(), 10.0, "ubao-engine")
    answered = 0
    searching: asyncio.Task[None] | None = None
    async with connect(server) as (read, write):

        def say(actions: list[Action]) -> None:
            for action in actions:
                if isinstance(action, Say):
                    write(action.line)

        async def halt() -> None:
            for line in engine.dialect.stop():
                await engine.transport.send(line)

        async def search(task: Search) -> None:
            nonlocal answered
            position = EnginePosition(
                "kalah", kgp_options(task.board.size, 1), _notation(task.board), (), 0
            )

            def on_info(info: Info) -> None:
                if info.principal and info.pv:
                    say(agent.improved(task.request, int(info.pv[0])))

            try:
                result = await engine.play(position, task.limits, on_info=on_info)
                move = int(result.move) if result.move is not None else None
            except EngineFailure as exc:
                log.warning("the search failed: %s", exc)
                move = int(exc.info.pv[0]) if exc.info is not None and exc.info.pv else None
            answered += 1
            say(agent.finished(task.request, move))

        try:
            while (line := await read()) is not None:
                actions = agent.on_line(line)
                say(actions)
                for action in actions:
                    if isinstance(action, Halt):
                        await halt()
                    elif isinstance(action, Search):
                        if searching is not None:
                            await searching
                        searching = asyncio.create_task(search(action))
                if any(isinstance(action, Leave) for action in actions):
                    break
        finally:
            if searching is not None and not searching.done():
                await halt()
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(5):
                        await searching
            await engine.quit(2.0)
    return answered


def _notation(board: Board) -> str:
    """The board, South to move, in ubao's Kalah notation."""
    game = make_game("kalah", kgp_options(board.size, 1))
    return str(game.format_position(position_of_board(board)))
