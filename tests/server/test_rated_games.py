"""Rated games over the wire, with real servers and real accounts: two accounts' game changes
both ratings by what Glicko-2 says and both players see it; a guest cannot join; the ratings
are read back after a restart, and from another node of a cluster; and a server killed (-9)
right as rated games end never keeps a result without its rating change, nor counts one twice
(docs/ratings.md)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
from collections.abc import AsyncIterator
from pathlib import Path

from tests.support.redis_server import RedisServer, needs_redis
from tests.support.server import Client, running_server
from tests.support.wire import create, join, nodes, server_process
from ubao.protocol import (
    Claim,
    ErrorCode,
    Join,
    Over,
    Player,
    Ratings,
    Resign,
    Result,
)
from ubao.server.ratings import Standing, rated_game, replay
from ubao.server.stores.sqlite import Store


async def claim(port: int, name: str) -> str:
    async with Client.connected(port, "claimer") as client:
        ok = await client.ok(Claim(id=0, name=name))
    assert ok.key is not None
    return ok.key


@contextlib.asynccontextmanager
async def two_accounts(port: int, keys: dict[str, str]) -> AsyncIterator[tuple[Client, Client]]:
    async with (
        Client.connected(port, "alice", key=keys["alice"]) as alice,
        Client.connected(port, "bob", key=keys["bob"]) as bob,
    ):
        yield alice, bob


async def rated_game_resigned(
    alice: Client, bob: Client, loser: str = "bob"
) -> tuple[str, Over, Over]:
    """A rated Kalah game that `loser` resigns: its id, and the `over` each player heard."""
    game_id = await create(alice, rated=True)
    tokens = {"alice": await join(alice, game_id, 0), "bob": await join(bob, game_id, 1)}
    resigner = bob if loser == "bob" else alice
    await resigner.ok(Resign(id=0, game_id=game_id, token=tokens[loser]))
    return game_id, await alice.event_of(Over), await bob.event_of(Over)


async def test_a_rated_game_between_accounts_changes_both_ratings_and_both_see_it(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ubao.sqlite3"
    async with running_server(db=db) as server:
        port = server.port
        keys = {name: await claim(port, name) for name in ("alice", "bob")}
        async with two_accounts(port, keys) as (alice, bob):
            game_id, seen_by_alice, seen_by_bob = await rated_game_resigned(alice, bob)
            async with Client.connected(port, "guest") as guest:
                open_game = await create(alice, rated=True)
                refused = await guest.error(Join(id=0, game_id=open_game))
                assert refused.code == ErrorCode.RATED_NEEDS_ACCOUNTS
    expected = rated_game(
        game_id, "kalah/untimed", 0, ("alice", "bob"), (Standing(), Standing()), Result(0, "", None)
    ).changes()
    assert seen_by_alice.ratings == seen_by_bob.ratings == expected
    assert expected[0].after > 1500 > expected[1].after

    async with running_server(db=db) as server, Client.connected(server.port, "x") as anyone:
        board = (await anyone.ok(Ratings(id=0, game="kalah"))).leaderboard or ()
        assert [(r.player, r.rating, r.wins, r.losses) for r in board] == [
            ("alice", expected[0].after, 1, 0),
            ("bob", expected[1].after, 0, 1),
        ]
        card = (await anyone.ok(Player(id=0, name="alice"))).player
        assert card is not None and [g.game_id for g in card.recent] == [game_id]


@needs_redis
async def test_ratings_made_on_one_node_are_read_on_another(redis_server: RedisServer) -> None:
    async with nodes(redis_server, 2) as (first, second):
        keys = {name: await claim(first.port, name) for name in ("alice", "bob")}
        async with two_accounts(first.port, keys) as (alice, bob):
            game_id, seen, _ = await rated_game_resigned(alice, bob)
            _, again, _ = await rated_game_resigned(alice, bob)
        assert seen.ratings is not None and again.ratings is not None
        assert again.ratings[0].before == seen.ratings[0].after
        first.process.send_signal(signal.SIGKILL)
        async with Client.connected(second.port, "x") as anyone:
            card = (await anyone.ok(Player(id=0, name="bob"))).player
    assert card is not None
    assert [(r.pool, r.rating, r.losses) for r in card.ratings] == [
        ("kalah/untimed", again.ratings[1].after, 2)
    ]
    assert card.recent[-1].game_id == game_id


KILLS = 3
"""Kills in the suite; the scratch script that runs it 20 times is docs/ratings.md's."""


async def test_a_server_killed_as_rated_games_end_keeps_each_result_with_its_rating_once(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ubao.sqlite3"
    heard: list[Over] = []
    keys: dict[str, str] = {}
    rng = random.Random(33)
    for _ in range(KILLS):
        async with server_process(db) as (process, port):
            if not keys:
                keys = {name: await claim(port, name) for name in ("alice", "bob")}
            heard += await end_games_until_killed(process, port, keys, rng)
    check_ratings_replay(db, heard)


async def end_games_until_killed(
    process: asyncio.subprocess.Process, port: int, keys: dict[str, str], rng: random.Random
) -> list[Over]:
    """Rated games, each resigned, with the server killed (-9) a few milliseconds after one
    resignation is sent: what the players heard of their ends."""
    heard: list[Over] = []
    with contextlib.suppress(Exception):  # the connections die with the server
        async with two_accounts(port, keys) as (alice, bob):
            for _ in range(rng.randint(0, 2)):
                loser = rng.choice(["alice", "bob"])
                heard.append((await rated_game_resigned(alice, bob, loser))[1])
            game_id = await create(alice, rated=True)
            alice_token = await join(alice, game_id, 0)
            bob_token = await join(bob, game_id, 1)
            resigner, token = rng.choice([(alice, alice_token), (bob, bob_token)])
            await resigner.send(Resign(id=resigner.next_id(), game_id=game_id, token=token))
            await asyncio.sleep(rng.random() * 0.01)
            process.send_signal(signal.SIGKILL)
            heard.append(await alice.event_of(Over))
    await process.wait()
    return heard


def check_ratings_replay(db: Path, heard: list[Over]) -> None:
    """Every stored rating is what replaying the stored rated results gives; every rated game
    stored as over has its rating change, once; whatever a player heard was kept."""
    store = Store(db)
    try:
        games = store.rated_games(None, 0)
        standings = replay(games)
        for (pool, player), standing in standings.items():
            assert store.standing(pool, player) == standing
        over = store.db.execute(
            "SELECT game_id FROM games WHERE rated = 1 AND status = 'over'"
            " AND json_extract(result, '$.reason') NOT IN ('aborted', 'cancelled', 'expired')"
        ).fetchall()
        assert sorted(game_id for (game_id,) in over) == sorted(g.game_id for g in games)
        kept = {game.game_id: game.changes() for game in games}
        for event in heard:
            assert kept[event.game_id] == event.ratings
    finally:
        store.close()
