"""End to end: a real server on 127.0.0.1:0 and real websockets clients speaking protocol v1."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.support.server import (
    TIMEOUT,
    Client,
    FakeClock,
    fake_engine,
    running_server,
    small_limits,
)
from tests.support.wire import autoplay, create, http_get, join, watch_to_end
from ubao.protocol import (
    AppCloseCode,
    ClockSpec,
    Command,
    Error,
    ErrorCode,
    Event,
    Hello,
    Join,
    ListGames,
    Move,
    Moved,
    Over,
    Ping,
    Resume,
    SeatEvent,
    SeatSpec,
    Snapshot,
    Watch,
    decode_server_message,
    encode,
)
from ubao.server.bots import ENGINE_COMMAND, BotSettings

ENGINES = [
    pytest.param(fake_engine(), id="fake-engine"),
    pytest.param(ENGINE_COMMAND, id="real-engine"),
]


def without_legal(events: list[Event]) -> list[Event]:
    return [
        dataclasses.replace(e, legal=None) if isinstance(e, Moved | SeatEvent) else e
        for e in events
    ]


def consecutive(events: list[Event]) -> bool:
    versions = [event.v for event in events]
    return versions == list(range(versions[0], versions[0] + len(versions)))


async def two_humans_play(port: int, game: str, options: dict[str, Any]) -> None:
    async with (
        Client.connected(port, "south") as south,
        Client.connected(port, "north") as north,
        Client.connected(port, "fan", "spectator") as fan,
    ):
        game_id = await create(south, game=game, options=options)
        south_token = await join(south, game_id, 0)
        await fan.ok(Watch(id=0, game_id=game_id))
        north_token = await join(north, game_id, 1)
        south_seen: list[Event] = []
        north_seen: list[Event] = []
        over, _, fan_seen = await asyncio.gather(
            autoplay(south, game_id, south_token, south_seen),
            autoplay(north, game_id, north_token, north_seen),
            watch_stream(fan),
        )
        assert isinstance(south_seen[0], Snapshot) and south_seen[0].v == 1
        assert consecutive(south_seen) and consecutive(north_seen[1:])
        # The spectator sees every event, in order, as the players do, minus legal moves.
        assert fan_seen[0] == dataclasses.replace(south_seen[0], v=1)
        assert fan_seen[1:] == without_legal(south_seen[1:])
        assert any(isinstance(e, Moved) and e.legal for e in south_seen)
        assert not any(getattr(e, "legal", None) for e in fan_seen)
        assert over.result.reason not in ("resign", "timeout", "abandoned")
        games = (await fan.ok(ListGames(id=0))).games or ()
        (summary,) = [g for g in games if g.game_id == game_id]
        moves = sum(isinstance(e, Moved) for e in fan_seen)
        assert summary.status == "over" and summary.ply == moves


async def watch_stream(client: Client) -> list[Event]:
    """The events a client that already watches a game receives, up to its end."""
    seen = [await client.event()]
    while not isinstance(seen[-1], Over):
        seen.append(await client.event())
    return seen


# -- complete games ----------------------------------------------------------------------------


async def test_two_humans_play_a_complete_kalah_game() -> None:
    async with running_server() as server:
        await two_humans_play(server.port, "kalah", {})


async def test_two_humans_play_a_complete_bao_game() -> None:
    async with running_server() as server:
        await two_humans_play(server.port, "bao", {})


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_human_plays_a_bot_at_depth_2(engine: tuple[str, ...]) -> None:
    async with (
        running_server(bots=BotSettings(command=engine)) as server,
        Client.connected(server.port) as human,
    ):
        game_id = await create(human, SeatSpec.open(), SeatSpec.bot(2))
        token = await join(human, game_id)
        seen: list[Event] = []
        over = await autoplay(human, game_id, token, seen)
        bot_moves = [e for e in seen if isinstance(e, Moved) and e.seat == 1]
        assert bot_moves and all(m.info is not None and m.info.pv for m in bot_moves)
        assert all(m.info.depth >= 1 for m in bot_moves if m.info)
        assert over.result.reason not in ("engine_failure", "abandoned")


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_bot_versus_bot_game_plays_to_the_end_on_its_own(engine: tuple[str, ...]) -> None:
    async with (
        running_server(bots=BotSettings(command=engine)) as server,
        Client.connected(server.port, "fan", "spectator") as fan,
    ):
        game_id = await create(fan, SeatSpec.bot(2), SeatSpec.bot(1, time_ms=50))
        seen = await watch_to_end(fan, game_id)
        moved = [e for e in seen if isinstance(e, Moved)]
        assert moved and all(m.info is not None for m in moved)
        assert seen[-1].result.reason == "normal"  # type: ignore[union-attr]
        assert consecutive(seen[1:])


# -- leaving and coming back -------------------------------------------------------------------


async def test_resume_after_a_dropped_connection_gets_exactly_the_missed_events() -> None:
    async with (
        running_server(now=FakeClock()) as server,
        Client.connected(server.port, "north") as north,
    ):
        game_id = await create(north)
        north_token = await join(north, game_id, 1)
        async with Client.connected(server.port, "south") as south:
            south_token = await join(south, game_id, 0)
            assert (await south.event_of(Snapshot)).v == 2
            await south.ok(Move(id=0, game_id=game_id, token=south_token, ply=0, move="1"))
            seen = (await south.event_of(Moved)).v
        assert isinstance(await north.event(), Snapshot)
        joined = await north.event()
        assert isinstance(joined, SeatEvent) and joined.connected and joined.seat == 0
        moved = await north.event()
        assert isinstance(moved, Moved) and moved.legal and moved.v == seen
        dropped = await north.event()
        assert isinstance(dropped, SeatEvent) and dropped.v == seen + 1
        assert (dropped.seat, dropped.connected) == (0, False) and dropped.grace_ms
        await north.ok(Move(id=0, game_id=game_id, token=north_token, ply=1, move="1"))
        async with Client.connected(server.port, "south") as back:
            await back.ok(Resume(id=0, game_id=game_id, token=south_token, since_v=seen))
            missed = [await back.event() for _ in range(3)]
            assert [type(e) for e in missed] == [SeatEvent, Moved, SeatEvent]
            assert [e.v for e in missed] == [seen + 1, seen + 2, seen + 3]
            assert isinstance(missed[1], Moved) and missed[1].legal
            returned = await north.event_of(SeatEvent)
            assert returned.connected and returned == missed[2]
            move = Move(id=0, game_id=game_id, token=south_token, ply=2, move=missed[1].legal[0])
            await back.ok(move)


async def test_a_second_connection_with_the_token_takes_the_seat_over() -> None:
    async with running_server() as server, Client.connected(server.port, "old") as old:
        game_id = await create(old)
        token = await join(old, game_id)
        async with Client.connected(server.port, "new") as new:
            await new.ok(Resume(id=0, game_id=game_id, token=token, since_v=0))
            assert isinstance(await new.event(), Snapshot)
            with pytest.raises(ConnectionClosed):
                while True:
                    await old.recv()
            assert old.ws.close_code == AppCloseCode.SEAT_TAKEN_OVER
            assert old.ws.close_reason == "seat taken over by another connection"
            assert await join(new, game_id) != token  # the game starts; new holds both seats
            snapshot = await new.event_of(Snapshot)
            assert snapshot.status == "playing" and snapshot.legal  # seat 0 is to move
            await new.ok(Move(id=0, game_id=game_id, token=token, ply=0, move=snapshot.legal[0]))


async def test_a_player_who_does_not_come_back_loses_after_the_grace_period() -> None:
    clock = FakeClock()
    limits = small_limits(grace_ms=30_000)
    async with (
        running_server(now=clock, limits=limits) as server,
        Client.connected(server.port, "stays") as stays,
    ):
        game_id = await create(stays)
        token = await join(stays, game_id, 0)
        async with Client.connected(server.port, "leaves") as leaves:
            leaves_token = await join(leaves, game_id, 1)
            start = await stays.event_of(SeatEvent)
            assert start.legal
            await stays.ok(Move(id=0, game_id=game_id, token=token, ply=0, move="1"))
            moved = await leaves.event_of(Moved)
            move = Move(id=0, game_id=game_id, token=leaves_token, ply=1, move=moved.legal[0])
            await leaves.ok(move)
        await stays.event_of(SeatEvent)
        clock.advance(30_000)
        await stays.ok(Ping(id=0, t=0))  # anything the server handles wakes its timer
        over = await stays.event_of(Over)
        assert (over.result.winner, over.result.reason) == (0, "abandoned")


async def test_a_flag_fall_ends_the_game() -> None:
    clock = FakeClock()
    async with (
        running_server(now=clock) as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
    ):
        game_id = await create(south, clock=ClockSpec(initial_ms=5_000, increment_ms=0))
        token = await join(south, game_id, 0)
        north_token = await join(north, game_id, 1)
        await south.ok(Move(id=0, game_id=game_id, token=token, ply=0, move="1"))
        await north.ok(Move(id=0, game_id=game_id, token=north_token, ply=1, move="1"))
        clock.advance(5_000)  # South's clock, started by North's (untimed) first move, runs out
        await south.ok(Ping(id=0, t=0))  # anything the server handles wakes its timer
        over = await north.event_of(Over)
        assert (over.result.winner, over.result.reason) == (1, "timeout")
        assert (await south.event_of(Over)) == over


# -- bad input: the right error, and nothing changes -------------------------------------------


async def expect_no_event(client: Client) -> None:
    """The next message is the reply to a ping: nothing was broadcast before it."""
    await client.ws.send(msgpack.packb({"type": "ping", "id": 424242, "t": 1}))
    reply = await client.recv()
    assert reply.type == "ok" and reply.id == 424242, reply  # type: ignore[union-attr]


async def raw_error(client: Client, frame: bytes | str) -> Any:
    await client.ws.send(frame)
    reply = await client.recv()
    assert reply.type == "error", reply
    return reply


async def test_bad_frames_are_answered_with_bad_message() -> None:
    async with running_server() as server, Client.connected(server.port) as client:
        cases: list[tuple[bytes | str, int | None]] = [
            (b"\xc1\x00", None),
            (msgpack.packb([1, 2, 3]), None),
            (msgpack.packb({"id": 5}), None),
            (msgpack.packb({"type": "teleport", "id": 6}), 6),
            (msgpack.packb({"type": "move", "id": 7, "game_id": "g"}), 7),
            (msgpack.packb({"type": "join", "id": 8, "game_id": 12}), 8),
            (msgpack.packb({"type": "ping", "id": 9, "t": "now"}), 9),
            ("a text frame", None),
        ]
        for frame, id in cases:
            error = await raw_error(client, frame)
            assert (error.id, error.code) == (id, ErrorCode.BAD_MESSAGE)
        assert "teleport" in (await raw_error(client, msgpack.packb({"type": "teleport"}))).message
        assert (await client.ok(ListGames(id=0))).games == ()
        status, metrics = await http_get(server.port, "/metrics")
        assert (
            status == 200 and 'ubao_rejected_total{reason="bad_message:unknown_type"} 2' in metrics
        )


async def test_bad_commands_get_their_error_code_and_change_nothing() -> None:
    async with (
        running_server() as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
        Client.connected(server.port, "fan", "spectator") as fan,
    ):
        game_id = await create(south)
        south_token = await join(south, game_id, 0)
        north_token = await join(north, game_id, 1)
        await fan.ok(Watch(id=0, game_id=game_id))
        await south.ok(Move(id=0, game_id=game_id, token=south_token, ply=0, move="1"))
        for client in (south, north, fan):
            await client.event_of(Moved)

        def move(token: str, ply: int, text: str, game: str = game_id) -> Move:
            return Move(id=0, game_id=game, token=token, ply=ply, move=text)

        cases: list[tuple[Client, Command, ErrorCode]] = [
            (south, move(south_token, 1, "1"), ErrorCode.NOT_YOUR_TURN),
            (north, move(north_token, 1, "9"), ErrorCode.ILLEGAL_MOVE),
            (south, move(south_token, 0, "1"), ErrorCode.STALE_PLY),
            (north, move("wrong-token", 1, "1"), ErrorCode.NOT_YOUR_SEAT),
            (fan, move(north_token, 1, "1"), ErrorCode.NOT_YOUR_SEAT),
            (north, move(north_token, 1, "1", "no-such-game"), ErrorCode.UNKNOWN_GAME),
            (north, Join(id=0, game_id=game_id, seat=None), ErrorCode.SEAT_TAKEN),
            (north, Watch(id=0, game_id="no-such-game"), ErrorCode.UNKNOWN_GAME),
        ]
        for client, command, code in cases:
            error = await client.error(command)
            assert error.code == code, (command, error)
        for client in (south, north, fan):
            await expect_no_event(client)
        await fan.ok(Watch(id=0, game_id=game_id))
        snapshot = await fan.event_of(Snapshot)
        assert (snapshot.ply, snapshot.history, snapshot.v) == (1, ("1",), 3)


async def test_an_unsupported_version_is_refused_and_closed() -> None:
    async with running_server() as server, connect(f"ws://127.0.0.1:{server.port}/") as ws:
        await ws.send(encode(Hello(id=1, proto=9, name="x", role="human")))
        error = decode_server_message(await ws.recv())
        assert isinstance(error, Error) and error.code == ErrorCode.UNSUPPORTED_VERSION
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), TIMEOUT)
        assert ws.close_code == AppCloseCode.UNSUPPORTED_VERSION


async def test_an_oversized_frame_closes_the_connection_with_1009() -> None:
    async with running_server() as server, Client.connected(server.port) as client:
        await client.ws.send(b"\x00" * 5000)
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(client.ws.recv(), TIMEOUT)
        assert client.ws.close_code == 1009


async def test_a_flood_of_messages_is_cut_off_with_a_policy_violation() -> None:
    limits = small_limits(burst=10, per_second=0.001)
    async with running_server(limits=limits) as server, Client.connected(server.port) as client:
        for i in range(30):
            await client.ws.send(msgpack.packb({"type": "ping", "id": i, "t": 0}))
        replies = []
        with pytest.raises(ConnectionClosed):
            while True:
                replies.append(await client.recv())
        assert [r.type for r in replies] == ["ok"] * 9 + ["error"]  # hello spent one
        assert replies[-1].code == ErrorCode.RATE_LIMITED  # type: ignore[union-attr]
        assert client.ws.close_code == 1008


async def test_connections_per_address_are_capped() -> None:
    async with (
        running_server(limits=small_limits(connections_per_ip=2)) as server,
        Client.connected(server.port),
        Client.connected(server.port),
        connect(f"ws://127.0.0.1:{server.port}/") as third,
    ):
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(third.recv(), TIMEOUT)
        assert third.close_code == 1008


async def test_health_check_and_ping(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with running_server() as server, Client.connected(server.port) as client:
        assert await http_get(server.port, "/healthz") == (200, "ok\n")
        # A balancer checks every node every few seconds: not a line of the log each time.
        assert not [r for r in caplog.records if r.name == "ubao.server.websockets"]
        pong = await client.ok(Ping(id=0, t=1234))
        assert pong.t == 1234 and isinstance(pong.server_t, int)
