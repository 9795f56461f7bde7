"""What the engine's tests share: the backends a test runs on where the native core is built,
and `ubao-engine` run in process."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from ubao.engine.backend import NATIVE_BUILT
from ubao.engine.bao.rules import OWNED, STOCK, TAKASIA, TO_MOVE, Position
from ubao.engine.game import Game, IllegalMoveError
from ubao.engine.tools.cli import main

needs_native = pytest.mark.skipif(not NATIVE_BUILT, reason="the native core is not built")
"""A test of the native core itself, skipped where it is not built."""

KALAH_43 = "kalah(4,3) S 3,3,3,3/3,3,3,3 0,0"
"""A small Kalah start, in the text notation."""
KALAH_43_JSON = {
    "game": "kalah(4,3)",
    "pits": [[3, 3, 3, 3], [3, 3, 3, 3]],
    "stores": [0, 0],
    "to_move": "S",
}
"""The same position in the JSON notation."""
KALAH_START = {
    "game": "kalah(6,4)",
    "pits": [[4] * 6, [4] * 6],
    "stores": [0, 0],
    "to_move": "S",
}
"""Kalah(6,4)'s start in the JSON notation."""

BACKENDS: list[Any] = ["python", pytest.param("native", marks=needs_native)]
"""`pytest.mark.parametrize` values: the Python rules, and the native ones where built."""


def fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one stderr line of a command that must end with exit status 2."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    errors = capsys.readouterr().err
    assert "Traceback" not in errors
    return errors.strip().splitlines()[-1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command in process: its exit status, standard output and error."""
    try:
        main(list(argv))
        status = 0
    except SystemExit as exit:
        status = int(exit.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """The `--json` report of a command that must succeed."""
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def refusals(game: Game[Any, Any], position: Any, moves: list[Any]) -> None:
    """Each of `moves` is refused by `format_move` with the IllegalMoveError `play` raises."""
    for move in moves:
        with pytest.raises(IllegalMoveError) as played:
            game.play(position, move)
        with pytest.raises(IllegalMoveError) as formatted:
            game.format_move(position, move)
        assert str(formatted.value) == str(played.value)


# Small variants keep the suite fast; a game registered later is tested with its defaults.
SMALL_OPTIONS: dict[str, dict[str, Any]] = {
    "kalah": {"pits": 4, "seeds": 3},
    "egyptian": {"pits": 4, "seeds": 3},
    "ethiopian": {"pits": 4, "seeds": 3},
    "othello": {"size": 6},
}


def sample_positions(game: Game[Any, Any], count: int, seed: int = 1) -> list[Any]:
    """Positions from seeded random playouts (restarting at each game's end), none over."""
    rng = random.Random(seed)
    positions: list[Any] = []
    position = game.start()
    while len(positions) < count:
        moves = game.legal_moves(position)
        if not moves:
            position = game.start()
            continue
        positions.append(position)
        position = game.play(position, rng.choice(moves))
    return positions


def swap_players(position: Position) -> Position:
    """The same position with South and North exchanged."""
    return (
        *position[16:32],
        *position[0:16],
        position[STOCK + 1],
        position[STOCK],
        position[OWNED + 1],
        position[OWNED],
        1 - position[TO_MOVE],
        *position[TAKASIA:],
    )
