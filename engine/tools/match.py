"""`ubao-engine match`: two engines play a series of games; strength measured, not asserted.

The two-engine case of `ubao-engine tournament` (engine/tools/tournament.py): games come in
pairs from one opening (a few seeded random plies from the start), each engine playing each side
once, so neither colour nor opening favours one. The report gives wins, draws and losses of the
first engine, its mean final margin, and the Elo difference that its score implies with a 95 %
error bar. An engine is either settings of the built-in search or an external program speaking
the line protocol of docs/engine-protocol.md, driven through the protocol library as every
tournament entrant is; an engine that fails ends the match.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ubao.engine.game import Game
from ubao.engine.tools.entrants import EngineSpec, Entrant, external
from ubao.engine.tools.schedule import openings_needed, random_openings
from ubao.engine.tools.standings import GameResult, elo_estimate
from ubao.engine.tools.tournament import Plan, run_tournament


@dataclass
class MatchReport:
    """The first engine's results against the second."""

    engine1: str
    engine2: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    margins: list[int] = field(default_factory=list)
    """The first engine's final margin in each game."""
    openings: list[list[str]] = field(default_factory=list)

    @property
    def score(self) -> float:
        """Points per game: 1 a win, 1/2 a draw."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.5

    @property
    def mean_margin(self) -> float:
        return sum(self.margins) / len(self.margins) if self.margins else 0.0

    def elo(self) -> tuple[float | None, float | None]:
        """The Elo difference the score implies, and the half-width of its 95 % interval (None
        for both when a score of 0 or 1 makes the difference unbounded): `elo_estimate`."""
        return elo_estimate([1.0] * self.wins + [0.5] * self.draws + [0.0] * self.losses)

    def to_dict(self) -> dict[str, Any]:
        elo, error = self.elo()
        return {
            **asdict(self),
            "score": self.score,
            "mean_margin": self.mean_margin,
            "elo": elo,
            "elo_error": error,
        }

    def summary(self) -> str:
        elo, error = self.elo()
        if elo is None or error is None:
            rating = "Elo unbounded (a score of 0 or 1)"
        else:
            rating = f"Elo {round(elo):+d} ± {round(error)} (95 %)"
        return (
            f"{self.engine1} vs {self.engine2}: {self.games} games, "
            f"+{self.wins} ={self.draws} -{self.losses} (W/D/L of the first), "
            f"score {self.score:.3f}, mean margin {self.mean_margin:+.2f}, {rating}"
        )


def run_match(
    game: Game[Any, Any],
    first: EngineSpec,
    second: EngineSpec | str,
    games: int = 10,
    random_plies: int = 2,
    seed: int = 0,
    max_plies: int | None = 1000,
    progress: TextIO | None = None,
    concurrency: int = 1,
    folder: Path | None = None,
    backend: str | None = None,
    protocol: str = "ubao",
) -> MatchReport:
    """Play `games` games (pairs from one opening, each engine on each side once): `first` is
    built-in settings, `second` settings too or the command line of an external engine
    speaking `protocol`, which gets the first engine's depth and time. TournamentStopped when
    an engine fails."""
    entrants = (
        Entrant(first.describe(), first),
        external(second, first, protocol)
        if isinstance(second, str)
        else Entrant(second.describe() + _twin(first, second), second),
    )
    openings = random_openings(game, seed, random_plies, openings_needed(1, games))
    plan = Plan(game, entrants, "round-robin", 1, games, tuple(openings), max_plies)
    report = MatchReport(first.describe(), second if isinstance(second, str) else second.describe())

    def heard(result: GameResult, results: Sequence[GameResult]) -> None:
        if progress is not None:
            progress.write(
                f"\rgame {len(results)}/{games}: {report_of(report, plan, results).summary()[:100]}"
            )
            progress.flush()

    try:
        results = asyncio.run(run_tournament(plan, folder, concurrency, backend, heard))
    finally:
        if progress is not None:
            progress.write("\n")
    return report_of(report, plan, results)


def _twin(first: EngineSpec, second: EngineSpec) -> str:
    """What tells the second engine apart from a first of the same settings (a mirror match)."""
    return " (2)" if first.describe() == second.describe() else ""


def report_of(names: MatchReport, plan: Plan, results: Sequence[GameResult]) -> MatchReport:
    """The first engine's report over `results`."""
    points = [result.points(0) for result in results]
    planned = {scheduled.number: scheduled for scheduled in plan.schedule()}
    return MatchReport(
        names.engine1,
        names.engine2,
        games=len(results),
        wins=points.count(1.0),
        draws=points.count(0.5),
        losses=points.count(0.0),
        margins=[result.margin(0) for result in results],
        openings=[list(plan.opening(planned[result.number])) for result in results],
    )
