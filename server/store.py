"""Persistence in SQLite: games, seats, every move, every event, results.

`save` writes everything a change produced, all or nothing (a savepoint), into the open batch;
`commit` makes the whole batch durable with one fsync (group commit). The asyncio layer holds
back everything the core sends until the commit that covers it, so an accepted move is still
durable before anyone hears of it, and one commit serves every change made meanwhile. On start
the server reloads the unfinished games from here and replays their moves through the rules.

The files are the user's alone: the folder is made 0700 and the database files 0600.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ubao.protocol import (
    ClockSpec,
    Event,
    Moved,
    Over,
    SeatEvent,
    SeatSpec,
    TakebackRequest,
    decode_server_message,
    to_wire,
)
from ubao.server.room import Room
from ubao.server.storage import StoredGame, StoreError

SCHEMA_VERSION = 3
"""1: the first schema; 2: `games.created_ms`; 3: `games.pace_ms`."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    game_id    TEXT PRIMARY KEY,
    game       TEXT NOT NULL,
    options    TEXT NOT NULL,           -- JSON, as the creator gave them
    clock      TEXT,                    -- JSON {initial_ms, increment_ms} or NULL
    status     TEXT NOT NULL,           -- waiting, playing, over
    result     TEXT,                    -- JSON {winner, reason, score} once over
    v          INTEGER NOT NULL,
    ply        INTEGER NOT NULL,
    clocks     TEXT,                    -- JSON [ms0, ms1]: time left when last saved
    created_ms INTEGER NOT NULL,        -- the server's wall clock at creation (ms since epoch)
    pace_ms    INTEGER NOT NULL DEFAULT 0, -- least time between two moves of server bots
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE IF NOT EXISTS seats (
    game_id    TEXT NOT NULL REFERENCES games(game_id),
    seat       INTEGER NOT NULL,
    spec       TEXT NOT NULL,           -- JSON seat spec {kind, depth, ...}
    name       TEXT,
    token_hash TEXT,                    -- sha256 of the seat token, never the token
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id    TEXT NOT NULL REFERENCES games(game_id),
    ply        INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    move       TEXT NOT NULL,
    clocks     TEXT,                    -- JSON [ms0, ms1] after the move
    info       TEXT,                    -- JSON bot search report
    played_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS events (
    game_id    TEXT NOT NULL REFERENCES games(game_id),
    v          INTEGER NOT NULL,
    type       TEXT NOT NULL,
    body       BLOB NOT NULL,           -- the event as sent on the wire (msgpack), without legal
    PRIMARY KEY (game_id, v)
);
CREATE INDEX IF NOT EXISTS games_status ON games(status);
CREATE INDEX IF NOT EXISTS games_finished ON games(status, updated_at);
"""

_MIGRATE_FROM_1 = """
ALTER TABLE games ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0;
UPDATE games
   SET created_ms = CAST(ROUND((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER);
"""
"""Schema 1 kept the creation time only as SQLite's text timestamp, which the server did not set."""

_MIGRATE_FROM_2 = "ALTER TABLE games ADD COLUMN pace_ms INTEGER NOT NULL DEFAULT 0;"
"""Schema 2 did not keep a game's pace: its games have none."""


_COLUMNS = "game_id, game, options, clock, status, created_ms, pace_ms, clocks"
"""What `_load` takes, in its order."""


def default_path() -> Path:
    """$XDG_DATA_HOME/ubao/ubao.sqlite3, or ~/.local/share/ubao/ubao.sqlite3."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ubao" / "ubao.sqlite3"


def _json(value: object) -> str | None:
    return None if value is None else json.dumps(to_wire(value), separators=(",", ":"))


def _pair(values: tuple[int, int]) -> str:
    """Two clock readings as `_json` writes them, without its generic path (at every move)."""
    return f"[{values[0]},{values[1]}]"


def _seats(room: Room) -> tuple[tuple[str | None, str | None], ...]:
    """What of the seats changes after creation: who sits, with which token."""
    return tuple((seat.name, seat.token_hash) for seat in room.seats)


Saved = tuple[Room, Sequence[Event], int, Sequence[bytes]]
"""A save: the room, its events, when, and the events' bodies."""


def _private(path: Path) -> None:
    """Make the database file the user's alone (0600), in a folder of their own (0700) if it
    has to be created: it holds who played whom and the seat tokens' hashes. SQLite gives its
    -wal and -shm files the database file's mode."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    os.chmod(path, 0o600)  # also a file that an older server made world-readable


class Store:
    """The server's database (a `GameStore`); `path` ":memory:" keeps it for the process only."""

    def __init__(self, path: str | Path) -> None:
        if str(path) != ":memory:":
            _private(Path(path))
        self.path = str(path)
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self._batch: list[Saved] = []
        """The saves since the last commit, to write again if the commit fails."""
        self._written: dict[str, tuple[tuple[str | None, str | None], ...]] = {}
        """The games not over whose row is written, in the open batch or before it, with
        their seats as written: a move updates only what changes (status, versions, clocks),
        and seats that did not change are not written again."""
        self._lost = False
        """The last commit failed and was rolled back: the next writes the whole batch again."""
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = FULL")
        self.db.execute("PRAGMA foreign_keys = ON")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(f"{path}: database schema {version} is newer than this server's")
        if version == 1:
            self.db.executescript(f"BEGIN; {_MIGRATE_FROM_1} COMMIT;")
        if version in (1, 2):
            self.db.executescript(f"BEGIN; {_MIGRATE_FROM_2} COMMIT;")
        self.db.executescript(_SCHEMA)
        self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    @property
    def pending(self) -> bool:
        """Whether saves wait for a commit."""
        return bool(self._batch)

    def save(self, room: Room, events: Sequence[Event], now: int) -> None:
        """Write the room's state and the events (with their moves) into the open batch: all of
        it, or, raising StoreError, none of it. Durable at the next `commit`."""
        db = self.db
        saved = (room, events, now, [room.body(event) for event in events])
        try:
            if not db.in_transaction:
                db.execute("BEGIN IMMEDIATE")
            db.execute("SAVEPOINT save")
            try:
                seats = self._write(*saved)
            except BaseException:
                db.execute("ROLLBACK TO save")
                raise
            finally:
                db.execute("RELEASE save")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot save game {room.game_id}: {exc}") from exc
        if room.status == "over":
            self._written.pop(room.game_id, None)
        else:
            self._written[room.game_id] = seats
        self._batch.append(saved)

    def commit(self) -> None:
        """Make every save since the last commit durable, with one fsync; StoreError if the
        disk refused it. The batch is kept then, and the next commit writes it all again."""
        db = self.db
        try:
            if self._lost:
                if db.in_transaction:
                    db.execute("ROLLBACK")  # only what came after the failed commit
                db.execute("BEGIN IMMEDIATE")
                self._written.clear()  # saves since the failure counted on rows it rolled back
                for saved in self._batch:
                    self._write(*saved)
            if db.in_transaction:
                db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            self._lost = True
            self._written.clear()  # none of it is written now: the next writes write it all
            raise StoreError(f"cannot commit {len(self._batch)} change(s): {exc}") from exc
        self._lost = False
        self._batch.clear()

    def _write(
        self, room: Room, events: Sequence[Event], now: int, bodies: Sequence[bytes]
    ) -> tuple[tuple[str | None, str | None], ...]:
        """Write one save; returns the seats as written."""
        game_id = room.game_id
        clock = room.clock
        clocks = _pair((max(0, clock.left(0, now)), max(0, clock.left(1, now)))) if clock else None
        result = _json(room.result)
        seats = _seats(room)
        written = self._written.get(game_id)
        db = self.db
        if written is None:
            db.execute(
                """INSERT INTO games (game_id, game, options, clock, status, result, v, ply,
                                      clocks, created_ms, pace_ms)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (game_id) DO UPDATE SET status = excluded.status,
                       result = excluded.result, v = excluded.v, ply = excluded.ply,
                       clocks = excluded.clocks,
                       updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')""",
                (
                    game_id,
                    room.game_name,
                    _json(room.options),
                    _json(room.clock_spec),
                    room.status,
                    result,
                    room.v,
                    room.ply,
                    clocks,
                    room.created,
                    room.pace_ms,
                ),
            )
        else:
            db.execute(
                """UPDATE games SET status = ?, result = ?, v = ?, ply = ?, clocks = ?,
                       updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
                   WHERE game_id = ?""",
                (room.status, result, room.v, room.ply, clocks, game_id),
            )
        if written != seats:
            db.executemany(
                """INSERT INTO seats (game_id, seat, spec, name, token_hash) VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT (game_id, seat) DO UPDATE SET name = excluded.name,
                       token_hash = excluded.token_hash""",
                [
                    (game_id, index, _json(seat.spec), seat.name, seat.token_hash)
                    for index, seat in enumerate(room.seats)
                ],
            )
        for event, body in zip(events, bodies, strict=True):
            if isinstance(event, TakebackRequest) and event.state == "accepted":
                # The moves table holds the game as it stands; the log keeps what was undone.
                db.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, event.ply))
            if isinstance(event, Moved):
                db.execute(
                    "INSERT INTO moves (game_id, ply, seat, move, clocks, info)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        game_id,
                        event.ply,
                        event.seat,
                        event.move,
                        _pair(event.clocks.remaining_ms) if event.clocks else None,
                        _json(event.info),
                    ),
                )
            db.execute(
                "INSERT INTO events (game_id, v, type, body) VALUES (?, ?, ?, ?)",
                (game_id, event.v, event.type, body),
            )
        return seats

    def unfinished(self) -> list[StoredGame]:
        """Every game not over, oldest first, with its seats, moves and events."""
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM games WHERE status != 'over' ORDER BY created_ms, game_id"
        ).fetchall()
        return [self._load(*row) for row in rows]

    def finished(self, limit: int) -> list[StoredGame]:
        """The `limit` most recently finished games, the most recent last."""
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM games WHERE status = 'over'"
            " ORDER BY updated_at DESC, game_id DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [self._load(*row) for row in reversed(rows)]

    def load(self, game_id: str) -> StoredGame | None:
        """One game, whatever its status, or None if there is no such game."""
        row = self.db.execute(f"SELECT {_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
        found = row.fetchone()
        return None if found is None else self._load(*found)

    def _load(
        self,
        game_id: str,
        game: str,
        options: str,
        clock: str | None,
        status: str,
        created: int,
        pace_ms: int,
        clocks: str | None,
    ) -> StoredGame:
        seats = self.db.execute(
            "SELECT spec, name, token_hash FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
        ).fetchall()
        moves = self.db.execute(
            "SELECT seat, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
        ).fetchall()
        events = self.db.execute(
            "SELECT body FROM events WHERE game_id = ? ORDER BY v", (game_id,)
        ).fetchall()
        spec = json.loads(clock) if clock else None
        left = json.loads(clocks) if clocks else None
        return StoredGame(
            game_id=game_id,
            game=game,
            options=json.loads(options),
            clock=ClockSpec(**spec) if spec else None,
            status=status,
            created=created,
            pace_ms=pace_ms,
            clocks=(left[0], left[1]) if left else None,
            seats=tuple((SeatSpec(**json.loads(s)), name, token) for s, name, token in seats),
            movers=tuple(seat for seat, _ in moves),
            moves=tuple(move for _, move in moves),
            events=tuple(_event(body) for (body,) in events),
        )


def _event(body: bytes) -> Event:
    event = decode_server_message(body)
    if not isinstance(event, Moved | Over | SeatEvent | TakebackRequest):
        raise RuntimeError(f"stored event is a {event.type}")
    return event
