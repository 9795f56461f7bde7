"""What a move costs the server, and that the shortcuts keep every guarantee: the store writes
only what a move changes, each event is encoded once for the disk and the watchers, a player's
frames of one commit go out in one write, deadlines come from an index that follows every
change, and rooms of one game share its rules."""

from __future__ import annotations

import contextlib
import re
import sqlite3
from pathlib import Path

import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from tests.support.server import Client, Harness, running_server, small_limits
from tests.support.wire import CommitFails, create, join
from ubao.protocol import ClockSpec, Move, Moved, Over, Watch, encode
from ubao.server.app import Outbox, websocket_frame
from ubao.server.outputs import Save, SendMessage
from ubao.server.stores.protocol import StoreError
from ubao.server.stores.sqlite import Store

WRITE = re.compile(r"\s*(INSERT INTO|UPDATE|DELETE FROM)\s+(\w+)")


def test_a_move_writes_its_move_its_event_and_the_games_state_and_nothing_static() -> None:
    h = Harness()
    south, north = h.player("south"), h.player("north")
    game_id = south.create()
    _, token, _ = south.join(game_id, 0)
    north.join(game_id, 1)
    statements: list[str] = []
    h.store.db.set_trace_callback(statements.append)
    south.ok(Move(id=9, game_id=game_id, token=token, ply=0, move="1"))
    h.store.db.set_trace_callback(None)
    writes = [m.groups() for m in map(WRITE.match, statements) if m]
    assert writes == [("UPDATE", "games"), ("INSERT INTO", "moves"), ("INSERT INTO", "events")]
    row = h.store.db.execute("SELECT ply, v FROM games WHERE game_id = ?", (game_id,)).fetchone()
    assert row == (1, h.core.rooms[game_id].v)


def test_a_game_changed_after_a_failed_commit_is_written_whole_by_the_next(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ubao.sqlite3"
    store = Store(path)
    h = Harness(store=store)
    south, north = h.player("south"), h.player("north")
    game_id = south.create()
    store.db = CommitFails(store.db)  # type: ignore[assignment]
    with pytest.raises(StoreError):
        store.commit()  # the game's row is gone: the next saves cannot just update it
    _, token, _ = south.join(game_id, 0)
    north.join(game_id, 1)
    south.ok(Move(id=9, game_id=game_id, token=token, ply=0, move="1"))
    store.commit()
    with contextlib.closing(sqlite3.connect(path)) as other:
        game = other.execute("SELECT status, ply FROM games WHERE game_id = ?", (game_id,))
        seats = other.execute("SELECT name FROM seats WHERE game_id = ? ORDER BY seat", (game_id,))
        assert game.fetchone() == ("playing", 1)
        assert [name for (name,) in seats] == ["south", "north"]
    store.close()


def test_the_stored_event_is_the_very_frame_its_watchers_get() -> None:
    h = Harness()
    south, north, fan = h.player("south"), h.player("north"), h.player("fan", "spectator")
    game_id = south.create()
    _, token, _ = south.join(game_id, 0)
    north.join(game_id, 1)
    fan.ok(Watch(id=fan.next_id(), game_id=game_id))
    h.core.receive(south.conn, encode(Move(id=9, game_id=game_id, token=token, ply=0, move="1")))
    outputs = h.core.outputs()
    for save in [out for out in outputs if isinstance(out, Save)]:
        h.store.save(save.change)
    sends = [out for out in outputs if isinstance(out, SendMessage)]
    (shared,) = [send for send in sends if send.frame is not None]
    assert isinstance(shared.message, Moved) and shared.message.legal is None
    assert set(shared.to) == {south.conn, fan.conn}
    body = h.store.db.execute(
        "SELECT body FROM events WHERE game_id = ? AND v = ?", (game_id, shared.message.v)
    ).fetchone()[0]
    assert shared.frame == body == encode(shared.message)
    (personal,) = [send for send in sends if isinstance(send.message, Moved) and not send.frame]
    assert personal.to == (north.conn,) and isinstance(personal.message, Moved)
    assert personal.message.legal  # the seat to move gets its own copy, with its legal moves


def test_deadlines_of_many_games_follow_every_change() -> None:
    h = Harness(small_limits(grace_ms=60_000))
    games = []
    for minutes in (1, 2, 3):
        south, north = h.player("south"), h.player("north")
        game_id = south.create(clock=ClockSpec(minutes * 60_000, 0))
        _, s_token, _ = south.join(game_id, 0)
        _, n_token, _ = north.join(game_id, 1)
        south.ok(Move(id=9, game_id=game_id, token=s_token, ply=0, move="1"))
        north.ok(Move(id=9, game_id=game_id, token=n_token, ply=1, move="1"))  # clocks start
        games.append((game_id, south, s_token))
    start = h.clock()
    assert h.core.next_deadline() == start + 60_000  # the first game's south flag
    h.clock.advance(30_000)
    first, south, s_token = games[0]
    south.ok(Move(id=9, game_id=first, token=s_token, ply=2, move="2"))
    # The first game's flag is north's now, a minute from south's move.
    assert h.core.next_deadline() == start + 90_000
    h.advance(30_000)  # where the first game's flag was: nothing falls
    assert all(h.core.rooms[game_id].status == "playing" for game_id, _, _ in games)
    h.advance(30_000)
    assert isinstance(h.core.rooms[first].events[-1], Over)
    assert h.core.rooms[games[1][0]].status == "playing"
    assert h.core.next_deadline() == start + 120_000
    h.advance(30_000 - 1)
    assert h.core.rooms[games[1][0]].status == "playing"
    h.advance(1)
    assert h.core.rooms[games[1][0]].status == "over"
    assert h.core.next_deadline() == start + 180_000


def test_rooms_of_the_same_game_and_options_share_one_rules_object() -> None:
    h = Harness()
    ada = h.player()
    first, second = ada.create(), ada.create()
    other = ada.create(options={"pits": 4, "seeds": 2})
    rooms = h.core.rooms
    assert rooms[first].game is rooms[second].game
    assert rooms[other].game is not rooms[first].game
    assert rooms[other].game.describe() != rooms[first].game.describe()


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65_535, 65_536])
def test_a_frame_framed_once_is_what_websockets_reads(size: int) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    reader = StreamReader()
    reader.feed_data(websocket_frame(payload) * 2)
    parser = Frame.parse(reader.read_exact, mask=False)
    with pytest.raises(StopIteration) as stop:
        next(parser)
    frame = stop.value.value
    assert (frame.opcode, frame.fin, frame.data) == (Opcode.BINARY, True, payload)


async def test_a_players_reply_and_its_move_go_out_in_one_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writes: list[bytes] = []
    send = Outbox.send

    def record(self: Outbox, frames: bytes) -> None:
        writes.append(frames)
        send(self, frames)

    monkeypatch.setattr(Outbox, "send", record)
    async with (
        running_server() as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
    ):
        game_id = await create(south)
        token = await join(south, game_id, 0)
        await join(north, game_id, 1)
        ok = await south.ok(Move(id=0, game_id=game_id, token=token, ply=0, move="1"))
        moved = await south.event_of(Moved)
    assert moved.ply == 0 and moved.legal is None
    assert websocket_frame(encode(ok)) + websocket_frame(encode(moved)) in writes
