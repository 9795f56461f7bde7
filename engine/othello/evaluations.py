"""What Othello's static evaluations count, apart from the rules: the weight of each square by
its role on a board of any size, and the weight of a legal placement. The evaluations themselves
(`standard`, `positional`, `mobility`, `discs`) are methods of `game.Othello`, over the tables
built here once per board size; docs/othello.md explains the weights."""

from __future__ import annotations

from typing import Final

# Positional weights by the role of a square, the classic 8x8 table generalised to any size: a
# corner can never be flipped; an X-square (diagonal to a corner) or C-square (beside a corner
# on the edge) tends to hand that corner to the opponent while the corner is empty; other edge
# squares are hard to flip, the A-squares (two from a corner) the most; the ring just inside the
# edge gives the opponent access to the edge; inner discs mostly give the opponent moves.
CORNER: Final = 100
C_SQUARE: Final = -20
A_SQUARE: Final = 10
EDGE: Final = 5
X_SQUARE: Final = -50
SECOND_RING: Final = -2
INNER: Final = -1

MOBILITY_WEIGHT: Final = 5
"""Points per legal placement more than the opponent: a mobility lead of one is worth about a
safe edge disc, several of them outweigh a poor square (see docs/othello.md)."""


def positional_tables(
    size: int,
) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int, int], ...]]:
    """The square weights as (weight, mask) pairs, and per corner the (corner, C-squares,
    X-square) masks whose penalty lapses once the corner is taken."""
    s = size
    masks: dict[int, int] = {}
    for square in range(s * s):
        row, column = divmod(square, s)
        ring = min(row, column, s - 1 - row, s - 1 - column)
        along = max(min(row, s - 1 - row), min(column, s - 1 - column))
        if ring == 0:
            weight = (CORNER, C_SQUARE, A_SQUARE)[along] if along < 3 else EDGE
        elif ring == 1:
            weight = X_SQUARE if along == 1 else SECOND_RING
        else:
            weight = INNER
        masks[weight] = masks.get(weight, 0) | 1 << square
    reliefs = []
    for row, column, dr, dc in (
        (0, 0, 1, 1),
        (0, s - 1, 1, -1),
        (s - 1, 0, -1, 1),
        (s - 1, s - 1, -1, -1),
    ):
        corner = 1 << (row * s + column)
        c_squares = 1 << (row * s + column + dc) | 1 << ((row + dr) * s + column)
        x_square = 1 << ((row + dr) * s + column + dc)
        reliefs.append((corner, c_squares, x_square))
    return tuple(masks.items()), tuple(reliefs)
