"""Wire protocol v1 of ubao: every message as a dataclass, `encode`/`decode`, error codes.

Pure: no sockets, no asyncio. Server, terminal clients and bot clients share this one vocabulary::

    from protocol import Hello, Move, decode_server_message, encode

    await ws.send(encode(Hello(id=1, proto=PROTOCOL_VERSION, name="ada", role="human")))
    reply = decode_server_message(await ws.recv())   # Ok(id=1, proto=1, session=...)

See docs/protocol.md for every message, field and error code.
"""

from protocol.codec import decode, decode_command, decode_server_message, encode, to_wire
from protocol.errors import AppCloseCode, ErrorCode, ProtocolError
from protocol.messages import (
    COMMAND_TYPES,
    GAME_NAMES,
    PROTOCOL_VERSION,
    SERVER_MESSAGE_TYPES,
    BotInfo,
    Clocks,
    ClockSpec,
    Command,
    Create,
    Error,
    Event,
    GameSummary,
    Hello,
    Join,
    ListGames,
    Message,
    Move,
    Moved,
    Ok,
    Over,
    Ping,
    Reply,
    Resign,
    Result,
    Resume,
    Role,
    SeatEvent,
    SeatInfo,
    SeatKind,
    SeatSpec,
    ServerMessage,
    Snapshot,
    Status,
    Watch,
)

__all__ = [
    "COMMAND_TYPES",
    "GAME_NAMES",
    "PROTOCOL_VERSION",
    "SERVER_MESSAGE_TYPES",
    "AppCloseCode",
    "BotInfo",
    "ClockSpec",
    "Clocks",
    "Command",
    "Create",
    "Error",
    "ErrorCode",
    "Event",
    "GameSummary",
    "Hello",
    "Join",
    "ListGames",
    "Message",
    "Move",
    "Moved",
    "Ok",
    "Over",
    "Ping",
    "ProtocolError",
    "Reply",
    "Resign",
    "Result",
    "Resume",
    "Role",
    "SeatEvent",
    "SeatInfo",
    "SeatKind",
    "SeatSpec",
    "ServerMessage",
    "Snapshot",
    "Status",
    "Watch",
    "decode",
    "decode_command",
    "decode_server_message",
    "encode",
    "to_wire",
]
