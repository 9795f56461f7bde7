"""One search's limits, the words of a `go` (python-chess's `Limit`), as data for every side."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """What bounds one search. A driver builds it and a dialect formats it; the stdio engine
    parses a `go` line into it and searches within it (`timing.time_budget` turns the clocks
    into search time, the same for every caller)."""

    depth: int | None = None
    time_ms: int | None = None
    """A fixed time for this move (`movetime`)."""
    nodes: int | None = None
    mate: int | None = None
    """Search for a forced win within this many moves: 2N-1 plies."""
    clocks: tuple[int | None, int | None] = (None, None)
    """Milliseconds left for player 0 (`wtime`) and player 1 (`btime`)."""
    increments: tuple[int, int] = (0, 0)
    moves_to_go: int | None = None
    """Moves to play before the clocks get more time (`movestogo`, the budget's divisor)."""
    infinite: bool = False
    """Answer only after `stop` (also a `go` with no limit, as in UCI)."""
    ponder: bool = False
    """Think until `ponderhit` (then search with these limits) or `stop`."""
    searchmoves: tuple[str, ...] = ()
    """The only root moves to search, in notation (none: every move)."""

    @property
    def timed(self) -> bool:
        """Whether the search has a clock or a fixed time, so ends by itself in time."""
        return self.time_ms is not None or self.clocks != (None, None)
