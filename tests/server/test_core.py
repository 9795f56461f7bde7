"""The session core without sockets: seats, tokens, versions, acks, clocks, limits, bots' turns
and restoring from the store, driven by hand with a fake clock."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import msgpack
import pytest

from tests.support.server import (
    SMALL_KALAH,
    Harness,
    move,
    small_limits,
    started_game,
)
from ubao.engine.game import IllegalMoveError, Outcome, Step
from ubao.engine.games import GAMES, MANCALA_SIDES, GameInfo
from ubao.engine.mancala.game import Kalah
from ubao.engine.searchable import Searchable
from ubao.protocol import (
    Abort,
    AppCloseCode,
    BotInfo,
    Clocks,
    ClockSpec,
    Create,
    Draw,
    DrawAnswer,
    DrawOffer,
    Error,
    ErrorCode,
    Hello,
    Join,
    ListGames,
    Move,
    Moved,
    Ok,
    Over,
    Ping,
    Resign,
    Result,
    Resume,
    SeatEvent,
    SeatSpec,
    Snapshot,
    Watch,
)
from ubao.server.core import Core
from ubao.server.games import new_game_id
from ubao.server.limits import Limits
from ubao.server.outputs import POLICY_VIOLATION
from ubao.server.room import Bounds
from ubao.server.stores.sqlite import SCHEMA_VERSION, Store


def versions(events: list[Any]) -> list[int]:
    return [event.v for event in events]


# -- handshake ---------------------------------------------------------------------------------


def test_hello_answers_with_protocol_version_and_session() -> None:
    h = Harness()
    ok = h.connect().hello()
    assert ok.proto == 1 and ok.session


def test_unsupported_version_is_refused_and_closed_with_an_app_code() -> None:
    h = Harness()
    peer = h.connect()
    error = peer.error(Hello(id=7, proto=2, name="x", role="human"))
    assert (error.id, error.code) == (7, ErrorCode.UNSUPPORTED_VERSION)
    assert peer.closed is not None and peer.closed[0] == AppCloseCode.UNSUPPORTED_VERSION


def test_commands_before_hello_are_refused_but_ping_is_answered() -> None:
    h = Harness()
    peer = h.connect()
    assert peer.error(ListGames(id=1)).code == ErrorCode.HELLO_REQUIRED
    pong = peer.ok(Ping(id=2, t=123))
    assert (pong.id, pong.t, pong.server_t) == (2, 123, 42)


def test_a_second_hello_is_refused() -> None:
    h = Harness()
    peer = h.player()
    assert peer.error(Hello(id=9, proto=1, name="b", role="bot")).code == ErrorCode.BAD_MESSAGE


def test_bad_frames_get_bad_message_and_are_counted_by_reason() -> None:
    h = Harness()
    peer = h.player()
    assert [m.code for m in peer.send_raw(b"\xc1")] == ["bad_message"]  # type: ignore[union-attr]
    got = peer.send_raw(msgpack.packb({"type": "move", "id": 4}))
    assert got[0].id == 4  # type: ignore[union-attr]
    assert h.core.rejected == {"bad_message:malformed": 1, "bad_message:bad_field": 1}


# -- creating and joining ----------------------------------------------------------------------


def test_create_validates_the_game_its_options_and_bot_settings() -> None:
    h = Harness()
    peer = h.player()
    seats = (SeatSpec.open(), SeatSpec.open())
    bad = [
        Create(id=1, game="kalah", options={"pits": 99}, seats=seats),
        Create(id=2, game="kalah", options={"colour": "red"}, seats=seats),
        Create(id=3, game="kalah", options={}, seats=(SeatSpec.bot(2, eval="nope"), seats[1])),
        Create(id=4, game="kalah", options={}, seats=(SeatSpec.bot(2, algorithm="mcts"), seats[1])),
    ]
    for command in bad:
        error = peer.error(command)
        assert (error.id, error.code) == (command.id, ErrorCode.BAD_OPTIONS), error
    assert h.core.rooms == {}


def test_a_game_the_engine_does_not_have_is_bad_options_and_creates_nothing() -> None:
    h = Harness(small_limits(max_games=1))
    peer = h.player()
    seats = (SeatSpec.open(), SeatSpec.open())
    error = peer.error(Create(id=1, game="chess", options={}, seats=seats))
    assert (error.id, error.code) == (1, ErrorCode.BAD_OPTIONS)
    assert "unknown game 'chess'" in error.message and "kalah" in error.message
    assert h.core.rooms == {} and h.store.unfinished() == []
    peer.create()
    busy = peer.error(Create(id=2, game="chess", options={}, seats=seats))
    assert busy.code == ErrorCode.BAD_OPTIONS  # what is wrong with the request comes first


def test_a_game_added_to_the_engine_registry_alone_can_be_created(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(GAMES, "kalah_twin", GameInfo(Kalah, MANCALA_SIDES, "mancala", "Kalah."))
    h = Harness()
    south = h.player()
    game_id = south.create(game="kalah_twin")
    _, _, (snapshot,) = south.join(game_id, 0)
    assert isinstance(snapshot, Snapshot) and snapshot.game == "kalah_twin"
    (summary,) = south.ok(ListGames(id=50)).games or ()
    assert summary.game == "kalah_twin"


def test_lobby_lists_games_with_seats_and_status() -> None:
    h = Harness()
    peer = h.player()
    game_id = peer.create(clock=ClockSpec(60_000, 1_000))
    peer.join(game_id, 1)
    (summary,) = peer.ok(ListGames(id=50)).games or ()
    assert summary.game_id == game_id and summary.status == "waiting" and summary.ply == 0
    assert summary.options == SMALL_KALAH and summary.clock == ClockSpec(60_000, 1_000)
    assert [(s.kind, s.name, s.connected) for s in summary.seats] == [
        ("open", None, False),
        ("open", "ada", True),
    ]


def test_join_gives_a_secret_token_then_a_snapshot_and_tells_the_others() -> None:
    h = Harness()
    south, north = h.player("south"), h.player("north")
    game_id = south.create()
    seat, token, after = south.join(game_id)
    assert seat == 0 and len(token) >= 32
    (snapshot,) = after
    assert isinstance(snapshot, Snapshot)
    assert snapshot.v == 1 and snapshot.status == "waiting" and snapshot.legal is None
    seat, other_token, after = north.join(game_id)
    assert seat == 1 and other_token != token
    assert isinstance(after[0], Snapshot) and after[0].status == "playing"
    assert after[0].legal is None  # north is not to move
    (event,) = south.events()[1:]
    # The event that starts the game carries the legal moves to the seat to move.
    assert isinstance(event, SeatEvent)
    assert (event.v, event.seat, event.name, event.connected) == (2, 1, "north", True)
    assert event.status == "playing" and event.legal == ("1", "2", "3")
    # Only a hash of the token is stored.
    stored = h.store.db.execute("SELECT token_hash FROM seats ORDER BY seat").fetchall()
    assert token not in str(stored) and all(row[0] for row in stored)


def test_taken_seats_bot_seats_and_spectators_cannot_be_joined() -> None:
    h = Harness()
    peer, watcher = h.player(), h.player("w", "spectator")
    game_id = peer.create(SeatSpec.bot(1), SeatSpec.open())
    assert watcher.error(Join(id=1, game_id=game_id, seat=None)).code == ErrorCode.NOT_YOUR_SEAT
    assert peer.error(Join(id=2, game_id=game_id, seat=0)).code == ErrorCode.SEAT_TAKEN
    peer.join(game_id)
    assert peer.error(Join(id=3, game_id=game_id, seat=None)).code == ErrorCode.SEAT_TAKEN
    assert peer.error(Join(id=4, game_id="nope", seat=None)).code == ErrorCode.UNKNOWN_GAME


# -- moves, versions and acks ------------------------------------------------------------------


def test_a_move_is_acked_then_broadcast_with_legal_moves_only_to_the_seat_to_move() -> None:
    h = Harness()
    game_id, south, s_token, north, _ = started_game(h)
    watcher = h.player("w", "spectator")
    watcher.ok(Watch(id=1, game_id=game_id))
    got = move(south, game_id, s_token, 0, "1")
    assert isinstance(got[0], Ok) and isinstance(got[1], Moved)
    moved = got[1]
    assert (moved.v, moved.ply, moved.seat, moved.move, moved.to_move) == (3, 0, 0, "1", 1)
    assert moved.legal is None
    north_copy, watcher_copy = north.inbox[-1], watcher.inbox[-1]
    assert isinstance(north_copy, Moved) and north_copy.legal == ("1", "2", "3")
    assert watcher_copy == moved  # a spectator gets exactly what the players get, minus legal


def test_rejected_moves_change_nothing() -> None:
    h = Harness()
    game_id, south, s_token, north, n_token = started_game(h)
    watcher = h.player("w", "spectator")
    watcher.ok(Watch(id=1, game_id=game_id))
    move(south, game_id, s_token, 0, "1")
    room = h.core.rooms[game_id]
    before = (room.v, room.position, list(room.history), len(watcher.events()))
    cases = [
        (south, s_token, 1, "1", ErrorCode.NOT_YOUR_TURN),
        (north, n_token, 1, "7", ErrorCode.ILLEGAL_MOVE),
        (north, n_token, 1, "x", ErrorCode.ILLEGAL_MOVE),
        (north, n_token, 0, "1", ErrorCode.STALE_PLY),
        (south, s_token, 0, "1", ErrorCode.STALE_PLY),  # the resend of a move already played
        (north, n_token, 5, "1", ErrorCode.BAD_PLY),
        (north, "not-a-token", 1, "1", ErrorCode.NOT_YOUR_SEAT),
        (south, n_token, 1, "1", ErrorCode.NOT_YOUR_SEAT),  # a token held on another connection
        (watcher, n_token, 1, "1", ErrorCode.NOT_YOUR_SEAT),  # spectators never move
    ]
    for peer, token, ply, text, code in cases:
        command = Move(id=peer.next_id(), game_id=game_id, token=token, ply=ply, move=text)
        got = peer.send(command)
        assert len(got) == 1 and got[0].id == command.id, got  # type: ignore[union-attr]
        assert got[0].code == code, (text, got)  # type: ignore[union-attr]
    assert (room.v, room.position, room.history, len(watcher.events())) == before


def test_no_move_before_the_game_starts() -> None:
    h = Harness()
    peer = h.player()
    game_id = peer.create()
    _, token, _ = peer.join(game_id, 0)
    assert move(peer, game_id, token, 0, "1")[0].code == ErrorCode.NOT_STARTED


def test_a_complete_game_ends_with_the_rules_result_and_numbered_events() -> None:
    h = Harness()
    game_id, south, s_token, north, n_token = started_game(h)
    room = h.core.rooms[game_id]
    tokens = {0: (south, s_token), 1: (north, n_token)}
    while room.status == "playing":
        peer, token = tokens[room.to_move]
        move(peer, game_id, token, room.ply, room.legal()[0])
    over = south.inbox[-1]
    assert isinstance(over, Over) and over.result.reason == "normal"
    assert over.result.score is not None and sum(over.result.score) == 12
    assert north.inbox[-1] == over
    assert versions(south.events()[1:]) == list(range(2, room.v + 1))
    assert move(north, game_id, n_token, room.ply, "1")[0].code == ErrorCode.GAME_OVER
    assert move(north, game_id, n_token, 0, "1")[0].code == ErrorCode.STALE_PLY


def test_resign_ends_the_game_for_the_other_seat_and_before_the_start_aborts() -> None:
    h = Harness()
    game_id, south, s_token, north, _ = started_game(h)
    got = south.send(Resign(id=77, game_id=game_id, token=s_token))
    assert isinstance(got[0], Ok) and got[0].id == 77
    assert isinstance(got[1], Over) and got[1].result.winner == 1
    assert got[1].result.reason == "resign" and got[1].result.score is None
    assert north.inbox[-1] == got[1]
    lone = h.player()
    waiting = lone.create()
    _, token, _ = lone.join(waiting)
    over = lone.send(Resign(id=1, game_id=waiting, token=token))[1]
    assert isinstance(over, Over) and over.result.reason == "aborted" and over.result.winner is None


def test_a_seat_that_has_not_moved_aborts_and_nobody_wins_after_its_move_it_resigns() -> None:
    """Issue 36, features: lichess's abort, before one's first move (a resignation then was a
    loss)."""
    h = Harness()
    game_id, south, s_token, north, n_token = started_game(h)
    move(south, game_id, s_token, 0, "1")  # South has moved, North not yet
    refused = south.send(Abort(id=5, game_id=game_id, token=s_token))[0]
    assert isinstance(refused, Error) and refused.code == ErrorCode.ALREADY_MOVED
    got = north.send(Abort(id=6, game_id=game_id, token=n_token))
    assert isinstance(got[0], Ok) and got[0].id == 6
    over = got[1]
    assert isinstance(over, Over) and over.result == Result(None, "aborted", None)
    assert south.inbox[-1] == over
    late = north.send(Abort(id=7, game_id=game_id, token=n_token))[0]
    assert isinstance(late, Error) and late.code == ErrorCode.GAME_OVER


def test_a_draw_is_offered_declined_by_a_move_and_agreed_by_an_answer() -> None:
    """Issue 36, features: draw offers, answered as takebacks are (lichess)."""
    h = Harness()
    game_id, south, s_token, north, n_token = started_game(h)
    got = south.send(Draw(id=1, game_id=game_id, token=s_token, ply=0))
    offered = got[1]
    assert isinstance(got[0], Ok) and isinstance(offered, DrawOffer)
    assert (offered.seat, offered.state) == (0, "offered")
    again = south.send(Draw(id=2, game_id=game_id, token=s_token, ply=0))[0]
    assert isinstance(again, Error) and again.code == ErrorCode.DRAW_PENDING
    room = h.core.rooms[game_id]
    assert room.snapshot(0, False).draw == 0  # a snapshot says it waits
    move(south, game_id, s_token, 0, "1")  # the offerer's own move: it lapses
    south.send(Draw(id=3, game_id=game_id, token=s_token, ply=1))
    declined = move(north, game_id, n_token, 1, "1")  # the opponent's move declines it
    assert DrawOffer(game_id, declined[1].v, 0, "declined") in declined
    none = north.send(DrawAnswer(id=4, game_id=game_id, token=n_token, ply=2, accept=True))[0]
    assert isinstance(none, Error) and none.code == ErrorCode.NO_DRAW_OFFER
    ply = room.ply
    north.send(Draw(id=5, game_id=game_id, token=n_token, ply=ply))
    got = south.send(DrawAnswer(id=6, game_id=game_id, token=s_token, ply=ply, accept=True))
    over = got[1]
    assert isinstance(over, Over) and over.result == Result(None, "agreement", None)


def test_a_draw_offer_waits_across_a_restart() -> None:
    """The offer is read from the event log: the store keeps its event, a restart reads it."""
    store = Store(":memory:")
    h = Harness(store=store)
    game_id, south, s_token, _, _ = started_game(h)
    south.ok(Draw(id=1, game_id=game_id, token=s_token, ply=0))
    later = Core(store, Limits(), now=h.clock, wall=lambda: 42)
    assert later.restore() == 1 and later.rooms[game_id].pending_draw() == 0


# -- leaving, coming back, taking over ---------------------------------------------------------


def test_a_dropped_seat_is_held_and_resume_sends_exactly_the_missed_events() -> None:
    h = Harness(small_limits(grace_ms=5_000))
    game_id, south, s_token, north, n_token = started_game(h)
    move(south, game_id, s_token, 0, "1")
    seen = south.inbox[-1].v  # type: ignore[union-attr]
    h.disconnect(south)
    dropped = north.inbox[-1]
    assert isinstance(dropped, SeatEvent)
    assert (dropped.seat, dropped.connected, dropped.grace_ms) == (0, False, 5_000)
    move(north, game_id, n_token, 1, "1")
    back = h.player("south")
    got = back.send(Resume(id=5, game_id=game_id, token=s_token, since_v=seen))
    assert isinstance(got[0], Ok) and got[0].id == 5
    missed = got[1:]
    # Exactly: its own drop, north's move (with legal moves: south is to move), its return.
    assert versions(missed) == [seen + 1, seen + 2, seen + 3]
    assert [type(m) for m in missed] == [SeatEvent, Moved, SeatEvent]
    assert isinstance(missed[1], Moved) and missed[1].legal == h.core.rooms[game_id].legal()
    assert north.inbox[-1] == missed[2]
    assert move(back, game_id, s_token, 2, missed[1].legal[0])[0].type == "ok"


def test_resume_from_nothing_or_an_unknown_version_gets_a_snapshot() -> None:
    h = Harness()
    game_id, south, s_token, _, _ = started_game(h)
    move(south, game_id, s_token, 0, "1")
    for since in (0, 99):
        peer = h.player()
        got = peer.send(Resume(id=1, game_id=game_id, token=s_token, since_v=since))
        assert isinstance(got[1], Snapshot) and got[1].history == ("1",)


def test_a_wrong_token_resumes_nothing() -> None:
    h = Harness()
    game_id, *_ = started_game(h)
    peer = h.player()
    error = peer.error(Resume(id=1, game_id=game_id, token="guess", since_v=0))
    assert error.code == ErrorCode.NOT_YOUR_SEAT


def test_a_second_connection_with_the_token_takes_the_seat_over() -> None:
    h = Harness()
    game_id, south, s_token, north, _ = started_game(h)
    usurper = h.player("south again")
    usurper.ok(Resume(id=1, game_id=game_id, token=s_token, since_v=2))
    assert south.closed == (AppCloseCode.SEAT_TAKEN_OVER, "seat taken over by another connection")
    assert move(south, game_id, s_token, 0, "1") == []  # a closing connection is not heard
    h.disconnect(south)
    assert not any(isinstance(m, SeatEvent) and not m.connected for m in north.inbox)
    assert move(usurper, game_id, s_token, 0, "1")[0].type == "ok"


def test_a_seat_not_back_in_time_loses_the_game_or_aborts_it_before_its_first_move() -> None:
    h = Harness(small_limits(grace_ms=5_000))
    game_id, south, s_token, north, _ = started_game(h)
    move(south, game_id, s_token, 0, "1")
    h.disconnect(north)
    assert h.core.next_deadline() == h.clock() + 5_000
    h.advance(4_999)
    assert h.core.rooms[game_id].status == "playing"
    h.advance(1)
    over = south.inbox[-1]
    assert isinstance(over, Over) and over.result.reason == "aborted"
    game_id, south, s_token, north, n_token = started_game(h)
    move(south, game_id, s_token, 0, "1")
    move(north, game_id, n_token, 1, "1")
    h.disconnect(south)
    h.advance(5_000)
    over = north.inbox[-1]
    assert isinstance(over, Over) and (over.result.winner, over.result.reason) == (1, "abandoned")


def test_a_seat_left_before_the_game_starts_is_freed_after_the_grace_period() -> None:
    h = Harness(small_limits(grace_ms=1_000))
    peer, watcher = h.player(), h.player("w", "spectator")
    game_id = peer.create()
    peer.join(game_id, 0)
    watcher.ok(Watch(id=1, game_id=game_id))
    h.disconnect(peer)
    h.advance(1_000)
    freed = watcher.inbox[-1]
    assert isinstance(freed, SeatEvent) and freed.name is None and not freed.connected
    assert h.player().join(game_id, 0)[0] == 0


# -- clocks ------------------------------------------------------------------------------------


def test_clocks_start_after_each_players_first_move_then_run_with_increment() -> None:
    h = Harness()
    game_id, south, s_token, north, n_token = started_game(h, clock=ClockSpec(10_000, 500))
    h.clock.advance(3_000)  # each player's first move is untimed, as on lichess
    first = move(south, game_id, s_token, 0, "1")[1]
    assert isinstance(first, Moved) and first.clocks is not None
    assert first.clocks.remaining_ms == (10_000, 10_000) and first.clocks.running is None
    h.clock.advance(3_000)
    reply = move(north, game_id, n_token, 1, "1")[1]
    assert isinstance(reply, Moved) and reply.clocks is not None
    assert reply.clocks.remaining_ms == (10_000, 10_000) and reply.clocks.running == 0
    h.clock.advance(3_000)
    moved = move(south, game_id, s_token, 2, "2")[1]
    assert isinstance(moved, Moved) and moved.clocks is not None
    assert moved.clocks.remaining_ms == (7_500, 10_000) and moved.clocks.running == 1
    assert h.core.next_deadline() == h.clock() + 10_000
    h.advance(9_999)
    assert h.core.rooms[game_id].status == "playing"
    h.advance(1)
    over = north.inbox[-1]
    assert isinstance(over, Over) and (over.result.winner, over.result.reason) == (0, "timeout")
    assert move(north, game_id, n_token, 3, "2")[0].code == ErrorCode.GAME_OVER


def test_no_flag_falls_before_the_first_move() -> None:
    h = Harness()
    game_id, *_ = started_game(h, clock=ClockSpec(1_000, 0))
    h.advance(59_999)  # within the grace for a first move (then it aborts: test_clocks.py)
    room = h.core.rooms[game_id]
    assert room.status == "playing"
    assert room.clocks(h.clock()) == Clocks((1_000, 1_000), None, 0, first_move_ms=1)


def test_a_move_after_the_flag_fell_loses_on_time_even_before_the_timer_fires() -> None:
    h = Harness()
    game_id, south, s_token, north, n_token = started_game(h, clock=ClockSpec(1_000, 0))
    move(south, game_id, s_token, 0, "1")
    move(north, game_id, n_token, 1, "1")  # both first moves made: South's clock runs
    h.clock.advance(1_000)  # no tick: the core must still notice
    got = move(south, game_id, s_token, 2, "2")
    assert isinstance(got[0], Over) and got[0].result.reason == "timeout"
    assert got[1].code == ErrorCode.GAME_OVER


# -- limits ------------------------------------------------------------------------------------


def test_a_connection_over_its_message_budget_is_told_and_closed() -> None:
    h = Harness(small_limits(burst=3, per_second=1.0))
    peer = h.connect()
    for i in range(3):
        assert peer.send(Ping(id=i, t=0))[0].type == "ok"
    error = peer.error(Ping(id=3, t=0))
    assert (error.id, error.code) == (3, ErrorCode.RATE_LIMITED)
    assert peer.closed == (POLICY_VIOLATION, "message budget exceeded")
    assert peer.send(Ping(id=4, t=0)) == []
    assert h.core.rejected["rate_limited"] == 1


def test_the_message_budget_refills_over_time() -> None:
    h = Harness(small_limits(burst=2, per_second=2.0))
    peer = h.connect()
    for i in range(10):
        assert peer.send(Ping(id=i, t=0))[0].type == "ok"
        h.clock.advance(500)
    assert peer.closed is None


def test_connections_per_address_are_capped() -> None:
    h = Harness(small_limits(connections_per_ip=2))
    first, second = h.connect("10.1.1.1"), h.connect("10.1.1.1")
    third = h.connect("10.1.1.1")
    assert first.closed is None and second.closed is None
    assert third.closed == (POLICY_VIOLATION, "too many connections from this address")
    assert h.connect("10.2.2.2").closed is None
    h.disconnect(third)
    h.disconnect(first)
    assert h.connect("10.1.1.1").closed is None


def test_server_wide_limits_on_games_and_bot_seats() -> None:
    h = Harness(small_limits(max_games=2, max_bot_seats=3))
    peer = h.player()
    peer.create(SeatSpec.bot(1), SeatSpec.bot(1))
    error = peer.error(
        Create(id=99, game="kalah", options={}, seats=(SeatSpec.bot(1), SeatSpec.bot(1)))
    )
    assert error.code == ErrorCode.SERVER_BUSY
    peer.create()
    error = peer.error(Create(id=98, game="kalah", options={}, seats=(SeatSpec.open(),) * 2))
    assert error.code == ErrorCode.SERVER_BUSY


# -- bot seats ---------------------------------------------------------------------------------


def test_a_bot_seat_gets_a_turn_when_it_is_to_move_and_its_move_carries_info() -> None:
    h = Harness()
    human = h.player()
    game_id = human.create(SeatSpec.bot(2, time_ms=100, eval="mobility"), SeatSpec.open())
    assert h.bot_turns == []
    _, token, _ = human.join(game_id, 1)
    (turn,) = h.bot_turns
    assert (turn.game_id, turn.seat, turn.ply, turn.moves) == (game_id, 0, 0, ())
    assert turn.spec == SeatSpec.bot(2, time_ms=100, eval="mobility")
    assert h.core.bot_moved(turn, "9", None) is False  # illegal: the layer asks again
    info = BotInfo(depth=2, score=3, nodes=40, time_ms=5, pv=("1", "2"))
    assert h.core.bot_moved(turn, "1", info) is True
    h.pump()
    moved = human.inbox[-1]
    assert isinstance(moved, Moved) and moved.info == info and moved.legal is not None
    assert h.core.bot_moved(turn, "2", info) is True  # a stale answer changes nothing
    assert h.core.rooms[game_id].ply == 1
    move(human, game_id, token, 1, moved.legal[0])
    assert [t.ply for t in h.bot_turns] == [0, 2]


def test_bot_versus_bot_starts_at_creation_and_a_failing_engine_forfeits() -> None:
    h = Harness()
    peer = h.player()
    game_id = peer.create(SeatSpec.bot(1), SeatSpec.bot(1))
    (turn,) = h.bot_turns
    assert h.core.rooms[game_id].status == "playing"
    h.core.bot_failed(turn, "engine exited")
    h.pump()
    assert h.core.rooms[game_id].result is not None
    assert h.core.rooms[game_id].result.reason == "engine_failure"  # type: ignore[union-attr]
    assert h.bots_done == [game_id]


# -- bounds that make every game finish --------------------------------------------------------


class Toggle(Searchable[tuple[int, int], str]):
    """A game that never ends by itself: each move flips a bit and passes the turn."""

    name = "toggle"

    def __init__(self, options: Any = None) -> None:
        self.options = {}
        self.evaluations = {"zero": lambda position: 0.0}

    def start(self) -> tuple[int, int]:
        return (0, 0)

    def to_move(self, position: tuple[int, int]) -> int:
        return position[0]

    def legal_moves(self, position: tuple[int, int]) -> list[str]:
        return ["flip", "keep"]

    def play(self, position: tuple[int, int], move: str) -> tuple[int, int]:
        if move not in ("flip", "keep"):
            raise IllegalMoveError(move)
        return (1 - position[0], position[1] ^ (move == "flip"))

    def outcome(self, position: tuple[int, int]) -> Outcome | None:
        return None

    def format_move(self, position: tuple[int, int], move: str) -> str:
        return move

    def parse_move(self, position: tuple[int, int], text: str) -> str:
        return text

    def format_position(self, position: tuple[int, int]) -> str:
        return f"{position[0]}:{position[1]}"

    def parse_position(self, text: str) -> tuple[int, int]:
        a, b = text.split(":")
        return (int(a), int(b))

    def sowing_path(self, position: tuple[int, int], move: str) -> list[Step]:
        return []

    def key(self, position: tuple[int, int]) -> Hashable:
        return position


def toggle_harness(bounds: Bounds) -> Harness:
    h = Harness(small_limits(bounds=bounds))
    h.core.games.rules.make_game = lambda name, options: Toggle()
    return h


def test_a_position_repeated_three_times_is_a_draw() -> None:
    h = toggle_harness(Bounds(max_plies=100, repetitions=3))
    game_id, south, s_token, north, n_token = started_game(h)
    plays = [(south, s_token), (north, n_token)] * 2
    for ply, (peer, token) in enumerate(plays):
        move(peer, game_id, token, ply, "keep")
    over = south.inbox[-1]
    # (0,0) at the start, after ply 2 and after ply 4
    assert isinstance(over, Over)
    assert (over.result.winner, over.result.reason) == (None, "repetition")
    assert h.core.rooms[game_id].ply == 4


def test_a_game_reaching_the_ply_limit_is_a_draw() -> None:
    h = toggle_harness(Bounds(max_plies=5, repetitions=1000))
    game_id, south, s_token, north, n_token = started_game(h)
    for ply in range(5):
        peer, token = [(south, s_token), (north, n_token)][ply % 2]
        move(peer, game_id, token, ply, "flip")
    over = south.inbox[-1]
    assert isinstance(over, Over) and over.result.reason == "ply_limit"


# -- restoring from the store ------------------------------------------------------------------


def test_a_new_core_on_the_same_store_resumes_games_exactly_with_frozen_clocks() -> None:
    store = Store(":memory:")
    h = Harness(small_limits(grace_ms=10_000), store=store)
    game_id, south, s_token, north, n_token = started_game(h, clock=ClockSpec(60_000, 0))
    move(south, game_id, s_token, 0, "1")
    move(north, game_id, n_token, 1, "1")  # both first moves made: South's clock runs
    h.clock.advance(2_000)
    seen = north.inbox[-1].v  # type: ignore[union-attr]
    h.shutdown()
    old = h.core.rooms[game_id]
    h.core.disconnect(south.conn)
    h.core.disconnect(north.conn)

    later = Harness(small_limits(grace_ms=10_000), store=store)
    later.clock.advance(3_600_000)  # an hour of downtime costs no clock time
    assert later.core.restore() == 1
    room = later.core.rooms[game_id]
    assert (room.position, room.history, room.v, room.events) == (
        old.position,
        old.history,
        old.v,
        old.events,
    )
    clocks = room.clocks(later.clock())
    assert clocks is not None and clocks.remaining_ms == (58_000, 60_000)
    back = later.player("south")
    got = back.send(Resume(id=1, game_id=game_id, token=s_token, since_v=seen))
    assert [m.type for m in got] == ["ok", "seat"]
    assert move(back, game_id, s_token, 2, "2")[0].type == "ok"
    # Players who do not come back lose their seats as usual.
    later.advance(10_000)
    assert later.core.rooms[game_id].result is not None


def test_finished_games_come_back_as_history_not_as_games_to_play() -> None:
    store = Store(":memory:")
    h = Harness(store=store)
    game_id, south, s_token, *_ = started_game(h)
    south.send(Resign(id=1, game_id=game_id, token=s_token))
    later = Core(store, Limits())
    assert later.restore() == 0
    room = later.rooms[game_id]
    assert room.status == "over" and room.result == h.core.rooms[game_id].result
    assert later.next_deadline() is None and later.outputs() == []


def test_events_published_are_exactly_those_stored() -> None:
    h = Harness()
    game_id, south, s_token, north, _ = started_game(h)
    move(south, game_id, s_token, 0, "1")
    rows = h.store.db.execute("SELECT v, type FROM events WHERE game_id = ?", (game_id,))
    assert [tuple(r) for r in rows] == [(1, "seat"), (2, "seat"), (3, "moved")]
    moves = h.store.db.execute("SELECT ply, seat, move FROM moves").fetchall()
    assert [tuple(r) for r in moves] == [(0, 0, "1")]
    last = north.inbox[-1]
    assert isinstance(last, Moved)
    assert dataclasses.replace(last, legal=None) == h.core.rooms[game_id].events[-1]


# -- seats that want an external bot, bot settings in seat info, creation time ------------------


def test_a_seat_can_ask_for_an_external_bot_and_the_lobby_says_so() -> None:
    h = Harness()
    host = h.player("host")
    game_id = host.create(SeatSpec.open(), SeatSpec.external_bot(5))
    (summary,) = host.ok(ListGames(id=1)).games or ()
    assert summary.game_id == game_id
    assert [(s.kind, s.wants_bot, s.depth) for s in summary.seats] == [
        ("open", False, None),
        ("open", True, 5),
    ]
    stored = h.store.db.execute("SELECT spec FROM seats WHERE seat = 1").fetchone()[0]
    assert '"wants_bot":true' in stored


def test_joining_any_seat_seats_bots_where_a_bot_is_wanted_and_people_elsewhere() -> None:
    h = Harness()
    host = h.player("host")
    game_id = host.create(SeatSpec.external_bot(), SeatSpec.open())
    assert h.player("robo", "bot").join(game_id)[0] == 0
    other = host.create(SeatSpec.external_bot(), SeatSpec.open())
    assert h.player("ann").join(other)[0] == 1
    # Asking for the seat by number still takes it, and with no other choice any role fits.
    assert h.player("bea").join(other)[0] == 0
    plain = host.create()
    assert h.player("robo", "bot").join(plain)[0] == 0


def test_seat_info_carries_a_server_bots_settings_in_summaries_and_snapshots() -> None:
    h = Harness()
    peer = h.player()
    spec = SeatSpec.bot(3, time_ms=200, eval="store_seeds", algorithm="alphabeta")
    game_id = peer.create(spec, SeatSpec.open())
    (summary,) = peer.ok(ListGames(id=1)).games or ()
    _, _, (snapshot,) = peer.join(game_id, 1)
    assert isinstance(snapshot, Snapshot)
    for bot in (summary.seats[0], snapshot.seats[0]):
        assert (bot.kind, bot.depth, bot.time_ms, bot.eval, bot.algorithm) == (
            "bot",
            3,
            200,
            "store_seeds",
            "alphabeta",
        )
    assert snapshot.seats[1].depth is None and not snapshot.seats[1].wants_bot


def test_the_creation_time_is_the_servers_wall_clock_and_survives_a_restart() -> None:
    store = Store(":memory:")
    h = Harness(store=store)
    peer = h.player()
    game_id = peer.create()
    (summary,) = peer.ok(ListGames(id=1)).games or ()
    _, _, (snapshot,) = peer.join(game_id, 0)
    assert summary.created == 42 and isinstance(snapshot, Snapshot) and snapshot.created == 42
    later = Core(store, Limits(), now=h.clock, wall=lambda: 99_999)
    assert later.restore() == 1
    assert later.rooms[game_id].summary().created == 42


def test_a_schema_1_database_gets_creation_times_from_its_timestamps(tmp_path: Any) -> None:
    path = tmp_path / "old.sqlite3"
    h = Harness(store=Store(path))
    h.player().create()
    h.store.db.executescript(
        "ALTER TABLE games DROP COLUMN created_ms; ALTER TABLE games DROP COLUMN pace_ms;"
        " ALTER TABLE games DROP COLUMN rated;"
        " UPDATE games SET created_at = '2024-05-01T12:00:00.000Z'; PRAGMA user_version = 1;"
    )
    h.store.close()
    upgraded = Store(path)
    assert upgraded.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    (game,) = upgraded.unfinished()
    assert game.created == 1_714_564_800_000


# -- a bot client's search report ---------------------------------------------------------------


def test_a_bot_clients_search_report_is_passed_on_with_its_move_and_stored() -> None:
    h = Harness()
    game_id, south, s_token, north, _ = started_game(h)
    info = BotInfo(depth=4, score=-1, nodes=321, time_ms=7, pv=("1", "3"), mate=None)
    command = Move(id=8, game_id=game_id, token=s_token, ply=0, move="1", info=info)
    ok, moved = south.send(command)
    assert isinstance(ok, Ok) and isinstance(moved, Moved) and moved.info == info
    seen = north.inbox[-1]
    assert isinstance(seen, Moved) and seen.info == info
    stored = h.store.db.execute("SELECT info FROM moves WHERE game_id = ?", (game_id,))
    assert '"nodes":321' in stored.fetchone()[0]


def test_game_ids_never_start_with_what_a_command_line_reads_as_an_option(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn = iter(["-AbCdEfG", "_AbCdEfG", "taken123", "Ok_-1234"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(drawn))
    assert new_game_id({"taken123"}) == "Ok_-1234"


ROOT = Path(__file__).resolve().parents[2]


DOCS = ROOT / "docs"


def played_out(h: Harness, **create: Any) -> Result:
    """A game of two people who play the first legal move until it ends (within 10 plies)."""
    game_id, south, s_token, north, n_token = started_game(h, **create)
    room = h.core.rooms[game_id]
    for _ in range(10):
        if room.status != "playing":
            break
        who, token = (south, s_token) if room.to_move == 0 else (north, n_token)
        move(who, game_id, token, room.ply, room.legal()[0])
    assert room.result is not None
    return room.result


def test_ply_limit_comes_from_the_server_without_a_score_or_from_bao_with_one() -> None:
    server_limit = played_out(Harness(small_limits(bounds=Bounds(max_plies=2))))
    assert (server_limit.reason, server_limit.winner, server_limit.score) == (
        "ply_limit",
        None,
        None,
    )
    bao_limit = played_out(Harness(), game="bao", options={"max_plies": 2})
    assert (bao_limit.reason, bao_limit.winner) == ("ply_limit", None)
    assert bao_limit.score is not None  # each side's seeds

    row = next(
        line
        for line in (DOCS / "protocol.md").read_text().splitlines()
        if line.startswith("| `ply_limit`")
    )
    assert "`--max-plies`" in row and "`max_plies`" in row and "score" in row


def test_the_pace_is_in_the_snapshot_and_the_summary() -> None:
    h = Harness()
    human = h.player("human")
    paced = human.create(SeatSpec.open(), SeatSpec.bot(2), pace_ms=2_000)
    plain = human.create()
    _, _, got = human.join(paced, 0)
    assert isinstance(got[0], Snapshot) and got[0].pace_ms == 2_000
    _, _, got = h.player("other").join(plain, 0)
    assert isinstance(got[0], Snapshot) and got[0].pace_ms is None
    games = {g.game_id: g for g in human.ok(ListGames(id=99)).games or ()}
    assert (games[paced].pace_ms, games[plain].pace_ms) == (2_000, None)
