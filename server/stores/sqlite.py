"""Persistence in SQLite: games, seats, every move, every event, results.

A server starts the store's writer (`start`): a thread with a connection of its own, so that
the event loop never executes a write or waits for an fsync. The core `snapshot`s what a
change produced, as values (a `Change`: the room keeps changing after), into a `Save` output;
the asyncio layer hands it to `save`, which queues it;
the server's event loop `flush`es once per turn, and the writer writes everything flushed since
its previous write in one transaction with one COMMIT (group commit, one fsync), then reports
how many saves are durable. The asyncio layer
holds back everything the core sends until the commit that covers it, so an accepted move is
still durable before anyone hears of it. A write the disk refuses is rolled back and tried
again after a pause, with whatever came meanwhile: nobody hears of any of it until it is kept.
Not a change whose rows the database refuses as such (a row already there under their key:
`_conflict`), which no retry would ever write: that game is written no more, logged once, and
everything else is kept (`Writer._write_apart`).

Without the writer (the core's tests, before the server starts), `save` writes at once on the
caller's connection, into the open batch, all of it or, raising StoreError, none of it (a
savepoint), and `commit` makes the batch durable.

Reads (`unfinished`, `finished`, `load`) use `db`, the loop's connection: in WAL mode it reads
what is committed while the writer writes. On start the server reloads the unfinished games
from here and replays their moves through the rules.

The files are the user's alone: the folder is made 0700 and the database files 0600.

One server at a time: a store on a file holds an exclusive lock on `<db>.lock` (0600, with the
holder's pid) until it is closed or its process ends, so that a second server on the same file
stops before it reads or writes a game (two would both host the unfinished games, each writing
its own moves).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Union

from ubao.protocol import (
    AnalysisEvent,
    ClockSpec,
    DrawOffer,
    Event,
    GameAnalysis,
    Moved,
    Over,
    Result,
    SeatEvent,
    SeatSpec,
    TakebackRequest,
    decode_server_message,
    encode,
    to_wire,
)
from ubao.server.accounts import StoredAccount
from ubao.server.glicko2 import Rating
from ubao.server.ratings import RatedGame, Standing
from ubao.server.room import Room
from ubao.server.stores.protocol import StoredGame, StoreError, stored_analysis

log = logging.getLogger("ubao.server")

SCHEMA_VERSION = 7
"""1: the first schema; 2: `games.created_ms`; 3: `games.pace_ms`; 4: `accounts`; 5:
`games.rated`, and the tables `rated_games` and `ratings`; 6: the table `tournaments`; 7: the
table `analyses`."""

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
    rated      INTEGER NOT NULL DEFAULT 0, -- 1: a rated game (docs/ratings.md)
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
CREATE TABLE IF NOT EXISTS rated_games (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT, -- the order the ratings were changed in
    game_id     TEXT NOT NULL UNIQUE REFERENCES games(game_id), -- rated once, ever
    pool        TEXT NOT NULL,          -- game/speed
    finished_ms INTEGER NOT NULL,       -- the server's wall clock at the game's end
    player0     TEXT NOT NULL,          -- seat 0's account
    player1     TEXT NOT NULL,
    score       REAL NOT NULL,          -- seat 0's: 1, 0.5 or 0
    before      TEXT NOT NULL,          -- JSON [seat 0, seat 1], each as `ratings` holds it
    after       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS rated_games_player0 ON rated_games(player0, seq);
CREATE INDEX IF NOT EXISTS rated_games_player1 ON rated_games(player1, seq);
CREATE TABLE IF NOT EXISTS ratings (
    pool       TEXT NOT NULL,
    player     TEXT NOT NULL,           -- the account's canonical name
    rating     REAL NOT NULL,
    rd         REAL NOT NULL,
    volatility REAL NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    draws      INTEGER NOT NULL,
    losses     INTEGER NOT NULL,
    PRIMARY KEY (pool, player)
);
CREATE INDEX IF NOT EXISTS ratings_board ON ratings(pool, rating DESC);
CREATE TABLE IF NOT EXISTS accounts (
    canonical  TEXT PRIMARY KEY,        -- the name's canonical form (ubao.protocol.names)
    name       TEXT NOT NULL,           -- as claimed
    key_hash   TEXT NOT NULL,           -- scrypt$n$r$p$salt$hash, never the key
    bot        INTEGER NOT NULL,        -- 1: a bot's account
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    tournament_id TEXT PRIMARY KEY,
    status        TEXT NOT NULL,        -- open, running, finished, cancelled
    body          TEXT NOT NULL         -- JSON: settings, entrants, pairings with their game ids
);
CREATE TABLE IF NOT EXISTS analyses (
    game_id    TEXT PRIMARY KEY REFERENCES games(game_id), -- made once, ever
    body       BLOB NOT NULL            -- the `analysis` event as sent on the wire (msgpack)
);
CREATE INDEX IF NOT EXISTS games_status ON games(status);
CREATE INDEX IF NOT EXISTS games_finished ON games(status, updated_at);
"""

_TABLES_SINCE_1 = ("games", "seats", "moves", "events")
"""The tables of every schema since the first: a database that has a version has them all."""

_MIGRATE_FROM_1 = """
ALTER TABLE games ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0;
UPDATE games
   SET created_ms = CAST(ROUND((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER);
"""
"""Schema 1 kept the creation time only as SQLite's text timestamp, which the server did not set."""

_MIGRATE_FROM_2 = "ALTER TABLE games ADD COLUMN pace_ms INTEGER NOT NULL DEFAULT 0;"
"""Schema 2 did not keep a game's pace: its games have none."""

_MIGRATE_FROM_4 = "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;"
"""Schemas 4 and before had no rated games."""


class TournamentChange(NamedTuple):
    """A tournament's record as it was saved (server/tournaments.py): saved after the games it
    names, so that no commit keeps a tournament without its games."""

    game_id: str
    """`tournament:` and its id: what the writer tracks a save by."""
    tid: str
    status: str
    body: str
    v: int = 0


class AnalysisChange(NamedTuple):
    """A finished game's analysis as it was saved (server/analyses.py): written once, a
    later one for the same game left out."""

    game_id: str
    body: bytes
    """The `analysis` event that carries it, encoded."""
    v: int = 0


_ANALYSIS = "INSERT INTO analyses (game_id, body) VALUES (?, ?) ON CONFLICT (game_id) DO NOTHING"


_TOURNAMENT = """INSERT INTO tournaments (tournament_id, status, body) VALUES (?, ?, ?)
    ON CONFLICT (tournament_id) DO UPDATE SET status = excluded.status, body = excluded.body"""


_COLUMNS = "game_id, game, options, clock, status, created_ms, pace_ms, clocks, rated"
"""What `_load` takes, in its order."""


def default_db_path() -> Path:
    """$XDG_DATA_HOME/ubao/ubao.sqlite3, or ~/.local/share/ubao/ubao.sqlite3 when it is unset,
    empty or relative (the XDG Base Directory spec has relative paths ignored: they would
    move with the working directory)."""
    base = Path(os.environ.get("XDG_DATA_HOME", ""))
    if not base.is_absolute():
        base = Path.home() / ".local" / "share"
    return base / "ubao" / "ubao.sqlite3"


def _json(value: object) -> str | None:
    return None if value is None else json.dumps(to_wire(value), separators=(",", ":"))


def _pair(values: tuple[int, int]) -> str:
    """Two clock readings as `_json` writes them, without its generic path (at every move)."""
    return f"[{values[0]},{values[1]}]"


AnyChange = Union["Change", TournamentChange, AnalysisChange]
"""What the writer takes: a game's change, a tournament's record or a game's analysis."""

StoredSeats = tuple[tuple[SeatSpec, str | None, str | None], ...]
"""(spec, name, token hash) per seat."""


class Change(NamedTuple):
    """What one `save` writes, taken from the room when it is saved: values, not the room, which
    the core keeps changing while the writer writes. What never changes after a game's creation
    (its options, clock, seat specs, events) is shared, not copied. A named tuple, not a frozen
    dataclass: one is made at every move, and a frozen dataclass sets its 16 fields one
    `object.__setattr__` at a time (2 µs where a tuple takes 0.35)."""

    game_id: str
    game: str
    options: dict[str, Any]
    clock: ClockSpec | None
    created: int
    pace_ms: int
    status: str
    result: Result | None
    v: int
    ply: int
    clocks: str | None
    """Time left on both clocks when saved, as `_pair` writes it."""
    seats: StoredSeats
    events: tuple[Event, ...]
    bodies: tuple[bytes, ...]
    """The events as the store keeps them and as they are broadcast (`Room.body`)."""
    rated: bool
    rated_game: RatedGame | None
    """With the change that ends a rated game (its `over`): the ratings it changes."""


def change_of(room: Room, events: Sequence[Event], now: int) -> Change:
    """What saving `room` with `events` at `now` writes."""
    clock = room.clock
    return Change(
        room.game_id,
        room.game_name,
        room.options,
        room.clock_spec,
        room.created,
        room.pace_ms,
        room.status,
        room.result,
        room.v,
        room.ply,
        _pair((max(0, clock.left(0, now)), max(0, clock.left(1, now)))) if clock else None,
        tuple((seat.spec, seat.name, seat.token_hash) for seat in room.seats),
        tuple(events),
        tuple(room.body(event) for event in events),
        room.rated,
        room.rated_game if any(isinstance(e, Over) for e in events) else None,
    )


_NEW_GAMES = """INSERT INTO games (game_id, game, options, clock, status, result, v, ply, clocks,
                                   created_ms, pace_ms, rated) VALUES """
_NEW_GAME = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_NEW_GAMES_END = """ ON CONFLICT (game_id) DO UPDATE SET status = excluded.status,
    result = excluded.result, v = excluded.v, ply = excluded.ply, clocks = excluded.clocks,
    updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"""
_GAMES = """UPDATE games SET status = new.column2, result = new.column3, v = new.column4,
    ply = new.column5, clocks = new.column6, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    FROM (VALUES """
_GAME = "(?, ?, ?, ?, ?, ?)"
_GAMES_END = ") AS new WHERE games.game_id = new.column1"
_SEATS = "INSERT INTO seats (game_id, seat, spec, name, token_hash) VALUES "
_SEAT = "(?, ?, ?, ?, ?)"
_SEATS_END = """ ON CONFLICT (game_id, seat) DO UPDATE SET name = excluded.name,
    token_hash = excluded.token_hash"""
_MOVES = "INSERT INTO moves (game_id, ply, seat, move, clocks, info) VALUES "
_MOVE = "(?, ?, ?, ?, ?, ?)"
_EVENTS = "INSERT INTO events (game_id, v, type, body) VALUES "
_EVENT = "(?, ?, ?, ?)"


def _write(
    db: sqlite3.Connection, all_changes: Sequence[AnyChange], written: dict[str, StoredSeats]
) -> None:
    """Write `changes`, in order, in `db`'s open transaction: each game's row and seats as its
    last change left them, every move and event. `written` holds the games not over whose row is
    written (in this transaction or before it), with their seats as written: a game already
    written gets only what changes (status, versions, clocks), and seats that did not change are
    not written again. It is updated once everything is written.

    Each table gets one statement of many rows, not one per change: on the writer's thread, every
    statement gives the GIL up while SQLite works and, if the event loop is busy, waits up to the
    interpreter's switch interval to get it back, so the number of statements, not of rows, sets
    how long a batch takes."""
    changes = [change for change in all_changes if isinstance(change, Change)]
    kept = {c.tid: c for c in all_changes if isinstance(c, TournamentChange)}
    if kept:
        db.executemany(_TOURNAMENT, [(c.tid, c.status, c.body) for c in kept.values()])
    last = {change.game_id: change for change in changes}
    new = [change for game_id, change in last.items() if game_id not in written]
    _rows(
        db,
        _NEW_GAMES,
        _NEW_GAME,
        [
            (
                change.game_id,
                change.game,
                _json(change.options),
                _json(change.clock),
                change.status,
                _json(change.result),
                change.v,
                change.ply,
                change.clocks,
                change.created,
                change.pace_ms,
                int(change.rated),
            )
            for change in new
        ],
        _NEW_GAMES_END,
    )
    _rows(
        db,
        _GAMES,
        _GAME,
        [
            (game_id, change.status, _json(change.result), change.v, change.ply, change.clocks)
            for game_id, change in last.items()
            if game_id in written
        ],
        _GAMES_END,
    )
    _rows(
        db,
        _SEATS,
        _SEAT,
        [
            (game_id, index, _json(spec), name, token_hash)
            for game_id, change in last.items()
            if written.get(game_id) != change.seats
            for index, (spec, name, token_hash) in enumerate(change.seats)
        ],
        _SEATS_END,
    )
    moves: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []
    for change in changes:
        game_id = change.game_id
        for event, body in zip(change.events, change.bodies, strict=True):
            if isinstance(event, TakebackRequest) and event.state == "accepted":
                # The moves table holds the game as it stands; the log keeps what was undone.
                _rows(db, _MOVES, _MOVE, moves)
                moves = []
                db.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, event.ply))
            if isinstance(event, Moved):
                clocks = event.clocks
                moves.append(
                    (
                        game_id,
                        event.ply,
                        event.seat,
                        event.move,
                        _pair(clocks.remaining_ms) if clocks else None,
                        _json(event.info),
                    )
                )
            events.append((game_id, event.v, event.type, body))
    _rows(db, _MOVES, _MOVE, moves)
    _rows(db, _EVENTS, _EVENT, events)
    analyses = [(c.game_id, c.body) for c in all_changes if isinstance(c, AnalysisChange)]
    if analyses:
        db.executemany(_ANALYSIS, analyses)
    for change in changes:
        if change.rated_game is not None:
            _write_rated(db, change.rated_game)
    for game_id, change in last.items():
        if change.status == "over":
            written.pop(game_id, None)
        else:
            written[game_id] = change.seats


_RATED = """INSERT INTO rated_games (game_id, pool, finished_ms, player0, player1, score, before,
    after) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING"""
_RATING = """INSERT INTO ratings (pool, player, rating, rd, volatility, games, wins, draws, losses)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pool, player) DO UPDATE SET
    rating = excluded.rating, rd = excluded.rd, volatility = excluded.volatility,
    games = excluded.games, wins = excluded.wins, draws = excluded.draws,
    losses = excluded.losses"""


def _standing_row(standing: Standing) -> list[float]:
    rating = standing.rating
    counts = [standing.games, standing.wins, standing.draws, standing.losses]
    return [rating.rating, rating.rd, rating.volatility, *counts]


def _standing(row: Sequence[float]) -> Standing:
    rating, rd, volatility, games, wins, draws, losses = row
    counts = int(games), int(wins), int(draws), int(losses)
    return Standing(Rating(rating, rd, volatility), *counts)


def _write_rated(db: sqlite3.Connection, game: RatedGame) -> None:
    """A rated game's rating changes, in the transaction of its result: once per game id (a
    change written again after a failed commit changes no rating twice)."""
    before, after = ([_standing_row(s) for s in pair] for pair in (game.before, game.after))
    kept = db.execute(
        _RATED,
        (
            game.game_id,
            game.pool,
            game.finished,
            *game.players,
            game.score,
            json.dumps(before),
            json.dumps(after),
        ),
    )
    if kept.rowcount == 1:
        for player, row in zip(game.players, after, strict=True):
            db.execute(_RATING, (game.pool, player, *row))


def _rows(
    db: sqlite3.Connection, head: str, row: str, rows: list[tuple[Any, ...]], end: str = ""
) -> None:
    """`head`, then `row` once per row (a VALUES list), then `end`: as few statements as
    SQLite's limit on parameters allows."""
    if not rows:
        return
    per = db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // len(rows[0])
    for start in range(0, len(rows), per):
        part = rows[start : start + per]
        values = ", ".join([row] * len(part))
        db.execute(head + values + end, [value for each in part for value in each])


def _private(path: Path) -> None:
    """Make the database file the user's alone (0600), in a folder of their own (0700) if it
    has to be created: it holds who played whom and the seat tokens' hashes. SQLite gives its
    -wal and -shm files the database file's mode. Only the file's own folder is made, unless
    the file is the default one (`default_db_path`): a mistyped `--db` in a folder that is not
    there is refused (FileNotFoundError) rather than a new folder tree and an empty server."""
    missing = [folder for folder in (path.parent, *path.parent.parents) if not folder.exists()]
    if len(missing) > 1 and path != default_db_path().resolve():
        raise FileNotFoundError(
            f"no folder {missing[1]} (only the database's own folder is made: make the others "
            "first, if that is where it goes)"
        )
    for folder in reversed(missing):  # each one 0700, not only the last (mkdir's parents=True)
        folder.mkdir(mode=0o700, exist_ok=True)
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    os.chmod(path, 0o600)  # also a file that an older server made world-readable


def _damaged(exc: sqlite3.DatabaseError) -> UnusableDatabase:
    """What SQLite said of a file it cannot read, as the reason the server cannot use it."""
    if "not a database" in str(exc):
        return UnusableDatabase(str(exc))
    return UnusableDatabase(f"it is damaged: {exc}")


class DatabaseInUse(RuntimeError):
    """Another process (another `ubao-server`) holds the database's lock."""


class UnusableDatabase(RuntimeError):
    """The database cannot be served: written by a newer server."""


def _lock(path: Path) -> int:
    """Lock the database for this store: an exclusive `flock` on `<db>.lock`, which says whose
    the lock is (the pid), released when the descriptor is closed or the process ends. The lock
    file stays: removing it could let a third server lock a new file while the second still
    holds the old one."""
    lock_path = path.with_name(path.name + ".lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        message = f"database {path} is in use by another ubao-server (pid {holder})"
        raise DatabaseInUse(message) from None
    os.fchmod(fd, 0o600)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


LOAD_WAIT_S = 2.0
"""How long `load` waits for the writer to keep a game it has saves of; then StoreError."""

CLOSE_WAIT_S = 0.5
ACCOUNT_WAIT_S = 5.0
"""How long an account's write waits for the games' writer before it is refused."""
"""How long `close` waits for the writer to write what is queued (a server has waited for it
already, `DRAIN_S` in server/app.py): a shutdown takes bounded time even on a hung disk."""


class Store:
    """The server's database (a `GameStore`); `path` ":memory:" keeps it for the process only
    (an in-memory database that the writer's connection shares)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock_fd: int | None = None
        """The descriptor of the database's lock file (none in memory)."""
        if self.path == ":memory:":
            self._target = f"file:ubao-{secrets.token_hex(8)}?mode=memory&cache=shared"
        else:
            # The file itself, whatever links name it: the lock is named after it, so that a
            # second server given a symbolic link to the same file finds it locked.
            real = Path(path).resolve()
            _private(real)
            self._lock_fd = _lock(real)  # DatabaseInUse before any game is read
            self._target = real.as_uri()
        try:
            self.db = self.connect()
            """The loop's connection: reads, and writes until the writer starts."""
        except sqlite3.DatabaseError as exc:  # its first page, the schema's, is damaged
            if self._lock_fd is not None:
                os.close(self._lock_fd)
            raise _damaged(exc) from None
        if self.path == ":memory:":
            # Shared in-memory tables are locked per table, not versioned as WAL files are: the
            # loop's reads do not wait for the writer's transaction (`load` waits for the games
            # it reads to be kept).
            self.db.execute("PRAGMA read_uncommitted = ON")
        self._batch: list[AnyChange] = []
        """The saves since the last commit, to write again if the commit fails."""
        self._written: dict[str, StoredSeats] = {}
        """The games not over whose row is written, with their seats (`_write`)."""
        self._lost = False
        """The last commit failed and was rolled back: the next writes the whole batch again."""
        self._writer: Writer | None = None
        try:
            self._check()
        except sqlite3.DatabaseError as exc:
            self.close()
            raise _damaged(exc) from None
        except UnusableDatabase:
            self.close()
            raise

    def _check(self) -> None:
        """Refuse a damaged database before reading any game (`PRAGMA quick_check`: every
        page, its b-trees and records, without the cross-check of the indexes), and one whose
        schema lacks a table it had: recreating it empty would bring the games back without
        their moves, and write them so at the first change. Then the schema is brought up to
        this server's."""
        if self.path != ":memory:":
            problems = [row[0] for row in self.db.execute("PRAGMA quick_check(3)")]
            if problems != ["ok"]:
                raise UnusableDatabase(f"it is damaged: {'; '.join(problems)}")
        self.db.execute("PRAGMA journal_mode = WAL")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise UnusableDatabase(f"its schema {version} is newer than this server's")
        present = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master")}
        missing = [table for table in _TABLES_SINCE_1 if table not in present]
        if version and missing:
            raise UnusableDatabase(f"its schema {version} has no table {', '.join(missing)}")
        if version == 1:
            self.db.executescript(f"BEGIN; {_MIGRATE_FROM_1} COMMIT;")
        if version in (1, 2):
            self.db.executescript(f"BEGIN; {_MIGRATE_FROM_2} COMMIT;")
        if version in (1, 2, 3, 4):
            self.db.executescript(f"BEGIN; {_MIGRATE_FROM_4} COMMIT;")
        self.db.executescript(_SCHEMA)
        self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def connect(self) -> sqlite3.Connection:
        """A new connection to the database, fully synced on every commit; the loop's, or the
        writer's (made on the loop, used only by the writer's thread)."""
        db = sqlite3.connect(self._target, isolation_level=None, uri=True, check_same_thread=False)
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
        return db

    @property
    def saved(self) -> int:
        """How many saves the writer was given (the number the layer tags outputs with)."""
        return 0 if self._writer is None else self._writer.saved

    def start(self, durable: Callable[[int], None], retry_s: float) -> None:
        """Hand the writes to a writer thread: from now on `save` queues, and `durable(n)` is
        called on the writer's thread each time the first `n` saves are kept. What was saved
        before is committed first (StoreError if the disk refuses)."""
        assert self._writer is None, "the writer is started"
        self.commit()
        self._writer = Writer(self.connect(), durable, retry_s)

    def flush(self) -> None:
        """Have the writer take what was saved: a server calls it once per turn of its event
        loop, so that a batch holds everything saved during the turn, not the first save alone."""
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Stop the writer, once it has kept what it was given or after a last failed try
        (within `CLOSE_WAIT_S`), and close the database."""
        if self._writer is not None:
            self._writer.stop(CLOSE_WAIT_S)
        self.db.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def snapshot(self, room: Room, events: Sequence[Event], now: int) -> Change:
        return change_of(room, events, now)

    def analysis_snapshot(self, game_id: str, analysis: GameAnalysis) -> AnalysisChange:
        return AnalysisChange(game_id, encode(AnalysisEvent(game_id, "done", analysis)))

    def tournament_snapshot(
        self, tid: str, status: str, body: str, games: Sequence[str]
    ) -> TournamentChange:
        """The record (which names its games: SQLite needs no index of them)."""
        return TournamentChange("tournament:" + tid, tid, status, body)

    def tournament(self, tid: str) -> str | None:
        with self._reading() as db:
            row = db.execute(
                "SELECT body FROM tournaments WHERE tournament_id = ?", (tid,)
            ).fetchone()
        return None if row is None else str(row[0])

    def tournaments(self) -> list[tuple[str, str]]:
        """Every tournament's id and record, oldest first."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT tournament_id, body FROM tournaments ORDER BY rowid"
            ).fetchall()
        return [(tid, body) for tid, body in rows]

    def save(self, change: AnyChange) -> None:
        """Keep a change (the room's state, the events with their moves). With the writer, queue
        it: durable when the writer says so. Without, write it into the open batch: all of it,
        or, raising StoreError, none of it; durable at the next `commit`."""
        if self._writer is not None:
            self._writer.put(change)
            return
        db = self.db
        try:
            if not db.in_transaction:
                db.execute("BEGIN IMMEDIATE")
            db.execute("SAVEPOINT save")
            try:
                _write(db, [change], self._written)
            except BaseException:
                db.execute("ROLLBACK TO save")
                raise
            finally:
                db.execute("RELEASE save")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot save game {change.game_id}: {exc}") from exc
        self._batch.append(change)

    def commit(self) -> None:
        """Without the writer: make every save since the last commit durable, with one fsync;
        StoreError if the disk refused it. The batch is kept then, and the next commit writes it
        all again."""
        assert self._writer is None, "the writer commits"
        db = self.db
        try:
            if self._lost:
                if db.in_transaction:
                    db.execute("ROLLBACK")  # only what came after the failed commit
                db.execute("BEGIN IMMEDIATE")
                self._written.clear()  # saves since the failure counted on rows it rolled back
                _write(db, self._batch, self._written)
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

    def unfinished(self) -> list[StoredGame]:
        """Every game not over, oldest first, with its seats, moves and events."""
        with self._reading() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM games WHERE status != 'over' ORDER BY created_ms, game_id"
            ).fetchall()
            return self._readable(db, rows)

    def finished(self, limit: int) -> list[StoredGame]:
        """The `limit` most recently finished games, the most recent last."""
        with self._reading() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM games WHERE status = 'over'"
                " ORDER BY updated_at DESC, game_id DESC LIMIT ?",
                (limit,),
            ).fetchall()
            return self._readable(db, rows[::-1])

    def _readable(self, db: sqlite3.Connection, rows: list[Any]) -> list[StoredGame]:
        """The games of `rows` that can be read; one that cannot (a column that is not the
        JSON it should be, a seat's spec of another version) is logged and left in the
        database, as a game that cannot be rebuilt is (`archive.rebuild`): one damaged row
        must not keep the server from serving the others."""
        games = []
        for row in rows:
            try:
                games.append(self._load(db, *row))
            except (ValueError, TypeError, KeyError) as exc:
                log.error("cannot restore game %s: unreadable row: %s", row[0], exc)
        return games

    def load(self, game_id: str) -> StoredGame | None:
        """One game, whatever its status, or None if there is no such game. If the writer has
        saves of it not yet kept, it waits for them (`LOAD_WAIT_S`, then StoreError): the game
        as committed before them is not the game as it is."""
        if self._writer is not None:
            self._writer.settle(game_id, LOAD_WAIT_S)
        with self._reading() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
            found = row.fetchone()
            return None if found is None else self._load(db, *found)

    def account(self, canonical: str) -> StoredAccount | None:
        with self._reading() as db:
            row = db.execute(
                "SELECT name, canonical, key_hash, bot, created_ms FROM accounts"
                " WHERE canonical = ?",
                (canonical,),
            ).fetchone()
        return None if row is None else StoredAccount(row[0], row[1], row[2], bool(row[3]), row[4])

    def create_account(self, account: StoredAccount) -> bool:
        return self._account_write(
            "INSERT OR IGNORE INTO accounts (canonical, name, key_hash, bot, created_ms)"
            " VALUES (?, ?, ?, ?, ?)",
            (account.canonical, account.name, account.key_hash, int(account.bot), account.created),
        )

    def set_key(self, canonical: str, key_hash: str) -> None:
        self._account_write(
            "UPDATE accounts SET key_hash = ? WHERE canonical = ?", (key_hash, canonical)
        )

    def _account_write(self, sql: str, values: tuple[object, ...]) -> bool:
        """One account's row written and committed on a connection of its own (a worker
        thread's, apart from the games' writer); whether a row changed."""
        deadline = time.monotonic() + ACCOUNT_WAIT_S
        while True:
            db = self.connect()
            try:
                db.execute(f"PRAGMA busy_timeout = {int(ACCOUNT_WAIT_S * 1000)}")
                return db.execute(sql, values).rowcount == 1
            except sqlite3.OperationalError as exc:
                # An in-memory database's tables are locked, not waited for: wait here.
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise StoreError(f"cannot write the account: {exc}") from exc
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write the account: {exc}") from exc
            finally:
                db.close()
            time.sleep(0.01)

    @contextlib.contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """The loop's connection in one read transaction: the writer may commit between the
        statements that read one game. Without the writer, in the open batch, if any."""
        db = self.db
        if db.in_transaction:
            yield db
            return
        db.execute("BEGIN")
        try:
            yield db
        finally:
            db.execute("COMMIT")

    @staticmethod
    def _load(
        db: sqlite3.Connection,
        game_id: str,
        game: str,
        options: str,
        clock: str | None,
        status: str,
        created: int,
        pace_ms: int,
        clocks: str | None,
        rated: int,
    ) -> StoredGame:
        seats = db.execute(
            "SELECT spec, name, token_hash FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
        ).fetchall()
        moves = db.execute(
            "SELECT seat, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
        ).fetchall()
        events = db.execute(
            "SELECT body FROM events WHERE game_id = ? ORDER BY v", (game_id,)
        ).fetchall()
        analysis = db.execute("SELECT body FROM analyses WHERE game_id = ?", (game_id,)).fetchone()
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
            rated=bool(rated),
            analysis=None if analysis is None else stored_analysis(analysis[0]),
        )

    # -- ratings (server/ratings.py's `RatingStore`) ---------------------------------------------

    def standing(self, pool: str, player: str) -> Standing | None:
        with self._reading() as db:
            row = db.execute(
                f"SELECT {_STANDING} FROM ratings WHERE pool = ? AND player = ?", (pool, player)
            ).fetchone()
        return None if row is None else _standing(row)

    def leaderboard(self, pools: Sequence[str], limit: int) -> list[tuple[str, str, Standing]]:
        board: list[tuple[str, str, Standing]] = []
        with self._reading() as db:
            for pool in pools:
                rows = db.execute(
                    f"SELECT player, {_STANDING} FROM ratings WHERE pool = ?"
                    " ORDER BY rating DESC, player LIMIT ?",
                    (pool, limit),
                ).fetchall()
                board += [(pool, player, _standing(rest)) for player, *rest in rows]
        return board

    def standings(self, player: str) -> list[tuple[str, Standing]]:
        with self._reading() as db:
            rows = db.execute(
                f"SELECT pool, {_STANDING} FROM ratings WHERE player = ? ORDER BY pool", (player,)
            ).fetchall()
        return [(pool, _standing(rest)) for pool, *rest in rows]

    def rated_games(self, player: str | None, limit: int) -> list[RatedGame]:
        columns = "game_id, pool, finished_ms, player0, player1, score, before, after"
        with self._reading() as db:
            if player is None:
                rows = db.execute(f"SELECT {columns} FROM rated_games ORDER BY seq").fetchall()
            else:
                rows = db.execute(
                    f"SELECT {columns} FROM rated_games WHERE player0 = ?1 OR player1 = ?1"
                    " ORDER BY seq DESC LIMIT ?2",
                    (player, limit),
                ).fetchall()
        return [
            RatedGame(
                game_id,
                pool,
                finished,
                (player0, player1),
                score,
                _pair_of(before),
                _pair_of(after),
            )
            for game_id, pool, finished, player0, player1, score, before, after in rows
        ]


_CONFLICTS = frozenset(
    {
        "SQLITE_CONSTRAINT_PRIMARYKEY",
        "SQLITE_CONSTRAINT_UNIQUE",
        "SQLITE_CONSTRAINT_FOREIGNKEY",
        "SQLITE_CONSTRAINT_NOTNULL",
        "SQLITE_CONSTRAINT_CHECK",
        "SQLITE_CONSTRAINT_DATATYPE",
    }
)
"""Refusals of the rows themselves (a row already there under their key, a game row missing,
a value the schema refuses): written again, the same rows are refused again, for ever. Not a
trigger's RAISE, which the schema has none of (the tests make one stand for a failing disk),
nor a locked, full or failing disk, which a pause may cure."""


def _conflict(exc: sqlite3.IntegrityError) -> bool:
    """Whether a write failed on `_CONFLICTS`: trying it again cannot help."""
    return exc.sqlite_errorname in _CONFLICTS


class Writer:
    """The thread that owns the writing connection: it writes every change flushed to it during
    its previous write in one transaction with one COMMIT, then calls `durable` with how many
    saves are kept. The loop only queues (`put`), flushes once per turn (`flush`) and, to read a
    game, waits for its saves (`settle`)."""

    def __init__(self, db: sqlite3.Connection, durable: Callable[[int], None], retry_s: float):
        self.db = db
        self.durable = durable
        self.retry_s = retry_s
        self.saved = 0
        """Saves queued so far, kept or not (the loop's count)."""
        self.kept = 0
        """Of them, how many are durable."""
        self._queue: list[AnyChange] = []
        self._flushed = 0
        """The writer may take the first this many saves (`flush`)."""
        self._unsettled: dict[str, int] = {}
        """Games with saves not yet kept, with the number of their last save."""
        self._stopping = False
        self._changed = threading.Condition()
        """Guards the fields above: the loop queues, the writer takes and keeps."""
        self._refused: set[str] = set()
        """Games the database refused a change of (`_conflict`): none of their changes is
        written any more (the writer's thread alone uses it)."""
        self._thread = threading.Thread(target=self._run, name="ubao-store-writer", daemon=True)
        self._thread.start()

    def put(self, change: AnyChange) -> None:
        """Queue a change (on the loop: no I/O), for the next `flush`."""
        with self._changed:
            self.saved += 1
            self._queue.append(change)
            self._unsettled[change.game_id] = self.saved

    def flush(self) -> None:
        """Let the writer take everything queued."""
        with self._changed:
            self._flushed = self.saved
            self._changed.notify()

    def settle(self, game_id: str, timeout_s: float) -> None:
        """Return once every save of the game queued so far is kept; StoreError if that takes
        longer than `timeout_s` (the disk is failing)."""
        with self._changed:
            last = self._unsettled.get(game_id)
            if last is not None:
                self._flushed = self.saved
                self._changed.notify()
            if last is not None and not self._changed.wait_for(
                lambda: self.kept >= last, timeout_s
            ):
                raise StoreError(f"cannot read game {game_id}: its changes are not kept yet")

    def stop(self, timeout_s: float) -> None:
        """Write what is queued, then end (a failing write is not tried again); give up on the
        thread after `timeout_s` (a daemon: it does not keep the process alive)."""
        with self._changed:
            self._stopping = True
            self._changed.notify()
        self._thread.join(timeout_s)
        if self._thread.is_alive():
            log.error("the store's writer did not finish in %.1f s", timeout_s)

    def _run(self) -> None:
        db = self.db
        written: dict[str, StoredSeats] = {}
        batch: list[AnyChange] = []
        """What the next transaction writes: what failed before, then what came since."""
        try:
            while True:
                with self._changed:
                    while not batch and not self._stopping and self._flushed <= self.kept:
                        self._changed.wait()
                    if not self._queue and not batch:
                        return  # stopping, and everything is kept
                    batch += self._queue
                    self._queue = []
                    upto = self.saved
                try:
                    self._commit(batch, written)
                except Exception as exc:  # the disk's refusal, or a bug: kept until written
                    if db.in_transaction:
                        with contextlib.suppress(sqlite3.Error):
                            db.execute("ROLLBACK")
                    written.clear()  # none of it is written: the next try writes it all
                    log.error("cannot commit %d change(s): %s; trying again", len(batch), exc)
                    with self._changed:
                        if self._changed.wait_for(lambda: self._stopping, self.retry_s):
                            log.error("stopped: %d change(s) not kept", self.saved - self.kept)
                            return
                    continue
                with self._changed:
                    self.kept = upto
                    for change in batch:
                        if self._unsettled.get(change.game_id, upto + 1) <= upto:
                            del self._unsettled[change.game_id]
                    self._changed.notify_all()
                batch = []
                self.durable(upto)
        finally:
            db.close()

    def _commit(self, batch: list[AnyChange], written: dict[str, StoredSeats]) -> None:
        """Write the batch in one transaction and commit it (one fsync). If the database
        refuses a row for good (`_conflict`), write the changes apart (`_write_apart`) rather
        than try the batch again for ever, which would hold every game up behind one."""
        db = self.db
        refused = self._refused
        changes = (
            [change for change in batch if change.game_id not in refused] if refused else batch
        )
        db.execute("BEGIN IMMEDIATE")
        try:
            _write(db, changes, written)
        except sqlite3.IntegrityError as exc:
            if not _conflict(exc):
                raise
            db.execute("ROLLBACK")
            written.clear()  # none of it is written: write it all
            db.execute("BEGIN IMMEDIATE")
            self._write_apart(changes, written)
        db.execute("COMMIT")

    def _write_apart(self, changes: list[AnyChange], written: dict[str, StoredSeats]) -> None:
        """Write each change in a savepoint of its own, in the open transaction. A change the
        database refuses for good is left out, logged once with its game, and so is every later
        change of that game: what is stored of a game stays a beginning of it that a restart
        can replay (a record with a hole in its moves or events could not be), and the other
        games' changes are kept. The game goes on in memory, and its players hear of it as of
        any kept change: holding it back would hold every game up, for ever."""
        db = self.db
        for change in changes:
            if change.game_id in self._refused:
                continue
            db.execute("SAVEPOINT apart")
            try:
                _write(db, [change], written)
            except sqlite3.IntegrityError as exc:
                if not _conflict(exc):
                    raise
                db.execute("ROLLBACK TO apart")
                self._refused.add(change.game_id)
                log.error(
                    "game %s: the database refuses its change to version %d for good (%s): "
                    "the game is not stored any more; it stays as stored before",
                    change.game_id,
                    change.v,
                    exc,
                )
            db.execute("RELEASE apart")


_STANDING = "rating, rd, volatility, games, wins, draws, losses"
"""The columns of `ratings` that `_standing` reads, in its order."""


def _pair_of(text: str) -> tuple[Standing, Standing]:
    first, second = json.loads(text)
    return _standing(first), _standing(second)


def _event(body: bytes) -> Event:
    event = decode_server_message(body)
    if not isinstance(event, Moved | Over | SeatEvent | TakebackRequest | DrawOffer):
        raise RuntimeError(f"stored event is a {event.type}")
    return event
