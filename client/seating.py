"""A client's place in one game: what the screen (`LiveGame`) and the bot (`BotGame`) share.

On every (re)connection the session calls `_on_ready`, which brings the client back to where it
was: it creates the game the first time if asked to, then resumes the seat with its stored token
and the last version it saw (the server replays what was missed), joins a seat, or watches.
The seat token goes to the `TokenStore` as soon as the server hands it out, so that a restarted
client sits down in the same seat; it is forgotten when the game is over. Pure of any screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import ClassVar

from ubao.client.connection import (
    DEFAULT_BACKOFF,
    DEFAULT_BUDGET,
    Backoff,
    Budget,
    Disconnected,
    ServerError,
    ServerSession,
    SessionClosed,
    take_seat,
)
from ubao.client.state import GameState
from ubao.client.tokens import SeatToken, TokenStore
from ubao.protocol import (
    Abort,
    Analyse,
    AnalysisEvent,
    BotInfo,
    Cancel,
    Create,
    Draw,
    DrawAnswer,
    ErrorCode,
    Event,
    Move,
    Rematch,
    RematchAnswer,
    RematchOffer,
    Resign,
    Resume,
    Role,
    Takeback,
    TakebackAnswer,
    Watch,
)

log = logging.getLogger("ubao.client")


class SeatSession:
    """Holds a seat in (or watches) one game over a reconnecting `ServerSession`.

    Subclasses react through the hooks `on_event`, `on_state`, `on_lag`, `on_seated` and
    `on_closed`; `GameState` is theirs to update from the events.
    """

    watch_finished: ClassVar[bool] = False
    """Watch a game that is over instead of failing to join it."""

    def __init__(
        self,
        url: str,
        name: str,
        role: Role,
        *,
        game_id: str | None = None,
        create: Create | None = None,
        seat: int | None = None,
        watch: bool = False,
        tokens: TokenStore | None = None,
        backoff: Backoff = DEFAULT_BACKOFF,
        budget: Budget = DEFAULT_BUDGET,
        key: str | None = None,
    ) -> None:
        if (game_id is None) == (create is None):
            raise ValueError("give either the id of a game or a game to create")
        self.url = url
        self.game_id = game_id
        self.create = create
        self.wanted_seat = seat
        self.watch = watch
        self.tokens = tokens or TokenStore()
        self.held: SeatToken | None = None
        self.error: str | None = None
        """Why the session ended for good, if it did."""
        self.refusal: str | None = None
        """The error code of the server's refusal to seat this client, if it refused."""
        self.state = GameState(game_id or "")
        self.session = ServerSession(
            url,
            name,
            role,
            on_event=self.on_event,
            on_ready=self._on_ready,
            on_state=self.on_state,
            on_lag=self.on_lag,
            on_rematch=self.on_rematch,
            on_analysis=self.on_analysis,
            backoff=backoff,
            budget=budget,
            key=key,
        )

    # -- hooks ---------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """A game event arrived."""

    def on_analysis(self, event: AnalysisEvent) -> None:
        """A finished game's analysis was made (or failed)."""

    def on_state(self, text: str) -> None:
        """The connection's state changed ("connected", "disconnected (...); reconnecting")."""

    def on_lag(self, rtt_ms: float) -> None:
        """A new round trip: clocks and time budgets count it as the server does."""
        self.state.rtt_ms = rtt_ms

    def on_seated(self, joined: bool) -> None:
        """The seat in `held` is ours (again); `joined` the first time."""

    def on_closed(self, error: str) -> None:
        """The session ended for good, not by our wish; `error` says why."""

    def on_rematch(self, offer: RematchOffer) -> None:
        """A rematch of the game was offered, declined, withdrawn or accepted."""

    def on_offers_forgotten(self) -> None:
        """A new connection: the rematch offer known so far is forgotten (`forget_offers`)."""

    # -- the session ---------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def connected(self) -> AsyncIterator[None]:
        """The session runs (reconnecting as needed) while the block does; closed after it."""
        task = asyncio.create_task(self._run_session())
        try:
            yield
        finally:
            await self.session.close()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run_session(self) -> None:
        try:
            await self.session.run()
        except SessionClosed as error:
            if not self.session.closing:
                self.error = str(error)
                self.on_closed(self.error)

    async def _on_ready(self) -> None:
        self.state.forget_offers()  # what still waits comes again after the resume or watch
        self.on_offers_forgotten()
        if self.game_id is None:
            assert self.create is not None
            check_engines(self.create, self.session.engines)
            ok = await self.session.request(self.create)
            assert ok.game_id is not None
            self.game_id = self.state.game_id = ok.game_id
            log.info("created game %s", self.game_id)
        if self.watch:
            await self._watch()
            return
        joined = self.held is None
        try:
            self.held = await take_seat(
                self.session,
                self.tokens,
                self.game_id,
                seat=self.wanted_seat,
                held=self.held,
                since_v=self.state.v,
            )
        except ServerError as error:
            if error.code == ErrorCode.GAME_OVER:
                # It ended while this client was away (flagged, aborted): its token is void.
                self.tokens.remove(self.url, self.game_id, self.session.name)
            if error.code != ErrorCode.GAME_OVER or not self.watch_finished:
                self.refusal = error.code
                raise
            self.watch = True
            await self._watch()
            return
        if self.state.over:
            # Its end arrived before the seat's answer did (a game over at once, or while
            # this client was away): the token just stored is void.
            self.forget_seat()
        self.on_seated(joined)

    async def _watch(self) -> None:
        assert self.game_id is not None
        await self.session.request(Watch(id=0, game_id=self.game_id, since_v=self.state.v or None))

    async def resync(self) -> None:
        """Events were missed: ask again from the last version seen. If the connection drops
        meanwhile, the reconnection asks by itself."""
        with contextlib.suppress(Disconnected):
            if self.watch or self.held is None:
                await self._watch()
            else:
                assert self.game_id is not None
                await self.session.request(
                    Resume(id=0, game_id=self.game_id, token=self.held.token, since_v=self.state.v)
                )

    def follow_rematch(self, offer: RematchOffer) -> None:
        """Move on to the accepted rematch `offer.new_game_id`: a player keeps the new seat's
        token (stored at once, under the same player name) and is sent the new game by the
        server; a spectator watches it."""
        assert offer.new_game_id is not None
        self.game_id = offer.new_game_id
        rtt_ms, self.state = self.state.rtt_ms, GameState(offer.new_game_id)
        self.state.rtt_ms = rtt_ms
        if offer.token is None or offer.new_seat is None:
            self.held = None
            self.watch = True
            return
        self.held, self.wanted_seat = SeatToken(offer.new_seat, offer.token), offer.new_seat
        self.tokens.put(self.url, offer.new_game_id, self.session.name, self.held)

    async def watch_rematch(self) -> None:
        """A spectator follows the rematch (players are sent it without asking)."""
        with contextlib.suppress(Disconnected, ServerError):
            await self._watch()

    def forget_seat(self) -> None:
        """The game is over: its seat token is worth nothing any more."""
        if self.held is not None and self.game_id is not None:
            self.tokens.remove(self.url, self.game_id, self.session.name)

    # -- the seat's actions (both raise ServerError or Disconnected) ----------------------------

    async def move(self, ply: int, move: str, info: BotInfo | None = None) -> None:
        assert self.held is not None and self.game_id is not None
        await self.session.request(
            Move(id=0, game_id=self.game_id, token=self.held.token, ply=ply, move=move, info=info)
        )

    async def resign(self) -> None:
        """Resign; a game still waiting for its opponent is withdrawn instead, as its creator
        may (`cancel`: it ends `cancelled`, not `aborted`)."""
        assert self.held is not None and self.game_id is not None
        if self.state.status == "waiting":
            try:
                await self.session.request(Cancel(id=0, game_id=self.game_id))
                return
            except ServerError as error:  # not this connection's game (it reconnected), or
                if error.code not in (ErrorCode.NOT_YOUR_GAME, ErrorCode.ALREADY_STARTED):
                    raise  # the opponent sat down meanwhile: resigning is what is left
        await self.session.request(Resign(id=0, game_id=self.game_id, token=self.held.token))

    async def abort(self) -> None:
        """Call the game off before this seat's first move (`abort`: nobody wins)."""
        assert self.held is not None and self.game_id is not None
        await self.session.request(Abort(id=0, game_id=self.game_id, token=self.held.token))

    async def draw(self, ply: int) -> None:
        """Offer a draw (or accept the opponent's offer), the game being at `ply`."""
        assert self.held is not None and self.game_id is not None
        await self.session.request(Draw(id=0, game_id=self.game_id, token=self.held.token, ply=ply))

    async def answer_draw(self, ply: int, accept: bool) -> None:
        assert self.held is not None and self.game_id is not None
        token = self.held.token
        await self.session.request(
            DrawAnswer(id=0, game_id=self.game_id, token=token, ply=ply, accept=accept)
        )

    async def takeback(self, ply: int) -> None:
        """Ask to take back this seat's last move, the game being at `ply`."""
        assert self.held is not None and self.game_id is not None
        await self.session.request(
            Takeback(id=0, game_id=self.game_id, token=self.held.token, ply=ply)
        )

    async def rematch(self) -> None:
        """Offer a rematch of the finished game (or accept the opponent's offer)."""
        assert self.held is not None and self.game_id is not None
        await self.session.request(Rematch(id=0, game_id=self.game_id, token=self.held.token))

    async def analyse(self) -> int | None:
        """Ask for the finished game's analysis: None once it is in the state, else how many
        analyses are ahead of it (an `analysis` event brings it)."""
        assert self.game_id is not None
        ok = await self.session.request(Analyse(id=0, game_id=self.game_id))
        if ok.analysis is not None:
            self.state.analysis = ok.analysis
            return None
        return ok.queued or 0

    async def answer_rematch(self, accept: bool) -> None:
        assert self.held is not None and self.game_id is not None
        token = self.held.token
        await self.session.request(
            RematchAnswer(id=0, game_id=self.game_id, token=token, accept=accept)
        )

    async def answer_takeback(self, ply: int, accept: bool) -> None:
        assert self.held is not None and self.game_id is not None
        token = self.held.token
        await self.session.request(
            TakebackAnswer(id=0, game_id=self.game_id, token=token, ply=ply, accept=accept)
        )


def check_engines(create: Create, offered: tuple[str, ...]) -> None:
    """Refuse, as a server that offers engine bots would, a bot seat asking for an engine this
    server does not offer: one that predates engine bots would seat its own engine instead."""
    for index, spec in enumerate(create.seats):
        if spec.engine is not None and spec.engine not in offered:
            on_offer = ", ".join(offered) or "none"
            name = spec.engine
            message = f"seat {index}: this server has no engine bot {name!r} (on offer: {on_offer})"
            raise ServerError(ErrorCode.BAD_OPTIONS, message)
