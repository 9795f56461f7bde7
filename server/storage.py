"""What the server core needs of a database, apart from any database: the SQLite store
(server/store.py) is one implementation, and the core imports no I/O through this module."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ubao.protocol import ClockSpec, Event, SeatSpec
from ubao.server.room import Room


class StoreError(Exception):
    """The database refused a write (disk full, I/O error, locked): nothing of it was kept."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as the store holds it, for the core to rebuild a Room from."""

    game_id: str
    game: str
    options: dict[str, Any]
    clock: ClockSpec | None
    status: str
    created: int
    pace_ms: int
    clocks: tuple[int, int] | None
    seats: tuple[tuple[SeatSpec, str | None, str | None], ...]
    """(spec, name, token hash) per seat."""
    movers: tuple[int, ...]
    moves: tuple[str, ...]
    events: tuple[Event, ...]


class GameStore(Protocol):
    """Durable games: `save` returns only once what a change produced is kept."""

    def save(self, room: Room, events: Sequence[Event], now: int) -> None:
        """Keep the room's new state and `events` in one transaction; StoreError if not."""

    def unfinished(self) -> list[StoredGame]:
        """Every game not over, to rebuild after a restart."""

    def finished(self, limit: int) -> list[StoredGame]:
        """The `limit` most recently finished games, the most recent last: the history the
        lobby shows after a restart."""

    def load(self, game_id: str) -> StoredGame | None:
        """One game, whatever its status, or None: finished games no longer in memory."""


class Database(GameStore, Protocol):
    """A `GameStore` as the asyncio layer drives it: changes are saved into a batch that
    `commit` makes durable at once (group commit)."""

    path: str
    """Where the games are, for the logs."""

    def commit(self) -> None:
        """Make every change saved since the last commit durable; StoreError if not (the batch
        is kept and the next commit tries it again)."""

    def close(self) -> None: ...
