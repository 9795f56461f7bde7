"""`ubao bot`: a bot client that plays over the network with the local engine.

Each game gets its own reconnecting `ServerSession` and its own engine: the stdio engine in this
process (its tables carry over from move to move), driven as any engine is, by the engine-protocol
library's `EngineClient` over a `SessionTransport`, in the stdio protocol. The search runs in the
engine's thread, so the connection keeps answering while the engine thinks; its time on a clock
is the library's one time manager's (`time_budget`), as for every engine. A chosen move is
remembered by ply: if the connection drops while the move is on its way, the bot resends the
same move after resuming (the server ignores a resend for a ply already played) instead of
searching again. Each move carries the search's report (`info`), which the server passes on
to everyone in the game.

The bot grants a takeback at once, as server bots do. A serving bot stays in a finished game
for a while (`REMATCH_WAIT`) and accepts the opponent's rematch offer when it has a free game
slot (declines it otherwise), then plays the new game in the swapped seat; a bot playing one
game (`--join`, `--new`) leaves at its end. The serving bot (`--serve`) is `serving.py`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from ubao.client.connection import (
    DEFAULT_BACKOFF,
    DEFAULT_BUDGET,
    Backoff,
    Budget,
    Disconnected,
    ServerError,
)
from ubao.client.seating import SeatSession
from ubao.client.state import Applied, GameState, describe_result
from ubao.client.tokens import TokenStore
from ubao.engine.game import GameError
from ubao.engine.games import GAMES, make_game
from ubao.engine.protocols import EnginePosition, Info, Limits, time_budget
from ubao.engine.protocols.client import EngineClient, EngineFailure
from ubao.engine.protocols.transports import SessionTransport
from ubao.engine.protocols.ubao import UbaoDialect
from ubao.engine.protocols.wire import bot_info
from ubao.engine.search import DEFAULT_ALGORITHM
from ubao.protocol import (
    BotInfo,
    Create,
    ErrorCode,
    Event,
    Moved,
    RematchOffer,
    Result,
    Snapshot,
    TakebackRequest,
)

log = logging.getLogger("ubao.bot")

ENGINE_TIMEOUT_S = 30.0
"""For the engine in this process to answer its handshake and options."""
STOP_MARGIN_S = 2.0
"""Past a search's own deadline, when the bot tells it to stop (the engine keeps its deadline
itself: this only guards against one that does not)."""
REMATCH_WAIT = 120.0
"""Seconds a serving bot stays in a finished game for a rematch offer: time for the opponent
to look back through the game (lichess keeps its offer open while both are on the page, and
the server tells no one when a player leaves a finished game)."""


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """How the bot searches: like a server bot seat's depth, time_ms, eval and algorithm."""

    depth: int
    time_ms: int | None = None
    eval: str | None = None
    algorithm: str = DEFAULT_ALGORITHM
    threads: int = 1
    """Search threads (ABDADA in the native search; one elsewhere, and the log says why)."""

    def describe(self) -> str:
        text = f"depth {self.depth}"
        if self.time_ms is not None:
            text += f", {self.time_ms} ms"
        return text

    def plays(self, game: str, options: dict[str, Any] | None = None) -> bool:
        """Whether these settings can play `game`: it has the evaluation `eval` names (any
        evaluation does when none is named). A bot takes no seat of a game it cannot play."""
        if self.eval is None:
            return True
        try:
            return self.eval in make_game(game, options or {}).evaluations
        except GameError:
            return False

    def options(self) -> dict[str, str]:
        """The engine's options for these settings."""
        return {
            "Algorithm": self.algorithm,
            "Eval": self.eval or "<empty>",
            "Threads": str(self.threads),
        }


def search_limits(state: GameState, settings: EngineSettings, now: float) -> Limits:
    """The next search's limits: the depth, --time-ms and the game's clocks, if any (the
    engine's time manager makes a move's time of them, as a server bot's engine does)."""
    clocks: tuple[int | None, int | None] = (None, None)
    increment = 0
    if state.clocks is not None:
        clocks = (state.remaining_ms(0, now), state.remaining_ms(1, now))
        increment = state.clocks.increment_ms
    return Limits(
        depth=settings.depth,
        time_ms=settings.time_ms,
        clocks=clocks,
        increments=(increment, increment),
    )


def search_report_line(info: BotInfo) -> str:
    """The search report a bot logs with each move: depth, score, nodes, time and PV."""
    if info.mate is None:
        score = f"{info.score:+d}"
    else:
        score = f"win in {info.mate}" if info.mate >= 0 else f"loss in {-info.mate}"
    return (
        f"depth {info.depth} score {score} nodes {info.nodes} "
        f"time {info.time_ms} ms pv {' '.join(info.pv)}"
    )


def bot_client_name(name: str, settings: EngineSettings) -> str:
    """The name a bot client plays under: the name given and its depth, as server bots are
    named (`ubao-engine (depth 4)`); that it is a bot client the seat info's `client` says, so
    the name need not. Its own name also keeps its seat tokens apart from those of a person of
    the same name (the same login) in the same game. An account's bot plays under the
    account's name as it is (`BotGame` with a key)."""
    return f"{name} (depth {settings.depth})"


class BotGame(SeatSession):
    """Plays one seat of one game to its end, then the rematches it accepts, if any.

    `rematch` is asked when the opponent offers one: True accepts it (None: the bot leaves as
    soon as the game is over and hears no offer); `on_over` is told when a game ends, so that
    a serving bot can fill the game slot it frees.
    """

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
        rematch: Callable[[], bool] | None = None,
        on_over: Callable[[], None] | None = None,
        rematch_wait: float = REMATCH_WAIT,
        pace: float = 0.0,
        key: str | None = None,
    ) -> None:
        super().__init__(
            url,
            name if key is not None else bot_client_name(name, settings),
            "bot",
            game_id=game_id,
            create=create,
            seat=seat,
            tokens=tokens,
            backoff=backoff,
            budget=budget,
            key=key,
        )
        self.settings = settings
        self.engine: EngineClient | None = None
        """The engine, started for the first search and kept for every game the bot plays."""
        self.transport: SessionTransport | None = None
        self._engine_game: str | None = None
        """The game the engine last searched for: another one starts with a new game."""
        self.decided: tuple[int, str, BotInfo | None] | None = None
        """The move chosen for a ply, with its search report, kept until the server has it."""
        self.done = asyncio.Event()
        self.rematch_wanted = rematch
        self.on_over = on_over
        self.rematch_wait = rematch_wait
        self.pace = pace
        """The least time, in seconds, from the previous move to this bot's (`--pace`), so
        that people can follow a game between bots."""
        self.game_pace = 0.0
        """The game's own pace in seconds (`create`'s `pace_ms`, from its snapshot), which
        server bots keep to: a bot client keeps to it too, whichever of the two is longer."""
        self._moved_at = 0.0
        """Monotonic time at which the last move arrived."""
        self.rematching = False
        """A rematch offer was accepted and the new game has not begun yet."""
        self._ended = False
        """The end of the current game was seen (replays after a reconnect repeat it)."""
        self._thinking: asyncio.Task[None] | None = None
        self._granting: asyncio.Task[None] | None = None
        self._waiting: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def playing(self) -> bool:
        """Whether the bot has a game under way (or accepted a rematch): a game slot it uses."""
        return not self.state.over or self.rematching

    async def run(self) -> Result | None:
        """Play until the game is over (its result) or the session fails (None, `error`)."""
        async with self.connected():
            try:
                await self.done.wait()
            finally:
                for task in self._tasks.copy():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                if self.engine is not None:
                    await self.engine.quit(ENGINE_TIMEOUT_S)
        return self.state.result

    # -- the session's hooks -------------------------------------------------------------------

    @property
    def label(self) -> str:
        """The game the log lines speak of: its id, once the server has given one."""
        return "new game" if self.game_id is None else f"game {self.game_id}"

    def on_closed(self, error: str) -> None:
        if self.refusal == ErrorCode.GAME_OVER:  # it ended while the bot was away
            log.info("%s: already over, nothing to play", self.label)
        elif self.state.over:  # waiting for a rematch offer: the game itself ended well
            log.info("%s: left (%s)", self.label, error)
        else:
            log.error("%s: %s", self.label, error)
        self.done.set()

    def on_state(self, text: str) -> None:
        log.info("%s: %s", self.label, text)

    def on_seated(self, joined: bool) -> None:
        assert self.held is not None
        if joined:
            log.info(
                "game %s: seat %d (%s)", self.game_id, self.held.seat, self.settings.describe()
            )
        self._grant_takeback()
        self._consider()

    def on_event(self, event: Event) -> None:
        now = time.monotonic()
        applied = self.state.apply(event, now)
        if applied is Applied.OTHER_GAME:
            return  # the finished game of a rematch: nothing of this one
        if applied is Applied.APPLIED and isinstance(event, Moved):
            self._moved_at = now
        if applied is Applied.APPLIED and isinstance(event, Snapshot):
            self.game_pace = (event.pace_ms or 0) / 1000
        if applied is Applied.GAP:
            self._spawn(self.resync())
        elif self.state.over:
            self._finish()
        else:
            if isinstance(event, TakebackRequest) and event.state == "accepted":
                self.decided = None  # a move chosen for a ply taken back is void
            self._grant_takeback()
            self._consider()

    def on_rematch(self, offer: RematchOffer) -> None:
        """Answer the opponent's offer (accept when `rematch` says so); follow an accepted one
        into the new game."""
        if offer.game_id != self.game_id or self.held is None or self.done.is_set():
            return  # about a game this bot has left, or is leaving
        if offer.state == "offered" and offer.seat != self.held.seat:
            accept = self.rematch_wanted is not None and self.rematch_wanted()
            self.rematching = accept
            log.info(
                "game %s: %s the rematch offer",
                self.game_id,
                "accepting" if accept else "declining",
            )
            self._spawn(self._answer_rematch(accept))
        elif offer.state == "accepted" and offer.new_game_id is not None:
            old = self.game_id
            self.follow_rematch(offer)
            self.rematching, self._ended = False, False
            self.decided = None
            if self._waiting is not None:
                self._waiting.cancel()
            assert self.held is not None
            log.info("game %s: rematch, game %s as seat %d", old, self.game_id, self.held.seat)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _finish(self) -> None:
        """The game is over: say how it ended, then leave, or wait for a rematch offer."""
        if self._ended:
            return
        self._ended = True
        result = self.state.result
        if result is not None:
            sides = GAMES[self.state.game_name].sides
            said = describe_result(result, self.state.names(), sides, self.state.aborted_why)
            log.info("game %s over: %s", self.game_id, said)
        self.forget_seat()
        if self.on_over is not None:
            self.on_over()
        if self.rematch_wanted is None:
            self.done.set()
        else:
            self._waiting = self._spawn(self._wait_for_rematch())

    async def _wait_for_rematch(self) -> None:
        """Leave the finished game when no rematch was offered and accepted in time."""
        await asyncio.sleep(self.rematch_wait)
        if not self.rematching:
            self.done.set()

    async def _answer_rematch(self, accept: bool) -> None:
        try:
            await self.answer_rematch(accept)
        except (ServerError, Disconnected) as error:
            log.warning("game %s: rematch answer failed: %s", self.game_id, error)
            accept = self.rematching = False
        if not accept:
            self.done.set()

    def _grant_takeback(self) -> None:
        """Grant the opponent's takeback request at once, as a server bot does."""
        asker = self.state.takeback
        if asker is None or self.held is None or asker == self.held.seat:
            return
        if self._granting is not None and not self._granting.done():
            return
        self._granting = self._spawn(self._answer_takeback(self.state.ply))

    async def _answer_takeback(self, ply: int) -> None:
        log.info("game %s ply %d: granting the takeback", self.game_id, ply)
        try:
            await self.answer_takeback(ply, True)
        except ServerError as error:  # a move or the end came first: nothing to answer
            log.info("game %s ply %d: takeback not granted: %s", self.game_id, ply, error)
        except Disconnected:
            pass  # the request is in the snapshot after the resume, and answered then

    def _consider(self) -> None:
        """Think if it is this bot's turn and it is not thinking already."""
        if not self.state.legal or self.state.over:
            return
        if self._thinking is not None and not self._thinking.done():
            return
        turn = (self.state.ply, self.state.position)
        self._thinking = self._spawn(self._play(*turn))
        # The `moved` event of this move (with the legal moves of an extra turn) may arrive
        # while the task still runs, or a takeback and a new move may bring the same ply with
        # another position; look again when it is done, if the game went on.
        self._thinking.add_done_callback(
            lambda _: self._consider() if (self.state.ply, self.state.position) != turn else None
        )

    async def _engine_for(self, game_id: str) -> EngineClient:
        """The engine, started with the bot's options if it is not yet, told of a new game."""
        if self.engine is None:
            self.transport = SessionTransport()
            engine = await EngineClient.start(
                self.transport, UbaoDialect(), ENGINE_TIMEOUT_S, f"engine of {self.label}"
            )
            self.engine = engine
            await engine.configure(self.settings.options())
        if self._engine_game != game_id:
            await self.engine.new_game()
            self._engine_game = game_id
        return self.engine

    def _remark(self, info: Info) -> None:
        """An engine's remark (its search's threads) goes to the log."""
        if info.string is not None:
            log.info("game %s: %s", self.game_id, info.string)

    async def _play(self, ply: int, position: Any) -> None:
        """Search and send the move of `ply` (counted from 0, as the protocol counts; the log
        numbers it from 1, as the screens' move lists do)."""
        state = self.state
        game = state.game
        assert game is not None and self.held is not None and self.game_id is not None
        if self.decided is None or self.decided[0] != ply:
            now = time.monotonic()
            limits = search_limits(state, self.settings, now)
            player = game.to_move(position)
            hard_ms = time_budget(limits, player).hard_ms
            search = EnginePosition(
                state.game_name, state.options, game.format_position(position), (), player
            )
            try:
                engine = await self._engine_for(self.game_id)
                result = await engine.play(
                    search,
                    limits,
                    budget_s=None if hard_ms is None else hard_ms / 1000 + STOP_MARGIN_S,
                    on_info=self._remark,
                )
            except EngineFailure as error:  # an --eval this game does not have, a dead engine
                self.error = str(error)
                log.error("game %s: %s", self.game_id, error)
                self.done.set()
                return
            pace = max(self.pace, self.game_pace)
            await asyncio.sleep(self._moved_at + pace - time.monotonic())
            went_on = state.ply != ply or state.position != position
            if went_on or state.over or state is not self.state or result.move is None:
                return  # the game went on, or back, while the bot thought
            info = bot_info(result.info)
            self.decided = (ply, result.move, info)
            report = "no report" if info is None else search_report_line(info)
            log.info("game %s ply %d: %s (%s)", self.game_id, ply + 1, result.move, report)
        _, move, info = self.decided
        try:
            await self.move(ply, move, info)
        except ServerError as error:
            if error.code != ErrorCode.STALE_PLY:
                log.error("game %s ply %d: %s refused: %s", self.game_id, ply + 1, move, error)
        except Disconnected:
            log.warning(
                "game %s ply %d: connection lost sending %s; resending after resume",
                self.game_id,
                ply + 1,
                move,
            )
