"""A live game: a `GameApp` screen wired to a reconnecting `Session`.

On every (re)connection the session calls `_on_ready`, which brings this client back to where
it was: it creates the game the first time if asked to, then resumes the seat with its stored
token and the last version it saw (the server replays what was missed), joins a seat, or
watches. The seat token goes to the `TokenStore` as soon as the server hands it out, so that
a restarted `ubao play --join ID` sits down in the same seat.
"""

from __future__ import annotations

import asyncio
import contextlib

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ubao.client.app import STEP_SECONDS, GameApp
from ubao.client.connection import (
    DEFAULT_BACKOFF,
    Backoff,
    ServerError,
    Session,
    SessionClosed,
    take_seat,
)
from ubao.client.state import GameState
from ubao.client.tokens import SeatToken, TokenStore
from ubao.protocol import Create, ErrorCode, Event, Move, Over, Resign, Resume, Watch


class LiveGame:
    """Plays (seat given or joined) or watches one game on a server, until the user leaves."""

    def __init__(
        self,
        url: str,
        name: str,
        *,
        game_id: str | None = None,
        create: Create | None = None,
        seat: int | None = None,
        watch: bool = False,
        tokens: TokenStore | None = None,
        step_seconds: float = STEP_SECONDS,
        backoff: Backoff = DEFAULT_BACKOFF,
        input: Input | None = None,
        output: Output | None = None,
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
        self.state = GameState(game_id or "")
        self.app = GameApp(
            self.state,
            actions=self,
            step_seconds=step_seconds,
            on_gap=self._resync,
            input=input,
            output=output,
        )
        self.session = Session(
            url,
            name,
            "spectator" if watch else "human",
            on_event=self._on_event,
            on_ready=self._on_ready,
            on_state=self._on_state,
            on_lag=self._on_lag,
            backoff=backoff,
        )
        self._resyncing = False

    async def run(self) -> None:
        """Show the game until the user quits; the seat stays theirs to resume later."""
        session = asyncio.create_task(self._run_session())
        try:
            await self.app.run()
        finally:
            await self.session.close()
            session.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await session

    async def _run_session(self) -> None:
        try:
            await self.session.run()
        except SessionClosed as error:
            if self.session.closing:
                return
            self.error = str(error)
            if not self.state.started:
                self.app.quit()
            else:
                self.app.say(
                    f"connection closed for good: {error}; ^Q leaves", "class:status.error"
                )

    # -- session callbacks ---------------------------------------------------------------------

    async def _on_ready(self) -> None:
        if self.game_id is None:
            assert self.create is not None
            ok = await self.session.request(self.create)
            assert ok.game_id is not None
            self.game_id = self.state.game_id = ok.game_id
        if self.watch:
            await self._watch()
            return
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
            if error.code != ErrorCode.GAME_OVER:
                raise
            self.watch = True  # a finished game is still worth a look
            await self._watch()
            return
        self.app.set_seat(self.held.seat)

    async def _watch(self) -> None:
        assert self.game_id is not None
        await self.session.request(Watch(id=0, game_id=self.game_id, since_v=self.state.v or None))

    def _on_event(self, event: Event) -> None:
        self.app.on_event(event)
        if isinstance(event, Over) and self.held is not None and self.game_id is not None:
            self.tokens.remove(self.url, self.game_id)

    def _on_state(self, text: str) -> None:
        self.app.connection = text
        self.app.invalidate()

    def _on_lag(self, rtt_ms: float) -> None:
        self.state.rtt_ms = rtt_ms
        self.app.invalidate()

    def _resync(self) -> None:
        """Events were missed: ask again from the last version seen (once at a time)."""
        if self._resyncing or not self.session.connected.is_set():
            return
        self._resyncing = True

        async def resync() -> None:
            try:
                if self.watch or self.held is None:
                    await self._watch()
                else:
                    assert self.game_id is not None
                    await self.session.request(
                        Resume(
                            id=0, game_id=self.game_id, token=self.held.token, since_v=self.state.v
                        )
                    )
            finally:
                self._resyncing = False

        self.app.application.create_background_task(resync())

    # -- the screen's actions ------------------------------------------------------------------

    async def move(self, ply: int, move: str) -> None:
        assert self.held is not None and self.game_id is not None
        await self.session.request(
            Move(id=0, game_id=self.game_id, token=self.held.token, ply=ply, move=move)
        )

    async def resign(self) -> None:
        assert self.held is not None and self.game_id is not None
        await self.session.request(Resign(id=0, game_id=self.game_id, token=self.held.token))
