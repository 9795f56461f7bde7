"""Tournaments in a cluster (docs/tournaments-server.md, "In a cluster"), black-box over the
wire with a real redis-server, two real nodes and an engine worker: commands on either node
reach the tournament's owner, its announcements reach subscribers on the other node, and when
the owner is killed (-9) in the middle of a round the other node takes the tournament over with
its games, which go on: no game is started twice and the standings are what the stored games
give."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import redis
from websockets.exceptions import ConnectionClosed

from tests.server.test_tournaments import drain, new_tournament
from tests.support.redis_server import RedisServer, needs_redis
from tests.support.server import TIMEOUT, Client
from tests.support.wire import nodes
from ubao.protocol import (
    ErrorCode,
    SeatSpec,
    TournamentEvent,
    TournamentJoin,
    TournamentList,
    TournamentShow,
    TournamentStart,
    TournamentView,
)
from ubao.server.stores.redis import PREFIX, RedisStore
from ubao.server.tournament import standings
from ubao.server.tournaments import decimal, replayed

pytestmark = needs_redis

TAKEOVER_BOUND_S = 60.0
"""Generous: a lease's 3 s, then the games of a round played on a slow shared machine."""


@contextlib.asynccontextmanager
async def engine_worker(url: str, folder: Path) -> AsyncIterator[None]:
    """`ubao-engine worker`: the engines of a cluster's server bots."""
    command = [sys.executable, "-m", "ubao.engine", "worker", "--redis", url, "--hash", "1"]
    with (folder / "worker.log").open("wb") as log:
        worker = await asyncio.create_subprocess_exec(*command, stderr=log)
        try:
            yield
        finally:
            worker.kill()
            await worker.wait()


async def show(port: int, tid: str) -> TournamentView:
    """The tournament as a node shows it, on a new connection (the node may be taking it over:
    a connection closed with 1012 means come back in a moment)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            async with Client.connected(port, "fan", "spectator") as fan:
                view = (await fan.ok(TournamentShow(id=0, tournament_id=tid))).tournament
                assert view is not None
                return view
        except (ConnectionClosed, OSError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


def stored_standings(url: str, view: TournamentView) -> None:
    """The view's standings are what the stored tournament's stored games give, and the store
    holds no game the tournament did not pair: none was started twice."""
    client = redis.Redis.from_url(url)
    store = RedisStore(client, "reader", 3_000, 100)
    try:
        (body,) = [body for tid, body in store.tournaments() if tid == view.tournament_id]
        t, results = replayed(view.tournament_id, body, store.load)
        made = {key.decode() for key in client.scan_iter(match=PREFIX + "game:*")}
    finally:
        store.close()
    games = [p.game_id for p in t.pairings if p.black is not None]
    assert None not in games and all(results[g] is not None for g in games if g)
    assert made == {PREFIX + f"game:{g}" for g in games}, "a game started twice, or lost"
    table = standings(t, results)
    expected = [(r.entrant, decimal(r.points), decimal(r.sonneborn_berger)) for r in table]
    assert [(s.entrant, s.points, s.sonneborn_berger) for s in view.standings] == expected


async def test_a_tournament_survives_the_death_of_its_node_mid_round(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    async with (
        engine_worker(redis_server.url, tmp_path),
        nodes(redis_server, 2) as (owner, other),
    ):
        async with (
            Client.connected(owner.port, "organiser") as organiser,
            Client.connected(other.port, "fan", "spectator") as fan,
            Client.connected(other.port, "organiser") as elsewhere,
        ):
            tid = await new_tournament(organiser, 1, 2, double=True, concurrency=2, pace_ms=30)
            # Commands on the other node reach the owner: an entry, a subscription.
            for depth in (3, 4):
                join = TournamentJoin(id=0, tournament_id=tid, bot=SeatSpec("bot", depth))
                await elsewhere.ok(join)
            await fan.ok(TournamentShow(id=0, tournament_id=tid, subscribe=True))
            listed = (await elsewhere.ok(TournamentList(id=0))).tournaments
            assert listed is not None and [s.tournament_id for s in listed] == [tid]
            await organiser.ok(TournamentStart(id=0, tournament_id=tid))
            while True:  # some games over, some being played: the middle of a round
                view = (await organiser.ok(TournamentShow(id=0, tournament_id=tid))).tournament
                assert view is not None
                over = sum(p.result not in (None, "*") for p in view.pairings)
                if over >= 3 and any(p.result == "*" for p in view.pairings):
                    break
                await asyncio.sleep(0.05)
            heard = [m for m in await drain(fan) if isinstance(m, TournamentEvent)]
            assert heard and heard[-1].tournament.round >= 1  # announced on the other node
            owner.process.kill()  # kill -9: nothing saved on the way out
            await owner.process.wait()
        deadline = time.monotonic() + TAKEOVER_BOUND_S
        after = await show(other.port, tid)
        while after.status != "finished" and time.monotonic() < deadline:
            await asyncio.sleep(0.3)
            after = await show(other.port, tid)
        assert after.status == "finished" and len(after.pairings) == 12
        before = {(p.round, p.white, p.black, p.game_id) for p in view.pairings if p.game_id}
        assert before <= {(p.round, p.white, p.black, p.game_id) for p in after.pairings}
        for p in view.pairings:  # what was over before the kill is over as it was
            if p.result not in (None, "*"):
                assert p in after.pairings
        assert sum(float(s.points) for s in after.standings) == 12
    stored_standings(redis_server.url, after)


async def test_a_tournament_made_on_one_node_is_refused_to_its_maker_only_by_its_rules(
    redis_server: RedisServer,
) -> None:
    """The owner's rules hold wherever the command comes from: only the maker starts it."""
    async with (
        nodes(redis_server, 2) as (a, b),
        Client.connected(a.port, "organiser") as organiser,
        Client.connected(b.port, "mallory") as mallory,
    ):
        tid = await new_tournament(organiser, 1, 2)
        refused = await mallory.error(TournamentStart(id=0, tournament_id=tid))
        assert refused.code == ErrorCode.NOT_YOUR_GAME
        unknown = await mallory.error(TournamentShow(id=0, tournament_id="t00000000"))
        assert unknown.code == ErrorCode.UNKNOWN_TOURNAMENT
