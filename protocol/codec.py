"""`encode` and `decode`: messages to msgpack frames and back, with strict validation.

A frame is decoded in one shot (no streaming, no trailing bytes), with `strict_map_key` and no
extension types (msgpack's timestamps, ext type -1, included), then every field is checked for
presence, type, range and, for text, that it is printable (what one client sends, others print
on their terminals). The checks are built once, at import, from the message dataclasses'
annotations (see messages.py), so that a field is declared in one place only. Unknown fields are
ignored (so that newer peers can add fields), but they too must be plain data. `decode` raises
`ProtocolError` and nothing else.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
from collections.abc import Callable, Mapping
from typing import (
    Annotated,
    Any,
    Literal,
    NoReturn,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

import msgpack

from ubao.protocol.errors import ProtocolError, UnsupportedVersion, quote
from ubao.protocol.messages import (
    COMMAND_TYPES,
    INT64_MAX,
    MAX_NAME,
    MAX_NESTING,
    MAX_OPTIONS,
    PROTOCOL_VERSION,
    SERVER_MESSAGE_TYPES,
    Command,
    Items,
    Message,
    OneOf,
    Range,
    ServerMessage,
    Text,
)
from ubao.protocol.names import name_problem


class _Invalid(Exception):
    """A field failed its check; `decode` turns this into a ProtocolError naming the message."""


_C = TypeVar("_C")
Check = Callable[[Any, str], Any]
"""Validates one raw value found at a path (for messages) and returns the typed value."""


def _fail(message: str) -> NoReturn:
    raise _Invalid(message)


def _int(lo: int, hi: int) -> Check:
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


def _printable(value: str, path: str) -> str:
    if not value.isprintable():
        _fail(f"{path} must be printable text (no control characters or escape sequences)")
    return value


def _text(spec: Text) -> Check:
    min_len, max_len, trimmed = spec.min, spec.max, spec.trimmed
    allowed = re.compile(f"[{spec.chars}]*").fullmatch if spec.chars else None

    def check(value: Any, path: str) -> str:
        if not isinstance(value, str):
            _fail(f"{path} must be a string")
        if not min_len <= len(value) <= max_len:
            _fail(f"{path} must have {min_len} to {max_len} characters")
        if allowed is not None and not allowed(value):
            _fail(f"{path} may only have the characters {spec.chars}")
        _printable(value, path)
        if trimmed and value.strip() != value:
            _fail(
                f"{path} must not begin or end with a space, nor be blank: others would see "
                "an empty name, or one that looks like another's"
            )
        if trimmed and (problem := name_problem(value)):
            _fail(f"{path} {problem}: others could not read it")
        return value

    return check


def _choice(values: tuple[Any, ...]) -> Check:
    def check(value: Any, path: str) -> Any:
        if type(value) not in (str, int) or value not in values:
            _fail(f"{path} must be one of {', '.join(map(repr, values))}")
        return value

    return check


def _float(value: Any, path: str) -> float:
    if type(value) is not float or not math.isfinite(value):
        _fail(f"{path} must be a finite float")
    return float(value)


def _nullable(inner: Check) -> Check:
    def check(value: Any, path: str) -> Any:
        return None if value is None else inner(value, path)

    return check


def _list(inner: Check, max_len: int, length: int | None = None) -> Check:
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
    if depth > MAX_NESTING:
        _fail(f"{path} is nested too deeply")
    if type(value) is str:
        return _printable(value, path)
    if value is None or type(value) in (bool, int):
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
        _printable(key, f"{path} keys")
        result[key] = _plain(item, f"{path}.{key}", depth)
    return result


def _options(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        _fail(f"{path} must be a map")
    return _plain_map(value, path)


def _constraint(kind: type[_C], constraints: tuple[Any, ...]) -> _C | None:
    return next((c for c in constraints if isinstance(c, kind)), None)


def _check_of(hint: Any) -> Check:
    """The check of one annotated type: its shape from the type, its bounds from `Annotated`."""
    constraints: tuple[Any, ...] = ()
    if get_origin(hint) is Annotated:
        hint, *extras = get_args(hint)
        constraints = tuple(extras)
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        (inner,) = (arg for arg in args if arg is not type(None))
        return _nullable(_check_of(inner))
    if origin is Literal:
        return _choice(args)
    if hint is bool:
        return _bool
    if hint is float:
        return _float
    if hint is int:
        one_of = _constraint(OneOf, constraints)
        if one_of is not None:
            return _choice(one_of.values)
        bounds = _constraint(Range, constraints) or Range()
        return _int(bounds.lo, bounds.hi)
    if hint is str:
        text = _constraint(Text, constraints)
        if text is None:
            raise TypeError("a str field must say its length bounds with Text(...)")
        return _text(text)
    if origin is tuple and args[-1] is Ellipsis:
        items = _constraint(Items, constraints) or Items()
        return _list(_check_of(args[0]), items.max, items.exact)
    if origin is tuple and len(set(args)) == 1:
        return _list(_check_of(args[0]), len(args), len(args))
    if origin is dict:
        return _options
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _record(hint)
    raise TypeError(f"no wire check for {hint!r}")


class _Record:
    """The schema of one dataclass, read from its annotations: a check per field; required
    fields are those without a default, and a field with a default may also be nil. Calling
    it turns a raw map into the dataclass, then asks the dataclass's `why_invalid`, if any."""

    def __init__(self, cls: type[Any]) -> None:
        hints = get_type_hints(cls, include_extras=True)
        self.cls = cls
        self.checks: dict[str, Check] = {}
        required: set[str] = set()
        for f in dataclasses.fields(cls):
            check = _check_of(hints[f.name])
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                required.add(f.name)
            elif f.default is not None:
                check = _nullable(check)  # nil for a flag or a count with a default: the default
            self.checks[f.name] = check
        self.required = frozenset(required)
        self.why_invalid: Callable[[Any], str | None] | None = getattr(cls, "why_invalid", None)

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
                _printable(key, f"{path or 'message'} keys")
                _plain(item, f"{path}.{quote(key)}" if path else quote(key))
        missing = sorted(self.required - values.keys())
        if missing:
            _fail(f"missing field {', '.join(missing)}" + (f" in {path}" if path else ""))
        # An explicit nil for an optional field with a non-None default means that default.
        values = {k: v for k, v in values.items() if v is not None or k in self.required}
        result = self.cls(**values)
        problem = self.why_invalid(result) if self.why_invalid is not None else None
        if problem is not None:
            _fail(f"{path}: {problem}" if path else problem)
        return result


_SCHEMAS: dict[type[Any], _Record] = {}


def _record(cls: type[Any]) -> _Record:
    """One schema per dataclass, shared wherever the dataclass is nested."""
    if cls not in _SCHEMAS:
        _SCHEMAS[cls] = _Record(cls)
    return _SCHEMAS[cls]


_RECORDS: dict[str, _Record] = {
    cls.type: _record(cls) for cls in (*COMMAND_TYPES, *SERVER_MESSAGE_TYPES)
}
_COMMANDS = {cls.type: _RECORDS[cls.type] for cls in COMMAND_TYPES}
_SERVER_MESSAGES = {cls.type: _RECORDS[cls.type] for cls in SERVER_MESSAGE_TYPES}


_NO_EXT = "extension types (timestamps included) are not allowed"


def _reject_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"extension type {code} is not allowed")


def _decode(data: bytes | str, records: Mapping[str, _Record], *, server: bool = False) -> Any:
    """The message in `data`, one of `records`. On a server's side (`server`), a `hello` of
    another protocol version is `UnsupportedVersion` before anything else in it is checked."""
    if isinstance(data, str):
        raise ProtocolError("frames must be binary (msgpack), not text", reason="text_frame")
    try:
        # msgpack reads ext type -1 as a Timestamp itself, never asking `ext_hook`: with
        # `max_ext_len=0` it refuses every ext with data, timestamps included, as it reads them.
        raw = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=_reject_ext,
            max_ext_len=0,
        )
    except (ValueError, TypeError, OverflowError, msgpack.UnpackException) as exc:
        detail = str(exc) or type(exc).__name__
        if "max_ext_len" in detail:
            detail = _NO_EXT
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
            f"unknown message type {quote(kind)}; known: {known}", id=id, reason="unknown_type"
        )
    if server and kind == "hello":  # not a look at every command, only at hellos
        proto = raw.get("proto")
        if type(proto) is int and proto != PROTOCOL_VERSION:
            raise UnsupportedVersion(proto, id=id)
    try:
        return record(raw, "")
    except _Invalid as exc:
        raise ProtocolError(f"{kind}: {exc}", id=id) from None


def decode(data: bytes | str) -> Message:
    """Any message of the protocol, in either direction."""
    return cast(Message, _decode(data, _RECORDS))


def decode_command(data: bytes | str) -> Command:
    """A message a client may send; what a server calls on every frame it receives."""
    return cast(Command, _decode(data, _COMMANDS, server=True))


def decode_server_message(data: bytes | str) -> ServerMessage:
    """A message a server may send; what a client calls on every frame it receives."""
    return cast(ServerMessage, _decode(data, _SERVER_MESSAGES))


_PLAIN: dict[str, str] = {
    "scalar": "item",
    "list": "None if item is None else list(item)",
    "any": "_wire(item)",
}
"""How a field's value becomes plain data, by its `_shape`: as it is, as a list, or by `_wire`."""


def _shape(hint: Any) -> str:
    """A field's `_PLAIN` shape, from its type: text, numbers and flags (and lists of them) need
    no look at their values."""
    if get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        inner = [arg for arg in args if arg is not type(None)]
        return _shape(inner[0]) if len(inner) == 1 else "any"
    if origin is Literal or hint in (str, int, bool, float):
        return "scalar"
    if origin is tuple and all(_shape(arg) == "scalar" for arg in args if arg is not Ellipsis):
        return "list"
    return "any"


_CONVERTERS: dict[type[Any], Callable[[Any], dict[str, Any]]] = {}
"""Per dataclass, made once: the function that turns one into its wire map."""


def _converter(cls: type[Any]) -> Callable[[Any], dict[str, Any]]:
    """The wire map of a dataclass, as straight-line code written from its fields (as
    `dataclasses` writes `__init__`): its `type` tag if a message, then each field, left out at
    its default if that is None (optional fields) or False (flags). Required fields, and fields
    with another default, are always sent, even when nil (an error's id, a draw's winner)."""
    try:
        hints = get_type_hints(cls, include_extras=True)
    except (NameError, TypeError):  # a dataclass of someone else's: every value looked at
        hints = {}
    kind = getattr(cls, "type", None)
    head = f"{{'type': {kind!r}}}" if isinstance(kind, str) else "{}"
    lines = ["def convert(value):", f"    out = {head}"]

    for f in dataclasses.fields(cls):
        plain = _PLAIN[_shape(hints[f.name]) if f.name in hints else "any"]
        lines.append(f"    item = value.{f.name}")
        if f.default is None or f.default is False:
            lines.append(f"    if item is not {f.default}:")
            lines.append(f"        out[{f.name!r}] = {plain}")
        else:
            lines.append(f"    out[{f.name!r}] = {plain}")
    lines.append("    return out")
    namespace: dict[str, Any] = {"_wire": _wire}
    exec("\n".join(lines), namespace)
    convert: Callable[[Any], dict[str, Any]] = namespace["convert"]
    _CONVERTERS[cls] = convert
    return convert


def _wire(value: Any) -> Any:
    convert = _CONVERTERS.get(type(value))
    if convert is not None:
        return convert(value)
    if value is None or type(value) in (str, int, bool, float):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _converter(type(value))(value)
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
