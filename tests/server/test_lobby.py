"""A lobby that scales and history that lasts (issue 13, rows 4 and 6): `games` answers a page,
filtered and newest first, and pushes changes to subscribers; finished games stay in the lobby,
`watch` and `resume` across restarts, the most recent in memory and older ones from the store."""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

from tests.support.server import SMALL_KALAH, Client, Harness, Peer, running_server, small_limits
from ubao.protocol import (
    DEFAULT_PAGE,
    Create,
    ErrorCode,
    GameSummary,
    Join,
    ListGames,
    Lobby,
    Move,
    Ok,
    Resign,
    Resume,
    SeatSpec,
    Snapshot,
    Watch,
    encode,
)
from ubao.server.core import Share
from ubao.server.store import Store

OPEN = (SeatSpec.open(), SeatSpec.open())
ROOMY = small_limits(
    burst=10_000, per_connection=Share(2000, 2000, 64), per_address=Share(2000, 2000, 64)
)


def lobby(peer: Peer, **fields: Any) -> Ok:
    return peer.ok(ListGames(id=peer.next_id(), **fields))


def ids(summaries: tuple[GameSummary, ...] | None) -> list[str]:
    return [summary.game_id for summary in summaries or ()]


def ticking(h: Harness) -> Harness:
    """The harness with a wall clock that moves a second each time it is read, so that every
    game has its own creation time."""
    seconds = itertools.count(1_700_000_000_000, 1_000)
    h.core.wall = lambda: next(seconds)
    return h


def games_in_every_state(h: Harness, peer: Peer) -> dict[str, list[str]]:
    """Two open, two live and two finished games, created in this order, newest first."""
    made: dict[str, list[str]] = {"open": [], "live": [], "finished": []}
    for state in ("finished", "live", "open") * 2:
        game_id = peer.create()
        if state != "open":
            _, token, _ = peer.join(game_id, 0)
            peer.join(game_id, 1)
            if state == "finished":
                peer.ok(Resign(id=peer.next_id(), game_id=game_id, token=token))
        made[state].insert(0, game_id)  # newest first
    return made


def test_a_plain_games_gets_a_first_page_open_games_first_then_live_then_finished() -> None:
    h = ticking(Harness(ROOMY))
    peer = h.player()
    made = games_in_every_state(h, peer)
    ok = lobby(peer)
    assert ids(ok.games) == made["open"] + made["live"] + made["finished"]
    assert ok.cursor is None
    for name, status in (("open", "waiting"), ("live", "playing"), ("finished", "over")):
        page = lobby(peer, filter=name).games or ()
        assert ids(page) == made[name] and {s.status for s in page} == {status}


def test_pages_follow_each_other_without_gaps_or_repeats() -> None:
    h = ticking(Harness(ROOMY))
    peer = h.player()
    made = games_in_every_state(h, peer)
    seen: list[str] = []
    cursor = None
    while True:
        ok = lobby(peer, limit=4, cursor=cursor)
        assert len(ok.games or ()) <= 4
        seen += ids(ok.games)
        if ok.cursor is None:
            break
        cursor = ok.cursor
    assert seen == made["open"] + made["live"] + made["finished"]
    error = peer.error(ListGames(id=99, cursor="not a cursor"))
    assert (error.id, error.code) == (99, ErrorCode.BAD_MESSAGE)


def test_a_players_games() -> None:
    h = ticking(Harness(ROOMY))
    ada, bob = h.player("ada"), h.player("bob")
    theirs = ada.create()
    ada.join(theirs, 0)
    bob.join(theirs, 1)
    alone = bob.create()
    bob.join(alone, 0)
    ada.create()
    assert ids(lobby(ada, player="bob").games) == [alone, theirs]
    assert ids(lobby(ada, player="bob", filter="live").games) == [theirs]
    assert lobby(ada, player="nobody").games == ()


def test_the_lobby_reply_is_bounded_whatever_the_number_of_games() -> None:
    h = Harness(ROOMY)
    peer = h.player()
    for _ in range(1000):
        peer.create(SeatSpec.open(), SeatSpec.external_bot(6))
    reader = h.player()
    ok = lobby(reader)
    assert len(ok.games or ()) == DEFAULT_PAGE and ok.cursor is not None
    assert len(encode(ok)) < 40_000
    assert len(lobby(reader, limit=100).games or ()) == 100


def test_subscribers_are_told_of_lobby_changes_but_not_of_every_move() -> None:
    h = Harness()
    watcher, ada, bob = h.player("cy", "spectator"), h.player("ada"), h.player("bob")
    assert lobby(watcher, subscribe=True).games == ()
    game_id = ada.create()
    _, token, _ = ada.join(game_id, 0)
    bob.join(game_id, 1)
    ada.send(Move(id=ada.next_id(), game_id=game_id, token=token, ply=0, move="1"))
    h.disconnect(bob)
    pushed = [m for m in watcher.inbox if isinstance(m, Lobby)]
    assert [(p.game.status, [s.name for s in p.game.seats]) for p in pushed] == [
        ("waiting", [None, None]),
        ("waiting", ["ada", None]),
        ("playing", ["ada", "bob"]),
        ("playing", ["ada", "bob"]),  # bob left: connected is false
    ]
    assert not pushed[-1].game.seats[1].connected
    # The creator, subscribed too, gets its reply before the change it caused.
    lobby(ada, subscribe=True)
    got = ada.send(Resign(id=77, game_id=game_id, token=token))
    assert isinstance(got[0], Ok) and got[0].id == 77
    assert isinstance(got[-1], Lobby) and got[-1].game.status == "over"
    lobby(watcher, subscribe=False)
    before = len(watcher.inbox)
    ada.create()
    assert len(watcher.inbox) == before
    h.disconnect(ada)
    assert h.core.lobby == set()


def finished_game(h: Harness) -> tuple[str, str]:
    """A game that ends just before a restart: (game_id, the token of its seat 0)."""
    ada, bob = h.player("ada"), h.player("bob")
    game_id = ada.create()
    _, token, _ = ada.join(game_id, 0)
    bob.join(game_id, 1)
    ada.ok(Move(id=ada.next_id(), game_id=game_id, token=token, ply=0, move="1"))
    ada.ok(Resign(id=ada.next_id(), game_id=game_id, token=token))
    return game_id, token


def test_a_game_that_ended_just_before_a_restart_can_be_listed_watched_and_resumed() -> None:
    store = Store(":memory:")
    h = Harness(store=store)
    game_id, token = finished_game(h)
    h.core.shutdown()

    later = Harness(store=store)
    assert later.core.restore() == 0  # nothing to resume playing...
    peer = later.player("ada")
    (summary,) = lobby(peer, filter="finished").games or ()  # ...but it is history
    assert (summary.game_id, summary.status, summary.ply) == (game_id, "over", 1)
    watched = peer.send(Watch(id=1, game_id=game_id))
    snapshot = watched[1]
    assert isinstance(snapshot, Snapshot) and snapshot.history == ("1",)
    assert snapshot.result is not None and snapshot.result.reason == "resign"
    resumed = peer.send(Resume(id=2, game_id=game_id, token=token, since_v=0))
    assert isinstance(resumed[0], Ok) and isinstance(resumed[1], Snapshot)
    assert peer.error(Resign(id=3, game_id=game_id, token=token)).code == ErrorCode.GAME_OVER


def test_only_the_most_recent_finished_games_stay_in_memory_older_ones_come_from_the_store() -> (
    None
):
    store = Store(":memory:")
    h = Harness(small_limits(keep_finished=2), store=store)
    first, _ = finished_game(h)
    time.sleep(0.002)  # the store orders finished games by its clock's milliseconds
    second, _ = finished_game(h)
    time.sleep(0.002)
    third, token = finished_game(h)
    assert first not in h.core.rooms and {second, third} <= set(h.core.rooms)
    peer = h.player("ada")
    assert set(ids(lobby(peer, filter="finished").games)) == {second, third}
    snapshot = peer.send(Watch(id=1, game_id=first))[1]
    assert isinstance(snapshot, Snapshot) and snapshot.status == "over" and snapshot.ply == 1
    assert len([r for r in h.core.rooms.values() if r.status == "over"]) == 3
    assert peer.error(Watch(id=2, game_id="never")).code == ErrorCode.UNKNOWN_GAME

    later = Harness(small_limits(keep_finished=2), store=store)
    later.core.restore()
    assert {r.game_id for r in later.core.rooms.values()} == {second, third}
    back = later.player("ada")
    resumed = back.send(Resume(id=1, game_id=third, token=token, since_v=0))
    assert isinstance(resumed[1], Snapshot) and resumed[1].result is not None


async def test_finished_games_outlive_a_real_restart_of_the_server(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    async with (
        running_server(db=db) as server,
        Client.connected(server.port, "ada") as ada,
        Client.connected(server.port, "bob") as bob,
    ):
        game_id = (await ada.ok(Create(0, "kalah", SMALL_KALAH, OPEN))).game_id
        assert game_id is not None
        token = (await ada.ok(Join(0, game_id, 0))).token
        await bob.ok(Join(0, game_id, 1))
        assert token is not None
        await ada.ok(Resign(0, game_id, token))
    async with running_server(db=db) as server, Client.connected(server.port, "ada") as ada:
        (summary,) = (await ada.ok(ListGames(0, filter="finished"))).games or ()
        assert (summary.game_id, summary.status) == (game_id, "over")
        await ada.ok(Watch(0, game_id))
        snapshot = await ada.event()
        assert isinstance(snapshot, Snapshot) and snapshot.result is not None
        await ada.ok(Resume(0, game_id, token, 0))
