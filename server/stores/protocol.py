"""What the server core needs of a database, apart from any database, and what the asyncio layer
needs to drive one: the SQLite store (server/stores/sqlite.py) and the Redis store of a cluster
(server/stores/redis.py) are the implementations, and the core imports no I/O through this
module."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ubao.protocol import (
    AnalysisEvent,
    ClockSpec,
    Event,
    GameAnalysis,
    SeatSpec,
    decode_server_message,
)
from ubao.server.accounts import StoredAccount
from ubao.server.ratings import RatingStore
from ubao.server.room import Room


class StoreError(Exception):
    """The database refused (disk full, I/O error, locked, unreachable): nothing of the write
    was kept, or the read cannot answer yet."""


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
    rated: bool = False
    analysis: GameAnalysis | None = None
    """Once over, its analysis, if one was made."""


StoreChange = Any
"""One change as a store snapshots it (`GameStore.snapshot`): values taken from the room when the
change was made, in the store's own form, opaque to everyone but the store that made it."""


def stored_analysis(body: bytes) -> GameAnalysis:
    """A game's analysis as every store keeps it: the `analysis` event that carried it."""
    event = decode_server_message(body)
    if not isinstance(event, AnalysisEvent) or event.analysis is None:
        raise RuntimeError(f"a stored analysis is a {event.type}")
    return event.analysis


class GameStore(RatingStore, Protocol):
    """Durable games, as the core needs them: it reads games back, and snapshots each change
    into a `Save` output (server/outputs.py) that the asyncio layer hands to the store; the
    core itself never writes nor waits for a disk. The ratings are the store's too: a rated
    game's changes are in the save of its end (`RatingStore` says how they are read)."""

    def snapshot(self, room: Room, events: Sequence[Event], now: int) -> StoreChange:
        """The room's new state and `events`, taken as they are now (the room goes on
        changing), for `DurableStore.save`. Cannot fail: it touches no database."""

    def unfinished(self) -> list[StoredGame]:
        """Every game not over, to rebuild after a restart."""

    def finished(self, limit: int) -> list[StoredGame]:
        """The `limit` most recently finished games, the most recent last: the history the
        lobby shows after a restart."""

    def load(self, game_id: str) -> StoredGame | None:
        """One game, whatever its status, or None: finished games no longer in memory. Never
        older than the last `save` of the game (the core trusts it); StoreError if the store
        cannot tell yet."""

    def account(self, canonical: str) -> StoredAccount | None:
        """The account whose name has this canonical form, or None: as stored now (a key
        rotated on another node counts at once); StoreError if the store cannot tell."""

    def analysis_snapshot(self, game_id: str, analysis: GameAnalysis) -> StoreChange:
        """A finished game's analysis, for `DurableStore.save`: kept once (a game analysed
        again keeps its first), read back with the game (`StoredGame.analysis`)."""


class DurableStore(GameStore, Protocol):
    """A `GameStore` as the asyncio layer drives it, SQLite and Redis alike: `save` queues a
    change (it cannot fail), `flush` hands what was queued over once per turn of the event loop,
    and `durable(n)` says when the first `n` saves are kept. The layer holds every output the
    core made after a save until then, so nobody hears of a change before it is durable. A
    write the store cannot make (a full disk, a Redis that refuses) is tried again after
    `retry_s`, with what came meanwhile, and nobody hears of it until it is kept."""

    path: str
    """Where the games are, for the logs."""

    @property
    def saved(self) -> int:
        """How many changes were saved since `start`."""

    def save(self, change: StoreChange) -> None:
        """Queue a change of `snapshot`'s, to be kept after those queued before it."""

    def start(self, durable: Callable[[int], None], retry_s: float) -> None:
        """Start keeping what is saved: `durable(n)` is called (on any thread: SQLite's writer
        has its own) each time the first `n` saves are kept (group commit)."""

    def flush(self) -> None:
        """Keep what was saved so far: a batch holds a whole turn of the event loop's changes.
        SQLite's writer takes it on its own thread; Redis commits it at once, in one round
        trip."""

    def create_account(self, account: StoredAccount) -> bool:
        """Keep a new account, durably, unless its canonical name is taken (False). Called on a
        worker thread, apart from the games' writes; StoreError if the store refused."""

    def set_key(self, canonical: str, key_hash: str) -> None:
        """Replace an account's key hash, durably (on a worker thread; StoreError if refused)."""

    def close(self) -> None:
        """Stop once what was given is kept (in bounded time), and close."""
