"""The analyses of finished games that clients asked for (`analyse`) and the server has not made
yet: one queue for the whole server, each address holding a share of it. Pure bookkeeping:
the core decides, the layer runs the engine (server/analysis_runs.py).

An analysis is made once per game: a second request while it waits joins the first, and one
made is stored with the game (`Room.analysis`), never made again."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ubao.protocol import ErrorCode
from ubao.server.lifecycle import Rejected
from ubao.server.limits import Limits
from ubao.server.outputs import AnalysisJob
from ubao.server.room import Room


@dataclass(slots=True)
class Waiting:
    """An analysis asked for and not made yet: who asked first (whose share it takes) and who
    waits for it."""

    address: str
    askers: set[int] = field(default_factory=set)


class Analyses:
    """The analyses waiting or running, in the order they were asked for."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.waiting: dict[str, Waiting] = {}

    def ask(self, room: Room, conn: int, address: str) -> tuple[int, AnalysisJob | None]:
        """Queue the game's analysis for connection `conn` from `address`: how many analyses
        are ahead of it, and the job to run when it is new (None: it was already asked for).
        `quota_exceeded` beyond the address's share, `server_busy` beyond the server's."""
        ahead = list(self.waiting)
        known = self.waiting.get(room.game_id)
        if known is not None:
            known.askers.add(conn)
            return ahead.index(room.game_id), None
        mine = sum(1 for waiting in self.waiting.values() if waiting.address == address)
        if mine >= self.limits.analyses_per_address:
            message = (
                f"this address has {mine} analyses waiting, the most one client may have; "
                "ask again once they are made"
            )
            raise Rejected(ErrorCode.QUOTA_EXCEEDED, message)
        if len(self.waiting) >= self.limits.max_analyses:
            raise Rejected(ErrorCode.SERVER_BUSY, "too many analyses waiting; try again later")
        self.waiting[room.game_id] = Waiting(address, {conn})
        job = AnalysisJob(
            room.game_id,
            room.game_name,
            dict(room.options),
            tuple(room.history),
            self.limits.analysis_time_ms,
            address,
        )
        return len(ahead), job

    def settle(self, game_id: str) -> set[int]:
        """The analysis is made, or failed: who waited for it."""
        waiting = self.waiting.pop(game_id, None)
        return set() if waiting is None else waiting.askers

    def leave(self, conn: int, games: Iterable[str] | None = None) -> None:
        """A connection closed: nobody to tell there (its analyses are still made)."""
        for game_id in self.waiting if games is None else games:
            waiting = self.waiting.get(game_id)
            if waiting is not None:
                waiting.askers.discard(conn)
