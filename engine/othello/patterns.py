"""The `patterns` evaluation of 8x8 Othello: tables of what each small group of squares is worth,
by game stage, the kind Logistello and Edax use, fitted by benchmarks/othello_patterns_train.py
on ubao's own self-play games labelled by its exact endgame solver.

A pattern kind is a list of squares (an edge with its two X-squares, a corner's 3x3 block, a
line, a diagonal); its instances are its images under the board's eight symmetries, and they
share one table per stage, indexed by the contents of their squares in base 3 (empty 0, Black 1,
White 2; the first square the most significant digit). The value is Black's expected final
margin in discs: the table entries of every instance, plus a weight per legal placement
more than White, plus the stage's tempo weight when Black is to move (minus it when White is: who
moves next sways the margin, most in the middle game), plus its parity weight when Black is to
move with an odd number of squares empty, or White with an even one (minus it otherwise: who
gets the last move, as the search sees it, sways the endgame), all integers in 1/SCALE of a
disc, over SCALE. Each stage's weights are what its middle is worth, and a board between two
middles takes the two stages' weights in proportion to its distance from each (`blend_of`, as
Zebra does), so that the value does not jump where one stage ends and the next begins. The
same float in Python and in the native core (engine/native/othello_patterns.c), which reads the
same instances from constants.h and the same weights, handed over once by engine/backend.py and
blended there once for every disc count.

The weights live in pattern_weights.bin (zlib-compressed little-endian int16, stage after stage,
each stage the kinds' tables in KINDS order, then the mobility, tempo and parity weights),
checked against the SHA-256 that the training wrote into pattern_weights.py. A process whose
environment names another file in `ENVIRONMENT` (a candidate the training wrote with `--out`, to
be matched against the shipped one) reads that one instead, checked against the SHA-256 the
training wrote beside it. docs/othello.md explains the fit.
"""

from __future__ import annotations

import hashlib
import os
import sys
import zlib
from array import array
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Final

from ubao.engine.othello import pattern_weights

SIZE: Final = 8
"""The board size the patterns are drawn on."""
STAGES: Final = 12
"""Game stages, by the discs on the board from the start (4) to the last evaluated (60)."""
SCALE: Final = 256
"""Weights per disc of final margin."""
FIRST_DISCS: Final = 4
LAST_DISCS: Final = SIZE * SIZE - 4
"""The most discs an evaluated position has: with 3 empties or fewer the search counts discs
(a horizon at 4 to 8 empties, which a deep search reaches from the late middle game, is
evaluated, as Zebra and Edax do: the disc count there is far from the final margin)."""
WEIGHTS_FILE: Final = "pattern_weights.bin"
ENVIRONMENT: Final = "UBAO_PATTERN_WEIGHTS"
"""The environment variable naming a weights file to read instead of the shipped one."""
DIGEST_SUFFIX: Final = ".sha256"
"""A named file's SHA-256 is in the file of its name plus this (the training writes both)."""

_EDGE = tuple((0, column) for column in range(SIZE))
KINDS: Final[tuple[tuple[str, tuple[tuple[int, int], ...]], ...]] = (
    ("edge_2x", (*_EDGE, (1, 1), (1, SIZE - 2))),
    ("corner_3x3", tuple((row, column) for row in range(3) for column in range(3))),
    ("corner_2x4", tuple((row, column) for row in range(2) for column in range(4))),
    ("line_2", tuple((1, column) for column in range(SIZE))),
    ("line_3", tuple((2, column) for column in range(SIZE))),
    ("line_4", tuple((3, column) for column in range(SIZE))),
    *(
        (f"diagonal_{SIZE - gap}", tuple((k, k + gap) for k in range(SIZE - gap)))
        for gap in range(5)
    ),
)
"""Each kind's name and its squares (row, column) in one of its places."""


_LAST = SIZE - 1
SYMMETRIES: Final[tuple[Callable[[int, int], tuple[int, int]], ...]] = (
    lambda r, c: (r, c),
    lambda r, c: (r, _LAST - c),
    lambda r, c: (_LAST - r, c),
    lambda r, c: (_LAST - r, _LAST - c),
    lambda r, c: (c, r),
    lambda r, c: (c, _LAST - r),
    lambda r, c: (_LAST - c, r),
    lambda r, c: (_LAST - c, _LAST - r),
)
"""The board's eight symmetries on (row, column)."""


def _images(squares: tuple[tuple[int, int], ...]) -> list[tuple[int, ...]]:
    """The kind's instances: its squares' indices under each symmetry, one per set of squares
    (a kind that a symmetry maps onto itself, as an edge by its mirror, gets a table that the
    training makes symmetric, so that no symmetry of the board changes the value)."""
    found: dict[frozenset[int], tuple[int, ...]] = {}
    for move in SYMMETRIES:
        image = tuple(row * SIZE + column for row, column in (move(r, c) for r, c in squares))
        found.setdefault(frozenset(image), image)
    return list(found.values())


def _layout() -> tuple[tuple[tuple[int, tuple[int, ...]], ...], int]:
    """Every instance as (its kind's table offset in a stage, its squares), and a stage's size
    (the tables, then the mobility, tempo and parity weights)."""
    instances: list[tuple[int, tuple[int, ...]]] = []
    offset = 0
    for _, squares in KINDS:
        instances.extend((offset, image) for image in _images(squares))
        offset += 3 ** len(squares)
    return tuple(instances), offset + 3


INSTANCES, STAGE_SIZE = _layout()
MOBILITY: Final = STAGE_SIZE - 3
"""The index in a stage of the weight per legal placement more than the opponent."""
TEMPO: Final = STAGE_SIZE - 2
"""The index in a stage of the weight of Black's being the one to move (White's: its negation)."""
PARITY: Final = STAGE_SIZE - 1
"""The index in a stage of the weight of Black's moving with an odd number of squares empty
(or White with an even one: then Black, with no pass, gets the last move; its negation else)."""
_MASKS: Final = tuple((offset, tuple(1 << s for s in squares)) for offset, squares in INSTANCES)


def stage_of(discs: int) -> int:
    """The stage whose discs a board with `discs` discs is among (the training reports its
    errors by it; the value blends the two stages whose middles are nearest, `blend_of`)."""
    spread = (discs - FIRST_DISCS) * STAGES // (LAST_DISCS - FIRST_DISCS + 1)
    return max(0, min(STAGES - 1, spread))


BLEND: Final = 2 * (LAST_DISCS - FIRST_DISCS + 1)
"""A board's share of the later of its two stages is in 1/BLEND (the stages' middles fall on
half discs)."""


def blend_of(discs: int) -> tuple[int, int, int]:
    """The stages whose middles are nearest a board of `discs` discs, earlier first (the same
    stage twice before the first middle and after the last), and the later one's share."""
    place = (2 * (discs - FIRST_DISCS) + 1) * STAGES - (LAST_DISCS - FIRST_DISCS + 1)
    earlier, share = divmod(place, BLEND)
    return max(0, min(STAGES - 1, earlier)), max(0, min(STAGES - 1, earlier + 1)), share


def blended(earlier: int, later: int, share: int) -> int:
    """A weight between the two stages' weights `earlier` and `later`, the later one's share
    `share`/BLEND, rounded half away from zero (so that swapping the colours, which negates
    every weight, still negates the value) the same way here and in C."""
    total = earlier * (BLEND - share) + later * share
    rounded = (abs(total) + BLEND // 2) // BLEND
    return rounded if total >= 0 else -rounded


def last_mover(discs: int, tempo: int) -> int:
    """The parity feature: 1 when Black gets the last move, as no pass would change it (Black to
    move, `tempo` 1, with an odd number of squares empty, or White with an even one), else -1."""
    return tempo if discs % 2 else -tempo


def digest(data: bytes) -> str:
    """The SHA-256 of the weights file as the training wrote it."""
    return hashlib.sha256(data).hexdigest()


@cache
def weights() -> array[int]:
    """The weights, read once and checked against the digest the training recorded: the shipped
    file's, or the one the environment names (`ENVIRONMENT`)."""
    named = os.environ.get(ENVIRONMENT)
    if named:
        name, data = named, Path(named).read_bytes()
        expected = Path(named + DIGEST_SUFFIX).read_text().strip()
    else:
        name, expected = WEIGHTS_FILE, pattern_weights.DIGEST
        data = resources.files(__package__).joinpath(WEIGHTS_FILE).read_bytes()
    if digest(data) != expected:
        raise ValueError(f"{name} is not the file the training wrote (SHA-256 differs)")
    table = array("h")
    table.frombytes(zlib.decompress(data))
    if sys.byteorder != "little":
        table.byteswap()
    if len(table) != STAGES * STAGE_SIZE:
        raise ValueError(f"{name} has {len(table)} weights, not {STAGES * STAGE_SIZE}")
    return table


def encode(table: array[int]) -> bytes:
    """The file's bytes for `table` (the training's output)."""
    ordered = array("h", table)
    if sys.byteorder != "little":
        ordered.byteswap()
    return zlib.compress(ordered.tobytes(), 9)


def indices(black: int, white: int) -> list[int]:
    """Each instance's entry in its stage (its kind's offset plus its contents in base 3)."""
    found = []
    for offset, masks in _MASKS:
        index = 0
        for mask in masks:
            index = 3 * index + (1 if black & mask else 2 if white & mask else 0)
        found.append(offset + index)
    return found


def value(black: int, white: int, black_moves: int, white_moves: int, player: int) -> float:
    """Black's expected final margin in discs with `player` (0 Black, 1 White) to move."""
    table = weights()
    discs = (black | white).bit_count()
    earlier, later, share = blend_of(discs)

    def weight(index: int) -> int:
        at = earlier * STAGE_SIZE + index, later * STAGE_SIZE + index
        return blended(table[at[0]], table[at[1]], share)

    tempo = -1 if player else 1
    total = weight(MOBILITY) * (black_moves.bit_count() - white_moves.bit_count())
    total += weight(TEMPO) * tempo + weight(PARITY) * last_mover(discs, tempo)
    return (total + sum(weight(index) for index in indices(black, white))) / SCALE
