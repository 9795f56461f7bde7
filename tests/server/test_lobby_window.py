"""Lobby pushes under churn: a game's line goes out at most once per window (its latest line),
a game created and withdrawn within the window is never told, and one address may hold only
so many lobby subscriptions."""

from __future__ import annotations

from tests.support.server import Harness, Peer, small_limits
from ubao.protocol import Cancel, ErrorCode, ListGames, Lobby, Ok, SeatSpec


def subscribe(peer: Peer) -> Ok:
    return peer.ok(ListGames(id=peer.next_id(), subscribe=True))


def pushed(peer: Peer) -> list[tuple[str, str, list[str | None]]]:
    lines = [m.game for m in peer.inbox if isinstance(m, Lobby)]
    return [(g.game_id, g.status, [s.name for s in g.seats]) for g in lines]


def test_a_game_created_and_withdrawn_within_the_window_is_never_told() -> None:
    h = Harness(small_limits(lobby_window_ms=250))
    watchers = [h.player(f"w{n}", "spectator") for n in range(3)]
    for watcher in watchers:
        subscribe(watcher)
    churner = h.player("churn", "spectator")
    for _ in range(20):  # create and cancel, well within its budgets
        game_id = churner.create()
        churner.ok(Cancel(id=churner.next_id(), game_id=game_id))
    h.advance(250)
    assert all(pushed(watcher) == [] for watcher in watchers)
    kept = churner.create()
    assert pushed(watchers[0]) == []  # a new game waits its window...
    h.advance(249)
    assert pushed(watchers[0]) == []
    h.advance(1)
    for watcher in watchers:  # ...then everybody hears of it once
        assert pushed(watcher) == [(kept, "waiting", [None, None])]


def test_a_games_changes_within_a_window_go_out_once_as_its_latest_line() -> None:
    h = Harness(small_limits(lobby_window_ms=250))
    watcher = h.player("cy", "spectator")
    subscribe(watcher)
    ada, bob = h.player("ada"), h.player("bob")
    game_id = ada.create(SeatSpec.open(), SeatSpec.open())
    h.advance(250)
    assert pushed(watcher) == [(game_id, "waiting", [None, None])]
    h.advance(250)
    ada.join(game_id, 0)  # the window since its last line is over: at once
    assert pushed(watcher)[-1] == (game_id, "waiting", ["ada", None])
    bob.join(game_id, 1)
    h.disconnect(bob)  # two more changes within the window: held
    assert len(pushed(watcher)) == 2
    assert h.core.next_deadline() == h.clock() + 250
    h.advance(250)
    assert pushed(watcher)[2:] == [(game_id, "playing", ["ada", "bob"])]
    assert len(pushed(watcher)) == 3
    other = ada.create()  # another game's window is its own
    h.advance(250)
    assert pushed(watcher)[3:] == [(other, "waiting", [None, None])]


def test_one_address_holds_so_many_lobby_subscriptions() -> None:
    h = Harness(small_limits(lobby_subscribers_per_ip=2))
    first, second, third = (h.player(f"p{n}", "spectator") for n in range(3))
    subscribe(first)
    subscribe(second)
    subscribe(second)  # again: still one
    error = third.error(ListGames(id=5, subscribe=True))
    assert error.code == ErrorCode.QUOTA_EXCEEDED and "2 lobby subscriptions" in error.message
    other = h.connect("10.7.7.7")
    other.hello("q", "spectator")
    subscribe(other)  # another address's are its own
    second.ok(ListGames(id=9, subscribe=False))
    subscribe(third)
    h.disconnect(first)
    subscribe(h.player("p4", "spectator"))
    assert len(h.core.lobby) == 3
