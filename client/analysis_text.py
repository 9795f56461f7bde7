"""A game's analysis as the terminal shows it (`ubao replay`, the end-of-game screen): the class
mark beside each move, the evaluation as a bar and as a graph of the whole game, the engine's
best move and line at the ply shown, each side's figures, and where the next mistake is. Pure
text: the screens style and place it."""

from __future__ import annotations

from collections.abc import Sequence

from ubao.engine.review import GLYPHS
from ubao.protocol import ANALYSIS_FORMAT, GameAnalysis, PlyAnalysis

SERIOUS = ("?", "??")
"""The marks the mistake key jumps to: mistakes and blunders (not inaccuracies)."""
GRAPH_LEVELS = " ▁▂▃▄▅▆▇█"
"""A graph column's heights, from seat 1 far ahead (blank) to seat 0 far ahead (full)."""
SQUASH = {"seeds": 8.0, "discs": 16.0, "points": 8.0}
"""A lead, in the game's units, that fills three quarters of the bar: the graph saturates
gently beyond it (lichess squashes centipawns the same way)."""


def marks_of(analysis: GameAnalysis) -> tuple[str, ...]:
    """The glyph of each move (`?!`, `?`, `??`, or "" for a good one), as records write them."""
    return tuple(GLYPHS[ply.mark] for ply in analysis.plies)


def known(analysis: GameAnalysis) -> bool:
    """A format this client reads (a later server may send another)."""
    return analysis.format == ANALYSIS_FORMAT


def next_serious(marks: Sequence[str], shown: int, step: int = 1) -> int | None:
    """The ply to show for the next (`step` 1) or previous (-1) mistake or blunder from the
    board showing `shown` moves: the position just after it; None when there is none."""
    plies = range(shown, len(marks)) if step > 0 else range(shown - 2, -1, -1)
    for index in plies:
        if marks[index] in SERIOUS:
            return index + 1
    return None


def share(value: float, units: str) -> float:
    """How much of the bar seat 0 holds at `value` (seat 0's view): 0.5 level, 1 all of it."""
    scale = SQUASH.get(units, 8.0)
    squashed = value / (abs(value) + scale / 3)  # three quarters at `scale`
    return 0.5 + 0.5 * squashed


def eval_bar(value: float, units: str, width: int) -> str:
    """`width` cells, seat 0's share filled from the left."""
    filled = round(share(value, units) * width)
    return "█" * filled + "░" * (width - filled)


def value_text(value: float, units: str, exact: bool) -> str:
    """`+2.5 seeds`, `=` for exact (`+4 discs =`)."""
    number = f"{value:+.0f}" if exact and value == int(value) else f"{value:+.1f}"
    return f"{number} {units}" + (" =" if exact else "")


def graph(analysis: GameAnalysis, width: int) -> str:
    """The evaluation after each move, one column per move (several moves a column when the
    game is longer than `width`): seat 0 ahead rises."""
    values = [ply.after for ply in analysis.plies]
    if not values or width < 1:
        return ""
    columns = min(width, len(values))
    top = len(GRAPH_LEVELS) - 1
    out = []
    for column in range(columns):
        value = values[(column * len(values)) // columns]
        out.append(GRAPH_LEVELS[round(share(value, analysis.units) * top)])
    return "".join(out)


def graph_column(analysis: GameAnalysis, shown: int, width: int) -> int | None:
    """The graph's column of the move just played at `shown` (None at the start)."""
    count = len(analysis.plies)
    if shown < 1 or count == 0:
        return None
    columns = min(width, count)
    return min(columns - 1, ((shown - 1) * columns) // count)


def move_verdict(ply: PlyAnalysis, units: str) -> str:
    """What the engine says of a move: `12. 3?? blunder (-6.0 seeds); best 5`."""
    glyph = GLYPHS[ply.mark]
    said = f"{ply.ply + 1}. {ply.move}{glyph}"
    if ply.mark:
        said += f" {ply.mark} (-{ply.loss:.1f} {units})"
    if ply.best != ply.move:
        said += f"; best {ply.best}"
    return said


def best_line(ply: PlyAnalysis, length: int = 8) -> str:
    """The engine's line from the position before the move."""
    line = " ".join(ply.line[:length])
    return f"line {line}" + (" …" if len(ply.line) > length else "")


def side_lines(analysis: GameAnalysis, labels: Sequence[str]) -> list[str]:
    """`South 87% 2?! 1? 0??`: each side's accuracy and counts."""
    return [
        f"{label} {side.accuracy:.0f}% {side.inaccuracies}?! {side.mistakes}? {side.blunders}??"
        for label, side in zip(labels, analysis.sides, strict=True)
    ]


def sides_text(analysis: GameAnalysis, labels: Sequence[str]) -> str:
    """Both sides' figures on one line."""
    return "  ".join(side_lines(analysis, labels))


def at_ply(analysis: GameAnalysis, shown: int, labels: Sequence[str]) -> list[str]:
    """The lines under the board at `shown` moves: the evaluation (after the move just played,
    or of the start), the verdict on that move and the engine's line before it (or, at the
    start, the line of the first move); and the sides' figures."""
    plies = analysis.plies
    if not plies:
        return ["no moves to analyse"]
    units = analysis.units
    if shown == 0:
        first = plies[0]
        head = f"start {value_text(first.before, units, first.exact)}"
        return [head, f"best {first.best}; {best_line(first)}", sides_text(analysis, labels)]
    ply = plies[min(shown, len(plies)) - 1]
    head = f"{value_text(ply.after, units, ply.exact)}  {move_verdict(ply, units)}"
    return [head, best_line(ply), sides_text(analysis, labels)]
