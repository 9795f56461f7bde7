"""`ubao bot --tournament ID`: a bot client that enters a server tournament under its account
and plays every game the tournament pairs it in, until the tournament ends.

It subscribes to the tournament (`tournament_show` with `subscribe`) and starts a `BotGame` for
each of its games being played that it does not play yet: the server made the game and keeps
its seat for the account, which it forfeits if nobody takes it within its grace period
(docs/tournaments-server.md). Started again, it enters no second time and plays on.
"""

from __future__ import annotations

import asyncio
import logging

from ubao.client.bot import BotGame, EngineSettings
from ubao.client.connection import (
    DEFAULT_BUDGET,
    Budget,
    ServerError,
    ServerSession,
)
from ubao.protocol import ErrorCode, Result, TournamentJoin, TournamentShow, TournamentView

log = logging.getLogger("ubao.bot")

OVER = ("finished", "cancelled")


def my_games(view: TournamentView, name: str) -> dict[str, int]:
    """The games being played in which the entrant `name` has a seat: id and seat."""
    me = next((i for i, e in enumerate(view.entrants) if e.casefold() == name.casefold()), None)
    games: dict[str, int] = {}
    for p in view.pairings:
        if me is None or p.game_id is None or p.result != "*":
            continue
        if p.white == me:
            games[p.game_id] = 0
        elif p.black == me:
            games[p.game_id] = 1
    return games


async def play_tournament(
    url: str,
    name: str,
    settings: EngineSettings,
    tournament_id: str,
    *,
    key: str,
    budget: Budget = DEFAULT_BUDGET,
    pace: float = 0.0,
) -> TournamentView:
    """Enter the tournament (unless entered) and play its games until it ends: its last view."""
    changed = asyncio.Event()
    latest: list[TournamentView] = []

    def heard(view: TournamentView) -> None:
        latest.append(view)
        changed.set()

    async def subscribe() -> None:
        try:
            await session.request(TournamentJoin(id=0, tournament_id=tournament_id))
            log.info("entered tournament %s as %s", tournament_id, name)
        except ServerError as error:
            if (
                error.code != ErrorCode.ALREADY_ENTERED
                and error.code != ErrorCode.TOURNAMENT_CLOSED
            ):
                raise
        ok = await session.request(
            TournamentShow(id=0, tournament_id=tournament_id, subscribe=True)
        )
        if ok.tournament is not None:
            heard(ok.tournament)

    session = ServerSession(
        url,
        name,
        "bot",
        on_event=lambda event: None,
        on_ready=subscribe,
        on_tournament=heard,
        budget=budget,
        key=key,
    )
    session_task = asyncio.create_task(session.run())
    session_task.add_done_callback(lambda _: changed.set())
    playing: dict[str, asyncio.Task[Result | None]] = {}
    try:
        while True:
            await changed.wait()
            changed.clear()
            if session_task.done():
                session_task.result()  # the session ended: say why
            if not latest:
                continue
            view = latest[-1]
            for game_id, seat in my_games(view, name).items():
                if game_id not in playing:
                    log.info(
                        "tournament %s: playing game %s, seat %d", tournament_id, game_id, seat
                    )
                    bot = BotGame(
                        url, name, settings, game_id=game_id, seat=seat, budget=budget,
                        pace=pace, key=key,
                    )  # fmt: skip
                    playing[game_id] = asyncio.create_task(bot.run())
            if view.status in OVER:
                await asyncio.gather(*playing.values(), return_exceptions=True)
                return view
    finally:
        for task in playing.values():
            task.cancel()
        await session.close()
        session_task.cancel()
        await asyncio.gather(session_task, *playing.values(), return_exceptions=True)
