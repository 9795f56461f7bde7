"""The registry of games: every name the command line and the wire accept, and what the server
and the clients know of each game besides its rules. Adding a game is one entry here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ubao.engine.backend import rules_for
from ubao.engine.bao.game import Bao
from ubao.engine.game import OptionsError, listed, shown
from ubao.engine.mancala.game import Egyptian, Ethiopian, Kalah
from ubao.engine.othello.game import Othello
from ubao.engine.searchable import Searchable

BoardFamily = Literal["mancala", "bao", "othello"]
"""The kinds of board a client draws: two rows with stores, Bao's four rows, a square grid."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """One registered game: its rules, and how players see and name it."""

    rules: type[Searchable[Any, Any]]
    sides: tuple[str, str]
    """The names of player 0 and player 1 (the seats, the record's tags)."""
    board: BoardFamily
    summary: str
    """The rules in two sentences, for the client's help."""


MANCALA_SIDES = ("South", "North")

GAMES: dict[str, GameInfo] = {
    "kalah": GameInfo(
        Kalah,
        MANCALA_SIDES,
        "mancala",
        "Sow the seeds of one of your pits counterclockwise, into your own store but not the "
        "opponent's; ending in your store gives another turn, ending in an empty pit of yours "
        "captures the opposite pit. When one side is empty the rest goes to its owner; most "
        "seeds wins.",
    ),
    "egyptian": GameInfo(
        Egyptian,
        MANCALA_SIDES,
        "mancala",
        "Kalah's sowing and extra turn, with a milder capture: a last seed in an empty pit "
        "of yours takes the opposite pit's seeds only when there are some, and the sowing "
        "seed stays. Most seeds wins.",
    ),
    "ethiopian": GameInfo(
        Ethiopian,
        MANCALA_SIDES,
        "mancala",
        "Egyptian rules, but each move is sown either way (L or R) from a pit of yours "
        "holding two seeds or more; with none, the game ends. Most seeds wins.",
    ),
    "bao": GameInfo(
        Bao,
        MANCALA_SIDES,
        "bao",
        "Bao la Kiswahili on four rows of eight: in the namua stage seeds enter from the "
        "store, then mtaji moves sow from the board; captures from the opponent's front row "
        "are sown again from a kichwa, relay sowing goes on until a sowing ends in an empty "
        "hole. A player who cannot move or has no seeds in the front row loses.",
    ),
    "othello": GameInfo(
        Othello,
        ("Black", "White"),
        "othello",
        "Place a disc so that it brackets a line of opponent discs, which are flipped; with no "
        "such move you pass. When neither side can move, most discs wins.",
    ),
}


def make_game(
    name: str, options: Mapping[str, Any] | None = None, backend: str | None = None
) -> Searchable[Any, Any]:
    """The game `name` with `options` validated; OptionsError says what is wrong.

    `backend` ("auto", "python", "native"; None: the UBAO_BACKEND environment variable, else
    "auto") chooses whether the rules run in Python or in the native core (engine/backend.py).
    """
    info = GAMES.get(name) if isinstance(name, str) else None
    if info is None:
        raise OptionsError(f"unknown game {shown(name)}; known games: {', '.join(GAMES)}")
    if options is not None and not isinstance(options, Mapping):
        raise OptionsError(
            f"the options of {name} are a mapping of option names to values (a JSON object), "
            f"not {shown(options)}"
        )
    names = [key for key in options or {} if not isinstance(key, str)]
    if names:
        raise OptionsError(f"option names are strings, not {listed(names)}")
    return rules_for(info.rules, backend)(options or {})


def game_for_position(
    name: str, options: Mapping[str, Any], text: str, backend: str | None = None
) -> tuple[Searchable[Any, Any], Any]:
    """The game a position in notation belongs to, and the position.

    The position's own size fills in options not given (`kalah(4,3) …`, a 4x4 Othello board),
    so a position alone is enough; options given explicitly win and must agree with it.
    """
    implied = GAMES[name].rules.options_in_position(text) if name in GAMES else {}
    merged = {**implied, **options} if isinstance(options, Mapping) else options
    game = make_game(name, merged, backend)  # which says what is wrong with bad options
    return game, game.parse_position(text)
