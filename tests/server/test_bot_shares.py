"""Fair shares of the server's time: the engine pool served across addresses, every server
bot search bounded in time, and who loses when several players' grace periods run out."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable

import pytest

from tests.support.server import (
    SMALL_KALAH,
    TIMEOUT,
    Client,
    FakeClock,
    running_server,
    small_limits,
)
from tests.support.wire import create, watch_to_end
from ubao.engine.games import make_game
from ubao.engine.protocols import Limits
from ubao.protocol import BotInfo, SeatSpec
from ubao.server.bots import Accept, Bots, BotSettings, EngineShares, seat_limits
from ubao.server.outputs import BotTurn
from ubao.server.room import Bounds, Room, hash_token

# -- every search is bounded in time -----------------------------------------------------------


def test_a_depth_only_seat_searches_within_the_servers_longest_time() -> None:
    assert seat_limits(SeatSpec.bot(20), None, 10_000) == Limits(depth=20, time_ms=10_000)
    assert seat_limits(SeatSpec.bot(20, time_ms=300), None, 10_000) == Limits(depth=20, time_ms=300)


async def test_a_deep_depth_only_bot_moves_at_the_servers_longest_time() -> None:
    # Othello 8x8 to depth 40 takes far longer than a minute: the engine must stop by itself
    # at `max_time_ms`, long before the server's own deadline (`move_timeout_s`).
    bots = Bots(BotSettings(move_timeout_s=60.0, start_timeout_s=TIMEOUT))
    bots.max_time_ms = 300
    offered: list[BotInfo | None] = []

    def accept(move: str, info: BotInfo | None) -> bool:
        offered.append(info)
        return True

    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        assert await bots.play(othello_turn("deep", SeatSpec.bot(40)), accept) is None
    finally:
        await bots.close()
    assert loop.time() - start < 30  # not the 60 s deadline (generous: engine start, load)
    (info,) = offered
    assert info is not None and info.depth < 40


# -- the engines are shared fairly -------------------------------------------------------------


OUT_OF_BOOK = ("c4", "c5", "b6", "d3", "c2", "a7", "d6", "e7", "d7", "e3", "b5", "d2")
"""Twelve plies of a seeded random game: a balanced middle game the opening book
(engine/othello_book.py), which answers at once, has not got, and where a search of 40 plies
takes far more than a second (a lopsided one, where a side runs out of moves, can take less)."""


def othello_turn(game_id: str, spec: SeatSpec) -> BotTurn:
    """Black to move in 8x8 Othello where the engine must search."""
    return BotTurn(
        game_id=game_id,
        seat=0,
        ply=len(OUT_OF_BOOK),
        game="othello",
        options={"size": 8},
        moves=OUT_OF_BOOK,
        spec=spec,
        clocks=None,
    )


async def wait_until(condition: Callable[[], bool]) -> None:
    """Poll `condition` until it holds, within the tests' generous timeout."""
    async with asyncio.timeout(TIMEOUT):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_freed_engine_goes_to_the_share_holding_the_fewest_and_one_stays_free() -> None:
    """Three engines: address a, with four deep turns, holds two at most; b's turn, arriving
    later, takes the third at once; a freed engine goes to the share holding the fewest."""
    shares = EngineShares(3)
    order: list[str] = []
    done: dict[str, asyncio.Event] = {}

    async def search(name: str, share: Hashable) -> None:
        done[name] = asyncio.Event()
        async with shares.engine(share):
            order.append(name)
            await done[name].wait()

    tasks = [asyncio.create_task(search(name, "a")) for name in ("a1", "a2", "a3", "a4")]
    await wait_until(lambda: shares.waiting() == 2)
    assert order == ["a1", "a2"] and shares.held == {"a": 2} and shares.free == 1
    tasks.append(asyncio.create_task(search("b1", "b")))
    await wait_until(lambda: len(order) == 3)
    assert order[2] == "b1" and shares.held == {"a": 2, "b": 1}  # at once, not after a1
    done["a1"].set()
    await wait_until(lambda: len(order) == 4)
    assert order[3] == "a3"
    done["b1"].set()  # a holds two: the freed engine waits for another address
    await wait_until(lambda: shares.free == 1)
    assert shares.waiting() == 1 and shares.held == {"a": 2}
    done["a2"].set()
    await wait_until(lambda: len(order) == 5)
    for name in ("a3", "a4"):
        done[name].set()
    await asyncio.wait_for(asyncio.gather(*tasks), TIMEOUT)
    assert order == ["a1", "a2", "b1", "a3", "a4"]
    assert shares.free == 3 and shares.held == {} and shares.waiting() == 0


async def test_a_turn_cancelled_while_it_waits_or_as_it_is_served_loses_no_engine() -> None:
    shares = EngineShares(1)
    entered: list[str] = []
    release = asyncio.Event()
    tasks: dict[str, asyncio.Task[None]] = {}

    async def search(name: str) -> None:
        async with shares.engine(name):
            entered.append(name)
            await release.wait()
        if name == "first":
            # The engine was just handed to "served", which has not run yet: its game ends.
            tasks["served"].cancel()

    for name in ("first", "waiting", "served", "last"):
        tasks[name] = asyncio.create_task(search(name))
    await wait_until(lambda: shares.waiting() == 3)
    assert entered == ["first"]
    tasks["waiting"].cancel()  # the game ended while its turn waited
    await asyncio.gather(tasks["waiting"], return_exceptions=True)
    assert shares.waiting() == 2
    release.set()
    await asyncio.wait_for(asyncio.gather(tasks["first"], tasks["last"]), TIMEOUT)
    assert tasks["served"].cancelled()
    assert entered == ["first", "last"]
    assert shares.free == 1 and shares.held == {} and shares.waiting() == 0


async def test_another_address_is_served_before_the_busy_addresss_later_turns() -> None:
    # Two engines; address A has four deep, slow bot turns (two search, two wait); then a quick
    # bot of address B needs an engine. First come, first served made it wait for A's third
    # and fourth moves too; it now gets the first engine that comes free.
    settings = BotSettings(start_timeout_s=TIMEOUT, engines=2, hash_mb=1)
    bots = Bots(settings)
    accepted: list[str] = []

    def referee(name: str) -> Accept:
        def accept(move: str, info: BotInfo | None) -> bool:
            accepted.append(name)
            return True

        return accept

    tasks: list[asyncio.Task[None]] = []
    failures: dict[str, str | None] = {}

    async def search(turn: BotTurn, address: str) -> None:
        failures[turn.game_id] = await bots.play(turn, referee(turn.game_id), address)

    def play(turn: BotTurn, address: str) -> None:
        task = asyncio.create_task(search(turn, address))
        bots.spawn(turn.game_id, task)
        tasks.append(task)

    deep = SeatSpec.bot(40, time_ms=1500)
    quick = BotTurn(
        game_id="b",
        seat=1,
        ply=1,
        game="kalah",
        options=SMALL_KALAH,
        moves=("1",),
        spec=SeatSpec.bot(1),
        clocks=None,
    )
    try:
        for game_id in ("a0", "a1", "a2", "a3"):
            play(othello_turn(game_id, deep), "10.0.0.1")
        await wait_until(lambda: bots.shares.waiting() == 2)
        play(quick, "10.0.0.2")
        await asyncio.wait_for(asyncio.gather(*tasks), 4 * TIMEOUT)
    finally:
        await bots.close()  # also cancels the turns still going after a failure
    assert failures == dict.fromkeys(["a0", "a1", "a2", "a3", "b"])
    assert accepted.index("b") <= 2, accepted  # after at most A's first two moves


# -- several players away at once --------------------------------------------------------------


def kalah_room(clock: FakeClock) -> Room:
    """A Kalah game of two people, both of whom have moved."""
    game = make_game("kalah", SMALL_KALAH)
    room = Room("g", "kalah", SMALL_KALAH, game, [SeatSpec.open()] * 2, None, Bounds(), 0)
    for seat in (0, 1):
        room.join(seat, f"p{seat}", hash_token(f"token {seat}"), seat + 1, clock())
    assert room.status == "playing"
    for _ in range(20):
        if set(room.movers) == {0, 1}:
            return room
        room.play(room.to_move, room.ply, room.legal()[0], clock())
    raise AssertionError("both players should have moved within 20 plies")


@pytest.mark.parametrize("to_move", [0, 1])
def test_when_both_players_are_away_the_player_to_move_loses(to_move: int) -> None:
    clock = FakeClock()
    room = kalah_room(clock)
    for _ in range(20):
        if room.to_move == to_move:
            break
        room.play(room.to_move, room.ply, room.legal()[0], clock())
    assert room.status == "playing" and room.to_move == to_move
    # The other player's grace runs out first, and a tick late finds both gone (as after a
    # restart that nobody came back to, or a busy server): the game waits for the mover.
    room.release(1 - to_move, clock(), 3_000)
    clock.advance(1_000)
    room.release(to_move, clock(), 3_000)
    clock.advance(3_000)
    deadline = room.deadline()
    assert deadline is not None and deadline <= clock()
    events = room.expire(clock())
    assert room.result is not None and len(events) == 1
    assert (room.result.winner, room.result.reason) == (1 - to_move, "abandoned")
    assert room.deadline() is None


def test_one_player_away_loses_whoever_is_to_move() -> None:
    clock = FakeClock()
    room = kalah_room(clock)
    away = 1 - room.to_move
    room.release(away, clock(), 3_000)
    clock.advance(2_999)
    assert room.expire(clock()) == []
    clock.advance(1)
    room.expire(clock())
    assert room.result is not None
    assert (room.result.winner, room.result.reason) == (1 - away, "abandoned")


async def test_the_server_gives_the_pool_its_time_cap_and_each_turn_its_creators_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Wired as a user runs it: `--max-bot-time` reaches the pool, and every bot turn of a game
    is queued under the address that created it."""
    shares: list[str | None] = []
    play = Bots.play

    async def recorded(
        self: Bots, turn: BotTurn, accept: Accept, share: str | None = None
    ) -> str | None:
        shares.append(share)
        return await play(self, turn, accept, share)

    monkeypatch.setattr(Bots, "play", recorded)
    async with (
        running_server(limits=small_limits(max_bot_time_ms=1234)) as server,
        Client.connected(server.port, "fan", "spectator") as fan,
    ):
        assert server.bots.max_time_ms == 1234
        game_id = await create(fan, SeatSpec.bot(1), SeatSpec.bot(1))
        await watch_to_end(fan, game_id)
    assert shares and set(shares) == {"127.0.0.1"}
