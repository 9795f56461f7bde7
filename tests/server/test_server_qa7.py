"""Protocol defects QA found (round 7), in the sans-I/O core and the codec: a takeover that
changes what a seat shows is a seat event; error messages quote a client's value only as a
short prefix; any unsupported `proto` closes the connection; a joiner's snapshot follows its
`ok` before any lobby event; no rematch of a game that never started; names and unknown keys
are checked; a move that answers a takeback request with a move declines it aloud."""

from __future__ import annotations

from tests.server.test_lobby import subscribed
from tests.server.test_takeback import kinds, started
from tests.support.server import Harness
from ubao.protocol import (
    Lobby,
    Ok,
    Resume,
    SeatEvent,
    Snapshot,
    Watch,
)

# -- 1. a takeover that changes what the seat shows is a seat event ----------------------------


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


# -- 2. error messages quote a client's value as a short prefix --------------------------------


# -- 3. any integer proto the server does not speak is unsupported_version ---------------------


# -- 4. a joiner's ok, then its snapshot, then lobby events ------------------------------------


# -- 5. no rematch of a game that never started ------------------------------------------------


# -- 6. names, and the keys of fields a message does not define --------------------------------


# -- 7. moving instead of answering a takeback request declines it ------------------------------
