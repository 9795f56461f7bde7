"""The search's trace for teaching: the tree as it is searched, windows, values, table hits
and prunes, one line per event, indented by ply."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import inf, nextafter
from typing import Any

from ubao.engine.game import Game
from ubao.engine.search.scores import format_score, mate_distance


@dataclass(frozen=True, slots=True)
class Tracer:
    """Prints the tree as it is searched, for teaching: windows, values, table hits, prunes."""

    write: Callable[[str], None]
    max_ply: int = 3
    """Nodes deeper than this are searched but not printed."""
    max_lines: int = 1000
    """Printing stops after this many lines (the search goes on)."""


class TraceOut:
    """Formats trace lines, indented by ply, until the tracer's line budget is spent."""

    def __init__(self, game: Game[Any, Any], tracer: Tracer | None) -> None:
        self.game = game
        self.tracer = tracer
        self.lines = 0

    def line(self, ply: int, text: str) -> None:
        tracer = self.tracer
        if tracer is not None and self.lines < tracer.max_lines:
            self.lines += 1
            tracer.write("  " * ply + text)
            if self.lines == tracer.max_lines:
                tracer.write(f"... trace stopped after {self.lines} lines")

    def enter(
        self,
        ply: int,
        parent: Any,
        move: Any,
        side: int,
        depth: int,
        alpha: float,
        beta: float,
        negated: bool | None,
    ) -> None:
        """A node about to be searched with the window [alpha, beta] of its parent's view."""
        if depth == 0:
            return  # a leaf is one line, printed when its value is known
        if beta == nextafter(alpha, inf):
            window = f"null window at {_num(alpha)} (a yes/no test)"
            own = f"null window at {_num(-alpha)}"
        else:
            window = f"window [{_num(alpha)}, {_num(beta)}]"
            own = f"[{_num(-beta)}, {_num(-alpha)}]"
        if negated:
            window += f", its own view {own}"
        elif negated is not None:
            window += ", kept: the same player moves again"
        text = self.game.format_move(parent, move)
        self.line(ply, f"{text}: player {side} to move, {window}")

    def research(self, ply: int, parent: Any, move: Any, value: float) -> None:
        text = self.game.format_move(parent, move)
        self.line(ply, f"{text}: null window failed high with {_num(value)}, search again")

    def leave(
        self,
        ply: int,
        parent: Any,
        move: Any,
        depth: int,
        value: float,
        view: int,
        alpha: float,
        beta: float,
    ) -> None:
        """A searched node's value; outside the window it was searched with, only a bound."""
        kind = "leaf" if depth == 0 else "value"
        if value <= alpha and depth:
            kind = "value at most"
        elif value >= beta and depth:
            kind = "value at least"
        text = self.game.format_move(parent, move)
        self.line(ply, f"{text} {kind} {_num(value)} for player {view}")

    def hit(self, ply: int, flag: int, score: float, alpha: float, beta: float) -> None:
        kind = ("exact value", "lower bound", "upper bound")[flag]
        window = f"[{_num(alpha)}, {_num(beta)}]"
        self.line(ply, f"table hit: {kind} {_num(score)} settles the window {window}")

    def prune(
        self,
        ply: int,
        parent: Any,
        rest: list[Any],
        value: float,
        bound: float,
        name: str,
    ) -> None:
        """A cut-off: the moves in `rest` are never searched."""
        relation = ">=" if name == "beta" else "<="
        skipped = " ".join(self.game.format_move(parent, move) for move in rest) or "none"
        self.line(
            ply,
            f"cut-off: {_num(value)} {relation} {name} {_num(bound)}: the player above will "
            f"not allow this line; pruned moves: {skipped}",
        )


def _num(value: float) -> str:
    """A score or window bound in trace lines (a null window's far edge reads as its near one)."""
    if value in (inf, -inf):
        return "+inf" if value > 0 else "-inf"
    if mate_distance(value) is None and abs(value - round(value)) < 1e-9:
        value = round(value)
    return format_score(value)
