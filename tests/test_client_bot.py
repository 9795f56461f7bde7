"""`ubao bot`: the bot client plays whole games with the local engine over the network."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from test_client_support import FAST, Proxy, game_server, kalah_create, until, url_of

from client.bot import BotGame, EngineSettings, serve, time_budget, wants_bot
from client.connection import fetch_snapshot
from client.state import GameState
from client.tokens import TokenStore
from engine.games import make_game
from protocol import Clocks, GameSummary, SeatInfo, SeatSpec, Snapshot

pytestmark = pytest.mark.timeout(120)


def replays_to_the_end(snapshot: Snapshot) -> bool:
    """The snapshot's history, replayed by the local rules, ends the game as the server says."""
    game = make_game(snapshot.game, snapshot.options)
    position = game.start()
    for move in snapshot.history:
        position = game.play_text(position, move)
    outcome = game.outcome(position)
    return (
        outcome is not None
        and snapshot.result is not None
        and (outcome.winner, outcome.reason) == (snapshot.result.winner, snapshot.result.reason)
    )


async def test_the_bot_plays_a_complete_game_against_a_server_bot(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="ubao.bot")
    async with game_server() as server:
        url = url_of(server)
        bot = BotGame(
            url,
            "robo",
            EngineSettings(depth=3),
            create=kalah_create(SeatSpec.open(), SeatSpec.bot(1)),
            seat=0,
            tokens=TokenStore(tmp_path / "t.json"),
            backoff=FAST,
        )
        result = await asyncio.wait_for(bot.run(), 60)
        assert result is not None and bot.error is None
        assert bot.game_id is not None
        snapshot = await fetch_snapshot(url, "check", bot.game_id)
        assert snapshot.status == "over" and replays_to_the_end(snapshot)
        assert snapshot.seats[0].name == "robo"
        ours = [m for m, seat in zip(bot.state.history, bot.state.movers, strict=True) if seat == 0]
        logged = [r.getMessage() for r in caplog.records if " ply " in r.getMessage()]
        assert len(logged) == len(ours)
        assert all("depth" in line and "score" in line and "pv" in line for line in logged)
        assert TokenStore(tmp_path / "t.json").get(url, bot.game_id) is None


async def test_the_bot_resumes_after_a_dropped_connection_and_finishes_the_game(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        proxy = Proxy(server.port)
        await proxy.start()
        try:
            bot = BotGame(
                proxy.url,
                "robo",
                EngineSettings(depth=2),
                create=kalah_create(SeatSpec.open(), SeatSpec.bot(1)),
                seat=0,
                tokens=TokenStore(tmp_path / "t.json"),
                backoff=FAST,
            )
            run = asyncio.create_task(bot.run())
            await until(lambda: bot.state.ply >= 2 or bot.state.over, "a few plies")
            proxy.cut()
            await until(lambda: not bot.session.connected.is_set(), "the drop")
            proxy.restore()
            result = await asyncio.wait_for(run, 60)
            assert result is not None and bot.session.reconnects >= 1
            assert bot.game_id is not None
            assert replays_to_the_end(await fetch_snapshot(url_of(server), "x", bot.game_id))
        finally:
            await proxy.close()


async def test_serving_bot_joins_a_game_waiting_for_an_opponent_and_plays_it(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        url = url_of(server)
        waiting = BotGame(
            url,
            "host",
            EngineSettings(depth=1),
            create=kalah_create(),
            seat=0,
            tokens=TokenStore(tmp_path / "host.json"),
            backoff=FAST,
        )
        host = asyncio.create_task(waiting.run())
        await until(lambda: waiting.held is not None, "the host's seat")
        server_task = asyncio.create_task(
            serve(
                url,
                "server-bot",
                EngineSettings(depth=2),
                poll_seconds=0.05,
                tokens=TokenStore(tmp_path / "serve.json"),
                backoff=FAST,
            )
        )
        try:
            result = await asyncio.wait_for(host, 60)
        finally:
            server_task.cancel()
            await asyncio.gather(server_task, return_exceptions=True)
        assert result is not None
        assert waiting.state.names() == ["host", "server-bot"]


async def test_an_evaluation_the_game_lacks_ends_the_bot_with_the_reason(tmp_path: Path) -> None:
    async with game_server() as server:
        bot = BotGame(
            url_of(server),
            "robo",
            EngineSettings(depth=2, eval="magic"),
            create=kalah_create(SeatSpec.open(), SeatSpec.bot(1)),
            seat=0,
            tokens=TokenStore(tmp_path / "t.json"),
            backoff=FAST,
        )
        await asyncio.wait_for(bot.run(), 60)
        assert bot.error is not None and "no evaluation 'magic'" in bot.error


def summary(status: str, *seats: SeatInfo) -> GameSummary:
    return GameSummary("g", "kalah", {}, status, 0, seats)  # type: ignore[arg-type]


def test_a_serving_bot_takes_only_the_last_open_seat_of_a_waiting_game() -> None:
    person = SeatInfo("open", "ann", True)
    bot = SeatInfo("bot", "ubao-engine (depth 3)", True)
    free = SeatInfo("open", None, False)
    assert wants_bot(summary("waiting", person, free)) == 1
    assert wants_bot(summary("waiting", free, bot)) == 0
    assert wants_bot(summary("waiting", free, free)) is None
    assert wants_bot(summary("playing", person, person)) is None


def test_the_time_budget_respects_time_ms_and_the_clock() -> None:
    state = GameState("g")
    settings = EngineSettings(depth=5, time_ms=1000)
    assert time_budget(state, 0, settings, now=0.0) == 1000
    assert time_budget(state, 0, EngineSettings(depth=5), now=0.0) is None
    state.clocks, state.clocks_at = Clocks((10_000, 10_000), running=0, increment_ms=200), 0.0
    assert time_budget(state, 0, settings, now=0.0) == 10_000 // 20 + 100
    assert time_budget(state, 0, EngineSettings(depth=5, time_ms=50), now=0.0) == 50
