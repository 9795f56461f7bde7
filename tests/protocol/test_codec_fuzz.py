"""Fuzzing `decode`: whatever bytes arrive, only the documented ProtocolError escapes, and what
decodes is a message that re-encodes to itself."""

from __future__ import annotations

from typing import Any, cast

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.protocol.test_codec import any_message
from ubao.protocol import ErrorCode, ProtocolError, decode, encode

KNOWN_TYPES = [
    "hello",
    "games",
    "create",
    "join",
    "resume",
    "watch",
    "move",
    "resign",
    "ping",
    "ok",
    "error",
    "snapshot",
    "moved",
    "over",
    "seat",
    "cancel",
    "lobby",
]
FIELD_NAMES = [
    "id",
    "proto",
    "name",
    "role",
    "game",
    "options",
    "seats",
    "clock",
    "game_id",
    "seat",
    "token",
    "since_v",
    "ply",
    "move",
    "t",
    "kind",
    "depth",
    "v",
    "legal",
    "result",
    "winner",
    "score",
    "wants_bot",
    "info",
    "created",
    "filter",
    "player",
    "limit",
    "cursor",
    "subscribe",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(KNOWN_TYPES + FIELD_NAMES)
    | st.binary(max_size=8)
    | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=4))
    | st.builds(msgpack.Timestamp, st.integers(0, 2**32 - 1))
)
trees = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=4), inner, max_size=6)
    ),
    max_leaves=12,
)
message_like = st.fixed_dictionaries(
    {"type": st.sampled_from(KNOWN_TYPES)},
    optional={name: trees for name in FIELD_NAMES},
)


def packable(value: Any) -> bytes | None:
    try:
        return cast(bytes, msgpack.packb(value, use_bin_type=True))
    except (OverflowError, ValueError, TypeError):
        return None


def check(frame: bytes) -> None:
    try:
        message = decode(frame)
    except ProtocolError as error:
        assert error.code == ErrorCode.BAD_MESSAGE
        assert error.id is None or (type(error.id) is int and error.id >= 0)
        assert error.message
        return
    assert decode(encode(message)) == message


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=64))
def test_random_bytes(frame: bytes) -> None:
    check(frame)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(message_like | trees)
def test_random_msgpack_values(value: Any) -> None:
    frame = packable(value)
    if frame is not None:
        check(frame)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(any_message, st.data())
def test_corrupted_valid_frames(message: Any, data: st.DataObject) -> None:
    frame = bytearray(encode(message))
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(0, len(frame) - 1))
        frame[index] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(frame)))
    check(bytes(frame[:cut]))
    check(bytes(frame))
