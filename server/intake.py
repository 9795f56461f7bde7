"""The front door: a client's frame decoded into a command within its connection's message
budget, or refused with what the client hears (an `error`, and a close for a flood or a
protocol version this server does not speak), each refusal counted by reason for the logs and
the metrics. Pure: it returns the outputs; the core queues them."""

from __future__ import annotations

import logging
from collections import Counter

from ubao.protocol import (
    PROTOCOL_VERSION,
    AppCloseCode,
    Command,
    Error,
    ErrorCode,
    ProtocolError,
    UnsupportedVersion,
    decode_command,
    escape,
)
from ubao.protocol.errors import MAX_ERROR_MESSAGE
from ubao.server.outputs import POLICY_VIOLATION, Close, Output, SendMessage
from ubao.server.sessions import Connection

log = logging.getLogger("ubao.server")

SECOND_HELLO = "hello was already received on this connection"


class Intake:
    """Frames in, commands out; `rejected` counts what was refused, by reason (the error code,
    with the decode failure's cause)."""

    def __init__(self) -> None:
        self.rejected: Counter[str] = Counter()

    def decode(
        self, conn: Connection, data: bytes | str, within_budget: bool
    ) -> Command | list[Output]:
        """The command `data` holds, or what refuses it: a bad frame, a frame over the budget
        (the connection is closed), a hello of another version."""
        try:
            command = decode_command(data)
        except UnsupportedVersion as exc:
            if conn.role is None:
                return self.unsupported(conn, exc.id, exc.proto)
            return [self.error(conn, exc.id, ErrorCode.BAD_MESSAGE, SECOND_HELLO)]
        except ProtocolError as exc:
            if within_budget:
                return [self.error(conn, exc.id, exc.code, exc.message, f"{exc.code}:{exc.reason}")]
            return self.flooded(conn, exc.id)
        if not within_budget:
            return self.flooded(conn, command.id)
        return command

    def error(
        self,
        conn: Connection,
        id: int | None,
        code: ErrorCode,
        message: str,
        reason: str | None = None,
        retry_after_ms: int | None = None,
    ) -> SendMessage:
        self.rejected[reason or code] += 1
        # Whatever went into it, an error message is short and printable on anyone's terminal.
        message = escape(message, MAX_ERROR_MESSAGE)
        log.debug("connection %d: %s (%s)", conn.id, code, message)
        error = Error(id=id, code=code, message=message, retry_after_ms=retry_after_ms)
        return SendMessage((conn.id,), error)

    def crowded(self, conn: Connection) -> Close:
        """Its address holds more connections than allowed."""
        self.rejected["too_many_connections"] += 1
        return close(conn, POLICY_VIOLATION, "too many connections from this address")

    def flooded(self, conn: Connection, id: int | None) -> list[Output]:
        message = "too many messages: this connection is closed"
        error = self.error(conn, id, ErrorCode.RATE_LIMITED, message)
        return [error, close(conn, POLICY_VIOLATION, "message budget exceeded")]

    def unsupported(self, conn: Connection, id: int | None, proto: int) -> list[Output]:
        """A hello of another version (the codec checks it first: `UnsupportedVersion`)."""
        message = f"protocol version {proto} is not supported; this server speaks "
        message += str(PROTOCOL_VERSION)
        error = self.error(conn, id, ErrorCode.UNSUPPORTED_VERSION, message)
        return [
            error,
            close(conn, AppCloseCode.UNSUPPORTED_VERSION, "unsupported protocol version"),
        ]

    def log_counts(self) -> None:
        if self.rejected:
            counts = ", ".join(f"{reason} {n}" for reason, n in self.rejected.most_common())
            log.info("rejected messages: %s", counts)


def close(conn: Connection, code: int, reason: str) -> Close:
    """Close the connection: nothing it sends from now on is handled."""
    conn.closing = True
    return Close(conn.id, code, reason)
