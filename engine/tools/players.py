"""Players for bench games and tests: the search, and two baselines to measure it against.

`random` (seeded, so games replay exactly) and `first` (always the first legal move, the "bad
player" of the Kalah study) are the weak opponents; `play_game` runs a complete game between
any two players and collects what the searches did.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ubao.engine.game import Outcome
from ubao.engine.search import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    DEFAULT_HASH_MB,
    Searcher,
    SearchStats,
)
from ubao.engine.searchable import Searchable

BASELINES = ("random", "first")
"""Players that do not search."""
PLAYERS = ALGORITHMS + BASELINES
"""Every player name: a search algorithm or a baseline."""


class Player(Protocol):
    """Something that picks a move; it may keep state between the moves of one game."""

    name: str

    def choose(self, position: Any) -> tuple[Any, SearchStats | None]:
        """A legal move of `position` (not over), and the search's statistics if it searched."""
        ...


class SearchPlayer:
    """The engine at a fixed depth and/or time, keeping its tables between its moves."""

    def __init__(
        self,
        game: Searchable[Any, Any],
        algorithm: str = DEFAULT_ALGORITHM,
        evaluation: str | None = None,
        depth: int | None = None,
        time_ms: float | None = None,
        measure_memory: bool = False,
        hash_mb: float = DEFAULT_HASH_MB,
        exact: bool = False,
        threads: int = 1,
    ) -> None:
        if depth is None and time_ms is None:
            raise ValueError("a search player needs a depth or a time")
        self.searcher = Searcher(game, algorithm, evaluation, hash_mb, exact, threads)
        self.depth = depth
        self.time_ms = time_ms
        self.measure_memory = measure_memory
        limit = f"d{depth}" if depth is not None else f"{time_ms:g}ms"
        self.name = f"{algorithm}:{self.searcher.evaluation_name}:{limit}" + (
            ":exact" if exact else ""
        )
        if self.searcher.threads > 1:
            self.name += f":t{self.searcher.threads}"

    def choose(self, position: Any) -> tuple[Any, SearchStats | None]:
        result = self.searcher.search(
            position, self.depth, self.time_ms, measure_memory=self.measure_memory
        )
        return result.move, result.stats


class RandomPlayer:
    """A uniformly random legal move from a seeded generator: reproducible noise."""

    def __init__(self, game: Searchable[Any, Any], seed: int = 0) -> None:
        self.game = game
        self.rng = random.Random(seed)
        self.name = f"random:{seed}"

    def choose(self, position: Any) -> tuple[Any, SearchStats | None]:
        return self.rng.choice(self.game.legal_moves(position)), None


class FirstPlayer:
    """The first legal move in the game's order: the weakest sensible opponent."""

    name = "first"

    def __init__(self, game: Searchable[Any, Any]) -> None:
        self.game = game

    def choose(self, position: Any) -> tuple[Any, SearchStats | None]:
        return self.game.legal_moves(position)[0], None


def make_player(
    game: Searchable[Any, Any],
    name: str,
    evaluation: str | None = None,
    depth: int | None = None,
    time_ms: float | None = None,
    seed: int = 0,
    measure_memory: bool = False,
    hash_mb: float = DEFAULT_HASH_MB,
    exact: bool = False,
    threads: int = 1,
) -> Player:
    """The player `name`: a search algorithm (needs a depth or time) or a baseline."""
    if name == "random":
        return RandomPlayer(game, seed)
    if name == "first":
        return FirstPlayer(game)
    if name not in ALGORITHMS:
        raise ValueError(f"unknown player {name!r}; known: {', '.join(PLAYERS)}")
    return SearchPlayer(
        game, name, evaluation, depth, time_ms, measure_memory, hash_mb, exact, threads
    )


@dataclass
class SideTotals:
    """What one side's searches did over a whole game."""

    moves: int = 0
    generated: int = 0
    expanded: int = 0
    evaluated: int = 0
    seconds: float = 0.0
    table_entries: int = 0
    """The most entries its table held after a move."""
    peak_memory: int | None = None
    """The highest peak of its searches, when measured."""

    def add(self, stats: SearchStats | None) -> None:
        self.moves += 1
        if stats is None:
            return
        self.generated += stats.generated
        self.expanded += stats.expanded
        self.evaluated += stats.evaluated
        self.seconds += stats.seconds
        self.table_entries = max(self.table_entries, stats.table_entries)
        if stats.peak_memory is not None:
            self.peak_memory = max(self.peak_memory or 0, stats.peak_memory)


@dataclass
class GameRecord:
    """A finished (or ply-limited) game."""

    moves: list[Any]
    final: Any
    outcome: Outcome | None
    """None when the ply limit stopped the game."""
    sides: tuple[SideTotals, SideTotals] = field(
        default_factory=lambda: (SideTotals(), SideTotals())
    )

    @property
    def winner(self) -> int | None:
        return self.outcome.winner if self.outcome is not None else None


def play_game(
    game: Searchable[Any, Any],
    players: Sequence[Player],
    position: Any = None,
    max_plies: int | None = None,
) -> GameRecord:
    """Play `players[0]` (player 0) against `players[1]` to the end or `max_plies`."""
    if position is None:
        position = game.start()
    record = GameRecord([], position, None)
    while max_plies is None or len(record.moves) < max_plies:
        if game.outcome(position) is not None:
            break
        side = game.to_move(position)
        move, stats = players[side].choose(position)
        record.sides[side].add(stats)
        record.moves.append(move)
        position = game.play(position, move)
    record.final = position
    record.outcome = game.outcome(position)
    return record
