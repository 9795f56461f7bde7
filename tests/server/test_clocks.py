"""Clocks in the sans-I/O core with a hand-driven clock: each player's first move is untimed,
and a first move that does not come within the grace aborts the game (a restart starts its time
again). Clocks after a restart: tests/server/test_restore_clock.py."""

from __future__ import annotations

from dataclasses import replace

from tests.support.server import Harness, move, small_limits, started_game
from ubao.protocol import Clocks, ClockSpec, Moved, Over, Resume, Snapshot
from ubao.server.limits import Limits

GRACE_MS = 30_000


CLOCK = ClockSpec(initial_ms=15_000, increment_ms=2_000)
"""`--clock 15+2`: less time than the grace, so a clock that ran would flag first."""


CLOCK_AT_START = Clocks(remaining_ms=(15_000, 15_000), running=None, increment_ms=2_000)


def test_the_second_players_clock_does_not_run_before_their_first_move() -> None:
    h = Harness(small_limits(grace_ms=GRACE_MS))
    game_id, alice, a_token, bob, b_token = started_game(h, clock=CLOCK)
    first = move(alice, game_id, a_token, 0, "1")[1]
    # Bob's untimed first move is awaited: the clocks say how long he has for it.
    assert isinstance(first, Moved) and first.clocks == replace(
        CLOCK_AT_START, first_move_ms=GRACE_MS
    )
    h.advance(20_000)  # longer than bob's 15 s: no flag falls ("South wins on time" was the bug)
    room = h.core.rooms[game_id]
    assert room.status == "playing"
    left = replace(CLOCK_AT_START, first_move_ms=GRACE_MS - 20_000)
    assert room.clocks(h.clock()) == left
    snapshot = bob.send(Resume(id=bob.next_id(), game_id=game_id, token=b_token, since_v=0))[1]
    assert isinstance(snapshot, Snapshot) and snapshot.clocks == left
    reply = move(bob, game_id, b_token, 1, "1")[1]
    assert isinstance(reply, Moved)
    # No time charged, no increment for an untimed move; alice's clock runs, as usual from now.
    assert reply.clocks == Clocks(remaining_ms=(15_000, 15_000), running=0, increment_ms=2_000)


def test_a_second_player_who_never_makes_a_first_move_aborts_the_game() -> None:
    h = Harness(small_limits(grace_ms=GRACE_MS))
    game_id, alice, a_token, bob, _ = started_game(h, clock=CLOCK)
    move(alice, game_id, a_token, 0, "1")
    assert h.core.next_deadline() == h.clock() + GRACE_MS
    h.advance(GRACE_MS - 1)
    assert h.core.rooms[game_id].status == "playing"
    h.advance(1)
    over = alice.inbox[-1]
    assert isinstance(over, Over) and (over.result.winner, over.result.reason) == (None, "aborted")
    assert bob.inbox[-1] == over


def test_a_first_player_who_never_moves_aborts_the_game_too() -> None:
    h = Harness(small_limits(grace_ms=GRACE_MS))
    _, _, _, bob, _ = started_game(h, clock=CLOCK)
    h.advance(GRACE_MS)
    over = bob.inbox[-1]
    assert isinstance(over, Over) and (over.result.winner, over.result.reason) == (None, "aborted")


def test_without_a_clock_nobody_is_hurried() -> None:
    h = Harness(small_limits(grace_ms=GRACE_MS))
    game_id, alice, a_token, *_ = started_game(h)
    move(alice, game_id, a_token, 0, "1")
    moved_at = h.clock()
    h.advance(10 * GRACE_MS)
    assert h.core.rooms[game_id].status == "playing"
    # Only the limit on a move without a clock (test_shares.py) is ahead.
    assert h.core.next_deadline() == moved_at + Limits().move_limit_ms


def test_a_first_moves_time_starts_again_after_a_restart() -> None:
    h = Harness(small_limits(grace_ms=GRACE_MS))
    game_id, alice, a_token, _, b_token = started_game(h, clock=CLOCK)
    move(alice, game_id, a_token, 0, "1")
    h.advance(GRACE_MS - 1_000)
    h.shutdown()
    later = Harness(small_limits(grace_ms=GRACE_MS), store=h.store)
    later.clock.advance(3_600_000)
    assert later.core.restore() == 1
    back = later.player("bob")
    back.ok(Resume(id=1, game_id=game_id, token=b_token, since_v=0))
    later.advance(GRACE_MS - 1)  # the downtime and the way back are not bob's to pay
    assert later.core.rooms[game_id].status == "playing"
    assert move(back, game_id, b_token, 1, "1")[0].type == "ok"
