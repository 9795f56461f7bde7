"""Perft: counting move sequences, the standard check of a move generator against references."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ubao.engine.backend import NativeRules
from ubao.engine.searchable import Searchable

MAX_PERFT_DEPTH = 1000
"""The deepest perft on either backend, the native core's bound too (engine/native/constants.h), far
beyond what finishes (a count grows exponentially with the depth)."""


def perft(game: Searchable[Any, Any], position: Hashable, depth: int) -> int:
    """The number of move sequences of `depth` plies from `position`.

    Every move is a ply (an extra turn or a pass too); a sequence that ends the game earlier
    counts once. A game on the native backend counts in C. ValueError for a depth outside
    0..MAX_PERFT_DEPTH, on both backends.
    """
    if not 0 <= depth <= MAX_PERFT_DEPTH:
        raise ValueError(f"the perft depth must be from 0 to {MAX_PERFT_DEPTH}, not {depth}")
    if isinstance(game, NativeRules):
        return _native(game, position, depth)
    return walk(game, position, depth)


CHUNK_DEPTH = 8
"""A native perft deeper than this counts its subtrees of this depth one by one, each in C:
the core runs without the GIL and cannot notice Ctrl-C, whose handler runs between two of
them (milliseconds apart in Othello and Kalah)."""


def _native(game: Searchable[Any, Any], position: Hashable, depth: int) -> int:
    """`perft` on native rules, the plies above `CHUNK_DEPTH` walked here, as `walk` does."""
    if depth <= CHUNK_DEPTH:
        assert isinstance(game, NativeRules)
        return game.perft(position, depth)
    children = game.children(position)
    if not children:
        return 1
    return sum(_native(game, child, depth - 1) for _, child in children)


def walk(game: Searchable[Any, Any], position: Hashable, depth: int) -> int:
    """`perft` through the `Searchable` interface alone: the reference the native count is tested
    against, and the count of games without native rules."""
    if depth == 0:
        return 1
    if depth == 1:
        return len(game.legal_moves(position)) or 1
    children = game.children(position)
    if not children:
        return 1
    return sum(walk(game, child, depth - 1) for _, child in children)
