"""Studying a position of a replayed game: moves of the user's own tried from there (a variation,
the game itself unchanged) and the engine's deepening lines as text. Pure: the replay screen
drives the engine (client/study_engine.py) and draws what this says."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ubao.engine.game import Game
from ubao.engine.protocols.results import Info

MULTIPV = 3
"""The engine's lines shown at once (`setoption name MultiPV`)."""


@dataclass(slots=True)
class Variation:
    """Moves tried from the position after `base` moves of the game."""

    game: Game[Any, Any]
    base: int
    start: Any
    """The game's position after `base` moves."""
    moves: list[str] = field(default_factory=list)
    positions: list[Any] = field(default_factory=list)

    @property
    def position(self) -> Any:
        return self.positions[-1] if self.positions else self.start

    def play(self, text: str) -> str:
        """Play `text` from the position reached; the move as the game writes it (GameError
        when the rules refuse it)."""
        position = self.position
        move = self.game.parse_move(position, text.strip())
        after = self.game.play(position, move)
        written = self.game.format_move(position, move)
        self.moves.append(written)
        self.positions.append(after)
        return written

    def undo(self) -> bool:
        """Take the last tried move back; False when there is none."""
        if not self.moves:
            return False
        self.moves.pop()
        self.positions.pop()
        return True

    def text(self) -> str:
        """`after 12: 3 5 1`: where it branches and what was tried."""
        return f"after move {self.base}: " + (" ".join(self.moves) or "(type a move)")


def score_text(info: Info) -> str:
    """An engine line's score from the side to move: `+3`, `mate in 5` (plies), `-mate 4`."""
    if info.mate is not None:
        return f"win in {info.mate}" if info.mate > 0 else f"loss in {-info.mate}"
    return f"{info.score or 0:+d}"


def engine_lines(lines: Mapping[int, Info], width: int, length: int = 10) -> list[str]:
    """The engine's best lines, best first: `1. d14 +3  3 6 1 2 …`, each at most `width`."""
    out = []
    for number in sorted(lines):
        info = lines[number]
        moves = " ".join(info.pv[:length]) + (" …" if len(info.pv) > length else "")
        line = f"{number}. d{info.depth or 0} {score_text(info)}  {moves}"
        out.append(line[:width])
    return out
