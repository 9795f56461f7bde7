"""Protocol defects QA found (round 7), in the sans-I/O core and the codec: a takeover that
changes what a seat shows is a seat event; error messages quote a client's value only as a
short prefix; any unsupported `proto` closes the connection; a joiner's snapshot follows its
`ok` before any lobby event; no rematch of a game that never started; names and unknown keys
are checked; a move that answers a takeback request with a move declines it aloud."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from tests.server.test_lobby import subscribed
from tests.server.test_takeback import kinds, started
from tests.support.server import Harness
from ubao.protocol import (
    AppCloseCode,
    Create,
    Error,
    ErrorCode,
    Hello,
    Lobby,
    Ok,
    ProtocolError,
    Resume,
    SeatEvent,
    SeatSpec,
    Snapshot,
    Watch,
    decode_command,
)
from ubao.protocol.errors import MAX_ERROR_MESSAGE, MAX_QUOTE

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


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("kalah", {"pits": "A" * 3000}),
        ("kalah", {"end_check": "A" * 3000}),
        ("ethiopian", {"capture_sower": ["A" * 100] * 20}),
        ("bao", {"profile": "A" * 3000}),
        ("bao", {"setup": "A" * 3000}),
        ("bao", {"max_plies": "A" * 3000}),
        ("othello", {"size": "A" * 3000}),
        ("kalah", {"A" * 60 + str(n): 1 for n in range(32)}),
        ("bao", {"A" * 60 + str(n): 1 for n in range(32)}),
    ],
)
def test_bad_options_are_named_with_a_short_prefix_of_the_value(
    game: str, options: dict[str, Any]
) -> None:
    h = Harness()
    peer = h.player()
    seats = (SeatSpec.open(), SeatSpec.open())
    error = peer.error(Create(id=1, game=game, options=options, seats=seats))
    assert error.code == ErrorCode.BAD_OPTIONS
    assert "AAAA" in error.message  # the value is named...
    assert error.message.count("A") <= 4 * MAX_QUOTE, error.message  # ...by short prefixes
    assert len(error.message) < MAX_ERROR_MESSAGE  # not cut by the server: short already


# -- 3. any integer proto the server does not speak is unsupported_version ---------------------


@pytest.mark.parametrize("proto", [-1, 0, 2, 2**31 + 1, 2**40, -(2**63), 2**64 - 1])
def test_any_unsupported_integer_proto_is_refused_and_closed(proto: int) -> None:
    h = Harness()
    peer = h.connect()
    hello = {"type": "hello", "id": 3, "proto": proto, "name": "x", "role": "human"}
    got = peer.send_raw(msgpack.packb(hello))
    assert isinstance(got[0], Error)
    assert (got[0].id, got[0].code) == (3, ErrorCode.UNSUPPORTED_VERSION)
    assert peer.closed is not None and peer.closed[0] == AppCloseCode.UNSUPPORTED_VERSION


@pytest.mark.parametrize("proto", ["1", 1.0, True, None, [1]])
def test_a_proto_that_is_no_integer_is_a_bad_message_and_keeps_the_connection(proto: Any) -> None:
    h = Harness()
    peer = h.connect()
    hello = {"type": "hello", "id": 3, "proto": proto, "name": "x", "role": "human"}
    got = peer.send_raw(msgpack.packb(hello))
    assert isinstance(got[0], Error) and got[0].code == ErrorCode.BAD_MESSAGE
    assert peer.closed is None
    peer.hello()


# -- 4. a joiner's ok, then its snapshot, then lobby events ------------------------------------


# -- 5. no rematch of a game that never started ------------------------------------------------


# -- 6. names, and the keys of fields a message does not define --------------------------------


@pytest.mark.parametrize("name", [" ", "   ", " ada", "ada ", " ada "])
def test_a_blank_name_or_one_with_spaces_around_it_is_refused_and_says_why(name: str) -> None:
    h = Harness()
    peer = h.connect()
    error = peer.error(Hello(id=4, proto=1, name=name, role="human"))
    assert (error.id, error.code) == (4, ErrorCode.BAD_MESSAGE)
    assert "name" in error.message and "space" in error.message
    assert peer.closed is None and h.core.conns[peer.conn].role is None
    assert peer.hello("a da").session  # spaces inside a name are fine


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "ping", "id": 1, "t": 0, "\x1b": 1},
        {"type": "ping", "id": 1, "t": 0, "a\u202eb": 1},
        {
            "type": "create",
            "id": 1,
            "game": "kalah",
            "options": {},
            "seats": [{"kind": "open", "\x07": None}, {"kind": "open"}],
        },
    ],
)
def test_the_key_of_a_field_no_message_defines_must_be_printable(frame: dict[str, Any]) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_command(msgpack.packb(frame))
    assert caught.value.id == 1 and "printable" in caught.value.message
    assert caught.value.message.isprintable()
    readable = msgpack.packb(frame).replace(b"\x1b", b"e").replace(b"\x07", b"b")
    readable = readable.replace("\u202e".encode(), b"rlo")
    assert decode_command(readable).id == 1  # the same keys, printable: ignored


# -- 7. moving instead of answering a takeback request declines it ------------------------------
