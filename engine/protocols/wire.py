"""An engine's report as the wire's `BotInfo`: what a server bot and a bot client send with
their moves, the same from either; and a game's review as the wire's `GameAnalysis`, what the
server's analyses send and the terminal shows, the same from either."""

from __future__ import annotations

from ubao.engine.protocols.results import Info
from ubao.engine.review import Review
from ubao.protocol import (
    ANALYSIS_FORMAT,
    MAX_PV,
    BotInfo,
    GameAnalysis,
    PlyAnalysis,
    SideAnalysis,
    mate_score,
)


def bot_info(info: Info | None) -> BotInfo | None:
    """The report as the protocol carries it (a forced result as ±(MATE_SCORE - plies), `mate`
    set; the pv cut to what a move may carry); None for no report, or one without a depth."""
    if info is None or info.depth is None:
        return None
    score = mate_score(info.mate) if info.mate is not None else (info.score or 0)
    return BotInfo(
        depth=max(0, info.depth),
        score=score,
        nodes=max(0, info.nodes or 0),
        time_ms=max(0, info.time_ms or 0),
        pv=info.pv[:MAX_PV],
        mate=info.mate,
    )


ANALYSIS_LINE = 32
"""The longest line a ply analysis carries: more than any screen shows, and a long game's
analysis stays small in every snapshot of the game (the wire allows `MAX_PV`)."""


def game_analysis(review: Review, time_ms: int) -> GameAnalysis:
    """A game's review as the wire carries it (`analyse`): seat 0's view, in the review's
    units, each line cut to what a ply analysis holds."""
    plies = tuple(
        PlyAnalysis(
            ply=ply.ply,
            seat=ply.mover,
            move=ply.move,
            best=ply.best,
            line=tuple(ply.line[:ANALYSIS_LINE]),
            before=float(ply.before),
            after=float(ply.after),
            loss=float(ply.loss),
            mark=ply.mark,
            depth=ply.depth,
            nodes=ply.nodes,
            time_ms=ply.time_ms,
            exact=ply.exact,
        )
        for ply in review.plies
    )
    first, second = (
        SideAnalysis(
            accuracy=float(side.accuracy),
            average_loss=float(side.average_loss),
            inaccuracies=side.counts.get("inaccuracy", 0),
            mistakes=side.counts.get("mistake", 0),
            blunders=side.counts.get("blunder", 0),
        )
        for side in review.players
    )
    return GameAnalysis(ANALYSIS_FORMAT, review.units, time_ms, plies, (first, second))
