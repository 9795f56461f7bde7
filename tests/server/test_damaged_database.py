"""A damaged database: refused at open with exit status 2 and one line (damaged pages, a table
gone), and a game whose row cannot be read or whose moves disagree with its event log left in
the database as it is while every other game is served."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.server import Harness, move, started_game
from tests.support.wire import ROOT
from ubao.server.stores.sqlite import Store, UnusableDatabase


def games_played(path: Path, games: int, moves: int = 2) -> list[str]:
    """`games` Kalah games, each with `moves` moves (the first legal one each time), in the
    database at `path`; their ids."""
    h = Harness(store=Store(path))
    ids = []
    for _ in range(games):
        game_id, south, south_token, north, north_token = started_game(h)
        room = h.core.rooms[game_id]
        for ply in range(moves):
            peer, token = (south, south_token) if room.to_move == 0 else (north, north_token)
            move(peer, game_id, token, ply, room.legal()[0])
        assert room.ply == moves
        ids.append(game_id)
    h.store.commit()
    h.store.close()
    return ids


def restored(path: Path) -> dict[str, int]:
    """The games a server restores from `path`, with their plies."""
    h = Harness(store=Store(path))
    h.core.restore()
    plies = {game_id: room.ply for game_id, room in h.core.rooms.items() if room.status != "over"}
    h.store.close()
    return plies


def serve(path: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ubao.server", "--db", str(path), "--port", "0"]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_damaged_pages_exit_2_with_one_line(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    games_played(db, 15, moves=5)
    data = bytearray(db.read_bytes())
    assert len(data) > 8 * 4096
    for page in range(2, len(data) // 4096):  # every page but the schema's: scrambled
        data[page * 4096 : page * 4096 + 64] = bytes(range(64))
    db.write_bytes(bytes(data))
    result = serve(db)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"ubao-server: cannot use --db {db}: it is damaged"
    )


def test_a_schema_without_its_moves_table_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    games_played(db, 3)
    with sqlite3.connect(db) as raw:
        raw.execute("DROP TABLE moves")
    with pytest.raises(UnusableDatabase, match="has no table moves"):
        Store(db)
    with sqlite3.connect(db) as raw:  # nothing was recreated or rewritten
        assert raw.execute(
            "SELECT count(*) FROM sqlite_master WHERE name = 'moves'"
        ).fetchone() == (0,)


def test_one_unreadable_row_leaves_the_other_games_served(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    bad, *good = games_played(db, 3)
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE games SET options = '{not json' WHERE game_id = ?", (bad,))
    assert restored(db) == dict.fromkeys(good, 2)


def test_moves_that_disagree_with_the_event_log_leave_the_game_alone(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    emptied, shortened, *good = games_played(db, 4, moves=3)
    with sqlite3.connect(db) as raw:
        raw.execute("DELETE FROM moves WHERE game_id = ?", (emptied,))
        raw.execute("DELETE FROM moves WHERE game_id = ? AND ply = 2", (shortened,))
    h = Harness(store=Store(db))
    h.core.restore()
    assert {g: r.ply for g, r in h.core.rooms.items()} == dict.fromkeys(good, 3)
    h.shutdown()
    h.store.commit()
    h.store.close()
    with sqlite3.connect(db) as raw:  # not rewritten at ply 0 on the way out
        rows = raw.execute(
            "SELECT game_id, ply FROM games WHERE game_id IN (?, ?)", (emptied, shortened)
        )
        assert dict(rows.fetchall()) == {emptied: 3, shortened: 3}


def test_a_damaged_tournament_record_is_left_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "ubao.sqlite3"
    (game_id,) = games_played(db, 1)
    with sqlite3.connect(db) as raw:
        raw.execute("INSERT INTO tournaments VALUES ('t1', 'running', '{\"settings\": 7')")
    assert restored(db) == {game_id: 2}
    assert "cannot restore tournament t1" in caplog.text
