"""The server's shortcuts past websockets behave as websockets would: the frame header it writes
itself, and commands taken as their frames are parsed, in the order they came, whatever their
framing (server/app.py, `websocket_frame` and `Connection`)."""

from __future__ import annotations

import asyncio
import base64
import os
from typing import Any

import msgpack
import pytest
from websockets.frames import Frame, Opcode

from tests.support.server import running_server
from ubao.protocol import PROTOCOL_VERSION, Hello, Ping, encode
from ubao.server.app import websocket_frame

TIMEOUT = 30


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
def test_a_frame_is_framed_as_websockets_frames_it(size: int) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert websocket_frame(payload) == Frame(Opcode.BINARY, payload).serialize(mask=False)


def client_frame(first: int, payload: bytes) -> bytes:
    """A client's frame (`first`: FIN and opcode), masked with a zero key (RFC 6455 allows it:
    the payload goes as it is)."""
    assert len(payload) < 126
    return bytes((first, 0x80 | len(payload))) + bytes(4) + payload


async def message(reader: asyncio.StreamReader) -> dict[str, Any]:
    """The next server frame's message (unmasked, whole, short)."""
    head = await reader.readexactly(2)
    size = head[1] & 0x7F
    if size == 126:
        size = int.from_bytes(await reader.readexactly(2), "big")
    payload = await reader.readexactly(size)
    assert head[0] == 0x82, head
    decoded: dict[str, Any] = msgpack.unpackb(payload)
    return decoded


async def test_commands_arriving_together_are_answered_in_order_whatever_their_framing() -> None:
    # One write, so that the server reads them at once: a fragmented message, which goes
    # through websockets' queue and the handler task, then a text frame (refused) and whole
    # binary frames, which would be handled on arrival, before it, if they did not queue
    # behind it.
    hello = encode(Hello(id=1, proto=PROTOCOL_VERSION, name="ada", role="human"))
    ping = encode(Ping(id=2, t=2))
    frames = client_frame(0x82, hello)
    frames += client_frame(0x02, ping[:3]) + client_frame(0x80, ping[3:])  # in two fragments
    frames += client_frame(0x81, b"text")
    frames += b"".join(client_frame(0x82, encode(Ping(id=i, t=i))) for i in range(3, 8))
    async with running_server() as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        try:
            key = base64.b64encode(os.urandom(16))
            writer.write(
                b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                b"Connection: Upgrade\r\nSec-WebSocket-Key: " + key + b"\r\n"
                b"Sec-WebSocket-Version: 13\r\n\r\n"
            )
            async with asyncio.timeout(TIMEOUT):
                response = await reader.readuntil(b"\r\n\r\n")
                assert response.startswith(b"HTTP/1.1 101"), response
                writer.write(frames)
                replies = [await message(reader) for _ in range(8)]
        finally:
            writer.close()
    assert [reply.get("id") for reply in replies] == [1, 2, None, 3, 4, 5, 6, 7]
    assert [reply["type"] for reply in replies] == ["ok", "ok", "error"] + ["ok"] * 5
