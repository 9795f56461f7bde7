"""Takeback requests in the sans-I/O core: asking, answering, bots granting at once, clocks,
every refusal changing nothing, a failed write, and the rewound game surviving a restart."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from tests.support.server import (
    SMALL_KALAH,
    Client,
    Harness,
    Peer,
    kinds,
    running_server,
    small_limits,
    started,
)
from ubao.protocol import (
    ClockSpec,
    Create,
    Error,
    ErrorCode,
    Join,
    Move,
    Moved,
    Ok,
    Resign,
    Resume,
    SeatSpec,
    Snapshot,
    Takeback,
    TakebackAnswer,
    TakebackRequest,
    Watch,
)
from ubao.server.stores.sqlite import Store


def play(peer: Peer, game_id: str, token: str, ply: int, text: str) -> list[Any]:
    got = peer.send(Move(id=peer.next_id(), game_id=game_id, token=token, ply=ply, move=text))
    assert isinstance(got[0], Ok), got
    return got


def ask(peer: Peer, game_id: str, token: str, ply: int) -> list[Any]:
    return peer.send(Takeback(id=peer.next_id(), game_id=game_id, token=token, ply=ply))


def answer(peer: Peer, game_id: str, token: str, ply: int, accept: bool) -> list[Any]:
    command = TakebackAnswer(
        id=peer.next_id(), game_id=game_id, token=token, ply=ply, accept=accept
    )
    return peer.send(command)


def refused(got: list[Any], code: ErrorCode) -> None:
    assert len(got) == 1 and isinstance(got[0], Error) and got[0].code == code, got


def test_a_move_taken_back_on_the_opponents_turn_is_asked_then_accepted() -> None:
    h = Harness()
    game_id, south, s_token, north, n_token = started(h)
    watcher = h.player("eve", role="spectator")
    watcher.ok(Watch(id=1, game_id=game_id))
    play(south, game_id, s_token, 0, "1")
    got = ask(south, game_id, s_token, 1)
    assert isinstance(got[0], Ok)
    asked = got[1]
    assert isinstance(asked, TakebackRequest) and (asked.seat, asked.state) == (0, "asked")
    assert north.inbox[-1] == asked == watcher.inbox[-1]
    assert h.core.rooms[game_id].pending_takeback() == 0

    got = answer(north, game_id, n_token, 1, True)
    assert isinstance(got[0], Ok)
    accepted = south.inbox[-1]
    assert isinstance(accepted, TakebackRequest) and accepted.state == "accepted"
    assert (accepted.ply, accepted.to_move, accepted.position) == (
        0,
        0,
        "kalah(3,2) S 2,2,2/2,2,2 0,0",
    )
    assert accepted.legal == ("1", "2", "3")  # the seat to move gets its moves
    assert got[1] == watcher.inbox[-1] == dataclasses.replace(accepted, legal=None)
    room = h.core.rooms[game_id]
    assert (room.history, room.to_move, room.pending_takeback()) == ([], 0, None)
    assert h.store.db.execute("SELECT count(*) FROM moves").fetchone()[0] == 0
    play(south, game_id, s_token, 0, "2")  # the game goes on from there


def test_on_the_askers_turn_its_move_and_the_reply_are_taken_back() -> None:
    h = Harness()
    game_id, south, s_token, north, n_token = started(h)
    play(south, game_id, s_token, 0, "1")
    play(north, game_id, n_token, 1, "3")
    play(south, game_id, s_token, 2, "1")
    play(north, game_id, n_token, 3, "1")
    room = h.core.rooms[game_id]
    assert room.to_move == 0 and room.ply == 4
    ask(south, game_id, s_token, 4)
    answer(north, game_id, n_token, 4, True)
    assert (room.history, room.to_move) == (["1", "3"], 0)
    assert [row[0] for row in h.store.db.execute("SELECT move FROM moves ORDER BY ply")] == [
        "1",
        "3",
    ]


def test_a_declined_request_changes_nothing_and_a_move_ends_a_pending_one() -> None:
    h = Harness()
    game_id, south, s_token, north, n_token = started(h)
    play(south, game_id, s_token, 0, "1")
    ask(south, game_id, s_token, 1)
    got = answer(north, game_id, n_token, 1, False)
    declined = got[1]
    assert isinstance(declined, TakebackRequest) and declined.state == "declined"
    assert south.inbox[-1] == declined and h.core.rooms[game_id].history == ["1"]
    refused(answer(north, game_id, n_token, 1, True), ErrorCode.NO_TAKEBACK_REQUEST)

    ask(south, game_id, s_token, 1)
    play(north, game_id, n_token, 1, "3")  # moving instead of answering declines
    assert h.core.rooms[game_id].pending_takeback() is None
    refused(answer(north, game_id, n_token, 2, True), ErrorCode.NO_TAKEBACK_REQUEST)


def test_every_bad_request_or_answer_gets_a_typed_error_and_changes_nothing() -> None:
    h = Harness()
    south, north = h.player("south"), h.player("north")
    game_id = south.create()
    _, s_token, _ = south.join(game_id, 0)
    refused(ask(south, game_id, s_token, 0), ErrorCode.NOT_STARTED)
    _, n_token, _ = north.join(game_id, 1)
    refused(ask(south, game_id, s_token, 0), ErrorCode.NOTHING_TO_TAKE_BACK)
    play(south, game_id, s_token, 0, "1")
    refused(ask(north, game_id, n_token, 1), ErrorCode.NOTHING_TO_TAKE_BACK)
    refused(ask(south, "nope", s_token, 1), ErrorCode.UNKNOWN_GAME)
    refused(ask(south, game_id, "not-a-token", 1), ErrorCode.NOT_YOUR_SEAT)
    refused(ask(north, game_id, s_token, 1), ErrorCode.NOT_YOUR_SEAT)  # held elsewhere
    refused(ask(south, game_id, s_token, 0), ErrorCode.STALE_PLY)
    refused(ask(south, game_id, s_token, 2), ErrorCode.BAD_PLY)
    refused(answer(north, game_id, n_token, 1, True), ErrorCode.NO_TAKEBACK_REQUEST)
    spectator = h.player("eve", role="spectator")
    refused(ask(spectator, game_id, s_token, 1), ErrorCode.NOT_YOUR_SEAT)
    ask(south, game_id, s_token, 1)
    refused(ask(south, game_id, s_token, 1), ErrorCode.TAKEBACK_PENDING)
    refused(answer(south, game_id, s_token, 1, True), ErrorCode.NO_TAKEBACK_REQUEST)
    room = h.core.rooms[game_id]
    v = room.v
    refused(answer(north, game_id, n_token, 0, True), ErrorCode.STALE_PLY)
    assert (room.v, room.history, room.pending_takeback()) == (v, ["1"], 0)
    south.ok(Resign(id=99, game_id=game_id, token=s_token))
    refused(ask(south, game_id, s_token, 1), ErrorCode.GAME_OVER)
    refused(answer(north, game_id, n_token, 1, True), ErrorCode.GAME_OVER)


def test_a_server_bot_grants_at_once_and_its_stale_turn_is_not_played() -> None:
    h = Harness()
    south = h.player("south")
    game_id = south.create(SeatSpec.open(), SeatSpec.bot(2))
    _, token, _ = south.join(game_id, 0)
    play(south, game_id, token, 0, "1")
    (turn,) = h.bot_turns
    got = ask(south, game_id, token, 1)
    assert isinstance(got[0], Ok) and [(e.type, e.state) for e in got[1:]] == [
        ("takeback_request", "accepted")
    ]
    play(south, game_id, token, 0, "3")
    assert h.core.bot_moved(turn, "1", None) is True  # settled, but for a position gone by
    room = h.core.rooms[game_id]
    assert room.history == ["3"]
    assert [t.moves for t in h.bot_turns] == [("1",), ("3",)]  # the bot is asked anew
    assert h.core.bot_moved(h.bot_turns[-1], "1", None) is True
    assert room.history == ["3", "1"]


def test_clocks_keep_the_time_spent_and_run_for_the_seat_to_move() -> None:
    h = Harness()
    game_id, south, s_token, north, n_token = started(h, clock=ClockSpec(60_000, 1_000))
    play(south, game_id, s_token, 0, "1")  # each player's first move is untimed
    h.clock.advance(2_000)
    play(north, game_id, n_token, 1, "3")  # North's first move, untimed; South's clock runs
    h.clock.advance(3_000)
    ask(north, game_id, n_token, 2)
    h.clock.advance(1_000)
    answer(south, game_id, s_token, 2, True)
    event = north.inbox[-1]
    assert isinstance(event, TakebackRequest) and event.clocks is not None
    # South keeps the time spent; North's first move is to be made again, untimed.
    assert event.clocks.remaining_ms == (56_000, 60_000) and event.clocks.running is None
    ask(south, game_id, s_token, 1)
    answer(north, game_id, n_token, 1, True)  # back at the start: no clock runs
    event = south.inbox[-1]
    assert isinstance(event, TakebackRequest) and event.clocks is not None
    assert event.clocks.running is None and event.ply == 0


def test_a_rewound_game_and_a_pending_request_survive_a_restart() -> None:
    store = Store(":memory:")
    h = Harness(small_limits(grace_ms=10_000), store=store)
    game_id, south, s_token, north, n_token = started(h)
    play(south, game_id, s_token, 0, "1")
    play(north, game_id, n_token, 1, "3")
    play(south, game_id, s_token, 2, "1")
    ask(north, game_id, n_token, 3)
    answer(south, game_id, s_token, 3, True)  # back to ply 1, North to move
    seen = north.inbox[-1].v  # type: ignore[union-attr]
    ask(south, game_id, s_token, 1)  # and asked again: pending at the restart
    h.shutdown()
    old = h.core.rooms[game_id]
    later = Harness(small_limits(grace_ms=10_000), store=store)
    assert later.core.restore() == 1
    room = later.core.rooms[game_id]
    assert (room.position, room.history, room.movers, room.v, room.events) == (
        old.position,
        old.history,
        old.movers,
        old.v,
        old.events,
    )
    assert room.history == ["1"] and room.pending_takeback() == 0
    back = later.player("north")
    got = back.send(Resume(id=1, game_id=game_id, token=n_token, since_v=seen))
    assert [m.type for m in got] == ["ok", "takeback_request", "seat"]
    answer(back, game_id, n_token, 1, False)
    play(back, game_id, n_token, 1, "2")  # the ply taken back is played anew, and stored
    assert isinstance(back.inbox[-1], Moved)
    moves = store.db.execute(
        "SELECT ply, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
    )
    assert [tuple(r) for r in moves] == [(0, "1"), (1, "2")]


# -- over a real server, and across a restart of it ----------------------------------------------


async def until_accepted(client: Client) -> TakebackRequest:
    while True:
        event = await client.event_of(TakebackRequest)
        if event.state == "accepted":
            return event  # type: ignore[no-any-return]


async def test_a_takeback_over_the_wire_is_followed_by_watchers_and_survives_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.sqlite3"
    async with (
        running_server(db=db) as server,
        Client.connected(server.port, "south") as south,
        Client.connected(server.port, "north") as north,
        Client.connected(server.port, "fan", "spectator") as fan,
    ):
        created = await south.ok(
            Create(id=0, game="kalah", options=SMALL_KALAH, seats=(SeatSpec.open(),) * 2)
        )
        game_id = created.game_id
        assert game_id is not None
        s_token = (await south.ok(Join(id=0, game_id=game_id, seat=0))).token
        n_token = (await north.ok(Join(id=0, game_id=game_id, seat=1))).token
        assert s_token is not None and n_token is not None
        await fan.ok(Watch(id=0, game_id=game_id))
        await south.ok(Move(id=0, game_id=game_id, token=s_token, ply=0, move="1"))
        await north.ok(Move(id=0, game_id=game_id, token=n_token, ply=1, move="3"))
        await north.ok(Takeback(id=0, game_id=game_id, token=n_token, ply=2))
        asked = await south.event_of(TakebackRequest)
        assert (asked.seat, asked.state) == (1, "asked")
        await south.ok(TakebackAnswer(id=0, game_id=game_id, token=s_token, ply=2, accept=True))
        accepted = await until_accepted(north)
        assert (accepted.ply, accepted.to_move, accepted.legal) == (1, 1, ("1", "2", "3"))
        watched = [await fan.event() for _ in range(5)]
        assert [e.type for e in watched] == [
            "snapshot",
            "moved",
            "moved",
            "takeback_request",
            "takeback_request",
        ]
        assert watched[-1] == dataclasses.replace(accepted, legal=None)
        seen = watched[2].v

    async with (
        running_server(db=db) as server,
        Client.connected(server.port, "north") as north,
        Client.connected(server.port, "fan", "spectator") as fan,
    ):
        await fan.ok(Watch(id=0, game_id=game_id, since_v=seen))
        replayed = [await fan.event(), await fan.event()]
        assert replayed == watched[3:]
        await north.ok(Resume(id=0, game_id=game_id, token=n_token, since_v=0))
        snapshot = await north.event_of(Snapshot)
        assert (snapshot.history, snapshot.to_move, snapshot.legal) == (("1",), 1, ("1", "2", "3"))
        await north.ok(Move(id=0, game_id=game_id, token=n_token, ply=1, move="2"))


def test_moving_instead_of_answering_declines_a_takeback_aloud_but_not_the_askers_move() -> None:
    h = Harness()
    game_id, south, s_token, north, n_token = started(h)
    room = h.core.rooms[game_id]
    play(south, game_id, s_token, 0, "1")
    south.send(Takeback(id=south.next_id(), game_id=game_id, token=s_token, ply=1))
    got = play(north, game_id, n_token, 1, room.legal()[0])
    declined, moved = got[1:]
    assert isinstance(declined, TakebackRequest) and isinstance(moved, Moved)
    assert (declined.seat, declined.state, declined.ply) == (0, "declined", 1)
    assert moved.v == declined.v + 1 and south.inbox[-2] == declined
    assert south.inbox[-1] == dataclasses.replace(moved, legal=room.legal())
    assert room.pending_takeback() is None
    rows = h.store.db.execute("SELECT v, type FROM events WHERE game_id = ?", (game_id,))
    assert [tuple(r) for r in rows][-2:] == [(declined.v, "takeback_request"), (moved.v, "moved")]

    # The asker moving on its own turn withdraws its request: no event but the move.
    assert room.to_move == 0
    south.send(Takeback(id=south.next_id(), game_id=game_id, token=s_token, ply=2))
    assert room.pending_takeback() == 0
    got = play(south, game_id, s_token, 2, room.legal()[0])
    assert kinds(got) == ["ok", "moved"] and room.pending_takeback() is None
