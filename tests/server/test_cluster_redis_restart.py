"""Two real nodes over a real redis-server that is killed (kill -9) and restarted from its
append-only file (docs/cluster.md, "Redis restarts"): a command for another node's game is
still answered or its connection closed with 1012, and seats follow the real connections."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable

from websockets.exceptions import ConnectionClosed

from tests.support.redis_server import RedisServer, needs_redis
from tests.support.server import SMALL_KALAH, Client
from tests.support.wire import create, http_get, join, nodes, resume_somewhere
from ubao.protocol import Command, Error, Ok, SeatEvent, Watch
from ubao.server.outputs import SERVICE_RESTART

pytestmark = needs_redis

DOWN_S = 1.5
"""How long Redis stays down: longer than a heartbeat's renewal period, as in QA's runs."""
ANSWER_BOUND_S = 15.0
"""Generous: an answer (or a 1012) comes within a few seconds of Redis's return."""


async def restart(redis: RedisServer) -> None:
    """Kill Redis (-9) and start it again on its files, `DOWN_S` later."""
    await asyncio.to_thread(redis.stop)
    await asyncio.sleep(DOWN_S)
    await asyncio.to_thread(redis.start)


async def answered(client: Client, command: Command) -> Ok | Error | None:
    """The reply to `command`, or None if the connection was closed with 1012 instead; never
    silence (the wait is bounded)."""
    try:
        return await asyncio.wait_for(client.reply(command), ANSWER_BOUND_S)
    except ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == SERVICE_RESTART, closed
        return None


async def proxies(port: int) -> int:
    """The node's proxy connections (its /metrics)."""
    _, metrics = await http_get(port, "/metrics")
    found = re.search(r"^ubao_proxies (\d+)$", metrics, re.MULTILINE)
    assert found is not None, metrics
    return int(found.group(1))


async def test_commands_for_another_nodes_game_are_answered_after_a_redis_restart(
    redis_server: RedisServer,
) -> None:
    async with (
        nodes(redis_server, 2) as (b, c),
        Client.connected(c.port, "maker") as maker,
        Client.connected(b.port, "early", "spectator") as early,
        Client.connected(b.port, "late", "spectator") as late,
    ):
        game_id = await create(maker, game="kalah", options=SMALL_KALAH)  # node c's
        await early.ok(Watch(id=0, game_id=game_id))  # its proxy on c opened before the restart
        await restart(redis_server)
        await asyncio.sleep(0.3)  # QA's timing: Redis is back, the nodes' inboxes maybe not yet
        # Each command is answered, or its connection closed with 1012 (then the client comes
        # back and is answered: the grace after Redis's return may take a few attempts).
        for name, client in (("late", late), ("early", early)):
            if await answered(client, Watch(id=0, game_id=game_id)) is not None:
                continue
            for _ in range(50):
                async with Client.connected(b.port, name, "spectator") as again:
                    reply = await answered(again, Watch(id=0, game_id=game_id))
                if reply is not None:
                    assert isinstance(reply, Ok), reply
                    break
                await asyncio.sleep(0.2)
            else:
                raise AssertionError(f"{name} was never answered again")


async def test_seats_follow_the_real_connections_after_a_redis_restart(
    redis_server: RedisServer,
) -> None:
    async with nodes(redis_server, 2) as (b, c), Client.connected(c.port, "quinn") as quinn:
        game_id = await create(quinn, game="kalah", options=SMALL_KALAH)  # node c's
        await join(quinn, game_id, 1)
        async with contextlib.AsyncExitStack() as stack:
            first = contextlib.AsyncExitStack()
            stack.push_async_callback(first.aclose)
            pat = await first.enter_async_context(Client.connected(b.port, "pat"))
            token = await join(pat, game_id, 0)  # through node b: a proxy on node c
            assert await proxies(c.port) == 1
            quinn.events.clear()
            await restart(redis_server)
            await asyncio.sleep(0.3)
            if await answered(pat, Watch(id=0, game_id=game_id)) is None:
                # Pat's connection is gone, so is its proxy: Quinn is told, and node c keeps
                # no proxy holding the seat (nor does node b for Quinn: it has no proxy at all).
                left = await asyncio.wait_for(
                    seat_event(quinn, lambda e: e.seat == 0 and not e.connected), ANSWER_BOUND_S
                )
                assert left.grace_ms
                for _ in range(100):
                    if await proxies(c.port) == 0:
                        break
                    await asyncio.sleep(0.1)
                else:
                    raise AssertionError("node c kept the proxy of Pat's closed connection")
                await first.aclose()
                # Pat comes back (to either node) and resumes: Quinn sees the seat taken again.
                again, pat, _ = await resume_somewhere([b.port, c.port], "pat", game_id, token, 1)
                stack.push_async_callback(again.aclose)
                back = await asyncio.wait_for(
                    seat_event(quinn, lambda e: e.seat == 0 and e.connected), ANSWER_BOUND_S
                )
                assert back.name == "pat"
            assert isinstance(await answered(pat, Watch(id=0, game_id=game_id)), Ok)


async def seat_event(client: Client, wanted: Callable[[SeatEvent], bool]) -> SeatEvent:
    """Skip events until a `seat` event that `wanted` accepts."""
    while True:
        event: SeatEvent = await client.event_of(SeatEvent)
        if wanted(event):
            return event
