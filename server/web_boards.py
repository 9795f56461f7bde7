"""The rules as the browser page needs them: positions as data, and each move's steps.

The page (docs/browser.md) gets positions and moves in notation over the WebSocket, as every
client does; to draw and animate them it asks the server, which holds the rules, for their
JSON form (`Game.position_json`) and each move's path (`Game.sowing_path`), the same step data
the terminal animates. So no rule is written twice, in Python and in JavaScript.

Pure: a question in (game, options, a starting position, moves), an answer out as plain data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ubao.engine.game import Game
from ubao.engine.games import GAMES, game_for_position, make_game

MAX_MOVES = 1200
"""The most moves one question may replay (a game's length is bounded below this)."""


class BoardQueryError(ValueError):
    """A question the rules cannot answer: an unknown game, bad options, an illegal move."""


@lru_cache(maxsize=64)
def _rules(name: str, options_key: tuple[tuple[str, Any], ...]) -> Game[Any, Any]:
    return make_game(name, dict(options_key))


def _board(game: Game[Any, Any], position: Any) -> dict[str, Any]:
    """A position as the page draws it: the JSON form, who moves, whether it is over."""
    outcome = game.outcome(position)
    return {
        "position": game.format_position(position),
        "json": game.position_json(position),
        "to_move": None if outcome is not None else game.to_move(position),
        "legal": [] if outcome is not None else game_moves(game, position),
        "outcome": None if outcome is None else outcome.to_dict(),
    }


def game_moves(game: Game[Any, Any], position: Any) -> list[str]:
    return [game.format_move(position, move) for move in game.legal_moves(position)]


def replay(
    name: str, options: Mapping[str, Any], start: str | None, moves: Sequence[str]
) -> dict[str, Any]:
    """The board at `start` (the game's first position when None) and after each of `moves`,
    with each move's steps: `{"start": board, "moves": [{"move", "mover", "steps", "board"}]}`."""
    if name not in GAMES:
        raise BoardQueryError(f"no game {name!r}")
    if len(moves) > MAX_MOVES:
        raise BoardQueryError(f"at most {MAX_MOVES} moves")
    try:
        if start is None:
            game = _rules(name, tuple(sorted(options.items())))
            position = game.start()
        else:
            game, position = game_for_position(name, options, start)
        answer: dict[str, Any] = {"start": _board(game, position), "moves": []}
        for text in moves:
            mover = game.to_move(position)
            move = game.parse_move(position, text)
            steps = [[step.hole, step.action] for step in game.sowing_path(position, move)]
            position = game.play(position, move)
            answer["moves"].append(
                {
                    "move": text,
                    "mover": mover,
                    "steps": steps,
                    "board": _board(game, position),
                }
            )
    except (ValueError, KeyError, TypeError) as error:
        raise BoardQueryError(str(error)) from error
    return answer
