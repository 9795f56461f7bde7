"""`ubao-engine review`'s words: a game review as people read it, in the spirit of lichess's
summary (each player's accuracy and marks, then every move with its mark beside it)."""

from __future__ import annotations

from collections.abc import Mapping

from ubao.engine.games import GAMES
from ubao.engine.review import GLYPHS, Mark, PlayerSummary, PlyReview, Review

MARK_NAMES: tuple[tuple[Mark, str, str], ...] = (
    ("inaccuracy", "inaccuracy", "inaccuracies"),
    ("mistake", "mistake", "mistakes"),
    ("blunder", "blunder", "blunders"),
)


def value_text(value: float) -> str:
    """A value with its sign, whole where it is whole."""
    return f"{value:+.0f}" if value == int(value) else f"{value:+.2f}"


def player_line(side: str, name: str, summary: PlayerSummary, units: str) -> str:
    counts = ", ".join(
        f"{summary.counts[mark]} {one if summary.counts[mark] == 1 else many}"
        for mark, one, many in MARK_NAMES
    )
    who = f"{side} ({name})" if name else side
    return (
        f"{who}: accuracy {summary.accuracy:.1f} %, {counts}, "
        f"average loss {summary.average_loss:.2f} {units}"
    )


def ply_line(ply: PlyReview, sides: tuple[str, str], units: str) -> str:
    """One move: number, side, move and glyph, the values before and after, the loss, and the
    best line when the move was not best."""
    number = f"{ply.ply // 2 + 1}." if ply.ply % 2 == 0 else ""
    move = ply.move + GLYPHS[ply.mark]
    values = f"{value_text(ply.before):>5} -> {value_text(ply.after):>5}"
    how = "exact" if ply.exact else f"depth {ply.depth}"
    text = f"{number:>4} {sides[ply.mover]:<6} {move:<8} {values}  {how:<8}"
    if ply.loss > 0:
        text += f"  loses {ply.loss:g} {units}; best {ply.best}: {' '.join(ply.line[:8])}"
    return text.rstrip()


def review_text(review: Review, tags: Mapping[str, str]) -> str:
    """The whole review: a header, each player's summary, every ply."""
    sides = GAMES[review.game].sides
    budget = review.budget
    header = (
        f"{review.game} review: {budget['time_ms']} ms a position, exact within "
        f"{budget['exact_within']} {'empties' if review.units == 'discs' else 'plies'}"
        + (f", {budget['nodes']} nodes" if "nodes" in budget else "")
        + (f", the solver {budget['solve_ms']} ms" if budget.get("solve_ms") else "")
        + (
            f", endgame database of {budget['endgame_seeds']} seeds"
            if budget["endgame_seeds"]
            else ""
        )
    )
    inaccuracy, mistake, blunder = review.thresholds
    key = (
        f"values in {review.units}, {sides[0]}'s view; marks: ?! loses {inaccuracy:g}, "
        f"? {mistake:g}, ?? {blunder:g} or more"
    )
    lines = [header, key, ""]
    for seat in (0, 1):
        lines.append(
            player_line(sides[seat], tags.get(sides[seat], ""), review.players[seat], review.units)
        )
    lines.append("")
    lines.extend(ply_line(ply, sides, review.units) for ply in review.plies)
    exact = sum(ply.exact for ply in review.plies)
    seconds = sum(ply.time_ms for ply in review.plies) / 1000
    nodes = sum(ply.nodes for ply in review.plies)
    lines.append("")
    lines.append(f"{len(review.plies)} plies, {exact} exact; {nodes} nodes in {seconds:.1f} s")
    return "\n".join(lines)
