"""An engine's report as the wire's `BotInfo`: what a server bot and a bot client send with
their moves, the same from either."""

from __future__ import annotations

from ubao.engine.protocols.results import Info
from ubao.protocol import MAX_PV, BotInfo, mate_score


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
