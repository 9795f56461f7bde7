"""The lobby as `ubao games` prints it: one row a game, cut to the terminal's width.

Pure: the command line fetches the pages (`ListGames`, following cursors) and prints what
these functions make of them. A row never wraps: when the table is wider than the terminal,
the cells of the columns that matter least are cut, with an ellipsis (the options first, then
the seats, the status, the game's name); the id, which `play --join` and `watch` need whole,
and the ply are never cut.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ubao.client.state import REASONS, called_off, shown_name
from ubao.client.terminal_text import columns, cut
from ubao.engine.record import printable
from ubao.protocol import GameSummary, SeatInfo

HEADER = ("ID", "GAME", "OPTIONS", "STATUS", "SEATS", "PLY")
SEATS = HEADER.index("SEATS")
VS = " vs "
GAP = "  "
"""Between two columns."""
CUTS = ((2, 5), (4, 16), (3, 12), (1, 6))
"""The columns cut when a row is too wide, in order, each down to this many columns at most:
options, seats, status, the game's name (then all of them further, to 2, on a very narrow
terminal)."""


def away(seat: SeatInfo, summary: GameSummary) -> bool:
    """A player who left a game that still goes on (nobody is expected at a finished one)."""
    return summary.status != "over" and seat.name is not None and not seat.connected


PLAYED_OUT = ("normal", "no_moves")
"""The reasons a score alone says: the game was played to its end."""


def status(summary: GameSummary) -> str:
    """`waiting`, `playing`, or for a finished game who won and the score, the winner's first
    (`over: alice won 30-18`, `over: draw 24-24`) and how a win came, unless the game was
    played to its end (`over: bot d6 won on time`), or why it was called off (`over:
    aborted`, `over: cancelled`, `over: expired`)."""
    result = summary.result
    if summary.status != "over" or result is None:
        return summary.status
    if called_off(result):
        return f"over: {result.reason}"
    first = result.winner or 0
    score = f" {result.score[first]}-{result.score[1 - first]}" if result.score else ""
    how = "" if result.reason in PLAYED_OUT else f" {REASONS.get(result.reason, result.reason)}"
    if result.winner is None:
        return f"over: draw{score}"
    seat = summary.seats[result.winner]
    winner = seat_cell(seat, summary) if seat.kind == "bot" else seat.name or "open seat"
    return f"over: {winner} won{score}{how}"


def seat_cell(seat: SeatInfo, summary: GameSummary) -> str:
    """Who sits in a seat: a server bot by its depth (and engine: `bot d6`, `bot d4 edax`,
    short enough that both players of a bot game stay in sight), anyone else by name, `BOT`
    before a bot client's (as lichess titles bot accounts; its name says its depth), `(guest)`
    after a guest's, `(away)` after a dropped player's; a free seat is `(open)`, or `(bot
    wanted)` when it asks for a bot client."""
    if seat.kind == "bot":
        depth = f" d{seat.depth}" if seat.depth is not None else ""
        return "bot" + depth + (f" {seat.engine}" if seat.engine else "")
    if seat.name is None:
        return "(bot wanted)" if seat.wants_bot else "(open)"
    title = "BOT " if seat.client == "bot" else ""
    return title + (shown_name(seat) or "") + (" (away)" if away(seat, summary) else "")


def row_of(summary: GameSummary) -> tuple[str, ...]:
    """A game's cells, escaped as in records: the names are other people's."""
    seats = VS.join(printable(seat_cell(seat, summary)) for seat in summary.seats)
    options = json.dumps(summary.options, separators=(",", ":")) if summary.options else "-"
    game = f"{summary.game} rated" if summary.rated else summary.game
    row = (summary.game_id, game, options, status(summary), str(summary.ply))
    cells = tuple(printable(cell) for cell in row)
    return (*cells[:4], seats, cells[4])


def cut_seats(seats: str, width: int) -> str:
    """The seats cell in at most `width` columns: each side's name cut, so that both stay in
    sight, the shorter whole if it can be."""
    left, vs, right = seats.partition(VS)
    room = width - len(VS)
    if columns(seats) <= width or not vs or room < 4:
        return cut(seats, width)
    kept = min(columns(left), max(room // 2, room - columns(right)))
    return cut(left, kept) + VS + cut(right, room - kept)


def fit(widths: list[int], width: int) -> list[int]:
    """The column widths of a table no wider than `width` (as near as the uncut columns
    allow), cutting the columns of CUTS in turn."""
    widths = list(widths)
    for least in (None, 2):
        for column, wanted in CUTS:
            excess = sum(widths) + len(GAP) * (len(widths) - 1) - width
            if excess <= 0:
                return widths
            floor = wanted if least is None else least
            widths[column] -= min(excess, max(widths[column] - floor, 0))
    return widths


def lobby_table(games: Sequence[GameSummary], width: int | None = None) -> str:
    """The lobby as a table: game id, game, options, status, seats, ply; each row at most
    `width` columns (None: whole cells, for a pipe or a file)."""
    rows = [HEADER, *(row_of(summary) for summary in games)]
    widths = [max(columns(row[i]) for row in rows) for i in range(len(HEADER))]
    if width is not None:
        widths = fit(widths, width)
    lines = []
    for row in rows:
        cells = [cut(cell, size) for cell, size in zip(row, widths, strict=True)]
        if row is not HEADER:
            cells[SEATS] = cut_seats(row[SEATS], widths[SEATS])
        padded = [
            cell + " " * (size - columns(cell))
            for cell, size in zip(cells[:-1], widths[:-1], strict=True)
        ]
        lines.append(GAP.join([*padded, cells[-1]]))
    return "\n".join(lines)
