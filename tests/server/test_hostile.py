"""Hostile strings (issue 13, rows 7 and 10): every text a client sends is printable and bounded
or refused with `bad_message`, and every error reply is short and printable, whatever it
quotes, so that it stays within the protocol's 4096-character limit and nobody's terminal
runs what another client typed."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.server import Harness
from ubao.protocol import (
    Create,
    Error,
    ErrorCode,
    Hello,
    ListGames,
    ProtocolError,
    SeatSpec,
    decode_command,
    escape,
    quote,
)
from ubao.protocol.errors import MAX_ERROR_MESSAGE, MAX_QUOTE

HOSTILE = [
    "\x1b]0;pwned\x07",  # retitle the terminal
    "\x1b[2J\x1b[H",  # clear the screen
    "\x9b31m",  # a C1 control sequence introducer
    "ada\u202eadb",  # a bidi override
    "line\nbreak",
    "tab\there",
    "nul\x00",
    "zero\u200bwidth",
]


def frame(**fields: Any) -> bytes:
    return msgpack.packb(fields, use_bin_type=True)  # type: ignore[no-any-return]


def check_reply(reply: Any) -> None:
    assert isinstance(reply, Error)
    assert len(reply.message) <= MAX_ERROR_MESSAGE and reply.message.isprintable()


@pytest.mark.parametrize("text", HOSTILE)
def test_names_and_every_other_client_text_must_be_printable(text: str) -> None:
    h = Harness()
    peer = h.connect()
    (reply,) = peer.send_raw(frame(type="hello", id=1, proto=1, name=text, role="human"))
    assert isinstance(reply, Error) and reply.code == ErrorCode.BAD_MESSAGE
    assert "name must be printable text" in reply.message
    peer.hello("ada")
    game_id = peer.create()
    seats = [{"kind": "open"}, {"kind": "open"}]
    commands: list[dict[str, Any]] = [
        {"type": "join", "game_id": text},
        {"type": "watch", "game_id": game_id + text},
        {"type": "move", "game_id": game_id, "token": text, "ply": 0, "move": "1"},
        {"type": "move", "game_id": game_id, "token": "t", "ply": 0, "move": text},
        {"type": "create", "game": "kalah", "options": {text: 1}, "seats": seats},
        {"type": "create", "game": "kalah", "options": {"pits": text}, "seats": seats},
        {
            "type": "create",
            "game": "kalah",
            "options": {},
            "seats": [{"kind": "bot", "depth": 1, "eval": text}, seats[1]],
        },
        {"type": "games", "player": text},
        {
            "type": "move",
            "game_id": game_id,
            "token": "t",
            "ply": 0,
            "move": "1",
            "info": {"depth": 1, "score": 0, "nodes": 1, "time_ms": 1, "pv": ["1", text]},
        },
    ]
    for index, command in enumerate(commands, 100):
        (reply,) = peer.send_raw(frame(id=index, **command))
        assert isinstance(reply, Error) and (reply.id, reply.code) == (index, "bad_message"), reply
        assert "printable" in reply.message
        check_reply(reply)
    assert len(h.core.rooms) == 1


def test_an_escape_sequence_in_a_name_never_reaches_the_lobby() -> None:
    h = Harness()
    peer = h.connect()
    peer.send_raw(frame(type="hello", id=1, proto=1, name="\x1b[2Jmallory", role="human"))
    peer.hello("mallory")
    game_id = peer.create()
    peer.join(game_id, 0)
    (summary,) = peer.ok(ListGames(id=5)).games or ()
    assert summary.seats[0].name == "mallory"


def test_quotes_of_client_input_are_short_and_escaped() -> None:
    assert quote("\x1b[2J") == "'\\x1b[2J'"
    quoted = quote("x" * 5000)
    assert len(quoted) == MAX_QUOTE + 2 and quoted.endswith("…'")
    assert escape("\x00" * 5000, 100) == "\\x00" * 24 + "\\x0…"
    assert escape("short", 100) == "short"


LONG = "\x1b" + "é" * 4000
HOSTILE_FRAMES = [
    frame(type=LONG, id=1),  # an unknown type of 4 KB: once echoed whole
    frame(type="ping", id=2, t=1, **{LONG[:3000]: float("nan")}),  # a long unknown key
    frame(type="create", id=3, game="kalah", options={"pits": "9" * 3500}, seats=[]),
    frame(
        type="create",
        id=4,
        game="kalah",
        options={"x" * 64: {"y": 1}},
        seats=[{"kind": "open"}] * 2,
    ),
    frame(type="watch", id=5, game_id="é" * 64),
    frame(type="join", id=6, game_id="z" * 64, seat=1),
    frame(type="move", id=7, game_id="g", token="t" * 128, ply=2**63, move="m"),
    frame(type="games", id=8, cursor="9" * 128),
    frame(type="games", id=9, cursor=":" * 128),
    b"\x81\xa4type" + b"\xda\x0f\xa0" + b"\x1b" * 4000,
]


def hostile_core() -> Harness:
    h = Harness()
    h.player()
    return h


@pytest.mark.parametrize("data", HOSTILE_FRAMES)
def test_every_error_reply_stays_within_the_protocols_limit(data: bytes) -> None:
    h = hostile_core()
    (peer,) = h.peers.values()
    (reply,) = peer.send_raw(data)
    check_reply(reply)


def test_options_the_engine_refuses_are_not_echoed_at_length() -> None:
    h = hostile_core()
    (peer,) = h.peers.values()
    for value in ("9" * 3000, [1] * 500, {"a" * 60: "b" * 3000}):
        reply = peer.send_raw(
            frame(
                type="create",
                id=1,
                game="kalah",
                options={"pits": value},
                seats=[{"kind": "open"}] * 2,
            )
        )[0]
        check_reply(reply)


texts = st.text(max_size=3000) | st.text(st.characters(max_codepoint=0x9F), max_size=3000)
values = st.recursive(
    st.none() | st.integers(-(2**63), 2**64 - 1) | texts | st.booleans(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=6,
)
commands = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["hello", "games", "create", "join", "watch", "move", "cancel"])
        | texts
    },
    optional={
        "id": st.integers(-5, 2**64 - 1) | texts,
        "game_id": texts,
        "game": texts,
        "name": texts,
        "token": texts,
        "move": texts,
        "options": values,
        "seats": values,
        "cursor": texts,
        "player": texts,
        "filter": texts,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(texts, values, max_size=3) | commands)
def test_many_hostile_commands_get_short_printable_errors(command: dict[str, Any]) -> None:
    data = msgpack.packb(command, use_bin_type=True)
    h = hostile_core()
    (peer,) = h.peers.values()
    for reply in peer.send_raw(data):
        if isinstance(reply, Error):
            check_reply(reply)


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
    ("name", "why"),
    [
        ("\u3164", "renders as nothing"),  # a Hangul filler: a letter that draws nothing
        ("\u2800", "renders as nothing"),  # the blank Braille pattern
        ("\u3164\u3164\u2800", "renders as nothing"),
        ("ada\u3164", "renders as nothing"),  # looks like "ada"
        ("\u0301\u0301", "renders as nothing"),  # marks on nothing
        ("Z\u0301\u0302\u0303\u0304a", "combining marks"),  # a tower of marks
        ("\u5b57" * 33, "wider than 64 columns"),  # 66 columns in 33 characters
    ],
)
def test_a_name_that_renders_blank_towers_or_sprawls_is_refused_at_hello(
    name: str, why: str
) -> None:
    h = Harness()
    peer = h.connect()
    error = peer.error(Hello(id=4, proto=1, name=name, role="human"))
    assert (error.id, error.code) == (4, ErrorCode.BAD_MESSAGE)
    assert why in error.message
    assert peer.closed is None and h.core.conns[peer.conn].role is None


@pytest.mark.parametrize("name", ["Nguy\u1ec5n", "e\u0323\u0302", "\u5b57" * 32, "a" * 64, "क्षि"])
def test_names_in_any_script_with_their_marks_are_welcome(name: str) -> None:
    assert Harness().connect().hello(name).session


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


@pytest.mark.parametrize(
    "frame",
    [
        msgpack.packb({"type": "ping", "id": 1, "t": 5, "x": msgpack.Timestamp(1)}),  # 32-bit
        msgpack.packb({"type": "ping", "id": 1, "t": msgpack.Timestamp(1, 5)}),  # 64-bit
        msgpack.packb({"type": "ping", "id": 1, "t": msgpack.Timestamp(2**40, 5)}),  # 96-bit
        msgpack.packb({"type": "ping", "id": 1, "t": 5, "x": [{"y": msgpack.Timestamp(-1)}]}),
        b"\x83\xa4type\xa4ping\xa2id\x01\xa1t\xd6\xff\x00\x00\x00\x05",  # raw fixext 4, type -1
        b"\x83\xa4type\xa6castle\xa2id\x01\xa1t\xd6\xff\x00\x00\x00\x05",
    ],
)
def test_a_msgpack_timestamp_is_refused_as_an_extension_type(frame: bytes) -> None:
    """msgpack reads ext type -1 as a Timestamp without asking the codec's ext hook: such a
    frame got a field error (or, in an unknown type, `unknown_type`) with its id instead of the
    refusal of an extension type, with no id, that docs/protocol.md promises."""
    h = Harness()
    peer = h.player()
    (error,) = peer.send_raw(frame)
    assert isinstance(error, Error)
    assert (error.id, error.code) == (None, ErrorCode.BAD_MESSAGE)
    assert "extension types (timestamps included) are not allowed" in error.message
    assert h.core.rejected == {"bad_message:malformed": 1}
