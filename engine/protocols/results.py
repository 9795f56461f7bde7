"""What an engine reports: its `info` lines and the move it answers, typed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Info:
    """One `info` report, from the mover's point of view."""

    depth: int | None = None
    score: int | None = None
    mate: int | None = None
    """Plies to a forced result: + a win, - a loss."""
    nodes: int | None = None
    time_ms: int | None = None
    nps: int | None = None
    pv: tuple[str, ...] = ()
    """Moves in the game's notation, the first the one the engine would play now."""
    multipv: int = 1
    """Which of the best root lines this is (`setoption name MultiPV`): 1 the principal one."""
    string: str | None = None
    """`info string` text: a remark, no search report."""

    @property
    def principal(self) -> bool:
        """A search report of the principal line (not a remark, not a second-best line)."""
        return self.string is None and self.multipv == 1 and self.depth is not None


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What a search answered."""

    move: str | None
    """None: no move (`bestmove none`: the game is over)."""
    info: Info | None
    """The last report of the principal line, if any."""
    ponder: str | None = None
