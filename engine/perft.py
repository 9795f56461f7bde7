"""Perft: counting move sequences, the standard check of a move generator against references."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ubao.engine.game import Game


def perft(game: Game[Any, Any], position: Hashable, depth: int) -> int:
    """The number of move sequences of `depth` plies from `position`.

    Every move is a ply (an extra turn or a pass too); a sequence that ends the game earlier
    counts once.
    """
    if depth == 0:
        return 1
    if depth == 1:
        return len(game.legal_moves(position)) or 1
    children = game.children(position)
    if not children:
        return 1
    return sum(perft(game, child, depth - 1) for _, child in children)
