"""Wire protocol v1 of ubao: every message as a dataclass, `encode`/`decode`, error codes.

Pure: no sockets, no asyncio. Server, terminal clients and bot clients share this one vocabulary::

    from ubao.protocol import Hello, Move, decode_server_message, encode

    await ws.send(encode(Hello(id=1, proto=PROTOCOL_VERSION, name="ada", role="human")))
    reply = decode_server_message(await ws.recv())   # Ok(id=1, proto=1, session=...)

See docs/protocol.md for every message, field and error code.
"""

from ubao.protocol.codec import decode, decode_command, decode_server_message, encode, to_wire
from ubao.protocol.errors import AppCloseCode, ErrorCode, ProtocolError
from ubao.protocol.messages import (
    COMMAND_TYPES,
    MATE_SCORE,
    MAX_PV,
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
    mate_score,
)

__all__ = [
    "COMMAND_TYPES",
    "MATE_SCORE",
    "MAX_PV",
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
    "mate_score",
    "to_wire",
]
