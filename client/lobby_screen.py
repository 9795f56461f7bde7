"""The interactive lobby: the first screen of `ubao` with no command.

`LobbyScreen` wires the lobby's model (`LobbyModel`: the games, the selection, what each key
means, as effects) to a terminal and to a `ServerSession` subscribed to the server's lobby:
each `lobby` event updates the game it is about, and the page is asked for again every
`REFRESH_SECONDS` (a game's ply and its spectators change without lobby events). The
tournament whose standings are shown is followed the same way: each `tournament` event
replaces them. The session says the user's account key, if any, so that `j` enters a
tournament under the account. `run` returns
the game the user chose, to play, watch or create; `ubao`'s command (`command_lobby`) shows it
on the game screen and comes back to the lobby when the user leaves it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

from prompt_toolkit.application import Application, create_app_session
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.layout.controls import UIContent
from prompt_toolkit.output import Output

from ubao.client.connection import (
    DEFAULT_BACKOFF,
    Backoff,
    Disconnected,
    ServerError,
    ServerSession,
    SessionClosed,
)
from ubao.client.layout import fitting, wrap
from ubao.client.lobby_machine import (
    ERROR,
    KEYS,
    AskLeaderboard,
    AskTournaments,
    Effect,
    Follow,
    JoinTournament,
    Leave,
    LobbyModel,
    Mode,
    Play,
    Refresh,
    Say,
    Start,
    Watch,
)
from ubao.client.lobby_view import (
    detail,
    form,
    hint,
    leaderboard,
    standings,
    table,
    title,
    tournaments,
)
from ubao.client.render import STYLE
from ubao.client.tokens import TokenStore
from ubao.protocol import (
    MAX_PAGE,
    Command,
    GameSummary,
    ListGames,
    Ok,
    Ratings,
    TournamentJoin,
    TournamentList,
    TournamentShow,
    TournamentView,
)

REFRESH_SECONDS = 2.0
"""Between two pages asked for while the lobby shows: what keeps plies and spectator counts
current (the `lobby` events say at once when a game is created, seated, started or over)."""
MIN_COLUMNS, MIN_ROWS = 40, 10
LEADERBOARD_ROWS = 20
"""The accounts the leaderboard asks for, per pool."""

Chosen = Play | Watch | Start


class SizedControl(FormattedTextControl):
    """Formatted text made for the size it is drawn at (`text(width, height)`)."""

    def __init__(self, text: Callable[[int, int], StyleAndTextTuples]) -> None:
        self.size = (MIN_COLUMNS, MIN_ROWS)
        super().__init__(lambda: text(*self.size))

    def create_content(self, width: int, height: int | None) -> UIContent:
        size = (width, height or MIN_ROWS)
        if size != self.size:
            self.size = size
            self._fragment_cache.clear()
        return super().create_content(width, height)


# -- the screen --------------------------------------------------------------------------------


class LobbyScreen:
    """The lobby of one server, live, until the user picks a game or leaves."""

    def __init__(
        self,
        url: str,
        name: str,
        *,
        tokens: TokenStore | None = None,
        key: str | None = None,
        note: str = "",
        select: str | None = None,
        backoff: Backoff = DEFAULT_BACKOFF,
        refresh_seconds: float = REFRESH_SECONDS,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.url = url
        self.name = name
        self.tokens = tokens or TokenStore()
        self.refresh_seconds = refresh_seconds
        self.model = LobbyModel(selected=select)
        self.message: tuple[str, str] = ("", note)
        self.connection = "connecting"
        self.chosen: Chosen | None = None
        self.session = ServerSession(
            url,
            name,
            "spectator",
            on_event=lambda event: None,
            on_ready=self._subscribe,
            on_state=self._set_connection,
            on_lobby=self._changed,
            on_tournament=self._tournament_changed,
            backoff=backoff,
            key=key,
        )
        self.application: Application[None] = Application(
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )
        self.application.layout = self._layout()  # which asks the application's size

    # -- what is drawn -------------------------------------------------------------------------

    def _layout(self) -> Layout:
        def line(text: Callable[[], StyleAndTextTuples]) -> Window:
            return Window(FormattedTextControl(text), height=1)

        root = HSplit(
            [
                Window(SizedControl(self._title), height=1),
                Window(SizedControl(self._list)),
                Window(height=1, char="-", style="class:label"),
                line(lambda: [("", self._detail())]),
                line(lambda: [self.message]),
                Window(
                    SizedControl(lambda width, _: [("class:help", hint(self.model, width))]),
                    height=1,
                ),
            ]
        )
        return Layout(fitting(root, self._too_small))

    def _too_small(self) -> str | None:
        size = self.application.output.get_size()
        if size.columns < MIN_COLUMNS or size.rows < MIN_ROWS:
            return f"The lobby needs at least {MIN_COLUMNS}x{MIN_ROWS}."
        return None

    def _title(self, width: int, height: int) -> StyleAndTextTuples:
        return title(self.model, self.name, self.connection, width)

    def _detail(self) -> str:
        """The chosen game in full, under the list (not under the form or a leaderboard)."""
        return detail(self.model.current()) if self.model.mode is Mode.BROWSING else ""

    def _list(self, width: int, height: int) -> StyleAndTextTuples:
        if self.model.mode is Mode.CREATING:
            return form(self.model)
        if self.model.mode is Mode.LEADERBOARD:
            return leaderboard(self.model, width, height)
        if self.model.mode is Mode.TOURNAMENTS:
            return tournaments(self.model, width, height)
        if self.model.mode is Mode.STANDINGS:
            return standings(self.model, width, height)
        if self.model.mode is Mode.CONFIRMING:
            return [("class:status.turn", wrap(self.model.question, width))]
        return table(self.model, width, height)

    # -- keys and effects ----------------------------------------------------------------------

    def _keys(self) -> KeyBindings:
        bindings = KeyBindings()
        for key in KEYS:

            @bindings.add(key)
            def _press(event: KeyPressEvent, key: str = key) -> None:
                self.carry_out(self.model.press(key) or [])

        return bindings

    def carry_out(self, effects: list[Effect]) -> None:
        for effect in effects:
            match effect:
                case Say(text, style):
                    self.message = (style, text)
                case Refresh():
                    self._spawn(self._refresh())
                case AskLeaderboard(game):
                    self._spawn(self._leaderboard(game))
                case AskTournaments():
                    self._spawn(self._tournaments())
                case Follow(tournament_id):
                    self._spawn(self._follow(tournament_id))
                case JoinTournament(tournament_id):
                    self._spawn(self._enter(tournament_id))
                case Leave():
                    self.application.exit()
                case Play() | Watch() | Start():
                    self.chosen = effect
                    self.application.exit()
        self.application.invalidate()

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        self.application.create_background_task(coroutine)

    # -- the server ----------------------------------------------------------------------------

    async def _subscribe(self) -> None:
        """On every (re)connection: the first page, and `lobby` events from now on."""
        await self._load(subscribe=True)

    async def _load(self, subscribe: bool | None = None) -> None:
        ok = await self.session.request(ListGames(id=0, limit=MAX_PAGE, subscribe=subscribe))
        held = self.tokens.games(self.url, self.name)
        self.model.held = {game_id: token.seat for game_id, token in held.items()}
        self.model.replace(ok.games or ())
        self.application.invalidate()

    async def _refresh(self) -> None:
        with contextlib.suppress(Disconnected, ServerError):
            await self._load()

    async def _leaderboard(self, game: str) -> None:
        ok = await self._ask(Ratings(id=0, game=game, limit=LEADERBOARD_ROWS), "leaderboard")
        if ok is not None:
            self.model.show_leaderboard(game, ok.leaderboard or ())
            self.application.invalidate()

    async def _ask(self, command: Command, what: str) -> Ok | None:
        """The server's answer, or None with the reason on the message line."""
        try:
            return await self.session.request(command)
        except ServerError as error:
            self.carry_out([Say(f"no {what}: {error.message}", ERROR)])
        except Disconnected:
            self.carry_out([Say(f"not connected: no {what} until the server is back", ERROR)])
        return None

    async def _tournaments(self) -> None:
        ok = await self._ask(TournamentList(id=0, limit=MAX_PAGE), "tournaments")
        if ok is not None:
            self.model.show_tournaments(ok.tournaments or ())
            self.application.invalidate()

    async def _follow(self, tournament_id: str) -> None:
        """The tournament now, and a `tournament` event at each of its changes."""
        show = TournamentShow(id=0, tournament_id=tournament_id, subscribe=True)
        ok = await self._ask(show, "standings")
        if ok is not None and ok.tournament is not None:
            self._tournament_changed(ok.tournament)

    async def _enter(self, tournament_id: str) -> None:
        """Our name entered (an account's: the server refuses a guest, and says why)."""
        join = TournamentJoin(id=0, tournament_id=tournament_id)
        if await self._ask(join, "entry") is not None:
            self.carry_out([Say(f"{self.name} entered: the standings list you")])

    def _tournament_changed(self, view: TournamentView) -> None:
        self.model.show_tournament(view)
        self.application.invalidate()

    async def _keep_fresh(self) -> None:
        while True:
            await asyncio.sleep(self.refresh_seconds)
            if self.session.connected.is_set():
                await self._refresh()

    def _changed(self, summary: GameSummary) -> None:
        self.model.update(summary)
        self.application.invalidate()

    def _set_connection(self, text: str) -> None:
        if self.session.connected.is_set() and text != "connected":
            self.message = (ERROR, text)  # a word from the server while connected
        else:
            self.connection = text
        self.application.invalidate()

    async def run(self) -> Chosen | None:
        """Show the lobby until the user picks a game (returned) or leaves (None)."""
        session = asyncio.create_task(self.session.run())
        fresh = asyncio.create_task(self._keep_fresh())

        def closed(task: asyncio.Task[None]) -> None:
            if not task.cancelled() and isinstance(task.exception(), SessionClosed):
                self.message = (ERROR, str(task.exception()))
                self.connection = "closed"
                self.application.invalidate()

        session.add_done_callback(closed)
        try:
            with create_app_session(input=self.application.input, output=self.application.output):
                await self.application.run_async()
        finally:
            fresh.cancel()
            await self.session.close()
            for task in (session, fresh):
                await asyncio.gather(task, return_exceptions=True)
        return self.chosen
