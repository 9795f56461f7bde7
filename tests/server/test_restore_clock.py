"""After a restart, a game's clock waits for the player to move: it starts when they resume
(or at once on a server bot's turn), and a player who never comes back loses to the grace
period, not to a clock that ran while they could not reconnect. The core with a fake clock."""

from __future__ import annotations

from tests.support.server import Harness, Peer, move, small_limits, started_game
from ubao.protocol import ClockSpec, Over, Resume, SeatEvent, SeatSpec
from ubao.server.room import Room
from ubao.server.stores.sqlite import Store

GRACE_MS = 120_000
"""Longer than anyone's time left: a clock that ran would flag before the grace ended."""


def restarted(store: Store) -> Harness:
    """A new core on `store` after an hour of downtime, its games restored."""
    later = Harness(small_limits(grace_ms=GRACE_MS), store=store)
    later.clock.advance(3_600_000)
    assert later.core.restore() == 1
    later.pump()
    return later


def two_players_mid_game() -> tuple[Store, str, dict[int, str]]:
    """A clocked game, two plies in, 2 s spent by each player, the server shut down: its
    store, game id and the tokens by seat."""
    store = Store(":memory:")
    h = Harness(small_limits(grace_ms=GRACE_MS), store=store)
    game_id, south, s_token, north, n_token = started_game(h, clock=ClockSpec(60_000, 0))
    move(south, game_id, s_token, 0, "1")
    h.advance(2_000)
    move(north, game_id, n_token, 1, "2")
    h.advance(2_000)
    assert h.core.rooms[game_id].status == "playing"
    h.shutdown()
    for peer in (south, north):
        h.core.disconnect(peer.conn)
    return store, game_id, {0: s_token, 1: n_token}


def frozen(room: Room, now: int) -> tuple[int, int]:
    clocks = room.clocks(now)
    assert clocks is not None and clocks.running is None
    return clocks.remaining_ms


def test_the_clock_waits_for_the_player_to_move_and_starts_when_they_resume() -> None:
    store, game_id, tokens = two_players_mid_game()
    later = restarted(store)
    room = later.core.rooms[game_id]
    mover = room.to_move
    left = frozen(room, later.clock())
    later.advance(10_000)  # the player to move is still reconnecting
    assert frozen(room, later.clock()) == left
    other = later.player("other")
    other.ok(Resume(id=1, game_id=game_id, token=tokens[1 - mover], since_v=room.v))
    later.advance(5_000)  # the other player's return starts nobody's clock
    assert frozen(room, later.clock()) == left

    back = later.player("mover")
    back.ok(Resume(id=1, game_id=game_id, token=tokens[mover], since_v=room.v))
    told = [m for m in other.inbox if isinstance(m, SeatEvent) and m.seat == mover][-1]
    assert told.clocks is not None and told.clocks.running == mover
    assert told.clocks.remaining_ms == left
    later.advance(3_000)
    clocks = room.clocks(later.clock())
    assert clocks is not None and clocks.running == mover
    assert clocks.remaining_ms[mover] == left[mover] - 3_000
    assert clocks.remaining_ms[1 - mover] == left[1 - mover]


def test_a_player_to_move_who_never_comes_back_loses_to_the_grace_period_not_the_clock() -> None:
    store, game_id, tokens = two_players_mid_game()
    later = restarted(store)
    room = later.core.rooms[game_id]
    mover = room.to_move
    left = frozen(room, later.clock())
    assert max(left) < GRACE_MS
    restored_at = later.clock()
    other = later.player("other")
    other.ok(Resume(id=1, game_id=game_id, token=tokens[1 - mover], since_v=room.v))
    assert later.core.next_deadline() == restored_at + GRACE_MS  # no flag to fall before it
    later.advance(GRACE_MS - 1)
    assert room.status == "playing" and frozen(room, later.clock()) == left
    later.advance(1)
    over = other.inbox[-1]
    assert isinstance(over, Over)
    assert (over.result.winner, over.result.reason) == (1 - mover, "abandoned")


def restarted_on_a_bots_turn() -> tuple[Harness, str, str]:
    """A human (South) against a server bot with a clock, stopped on the bot's timed turn and
    restarted without the human: (the restarted server, the game, the human's token)."""
    store = Store(":memory:")
    h = Harness(small_limits(grace_ms=GRACE_MS), store=store)
    human = h.player()
    game_id = human.create(SeatSpec.open(), SeatSpec.bot(1), clock=ClockSpec(10_000, 0))
    _, token, _ = human.join(game_id, 0)
    move(human, game_id, token, 0, "1")
    assert h.core.bot_moved(h.bot_turns[-1], "1", None)  # the bot's first move, untimed
    move(human, game_id, token, 2, "2")  # the bot is to move, on its clock
    h.shutdown()
    h.core.disconnect(human.conn)
    return restarted(store), game_id, token


def test_a_server_bots_turn_starts_its_clock_at_once_after_a_restart() -> None:
    later, game_id, _ = restarted_on_a_bots_turn()
    room = later.core.rooms[game_id]
    assert room.to_move == 1 and len(later.bot_turns) == 1
    later.advance(1_000)
    clocks = room.clocks(later.clock())
    assert clocks is not None and clocks.running == 1 and clocks.remaining_ms[1] == 9_000


def play_until_the_turn_passes(peer: Peer, room: Room, token: str) -> None:
    """The seat to move (`peer`'s) plays until it is the other seat's turn (Kalah's extra
    turns may keep it to move)."""
    seat = room.to_move
    for _ in range(20):
        if room.to_move != seat or room.status != "playing":
            break
        move(peer, room.game_id, token, room.ply, room.legal()[0])
    assert room.status == "playing" and room.to_move != seat


def test_the_clock_of_a_player_not_back_waits_after_the_opponent_moves_then_grace_decides() -> None:
    store, game_id, tokens = two_players_mid_game()
    later = restarted(store)
    restored_at = later.clock()
    room = later.core.rooms[game_id]
    mover = room.to_move
    absent = 1 - mover
    left = frozen(room, later.clock())
    back = later.player("back")
    back.ok(Resume(id=1, game_id=game_id, token=tokens[mover], since_v=room.v))
    play_until_the_turn_passes(back, room, tokens[mover])

    # The absent player's turn: their clock does not run while they are not back, however
    # long (before, it ran from the opponent's move and flagged them).
    later.advance(left[absent] + 10_000)
    assert room.status == "playing"
    assert frozen(room, later.clock())[absent] == left[absent]
    # They never come back: their grace period ends the game, as for any player who left.
    later.advance(restored_at + GRACE_MS - later.clock())
    over = back.inbox[-1]
    assert isinstance(over, Over)
    assert (over.result.winner, over.result.reason) == (mover, "abandoned")


def test_a_second_restart_keeps_the_waiting_clock_and_a_return_starts_it() -> None:
    store, game_id, tokens = two_players_mid_game()
    later = restarted(store)
    room = later.core.rooms[game_id]
    mover = room.to_move
    absent = 1 - mover
    left = frozen(room, later.clock())
    back = later.player("back")
    back.ok(Resume(id=1, game_id=game_id, token=tokens[mover], since_v=room.v))
    later.advance(1_000)  # the returning player's own clock runs
    play_until_the_turn_passes(back, room, tokens[mover])
    later.advance(30_000)
    now_left = frozen(room, later.clock())
    assert now_left == ((left[0] - 1_000, left[1]) if mover == 0 else (left[0], left[1] - 1_000))
    later.shutdown()
    later.core.disconnect(back.conn)

    again = restarted(store)
    room = again.core.rooms[game_id]
    assert room.to_move == absent and frozen(room, again.clock()) == now_left
    again.advance(30_000)
    assert frozen(room, again.clock()) == now_left
    returned = again.player("returned")
    returned.ok(Resume(id=1, game_id=game_id, token=tokens[absent], since_v=room.v))
    told = returned.inbox[-1]
    assert isinstance(told, SeatEvent) and told.clocks is not None
    assert told.clocks.running == absent and told.clocks.remaining_ms == now_left
    again.advance(1_000)
    clocks = room.clocks(again.clock())
    assert clocks is not None and clocks.remaining_ms[absent] == now_left[absent] - 1_000
    # Back once, then an ordinary drop: the clock runs on, as for any player who drops.
    again.disconnect(returned)
    again.advance(1_000)
    clocks = room.clocks(again.clock())
    assert clocks is not None and clocks.running == absent
    assert clocks.remaining_ms[absent] == now_left[absent] - 2_000


def test_after_a_server_bots_move_the_clock_of_a_player_not_back_waits_for_them() -> None:
    later, game_id, token = restarted_on_a_bots_turn()
    room = later.core.rooms[game_id]
    running = room.clocks(later.clock())
    assert running is not None and running.running == 1  # the bot's turn: its clock runs
    human_left = running.remaining_ms[0]
    for _ in range(20):  # the bot moves (again on an extra turn) until the human is to move
        if room.to_move == 0 or room.status != "playing":
            break
        assert later.core.bot_moved(later.bot_turns[-1], room.legal()[0], None)
        later.pump()
    assert room.status == "playing" and room.to_move == 0
    later.advance(20_000)  # twice the human's clock: it would have flagged
    assert room.status == "playing" and frozen(room, later.clock())[0] == human_left

    again = later.player("ada")
    again.ok(Resume(id=1, game_id=game_id, token=token, since_v=room.v))
    later.advance(1_000)
    clocks = room.clocks(later.clock())
    assert clocks is not None and clocks.running == 0
    assert clocks.remaining_ms[0] == human_left - 1_000
