"""The registry of games: every name the command line and the wire accept."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ubao.engine.bao import Bao
from ubao.engine.game import Game, OptionsError
from ubao.engine.mancala import Egyptian, Ethiopian, Kalah
from ubao.engine.othello import Othello

GAMES: dict[str, type[Game[Any, Any]]] = {
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


def game_for_position(
    name: str, options: Mapping[str, Any], text: str
) -> tuple[Game[Any, Any], Any]:
    """The game a position in notation belongs to, and the position.

    The position's own size fills in options not given (`kalah(4,3) …`, a 4x4 Othello board),
    so a position alone is enough; options given explicitly win and must agree with it.
    """
    implied = GAMES[name].options_in_position(text) if name in GAMES else {}
    game = make_game(name, {**implied, **options})
    return game, game.parse_position(text)
