"""The Kalah Game Protocol (KGP 1.x): its lines and boards, both ways, and ubao's Kalah in it.

KGP (the public spec by Kaludercic and Völk, KWARC/kalah-game) is line based: an optional id,
an optional `@ref` to an earlier id, a command name and arguments (integers, reals, bare words,
quoted strings with backslash escapes, board literals `<n,S,N,s1..sn,n1..nn>`). Pure: lines in,
values out, and back (docs/kgp.md). A KGP board is always seen by the side to move as South:
`board_of_position` and `position_of_board` turn it into ubao's Kalah position and back, and
the pit number of a `move` is ubao's Kalah move as it stands.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

VERSION = (1, 0, 1)
"""The protocol version a server announces (`kgp 1 0 1`), as go-kgp, the reference server."""

MAX_LINE = 16384
"""The longest command the spec allows, trailing white space included; a longer one may be
ignored."""

KGP_RULES: Mapping[str, Any] = {
    "capture_sower": True,
    "empty_capture": False,
    "end_check": "either",
    "remaining": "owner",
    "early_end": True,
}
"""ubao's Kalah options for KGP's rules (docs/kgp.md, The rules): a capture takes the sowing
seed with the opposite pit's, only when that pit holds seeds; the game ends when either row is
empty or a store holds more than half the seeds, each row's seeds to its owner."""


class KgpSyntaxError(ValueError):
    """A line or board that is not KGP."""


class Word(str):
    """A bare word argument (`freeplay`, `info:name`): written without quotes."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Board:
    """A KGP board: the stores and the rows of South (the side to move) and North, each row in
    its owner's sowing order (pit 1 farthest from his store)."""

    south_store: int
    north_store: int
    south: tuple[int, ...]
    north: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.south)

    def mirrored(self) -> Board:
        """The board as North sees it."""
        return Board(self.north_store, self.south_store, self.north, self.south)

    def seeds(self) -> int:
        return self.south_store + self.north_store + sum(self.south) + sum(self.north)


Argument = int | float | str | Board


@dataclass(frozen=True, slots=True)
class Command:
    """One KGP line: `[id][@ref] name args...`."""

    name: str
    args: tuple[Argument, ...] = ()
    id: int | None = None
    ref: int | None = None


_HEAD = re.compile(r"\s*(?:(\d*)(?:@(\d+))?\s+)?([A-Za-z0-9]+)(?:\s+(.*?))?\s*")
_INTEGER = re.compile(r"[+-]?\d+")
_REAL = re.compile(r"[+-]?\d*\.\d+")
_WORD = re.compile(r"[A-Za-z0-9:-]+")
_BOARD = re.compile(r"<\s*\d+(?:\s*,\s*\d+)*\s*>")
_ARGUMENT = re.compile(r'"(?:\\.|[^"\\\r\n])*"|<[^>]*>|[^\s"<]+')
_ESCAPE = re.compile(r"\\(.)")
_UNESCAPED = {"n": "\n", "t": "\t", "r": "\r"}
_ESCAPED = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
MAX_ID = 2**63 - 1
"""The largest id or reference taken (go-kgp reads them as 64-bit)."""
MAX_SEEDS = 10**6
"""The most seeds a pit or store of a board read may hold."""


def parse_line(line: str) -> Command | None:
    """The command on `line`, or None for a blank line; KgpSyntaxError when it is not KGP."""
    if len(line) > MAX_LINE:
        raise KgpSyntaxError(f"a line has at most {MAX_LINE} characters")
    if not line.strip():
        return None
    match = _HEAD.fullmatch(line)
    if match is None:
        raise KgpSyntaxError("a command is [id][@ref] name arguments")
    id_text, ref_text, name, rest = match.groups()
    args = tuple(_argument(text) for text in _split(rest or ""))
    return Command(name, args, _number(id_text), _number(ref_text))


def _number(text: str | None) -> int | None:
    if not text:
        return None
    value = int(text)
    if value > MAX_ID:
        raise KgpSyntaxError(f"an id is at most {MAX_ID}")
    return value


def _split(rest: str) -> list[str]:
    """The arguments of a line, each a whole token: a string may hold spaces."""
    parts = []
    position = 0
    while position < len(rest):
        if rest[position].isspace():
            position += 1
            continue
        match = _ARGUMENT.match(rest, position)
        if match is None:
            raise KgpSyntaxError(f"cannot read an argument at {rest[position:][:20]!r}")
        parts.append(match[0])
        position = match.end()
        if position < len(rest) and not rest[position].isspace():
            raise KgpSyntaxError(f"arguments are separated by spaces: {rest[:40]!r}")
    return parts


def _argument(text: str) -> Argument:
    if text.startswith('"'):
        return _ESCAPE.sub(lambda m: _UNESCAPED.get(m[1], m[1]), text[1:-1])
    if text.startswith("<"):
        return parse_board(text)
    if _INTEGER.fullmatch(text):
        return int(text)
    if _REAL.fullmatch(text):
        return float(text)
    if _WORD.fullmatch(text):
        return Word(text)
    raise KgpSyntaxError(f"{text[:40]!r} is no integer, real, word, string or board")


def parse_board(text: str) -> Board:
    """`<n,S,N,s1..sn,n1..nn>` as a Board; KgpSyntaxError when malformed or inconsistent."""
    if not _BOARD.fullmatch(text.strip()):
        raise KgpSyntaxError(f"a board is <n,S,N,s1..sn,n1..nn>, not {text[:40]!r}")
    numbers = [int(part) for part in text.strip()[1:-1].split(",")]
    size = numbers[0]
    if size < 1 or len(numbers) != 3 + 2 * size:
        raise KgpSyntaxError(f"a board of {size} pits a side has {3 + 2 * size} numbers")
    if max(numbers[1:]) > MAX_SEEDS:
        raise KgpSyntaxError(f"a pit or store holds at most {MAX_SEEDS} seeds")
    rows = numbers[3:]
    return Board(numbers[1], numbers[2], tuple(rows[:size]), tuple(rows[size:]))


def format_board(board: Board) -> str:
    numbers = (board.size, board.south_store, board.north_store, *board.south, *board.north)
    return "<" + ",".join(map(str, numbers)) + ">"


def format_string(text: str) -> str:
    """`text` quoted, its backslashes, quotes and line breaks escaped."""
    return '"' + "".join(_ESCAPED.get(char, char) for char in text) + '"'


def _format_argument(arg: Argument) -> str:
    if isinstance(arg, Board):
        return format_board(arg)
    if isinstance(arg, Word):
        if not _WORD.fullmatch(arg):
            raise ValueError(f"{arg!r} is not a KGP word")
        return str(arg)
    if isinstance(arg, str):
        return format_string(arg)
    if isinstance(arg, bool):
        return "1" if arg else "0"
    if isinstance(arg, int):
        return str(arg)
    return repr(float(arg))


def format_line(command: Command) -> str:
    """The line of `command`, without its line break."""
    head = "" if command.id is None else str(command.id)
    if command.ref is not None:
        head += f"@{command.ref}"
    words = [head] if head else []
    words.append(command.name)
    words.extend(_format_argument(arg) for arg in command.args)
    return " ".join(words)


# -- ubao's Kalah -----------------------------------------------------------------------------


def kgp_options(pits: int, seeds: int) -> dict[str, Any]:
    """The options of ubao's `kalah` for KGP's Kalah(pits, seeds)."""
    return {"pits": pits, "seeds": seeds, **KGP_RULES}


def plays_kgp_rules(options: Mapping[str, Any]) -> bool:
    """Whether a `kalah` game with these options (defaults filled in) is played by KGP's rules."""
    return all(options.get(name) == value for name, value in KGP_RULES.items())


def board_of_position(position: Sequence[int]) -> Board:
    """A ubao Kalah position (`engine/mancala/game.py`: South's pits, his store, North's pits,
    his store, the player to move) as KGP shows it to the player to move."""
    pits = (len(position) - 3) // 2
    board = Board(
        position[pits],
        position[2 * pits + 1],
        tuple(position[:pits]),
        tuple(position[pits + 1 : 2 * pits + 1]),
    )
    return board.mirrored() if position[-1] == 1 else board


def position_of_board(board: Board, to_move: int = 0) -> tuple[int, ...]:
    """The ubao Kalah position of `board` as `to_move` sees it (0: he is South)."""
    seen = board.mirrored() if to_move == 1 else board
    return (*seen.south, seen.south_store, *seen.north, seen.north_store, to_move)
