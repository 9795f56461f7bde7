"""When the core next has work that time decides (a flag fall, a grace period's end, a waiting
game's expiry), without looking at every game: a heap of each game's next deadline; and when a
waiting game nobody attends expires."""

from __future__ import annotations

import heapq
from collections.abc import Mapping

from ubao.server.room import Room


class Deadlines:
    """Each game's next deadline (`Room.deadline`), indexed lazily: a change marks its game
    `touched`, and the index is brought up to date when a deadline is asked for."""

    def __init__(self) -> None:
        self._deadlines: dict[str, int] = {}
        """Each game's next deadline, as `_timeline` holds it."""
        self._timeline: list[tuple[int, str]] = []
        """A heap of (deadline, game): an entry that `_deadlines` no longer agrees with is stale
        and skipped."""
        self._touched: set[str] = set()
        """Games changed since their deadline was last indexed."""

    def touch(self, game_id: str) -> None:
        """The game changed: its deadline may have too."""
        self._touched.add(game_id)

    def attend(self, room: Room, now: int, expiry_ms: int, longest_ms: int) -> None:
        """Start or stop the expiry of a waiting game: it runs while neither the creator nor
        any player is connected, and a game waits `longest_ms` at most, attended or not (an
        invitation nobody takes must not hold a game slot for as long as its creator stays)."""
        self.touch(room.game_id)
        if room.status != "waiting":
            room.expires_at = None
            return
        if room.waiting_until is None:
            room.waiting_until = now + longest_ms
        attended = room.creator is not None or any(s.holder is not None for s in room.seats)
        if attended:
            room.expires_at = room.waiting_until
        elif room.expires_at is None or room.expires_at == room.waiting_until:
            room.expires_at = min(now + expiry_ms, room.waiting_until)

    def next(self, rooms: Mapping[str, Room]) -> int | None:
        """The earliest deadline of any game, if any."""
        self._index(rooms)
        timeline, deadlines = self._timeline, self._deadlines
        while timeline and deadlines.get(timeline[0][1]) != timeline[0][0]:
            heapq.heappop(timeline)
        return timeline[0][0] if timeline else None

    def due(self, now: int, rooms: Mapping[str, Room]) -> list[str]:
        """The games whose deadline has come by `now`, in deadline order; each is indexed
        again afterwards, whatever expiring it did."""
        self._index(rooms)
        timeline, deadlines = self._timeline, self._deadlines
        due: dict[str, None] = {}
        while timeline and timeline[0][0] <= now:
            deadline, game_id = heapq.heappop(timeline)
            if deadlines.get(game_id) == deadline:
                del deadlines[game_id]
                due[game_id] = None
        self._touched.update(due)
        return list(due)

    def _index(self, rooms: Mapping[str, Room]) -> None:
        """Bring the deadlines of the games changed since the last call up to date."""
        deadlines, timeline = self._deadlines, self._timeline
        for game_id in self._touched:
            room = rooms.get(game_id)
            deadline = room.deadline() if room is not None and room.status != "over" else None
            if deadline is None:
                deadlines.pop(game_id, None)
            elif deadlines.get(game_id) != deadline:
                deadlines[game_id] = deadline
                heapq.heappush(timeline, (deadline, game_id))
        self._touched.clear()
        if len(timeline) > 2 * len(deadlines) + 64:  # mostly stale entries: start afresh
            self._timeline = [(deadline, game_id) for game_id, deadline in deadlines.items()]
            heapq.heapify(self._timeline)
