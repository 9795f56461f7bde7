"""The stdio engine's `d` (Stockfish's display command): the current position in text for
people, its notation, the side to move and the legal moves."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ubao.engine.game import Game
from ubao.engine.games import GAMES


def display(game: Game[Any, Any], position: Any) -> list[str]:
    """The lines of `d` for `position`."""
    info = GAMES[game.name]
    board = {"mancala": mancala_board, "bao": bao_board, "othello": othello_board}[info.board]
    lines = [*board(game, position, info.sides), "", f"Position: {game.format_position(position)}"]
    outcome = game.outcome(position)
    if outcome is not None:
        winner = "a draw" if outcome.winner is None else f"{info.sides[outcome.winner]} wins"
        score = "-".join(str(points) for points in outcome.score)
        return [*lines, f"Game over: {winner}, {score}"]
    player = game.to_move(position)
    moves = [game.format_move(position, move) for move in game.legal_moves(position)]
    return [
        *lines,
        f"Side to move: {info.sides[player]} (player {player})",
        f"Legal moves: {' '.join(moves)}",
    ]


def row(values: Iterable[Any], width: int) -> str:
    return " ".join(str(value).rjust(width) for value in values)


def mancala_board(game: Game[Any, Any], position: Any, sides: tuple[str, str]) -> list[str]:
    """Two rows and the stores: North's pits numbered from its right (counterclockwise, as
    the notation counts), its store on the left, South's on the right."""
    data = game.position_json(position)
    south, north = data["pits"]
    stores = data["stores"]
    width = max(len(str(value)) for value in [*south, *north, *stores, len(south)])
    numbers = range(1, len(south) + 1)
    margin = " " * (width + 3)
    return [
        f"{margin}{row(reversed(numbers), width)}   {sides[1]}",
        f"[{str(stores[1]).rjust(width)}] {row(north[::-1], width)}",
        f"{margin}{row(south, width)} [{str(stores[0]).rjust(width)}]",
        f"{margin}{row(numbers, width)}   {sides[0]}",
    ]


def bao_board(game: Game[Any, Any], position: Any, sides: tuple[str, str]) -> list[str]:
    """The four rows as a screen shows them, each named by its holes (North's in lower case),
    the stocks above and below."""
    data = game.position_json(position)
    rows = data["board"]
    width = max(len(str(value)) for line in rows for value in line)
    names = ("b1 … b8", "a8 … a1", "A1 … A8", "B8 … B1")
    return [
        f"{sides[1]}, stock {data['stock'][1]}",
        *(f"  {row(line, width)}   {name}" for line, name in zip(rows, names, strict=True)),
        f"{sides[0]}, stock {data['stock'][0]}",
    ]


def othello_board(game: Game[Any, Any], position: Any, sides: tuple[str, str]) -> list[str]:
    """The grid, a1 at the top left, X for Black's discs and O for White's."""
    cells = str(game.position_json(position)).split()[0]
    size = int(len(cells) ** 0.5)
    width = len(str(size))
    columns = " ".join("abcdefghijklmnopqrstuvwxyz"[:size])
    lines = [f"{' ' * width} {columns}"]
    for number in range(size):
        squares = " ".join(cells[number * size : (number + 1) * size])
        lines.append(f"{str(number + 1).rjust(width)} {squares}")
    return [*lines, f"X {sides[0]}, O {sides[1]}"]
