"""A bot client stopped mid-game comes back to its seats: a restarted `ubao bot --serve` resumes
the games it holds a token for (within its game limit), forgets those that ended meanwhile, and
`ubao bot --join` of such a game resumes it too."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

import pytest

from tests.support.client import (
    FAST,
    Person,
    game_server,
    kalah_create,
    replays_to_the_end,
    until,
    url_of,
)
from ubao.client.bot import BotGame, EngineSettings
from ubao.client.connection import fetch_snapshot
from ubao.client.serving import held_seats, serve
from ubao.client.tokens import SeatToken, TokenStore
from ubao.protocol import SeatSpec

pytestmark = pytest.mark.timeout(180)

BOT = "dave (depth 2)"
"""The name `ubao bot --name dave --depth 2` plays under."""


def test_a_serving_bot_holds_the_seats_of_its_own_names_up_to_its_depth(tmp_path: Path) -> None:
    """Its seats are those stored under `NAME (depth K)`, K up to its depth (a seat may have
    wished for less), its own depth first; a person's or another bot's of that login are not."""
    store = TokenStore(tmp_path / "tokens.json")
    url = "ws://127.0.0.1:9950/"
    store.put(url, "g1", "dave (depth 1)", SeatToken(1, "t1"))
    store.put(url, "g2", BOT, SeatToken(0, "t2"))
    store.put(url, "g3", "dave (depth 3)", SeatToken(0, "t3"))
    store.put(url, "g4", "dave", SeatToken(0, "t4"))
    store.put(url, "g5", "eve (depth 2)", SeatToken(0, "t5"))
    store.put("ws://127.0.0.1:9951/", "g6", BOT, SeatToken(0, "t6"))
    assert store.games("ws://127.0.0.1:9950", BOT) == {"g2": SeatToken(0, "t2")}
    held = held_seats(url, "dave", EngineSettings(depth=2, time_ms=50), store)
    assert list(held.items()) == [
        ("g2", (0, EngineSettings(depth=2, time_ms=50))),
        ("g1", (1, EngineSettings(depth=1, time_ms=50))),
    ]


async def move_while_away(person: Person) -> None:
    """Play until it is the bot's turn (the mancala games give extra turns)."""
    for _ in range(40):
        if not person.my_turn():
            return
        await play_one(person)
    raise AssertionError("the turn never passed")


async def play_one(person: Person) -> None:
    """Play the first legal move and wait until the server has it, whoever moves next."""
    ply = person.state.ply
    await person.move(ply, person.state.legal[0])
    await until(lambda: person.state.ply > ply or person.state.over, "the move played")


async def play_to_the_end(person: Person) -> None:
    """Answer the bot until the game is over; the bot must be there to answer."""
    for _ in range(200):
        await until(lambda: person.my_turn() or person.state.over, "a turn or the end")
        if person.state.over:
            return
        await person.play(person.state.legal[0])
    raise AssertionError("the game did not end")


async def ended_normally(url: str, person: Person) -> None:
    result = person.state.result
    assert result is not None and result.reason != "abandoned", result
    assert person.game_id is not None
    assert replays_to_the_end(await fetch_snapshot(url, "check", person.game_id))


async def test_a_serving_bot_killed_mid_game_resumes_it_when_started_again(
    tmp_path: Path,
) -> None:
    """The QA case: `ubao bot --name dave --depth 2 --serve` killed with SIGKILL while the
    game waits for its move, then started again with the same command and HOME, plays the
    game to its normal end (not abandoned) and forgets its token."""
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    tokens = TokenStore(tmp_path / "data" / "ubao" / "tokens.json")
    async with game_server() as server:
        url = url_of(server)
        command = [sys.executable, "-m", "ubao.client", "bot", "--server", url]
        command += ["--name", "dave", "--depth", "2", "--serve"]

        async def start(log: Path) -> asyncio.subprocess.Process:
            with log.open("w") as output:
                return await asyncio.create_subprocess_exec(*command, env=env, stderr=output)

        create = kalah_create(SeatSpec.external_bot(), SeatSpec.open())
        ann = Person(url, "ann", TokenStore(tmp_path / "ann.json"), create=create, seat=1)
        first = await start(tmp_path / "first.log")
        second: asyncio.subprocess.Process | None = None
        try:
            async with ann.connected():
                await until(ann.my_turn, "the bot's arrival and first move")
                assert ann.game_id is not None and ann.state.names()[0] == BOT
                first.kill()
                await asyncio.wait_for(first.wait(), 30)
                assert list(tokens.games(url, BOT)) == [ann.game_id]
                await move_while_away(ann)
                second = await start(tmp_path / "second.log")
                await play_to_the_end(ann)
                await ended_normally(url, ann)
                await until(lambda: not tokens.games(url, BOT), "the token forgotten")
        finally:
            for process in (first, second):
                if process is not None and process.returncode is None:
                    process.kill()
                    await process.wait()
        said = (tmp_path / "second.log").read_text()
        assert f"resuming game {ann.game_id} as seat 0, depth 2" in said
        assert f"game {ann.game_id} over: " in said


async def test_resumed_games_keep_to_the_game_limit_and_one_over_meanwhile_is_forgotten(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Two games held, one slot: one is resumed and the other waits; that other ends while the
    bot is away (resigned), so once the slot frees the bot only forgets its token."""
    caplog.set_level(logging.INFO, logger="ubao.bot")
    store = TokenStore(tmp_path / "serve.json")
    async with game_server() as server:
        url = url_of(server)

        def serving(max_games: int) -> asyncio.Task[None]:
            return asyncio.create_task(
                serve(
                    url,
                    "dave",
                    EngineSettings(depth=2),
                    max_games=max_games,
                    poll_seconds=0.05,
                    tokens=store,
                    backoff=FAST,
                )
            )

        create = kalah_create(SeatSpec.external_bot(), SeatSpec.open())
        ann = Person(url, "ann", TokenStore(tmp_path / "ann.json"), create=create, seat=1)
        bob = Person(url, "bob", TokenStore(tmp_path / "bob.json"), create=create, seat=1)
        first = serving(2)
        second: asyncio.Task[None] | None = None
        try:
            async with ann.connected(), bob.connected():
                await until(lambda: ann.my_turn() and bob.my_turn(), "the bot in both games")
                first.cancel()  # stopped without leaving either game
                await asyncio.gather(first, return_exceptions=True)
                assert set(store.games(url, BOT)) == {ann.game_id, bob.game_id}
                caplog.clear()
                second = serving(1)
                await until(lambda: "resuming game" in caplog.text, "a game resumed")
                people = {person.game_id: person for person in (ann, bob)}
                resumed = people.pop(next(iter(held_ids(caplog))))
                waiting = people.popitem()[1]
                await resumed.play(resumed.state.legal[0])  # the bot answers: it is back
                assert held_ids(caplog) == [resumed.game_id]
                assert waiting.game_id in store.games(url, BOT)
                await waiting.resign()
                await until(lambda: waiting.state.over, "the waiting game resigned")
                await play_to_the_end(resumed)
                await ended_normally(url, resumed)
                await until(lambda: not store.games(url, BOT), "both tokens forgotten")
        finally:
            for task in (first, second):
                if task is not None:
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
        assert held_ids(caplog) == [resumed.game_id, waiting.game_id]
        assert f"game {waiting.game_id} over: South, {BOT}, wins by resignation" in caplog.text
        assert "ERROR" not in [record.levelname for record in caplog.records]


def held_ids(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The games the serving bot said it resumes, in order."""
    lines = [record.getMessage() for record in caplog.records]
    return [line.split()[2] for line in lines if line.startswith("resuming game ")]


async def test_bot_join_of_a_game_it_holds_a_seat_in_resumes_that_seat(tmp_path: Path) -> None:
    """`ubao bot --join ID` (no --seat) after a serving bot stopped in game ID comes back to its
    stored seat and plays the game to its end."""
    store = TokenStore(tmp_path / "tokens.json")
    async with game_server() as server:
        url = url_of(server)
        settings = EngineSettings(depth=2)
        serving = asyncio.create_task(
            serve(url, "dave", settings, poll_seconds=0.05, tokens=store, backoff=FAST)
        )
        create = kalah_create(SeatSpec.external_bot(), SeatSpec.open())
        ann = Person(url, "ann", TokenStore(tmp_path / "ann.json"), create=create, seat=1)
        async with ann.connected():
            try:
                await until(ann.my_turn, "the bot's arrival and first move")
            finally:
                serving.cancel()
                await asyncio.gather(serving, return_exceptions=True)
            await move_while_away(ann)
            assert ann.game_id is not None
            held = store.get(url, ann.game_id, BOT)
            bot = BotGame(url, "dave", settings, game_id=ann.game_id, tokens=store, backoff=FAST)
            run = asyncio.create_task(bot.run())
            try:
                await play_to_the_end(ann)
                await asyncio.wait_for(run, 60)
            finally:
                run.cancel()
                await asyncio.gather(run, return_exceptions=True)
        assert bot.error is None and bot.held == held
        await ended_normally(url, ann)
        assert store.get(url, ann.game_id, BOT) is None


async def test_tokens_the_server_refuses_for_a_finished_or_unknown_game_are_forgotten(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A held game the server says is over (`game_over`: its token no longer accepted, and no
    seat to join) or does not know is not played: its token is forgotten, the slot freed."""
    caplog.set_level(logging.INFO, logger="ubao.bot")
    store = TokenStore(tmp_path / "serve.json")
    async with game_server() as server:
        url = url_of(server)
        carol = Person(url, "carol", TokenStore(tmp_path / "carol.json"), create=kalah_create())
        async with carol.connected():
            await until(lambda: carol.held is not None, "carol's game")
            await carol.resign()  # before the start: called off
            await until(lambda: carol.state.over, "the end of carol's game")
        assert carol.game_id is not None
        store.put(url, carol.game_id, BOT, SeatToken(1, "a token the server never gave"))
        store.put(url, "NoSuchGm", BOT, SeatToken(0, "a token for no game"))
        serving = asyncio.create_task(
            serve(url, "dave", EngineSettings(depth=2), poll_seconds=0.05, tokens=store)
        )
        try:
            await until(lambda: not store.games(url, BOT), "both tokens forgotten")
            await until(lambda: "already over" in caplog.text, "the log line")
        finally:
            serving.cancel()
            await asyncio.gather(serving, return_exceptions=True)
        assert f"game {carol.game_id}: already over, nothing to play" in caplog.text
        assert sorted(held_ids(caplog)) == sorted([carol.game_id, "NoSuchGm"])
