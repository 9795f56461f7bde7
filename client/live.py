"""A live game: a `GameApp` screen wired to a reconnecting session (`SeatSession`).

The seat and session wiring (create, join or resume, watch, seat tokens) is `SeatSession`'s;
this module only shows what it does and hands the screen's moves to it.
"""

from __future__ import annotations

from typing import ClassVar

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ubao.client.app import GameApp
from ubao.client.board import STEP_SECONDS
from ubao.client.connection import DEFAULT_BACKOFF, Backoff
from ubao.client.seating import SeatSession
from ubao.client.tokens import TokenStore
from ubao.protocol import AnalysisEvent, Create, Event, RematchOffer


class LiveGame(SeatSession):
    """Plays (seat given or joined) or watches one game on a server, until the user leaves."""

    watch_finished: ClassVar[bool] = True
    """A finished game is still worth a look."""

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
        key: str | None = None,
        bell: bool = False,
    ) -> None:
        super().__init__(
            url,
            name,
            "spectator" if watch else "human",
            game_id=game_id,
            create=create,
            seat=seat,
            watch=watch,
            tokens=tokens,
            backoff=backoff,
            key=key,
        )
        self.app = GameApp(
            self.state,
            actions=self,
            step_seconds=step_seconds,
            on_gap=self._resync,
            input=input,
            output=output,
            bell=bell,
        )
        self._resyncing = False

    async def run(self) -> None:
        """Show the game until the user quits; the seat stays theirs to resume later."""
        async with self.connected():
            await self.app.run()

    # -- the session's hooks -------------------------------------------------------------------

    def on_closed(self, error: str) -> None:
        if not self.state.started:
            self.app.quit()
        else:
            self.app.close_for_good(error)

    def on_seated(self, joined: bool) -> None:
        assert self.held is not None
        self.app.set_seat(self.held.seat)

    def on_event(self, event: Event) -> None:
        self.app.on_event(event)
        if self.state.over:
            # Whatever brought the end (`over`, or a snapshot after a gap or a resume).
            self.forget_seat()

    def on_rematch(self, offer: RematchOffer) -> None:
        """Show an offer; on to the new game once one is accepted."""
        if offer.game_id != self.game_id:
            return  # about a game this screen has left
        if offer.state != "accepted":
            self.app.on_rematch(offer)
            return
        self.follow_rematch(offer)
        self.app.switch(self.state, offer.new_seat)
        if self.held is None:
            self.app.application.create_background_task(self.watch_rematch())

    def on_offers_forgotten(self) -> None:
        self.app.offer_lapsed()

    def on_analysis(self, event: AnalysisEvent) -> None:
        if event.game_id != self.state.game_id:
            return
        if event.analysis is not None:
            self.state.analysis = event.analysis
            self.app.say("the analysis is here: m jumps to a mistake")
        else:
            self.app.say(event.message or "the analysis failed")
        self.app.application.invalidate()

    def on_state(self, text: str) -> None:
        self.app.set_connection(text, self.session.connected.is_set())

    def on_lag(self, rtt_ms: float) -> None:
        super().on_lag(rtt_ms)
        self.app.invalidate()

    def _resync(self) -> None:
        """Events were missed: ask again from the last version seen (once at a time)."""
        if self._resyncing or not self.session.connected.is_set():
            return
        self._resyncing = True

        async def resync() -> None:
            try:
                await self.resync()
            finally:
                self._resyncing = False

        self.app.application.create_background_task(resync())
