"""Accounts over the wire, with real servers: a claimed name is played only with its key (on
one node, after a restart, on every node of a cluster), a guest can take neither it nor a name
that looks like it, wrong keys are refused and then held back, and a rotated key replaces the
old one (docs/protocol.md, "Accounts")."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from websockets.asyncio.client import connect

from tests.support.kgp import tcp_agent
from tests.support.redis_server import RedisServer, needs_redis
from tests.support.server import Client, running_server, small_limits
from tests.support.wire import create, join, nodes, server_process
from ubao.protocol import (
    PROTOCOL_VERSION,
    Claim,
    Error,
    ErrorCode,
    Hello,
    Move,
    Ok,
    Rematch,
    RematchAnswer,
    Resign,
    Resume,
    Rotate,
    Snapshot,
    Takeback,
    TakebackAnswer,
    Watch,
)
from ubao.server.kgp_settings import KgpSettings


@contextlib.asynccontextmanager
async def raw(port: int) -> AsyncIterator[Client]:
    """A client that has not said hello yet."""
    async with connect(f"ws://127.0.0.1:{port}/", compression=None) as ws:
        yield Client(ws)


async def hello(port: int, name: str, key: str | None = None) -> Ok | Error:
    """What the server answers a `hello` as `name` (with `key`) on a new connection."""
    async with raw(port) as client:
        return await client.reply(
            Hello(id=0, proto=PROTOCOL_VERSION, name=name, role="human", key=key)
        )


async def claim(port: int, name: str, *, bot: bool = False) -> str:
    """Claim `name` (from a guest connection); its new key."""
    async with Client.connected(port, "claimer") as client:
        ok = await client.ok(Claim(id=0, name=name, bot=bot))
    assert ok.account and ok.name == name and ok.key is not None
    return ok.key


def refused(reply: Ok | Error, code: ErrorCode) -> Error:
    assert isinstance(reply, Error) and reply.code == code, reply
    return reply


LOOK_ALIKES = ("Alice", "ALICE", "аlice", "Ａｌｉｃｅ", "alíce", "a1ice")
"""Names a person could take for `alice`: case, Cyrillic а, full width, an accent, a digit."""


async def test_a_claimed_name_and_its_look_alikes_are_refused_without_the_key() -> None:
    async with running_server() as server:
        port = server.port
        key = await claim(port, "alice")
        for name in ("alice", *LOOK_ALIKES):
            refused(await hello(port, name), ErrorCode.NAME_CLAIMED)
            async with Client.connected(port, "guest") as client:
                taken = await client.error(Claim(id=0, name=name))
            assert taken.code == ErrorCode.NAME_CLAIMED
        welcome = await hello(port, "ALICE", key)
        assert isinstance(welcome, Ok) and welcome.account and welcome.name == "alice"
        guest = await hello(port, "bob", key)  # a key for a name nobody claimed: a guest
        assert isinstance(guest, Ok) and not guest.account


async def test_only_the_key_plays_a_claimed_seat_and_guests_show_as_guests() -> None:
    async with running_server() as server:
        port = server.port
        key = await claim(port, "alice")
        async with (
            Client.connected(port, "alice", key=key) as alice,
            Client.connected(port, "guest") as guest,
        ):
            game_id = await create(alice)
            token = await join(alice, game_id, 0)
            await join(guest, game_id, 1)
            snapshot = await guest.event_of(Snapshot)
            assert [s.account for s in snapshot.seats] == [True, False]
            assert [s.name for s in snapshot.seats] == ["alice", "guest"]
        # Alice is gone: her seat token alone, on a guest's connection, plays nothing.
        async with Client.connected(port, "mallory") as mallory:
            resumed = await mallory.error(Resume(id=0, game_id=game_id, token=token, since_v=0))
            assert resumed.code == ErrorCode.NOT_YOUR_SEAT
            for command in (
                Move(id=0, game_id=game_id, token=token, ply=0, move="1"),
                Resign(id=0, game_id=game_id, token=token),
                Takeback(id=0, game_id=game_id, token=token, ply=0),
                TakebackAnswer(id=0, game_id=game_id, token=token, ply=0, accept=True),
            ):
                assert (await mallory.error(command)).code == ErrorCode.NOT_YOUR_SEAT
        async with Client.connected(port, "alice", key=key) as alice:
            await alice.ok(Resume(id=0, game_id=game_id, token=token, since_v=0))
            await alice.ok(Resign(id=0, game_id=game_id, token=token))
        async with Client.connected(port, "mallory") as mallory:
            for offer in (
                Rematch(id=0, game_id=game_id, token=token),
                RematchAnswer(id=0, game_id=game_id, token=token, accept=True),
            ):
                assert (await mallory.error(offer)).code == ErrorCode.NOT_YOUR_SEAT


async def test_wrong_keys_are_refused_then_held_back_per_name_and_per_address() -> None:
    limits = small_limits(wrong_keys_per_name=3, wrong_keys_per_address=5)
    async with running_server(limits=limits) as server:
        port = server.port
        key = await claim(port, "alice")
        other = await claim(port, "carol")
        for _ in range(3):
            refused(await hello(port, "alice", "x" * 43), ErrorCode.BAD_KEY)
        held = refused(await hello(port, "alice", key), ErrorCode.TOO_MANY_ATTEMPTS)
        assert held.retry_after_ms is not None and held.retry_after_ms > 0
        welcome = await hello(port, "carol", other)  # another name from here still plays...
        assert isinstance(welcome, Ok) and welcome.account
        for _ in range(2):
            refused(await hello(port, "carol", "y" * 43), ErrorCode.BAD_KEY)
        # ...until the address has sent five wrong keys, whatever the names.
        refused(await hello(port, "carol", other), ErrorCode.TOO_MANY_ATTEMPTS)


async def test_a_rotated_key_replaces_the_old_one() -> None:
    async with running_server() as server:
        port = server.port
        old = await claim(port, "alice")
        async with Client.connected(port, "guest") as guest:
            assert (await guest.error(Rotate(id=0))).code == ErrorCode.NOT_AN_ACCOUNT
        async with Client.connected(port, "alice", key=old) as alice:
            ok = await alice.ok(Rotate(id=0))
        assert ok.key is not None and ok.key != old
        refused(await hello(port, "alice", old), ErrorCode.BAD_KEY)
        welcome = await hello(port, "alice", ok.key)
        assert isinstance(welcome, Ok) and welcome.account


async def test_a_bot_account_plays_as_a_bot_whatever_its_role() -> None:
    async with running_server() as server:
        port = server.port
        key = await claim(port, "robo", bot=True)
        async with (
            Client.connected(port, "robo", key=key) as robo,
            Client.connected(port, "watcher") as watcher,
        ):
            game_id = await create(robo)
            await join(robo, game_id, 0)
            await watcher.ok(Watch(id=0, game_id=game_id))
            seat = (await watcher.event_of(Snapshot)).seats[0]
            assert seat.account and seat.client == "bot"


async def test_a_claim_and_its_seats_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    async with server_process(db) as (_, port):
        key = await claim(port, "alice")
        async with Client.connected(port, "alice", key=key) as alice:
            game_id = await create(alice)
            token = await join(alice, game_id, 0)
    async with server_process(db) as (_, port):
        refused(await hello(port, "Alice"), ErrorCode.NAME_CLAIMED)
        async with Client.connected(port, "mallory") as mallory:
            resumed = await mallory.error(Resume(id=0, game_id=game_id, token=token, since_v=0))
            assert resumed.code == ErrorCode.NOT_YOUR_SEAT
            await mallory.ok(Watch(id=0, game_id=game_id))
            assert (await mallory.event_of(Snapshot)).seats[0].account
        async with Client.connected(port, "alice", key=key) as alice:
            await alice.ok(Resume(id=0, game_id=game_id, token=token, since_v=0))


@needs_redis
async def test_a_claim_holds_on_every_node_of_a_cluster(redis_server: RedisServer) -> None:
    async with nodes(redis_server, 2) as (first, second):
        key = await claim(first.port, "alice")
        refused(await hello(second.port, "ALICE"), ErrorCode.NAME_CLAIMED)
        async with Client.connected(second.port, "guest") as client:
            assert (await client.error(Claim(id=0, name="аlice"))).code == ErrorCode.NAME_CLAIMED
        async with (
            Client.connected(first.port, "alice", key=key) as alice,
            Client.connected(second.port, "bob") as bob,
        ):
            game_id = await create(alice)
            token = await join(alice, game_id, 0)
            await join(bob, game_id, 1)
            # Bob's node serves the game through its owner: Alice shows as an account there.
            snapshot = await bob.event_of(Snapshot)
            assert [s.account for s in snapshot.seats] == [True, False]
        # On the other node, the seat token without the key plays nothing...
        async with Client.connected(second.port, "mallory") as mallory:
            resumed = await mallory.error(Resume(id=0, game_id=game_id, token=token, since_v=0))
            assert resumed.code == ErrorCode.NOT_YOUR_SEAT
        # ...and with it, it does: a key rotated on one node is the key on the other.
        async with Client.connected(second.port, "alice", key=key) as alice:
            rotated = await alice.ok(Rotate(id=0))
            await alice.ok(Resume(id=0, game_id=game_id, token=token, since_v=0))
        assert rotated.key is not None
        refused(await hello(first.port, "alice", key), ErrorCode.BAD_KEY)
        async with Client.connected(first.port, "alice", key=rotated.key) as alice:
            await alice.ok(Resume(id=0, game_id=game_id, token=token, since_v=0))


async def test_a_kgp_agent_plays_a_claimed_name_only_with_its_key_as_token() -> None:
    kgp = KgpSettings(port=0, wait_ms=300, move_ms=3_000)
    async with running_server(kgp=kgp) as server:
        assert server.kgp.port is not None
        key = await claim(server.port, "agent", bot=True)
        async with tcp_agent(server.kgp.port) as impostor:
            await impostor.hello("Agent", token="not the key at all")
            refusal = await impostor.until("error")
            assert "account" in " ".join(map(str, refusal.args)), refusal
        async with tcp_agent(server.kgp.port) as agent:
            await agent.hello("agent", token=key)
            await agent.play_games(1)
        seats = [
            seat
            for room in server.core.rooms.values()
            for seat in room.seats
            if seat.name == "agent"
        ]
        assert seats and all(seat.account == "agent" for seat in seats)
        assert all(seat.info().client == "bot" and seat.info().account for seat in seats)


@needs_redis
async def test_wrong_keys_are_counted_for_every_node_of_a_cluster(
    redis_server: RedisServer,
) -> None:
    """Two wrong keys on one node and one on the other hold the name back on both (three a
    name here): a guesser gains nothing by spreading over the nodes."""
    async with nodes(redis_server, 2, "--wrong-keys-per-name", "3") as (first, second):
        key = await claim(first.port, "alice")
        for port in (first.port, first.port, second.port):
            refused(await hello(port, "alice", "x" * 43), ErrorCode.BAD_KEY)
        for port in (first.port, second.port):
            held = refused(await hello(port, "alice", key), ErrorCode.TOO_MANY_ATTEMPTS)
            assert held.retry_after_ms is not None and held.retry_after_ms > 0
