"""Mancala endgame databases: the exact value of every position with at most N seeds on the board.

As in "Solving Kalah" (Irving, Donkers & Uiterwijk 2000): the stores never act again, so what
the mover still gains from a position, minus what the opponent gains, depends only on the pits
seen from the mover's side (his row, then the opponent's). A database holds that value for every
such pit vector with at most N seeds, one signed byte each, at the vector's combinatorial rank.
It is built once by a memoised recursion over the game's own move generation (a move never adds
seeds to the board, and one that banks none moves seeds toward the mover's store, so the
recursion ends), in C when the game runs on the native core (engine/native/endgame.c: the same
recursion over the same rules, about 85 times faster), and cached on disk under
`$XDG_CACHE_HOME/ubao/` (else `~/.cache/ubao/`), keyed by the rules that change values. A cache
file that does not match its header and checksum is rebuilt, never trusted. See docs/engine.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import sys
from array import array
from collections.abc import Callable, Iterator, Sequence
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from ubao.engine.backend import backend_of
from ubao.engine.mancala.game import Mancala, Position

if TYPE_CHECKING:
    from ubao.engine._native import Mancala as MancalaCore

FORMAT = 1
"""The file format's version, in every cache file's header."""

DEFAULT_SEEDS = 12
"""The database `open_endgame` builds when not told: 125 970 positions for 4 pits (seconds to
build), 2.7 million for 6 (a few minutes in Python)."""

Values: TypeAlias = "memoryview | array[int]"
"""A database's values, one signed byte each: the native builder's (`zeroed`, also what a cache
file is read into) or the Python builder's array."""

UNKNOWN = -128
"""A value not computed yet (values lie within ± the seeds on the board, at most 127)."""


def rules(game: Mancala) -> dict[str, object]:
    """The options a database's values depend on (not `seeds`: it holds every seed count)."""
    keys = ("pits", "capture_sower", "empty_capture", "end_check", "remaining")
    return {"game": game.name, **{key: game.options[key] for key in keys}}


class Endgame:
    """One variant's database: `board_value` of every pit vector with at most `seeds` seeds."""

    def __init__(self, game: Mancala, seeds: int, values: Values) -> None:
        self.game = game
        self.seeds = seeds
        self.values = values
        width = 2 * game.pits
        self._ranks = [
            [comb(rest + parts, parts) for rest in range(seeds + 1)]
            for parts in range(width, 0, -1)
        ]
        """_ranks[i][rest] = C(rest + parts, parts), parts = the pits after pit i plus one."""

    @staticmethod
    def size(pits: int, seeds: int) -> int:
        """The number of pit vectors (2 * pits long) with at most `seeds` seeds."""
        return comb(seeds + 2 * pits, 2 * pits)

    def rank(self, pits: Sequence[int]) -> int:
        """The vector's place among all vectors with at most `seeds` seeds: the rank of the
        composition of `seeds` into the pits plus one slack part, summed pit by pit (the
        compositions that agree before pit i and hold less there count C(rest + parts, parts)
        - C(rest - c + parts, parts), by the hockey-stick identity)."""
        index = 0
        rest = self.seeds
        for ranks, count in zip(self._ranks, pits, strict=True):
            index += ranks[rest] - ranks[rest - count]
            rest -= count
        return index

    def board_value(self, pits: Sequence[int]) -> int:
        """What the mover gains from the board from here on minus what the opponent gains,
        under perfect play; `pits` from the mover's side, at most `seeds` seeds."""
        return self.values[self.rank(pits)]

    def key_value(self, key: int) -> int:
        """`board_value` of a board given by its `board_key` key (a byte per pit)."""
        return self.board_value(key.to_bytes(2 * self.game.pits))

    def value(self, position: Position) -> int:
        """`board_value` of a position (the mover's final margin minus the stores' difference
        from his side) with at most `seeds` seeds on the board."""
        m = self.game.pits
        south, north = position[:m], position[m + 1 : 2 * m + 1]
        return self.board_value(north + south if position[-1] else south + north)

    def holds(self, position: Position) -> bool:
        """Whether the position has at most `seeds` seeds on the board."""
        return self.game.board_key(position)[2] <= self.seeds


MAX_POSITIONS = 2**31
"""The largest database `build` makes (2 GiB; 6 pits: 25 seeds): a bigger one would take the
machine's memory and hours to build, and no cell this project solves needs it."""


def native_rules(game: Mancala) -> MancalaCore | None:
    """`game`'s rules in the native core when it runs there, sows one way and plays to the end
    (the native solver and database builder need them: their keys hold no stores, which the
    `early_end` rule reads), else None: the Python code runs."""
    if backend_of(game) != "native" or game.choose_direction or game.early_end:
        return None
    from ubao.engine._native import Mancala as MancalaCore

    return MancalaCore(
        pits=game.pits,
        capture_sower=game.capture_sower,
        empty_capture=game.empty_capture,
        end_mover=game.end_check == "mover",
        remaining_mover=game.remaining == "mover",
        choose_direction=False,
    )


def build(game: Mancala, seeds: int) -> Endgame:
    """Every value by a memoised recursion over the game's children, South always moving: in C
    on the native backend, else in Python."""
    if not 0 <= seeds <= -UNKNOWN - 1:
        raise ValueError(f"an endgame database holds 0 to {-UNKNOWN - 1} seeds, not {seeds}")
    if game.choose_direction:
        raise ValueError(f"{game.name}: sowing both ways repeats positions; no endgame database")
    size = Endgame.size(game.pits, seeds)
    if size > MAX_POSITIONS:
        raise ValueError(
            f"an endgame database of {seeds} seeds on {2 * game.pits} pits holds {size:,} "
            f"positions, a byte each: more than the {MAX_POSITIONS:,} built here"
        )
    core = native_rules(game)
    if core is not None:
        from ubao.engine._native import Solver as SolverCore

        built = zeroed(size)
        SolverCore.build_endgame(core, seeds, built)
        return Endgame(game, seeds, built)
    m = game.pits
    database = Endgame(game, seeds, array("b", [UNKNOWN]) * Endgame.size(m, seeds))
    values = database.values
    rank = database.rank
    children = game.children

    def solve(pits: tuple[int, ...]) -> int:
        index = rank(pits)
        value = values[index]
        if value != UNKNOWN:
            return value
        position = (*pits[:m], 0, *pits[m:], 0, 0)
        kids = children(position)
        if kids:
            value = -(1 << 30)
            for _, child in kids:
                banked = child[m] - child[2 * m + 1]
                south, north = child[:m], child[m + 1 : 2 * m + 1]
                if child[-1] == 0:  # an extra turn: South moves again
                    value = max(value, banked + solve(south + north))
                else:
                    value = max(value, banked - solve(north + south))
        else:
            outcome = game.outcome(position)
            assert outcome is not None, f"{game.name}: no legal moves but no outcome"
            value = outcome.score[0] - outcome.score[1]
        values[index] = value
        return value

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        for pits in _vectors(2 * m, seeds):
            solve(pits)
    finally:
        sys.setrecursionlimit(limit)
    return database


def _vectors(length: int, most: int) -> Iterator[tuple[int, ...]]:
    """Every vector of `length` non-negative counts with at most `most` in all."""
    if length == 0:
        yield ()
        return
    for first in range(most + 1):
        for rest in _vectors(length - 1, most - first):
            yield (first, *rest)


def cache_directory() -> Path:
    """Where databases are cached: `$XDG_CACHE_HOME/ubao`, else `~/.cache/ubao` (also when the
    variable is not an absolute path, which the XDG specification says to ignore)."""
    base = Path(os.environ.get("XDG_CACHE_HOME", ""))
    return (base if base.is_absolute() else Path.home() / ".cache") / "ubao"


def cache_path(game: Mancala, seeds: int, directory: Path | None = None) -> Path:
    """The file of `game`'s database of `seeds` seeds: its rules in its name."""
    names = "-".join(str(value).lower() for value in rules(game).values())
    return (directory or cache_directory()) / f"endgame-{names}-{seeds}.bin"


def _header(game: Mancala, seeds: int, values: Values) -> bytes:
    fields = {"format": FORMAT, **rules(game), "seeds": seeds, "size": len(values),
              "sha256": hashlib.sha256(values).hexdigest()}  # fmt: skip
    return json.dumps(fields, sort_keys=True).encode() + b"\n"


def zeroed(size: int) -> memoryview:
    """`size` signed bytes, 0, in memory of their own on huge pages where the system has them
    (Linux's transparent huge pages): the builder's and the solver's reads land anywhere in a
    database, and the 24-seed one (1.25 GB) built in 139 s on them against 179 s on 4 kB
    pages. Databases are written and read in place, never copied: a copy of that one costs
    seconds of page faults."""
    if not hasattr(mmap, "MAP_PRIVATE"):  # Windows: plain pages
        return memoryview(mmap.mmap(-1, size)).cast("b")
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        memory.madvise(mmap.MADV_HUGEPAGE)  # a hint: refused, the pages stay small
    return memoryview(memory).cast("b")


def save(database: Endgame, path: Path) -> None:
    """Write the database: a JSON header line (rules, size, checksum), then the values.
    Written to a temporary file renamed into place, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with partial.open("wb") as file:
        file.write(_header(database.game, database.seeds, database.values))
        file.write(database.values)
    partial.replace(path)


def load(game: Mancala, seeds: int, path: Path) -> Endgame | None:
    """The database in `path` if it is exactly the one asked for (header, size and checksum
    agree), else None."""
    size = Endgame.size(game.pits, seeds)
    try:
        with path.open("rb") as file:
            header = file.readline()
            if os.fstat(file.fileno()).st_size != len(header) + size:
                return None
            values = zeroed(size)
            if file.readinto(values) != size:
                return None
    except OSError:
        return None
    if header != _header(game, seeds, values):
        return None
    return Endgame(game, seeds, values)


def open_endgame(
    game: Mancala,
    seeds: int = DEFAULT_SEEDS,
    directory: Path | None = None,
    building: Callable[[Path], None] | None = None,
) -> Endgame:
    """`game`'s database of `seeds` seeds from the cache, built and cached when it is missing
    or wrong (`building(path)` hears it first: a large build takes minutes). A cache that
    cannot be written costs only the next build. A game with `early_end` has none: its end
    reads the stores, which a database's pit vectors leave out (ValueError)."""
    if game.early_end:
        raise ValueError(f"{game.describe()}: no endgame database with option early_end")
    path = cache_path(game, seeds, directory)
    database = load(game, seeds, path)
    if database is None:
        if building is not None:
            building(path)
        database = build(game, seeds)
        with contextlib.suppress(OSError):
            save(database, path)
    return database
