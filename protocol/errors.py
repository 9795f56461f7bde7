"""Error codes and close codes of the wire protocol, and the one exception `decode` raises."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class ErrorCode(StrEnum):
    """The stable `code` of an `error` reply; clients switch on these, humans read `message`."""

    BAD_MESSAGE = "bad_message"
    """The frame is not a valid message: not msgpack, not a map, unknown type, bad field."""
    UNSUPPORTED_VERSION = "unsupported_version"
    """`hello` asked for a protocol version the server does not speak (the server then closes)."""
    HELLO_REQUIRED = "hello_required"
    """A command other than `hello` or `ping` came before `hello`."""
    UNKNOWN_GAME = "unknown_game"
    """No game has this `game_id`."""
    BAD_OPTIONS = "bad_options"
    """`create` named a game, options, seat or clock that the server cannot set up."""
    NOT_YOUR_SEAT = "not_your_seat"
    """The token does not hold a seat of this game on this connection (or the sender watches)."""
    NOT_YOUR_TURN = "not_your_turn"
    """The seat is not the one to move."""
    NOT_STARTED = "not_started"
    """The game still waits for a player; nobody may move yet. Or `rematch` of a game that
    ended before it started: there is nobody to play again with."""
    GAME_OVER = "game_over"
    """The game has ended; nothing more can be played."""
    ILLEGAL_MOVE = "illegal_move"
    """The move is malformed or not allowed by the rules in this position."""
    STALE_PLY = "stale_ply"
    """The move is for a ply that was already played (a resend); nothing changed."""
    BAD_PLY = "bad_ply"
    """The move is for a ply that has not been reached yet."""
    SEAT_TAKEN = "seat_taken"
    """The seat asked for (or every seat) is already taken or is a bot's."""
    RATE_LIMITED = "rate_limited"
    """The connection sent more messages than its budget; the server closes it next."""
    SERVER_BUSY = "server_busy"
    """A server-wide limit (games, bot seats) is reached; try again later."""
    STORAGE_ERROR = "storage_error"
    """The server could not store the change, so it made none; the command may be sent again."""
    INTERNAL_ERROR = "internal_error"
    """A bug on the server; the command may not have taken effect."""
    QUOTA_EXCEEDED = "quota_exceeded"
    """This connection or address already has as many games, waiting games or bot seats as the
    server lets one client have; finish or `cancel` one first."""
    NOT_YOUR_GAME = "not_your_game"
    """`cancel` of a game that this connection did not create."""
    ALREADY_STARTED = "already_started"
    """`cancel` of a game that has started: only a waiting game can be cancelled."""
    ALREADY_MOVED = "already_moved"
    """`abort` from a seat that has made a move: only resigning ends the game then."""
    DRAW_PENDING = "draw_pending"
    """`draw` while this seat's own draw offer waits for its answer."""
    NO_DRAW_OFFER = "no_draw_offer"
    """`draw_answer` with no draw offer of the opponent's pending."""
    NOTHING_TO_TAKE_BACK = "nothing_to_take_back"
    """`takeback` from a seat that has not moved yet."""
    TAKEBACK_PENDING = "takeback_pending"
    """`takeback` while a takeback request already waits for its answer."""
    NO_TAKEBACK_REQUEST = "no_takeback_request"
    """`takeback_answer` with no request of the opponent's pending."""
    NOT_OVER = "not_over"
    """`rematch` of a game that is not over yet."""
    REMATCH_PENDING = "rematch_pending"
    """`rematch` while this seat's own offer waits for an answer."""
    NO_REMATCH_OFFER = "no_rematch_offer"
    """`rematch_answer` with no offer of the opponent's pending."""
    ALREADY_REMATCHED = "already_rematched"
    """`rematch` or `rematch_answer` of a game whose rematch was already made."""
    RATED_NEEDS_ACCOUNTS = "rated_needs_accounts"
    """A rated game is played between two accounts only: a guest cannot `join` it, a server
    bot cannot sit in it (`create`), one account cannot take both its seats."""

    NAME_CLAIMED = "name_claimed"
    """`hello` without a key under a name an account holds (or one a person could take for it:
    case, width, accents, look-alike letters), or `claim` of such a name."""
    BAD_KEY = "bad_key"
    """`hello`'s `key` is not the key of the name's account (or no longer: rotated)."""
    TOO_MANY_ATTEMPTS = "too_many_attempts"
    """Too many wrong keys for this name or from this address, or too many claims from this
    address, lately: `retry_after_ms` says when to try again (the connection stays open)."""
    NOT_AN_ACCOUNT = "not_an_account"
    """`rotate` on a connection that did not prove an account's key in its `hello`."""

    UNKNOWN_TOURNAMENT = "unknown_tournament"
    """A tournament command names no tournament this server holds."""
    TOURNAMENT_CLOSED = "tournament_closed"
    """`tournament_join` after the tournament started, or `tournament_start` of one that
    started, ended or has fewer than two entrants (docs/tournaments-server.md)."""
    ALREADY_ENTERED = "already_entered"
    """`tournament_join` by an entrant (or name) already in the tournament."""


class AppCloseCode(IntEnum):
    """WebSocket close codes of the application range (4000-4999) that the server uses."""

    UNSUPPORTED_VERSION = 4000
    """After the `unsupported_version` error: the server does not speak the client's version."""
    SEAT_TAKEN_OVER = 4001
    """Another connection resumed a seat this connection held."""


MAX_QUOTE = 40
"""Most characters of a client's input that an error message quotes."""
MAX_ERROR_MESSAGE = 1000
"""Longest error message the server sends, well inside the protocol's 4096-character limit."""


def escape(text: str, limit: int) -> str:
    """`text` safe to print on anyone's terminal and short: every non-printable character
    (control characters, escape sequences, bidi overrides) escaped as in `repr`, cut to at most
    `limit` characters, the cut marked with `…`."""
    out = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[: limit + 1])
    return out if len(out) <= limit and len(text) <= limit else out[: limit - 1] + "…"


def quote(text: str) -> str:
    """A client's input as an error message names it: a short escaped prefix, in quotes."""
    return f"'{escape(text, MAX_QUOTE)}'"


class ProtocolError(ValueError):
    """A frame that is not a valid message; `decode` raises nothing else.

    `id` is the command's id when the frame was a map with a string `type` and a valid `id`, so
    that the reply can name the offending command; otherwise None, as the protocol requires.
    """

    def __init__(self, message: str, *, id: int | None = None, reason: str = "bad_field") -> None:
        super().__init__(message)
        self.message = message
        self.id = id
        self.code = ErrorCode.BAD_MESSAGE
        self.reason = reason
        """A short slug (`malformed`, `not_a_map`, `no_type`, `unknown_type`, `bad_field`) for
        counting rejections by cause."""


class UnsupportedVersion(ProtocolError):
    """A `hello` for a protocol version this side does not speak. Checked before the rest of
    the hello: a newer client's hello need not be a valid hello of this version, and what it
    must hear is that the version is not spoken (`unsupported_version`), not which field is
    wrong."""

    def __init__(self, proto: int, *, id: int | None = None) -> None:
        super().__init__(f"protocol version {proto} is not supported", id=id, reason="version")
        self.code = ErrorCode.UNSUPPORTED_VERSION
        self.proto = proto
