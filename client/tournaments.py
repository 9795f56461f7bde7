"""`ubao tournament new|join|start|show|watch`: server tournaments from the command line
(docs/tournaments-server.md). `show --json` and `watch --json` print the tournament as the
protocol carries it (standings, crosstable, pairings), one JSON document a change for `watch`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable

from ubao.client.connection import ServerSession, request_once
from ubao.client.tournament_text import tournament_text, tournaments_table
from ubao.protocol import (
    Command,
    Ok,
    SeatSpec,
    TournamentJoin,
    TournamentList,
    TournamentNew,
    TournamentShow,
    TournamentStart,
    TournamentView,
    to_wire,
)

OVER = ("finished", "cancelled")


def printed(view: TournamentView, as_json: bool) -> str:
    if as_json:
        return json.dumps(to_wire(view), ensure_ascii=False)
    return tournament_text(view)


async def tournament(args: argparse.Namespace, key: str | None, options: dict[str, object]) -> int:
    """Run the `tournament` subcommand `args.action`."""

    async def ask(command: Command) -> Ok:
        return await request_once(args.server, args.name, "human", command, key)

    if args.action == "new":
        new = TournamentNew(
            id=0,
            name=args.title,
            game=args.game,
            options=options,
            format=args.format,
            double=args.double,
            rounds=args.rounds,
            minutes=args.minutes,
            scoring=args.scoring,
            rated=args.rated,
            concurrency=args.concurrency,
            pace_ms=round(args.pace * 1000),
        )
        tid = (await ask(new)).tournament_id
        assert tid is not None
        await enter_bots(ask, tid, args.bot)
        if args.start:
            await ask(TournamentStart(id=0, tournament_id=tid))
        print(tid)
    elif args.action == "join":
        await enter_bots(ask, args.tournament_id, args.bot)
        if not args.bot:
            await ask(TournamentJoin(id=0, tournament_id=args.tournament_id))
    elif args.action == "start":
        await ask(TournamentStart(id=0, tournament_id=args.tournament_id))
    elif args.action == "list":
        listed = (await ask(TournamentList(id=0, limit=args.limit))).tournaments or ()
        if args.json:
            print(json.dumps([to_wire(line) for line in listed], indent=2, ensure_ascii=False))
        else:
            print(tournaments_table(listed) if listed else "no tournament on this server")
    elif args.action == "show":
        view = (await ask(TournamentShow(id=0, tournament_id=args.tournament_id))).tournament
        assert view is not None
        print(printed(view, args.json))
    else:
        await watch(args, key)
    return 0


async def enter_bots(
    ask: Callable[[Command], Awaitable[Ok]], tid: str, bots: list[SeatSpec] | None
) -> None:
    """Enter server bots at these settings."""
    for bot in bots or ():
        await ask(TournamentJoin(id=0, tournament_id=tid, bot=bot))


async def watch(args: argparse.Namespace, key: str | None) -> None:
    """Print the tournament, then again at each change, until it ends."""
    views: asyncio.Queue[TournamentView] = asyncio.Queue()

    async def subscribe() -> None:
        show = TournamentShow(id=0, tournament_id=args.tournament_id, subscribe=True)
        view = (await session.request(show)).tournament
        if view is not None:
            views.put_nowait(view)

    session = ServerSession(
        args.server,
        args.name,
        "spectator",
        on_event=lambda event: None,
        on_ready=subscribe,
        on_tournament=views.put_nowait,
        key=key,
    )
    running = asyncio.create_task(session.run())
    try:
        while True:
            getting = asyncio.create_task(views.get())
            await asyncio.wait((getting, running), return_when=asyncio.FIRST_COMPLETED)
            if running.done():
                getting.cancel()
                running.result()
            view = getting.result()
            if not args.json and sys.stdout.isatty():
                print("\033[H\033[2J", end="")  # the terminal cleared: the standings in place
            print(printed(view, args.json), flush=True)
            if view.status in OVER:
                return
    finally:
        await session.close()
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
