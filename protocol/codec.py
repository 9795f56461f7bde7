"""`encode` and `decode`: messages to msgpack frames and back, with strict validation.

A frame is decoded in one shot (no streaming, no trailing bytes), with `strict_map_key` and no
extension types, then every field is checked for presence, type and range against a schema
derived from the message dataclasses. Unknown fields are ignored (so that newer peers can add
fields), but they too must be plain data. `decode` raises `ProtocolError` and nothing else.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, cast, get_args

import msgpack

from ubao.protocol.errors import ProtocolError
from ubao.protocol.messages import (
    COMMAND_TYPES,
    GAME_NAMES,
    MAX_PV,
    SERVER_MESSAGE_TYPES,
    BotInfo,
    Clocks,
    ClockSpec,
    Command,
    Create,
    Error,
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

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
MAX_NAME = 64
"""Longest player name."""
MAX_GAME_ID = 64
MAX_TOKEN = 128
MAX_MOVE = 32
"""Longest move text (Bao's longest canonical move is 5 characters)."""
MAX_TEXT = 4096
"""Longest free text from the server (positions, error messages)."""
MAX_LIST = 100_000
"""Longest list from the server (histories, legal move lists, lobbies)."""
MAX_OPTIONS = 32
"""Most entries in an `options` map (and most nesting levels of plain data: see MAX_DEPTH)."""
MAX_DEPTH = 8
MAX_CLOCK_MS = 7 * 24 * 3600 * 1000
MAX_BOT_DEPTH = 64
MAX_BOT_TIME_MS = 3600 * 1000


class _Invalid(Exception):
    """A field failed its check; `decode` turns this into a ProtocolError naming the message."""


Check = Callable[[Any, str], Any]
"""Validates one raw value found at a path (for messages) and returns the typed value."""


def _fail(message: str) -> NoReturn:
    raise _Invalid(message)


def _int(lo: int = INT64_MIN, hi: int = INT64_MAX) -> Check:
    def check(value: Any, path: str) -> int:
        # bool is an int subclass in Python, but not an integer on the wire.
        if type(value) is not int:
            _fail(f"{path} must be an integer")
        if not lo <= value <= hi:
            _fail(f"{path} must be between {lo} and {hi}, not {value}")
        return value

    return check


def _bool(value: Any, path: str) -> bool:
    if type(value) is not bool:
        _fail(f"{path} must be true or false")
    return value


def _text(max_len: int, min_len: int = 1) -> Check:
    def check(value: Any, path: str) -> str:
        if not isinstance(value, str):
            _fail(f"{path} must be a string")
        if not min_len <= len(value) <= max_len:
            _fail(f"{path} must have {min_len} to {max_len} characters")
        return value

    return check


def _choice(values: tuple[Any, ...]) -> Check:
    def check(value: Any, path: str) -> Any:
        if type(value) not in (str, int) or value not in values:
            _fail(f"{path} must be one of {', '.join(map(repr, values))}")
        return value

    return check


def _nullable(inner: Check) -> Check:
    def check(value: Any, path: str) -> Any:
        return None if value is None else inner(value, path)

    return check


def _list(inner: Check, max_len: int = MAX_LIST, length: int | None = None) -> Check:
    def check(value: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            _fail(f"{path} must be a list")
        if length is not None and len(value) != length:
            _fail(f"{path} must have exactly {length} items")
        if len(value) > max_len:
            _fail(f"{path} must have at most {max_len} items")
        return tuple(inner(item, f"{path}[{i}]") for i, item in enumerate(value))

    return check


def _plain(value: Any, path: str, depth: int = 0) -> Any:
    """Free-form data (options, unknown fields): msgpack's JSON-like subset, and nothing else."""
    if depth > MAX_DEPTH:
        _fail(f"{path} is nested too deeply")
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        if not math.isfinite(value):
            _fail(f"{path} must be a finite number")
        return value
    if isinstance(value, list):
        return [_plain(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
    if isinstance(value, dict):
        return _plain_map(value, path, depth + 1)
    _fail(f"{path} has a type the protocol does not allow ({type(value).__name__})")


def _plain_map(value: dict[Any, Any], path: str, depth: int = 0) -> dict[str, Any]:
    if len(value) > MAX_OPTIONS:
        _fail(f"{path} must have at most {MAX_OPTIONS} entries")
    result: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not 1 <= len(key) <= MAX_NAME:
            _fail(f"{path} keys must be strings of 1 to {MAX_NAME} characters")
        result[key] = _plain(item, f"{path}.{key}", depth)
    return result


def _options(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        _fail(f"{path} must be a map")
    return _plain_map(value, path)


class _Record:
    """The schema of one dataclass: a check per field; required fields are those without a
    default. Calling it turns a raw map into the dataclass."""

    def __init__(self, cls: type[Any], checks: Mapping[str, Check]) -> None:
        fields = {f.name: f for f in dataclasses.fields(cls)}
        assert fields.keys() == checks.keys(), f"schema of {cls.__name__} does not match"
        self.cls = cls
        self.checks = checks
        self.required = frozenset(
            name
            for name, f in fields.items()
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        )

    def __call__(self, value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            _fail(f"{path} must be a map")
        values: dict[str, Any] = {}
        for key, item in value.items():
            check = self.checks.get(key) if isinstance(key, str) else None
            if check is not None:
                values[key] = check(item, f"{path}.{key}" if path else key)
            elif key != "type":
                if not isinstance(key, str):
                    _fail(f"{path or 'message'} keys must be strings")
                _plain(item, f"{path}.{key}" if path else key)
        missing = sorted(self.required - values.keys())
        if missing:
            _fail(f"missing field {', '.join(missing)}" + (f" in {path}" if path else ""))
        # An explicit nil for an optional field with a non-None default means that default.
        values = {k: v for k, v in values.items() if v is not None or k in self.required}
        return self.cls(**values)


def _seat_spec(value: Any, path: str) -> SeatSpec:
    spec: SeatSpec = _SEAT_SPEC(value, path)
    if spec.kind == "bot":
        if spec.depth is None:
            _fail(f"{path}.depth is required for a bot seat")
        if spec.wants_bot:
            _fail(f"{path}: wants_bot is only for open seats")
    elif spec not in (SeatSpec.open(), SeatSpec.external_bot(spec.depth)):
        _fail(
            f"{path}: time_ms, eval and algorithm are only for bot seats, "
            "and depth only for them and open seats that want a bot"
        )
    return spec


_id = _int(0, INT64_MAX)
_count = _int(0, INT64_MAX)
_seat = _choice((0, 1))
_game_id = _text(MAX_GAME_ID)
_move = _text(MAX_MOVE)
_name = _text(MAX_NAME)
_status = _choice(get_args(Status))
_ms = _int(0, INT64_MAX)
_pair = _list(_int(), length=2)

_SEAT_SPEC = _Record(
    SeatSpec,
    {
        "kind": _choice(get_args(SeatKind)),
        "depth": _nullable(_int(1, MAX_BOT_DEPTH)),
        "time_ms": _nullable(_int(1, MAX_BOT_TIME_MS)),
        "eval": _nullable(_text(MAX_NAME)),
        "algorithm": _nullable(_text(MAX_NAME)),
        "wants_bot": _nullable(_bool),
    },
)
_CLOCK_SPEC = _Record(
    ClockSpec,
    {"initial_ms": _int(1, MAX_CLOCK_MS), "increment_ms": _nullable(_int(0, MAX_CLOCK_MS))},
)
_SEAT_INFO = _Record(
    SeatInfo,
    {
        "kind": _choice(get_args(SeatKind)),
        "name": _nullable(_name),
        "connected": _bool,
        "wants_bot": _nullable(_bool),
        "depth": _nullable(_count),
        "time_ms": _nullable(_ms),
        "eval": _nullable(_name),
        "algorithm": _nullable(_name),
    },
)
_SEAT_INFOS = _list(_SEAT_INFO, length=2)
_CLOCKS = _Record(
    Clocks,
    {
        "remaining_ms": _list(_ms, length=2),
        "running": _nullable(_seat),
        "increment_ms": _nullable(_ms),
    },
)
_RESULT = _Record(
    Result,
    {"winner": _nullable(_seat), "reason": _text(MAX_NAME), "score": _nullable(_pair)},
)


def _bot_info(max_pv: int) -> _Record:
    return _Record(
        BotInfo,
        {
            "depth": _count,
            "score": _int(),
            "nodes": _count,
            "time_ms": _ms,
            "pv": _list(_move, max_len=max_pv),
            "mate": _nullable(_int()),
        },
    )


_BOT_INFO = _bot_info(MAX_LIST)
_CLIENT_BOT_INFO = _bot_info(MAX_PV)
"""What a client may say of its search: the server passes it on, so its pv is held shorter."""
_GAME_SUMMARY = _Record(
    GameSummary,
    {
        "game_id": _game_id,
        "game": _name,
        "options": _options,
        "status": _status,
        "ply": _count,
        "seats": _SEAT_INFOS,
        "clock": _nullable(_CLOCK_SPEC),
        "created": _nullable(_count),
    },
)
_LEGAL = _nullable(_list(_move))

_SCHEMAS: dict[type[Any], dict[str, Check]] = {
    Hello: {"id": _id, "proto": _int(0, 2**31), "name": _name, "role": _choice(get_args(Role))},
    ListGames: {"id": _id},
    Create: {
        "id": _id,
        "game": _choice(GAME_NAMES),
        "options": _options,
        "seats": _list(_seat_spec, length=2),
        "clock": _nullable(_CLOCK_SPEC),
    },
    Join: {"id": _id, "game_id": _game_id, "seat": _nullable(_seat)},
    Resume: {"id": _id, "game_id": _game_id, "token": _text(MAX_TOKEN), "since_v": _count},
    Watch: {"id": _id, "game_id": _game_id, "since_v": _nullable(_count)},
    Move: {
        "id": _id,
        "game_id": _game_id,
        "token": _text(MAX_TOKEN),
        "ply": _count,
        "move": _move,
        "info": _nullable(_CLIENT_BOT_INFO),
    },
    Resign: {"id": _id, "game_id": _game_id, "token": _text(MAX_TOKEN)},
    Ping: {"id": _id, "t": _int()},
    Ok: {
        "id": _id,
        "proto": _nullable(_count),
        "session": _nullable(_text(MAX_TOKEN)),
        "games": _nullable(_list(_GAME_SUMMARY)),
        "game_id": _nullable(_game_id),
        "seat": _nullable(_seat),
        "token": _nullable(_text(MAX_TOKEN)),
        "t": _nullable(_int()),
        "server_t": _nullable(_int()),
    },
    Error: {"id": _nullable(_id), "code": _name, "message": _text(MAX_TEXT, 0)},
    Snapshot: {
        "game_id": _game_id,
        "v": _count,
        "game": _name,
        "options": _options,
        "status": _status,
        "position": _text(MAX_TEXT),
        "to_move": _seat,
        "ply": _count,
        "history": _list(_move),
        "seats": _SEAT_INFOS,
        "legal": _LEGAL,
        "clocks": _nullable(_CLOCKS),
        "result": _nullable(_RESULT),
        "clock": _nullable(_CLOCK_SPEC),
        "created": _nullable(_count),
    },
    Moved: {
        "game_id": _game_id,
        "v": _int(1),
        "ply": _count,
        "seat": _seat,
        "move": _move,
        "position": _text(MAX_TEXT),
        "to_move": _seat,
        "legal": _LEGAL,
        "clocks": _nullable(_CLOCKS),
        "info": _nullable(_BOT_INFO),
    },
    Over: {"game_id": _game_id, "v": _int(1), "result": _RESULT},
    SeatEvent: {
        "game_id": _game_id,
        "v": _int(1),
        "seat": _seat,
        "name": _nullable(_name),
        "connected": _bool,
        "grace_ms": _nullable(_ms),
        "status": _nullable(_status),
        "legal": _LEGAL,
        "clocks": _nullable(_CLOCKS),
    },
}

_RECORDS: dict[str, _Record] = {cls.type: _Record(cls, checks) for cls, checks in _SCHEMAS.items()}
_COMMANDS = {cls.type: _RECORDS[cls.type] for cls in COMMAND_TYPES}
_SERVER_MESSAGES = {cls.type: _RECORDS[cls.type] for cls in SERVER_MESSAGE_TYPES}


def _reject_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"extension type {code} is not allowed")


def _decode(data: bytes | str, records: Mapping[str, _Record]) -> Any:
    if isinstance(data, str):
        raise ProtocolError("frames must be binary (msgpack), not text", reason="text_frame")
    try:
        raw = msgpack.unpackb(
            data, raw=False, strict_map_key=True, use_list=True, ext_hook=_reject_ext
        )
    except (ValueError, TypeError, OverflowError, msgpack.UnpackException) as exc:
        detail = str(exc) or type(exc).__name__
        raise ProtocolError(f"not a valid msgpack frame: {detail}", reason="malformed") from None
    if not isinstance(raw, dict):
        raise ProtocolError("a message must be a msgpack map", reason="not_a_map")
    kind = raw.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("a message must have a string field 'type'", reason="no_type")
    raw_id = raw.get("id")
    id = raw_id if type(raw_id) is int and 0 <= raw_id <= INT64_MAX else None
    record = records.get(kind)
    if record is None:
        known = ", ".join(sorted(records))
        raise ProtocolError(
            f"unknown message type {kind!r}; known: {known}", id=id, reason="unknown_type"
        )
    try:
        return record(raw, "")
    except _Invalid as exc:
        raise ProtocolError(f"{kind}: {exc}", id=id) from None


def decode(data: bytes | str) -> Message:
    """Any message of the protocol, in either direction."""
    return cast(Message, _decode(data, _RECORDS))


def decode_command(data: bytes | str) -> Command:
    """A message a client may send; what a server calls on every frame it receives."""
    return cast(Command, _decode(data, _COMMANDS))


def decode_server_message(data: bytes | str) -> ServerMessage:
    """A message a server may send; what a client calls on every frame it receives."""
    return cast(ServerMessage, _decode(data, _SERVER_MESSAGES))


def _wire(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        kind = getattr(type(value), "type", None)
        if isinstance(kind, str):
            out["type"] = kind
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            # Optional fields (default None) are left out while unset, flags (default False)
            # while false; required ones are sent even when nil (an error's id, a draw's winner).
            if item is f.default and (item is None or item is False):
                continue
            out[f.name] = _wire(item)
        return out
    if isinstance(value, tuple | list):
        return [_wire(item) for item in value]
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    return value


def to_wire(value: object) -> Any:
    """A message (or a value nested in one) as the plain data that goes on the wire: for logs,
    JSON dumps and storage."""
    return _wire(value)


def encode(message: Message) -> bytes:
    """The msgpack frame of a message."""
    return cast(bytes, msgpack.packb(_wire(message), use_bin_type=True))
