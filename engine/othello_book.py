"""The 8x8 Othello opening book: positions of the first plies with every move's searched value.

Built from ubao's own self-play by `benchmarks/othello_book.py` (docs/othello.md#the-opening-book)
and shipped as `othello_book.txt` beside this module, whose SHA-256 `BOOK_SHA256` checks. Each
position is stored once for its eight symmetries (the rotations and reflections of the board),
in the orientation whose text sorts first. Bots play from it (`choose`) while the position is in
it: a move within `BOOK_MARGIN` discs of the best, drawn by the caller's random source, so that
games from the start do not all repeat; the analysis and the exact mode never read it.

The file's lines: `#` comments (how it was built), then one position a line, the board (64 of
`X`, `O`, `-` from a1 along each row), the side to move, and each legal move with its value in
discs from the mover's point of view, `d3:+0.63`.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

SIZE = 8
BOOK_FILE = "othello_book.txt"
BOOK_SHA256 = "e344d3e017fcb798f621efcfb591eb251eb438f79f2d86df61123cdd128b520f"
"""The shipped book's hash, written by benchmarks/othello_book.py with the file."""
BOOK_MARGIN = 1.0
"""How far below the best move's value (discs) a book move may be and still be played."""

Square = tuple[int, int]
"""(row, column) from a1, both from 0."""
SYMMETRIES: tuple[Callable[[int, int], Square], ...] = (
    lambda r, c: (r, c),
    lambda r, c: (c, SIZE - 1 - r),
    lambda r, c: (SIZE - 1 - r, SIZE - 1 - c),
    lambda r, c: (SIZE - 1 - c, r),
    lambda r, c: (r, SIZE - 1 - c),
    lambda r, c: (SIZE - 1 - r, c),
    lambda r, c: (c, r),
    lambda r, c: (SIZE - 1 - c, SIZE - 1 - r),
)
"""The board's eight symmetries: the four rotations, and the four reflections."""


class BookError(ValueError):
    """A book file that is not one, or not the one this module ships with."""


@dataclass(frozen=True, slots=True)
class BookMove:
    move: str
    """The square, `d3`."""
    value: float
    """Discs, from the mover's point of view, as the search that built the book found."""


def _square(move: str) -> Square:
    return int(move[1:]) - 1, ord(move[0]) - ord("a")


def _name(square: Square) -> str:
    return f"{chr(ord('a') + square[1])}{square[0] + 1}"


def transform_cells(cells: str, symmetry: int) -> str:
    """The board's 64 cells under one symmetry: the cell at (r, c) moves to its image."""
    moved = [""] * (SIZE * SIZE)
    for index, cell in enumerate(cells):
        row, column = SYMMETRIES[symmetry](*divmod(index, SIZE))
        moved[row * SIZE + column] = cell
    return "".join(moved)


def transform_move(move: str, symmetry: int) -> str:
    return _name(SYMMETRIES[symmetry](*_square(move)))


def inverse(symmetry: int) -> int:
    """The symmetry that undoes `symmetry`."""
    probes = ((0, 1), (2, 5))  # two squares no symmetry but the identity keeps both

    def undoes(candidate: int) -> bool:
        return all(
            SYMMETRIES[candidate](*SYMMETRIES[symmetry](*probe)) == probe for probe in probes
        )

    return next(candidate for candidate in range(len(SYMMETRIES)) if undoes(candidate))


def canonical(text: str) -> tuple[str, int]:
    """A position's text (`cells side`) in the orientation whose text sorts first, and the
    symmetry that takes the position there."""
    cells, side = text.split()
    images = [(transform_cells(cells, s), s) for s in range(len(SYMMETRIES))]
    best, symmetry = min(images)
    return f"{best} {side}", symmetry


def parse_book(text: str) -> dict[str, tuple[BookMove, ...]]:
    """A book file's positions (canonical texts) and their moves; BookError for a bad line."""
    entries: dict[str, tuple[BookMove, ...]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        words = line.split()
        try:
            cells, side, *moves = words
            if len(cells) != SIZE * SIZE or side not in ("X", "O") or not moves:
                raise ValueError
            entries[f"{cells} {side}"] = tuple(
                BookMove(move, float(value)) for move, value in (item.split(":") for item in moves)
            )
        except ValueError:
            raise BookError(f"line {number} is no book position: {line!r}") from None
    return entries


def format_book(entries: Mapping[str, Iterable[BookMove]], comments: Iterable[str]) -> str:
    """A book file: the comment lines, then the positions in sorted order."""
    lines = [f"# {comment}" for comment in comments]
    for position in sorted(entries):
        moves = " ".join(f"{m.move}:{m.value:+.2f}" for m in entries[position])
        lines.append(f"{position} {moves}")
    return "\n".join(lines) + "\n"


class OpeningBook:
    """Positions by their canonical text; looks positions up in any orientation."""

    def __init__(self, entries: Mapping[str, tuple[BookMove, ...]]) -> None:
        self.entries = dict(entries)

    def __len__(self) -> int:
        return len(self.entries)

    def moves(self, text: str) -> tuple[BookMove, ...] | None:
        """The book's moves of a position (`cells side`, as Othello's `format_position` writes
        it) on its own board, best first; None when the book has not got it."""
        key, symmetry = canonical(text)
        stored = self.entries.get(key)
        if stored is None:
            return None
        back = inverse(symmetry)
        found = (BookMove(transform_move(m.move, back), m.value) for m in stored)
        return tuple(sorted(found, key=lambda m: (-m.value, m.move)))

    def choose(
        self, text: str, chooser: random.Random, margin: float = BOOK_MARGIN
    ) -> BookMove | None:
        """A move to play from the book: one of those within `margin` discs of the best, drawn
        by `chooser`; None when the position is not in the book."""
        moves = self.moves(text)
        if not moves:
            return None
        near = [move for move in moves if move.value >= moves[0].value - margin]
        return chooser.choice(near)


@cache
def shipped_book() -> OpeningBook:
    """The book that ships with the package, checked against its hash (BookError if it has
    changed since `benchmarks/othello_book.py` wrote both)."""
    data = resources.files("ubao.engine").joinpath(BOOK_FILE).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != BOOK_SHA256:
        raise BookError(f"{BOOK_FILE} has SHA-256 {digest}, not the shipped {BOOK_SHA256}")
    return OpeningBook(parse_book(data.decode("utf-8")))
