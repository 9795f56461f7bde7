"""Server-hosted bot seats: a bounded pool of `ubao-engine stdio` subprocesses, driven over
pipes, each searching for whichever bot seat's turn comes next.

`BotSeats` is what every way of searching shares (a move's attempts, the game's pace, the bot
turns of each game); `Bots` searches with local engines, `ubao.server.workers.WorkerPool` with
engine workers over Redis.

An engine is told the position and the seat's options before every search (and `ucinewgame`
when the game changes), so any engine can play any seat; turns beyond the pool's size wait for
an engine, and the engines are shared fairly (`EngineShares`): the next free one goes to the
waiting turn of whoever holds the fewest, so one address's deep bots cannot make another's
quick bot wait for all of their moves. Every search is bounded in time: a seat without a
`time_ms` is told the server's longest (`--max-bot-time`). The server owns the deadline: past
a move's time budget it sends `stop`, and an engine that still does not answer, or that dies,
is killed, and the move is asked of a new one. The best move found so far (the first move of
the last `info` line's pv) is kept, so a hung engine still moves. An `error` line after `go`
is only logged: the engine still owes its `bestmove` (docs/engine-protocol.md, "Errors"). The
engines are driven by the engine-protocol library (`EngineClient` over a `SubprocessTransport`,
in ubao's stdio dialect), all of it asyncio subprocess I/O: the event loop never blocks on an
engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import re
import shlex
import sys
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import AsyncIterator, Callable, Collection, Hashable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from ubao.engine.protocols import DIALECTS, EnginePosition, Limits
from ubao.engine.protocols.client import EngineClient, EngineFailure
from ubao.engine.protocols.transports import EngineGone, SubprocessTransport
from ubao.engine.protocols.wire import bot_info
from ubao.engine.search import DEFAULT_ALGORITHM
from ubao.protocol import BotInfo, Clocks, SeatSpec
from ubao.server.limits import Limits as ServerLimits
from ubao.server.outputs import BotTurn

log = logging.getLogger("ubao.server.bots")

ENGINE_COMMAND = (sys.executable, "-m", "ubao.engine", "stdio")
"""`ubao-engine stdio`, run with this server's own interpreter."""


ENGINE_BOT_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,31}")
"""An engine bot's name: what a seat spec names it by, and its bots' names begin with."""


@dataclass(frozen=True, slots=True)
class EngineBot:
    """An engine of the operator's that bot seats may ask for: a name, the protocol it speaks
    (a dialect of the engine library: `ubao`, and whichever others `DIALECTS` holds) and its
    command line."""

    name: str
    dialect: str
    command: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> EngineBot:
        """`NAME=DIALECT:COMMAND` (`--engine-bot`); ValueError says what is wrong."""
        name, equals, rest = text.partition("=")
        dialect, colon, command = rest.partition(":")
        if not equals or not colon:
            raise ValueError(f"{text!r} is not NAME=DIALECT:COMMAND")
        if not ENGINE_BOT_NAME.fullmatch(name):
            raise ValueError(
                f"engine bot name {name!r}: 1 to 32 of a-z, 0-9, '_', '.', '-', "
                "beginning with a letter or digit"
            )
        if dialect not in DIALECTS:
            raise ValueError(f"unknown protocol {dialect!r}; known: {', '.join(DIALECTS)}")
        words = tuple(shlex.split(command))
        if not words:
            raise ValueError(f"engine bot {name}: no command")
        return cls(name, dialect, words)


@dataclass(frozen=True, slots=True)
class BotSettings:
    command: tuple[str, ...] = ENGINE_COMMAND
    start_timeout_s: float = 20.0
    """For the engine to answer `uci` and `isready` (imports are slow on a busy machine)."""
    move_timeout_s: float = 60.0
    """A move's deadline when the seat has no `time_ms`: the engine was told to stop at the
    server's `--max-bot-time` (`BotSeats.max_time_ms`), so only a broken engine runs into it."""
    margin_s: float = 2.0
    """Added to a seat's `time_ms` before the server sends `stop`."""
    stop_grace_s: float = 2.0
    """After `stop`, how long the engine has to answer before it is killed."""
    attempts: int = 3
    """Attempts per move, each with another engine after a failure, before the seat forfeits."""
    quit_timeout_s: float = 2.0
    """After `quit`, how long the engine has to exit before it is killed."""
    engines: int = 4
    """Engine processes at most, shared by every bot seat: a search keeps a core busy, and a
    turn that finds them all searching waits for one (`EngineShares` says whose turn is next)."""
    hash_mb: int = 16
    """Each engine's transposition table in MB (`setoption name Hash`): with the interpreter,
    the bulk of an engine's memory."""
    analysis_engines: int = 1
    """Analyses of finished games run at once at most, at low priority (server/analysis_runs.py):
    beside the engines, not among them."""
    analysis_nice: int = 19
    """The nice of the analyses' own scheduling group (engine/protocols/review_process.py)."""
    engine_bots: tuple[EngineBot, ...] = ()
    """The operator's engine bots (`--engine-bot`), started as bot seats ask for them, in the
    same pool (`engines` counts them too)."""


@dataclass(eq=False)
class Engine:
    """One engine subprocess of the pool, driven by the library's client."""

    client: EngineClient
    transport: SubprocessTransport
    label: str
    bot: str | None = None
    """The engine bot it is (None: ubao's own engine)."""
    game_id: str | None = None
    """The game it last searched for: another one starts with a new game."""

    @classmethod
    async def start(
        cls,
        command: Sequence[str],
        label: str,
        options: Mapping[str, str],
        timeout_s: float,
        bot: EngineBot | None = None,
    ) -> Engine:
        """Start the engine, check it speaks its protocol and apply the server's options."""
        try:
            transport = await SubprocessTransport.start(command)
        except EngineGone as exc:
            raise EngineFailure(str(exc)) from None
        log.info("%s: engine started (pid %d)", label, transport.process.pid)
        dialect = DIALECTS["ubao" if bot is None else bot.dialect]()
        client = await EngineClient.start(transport, dialect, timeout_s, label)
        try:
            await client.configure(options)
        except BaseException:  # a failure, or the game ended while the engine started
            await client.kill()
            raise
        return cls(client, transport, label, None if bot is None else bot.name)

    async def close(self, timeout_s: float) -> None:
        """Ask the engine to quit; kill it if it does not."""
        await self.client.quit(timeout_s)
        log.info("%s: engine stopped", self.label)

    async def kill(self) -> None:
        await self.client.kill()
        log.info("%s: engine stopped", self.label)


Accept = Callable[[str, BotInfo | None], bool]
"""Offers a move to the game; False if the rules reject it."""


@dataclass(frozen=True, slots=True)
class SeatSearch:
    """One bot turn's search in the engine library's terms: what any engine is told."""

    position: EnginePosition
    limits: Limits
    options: dict[str, str]
    """The seat's options, each set back to the default when the seat has none, since the
    engine may have searched for another seat before."""


def seat_search(turn: BotTurn, max_time_ms: int) -> SeatSearch:
    """The search of a bot turn: to the seat's depth, within its `time_ms`, or within
    `max_time_ms` (the server's `--max-bot-time`) when it has none, so that no search of a
    server bot holds an engine longer than a bot may think (a depth-only Othello search to
    depth 20 would run into the server's deadline every move); on the game's clocks, if any."""
    position = EnginePosition(turn.game, turn.options, "startpos", turn.moves, turn.seat)
    return SeatSearch(
        position, seat_limits(turn.spec, turn.clocks, max_time_ms), seat_options(turn.spec)
    )


def seat_limits(spec: SeatSpec, clocks: Clocks | None, max_time_ms: int) -> Limits:
    movetime = max_time_ms if spec.time_ms is None else spec.time_ms
    if clocks is None:
        return Limits(depth=spec.depth, time_ms=movetime)
    increment = clocks.increment_ms
    return Limits(
        depth=spec.depth,
        time_ms=movetime,
        clocks=clocks.remaining_ms,
        increments=(increment, increment),
    )


def seat_options(spec: SeatSpec) -> dict[str, str]:
    """ubao's engine's options for the seat; an engine bot takes none (its command line says
    how it plays)."""
    if spec.engine is not None:
        return {}
    return {"Algorithm": spec.algorithm or DEFAULT_ALGORITHM, "Eval": spec.eval or "<empty>"}


@dataclass(frozen=True, slots=True)
class Answer:
    """What a search found: the `bestmove` (None for `bestmove none`) and the last `info`."""

    move: str | None
    info: BotInfo | None
    engine: Engine | None = None
    """The local engine that found it, retired if its move is not legal."""


class EngineShares:
    """Who searches next when every engine is busy: the turns wait per share (the address a
    game was created from, or the game itself when that is not known), and a freed engine
    goes to the first turn of the share holding the fewest engines, the longest waiting among
    equals. First come, first served let an address with more deep bots than engines queue
    its next turns ahead of another's quick bot, which then waited for all of their moves;
    now it waits for one engine to come free. And no share holds every engine (`most`): one
    stays for the others, so another address's bot starts at once instead of waiting for a
    deep search to end. Engines pass from a finished search straight to the turn chosen, so
    nothing can jump the queue."""

    def __init__(self, engines: int) -> None:
        self.free = engines
        """Engines that no search holds (running or still to be started)."""
        self.most = max(1, engines - 1)
        """The engines one share may hold at once: all but one, where there are several."""
        self.held: dict[Hashable, int] = {}
        """The engines each share's searches hold, for shares holding any."""
        self._waiting: dict[Hashable, deque[tuple[int, asyncio.Future[None]]]] = {}
        """Each share's waiting turns in order, each with its place in the queue of all."""
        self._arrivals = itertools.count()

    @contextlib.asynccontextmanager
    async def engine(self, share: Hashable) -> AsyncIterator[None]:
        """Hold an engine for `share` while the body searches."""
        await self._take(share)
        try:
            yield
        finally:
            self._give_back(share)

    def waiting(self) -> int:
        """Turns waiting for an engine."""
        return sum(len(queue) for queue in self._waiting.values())

    async def _take(self, share: Hashable) -> None:
        if self.free > 0 and self.held.get(share, 0) < self.most:
            self._hand(share)  # nobody else can take it: whoever waits holds `most` already
            return
        future = asyncio.get_running_loop().create_future()
        entry = (next(self._arrivals), future)
        self._waiting.setdefault(share, deque()).append(entry)
        try:
            await future
        except asyncio.CancelledError:  # the game ended while its turn waited
            if future.done() and not future.cancelled():
                self._give_back(share)  # an engine was handed over as the turn was cancelled
            else:
                self._drop(share, entry)
            raise

    def _give_back(self, share: Hashable) -> None:
        held = self.held[share] - 1
        if held:
            self.held[share] = held
        else:
            del self.held[share]
        self.free += 1
        while self.free > 0:
            shares = [s for s in self._waiting if self.held.get(s, 0) < self.most]
            if not shares:
                return  # the free engine waits for another share's turn
            first = min(shares, key=lambda s: (self.held.get(s, 0), self._waiting[s][0][0]))
            entry = self._waiting[first][0]
            self._drop(first, entry)
            if not entry[1].cancelled():
                self._hand(first)
                entry[1].set_result(None)

    def _hand(self, share: Hashable) -> None:
        self.free -= 1
        self.held[share] = self.held.get(share, 0) + 1

    def _drop(self, share: Hashable, entry: tuple[int, asyncio.Future[None]]) -> None:
        queue = self._waiting.get(share)
        if queue is not None and entry in queue:
            queue.remove(entry)
            if not queue:
                del self._waiting[share]


class BotSeats(ABC):
    """The bot turns of every game and a move's attempts, whoever searches: the local engine
    pool (`Bots`) or engine workers over Redis (`ubao.server.workers.WorkerPool`)."""

    engines: Collection[Engine]
    """Engine processes of this server, idle or searching (`ubao_engines` in /metrics)."""

    def __init__(self, settings: BotSettings) -> None:
        self.settings = settings
        self.max_time_ms = ServerLimits().max_bot_time_ms
        """The server's `--max-bot-time` (`Limits.max_bot_time_ms`, which the server sets
        here): the `movetime` of a seat without `time_ms`, so that a depth-only search ends
        as soon as a timed one may."""
        self._tasks: dict[str, set[asyncio.Task[None]]] = {}

    def busy(self) -> bool:
        """Whether bot turns wait for an engine now: the server's analyses wait then (engine
        workers put their own after every bot turn instead: `WorkerPool.review`)."""
        return False

    def spawn(self, game_id: str, work: asyncio.Task[None]) -> None:
        """Track a bot turn's task so that `release` can cancel it."""
        tasks = self._tasks.setdefault(game_id, set())
        tasks.add(work)
        work.add_done_callback(tasks.discard)

    async def play(self, turn: BotTurn, accept: Accept, share: str | None = None) -> str | None:
        """Have an engine move for the seat, not sooner than the game's pace allows; None once
        a move was accepted, else why it failed. `share` is the address the game was created
        from, whose turns share the engines with every other address's (`EngineShares`);
        without it the game is a share of its own."""
        settings = self.settings
        loop = asyncio.get_running_loop()
        not_before = loop.time() + turn.pace_ms / 1000
        budget_s = settings.move_timeout_s
        if turn.spec.time_ms is not None:
            budget_s = turn.spec.time_ms / 1000 + settings.margin_s
        search = seat_search(turn, self.max_time_ms)
        key: Hashable = ("game", turn.game_id) if share is None else ("address", share)
        why = "no attempt"
        for _ in range(settings.attempts):
            try:
                async with self._turn(key):
                    answer = await self._search(turn, search, budget_s)
            except EngineFailure as exc:
                why = str(exc)
                log.warning("game %s seat %d: %s", turn.game_id, turn.seat, why)
                if exc.info is None or not exc.info.pv:
                    continue
                answer = Answer(exc.info.pv[0], bot_info(exc.info))  # the best found so far
            await asyncio.sleep(not_before - loop.time())
            if answer.move is not None and accept(answer.move, answer.info):
                return None
            why = f"the engine's move {answer.move!r} is not legal here"
            log.warning("game %s seat %d: %s", turn.game_id, turn.seat, why)
            await self._rejected(answer)
        return why

    async def release(self, game_id: str) -> None:
        """The game is over: stop its bot turns (their searches end with them)."""
        await self._cancel(self._tasks.pop(game_id, set()))

    async def close(self) -> None:
        tasks, self._tasks = self._tasks, {}
        await self._cancel(set().union(*tasks.values()))

    @staticmethod
    async def _cancel(tasks: set[asyncio.Task[None]]) -> None:
        """Cancel bot turns and wait until they have cleaned up (ended their search)."""
        current = asyncio.current_task()
        pending = [task for task in tasks if task is not current]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def _turn(self, share: Hashable) -> AbstractAsyncContextManager[object]:
        """What an attempt holds while it searches: nothing here (engine workers take the jobs
        in the order they come), one of the local engines in `Bots`."""
        return contextlib.nullcontext()

    @abstractmethod
    async def _search(self, turn: BotTurn, search: SeatSearch, budget_s: float) -> Answer:
        """One attempt: the search done within `budget_s` (then `stop`); EngineFailure when no
        move came."""

    @abstractmethod
    async def _rejected(self, answer: Answer) -> None:
        """The rules refused the answer's move, before the next attempt."""


class Bots(BotSeats):
    """The local engine pool: `ubao-engine stdio` processes of this server."""

    def __init__(self, settings: BotSettings) -> None:
        super().__init__(settings)
        self.engines: set[Engine] = set()
        """Every engine process running, idle or searching."""
        self._idle: dict[str | None, list[Engine]] = {}
        """The idle engines of each kind: ubao's own (None) and each engine bot's."""
        self.shares = EngineShares(max(1, settings.engines))
        """Which turn searches next: one engine per search, handed out fairly."""
        self._numbers = itertools.count(1)

    async def close(self) -> None:
        await super().close()
        idle, self._idle, self.engines = self._idle, {}, set()
        engines = [engine for kind in idle.values() for engine in kind]
        await asyncio.gather(*(engine.close(self.settings.quit_timeout_s) for engine in engines))

    async def check(self, bot: str | None = None) -> None:
        """Start an engine (ubao's own, or engine bot `bot`) and keep it idle for the first bot
        turn: a command that does not start, or does not answer its handshake and options
        within `start_timeout_s`, is an EngineFailure now (the server checks its `--engine`
        and every `--engine-bot` once, as it starts)."""
        self._idle.setdefault(bot, []).append(await self._engine(bot))

    def busy(self) -> bool:
        return self.shares.waiting() > 0

    def _turn(self, share: Hashable) -> AbstractAsyncContextManager[object]:
        return self.shares.engine(share)

    async def _search(self, turn: BotTurn, search: SeatSearch, budget_s: float) -> Answer:
        """Search with an idle engine, or a new one (the turn holds its place in `shares`); it
        goes back to the pool after, unless it failed or the game ended mid-search (then it is
        killed)."""
        engine = await self._engine(turn.spec.engine)
        try:
            client = engine.client
            if engine.game_id != turn.game_id:
                await client.new_game()
                engine.game_id = turn.game_id
            await client.configure(search.options)
            result = await client.play(
                search.position,
                search.limits,
                budget_s=budget_s,
                stop_grace_s=self.settings.stop_grace_s,
            )
        except BaseException:
            await self._retire(engine)
            raise
        self._idle.setdefault(engine.bot, []).append(engine)
        return Answer(result.move, bot_info(result.info), engine)

    async def _rejected(self, answer: Answer) -> None:
        engine = answer.engine
        if engine is not None and engine in self._idle.get(engine.bot, []):  # ask a new engine
            self._idle[engine.bot].remove(engine)
            await self._retire(engine)

    async def _engine(self, bot: str | None) -> Engine:
        """An idle engine of the kind asked for (None: ubao's own), or a new one."""
        if idle := self._idle.get(bot):
            return idle.pop()
        settings = self.settings
        label = f"engine {next(self._numbers)}"
        if bot is None:
            options = {"Hash": str(settings.hash_mb)}
            engine = await Engine.start(settings.command, label, options, settings.start_timeout_s)
        else:
            (chosen,) = [known for known in settings.engine_bots if known.name == bot]
            label = f"{label} ({bot})"
            engine = await Engine.start(chosen.command, label, {}, settings.start_timeout_s, chosen)
        self.engines.add(engine)
        return engine

    async def _retire(self, engine: Engine) -> None:
        self.engines.discard(engine)
        await engine.kill()
