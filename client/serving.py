"""`ubao bot --serve`: a bot client that waits in the lobby and plays the seats that want one.

It joins only the seats that ask for an external bot (`wants_bot`), never a seat a person may
be waiting to take. It subscribes to the lobby's pushed changes, so that it hears of such a
seat at once without polling; a server that does not push is polled. Started again after a
crash or a kill, it first resumes the games it still holds a seat token for, rather than
leave them to be lost by abandonment. See docs/client.md.

Which seats it takes, in which order and within its limit, is `SeatPicker` (sans I/O: it answers
with the `SeatToTake`s to make); `serve` is the loop that hears the lobby and runs a `BotGame` for
each seat taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from ubao.client.bot import BotGame, EngineSettings, bot_client_name
from ubao.client.connection import (
    DEFAULT_BACKOFF,
    DEFAULT_BUDGET,
    Backoff,
    Budget,
    Disconnected,
    ServerError,
    ServerSession,
)
from ubao.client.tokens import TokenStore
from ubao.protocol import MAX_PAGE, ErrorCode, GameSummary, ListGames, Result

log = logging.getLogger("ubao.bot")


def bot_seat(summary: GameSummary) -> int | None:
    """The seat a serving bot should take in this lobby entry: a free seat of a waiting game
    that asks for an external bot. Plain open seats are left to people."""
    if summary.status != "waiting":
        return None
    wanted = (i for i, seat in enumerate(summary.seats) if seat.wants_bot and seat.name is None)
    return next(wanted, None)


def held_seats(
    url: str, name: str, settings: EngineSettings, tokens: TokenStore, account: bool = False
) -> dict[str, tuple[int, EngineSettings]]:
    """The games a serving bot holds a seat in on `url`, by id, with the seat and the settings
    it plays it with: those stored under the names it plays under, `NAME (depth K)` for K up to
    its own depth (a seat that wished for a lower depth got one), its own depth first; an
    account's bot plays under its name alone."""
    if account:
        return {game_id: (seat.seat, settings) for game_id, seat in tokens.games(url, name).items()}
    held: dict[str, tuple[int, EngineSettings]] = {}
    for depth in range(settings.depth, 0, -1):
        chosen = dataclasses.replace(settings, depth=depth)
        for game_id, seat in tokens.games(url, bot_client_name(name, chosen)).items():
            held.setdefault(game_id, (seat.seat, chosen))
    return held


def settings_for(summary: GameSummary, seat: int, settings: EngineSettings) -> EngineSettings:
    """The serving bot's settings for a seat: the depth the seat wishes for, if it names one,
    but never deeper than the bot's own `depth`."""
    wished = summary.seats[seat].depth
    if wished is None or wished >= settings.depth:
        return settings
    return dataclasses.replace(settings, depth=wished)


@dataclass(frozen=True, slots=True)
class SeatToTake:
    """Take `seat` of `game_id` and play it with `settings`: a seat held before (`summary`
    None: the game is resumed), or one of an open game the lobby listed (`summary`)."""

    game_id: str
    seat: int
    settings: EngineSettings
    summary: GameSummary | None = None


class SeatPicker:
    """Which seats a serving bot takes, in order, up to `max_games` games at a time: first the
    games it holds a seat in (`resuming`, from `held_seats`), then the open games that ask for
    a bot client, as the lobby was last heard of, of the games its settings can play (the
    evaluation it was given: `EngineSettings.plays`)."""

    def __init__(
        self,
        settings: EngineSettings,
        max_games: int,
        resuming: dict[str, tuple[int, EngineSettings]],
    ) -> None:
        self.settings = settings
        self.max_games = max_games
        self.resuming = resuming
        """The games to come back to, by id, with the seat held and how to play it."""
        self.waiting: dict[str, GameSummary] = {}
        """Open games as last heard of, by id: those with a seat for this bot are joined."""

    def heard(self, summaries: Iterable[GameSummary], *, listed: bool = False) -> None:
        """News of open games: a change pushed, or the whole list (`listed`)."""
        if listed:
            self.waiting.clear()
        self.waiting.update((summary.game_id, summary) for summary in summaries)

    def take(self, busy: int, joined: Collection[str]) -> list[SeatToTake]:
        """The seats to take now, `busy` games being under way and bots connected to the
        games `joined`. A game ended meanwhile only has its token forgotten (by `serve`)."""
        joins: list[SeatToTake] = []
        while self.resuming and busy + len(joins) < self.max_games:
            game_id = next(iter(self.resuming))  # in order: its own depth's seats first
            held, chosen = self.resuming.pop(game_id)
            joins.append(SeatToTake(game_id, held, chosen))
        taken = {*joined, *(join.game_id for join in joins)}
        for summary in list(self.waiting.values()):
            seat = bot_seat(summary)
            playable = self.settings.plays(summary.game, summary.options)
            if seat is None or not playable or summary.game_id in taken:
                del self.waiting[summary.game_id]
                continue
            if busy + len(joins) >= self.max_games:
                break  # kept: joined when a game ends, if still open then
            del self.waiting[summary.game_id]
            chosen = settings_for(summary, seat, self.settings)
            joins.append(SeatToTake(summary.game_id, seat, chosen, summary))
        return joins


def serving_line(
    url: str, name: str, settings: EngineSettings, max_games: int, games: Collection[str]
) -> str:
    """What a serving bot says once the server has answered: what it waits for, and which games
    it takes when its evaluation (`--eval`) limits them."""
    plural = "s" if max_games > 1 else ""
    which = f" of {', '.join(games)}" if settings.eval is not None and games else ""
    return (
        f"serving {url} as {name} ({settings.describe()}, up to {max_games} game{plural} at a "
        f"time): waiting for seats{which} that ask for a bot client "
        "(ubao play --new GAME --vs-external-bot)"
    )


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
    pace: float = 0.0,
    key: str | None = None,
    games: Collection[str] = (),
) -> None:
    """Wait in the lobby forever, playing up to `max_games` games at a time.

    It first comes back to the games it holds a seat in (its seat tokens, `held_seats`: a bot
    restarted mid-game resumes them instead of leaving them to be abandoned), within the same
    limit and before any new seat; a game that ended meanwhile only has its token forgotten.
    A finished game frees its slot at once; a rematch offered in it is accepted while a slot
    is free (the rematch then takes it), declined otherwise.

    The open games are listed with `subscribe` on every (re)connection, then the server's
    `lobby` events keep them current. Until the first such event the lobby is listed again
    every `poll_seconds`, for a server that does not push (its lobby is silent otherwise).
    """
    store = tokens or TokenStore()
    seats = SeatPicker(settings, max_games, held_seats(url, name, settings, store, key is not None))
    changed = asyncio.Event()
    pushed = False

    def on_lobby(summary: GameSummary) -> None:
        nonlocal pushed
        pushed = True
        seats.heard((summary,))
        changed.set()

    serving = serving_line(url, name, settings, max_games, games)
    heard_once = False

    async def list_open() -> None:
        nonlocal heard_once
        page = ListGames(id=0, filter="open", limit=MAX_PAGE, subscribe=True)
        seats.heard((await lobby.request(page)).games or (), listed=True)
        if not heard_once:  # said once the server answers, not before
            heard_once = True
            log.info("%s", serving)
        changed.set()

    lobby = ServerSession(
        url,
        name,
        "bot",
        on_event=lambda event: None,
        on_ready=list_open,
        on_lobby=on_lobby,
        on_state=lambda text: log.info("lobby: %s", text) if "reconnecting" in text else None,
        backoff=backoff,
        budget=budget,
        key=key,
    )
    lobby_task = asyncio.create_task(lobby.run())
    lobby_task.add_done_callback(lambda _: changed.set())
    playing: dict[str, tuple[BotGame, asyncio.Task[Result | None]]] = {}
    """Every bot still connected, by the id of the game it joined (its rematches included)."""

    def busy() -> int:
        return sum(1 for bot, _ in playing.values() if bot.playing)

    log.info("connecting to %s as %s", url, name)

    def start(join: SeatToTake) -> None:
        bot = BotGame(
            url,
            name,
            join.settings,
            game_id=join.game_id,
            seat=join.seat,
            tokens=store,
            backoff=backoff,
            budget=budget,
            rematch=lambda: busy() < max_games,
            on_over=changed.set,
            pace=pace,
            key=key,
        )
        task = asyncio.create_task(bot.run())
        playing[join.game_id] = bot, task
        task.add_done_callback(lambda _: changed.set())

    try:
        while True:
            if lobby_task.done():
                lobby_task.result()  # the lobby's session ended: say why
            for game_id in [game_id for game_id, (_, task) in playing.items() if task.done()]:
                bot, _ = playing.pop(game_id)
                if bot.refusal == ErrorCode.UNKNOWN_GAME and bot.game_id is not None:
                    store.remove(url, bot.game_id, bot.session.name)  # a token for nothing
            for join in seats.take(busy(), playing.keys()):
                if join.summary is None:
                    log.info(
                        "resuming game %s as seat %d, %s",
                        join.game_id,
                        join.seat,
                        join.settings.describe(),
                    )
                else:
                    log.info(
                        "joining game %s (%s) as seat %d, %s",
                        join.game_id,
                        join.summary.game,
                        join.seat,
                        join.settings.describe(),
                    )
                start(join)
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
        tasks = [task for _, task in playing.values()]
        for task in (*tasks, lobby_task):
            task.cancel()
        await asyncio.gather(*tasks, lobby_task, return_exceptions=True)
