"""The native core against its oracle (no tests here): the Python and the native game of one
variant, the option sets and sizes the parity tests cycle through, and the checks they share."""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

import pytest

from ubao.engine.backend import backend_of
from ubao.engine.game import GameError
from ubao.engine.games import make_game
from ubao.engine.searchable import Searchable

SIZES = ((6, 4), (1, 3), (3, 6), (12, 12), (4, 1), (2, 5), (5, 3), (6, 6))
"""(pits, seeds) cells the option sets cycle through: the extremes, the usual sizes, and sizes
whose sowings go round more than once."""


FLAGS = list(
    itertools.product((True, False), (True, False), ("either", "mover"), ("owner", "mover"))
)


MANCALA_OPTION_SETS = [
    (
        variant,
        {
            "pits": SIZES[i % len(SIZES)][0],
            "seeds": SIZES[i % len(SIZES)][1],
            "capture_sower": capture_sower,
            "empty_capture": empty_capture,
            "end_check": end_check,
            "remaining": remaining,
            "early_end": (i + v) % 2 == 1,
        },
    )
    for v, variant in enumerate(("kalah", "egyptian", "ethiopian"))
    for i, (capture_sower, empty_capture, end_check, remaining) in enumerate(FLAGS)
]
"""Every variant with every combination of the rule options of docs/mancala.md, 48 sets
(`early_end` on for half of each variant's, every combination with it on in some variant)."""


OTHELLO_SIZES = (4, 6, 8, 10, 12, 14, 16)


def pair(name: str, options: dict[str, Any]) -> tuple[Searchable[Any, Any], Searchable[Any, Any]]:
    """The Python reference and the native game for the same variant."""
    reference = make_game(name, options, backend="python")
    native = make_game(name, options, backend="native")
    assert backend_of(reference) == "python" and backend_of(native) == "native"
    return reference, native


def assert_same_rules(
    reference: Searchable[Any, Any], native: Searchable[Any, Any], position: Any
) -> None:
    """Every rules question about `position` has the same answer on both backends."""
    moves = reference.legal_moves(position)
    assert native.legal_moves(position) == moves, reference.format_position(position)
    assert native.children(position) == reference.children(position)
    assert native.is_over(position) == reference.is_over(position)
    assert native.outcome(position) == reference.outcome(position)
    for move in moves:
        assert native.child(position, move) == reference.child(position, move)


def assert_same_refusal(
    reference: Searchable[Any, Any], native: Searchable[Any, Any], position: Any, move: Any
) -> None:
    """An illegal move is refused by both backends with the same error and message."""
    with pytest.raises(GameError) as expected:
        reference.play(position, move)
    with pytest.raises(type(expected.value), match=f"^{re.escape(str(expected.value))}$"):
        native.play(position, move)


def random_game(
    reference: Searchable[Any, Any],
    native: Searchable[Any, Any],
    rng: random.Random,
    limit: int = 400,
) -> int:
    """Plays one random game on both backends side by side; returns its length."""
    position = reference.start()
    assert native.start() == position
    for ply in range(limit):
        assert_same_rules(reference, native, position)
        moves = reference.legal_moves(position)
        if not moves:
            return ply
        move = rng.choice(moves)
        after = reference.play(position, move)
        assert native.play(position, move) == after
        position = after
    return limit


def random_mancala_position(game: Searchable[Any, Any], rng: random.Random) -> tuple[int, ...]:
    """Any position the notation accepts: free seed counts (laps included), stores, mover."""
    m = game.options["pits"]
    most = rng.choice((1, 3, 8, 30))
    south = [rng.randint(0, most) * (rng.random() < 0.7) for _ in range(m)]
    north = [rng.randint(0, most) * (rng.random() < 0.7) for _ in range(m)]
    south[rng.randrange(m)] += 1
    stores = [rng.randint(0, 40), rng.randint(0, 40)]
    return (*south, stores[0], *north, stores[1], rng.randint(0, 1))
