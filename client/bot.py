"""`ubao bot`: a bot client that plays over the network with the local engine.

Each game gets its own reconnecting `Session` and its own `Searcher` (its tables carry over
from move to move). The search runs in a worker thread, so the connection keeps answering
while the engine thinks. A chosen move is remembered by ply: if the connection drops while
the move is on its way, the bot resends the same move after resuming (the server ignores a
resend for a ply already played) instead of searching again. Each move carries the search's
report (`info`), which the server passes on to everyone in the game.

`serve` waits in the lobby and joins only the seats that ask for an external bot
(`wants_bot`), never a seat a person may be waiting to take. It subscribes to the lobby's
pushed changes, so that it hears of such a seat at once without polling; a server that does
not push is polled. See docs/client.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from ubao.client.connection import (
    DEFAULT_BACKOFF,
    DEFAULT_BUDGET,
    Backoff,
    Budget,
    Disconnected,
    ServerError,
    Session,
)
from ubao.client.seating import SeatSession
from ubao.client.state import Applied, GameState, describe_result
from ubao.client.tokens import TokenStore
from ubao.engine.games import GAMES
from ubao.engine.search import Searcher, SearchResult
from ubao.protocol import (
    MAX_PAGE,
    MAX_PV,
    BotInfo,
    Create,
    ErrorCode,
    Event,
    GameSummary,
    ListGames,
    Result,
    mate_score,
)

log = logging.getLogger("ubao.bot")

CLOCK_SHARE = 20
"""With a clock and no --time-ms, a move may use 1/CLOCK_SHARE of the time left (plus the
increment), so the bot never flags in a long game."""


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """How the bot searches: like a server bot seat's depth, time_ms, eval and algorithm."""

    depth: int
    time_ms: int | None = None
    eval: str | None = None
    algorithm: str = "negamax"

    def describe(self) -> str:
        text = f"depth {self.depth}"
        if self.time_ms is not None:
            text += f", {self.time_ms} ms"
        return text


def time_budget(state: GameState, seat: int, settings: EngineSettings, now: float) -> int | None:
    """The milliseconds the next search may take: --time-ms, capped by the clock if any."""
    budgets = [settings.time_ms] if settings.time_ms is not None else []
    remaining = state.remaining_ms(seat, now)
    if remaining is not None:
        increment = state.clocks.increment_ms if state.clocks else 0
        budgets.append(max(remaining // CLOCK_SHARE + increment // 2, 1))
    return min(budgets, default=None)


def search_info(game: Any, position: Any, result: SearchResult[Any]) -> BotInfo:
    """The search report sent with a move, shaped as a server bot's: the score from the mover's
    point of view in whole points, a forced result as ±(MATE_SCORE - plies) with `mate` set.
    The pv is cut to what the protocol lets a client send."""
    pv = []
    for move in result.pv[:MAX_PV]:
        try:
            pv.append(game.format_move(position, move))
            position = game.play(position, move)
        except ValueError:
            break
    mate = result.mate
    stats = result.stats
    return BotInfo(
        depth=stats.depth,
        score=mate_score(mate) if mate is not None else round(result.score),
        nodes=stats.generated,
        time_ms=round(stats.seconds * 1000),
        pv=tuple(pv),
        mate=mate,
    )


def describe_search(info: BotInfo) -> str:
    """The search report a bot logs with each move: depth, score, nodes, time and PV."""
    if info.mate is None:
        score = f"{info.score:+d}"
    else:
        score = f"win in {info.mate}" if info.mate >= 0 else f"loss in {-info.mate}"
    return (
        f"depth {info.depth} score {score} nodes {info.nodes} "
        f"time {info.time_ms} ms pv {' '.join(info.pv)}"
    )


def bot_name(name: str, settings: EngineSettings) -> str:
    """The name a bot client plays under: the name given, and that it is a bot of such a depth
    (as server bots are named), so that everyone's seat list says what sits there."""
    return f"{name} (bot, depth {settings.depth})"


class BotGame(SeatSession):
    """Plays one seat of one game to its end."""

    def __init__(
        self,
        url: str,
        name: str,
        settings: EngineSettings,
        *,
        game_id: str | None = None,
        create: Create | None = None,
        seat: int | None = None,
        tokens: TokenStore | None = None,
        backoff: Backoff = DEFAULT_BACKOFF,
        budget: Budget = DEFAULT_BUDGET,
    ) -> None:
        super().__init__(
            url,
            bot_name(name, settings),
            "bot",
            game_id=game_id,
            create=create,
            seat=seat,
            tokens=tokens,
            backoff=backoff,
            budget=budget,
        )
        self.settings = settings
        self.searcher: Searcher[Any, Any] | None = None
        self.decided: tuple[int, str, BotInfo] | None = None
        """The move chosen for a ply, with its search report, kept until the server has it."""
        self.done = asyncio.Event()
        self._thinking: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self) -> Result | None:
        """Play until the game is over (its result) or the session fails (None, `error`)."""
        async with self.connected():
            try:
                await self.done.wait()
            finally:
                if self.searcher is not None:
                    self.searcher.stop()
                for task in self._tasks.copy():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
        return self.state.result

    # -- the session's hooks -------------------------------------------------------------------

    def on_closed(self, error: str) -> None:
        log.error("game %s: %s", self.game_id, error)
        self.done.set()

    def on_state(self, text: str) -> None:
        log.info("game %s: %s", self.game_id, text)

    def on_seated(self, joined: bool) -> None:
        assert self.held is not None
        if joined:
            log.info(
                "game %s: seat %d (%s)", self.game_id, self.held.seat, self.settings.describe()
            )
        self._consider()

    def on_event(self, event: Event) -> None:
        if self.state.apply(event, time.monotonic()) is Applied.GAP:
            self._spawn(self.resync())
        elif self.state.over:
            self._finish()
        else:
            self._consider()

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _finish(self) -> None:
        if self.done.is_set():
            return
        result = self.state.result
        if result is not None:
            sides = GAMES[self.state.game_name].sides
            log.info(
                "game %s over: %s", self.game_id, describe_result(result, self.state.names(), sides)
            )
        self.forget_seat()
        self.done.set()

    def _consider(self) -> None:
        """Think if it is this bot's turn and it is not thinking already."""
        if not self.state.legal or self.state.over:
            return
        if self._thinking is not None and not self._thinking.done():
            return
        ply = self.state.ply
        self._thinking = self._spawn(self._play(ply))
        # The `moved` event of this move (with the legal moves of an extra turn) may arrive
        # while the task still runs; look again when it is done, if the game went on.
        self._thinking.add_done_callback(
            lambda _: self._consider() if self.state.ply != ply else None
        )

    async def _play(self, ply: int) -> None:
        state = self.state
        game, position = state.game, state.position
        assert game is not None and self.held is not None and self.game_id is not None
        if self.decided is None or self.decided[0] != ply:
            if self.searcher is None:
                try:
                    self.searcher = Searcher(game, self.settings.algorithm, self.settings.eval)
                except ValueError as error:  # an --eval this game does not have
                    self.error = str(error)
                    log.error("game %s: %s", self.game_id, error)
                    self.done.set()
                    return
            budget = time_budget(state, self.held.seat, self.settings, time.monotonic())
            result = await asyncio.to_thread(
                self.searcher.search, position, self.settings.depth, budget
            )
            if state.ply != ply or state.over:
                return
            move = game.format_move(position, result.move)
            info = search_info(game, position, result)
            self.decided = (ply, move, info)
            log.info("game %s ply %d: %s (%s)", self.game_id, ply, move, describe_search(info))
        _, move, info = self.decided
        try:
            await self.move(ply, move, info)
        except ServerError as error:
            if error.code != ErrorCode.STALE_PLY:
                log.error("game %s ply %d: %s refused: %s", self.game_id, ply, move, error)
        except Disconnected:
            log.warning(
                "game %s ply %d: connection lost sending %s; resending after resume",
                self.game_id,
                ply,
                move,
            )


def bot_seat(summary: GameSummary) -> int | None:
    """The seat a serving bot should take in this lobby entry: a free seat of a waiting game
    that asks for an external bot. Plain open seats are left to people."""
    if summary.status != "waiting":
        return None
    wanted = (i for i, seat in enumerate(summary.seats) if seat.wants_bot and seat.name is None)
    return next(wanted, None)


def settings_for(summary: GameSummary, seat: int, settings: EngineSettings) -> EngineSettings:
    """The serving bot's settings for a seat: the depth the seat wishes for, if it names one,
    but never deeper than the bot's own `depth`."""
    wished = summary.seats[seat].depth
    if wished is None or wished >= settings.depth:
        return settings
    return dataclasses.replace(settings, depth=wished)


async def serve(
    url: str,
    name: str,
    settings: EngineSettings,
    *,
    max_games: int = 1,
    poll_seconds: float = 2.0,
    tokens: TokenStore | None = None,
    backoff: Backoff = DEFAULT_BACKOFF,
    budget: Budget = DEFAULT_BUDGET,
) -> None:
    """Wait in the lobby forever, playing up to `max_games` games at a time.

    The open games are listed with `subscribe` on every (re)connection, then the server's
    `lobby` events keep them current. Until the first such event the lobby is listed again
    every `poll_seconds`, for a server that does not push (its lobby is silent otherwise).
    """
    waiting: dict[str, GameSummary] = {}
    """Open games as last heard of, by id: those with a seat for this bot are joined."""
    changed = asyncio.Event()
    pushed = False

    def heard(summaries: tuple[GameSummary, ...]) -> None:
        waiting.update((summary.game_id, summary) for summary in summaries)
        changed.set()

    def on_lobby(summary: GameSummary) -> None:
        nonlocal pushed
        pushed = True
        heard((summary,))

    async def list_open() -> None:
        page = ListGames(id=0, filter="open", limit=MAX_PAGE, subscribe=True)
        games = (await lobby.request(page)).games or ()
        waiting.clear()
        heard(games)

    lobby = Session(
        url,
        name,
        "bot",
        on_event=lambda event: None,
        on_ready=list_open,
        on_lobby=on_lobby,
        backoff=backoff,
        budget=budget,
    )
    lobby_task = asyncio.create_task(lobby.run())
    lobby_task.add_done_callback(lambda _: changed.set())
    playing: dict[str, asyncio.Task[Result | None]] = {}
    log.info(
        "serving %s as %s (%s, up to %d game%s at a time): waiting for seats that ask for a "
        "bot client (ubao play --new GAME --vs-external-bot)",
        url,
        name,
        settings.describe(),
        max_games,
        "s" if max_games > 1 else "",
    )
    try:
        while True:
            if lobby_task.done():
                lobby_task.result()  # the lobby's session ended: say why
            for game_id in [game_id for game_id, task in playing.items() if task.done()]:
                del playing[game_id]
            for summary in list(waiting.values()):
                seat = bot_seat(summary)
                if seat is None or summary.game_id in playing:
                    del waiting[summary.game_id]
                    continue
                if len(playing) >= max_games:
                    break  # kept: joined when a game ends, if still open then
                del waiting[summary.game_id]
                chosen = settings_for(summary, seat, settings)
                log.info(
                    "joining game %s (%s) as seat %d, %s",
                    summary.game_id,
                    summary.game,
                    seat,
                    chosen.describe(),
                )
                bot = BotGame(
                    url,
                    name,
                    chosen,
                    game_id=summary.game_id,
                    seat=seat,
                    tokens=tokens,
                    backoff=backoff,
                    budget=budget,
                )
                playing[summary.game_id] = task = asyncio.create_task(bot.run())
                task.add_done_callback(lambda _: changed.set())
            changed.clear()
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for may swallow a cancel.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(None if pushed else poll_seconds):
                    await changed.wait()
            if not pushed and not changed.is_set() and lobby.connected.is_set():
                with contextlib.suppress(Disconnected, ServerError):
                    await list_open()
    finally:
        await lobby.close()
        for task in (*playing.values(), lobby_task):
            task.cancel()
        await asyncio.gather(*playing.values(), lobby_task, return_exceptions=True)
