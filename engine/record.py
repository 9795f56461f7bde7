"""Game records in the spirit of PGN: tag pairs, then the moves in the game's notation.

    [Game "kalah"]
    [Options "{\\"pits\\":4,\\"seeds\\":3}"]
    [Date "2024.05.01"]
    [South "alice"]
    [North "ubao-engine (depth 3)"]
    [NorthKind "bot"]
    [NorthDepth "3"]
    [Result "1-0"]

    1. 3 2 2. 4 1? 1-0

Pure: `format_record` and `parse_record` are inverses (`parse_record(format_record(r)) == r`
for a record of printable text).
Move numbers count pairs of plies, as in de Voogt's Bao records (`1. A7L a5R 2. ...`); in the
mancala games an extra turn is simply a ply of its own, so a number may start with either side's
move. The numbers are checked on reading but carry no information: the moves alone, replayed
from the start position, give the game. Tags are kept in their order; values are strings with
`\\` and `"` escaped by a backslash, as in PGN. A record is text that people print and
pass around, whatever a server or a file put in it: every tag value and move is made printable
(`protocol.escape`: control characters, escape sequences and bidi overrides written as `\\x1b`,
`\\u202e`) when written and when read. A move may carry an annotation glyph as in PGN, written
right after it: `?!`, `?`, `??` (an inaccuracy, a mistake, a blunder: what a game review marks,
`ubao.engine.review`), and `!`, `!!`, `!?` read back too; `Record.marks` holds them. Which tags
a record has is up to its writer (`client/export.py`: the date the game was created, the server
bots' settings from their seat info, ...); this module only reads and writes them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ubao.protocol import escape
from ubao.protocol.messages import MAX_TEXT

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
"""The result tokens: seat 0 won, seat 1 won, a draw, unfinished."""

_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*) "((?:[^"\\]|\\.)*)"\]')
_NUMBER = re.compile(r"(\d+)\.")

GLYPHS = ("?!", "?", "??", "!", "!!", "!?")
"""The move annotations a record holds (PGN's): inaccuracy, mistake, blunder, good, brilliant,
interesting."""

_GLYPH = re.compile(r"(.+?)(\?\?|\?!|!!|!\?|\?|!)?")
"""A move word: the move, then its glyph if any."""


class RecordError(ValueError):
    """A record that cannot be read; the message says which line and what is wrong."""


@dataclass(frozen=True, slots=True)
class Record:
    """One game: its tag pairs (in order) and its moves (plies, in order)."""

    tags: dict[str, str] = field(default_factory=dict)
    moves: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()
    """Each move's annotation glyph (`GLYPHS`), "" for none: parallel to `moves`, filled with ""
    when not given, so that a record without marks is the record it always was."""

    def __post_init__(self) -> None:
        if not self.marks:
            object.__setattr__(self, "marks", ("",) * len(self.moves))
        elif len(self.marks) != len(self.moves):
            raise RecordError(f"{len(self.marks)} marks for {len(self.moves)} moves")

    @property
    def game(self) -> str:
        """The game's name, from the required `Game` tag."""
        return self.tags["Game"]

    @property
    def options(self) -> dict[str, Any]:
        """The game's options, from the `Options` tag (compact JSON), empty when absent."""
        options: dict[str, Any] = json.loads(self.tags.get("Options", "{}"))
        return options

    @property
    def result(self) -> str:
        return self.tags.get("Result", "*")


def result_token(winner: int | None, finished: bool) -> str:
    """The result token of a game: who won, a draw, or `*` while it goes on."""
    if not finished:
        return "*"
    return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[winner]


def options_tag(options: Mapping[str, Any]) -> str:
    """Options as compact JSON with sorted keys, so equal options give equal records."""
    return json.dumps(dict(options), separators=(",", ":"), sort_keys=True)


def printable(text: str) -> str:
    """`text` as a record holds it: escaped where it is not printable, so a line stays a line
    and nothing in it can drive a terminal."""
    return escape(text, MAX_TEXT)


def _escape(value: str) -> str:
    return printable(value).replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def format_record(record: Record, width: int = 79) -> str:
    """The record as text: tags, a blank line, the numbered moves wrapped at `width`, the result."""
    if "Game" not in record.tags:
        raise RecordError("a record needs a Game tag")
    for name in record.tags:
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
            raise RecordError(f"tag {name!r} cannot be written: names are letters and digits")
    for move in record.moves:
        if (
            not move
            or any(c.isspace() for c in move)
            or move in RESULTS
            or _NUMBER.fullmatch(move)
            or move[-1] in "!?"
        ):
            raise RecordError(
                f"move {move!r} cannot be written: it must be one word that is "
                "neither a move number nor a result and does not end in a glyph's ! or ?"
            )
    for mark in record.marks:
        if mark and mark not in GLYPHS:
            raise RecordError(f"mark {mark!r} cannot be written: it must be one of {GLYPHS}")
    if record.result not in RESULTS:
        raise RecordError(f"Result {record.result!r} must be one of {', '.join(RESULTS)}")
    lines = [f'[{name} "{_escape(value)}"]' for name, value in record.tags.items()]
    lines.append("")
    words: list[str] = []
    for ply, (move, mark) in enumerate(zip(record.moves, record.marks, strict=True)):
        if ply % 2 == 0:
            words.append(f"{ply // 2 + 1}.")
        words.append(printable(move) + mark)
    words.append(record.result)
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> Record:
    """The record `text` describes; RecordError names the line and what is wrong."""
    tags: dict[str, str] = {}
    lines = text.splitlines()
    body = 0
    """Index of the first line after the tag section."""
    while body < len(lines) and (lines[body].lstrip().startswith("[") or not lines[body].strip()):
        stripped = lines[body].strip()
        body += 1
        if not stripped:
            if tags:
                break
            continue
        match = _TAG.fullmatch(stripped)
        if match is None:
            raise RecordError(f'line {body}: {stripped!r} is not a tag pair like [Game "kalah"]')
        if match[1] in tags:
            raise RecordError(f"line {body}: tag {match[1]} appears twice")
        tags[match[1]] = printable(_unescape(match[2]))
    if "Game" not in tags:
        raise RecordError("the record has no Game tag")
    moves: list[str] = []
    marks: list[str] = []
    result: str | None = None
    for line_number, line in enumerate(lines[body:], body + 1):
        for word in line.split():
            if result is not None:
                raise RecordError(f"line {line_number}: {word!r} after the result {result}")
            numbered = _NUMBER.fullmatch(word)
            if numbered:
                expected = len(moves) // 2 + 1
                if len(moves) % 2:
                    raise RecordError(
                        f"line {line_number}: move number {word} splits pair {expected} "
                        f"(ply {len(moves) + 1} is its second move)"
                    )
                if int(numbered[1]) != expected:
                    raise RecordError(
                        f"line {line_number}: move number {word} should be {expected}."
                    )
            elif word in RESULTS:
                result = word
            else:
                move = _GLYPH.fullmatch(word)
                assert move is not None  # any word of one character or more matches
                moves.append(printable(move[1]))
                marks.append(move[2] or "")
    if result is None:
        raise RecordError("the moves must end with a result: 1-0, 0-1, 1/2-1/2 or *")
    if tags.get("Result", result) != result:
        raise RecordError(f"the Result tag says {tags['Result']} but the moves end with {result}")
    if result != "*":
        tags["Result"] = result
    return Record(tags, tuple(moves), tuple(marks))
