"""Clients keep to the server's message budget: the token bucket every command waits for, the
back-off after `rate_limited`, and `ubao bot --serve` hearing of seats from the lobby's pushes."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.client import FAST, game_server, kalah_create, until, url_of
from ubao.client.bot import BotGame, EngineSettings
from ubao.client.connection import Budget, Pacer
from ubao.client.serving import serve
from ubao.client.tokens import TokenStore
from ubao.protocol import Result, SeatSpec
from ubao.server.app import GameServer

pytestmark = pytest.mark.timeout(120)

SMALL = {"burst": 8, "per_second": 4.0}
"""A server budget that bots moving as fast as their turns allow overrun at once."""
BIG_KALAH = {"pits": 6, "seeds": 4}
"""Dozens of plies: fast bots send far more moves than the burst."""


async def play_pairs(
    server: GameServer, tmp_path: Path, budget: Budget, games: int
) -> list[BotGame]:
    """`games` games between two depth-1 bots each, played to their end at once."""
    url = url_of(server)
    bots: list[BotGame] = []
    tasks: list[asyncio.Task[Result | None]] = []

    def bot(name: str, **where: Any) -> BotGame:
        tokens = TokenStore(tmp_path / f"{name}.json")
        settings = EngineSettings(depth=1)
        return BotGame(url, name, settings, tokens=tokens, backoff=FAST, budget=budget, **where)

    for n in range(games):
        create = kalah_create(SeatSpec.open(), SeatSpec.open(), options=BIG_KALAH)
        host = bot(f"host{n}", create=create, seat=0)
        tasks.append(asyncio.create_task(host.run()))
        await until(lambda: host.game_id is not None, "the game")  # noqa: B023 (awaited here)
        guest = bot(f"guest{n}", game_id=host.game_id, seat=1)
        tasks.append(asyncio.create_task(guest.run()))
        bots += [host, guest]
    results = await asyncio.wait_for(asyncio.gather(*tasks), 100)
    assert all(result is not None for result in results)
    return bots


async def test_bots_within_the_servers_budget_are_never_closed_for_flooding(
    tmp_path: Path,
) -> None:
    async with game_server(**SMALL) as server:
        bots = await play_pairs(server, tmp_path, Budget(burst=2, per_second=2.0), games=3)
        assert [bot.session.reconnects for bot in bots] == [0] * len(bots)
        assert server.core.rejected["rate_limited"] == 0
        # Half the plies each, with hello, join and pings: more than the burst at once.
        assert all(len(bot.state.history) > 2 * SMALL["burst"] for bot in bots)


async def test_a_bot_too_fast_for_the_server_slows_down_and_still_finishes(
    tmp_path: Path,
) -> None:
    """A budget beyond the server's gets `rate_limited` (and a 1008 close): the bot comes back
    at half its pace, and again, until it fits, and plays its game to the end."""
    async with game_server(**SMALL) as server:
        bots = await play_pairs(server, tmp_path, Budget(burst=30, per_second=20.0), games=1)
        assert server.core.rejected["rate_limited"] >= 1
        slowed = [bot.session.pacer.per_second for bot in bots if bot.session.reconnects]
        assert slowed and all(rate < 20.0 for rate in slowed)


async def test_the_pacer_lets_a_burst_through_then_keeps_to_the_rate() -> None:
    pacer = Pacer(Budget(burst=3, per_second=20.0))
    start = time.monotonic()
    for _ in range(3):
        await pacer.take()
    assert time.monotonic() - start < 0.04
    for _ in range(4):
        await pacer.take()
    assert time.monotonic() - start >= 4 / 20 - 0.01
    pacer.back_off()
    assert (pacer.burst, pacer.per_second, pacer.tokens) == (1.5, 10.0, 0.0)


class Deaf(set[int]):
    """A server's set of lobby subscribers that never takes one: a server that does not push."""

    def add(self, item: int) -> None:
        pass


@pytest.mark.parametrize("pushes", [True, False])
async def test_a_serving_bot_hears_of_seats_from_the_lobby_or_polls_it(
    tmp_path: Path, pushes: bool
) -> None:
    """With pushes the serving bot never polls (an hour between polls here) and still takes a
    seat created after it started; without them it falls back to polling."""
    async with game_server() as server:
        if not pushes:
            server.core.lobby = Deaf()
        url = url_of(server)
        serving = asyncio.create_task(
            serve(
                url,
                "server-bot",
                EngineSettings(depth=1),
                poll_seconds=3600 if pushes else 0.05,
                tokens=TokenStore(tmp_path / "serve.json"),
                backoff=FAST,
            )
        )
        try:
            if pushes:
                await until(lambda: server.core.lobby, "the bot's subscription")
            else:
                await asyncio.sleep(0.2)  # the bot's first list is behind it: only polls remain
            host = BotGame(
                url,
                "host",
                EngineSettings(depth=1),
                create=kalah_create(SeatSpec.open(), SeatSpec.external_bot()),
                seat=0,
                tokens=TokenStore(tmp_path / "host.json"),
                backoff=FAST,
            )
            assert await asyncio.wait_for(host.run(), 60) is not None
        finally:
            serving.cancel()
            await asyncio.gather(serving, return_exceptions=True)
        assert host.state.names()[1] == "server-bot (depth 1)"
