"""What the server core needs of a database, apart from any database, and what the asyncio layer
needs to drive one: the SQLite store (server/stores/sqlite.py) and the Redis store of a cluster
(server/stores/redis.py) are the implementations, and the core imports no I/O through this
module."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    """Durable games, as the core needs them. `save` hands a change over; the asyncio layer
    holds everything the core sends until the store says the change is durable, so the core
    itself never waits for a disk."""

    def save(self, room: Room, events: Sequence[Event], now: int) -> None:
        """Keep the room's new state and `events`, all or nothing, taken as they are now (the
        room goes on changing). A store that writes at once raises StoreError if it cannot (the
        core then undoes the change and answers `storage_error`); one that writes later (the
        SQLite store's writer, Redis's pipeline) tries again until it is kept, and nobody hears
        of the change meanwhile."""

    def unfinished(self) -> list[StoredGame]:
        """Every game not over, to rebuild after a restart."""

    def finished(self, limit: int) -> list[StoredGame]:
        """The `limit` most recently finished games, the most recent last: the history the
        lobby shows after a restart."""

    def load(self, game_id: str) -> StoredGame | None:
        """One game, whatever its status, or None: finished games no longer in memory. Never
        older than the last `save` of the game (the core trusts it); StoreError if the store
        cannot tell yet."""


class BatchedStore(GameStore, Protocol):
    """A `GameStore` whose writes the asyncio layer commits on the event loop (Redis in a
    cluster, where a commit is a network round trip and tells which games another node took):
    changes are saved into a batch that `commit` makes durable at once (group commit)."""

    path: str
    """Where the games are, for the logs."""

    def commit(self) -> None:
        """Make every change saved since the last commit durable; StoreError if not (the batch
        is kept and the next commit tries it again)."""

    def close(self) -> None: ...


class ThreadedStore(GameStore, Protocol):
    """A `GameStore` that commits on a thread of its own (SQLite on one node): the event loop
    never executes a write nor waits for an fsync, and keeps serving while the disk works. It
    counts the saves; the layer tags what the core sends with the count when it was produced,
    and sends it once the writer says that many saves are durable."""

    path: str
    """Where the games are, for the logs."""

    @property
    def saved(self) -> int:
        """How many changes were saved since `start`."""

    def start(self, durable: Callable[[int], None], retry_s: float) -> None:
        """Start the writer: `durable(n)` is called on the writer's thread each time the first
        `n` saves are kept (group commit); a write the disk refuses is tried again after
        `retry_s`, with what came meanwhile."""

    def flush(self) -> None:
        """Let the writer take what was saved so far. The layer calls it once per turn of the
        event loop: a batch then holds a whole turn's changes, as when the loop committed at
        the end of each turn, instead of the writer starting on each turn's first save."""

    def close(self) -> None:
        """Stop the writer once it kept what it was given (in bounded time) and close."""
