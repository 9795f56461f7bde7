"""Results of engine games added up: points, Elo with its error bar, the crosstable (pure).

One game's result is a `GameResult` (which entrant sat on each side, who won and why); the
standings and the crosstable are sums over a list of them, so a tournament read back from its
records and one played afresh give the same tables. The Elo of an engine is the difference its
score implies against the field it met, with a 95 % interval: the standard error of its per-game
points carried through the Elo curve at the score (as `ubao-engine match` has always reported it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import pstdev

Z_95 = 1.96
"""Standard errors either side of the mean for a 95 % interval."""


def elo_estimate(points: Sequence[float]) -> tuple[float | None, float | None]:
    """The Elo difference that per-game `points` (1, 1/2, 0) imply, and the half-width of its
    95 % interval (None for both when no game, or a score of 0 or 1, leaves it unbounded)."""
    if not points:
        return None, None
    score = sum(points) / len(points)
    if not 0 < score < 1:
        return None, None
    elo = 400 * math.log10(score / (1 - score))  # 0.0 at an even score, never -0.0
    slope = 400 / (math.log(10) * score * (1 - score))
    return elo, Z_95 * pstdev(points) / math.sqrt(len(points)) * slope


@dataclass(frozen=True, slots=True)
class GameResult:
    """How one scheduled game ended, as its record says."""

    number: int
    """The game's number in the schedule, from 1."""
    seats: tuple[int, int]
    """The entrants (their indices) on side 0 and side 1."""
    winner: int | None
    """The side that won, None for a draw."""
    reason: str
    """`normal` (the rules ended it), `timeout`, `engine_failure`, `ply_limit`."""
    score: tuple[int, int] | None
    """The final score by side when the rules ended the game."""
    plies: int

    def points(self, entrant: int) -> float:
        """What the game gave `entrant`: 1 a win, 1/2 a draw, 0 a loss."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.seats[self.winner] == entrant else 0.0

    def margin(self, entrant: int) -> int:
        """`entrant`'s final margin (0 when the rules did not end the game)."""
        if self.score is None:
            return 0
        side = self.seats.index(entrant)
        return self.score[side] - self.score[1 - side]


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's line of the table."""

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    elo: float | None
    elo_error: float | None

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


def standing(name: str, entrant: int, results: Sequence[GameResult]) -> Standing:
    """`entrant`'s wins, draws, losses and Elo over the games of `results` it played."""
    points = [result.points(entrant) for result in results if entrant in result.seats]
    elo, error = elo_estimate(points)
    return Standing(
        name, len(points), points.count(1.0), points.count(0.5), points.count(0.0), elo, error
    )


def standings(names: Sequence[str], results: Sequence[GameResult]) -> list[Standing]:
    """Every entrant's standing, the most points first (the order of entry breaks ties)."""
    table = [standing(name, entrant, results) for entrant, name in enumerate(names)]
    return [table[entrant] for entrant in ranked(table)]


def ranked(table: Sequence[Standing]) -> list[int]:
    """The entrants of `table` (in order of entry) by rank: the most points first, stable."""
    return sorted(range(len(table)), key=lambda entrant: -table[entrant].points)


def rating_text(elo: float | None, error: float | None) -> str:
    """`+120 ± 45`, or why there is no number."""
    if elo is None or error is None:
        return "unbounded"
    return f"{round(elo):+d} ± {round(error)}"


def crosstable(names: Sequence[str], results: Sequence[GameResult]) -> str:
    """The standings, then each entrant's points against each other one (`3.5/4`), both
    tables numbering the entrants by rank."""
    entered = [standing(name, entrant, results) for entrant, name in enumerate(names)]
    order = ranked(entered)
    table = [entered[entrant] for entrant in order]
    lines = [
        f"{'Rank':>4}  {'Engine':<{_width(names)}}  {'Games':>5}  {'Points':>6}  {'Score':>6}"
        f"  {'W':>4} {'D':>4} {'L':>4}  Elo (95 %)"
    ]
    for rank, entry in enumerate(table, 1):
        score = f"{100 * entry.points / entry.games:.1f}%" if entry.games else "-"
        lines.append(
            f"{rank:>4}  {entry.name:<{_width(names)}}  {entry.games:>5}  {entry.points:>6g}  "
            f"{score:>6}  {entry.wins:>4} {entry.draws:>4} {entry.losses:>4}  "
            f"{rating_text(entry.elo, entry.elo_error)}"
        )
    lines.append("")
    cells = [[_cell(row, column, results) for column in order] for row in order]
    width = max(7, *(len(cell) for row in cells for cell in row))
    header = "".join(f"  {index + 1:>{width}}" for index in range(len(names)))
    lines.append(f"{'':>4}  {'':<{_width(names)}}{header}")
    for rank, (entrant, row_cells) in enumerate(zip(order, cells, strict=True), 1):
        points = "".join(f"  {cell:>{width}}" for cell in row_cells)
        lines.append(f"{rank:>4}  {names[entrant]:<{_width(names)}}{points}")
    return "\n".join(lines)


def _width(names: Sequence[str]) -> int:
    return max(6, *(len(name) for name in names))


def _cell(row: int, column: int, results: Sequence[GameResult]) -> str:
    """`row`'s points against `column` out of their games, `-` on the diagonal or unplayed."""
    if row == column:
        return "-"
    games = [result for result in results if set(result.seats) == {row, column}]
    if not games:
        return "."
    return f"{sum(result.points(row) for result in games):g}/{len(games)}"
