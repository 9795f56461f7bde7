"""The hello: a client of another protocol version is refused and closed whatever else its hello
holds, and a `proto` that is no integer is a bad message that keeps the connection."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from tests.support.server import Harness
from ubao.protocol import AppCloseCode, Error, ErrorCode


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


@pytest.mark.parametrize(
    "hello",
    [
        {"type": "hello", "id": 1, "proto": 2, "name": "x", "role": "admin"},
        {"type": "hello", "id": 1, "proto": 2},
        {"type": "hello", "id": 1, "proto": 0, "name": "x", "role": "human", "extra": b"\x00"},
    ],
)
def test_a_hello_of_another_version_hears_unsupported_version_whatever_else_it_holds(
    hello: dict[str, object],
) -> None:
    h = Harness()
    peer = h.connect()
    got = peer.send_raw(msgpack.packb(hello))
    assert len(got) == 1 and isinstance(got[0], Error), got
    assert got[0].code == ErrorCode.UNSUPPORTED_VERSION and got[0].id == 1
    assert peer.closed is not None and peer.closed[0] == AppCloseCode.UNSUPPORTED_VERSION


def test_a_second_hello_of_another_version_is_a_bad_message_and_keeps_the_connection() -> None:
    h = Harness()
    peer = h.player("ada")
    got = peer.send_raw(msgpack.packb({"type": "hello", "id": 7, "proto": 2}))
    assert isinstance(got[0], Error) and got[0].code == ErrorCode.BAD_MESSAGE and got[0].id == 7
    assert peer.closed is None
