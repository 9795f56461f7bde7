"""Bao la Kiswahili notation: move text (§17), the one-line position text and the JSON form.

The grammars are documented in docs/bao.md. Everything here is syntax: whether a move is legal
is decided by `game.Bao`, which matches parsed text against the legal moves. Sections §x refer to
docs/bao.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from ubao.engine.bao.rules import (
    ENDLESS,
    HAND,
    OWNED,
    PLY,
    STOCK,
    TAKASIA,
    TARGET,
    TO_MOVE,
    BaoMove,
    Position,
)
from ubao.engine.game import MAX_COUNT, NotationError, bounded_count, notation_text, shown

SIDES = "SN"


def hole_label(player: int, index: int) -> str:
    """A ring index as §17 prints it: `A5`, `B2` for South, `a5`, `b2` for North."""
    label = f"A{index + 1}" if index < 8 else f"B{16 - index}"
    return label.lower() if player else label


def is_namua_capture(position: Position, hole: int) -> bool:
    """Whether placing the stock seed in `hole` captures; its letter then names a kichwa."""
    player = position[TO_MOVE]
    mine, theirs = 16 * player, 16 * (1 - player)
    return (
        position[STOCK + player] > 0
        and hole < 8
        and position[mine + hole] > 0
        and position[theirs + 7 - hole] > 0
    )


def move_text(position: Position, move: BaoMove) -> str:
    """The canonical short form: hole, letter, and `+` for a safari."""
    hole, direction, safari = move
    if is_namua_capture(position, hole):
        letter = "L" if direction > 0 else "R"  # the kichwa; the left one sows clockwise
    elif hole < 8:
        letter = "R" if direction > 0 else "L"
    else:
        letter = "L" if direction > 0 else "R"  # the back row runs the other way round
    return hole_label(position[TO_MOVE], hole) + letter + ("+" if safari else "")


class TypedMove(NamedTuple):
    """A move as typed, before it is matched against the legal moves."""

    hole: int
    letter: str | None
    """"L" or "R" as written, or None."""
    direction: int | None
    """+1 / -1 from the `:cw` / `:ccw` form, or None."""
    safari: bool
    takasa: bool
    """The optional `*` marker of a non-capturing move."""


_MOVE = re.compile(r"\s*([ab])([1-8])(?:([lr])|:(cw|ccw))?([+>])?(\*)?\s*", re.IGNORECASE)
MOVE_GRAMMAR = "<A|B><1-8><L|R>[+][*] or <A|B><1-8>:<cw|ccw>[+] (e.g. A6L, b2R, A8R+, A5:cw)"


def parse_move_text(text: str) -> TypedMove:
    """The parts of a move in short form; NotationError if it is not one."""
    match = _MOVE.fullmatch(notation_text(text, "a Bao move"))
    if match is None:
        raise NotationError(f"{shown(text)} is not a Bao move; write {MOVE_GRAMMAR}")
    row, number, letter, turn, safari, takasa = match.groups()
    index = int(number) - 1 if row in "aA" else 16 - int(number)
    direction = None if turn is None else (1 if turn.lower() == "cw" else -1)
    return TypedMove(index, letter and letter.upper(), direction, bool(safari), bool(takasa))


def letter_matches(position: Position, move: BaoMove, typed: TypedMove) -> bool:
    """Whether the letter or direction typed (if any) names `move`."""
    if typed.direction is not None:
        return typed.direction == move.direction
    return typed.letter is None or move_text(position, move)[2] == typed.letter


# -- the one-line position text ---------------------------------------------------------------

POSITION_GRAMMAR = (
    "'<b8..b1>/<a8..a1>/<A1..A8>/<B1..B8> <S|N> <south stock>-<north stock> <SN|S|N|->"
    " [takasia=<hole>] [target=<hole>] [hand=<n>] [ply=<n>] [endless]', a cell being a digit"
    " or a count in parentheses, e.g. '00000000/02260000/00006220/00000000 S 22-22 SN'"
)
_CELL = re.compile(r"\d|\((\d+)\)", re.ASCII)

MAX_PLY = 1_000_000_000
"""The most plies a position may count: below the native core's bound (engine/native/bao.h),
with room for a billion more moves."""


def screen_rows(position: Position) -> list[list[int]]:
    """The board in the screen layout of §2.3: North back, North front, South front, South back."""
    return [
        list(position[24:32]),
        list(position[23:15:-1]),
        list(position[0:8]),
        list(position[15:7:-1]),
    ]


def _rings_from_rows(rows: list[list[int]]) -> list[int]:
    north_back, north_front, south_front, south_back = rows
    return [*south_front, *south_back[::-1], *north_front[::-1], *north_back]


def _cell(count: int) -> str:
    return str(count) if count < 10 else f"({count})"


def position_text(position: Position) -> str:
    """The one-line text of a position; `parse_position_text` reads it back."""
    player = position[TO_MOVE]
    rows = "/".join("".join(map(_cell, row)) for row in screen_rows(position))
    houses = "".join(side for i, side in enumerate(SIDES) if position[OWNED + i]) or "-"
    fields = [rows, SIDES[player], f"{position[STOCK]}-{position[STOCK + 1]}", houses]
    if position[TAKASIA] >= 0:
        fields.append(f"takasia={hole_label(player, position[TAKASIA])}")
    if position[TARGET] >= 0:
        fields.append(f"target={hole_label(1 - player, position[TARGET])}")
    if position[HAND]:
        fields.append(f"hand={position[HAND]}")
    if position[PLY]:
        fields.append(f"ply={position[PLY]}")
    if position[ENDLESS]:
        fields.append("endless")
    return " ".join(fields)


def _bad(text: str, why: str) -> NotationError:
    return NotationError(f"{shown(text)}: {why}; a Bao position is {POSITION_GRAMMAR}")


def _count(text: str, value: str, what: str, most: int = MAX_COUNT) -> int:
    if not (value.isascii() and value.isdigit()):
        raise _bad(text, f"{what} must be a non-negative integer, not {shown(value)}")
    count = bounded_count(value, most)
    if count is None:
        raise _bad(text, f"{what} must be at most {most:,}")
    return count


def _front_hole(text: str, value: str, what: str, owner: int) -> int:
    """A front hole written in its owner's case: `A2` for South, `a2` for North."""
    row = "a" if owner else "A"
    if not re.fullmatch(f"{row}[1-8]", value):
        raise _bad(text, f"the {what} hole must be one of {SIDES[owner]}'s {row}1..{row}8")
    return int(value[1]) - 1


def parse_position_text(text: str) -> Position:
    """The position a one-line text describes; NotationError says what is wrong."""
    fields = notation_text(text, "a Bao position").split()
    if len(fields) < 4:
        raise _bad(text, "it needs at least 4 fields separated by spaces")
    rows_text, side, stocks, houses, *extras = fields
    row_texts = rows_text.split("/")
    if len(row_texts) != 4:
        raise _bad(text, "the board has 4 rows separated by '/'")
    rows = []
    for row in row_texts:
        cells = [m[1] or m[0] for m in _CELL.finditer(row)]
        counts = [_count(text, cell, "a hole") for cell in cells]
        if "".join(map(_cell, counts)) != row or len(cells) != 8:
            raise _bad(text, f"the row {shown(row)} is not 8 cells")
        rows.append(counts)
    if side not in SIDES:
        raise _bad(text, f"the side to move is S or N, not {side!r}")
    stock_parts = stocks.split("-")
    if len(stock_parts) != 2:
        raise _bad(text, f"the stocks are written south-north, not {stocks!r}")
    stock = [_count(text, part, "a stock") for part in stock_parts]
    if houses not in ("SN", "S", "N", "-"):
        raise _bad(text, f"nyumba ownership is SN, S, N or -, not {houses!r}")
    player = SIDES.index(side)
    takasia = target = -1
    hand = ply = endless = 0
    named: set[str] = set()
    for extra in extras:
        name, _, value = extra.partition("=")
        if name in named:
            raise _bad(text, f"the field {name!r} is given twice")
        named.add(name)
        if name == "takasia" and value:
            takasia = _front_hole(text, value, "takasia", player)
        elif name == "target" and value:
            target = _front_hole(text, value, "target", 1 - player)
        elif name == "hand" and value:
            hand = _count(text, value, "hand")
        elif name == "ply" and value:
            ply = _count(text, value, "ply", MAX_PLY)
        elif extra == "endless":
            endless = 1
        else:
            raise _bad(text, f"unknown field {extra!r}")
    owned = [int("S" in houses), int("N" in houses)]
    return build_position(
        rows, stock, owned, player, takasia, target, hand, endless, ply, lambda why: _bad(text, why)
    )


def build_position(
    rows: list[list[int]],
    stock: list[int],
    owned: list[int],
    player: int,
    takasia: int,
    target: int,
    hand: int,
    endless: int,
    ply: int,
    error: Callable[[str], NotationError],
) -> Position:
    """The position tuple from its parts, checked; `error(why)` makes the exception to raise."""
    board = _rings_from_rows(rows)
    if max(*board, *stock, hand) > MAX_COUNT:
        raise error(f"a hole, stock or hand holds at most {MAX_COUNT:,} seeds")
    if ply > MAX_PLY:
        raise error(f"the ply count is at most {MAX_PLY:,}")
    if not any(board[0:8]) and not any(board[16:24]):
        raise error("both front rows are empty")
    if takasia >= 0 and stock[player]:
        raise error("takasia exists only in the mtaji stage (the mover has stock)")
    if hand and any(board[16 * player : 16 * player + 8]):
        raise error(
            "seeds stay in hand only after a capture ended the game [R12.3], which leaves the "
            "loser to move with an empty front row; the side to move here has seeds there"
        )
    return (*board, *stock, *owned, player, takasia, target, hand, endless, ply)


# -- the JSON form (tests/data/bao.jsonl) ------------------------------------------------------

JSON_GRAMMAR = (
    '{"board": [[8 ints] x 4], "stock": [s, n], "owned": [bool, bool], "to_move": "S"|"N"}'
    ' plus optional "takasia": {"player", "hole"}, "capture_target": {"player", "hole"},'
    ' "captured_in_hand", "never_ending", "ply", "winner"'
)
_JSON_KEYS = {
    "board",
    "stock",
    "owned",
    "to_move",
    "takasia",
    "capture_target",
    "captured_in_hand",
    "never_ending",
    "ply",
    "winner",
}


def position_json(position: Position, winner: int | None) -> dict[str, Any]:
    """The JSON form; optional fields only when they differ from their defaults."""
    player = position[TO_MOVE]
    data: dict[str, Any] = {
        "board": screen_rows(position),
        "stock": [position[STOCK], position[STOCK + 1]],
        "owned": [bool(position[OWNED]), bool(position[OWNED + 1])],
    }
    if winner is None:
        data["to_move"] = SIDES[player]
    else:
        data["winner"] = SIDES[winner]
    if position[TAKASIA] >= 0:
        data["takasia"] = {"player": SIDES[player], "hole": f"A{position[TAKASIA] + 1}"}
    if position[TARGET] >= 0:
        data["capture_target"] = {"player": SIDES[1 - player], "hole": f"A{position[TARGET] + 1}"}
    if position[HAND]:
        data["captured_in_hand"] = position[HAND]
    if position[ENDLESS]:
        data["never_ending"] = True
    if position[PLY]:
        data["ply"] = position[PLY]
    return data


def _json_error(why: str) -> NotationError:
    return NotationError(f"bad Bao position JSON: {why}; expected {JSON_GRAMMAR}")


def _json_int(value: Any, what: str) -> int:
    if type(value) is not int or value < 0:
        raise _json_error(f"{what} must be a non-negative integer, not {value!r}")
    return value


def _json_side(value: Any, what: str) -> int:
    if value not in ("S", "N"):
        raise _json_error(f"{what} must be 'S' or 'N', not {value!r}")
    return SIDES.index(value)


def _json_list(value: Any, length: int, what: str) -> list[Any]:
    if not isinstance(value, list) or len(value) != length:
        raise _json_error(f"{what} must be a list of {length}")
    return value


def _json_hole(value: Any, what: str) -> tuple[int, int]:
    if not isinstance(value, dict) or set(value) != {"player", "hole"}:
        raise _json_error(f'{what} must be {{"player": "S"|"N", "hole": "A1".."A8"}}')
    hole = value["hole"]
    if not isinstance(hole, str) or not re.fullmatch(r"[aA][1-8]", hole):
        raise _json_error(f"the {what} hole must be a front hole A1..A8, not {hole!r}")
    return _json_side(value["player"], f"the {what} player"), int(hole[1]) - 1


def parse_position_json(data: Any) -> tuple[Position, int | None]:
    """The position of the JSON form and the winner it declares (checked by the caller)."""
    if not isinstance(data, dict):
        raise _json_error("it must be an object")
    unknown = sorted(set(data) - _JSON_KEYS)
    if unknown:
        raise _json_error(f"unknown field(s) {', '.join(unknown)}")
    for key in ("board", "stock", "owned"):
        if key not in data:
            raise _json_error(f"{key!r} is missing")
    rows = [
        [_json_int(n, "a hole count") for n in _json_list(row, 8, "a board row")]
        for row in _json_list(data["board"], 4, "'board'")
    ]
    stock = [_json_int(n, "a stock") for n in _json_list(data["stock"], 2, "'stock'")]
    owned = []
    for flag in _json_list(data["owned"], 2, "'owned'"):
        if not isinstance(flag, bool):
            raise _json_error(f"'owned' holds true/false, not {flag!r}")
        owned.append(int(flag))
    winner = _json_side(data["winner"], "'winner'") if "winner" in data else None
    if "to_move" in data:
        player = _json_side(data["to_move"], "'to_move'")
        if winner is not None and player == winner:
            raise _json_error("the winner cannot be the side to move")
    elif winner is not None:
        player = 1 - winner  # a finished game leaves the loser "to move"
    else:
        raise _json_error("'to_move' is missing")
    takasia = target = -1
    if "takasia" in data:
        side, takasia = _json_hole(data["takasia"], "takasia")
        if side != player:
            raise _json_error("takasia restricts the side to move only")
    if "capture_target" in data:
        side, target = _json_hole(data["capture_target"], "capture_target")
        if side == player:
            raise _json_error("the capture target is a hole of the side not to move")
    hand = _json_int(data.get("captured_in_hand", 0), "'captured_in_hand'")
    endless = data.get("never_ending", False)
    if not isinstance(endless, bool):
        raise _json_error(f"'never_ending' is true/false, not {endless!r}")
    ply = _json_int(data.get("ply", 0), "'ply'")
    position = build_position(
        rows, stock, owned, player, takasia, target, hand, int(endless), ply, _json_error
    )
    return position, winner
