"""GGF, the Generic Game Format of Othello records, as NBoard's `set game` carries it.

A record is one line of `TAG[value]` pairs between `(;` and `;)`: `GM[Othello]`, the players
(`PB`, `PW`), the clocks (`TI` both, or `TB`/`TW`), the board type (`TY`), the start board
(`BO[8 ---…O*… *]`: the size, one cell per square row by row from A1, `*` black, `O` white,
`-` empty, then the side to move) and the moves in order (`B[F5]`, `W[PA]` a pass, each
optionally `/eval/seconds`). Squares are written as ubao writes them (column letter from the
left, row number from the top), in upper case.

`parse_ggf` and `format_ggf` are exact inverses on what they model; `game_position` and
`ggf_game` map a record to ubao's terms (an `EnginePosition` of `othello`) and back, playing
the moves through ubao's rules, so a record with a move the rules forbid is refused here.
Pure text and rules, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ubao.engine.game import GameError
from ubao.engine.games import game_for_position, make_game
from ubao.engine.protocols.dialect import EnginePosition
from ubao.engine.searchable import Searchable

GGF_SIZES = (4, 6, 8, 10, 12, 14)
"""The square boards GGF's board types name (its 88, the octagon, is no ubao board); ubao's
Othello also has 16x16, which no GGF record can carry."""
GGF_DISCS = {"*": "X", "O": "O", "-": "-"}
"""GGF's cell letters and ubao's: `*` black, `O` white, `-` empty."""
UBAO_DISCS = {ubao: ggf for ggf, ubao in GGF_DISCS.items()}
GGF_PASS = "PA"

_TAG = re.compile(r"\s*([A-Z]+)\[([^\]]*)\]")
_SQUARE = re.compile(r"([a-zA-Z])([0-9]+)")


class GgfError(ValueError):
    """A record that is not GGF, or an Othello game ubao cannot play out."""


@dataclass(frozen=True, slots=True)
class GgfClock:
    """A player's clock as GGF writes it: `main/increment/grace`, each `[[h:]m:]s`."""

    seconds: float
    """The time left at the start of the record."""
    increment: float = 0.0
    """Added after each move."""
    grace: float = 0.0
    """Extra time after a timeout (GGS's way of not losing at once)."""


@dataclass(frozen=True, slots=True)
class GgfMove:
    """One move of a record: a square in ubao's notation (`f5`) or `pass`."""

    move: str
    evaluation: float | None = None
    """What the mover's program thought of it, in discs from its point of view."""
    seconds: float | None = None
    """The time the move took."""


@dataclass(frozen=True, slots=True)
class GgfGame:
    """One Othello record. The start board is in ubao's position notation (`X`, `O`, `-`)."""

    size: int
    start: str
    """The start position: the cells row by row from a1, a space, the side to move."""
    moves: tuple[GgfMove, ...] = ()
    black: str = ""
    white: str = ""
    place: str = ""
    date: str = ""
    result: str = "?"
    clocks: tuple[GgfClock | None, GgfClock | None] = (None, None)
    """Black's and White's clocks at the start (None: the record gives none)."""


# -- text ----------------------------------------------------------------------------------------


def parse_seconds(text: str) -> float:
    """`[[d.]h:]m:]s` (GGF's clock fields) in seconds; an empty field is 0."""
    if not text.strip():
        return 0.0
    days = 0.0
    if "." in text.split(":")[0] and ":" in text:
        day_text, text = text.split(".", 1)
        days = _number(day_text, "a clock's days")
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + _number(part, "a clock")
    return days * 86400 + seconds


def format_seconds(seconds: float) -> str:
    """Seconds as `h:mm:ss` or `m:ss`, as GGS writes clocks."""
    minutes, second = divmod(round(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}:{minute:02d}:{second:02d}" if hours else f"{minute}:{second:02d}"


def parse_clock(text: str) -> GgfClock:
    fields = text.split("/")
    if len(fields) > 3:
        raise GgfError(f"{text!r} is not a clock: main/increment/grace")
    seconds, increment, grace = (*[parse_seconds(field) for field in fields], 0.0, 0.0)[:3]
    return GgfClock(seconds, increment, grace)


def format_clock(clock: GgfClock) -> str:
    text = format_seconds(clock.seconds)
    if clock.increment or clock.grace:
        text += "/" + (format_seconds(clock.increment) if clock.increment else "")
        if clock.grace:
            text += "/" + format_seconds(clock.grace)
    return text


def parse_square(text: str) -> str:
    """A GGF square (`F5`, `a10`) or pass (`PA`, also `PASS` and `PS`) in ubao's notation."""
    word = text.strip()
    if word.upper() in ("PA", "PASS", "PS"):
        return "pass"
    if not _SQUARE.fullmatch(word):
        raise GgfError(f"{text!r} is not a square (F5) or a pass (PA)")
    return word.lower()


def format_square(move: str) -> str:
    """ubao's `f5`/`pass` as GGF writes it: `F5`/`PA`."""
    return GGF_PASS if move == "pass" else move.upper()


def parse_move_item(text: str) -> GgfMove:
    """`F5`, `F5/1.5`, `F5/1.5/2.03` or `F5//2.03`: a move, its evaluation, its time."""
    square, *rest = text.strip().split("/")
    if len(rest) > 2:
        raise GgfError(f"{text!r} is not a move: square[/eval[/seconds]]")
    evaluation, seconds = (*rest, "", "")[:2]
    return GgfMove(
        parse_square(square),
        _number(evaluation, "an evaluation") if evaluation.strip() else None,
        _number(seconds, "a move's time") if seconds.strip() else None,
    )


def format_move_item(item: GgfMove) -> str:
    text = format_square(item.move)
    if item.evaluation is not None or item.seconds is not None:
        text += "/" + ("" if item.evaluation is None else f"{item.evaluation:.2f}")
        if item.seconds is not None:
            text += f"/{item.seconds:.2f}"
    return text


def parse_board(text: str) -> tuple[int, str]:
    """`BO[8 <cells> <side>]`: the size and the board as ubao's position text."""
    fields = text.split()
    if not fields or not fields[0].isdigit():
        raise GgfError(f"BO[{text}] does not start with the board's size")
    size = int(fields[0])
    if size not in GGF_SIZES:
        raise GgfError(f"board size {size} is not one of GGF's {', '.join(map(str, GGF_SIZES))}")
    cells = "".join(fields[1:-1]) if len(fields) > 2 else ""
    side = fields[-1] if len(fields) > 2 else ""
    if len(fields) == 2:  # no side to move given: black's, as GGS reads it
        cells, side = fields[1], "*"
    if len(cells) != size * size:
        raise GgfError(f"BO[{text}] has {len(cells)} cells; {size}x{size} needs {size * size}")
    wrong = next((cell for cell in cells + side if cell not in GGF_DISCS), None)
    if wrong is not None or side == "-":
        raise GgfError(f"BO[{text}]: cells are '*' (black), 'O' (white) or '-' (empty)")
    board = "".join(GGF_DISCS[cell] for cell in cells)
    return size, f"{board} {GGF_DISCS[side]}"


def format_board(size: int, start: str) -> str:
    board, side = start.split()
    return f"{size} {''.join(UBAO_DISCS[cell] for cell in board)} {UBAO_DISCS[side]}"


def parse_ggf(text: str) -> GgfGame:
    """One record; GgfError says what is wrong. Tags GGF has but ubao does not use (ratings,
    comments, komi) are read past."""
    body = text.strip()
    if not (body.startswith("(;") and body.endswith(";)")):
        raise GgfError("a GGF record is enclosed in (; and ;)")
    body = body[2:-2]
    fields: dict[str, str] = {}
    moves: list[tuple[str, GgfMove]] = []
    at = 0
    while at < len(body.rstrip()):
        match = _TAG.match(body, at)
        if match is None:
            raise GgfError(f"expected TAG[value] at {body[at : at + 20]!r}")
        tag, value = match.groups()
        if tag in ("B", "W"):
            moves.append((tag, parse_move_item(value)))
        else:
            fields[tag] = value
        at = match.end()
    if fields.get("GM", "Othello").lower() != "othello":
        raise GgfError(f"GM[{fields['GM']}] is not Othello")
    if "BO" not in fields:
        raise GgfError("the record has no start board (BO)")
    size, start = parse_board(fields["BO"])
    both = parse_clock(fields["TI"]) if "TI" in fields else None
    clocks = (
        parse_clock(fields["TB"]) if "TB" in fields else both,
        parse_clock(fields["TW"]) if "TW" in fields else both,
    )
    return GgfGame(
        size=size,
        start=start,
        moves=_with_passes(size, start, moves),
        black=fields.get("PB", ""),
        white=fields.get("PW", ""),
        place=fields.get("PC", ""),
        date=fields.get("DT", ""),
        result=fields.get("RE", "?"),
        clocks=clocks,
    )


def format_ggf(game: GgfGame) -> str:
    """The record on one line, every pass written (`PA`), the moves' colours from the rules."""
    parts = ["(;GM[Othello]", f"PC[{_clean(game.place)}]"]
    if game.date:
        parts.append(f"DT[{_clean(game.date)}]")
    parts += [f"PB[{_clean(game.black)}]", f"PW[{_clean(game.white)}]", f"RE[{game.result}]"]
    black, white = game.clocks
    if black == white and black is not None:
        parts.append(f"TI[{format_clock(black)}]")
    else:
        parts += [
            f"T{tag}[{format_clock(clock)}]"
            for tag, clock in zip("BW", game.clocks, strict=True)
            if clock
        ]
    parts += [f"TY[{game.size}]", f"BO[{format_board(game.size, game.start)}]"]
    othello = make_game("othello", {"size": game.size})
    position = othello.parse_position(game.start)
    for item in game.moves:
        parts.append(f"{'BW'[othello.to_move(position)]}[{format_move_item(item)}]")
        position = othello.play(position, othello.parse_move(position, item.move))
    return "".join(parts) + ";)"


# -- ubao's terms --------------------------------------------------------------------------------


def game_position(game: GgfGame) -> EnginePosition:
    """The record's last position as ubao's engines are given it."""
    othello = make_game("othello", {"size": game.size})
    standard = othello.format_position(othello.start()) == game.start
    position = othello.parse_position(game.start)
    for item in game.moves:
        position = othello.play(position, othello.parse_move(position, item.move))
    return EnginePosition(
        game="othello",
        options={"size": game.size},
        start="startpos" if standard else game.start,
        moves=tuple(item.move for item in game.moves),
        player=othello.to_move(position),
    )


def ggf_game(position: EnginePosition, **fields: Any) -> GgfGame:
    """An `othello` position as a record (GgfError for another game or a board GGF has no type
    for); `fields` fill in the record's other fields (players, clocks)."""
    othello, start, _ = played_out(position)
    size: int = othello.options["size"]
    if size not in GGF_SIZES:
        raise GgfError(f"GGF has no {size}x{size} board; its sizes: {GGF_SIZES}")
    moves = tuple(GgfMove(move) for move in position.moves)
    return GgfGame(size=size, start=othello.format_position(start), moves=moves, **fields)


def played_out(position: EnginePosition) -> tuple[Searchable[Any, Any], Any, Any]:
    """An Othello position's rules, its start board and its board now, every move played
    through the rules; GgfError for another game or what the rules refuse."""
    if position.game != "othello":
        raise GgfError(f"GGF records Othello, not {position.game}")
    try:
        if position.start == "startpos":
            othello = make_game("othello", position.options)
            start = othello.start()
        else:
            othello, start = game_for_position("othello", position.options, position.start)
        board = start
        for number, move in enumerate(position.moves, 1):
            try:
                board = othello.play(board, othello.parse_move(board, move))
            except GameError as error:
                raise GgfError(f"move {number} ({move}): {error}") from None
    except GameError as error:
        raise GgfError(str(error)) from None
    return othello, start, board


def _with_passes(
    size: int, start: str, moves: Sequence[tuple[str | None, GgfMove]]
) -> tuple[GgfMove, ...]:
    """The moves played through the rules: a move of the colour not to move where the mover
    must pass is taken as that pass and the move (records that leave passes out); GgfError for
    a move the rules forbid."""
    othello = make_game("othello", {"size": size})
    try:
        position = othello.parse_position(start)
    except GameError as error:
        raise GgfError(f"the start board: {error}") from None
    played: list[GgfMove] = []
    for number, (colour, item) in enumerate(moves, 1):
        try:
            if colour is not None and "BW"[othello.to_move(position)] != colour:
                if not must_pass(othello, position):
                    raise GgfError(
                        f"move {number} ({colour}[{format_square(item.move)}]) is "
                        f"not {colour}'s turn"
                    )
                played.append(GgfMove("pass"))
                position = othello.play(position, othello.parse_move(position, "pass"))
            position = othello.play(position, othello.parse_move(position, item.move))
        except GameError as error:
            raise GgfError(f"move {number} ({format_square(item.move)}): {error}") from None
        played.append(item)
    return tuple(played)


def must_pass(game: Searchable[Any, Any], position: Any) -> bool:
    """Whether the side to move has no move but the pass (where protocols that leave passes
    out imply one)."""
    return [game.format_move(position, move) for move in game.legal_moves(position)] == ["pass"]


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise GgfError(f"{text!r} is not {what}: a number") from None


def _clean(text: str) -> str:
    """A field's text without the brackets that would end it early."""
    return text.replace("[", "(").replace("]", ")")
