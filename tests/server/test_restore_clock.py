"""After a restart, a game's clock waits for the player to move: it starts when they resume
(or at once on a server bot's turn), and a player who never comes back loses to the grace
period, not to a clock that ran while they could not reconnect. The core with a fake clock."""

from __future__ import annotations

from tests.server.test_core import move, started_game
from tests.support.server import Harness, small_limits
from ubao.protocol import ClockSpec, Over, Resume, SeatEvent, SeatSpec
from ubao.server.room import Room
from ubao.server.store import Store

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
    h.core.shutdown()
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
    h.core.shutdown()
    h.core.disconnect(human.conn)
    return restarted(store), game_id, token


def test_a_server_bots_turn_starts_its_clock_at_once_after_a_restart() -> None:
    later, game_id, _ = restarted_on_a_bots_turn()
    room = later.core.rooms[game_id]
    assert room.to_move == 1 and len(later.bot_turns) == 1
    later.advance(1_000)
    clocks = room.clocks(later.clock())
    assert clocks is not None and clocks.running == 1 and clocks.remaining_ms[1] == 9_000
