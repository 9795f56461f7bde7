"""The `trained` evaluation's features: what a position shows about the final disc margin, each
counted as Black's minus White's, weighted by game stage with the weights that
benchmarks/othello_train.py fitted on self-play games labelled by the exact endgame solver.

The weights are integers in 1/SCALE of a disc, so the value (the weighted sum over SCALE, in
discs, as the exact disc count in the last empties) is the same float in Python and in the
native core (engine/native/othello_search_impl.h), which reads the same table from constants.h.
docs/othello.md explains the features and the training.
"""

from __future__ import annotations

import hashlib
from typing import Final, NamedTuple

from ubao.engine.othello import evaluations
from ubao.engine.othello.trained_weights import WEIGHTS

GROUPS: Final = ("corner", "a_square", "edge", "inner", "second_ring", "c_square", "x_square")
"""The squares by role, as the square weights group them (evaluations.py), the best first."""
FEATURES: Final = (
    *GROUPS,
    "x_beside_empty",
    "c_beside_empty",
    "mobility",
    "potential_mobility",
    "frontier",
    "anchored",
)
"""Discs on each group of squares; X- and C-squares held beside an empty corner; legal
placements; empty squares beside an opponent disc; own discs beside an empty square; edge discs
joined to an own corner by own discs (never flipped again). None depends on the side to move or
on the colour, so every value is negated by swapping the colours."""
STAGES: Final = 6
"""Game stages, by the share of the board occupied."""
SCALE: Final = 256
"""Weights per disc of final margin."""


class Tables(NamedTuple):
    """A board size's masks for the features."""

    groups: tuple[int, ...]
    """The mask of each of GROUPS (empty where a small board has no such square)."""
    reliefs: tuple[tuple[int, int, int], ...]
    """Per corner: its bit, its C-squares, its X-square."""
    walks: tuple[tuple[int, tuple[int, ...]], ...]
    """Per corner and edge from it: the corner's bit and the edge's other squares' bits, in
    order away from the corner."""
    directions: tuple[tuple[int, int], ...]
    """The game's eight (index step, landing mask) pairs."""
    squares: int


def tables(
    size: int,
    weights: tuple[tuple[int, int], ...],
    reliefs: tuple[tuple[int, int, int], ...],
    directions: tuple[tuple[int, int], ...],
) -> Tables:
    """The masks of `size`, from the square weights' groups and corner reliefs and the game's
    directions."""
    s = size
    by_weight = dict(weights)
    groups = tuple(by_weight.get(getattr(evaluations, name.upper()), 0) for name in GROUPS)
    walks = []
    for row, column in ((0, 0), (0, s - 1), (s - 1, 0), (s - 1, s - 1)):
        dr = 1 if row == 0 else -1
        dc = 1 if column == 0 else -1
        for step_row, step_column in ((0, dc), (dr, 0)):
            bits = tuple(
                1 << ((row + k * step_row) * s + column + k * step_column) for k in range(1, s)
            )
            walks.append((1 << (row * s + column), bits))
    return Tables(groups, reliefs, tuple(walks), directions, s * s)


def stage_of(occupied: int, squares: int) -> int:
    """The stage of a board with `occupied` discs of `squares`."""
    return min(STAGES - 1, occupied * STAGES // squares)


def features(
    t: Tables, black: int, white: int, black_moves: int, white_moves: int
) -> tuple[int, ...]:
    """The features of FEATURES, in order, Black's count minus White's."""
    occupied = black | white
    empty = ((1 << t.squares) - 1) & ~occupied
    x_squares = c_squares = 0
    for corner, c_pair, x_square in t.reliefs:
        if not occupied & corner:
            x_squares += _lead(black, white, x_square)
            c_squares += _lead(black, white, c_pair)
    near_black = near_white = near_empty = 0
    for step, land in t.directions:
        near_black |= _shift(black, step) & land
        near_white |= _shift(white, step) & land
        near_empty |= _shift(empty, step) & land
    anchored = 0
    for corner, bits in t.walks:
        own = black if black & corner else white if white & corner else 0
        for bit in bits:
            if not own & bit:
                break
            anchored |= bit
    return (
        *(_lead(black, white, mask) for mask in t.groups),
        x_squares,
        c_squares,
        black_moves.bit_count() - white_moves.bit_count(),
        (empty & near_white).bit_count() - (empty & near_black).bit_count(),
        _lead(black, white, near_empty),
        _lead(black, white, anchored),
    )


def value(t: Tables, black: int, white: int, black_moves: int, white_moves: int) -> float:
    """Black's expected final margin in discs: the stage's weights times the features."""
    weights = WEIGHTS[stage_of((black | white).bit_count(), t.squares)]
    counted = features(t, black, white, black_moves, white_moves)
    return sum(w * f for w, f in zip(weights, counted, strict=True)) / SCALE


def digest(weights: tuple[tuple[int, ...], ...]) -> str:
    """The SHA-256 of the weights' text: what the training wrote, to tell a hand edit."""
    return hashlib.sha256(repr(weights).encode()).hexdigest()


def _lead(black: int, white: int, mask: int) -> int:
    return (black & mask).bit_count() - (white & mask).bit_count()


def _shift(bits: int, step: int) -> int:
    return bits << step if step > 0 else bits >> -step
