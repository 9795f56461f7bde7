"""Seats in the sans-I/O core: who sits where, seen gone and back, and the mark of a seat a bot
client plays, kept through takeovers, restarts and read-backs."""

from __future__ import annotations

import pytest

from tests.support.server import (
    Harness,
    kinds,
    lobby_line,
    over_at_once,
    small_limits,
    started,
    subscribed,
)
from ubao.protocol import Lobby, Ok, Resume, Role, SeatEvent, Snapshot, Watch
from ubao.server.stores.sqlite import Store


def test_a_bot_client_taking_a_seat_over_is_a_seat_event_for_everyone_stored_and_replayed() -> None:
    h = Harness()
    game_id, south, _, north, n_token = started(h)
    fan = subscribed(h, "fan")
    room = h.core.rooms[game_id]
    assert room.v == 2
    mallory = h.player("mallory", role="bot")
    got = mallory.send(Resume(id=1, game_id=game_id, token=n_token, since_v=2))
    assert isinstance(got[0], Ok) and north.closed is not None
    event = got[1]
    assert isinstance(event, SeatEvent) and len(got) == 2
    assert (event.v, event.seat, event.name, event.connected, event.client) == (
        3,
        1,
        "north",
        True,
        "bot",
    )
    assert south.inbox[-1] == event and room.v == 3
    pushed = fan.inbox[-1]
    assert isinstance(pushed, Lobby) and pushed.game.seats[1].client == "bot"
    rows = h.store.db.execute("SELECT v, type FROM events WHERE game_id = ?", (game_id,))
    assert [tuple(r) for r in rows][-1] == (3, "seat")
    watcher = h.player("eve", role="spectator")
    assert watcher.send(Watch(id=1, game_id=game_id, since_v=2))[1:] == [event]
    snapshot = watcher.send(Watch(id=2, game_id=game_id))[1]
    assert isinstance(snapshot, Snapshot) and snapshot.v == 3
    assert snapshot.seats[1].client == "bot"

    # A person taking it back shows again; a person taking it from a person changes nothing.
    back = h.player("north")
    returned = back.send(Resume(id=1, game_id=game_id, token=n_token, since_v=3))[1]
    assert isinstance(returned, SeatEvent) and (returned.v, returned.client) == (4, None)
    again = h.player("north")
    got = again.send(Resume(id=1, game_id=game_id, token=n_token, since_v=4))
    assert kinds(got) == ["ok"] and room.v == 4 and south.inbox[-1] == returned


def stored_events(h: Harness, game_id: str) -> int:
    return int(
        h.store.db.execute("SELECT COUNT(*) FROM events WHERE game_id = ?", (game_id,)).fetchone()[
            0
        ]
    )


@pytest.mark.parametrize("role", ["human", "bot"])
def test_a_player_leaving_a_finished_game_is_seen_gone_and_back_without_a_new_version(
    role: Role,
) -> None:
    h = Harness()
    game_id, alice, a_token, bob, _ = over_at_once(h, north_role=role)
    fan = h.player("fan", "spectator")
    fan.ok(Watch(id=1, game_id=game_id))
    room = h.core.rooms[game_id]
    over_v, logged = room.v, stored_events(h, game_id)

    h.disconnect(bob)  # `ubao bot --join` leaves at the end of its game, a person quits
    gone = alice.inbox[-1]
    client = "bot" if role == "bot" else None
    assert gone == SeatEvent(game_id, over_v, 1, "bob", False, status="over", client=client)
    assert fan.inbox[-1] == gone
    # Presence after the end is no game event: no new version, nothing stored or replayed.
    assert (room.v, stored_events(h, game_id)) == (over_v, logged)
    assert not lobby_line(alice, game_id).seats[1].connected
    snapshot = h.player("eve", "spectator").send(Watch(id=1, game_id=game_id))[1]
    assert isinstance(snapshot, Snapshot) and not snapshot.seats[1].connected

    h.disconnect(alice)
    assert fan.inbox[-1] == SeatEvent(game_id, over_v, 0, "alice", False, status="over")
    back = h.player("alice")
    got = back.send(Resume(id=1, game_id=game_id, token=a_token, since_v=over_v))
    assert [m.type for m in got] == ["ok"]  # its own return is not news to the player
    assert fan.inbox[-1] == SeatEvent(game_id, over_v, 0, "alice", True, status="over")
    assert (room.v, stored_events(h, game_id)) == (over_v, logged)


def test_a_bot_clients_mark_survives_a_restart_in_the_lobby_and_for_watchers() -> None:
    store = Store(":memory:")
    h = Harness(store=store)
    finished, *_ = over_at_once(h, north_role="bot")
    host, robo = h.player("host"), h.player("robo", "bot")
    live = host.create()
    host.join(live, 0)
    robo.join(live, 1)
    h.shutdown()

    later = Harness(store=store)
    assert later.core.restore() == 1
    peer = later.player("eve", "spectator")
    for game_id in (finished, live):
        assert [s.client for s in lobby_line(peer, game_id).seats] == [None, "bot"]
        snapshot = peer.send(Watch(id=peer.next_id(), game_id=game_id))[1]
        assert isinstance(snapshot, Snapshot) and snapshot.seats[1].client == "bot"


def test_a_finished_game_read_back_by_id_keeps_its_bot_clients_mark() -> None:
    store = Store(":memory:")
    h = Harness(store=store)
    game_id, *_ = over_at_once(h, north_role="bot")
    later = Harness(small_limits(keep_finished=0), store=store)  # `ubao export` of an old game
    later.core.restore()
    snapshot = later.player("eve", "spectator").send(Watch(id=1, game_id=game_id))[1]
    assert isinstance(snapshot, Snapshot) and snapshot.seats[1].client == "bot"


def test_a_seat_freed_in_a_waiting_game_shows_no_bot_client_after_a_restart() -> None:
    store = Store(":memory:")
    h = Harness(small_limits(grace_ms=1_000), store=store)
    host, robo = h.player("host", "spectator"), h.player("robo", "bot")
    game_id = host.create()
    robo.join(game_id, 1)
    h.disconnect(robo)
    h.advance(1_000)  # the host is still there: the seat is freed, the game waits on
    h.shutdown()
    later = Harness(store=store)
    later.core.restore()
    seat = lobby_line(later.player(), game_id).seats[1]
    assert (seat.name, seat.client) == (None, None)
