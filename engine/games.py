"""The registry of games: every name the command line and the wire accept."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.bao import Bao
from engine.game import Game, OptionsError
from engine.mancala import Egyptian, Ethiopian, Kalah
from engine.othello import Othello

GAMES: dict[str, Callable[[Mapping[str, Any]], Game[Any, Any]]] = {
    "kalah": Kalah,
    "egyptian": Egyptian,
    "ethiopian": Ethiopian,
    "bao": Bao,
    "othello": Othello,
}


def make_game(name: str, options: Mapping[str, Any] | None = None) -> Game[Any, Any]:
    """The game `name` with `options` validated; OptionsError says what is wrong."""
    try:
        factory = GAMES[name]
    except KeyError:
        raise OptionsError(f"unknown game {name!r}; known games: {', '.join(GAMES)}") from None
    return factory(options or {})
