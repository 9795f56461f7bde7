"""Fair shares (issue 13, row 3 and row 5): what one connection or one address may hold at once
(games, waiting games, server bot seats), caps on what a server bot may be asked to think, and
waiting games that go away: cancelled by their creator, or expired once nobody attends them."""

from __future__ import annotations

from tests.support.server import SMALL_KALAH, Harness, Peer, move, small_limits, started_game
from ubao.protocol import (
    Cancel,
    Create,
    ErrorCode,
    ListGames,
    Over,
    Resign,
    Resume,
    SeatSpec,
    Watch,
)
from ubao.server.core import Core
from ubao.server.limits import Share
from ubao.server.stores.sqlite import Store

OPEN = (SeatSpec.open(), SeatSpec.open())


def create(peer: Peer, south: SeatSpec = OPEN[0], north: SeatSpec = OPEN[1]) -> Create:
    return Create(id=peer.next_id(), game="kalah", options=SMALL_KALAH, seats=(south, north))


def fair() -> Harness:
    """A server of 20 games and 10 bot seats; a connection may hold 3 games (2 waiting, 2 bot
    seats), an address 6 (3 waiting, 3 bot seats)."""
    return Harness(
        small_limits(
            max_games=20,
            max_bot_seats=10,
            per_connection=Share(games=3, waiting=2, bot_seats=2),
            per_address=Share(games=6, waiting=3, bot_seats=3),
        )
    )


def test_one_connection_cannot_take_the_servers_games_from_everybody_else() -> None:
    h = fair()
    greedy = h.player("greedy", "spectator")
    greedy.create()
    greedy.create()
    error = greedy.error(create(greedy))
    assert error.code == ErrorCode.QUOTA_EXCEEDED
    assert "this connection already has 2 games waiting" in error.message
    # A game that starts at once is not waiting, but counts among the games not over.
    greedy.create(SeatSpec.bot(1), SeatSpec.bot(1))
    error = greedy.error(create(greedy, SeatSpec.bot(1), SeatSpec.bot(1)))
    assert "this connection already has 3 games not over" in error.message
    # Other connections from the same address share the address's games...
    second = h.player("greedy")
    second.create()
    assert "this address already has 3 games waiting" in second.error(create(second)).message
    # ...and everybody else still gets games.
    other = h.connect("10.9.9.9")
    other.hello("bob")
    other.create()


def test_bot_seats_are_shared_per_connection_and_per_address() -> None:
    h = fair()
    one = h.player("one", "spectator")
    one.create(SeatSpec.bot(1), SeatSpec.bot(1))
    error = one.error(create(one, SeatSpec.bot(1), SeatSpec.open()))
    assert error.code == ErrorCode.QUOTA_EXCEEDED and "2 of its 2 server bot seats" in error.message
    two = h.player("two", "spectator")
    two.create(SeatSpec.bot(1), SeatSpec.open())
    error = two.error(create(two, SeatSpec.bot(1), SeatSpec.open()))
    assert "this address already has 3 of its 3 server bot seats" in error.message


def test_a_finished_or_cancelled_game_gives_its_share_back() -> None:
    h = fair()
    peer = h.player()
    first, _ = peer.create(), peer.create()
    assert peer.error(create(peer)).code == ErrorCode.QUOTA_EXCEEDED
    peer.ok(Cancel(id=peer.next_id(), game_id=first))
    third = peer.create()
    _, token, _ = peer.join(third, 0)
    peer.ok(Resign(id=peer.next_id(), game_id=third, token=token))
    peer.create()


def test_server_bots_cannot_be_asked_to_think_deeper_or_longer_than_the_caps() -> None:
    h = Harness(small_limits(max_bot_depth=8, max_bot_time_ms=2_000))
    peer = h.player()
    deep = peer.error(create(peer, SeatSpec.bot(64), SeatSpec.open()))
    assert deep.code == ErrorCode.BAD_OPTIONS and "at most 8 plies" in deep.message
    slow = peer.error(create(peer, SeatSpec.open(), SeatSpec.bot(2, time_ms=3_600_000)))
    assert slow.code == ErrorCode.BAD_OPTIONS and "at most 2000 ms" in slow.message
    assert h.core.rooms == {}
    peer.create(SeatSpec.bot(8, time_ms=2_000), SeatSpec.open())
    # A wished depth for an external bot client is the client's business, not capped.
    peer.create(SeatSpec.open(), SeatSpec.external_bot(30))


def test_only_the_creator_cancels_and_only_a_waiting_game() -> None:
    h = Harness()
    creator, other = h.player("ada", "spectator"), h.player("bob")
    game_id = creator.create()
    watcher = h.player("cy", "spectator")
    watcher.ok(Watch(id=1, game_id=game_id))
    refused = other.error(Cancel(id=5, game_id=game_id))
    assert (refused.id, refused.code) == (5, ErrorCode.NOT_YOUR_GAME)
    assert creator.error(Cancel(id=6, game_id="nope")).code == ErrorCode.UNKNOWN_GAME
    got = creator.send(Cancel(id=7, game_id=game_id))
    assert got[0].type == "ok"
    (over,) = watcher.events()[1:]
    assert isinstance(over, Over) and over.result.reason == "cancelled"
    assert over.result.winner is None
    assert creator.error(Cancel(id=8, game_id=game_id)).code == ErrorCode.GAME_OVER
    started = creator.create()
    other.join(started, 0)
    h.player("dan").join(started, 1)
    assert creator.error(Cancel(id=9, game_id=started)).code == ErrorCode.ALREADY_STARTED


def test_a_waiting_game_whose_creator_left_expires() -> None:
    h = Harness(small_limits(waiting_expiry_ms=30_000))
    creator = h.player("ada", "spectator")
    game_id = creator.create()
    h.advance(600_000)
    assert h.core.rooms[game_id].status == "waiting"  # the creator is still there
    watcher = h.player("bob", "spectator")
    watcher.ok(Watch(id=1, game_id=game_id))
    h.disconnect(creator)
    assert h.core.next_deadline() == h.clock() + 30_000
    h.advance(29_999)
    assert h.core.rooms[game_id].status == "waiting"
    h.advance(1)
    over = watcher.events()[-1]
    assert isinstance(over, Over) and over.result.reason == "expired"


def test_a_waiting_game_does_not_expire_while_a_player_waits_at_it() -> None:
    h = Harness(small_limits(waiting_expiry_ms=30_000, grace_ms=10_000))
    creator = h.player("ada", "spectator")
    game_id = creator.create()
    player = h.player("bob")
    _, token, _ = player.join(game_id, 0)
    h.disconnect(creator)
    h.advance(600_000)
    assert h.core.rooms[game_id].status == "waiting"
    # The player leaves: the seat is freed after the grace period, the game expires after its
    # own; coming back in time stops the expiry.
    h.disconnect(player)
    h.advance(20_000)
    back = h.player("bob")
    assert back.error(Resume(id=1, game_id=game_id, token=token, since_v=0)).code == (
        ErrorCode.NOT_YOUR_SEAT
    )
    h.advance(10_000)
    assert h.core.rooms[game_id].status == "over"
    assert h.core.rooms[game_id].result.reason == "expired"  # type: ignore[union-attr]


def test_waiting_games_restored_after_a_restart_expire_unless_someone_comes_back() -> None:
    store = Store(":memory:")
    h = Harness(small_limits(waiting_expiry_ms=30_000), store=store)
    spammer = h.player("spam", "spectator")
    for _ in range(3):
        spammer.create()
    h.shutdown()

    later = Harness(small_limits(waiting_expiry_ms=30_000), store=store)
    assert later.core.restore() == 3
    later.advance(30_000)
    assert {room.status for room in later.core.rooms.values()} == {"over"}
    assert Core(store).restore() == 0
    lobby = later.player().ok(ListGames(id=1, filter="open")).games
    assert lobby == ()


def test_a_waiting_game_expires_after_the_longest_wait_even_with_its_creator_there() -> None:
    h = Harness(small_limits(longest_wait_ms=600_000, waiting_expiry_ms=30_000))
    creator = h.player("ada")
    game_id = creator.create()
    room = h.core.rooms[game_id]
    assert h.core.next_deadline() == h.clock() + 600_000
    h.advance(599_999)
    assert room.result is None
    h.advance(1)
    assert room.result is not None and room.result.reason == "expired"
    # A creator who leaves near the end does not stretch the wait either.
    late = h.core.rooms[creator.create()]
    h.advance(590_000)
    h.disconnect(creator)
    assert h.core.next_deadline() == h.clock() + 10_000
    h.advance(10_000)
    assert late.status == "over"


def test_the_last_game_slots_are_kept_for_addresses_that_hold_none() -> None:
    share = Share(games=10, waiting=10, bot_seats=3)
    limits = small_limits(max_games=20, reserved_games=5, per_connection=share, per_address=share)
    h = Harness(limits)

    def newcomer() -> Peer:
        peer = h.connect(f"10.0.0.{len(h.peers) + 1}")
        peer.hello(f"p{peer.conn}", "spectator")
        return peer

    holders = [newcomer() for _ in range(3)]
    for peer in holders:
        for _ in range(6):
            peer.create()
    # 18 games: the 18 of 20 open to everybody are taken (a tenth of 20 is kept, not 5).
    error = holders[0].error(create(holders[0]))
    assert error.code == ErrorCode.SERVER_BUSY
    assert "kept for addresses that hold none" in error.message
    first = newcomer()
    first.create()  # an address with no game is welcome
    assert "kept for addresses" in first.error(create(first)).message
    newcomer().create()
    last = newcomer()
    assert last.error(create(last)).message == "too many games are going on; try again later"


def test_a_game_without_a_clock_ends_when_a_move_does_not_come_in_time() -> None:
    h = Harness(small_limits(move_limit_ms=600_000))
    game_id, south, south_token, north, north_token = started_game(h)
    room = h.core.rooms[game_id]
    assert room.clock is None and h.core.next_deadline() == h.clock() + 600_000
    while set(room.movers) != {0, 1}:  # both have moved, each well within the limit
        h.advance(500_000)
        peer, token = (south, south_token) if room.to_move == 0 else (north, north_token)
        move(peer, game_id, token, room.ply, room.legal()[0])
    late = room.to_move
    h.advance(599_999)
    assert room.status == "playing"
    h.advance(1)
    assert room.result is not None
    assert (room.result.winner, room.result.reason) == (1 - late, "timeout")


def test_a_game_without_a_clock_whose_first_move_never_comes_is_aborted() -> None:
    h = Harness(small_limits(move_limit_ms=600_000))
    game_id, *_ = started_game(h)
    h.advance(600_000)
    result = h.core.rooms[game_id].result
    assert result is not None and (result.winner, result.reason) == (None, "aborted")
