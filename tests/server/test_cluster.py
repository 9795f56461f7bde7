"""Several real `ubao-server` processes over one real redis-server (docs/cluster.md): any node
serves any client, events reach every node in order with the same versions, a killed owner's
games are taken over with nothing acknowledged lost, the lobby spans the nodes, a client given
every node moves on to the next, and bot seats are answered by engine workers."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import redis

from tests.support.redis_server import RedisServer, needs_redis
from tests.support.server import SMALL_KALAH, TIMEOUT, Client
from tests.support.wire import autoplay, create, join, nodes, resume_somewhere
from ubao.client.connection import ServerSession, SessionClosed
from ubao.engine.games import make_game
from ubao.protocol import (
    ClockSpec,
    Event,
    ListGames,
    Lobby,
    Move,
    Moved,
    Over,
    SeatSpec,
    Snapshot,
    Watch,
)
from ubao.server.room import Bounds, Room
from ubao.server.stores.redis import RedisStore, lease_key

TAKEOVER_BOUND_S = 15.0
"""Generous: the takeover takes a few seconds (docs/benchmarks.md has the figure)."""
STOP_BOUND_S = 15.0
"""Generous too: a node stops in about a second (docs/server.md promises a few)."""

pytestmark = needs_redis


def versions(events: list[Event]) -> list[int]:
    return [event.v for event in events if not isinstance(event, Snapshot)]


async def watch_all(client: Client, game_id: str) -> list[Event]:
    """Every event of the game from its start (`since_v` 1) to its end."""
    await client.ok(Watch(id=0, game_id=game_id, since_v=1))
    seen = [await client.event()]
    while not isinstance(seen[-1], Over):
        seen.append(await client.event())
    return seen


async def test_players_and_spectators_on_different_nodes_see_one_game_in_order(
    redis_server: RedisServer,
) -> None:
    async with (
        nodes(redis_server, 2) as (a, b),
        Client.connected(a.port, "ada") as ada,
        Client.connected(b.port, "bob") as bob,
        Client.connected(a.port, "fan-a", "spectator") as fan_a,
        Client.connected(b.port, "fan-b", "spectator") as fan_b,
    ):
        game_id = await create(ada, game="kalah", options=SMALL_KALAH)
        await fan_b.ok(Watch(id=0, game_id=game_id))  # before anyone sits: from the snapshot
        assert isinstance(await fan_b.event(), Snapshot)
        ada_token = await join(ada, game_id, 0)
        bob_token = await join(bob, game_id, 1)  # through node b, owned by node a
        ada_moves: list[str] = []
        bob_moves: list[str] = []
        watched = asyncio.gather(watch_all(fan_a, game_id), live(fan_b))
        over = await asyncio.wait_for(
            asyncio.gather(
                autoplay(ada, game_id, ada_token, [], ada_moves),
                autoplay(bob, game_id, bob_token, [], bob_moves),
            ),
            TIMEOUT,
        )
        from_a, from_b = await asyncio.wait_for(watched, TIMEOUT)
    assert over[0] == over[1]
    assert ada_moves and bob_moves
    # Node b's spectator saw every event from the first (after its snapshot), node a's every
    # event after the first (`since_v` 1): the same events, with the same versions, in order.
    assert versions(from_b) == list(range(1, len(from_b) + 1))
    assert from_a == from_b[1:]
    played = [event.move for event in from_b if isinstance(event, Moved)]
    assert sorted(played) == sorted(ada_moves + bob_moves)


async def live(client: Client) -> list[Event]:
    """The events a watcher receives until the game ends (after its snapshot)."""
    seen = [await client.event()]
    while not isinstance(seen[-1], Over):
        seen.append(await client.event())
    return seen


async def test_the_owners_death_loses_nothing_acknowledged(
    redis_server: RedisServer,
) -> None:
    async with nodes(redis_server, 3) as (owner, b, c):
        async with Client.connected(owner.port, "host") as host:
            clock = ClockSpec(600_000, 0)
            game_id = await create(host, game="kalah", options={}, clock=clock)
            async with (
                Client.connected(b.port, "ada") as ada,
                Client.connected(c.port, "bob") as bob,
            ):
                tokens = [await join(ada, game_id, 0), await join(bob, game_id, 1)]
                acked: list[str] = []
                await play_moves([ada, bob], game_id, tokens, acked, count=6)
                owner.process.kill()  # kill -9: nothing is saved on the way out
                await owner.process.wait()
                killed = time.monotonic()
        ports = [b.port, c.port]
        stack_a, ada, _ = await resume_somewhere(ports, "ada", game_id, tokens[0], 1)
        stack_b, bob, _ = await resume_somewhere(ports[::-1], "bob", game_id, tokens[1], 1)
        took = time.monotonic() - killed
        async with stack_a, stack_b:
            assert took < TAKEOVER_BOUND_S
            # Every move acknowledged before the kill is in the game, and it goes on.
            more: list[str] = []
            ply = await play_moves([ada, bob], game_id, tokens, more, count=2)
            assert ply == len(acked) + 2
            snapshot = await snapshot_of(ada, game_id)
            assert list(snapshot.history) == acked + more


async def play_moves(
    players: list[Client], game_id: str, tokens: list[str], acked: list[str], count: int
) -> int:
    """Play `count` moves (the seat to move plays its first legal move, from a fresh
    snapshot), adding each acknowledged one to `acked`; the ply reached."""
    ply = 0
    for _ in range(count):
        snapshot = await snapshot_of(players[0], game_id)
        seat = snapshot.to_move
        if seat != 0:
            snapshot = await snapshot_of(players[seat], game_id)
        assert snapshot.legal, snapshot
        move = snapshot.legal[0]
        await players[seat].ok(
            Move(id=0, game_id=game_id, token=tokens[seat], ply=snapshot.ply, move=move)
        )
        acked.append(move)
        ply = snapshot.ply + 1
    return ply


async def snapshot_of(client: Client, game_id: str) -> Snapshot:
    """The game as it is now (the snapshot that follows the `watch`'s reply)."""
    await client.ok(Watch(id=0, game_id=game_id))
    client.events.clear()  # whatever came before the reply
    snapshot: Snapshot = await client.event_of(Snapshot)
    return snapshot


async def test_the_lobby_of_one_node_lists_the_games_of_another(
    redis_server: RedisServer,
) -> None:
    async with (
        nodes(redis_server, 2) as (a, b),
        Client.connected(a.port, "ada") as ada,
        Client.connected(b.port, "fan", "spectator") as fan,
    ):
        assert (await fan.ok(ListGames(id=0, subscribe=True))).games == ()
        game_id = await create(ada, game="kalah", options=SMALL_KALAH)
        pushed = await fan.recv()  # the push of node a's new game, on node b
        assert isinstance(pushed, Lobby) and pushed.game.game_id == game_id
        ok = await fan.ok(ListGames(id=0, filter="open"))
        assert [game.game_id for game in ok.games or ()] == [game_id]


async def test_a_client_given_every_node_moves_on_when_its_node_dies(
    redis_server: RedisServer,
) -> None:
    async with nodes(redis_server, 2) as (a, b), Client.connected(b.port, "ada") as ada:
        game_id = await create(ada, game="kalah", options=SMALL_KALAH)  # owned by node b
        seen: list[Event] = []

        async def again() -> None:
            since = seen[-1].v if seen else None
            await session.request(Watch(id=0, game_id=game_id, since_v=since))

        urls = f"ws://127.0.0.1:{a.port}/,ws://127.0.0.1:{b.port}/"
        session = ServerSession(urls, "fan", "spectator", on_event=seen.append, on_ready=again)
        running = asyncio.create_task(session.run())
        try:
            await asyncio.wait_for(session.connected.wait(), TIMEOUT)
            assert session.server == f"ws://127.0.0.1:{a.port}/"  # the first that answers
            a.process.kill()
            await asyncio.wait_for(wait_until(lambda: session.reconnects == 1), TIMEOUT)
            await asyncio.wait_for(session.connected.wait(), TIMEOUT)
            assert session.server == f"ws://127.0.0.1:{b.port}/"
            await join(ada, game_id, 0)  # a new event: the watcher, now on node b, hears of it
            await asyncio.wait_for(wait_until(lambda: len(versions(seen)) >= 1), TIMEOUT)
        finally:
            await session.close()
            with contextlib.suppress(SessionClosed):
                await running


async def wait_until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.05)


async def test_a_bot_seat_is_answered_by_an_engine_worker(
    redis_server: RedisServer,
    tmp_path: Path,
) -> None:
    command = [sys.executable, "-m", "ubao.engine", "worker", "--redis", redis_server.url]
    with (tmp_path / "worker.log").open("wb") as log:
        worker = await asyncio.create_subprocess_exec(*command, "--hash", "1", stderr=log)
        try:
            async with (
                nodes(redis_server, 2) as (a, b),
                Client.connected(a.port, "ada") as ada,
                Client.connected(b.port, "fan", "spectator") as fan,
            ):
                seats = (SeatSpec.open(), SeatSpec.bot(1))
                game_id = await create(ada, *seats, game="kalah", options=SMALL_KALAH)
                token = await join(ada, game_id, 0)
                over = asyncio.create_task(autoplay(ada, game_id, token, []))
                seen = await asyncio.wait_for(watch_all(fan, game_id), TIMEOUT)
                assert (await asyncio.wait_for(over, TIMEOUT)) == seen[-1]
                assert any(isinstance(e, Moved) and e.seat == 1 for e in seen)
        finally:
            worker.kill()
            await worker.wait()


def test_a_node_that_lost_a_game_can_never_write_it_again(
    redis_server: RedisServer,
) -> None:
    client = redis.Redis.from_url(redis_server.url)
    a, b = (RedisStore(client, node, 3_000, 10) for node in ("a", "b"))
    game = make_game("kalah", SMALL_KALAH)
    room = Room("g1", "kalah", SMALL_KALAH, game, [SeatSpec.open()] * 2, None, Bounds(), 0)
    a.save(a.snapshot(room, [], 0))
    a.commit()
    assert a.lost == set()
    assert b.locate("g1") == ("down", "a")  # a's lease runs, but a has no heartbeat
    client.delete(lease_key("g1"))  # node a stalled past its lease
    assert b.locate("g1")[0] == "claimed"  # a client's command reached node b
    b.save(b.snapshot(room, [], 0))
    b.commit()
    client.delete(lease_key("g1"))  # and node b's lease lapses too, with nobody there
    a.save(a.snapshot(room, [], 0))
    a.commit()
    assert a.lost == {"g1"}  # another tenure had the game: a's write is refused
    b.save(b.snapshot(room, [], 0))
    b.commit()
    assert b.lost == set()  # b's lease lapsed, but the game is still its tenure's
    client.close()


async def test_sigterm_stops_every_node_in_bounded_time_with_clients_connected(
    redis_server: RedisServer,
) -> None:
    """A node leaves the cluster within seconds on SIGTERM, whoever is connected and whatever
    its background loops are doing with Redis (a swallowed cancellation once hung a node)."""
    async with (
        nodes(redis_server, 2) as (a, b),
        Client.connected(a.port, "host") as host,
        Client.connected(b.port, "fan", "spectator") as fan,
    ):
        game_id = await create(host, game="kalah", options=SMALL_KALAH)
        async with Client.connected(b.port, "bob") as bob:
            tokens = [await join(host, game_id, 0), await join(bob, game_id, 1)]
            await fan.ok(Watch(id=0, game_id=game_id))
            await play_moves([host, bob], game_id, tokens, [], count=2)
            for node in (a, b):
                node.process.send_signal(signal.SIGTERM)
            for node in (a, b):
                code = await asyncio.wait_for(node.process.wait(), STOP_BOUND_S)
                assert code == 0
