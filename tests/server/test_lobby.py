"""A lobby that scales and history that lasts (issue 13, rows 4 and 6): `games` answers a page,
filtered and newest first, and pushes changes to subscribers; finished games stay in the lobby,
`watch` and `resume` across restarts, the most recent in memory and older ones from the store."""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import (
    SMALL_KALAH,
    Client,
    Harness,
    Peer,
    kinds,
    lobby_line,
    offer,
    over_at_once,
    refused,
    running_server,
    small_limits,
    started_game,
    subscribed,
)
from ubao.protocol import (
    DEFAULT_PAGE,
    Create,
    Error,
    ErrorCode,
    GameSummary,
    Join,
    ListGames,
    Lobby,
    Move,
    Ok,
    Over,
    Rematch,
    RematchAnswer,
    Resign,
    Resume,
    SeatEvent,
    SeatSpec,
    Snapshot,
    Watch,
    encode,
)
from ubao.server.core import Core
from ubao.server.limits import Limits, Share
from ubao.server.stores.sqlite import Store

OPEN = (SeatSpec.open(), SeatSpec.open())
ROOMY = small_limits(
    burst=10_000,
    per_connection=Share(2000, 2000, 64),
    per_address=Share(2000, 2000, 64),
    reserved_games=0,
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
    h = Harness(small_limits(lobby_window_ms=0))  # each change at once (test_lobby_window.py)
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
    h.shutdown()

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


def test_a_cursor_the_server_wrote_pages_through_every_game_once() -> None:
    """The strict reading of cursors still takes what the server writes, negative creation
    times and game ids with `-` and `_` included."""
    limits = small_limits(
        burst=10_000, per_connection=Share(64, 64, 4), per_address=Share(64, 64, 8)
    )
    h = Harness(limits)
    seconds = itertools.count(1_700_000_000_000, 1_000)
    h.core.wall = lambda: next(seconds)
    peer = h.player()
    made = [peer.create() for _ in range(7)]
    seen: list[GameSummary] = []
    cursor: str | None = None
    for _ in range(10):
        ok = peer.ok(ListGames(id=peer.next_id(), limit=3, cursor=cursor))
        seen += ok.games or ()
        if ok.cursor is None:
            break
        assert ok.cursor.startswith("0:-17")
        cursor = ok.cursor
    assert [game.game_id for game in seen] == made[::-1]


@pytest.mark.parametrize(
    "cursor",
    [
        "0: 5:x",  # int() takes spaces
        " 0:5:x",
        "0:5 :x",
        "0:+5:x",  # and a sign
        "\u0663:5:x",  # and other scripts' digits (Arabic-Indic three)
        "0:\uff15:x",  # fullwidth five
        "0:5_0:x",  # and underscores
        "0:5:x:y",  # one field too many
        "0:5:",  # no game id
        "0:5",
        "3:5:x",  # no such rank
        "00:5:x",
        "0:05:x",
        "0:-0:x",
        "0:5:x y",
    ],
)
def test_a_cursor_the_server_does_not_write_is_a_bad_message(cursor: str) -> None:
    """A cursor is read exactly as `_cursor` writes it: anything `int()` or `partition` let
    through before (spaces, signs, non-ASCII digits, extra fields) is refused."""
    peer = Harness().player()
    peer.create()
    error = peer.error(ListGames(id=7, cursor=cursor))
    assert (error.id, error.code) == (7, ErrorCode.BAD_MESSAGE)
    assert "is not a cursor of this server" in error.message


def test_join_resume_and_rematch_send_ok_then_the_game_before_any_lobby_event() -> None:
    h = Harness(small_limits(lobby_window_ms=0))  # each change at once (test_lobby_window.py)
    south, north = subscribed(h, "south"), subscribed(h, "north")
    game_id = south.create()
    assert kinds(south.inbox[-2:]) == ["ok", "lobby"]
    _, s_token, after = south.join(game_id, 0)
    assert kinds(after) == ["snapshot", "lobby"]
    _, n_token, after = north.join(game_id, 1)
    assert kinds(after) == ["snapshot", "lobby"]
    h.disconnect(north)
    back = subscribed(h, "north")
    got = back.send(Resume(id=9, game_id=game_id, token=n_token, since_v=2))
    assert kinds(got) == ["ok", "seat", "seat", "lobby"]
    got = back.send(Resume(id=10, game_id=game_id, token=n_token, since_v=0))
    assert kinds(got) == ["ok", "snapshot"]
    south.ok(Resign(id=south.next_id(), game_id=game_id, token=s_token))
    south.send(Rematch(id=south.next_id(), game_id=game_id, token=s_token))
    got = back.send(RematchAnswer(id=11, game_id=game_id, token=n_token, accept=True))
    assert kinds(got) == ["ok", "rematch_offer", "snapshot", "lobby"]
    assert kinds(south.inbox[-3:]) == ["rematch_offer", "snapshot", "lobby"]
    watcher = subscribed(h, "eve")
    assert kinds(watcher.send(Watch(id=5, game_id=game_id))) == ["ok", "snapshot"]


def finished_in_lobby(h: Harness) -> set[str]:
    peer = h.player("lobby", role="spectator")
    return {game.game_id for game in peer.ok(ListGames(id=1, filter="finished")).games or ()}


def test_watching_and_resuming_old_games_keeps_the_most_recently_finished_in_the_lobby() -> None:
    store = Store(":memory:")
    h = Harness(small_limits(keep_finished=2), store=store)
    games: list[tuple[str, str]] = []
    for _ in range(4):
        game_id, south, token, _, _ = started_game(h)
        south.ok(Resign(id=south.next_id(), game_id=game_id, token=token))
        games.append((game_id, token))
        time.sleep(0.005)  # each finishes at a time of its own (the store's row stamps)
    (a, a_token), (b, _), (c, _), (d, _) = games
    assert finished_in_lobby(h) == {c, d}

    reader = h.player("reader", role="spectator")
    for old in (a, b):
        got = reader.send(Watch(id=reader.next_id(), game_id=old))
        assert [m.type for m in got] == ["ok", "snapshot"]
    assert finished_in_lobby(h) == {c, d}  # before: {a, b}
    south_again = h.player("south")
    got = south_again.send(Resume(id=1, game_id=a, token=a_token, since_v=0))
    assert [m.type for m in got] == ["ok", "snapshot"]
    assert finished_in_lobby(h) == {c, d}
    held = [room for room in h.core.rooms.values() if room.status == "over"]
    assert len(held) <= 4  # two recent, two read back

    # A restart lists the games that finished last, not the game resumed last.
    h.shutdown()
    later = Harness(small_limits(keep_finished=2), store=store)
    later.core.restore()
    assert finished_in_lobby(later) == {c, d}


def test_leaving_a_finished_game_does_not_date_it_as_just_finished() -> None:
    h = Harness()
    game_id, _, _, bob, _ = over_at_once(h)
    ended = "2000-01-01T00:00:00.000Z"
    h.store.db.execute("UPDATE games SET updated_at = ? WHERE game_id = ?", (ended, game_id))
    h.disconnect(bob)
    row = h.store.db.execute("SELECT updated_at FROM games WHERE game_id = ?", (game_id,))
    assert row.fetchone()[0] == ended  # a restart still lists it by the time it ended


def expired_after_the_creator_left(h: Harness) -> tuple[str, Peer, str]:
    """alice creates a game, sits in seat 0 and leaves; nobody comes: it expires as her seat's
    grace ends. Returns (game_id, a spectator who watched it, alice's token)."""
    alice = h.player("alice")
    game_id = alice.create()
    _, token, _ = alice.join(game_id, 0)
    fan = h.player("fan", "spectator")
    fan.ok(Watch(id=1, game_id=game_id))
    h.disconnect(alice)
    h.advance(10_000)
    return game_id, fan, token


def test_an_expired_waiting_game_keeps_its_creators_name_in_the_lobby_and_the_store() -> None:
    store = Store(":memory:")
    limits: dict[str, Any] = {"grace_ms": 10_000, "waiting_expiry_ms": 10_000}
    h = Harness(small_limits(**limits), store=store)
    game_id, fan, token = expired_after_the_creator_left(h)
    left, over = fan.inbox[-2:]
    assert isinstance(left, SeatEvent) and (left.name, left.connected) == ("alice", False)
    assert isinstance(over, Over) and over.result.reason == "expired"  # no "seat freed" between
    line = lobby_line(fan, game_id)
    assert (line.status, [s.name for s in line.seats]) == ("over", ["alice", None])
    # The seat is given up all the same: its token no longer holds it.
    refused(
        h.player("alice").send(Resume(id=1, game_id=game_id, token=token, since_v=0)),
        (ErrorCode.NOT_YOUR_SEAT),
    )
    later = Core(store, Limits())
    later.restore()
    assert [s.name for s in later.rooms[game_id].summary().seats] == ["alice", None]


def test_a_waiting_game_nobody_comes_back_to_after_a_restart_keeps_the_names() -> None:
    store = Store(":memory:")
    limits = small_limits(grace_ms=10_000, waiting_expiry_ms=10_000)
    h = Harness(limits, store=store)
    alice = h.player("alice")
    game_id = alice.create(SeatSpec.open(), SeatSpec.external_bot())
    alice.join(game_id, 0)
    h.shutdown()
    later = Harness(limits, store=store)
    assert later.core.restore() == 1
    later.advance(10_000)
    line = lobby_line(later.player(), game_id)
    assert line.result is not None and line.result.reason == "expired"
    assert [s.name for s in line.seats] == ["alice", None]


def test_a_player_of_a_forgotten_finished_game_is_told_to_resume_it() -> None:
    h = Harness(small_limits(keep_finished=1))
    game_id, alice, a_token, _, _ = over_at_once(h)
    over_at_once(h)  # no offer waits: ada's game is forgotten
    assert game_id not in h.core.rooms
    got = offer(alice, game_id, a_token)
    assert isinstance(got[0], Error) and got[0].code == ErrorCode.NOT_YOUR_SEAT
    assert "resume it first" in got[0].message and "another connection" not in got[0].message


def test_a_watcher_who_missed_nothing_gets_a_snapshot_not_silence() -> None:
    h = Harness()
    game_id, _, _, _, _ = over_at_once(h)
    v = h.core.rooms[game_id].v
    got = h.player("eve", "spectator").send(Watch(id=1, game_id=game_id, since_v=v))
    assert isinstance(got[0], Ok) and isinstance(got[1], Snapshot) and got[1].v == v
    missed = h.player("fay", "spectator").send(Watch(id=1, game_id=game_id, since_v=v - 1))
    assert [m.type for m in missed] == ["ok", "over"]


def test_a_summary_counts_the_connections_that_watch_a_game_without_a_seat() -> None:
    h = Harness()
    game_id, south, _, _, _ = started_game(h)
    assert lobby_line(south, game_id).spectators == 0  # the players follow it, unseen
    carol, dave = h.player("carol", "spectator"), h.player("dave", "spectator")
    for spectator in (carol, dave):
        spectator.ok(Watch(id=spectator.next_id(), game_id=game_id))
    assert lobby_line(south, game_id).spectators == 2
    h.disconnect(carol)
    assert lobby_line(dave, game_id).spectators == 1
