"""Rated games in the core: between two accounts only, their end changes both ratings by what
Glicko-2 says, in the save of the result, once; `over` shows the change; `ratings` and
`player` read it back, across a restart too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.server import Harness, Peer
from ubao.protocol import (
    ClockSpec,
    ErrorCode,
    Join,
    Over,
    Player,
    Ratings,
    Rematch,
    RematchAnswer,
    RematchOffer,
    Resign,
    Result,
    SeatSpec,
)
from ubao.server.ratings import Standing, rated_game, replay
from ubao.server.stores.protocol import StoreError
from ubao.server.stores.sqlite import Store


def account(h: Harness, name: str) -> Peer:
    """A player whose hello proved the key of account `name`."""
    peer = h.player(name)
    h.core.conns[peer.conn].account = name
    return peer


def rated(h: Harness, south: Peer, north: Peer, **create: Any) -> tuple[str, str, str]:
    game_id = south.create(rated=True, **create)
    _, south_token, _ = south.join(game_id, 0)
    _, north_token, _ = north.join(game_id, 1)
    return game_id, south_token, north_token


def resign(peer: Peer, game_id: str, token: str) -> Over:
    got = peer.send(Resign(id=peer.next_id(), game_id=game_id, token=token))
    (over,) = [m for m in got if isinstance(m, Over)]
    return over


def test_a_rated_games_end_changes_both_ratings_as_glicko2_says_and_shows_it() -> None:
    h = Harness()
    ada, bob = account(h, "ada"), account(h, "bob")
    game_id, _, bob_token = rated(h, ada, bob)
    over = resign(bob, game_id, bob_token)
    expected = rated_game(
        game_id, "kalah/untimed", 42, ("ada", "bob"), (Standing(), Standing()), Result(0, "", None)
    )
    assert over.ratings is not None
    assert over.ratings == expected.changes()
    first, second = over.ratings
    assert (first.player, first.before, first.after > 1500, first.provisional) == (
        "ada",
        1500,
        True,
        True,
    )
    assert second.after < 1500 and over in ada.inbox
    assert h.store.standing("kalah/untimed", "ada") == expected.after[0]
    assert h.store.standing("kalah/untimed", "bob") == expected.after[1]


def test_each_next_game_starts_from_the_ratings_the_last_one_left() -> None:
    h = Harness()
    ada, bob = account(h, "ada"), account(h, "bob")
    overs = []
    for n in range(3):
        game_id, ada_token, bob_token = rated(h, ada, bob)
        overs.append(resign(bob, game_id, bob_token) if n != 1 else resign(ada, game_id, ada_token))
    assert overs[1].ratings is not None and overs[0].ratings is not None
    assert overs[1].ratings[0].before == overs[0].ratings[0].after
    stored = {
        (g.pool, p): s
        for g in h.store.rated_games(None, 0)
        for p, s in zip(g.players, g.after, strict=True)
    }
    assert replay(h.store.rated_games(None, 0)) == stored
    assert h.store.standing("kalah/untimed", "ada") == stored[("kalah/untimed", "ada")]


def test_casual_games_and_aborted_rated_games_change_nothing() -> None:
    h = Harness()
    ada, bob = account(h, "ada"), account(h, "bob")
    game_id = ada.create()
    ada.join(game_id, 0)
    _, bob_token, _ = bob.join(game_id, 1)
    assert resign(bob, game_id, bob_token).ratings is None
    aborted = ada.create(rated=True)
    _, ada_token, _ = ada.join(aborted, 0)
    assert resign(ada, aborted, ada_token).result.reason == "aborted"  # nobody joined yet
    assert h.store.rated_games(None, 0) == [] and h.store.standing("kalah/untimed", "ada") is None


def test_a_rated_game_refuses_a_guest_a_server_bot_and_one_account_twice() -> None:
    h = Harness()
    ada, guest = account(h, "ada"), h.player("guest")
    game_id = ada.create(rated=True)
    refused = guest.error(Join(id=guest.next_id(), game_id=game_id))
    assert refused.code == ErrorCode.RATED_NEEDS_ACCOUNTS
    ada.join(game_id, 0)
    refused = ada.error(Join(id=ada.next_id(), game_id=game_id, seat=1))
    assert refused.code == ErrorCode.RATED_NEEDS_ACCOUNTS
    with pytest.raises(AssertionError, match="rated_needs_accounts"):
        ada.create(SeatSpec.open(), SeatSpec.bot(2), rated=True)


def test_pools_are_per_speed_and_the_leaderboard_and_player_card_read_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ubao.sqlite3"
    h = Harness(store=Store(path))
    ada, bob = account(h, "ada"), account(h, "bob")
    game_id, _, bob_token = rated(h, ada, bob, clock=ClockSpec(60_000, 0))
    resign(bob, game_id, bob_token)
    game_id, ada_token, _ = rated(h, ada, bob)
    resign(ada, game_id, ada_token)
    h.store.commit()
    h.store.close()

    again = Harness(store=Store(path))  # a restart: what the store kept
    peer = again.player("anyone")
    board = peer.ok(Ratings(id=1, game="kalah")).leaderboard or ()
    assert [(r.pool, r.player) for r in board] == [
        ("kalah/bullet", "ada"),
        ("kalah/bullet", "bob"),
        ("kalah/untimed", "bob"),
        ("kalah/untimed", "ada"),
    ]
    assert all(r.provisional and r.games == 1 for r in board)
    only = peer.ok(Ratings(id=2, game="kalah", speed="bullet")).leaderboard or ()
    assert [r.player for r in only] == ["ada", "bob"]
    card = peer.ok(Player(id=3, name="ada")).player
    assert card is not None
    assert [(r.pool, r.wins, r.losses) for r in card.ratings] == [
        ("kalah/bullet", 1, 0),
        ("kalah/untimed", 0, 1),
    ]
    assert [(g.pool, g.opponent, g.outcome) for g in card.recent] == [
        ("kalah/untimed", "bob", "loss"),
        ("kalah/bullet", "bob", "win"),
    ]
    nobody = peer.ok(Player(id=4, name="nobody")).player
    assert nobody is not None and nobody.ratings == () and nobody.recent == ()


def test_a_rated_games_rematch_is_rated_between_the_same_accounts() -> None:
    h = Harness()
    ada, bob = account(h, "ada"), account(h, "bob")
    game_id, ada_token, bob_token = rated(h, ada, bob)
    first = resign(bob, game_id, bob_token)
    ada.send(Rematch(id=ada.next_id(), game_id=game_id, token=ada_token))
    got = bob.send(RematchAnswer(id=bob.next_id(), game_id=game_id, token=bob_token, accept=True))
    (accepted,) = [m for m in got if isinstance(m, RematchOffer) and m.state == "accepted"]
    assert accepted.new_game_id is not None and accepted.token is not None
    second = resign(bob, accepted.new_game_id, accepted.token)  # bob is South now: he loses
    assert first.ratings is not None and second.ratings is not None
    assert [c.player for c in second.ratings] == ["bob", "ada"]
    assert second.ratings[0].before == first.ratings[1].after
    assert h.store.standing("kalah/untimed", "bob") is not None
    assert len(h.store.rated_games("bob", 10)) == 2


def test_a_rating_the_store_cannot_read_leaves_the_game_unrated_rather_than_rated_wrong(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    h = Harness()
    ada, bob = account(h, "ada"), account(h, "bob")
    game_id, _, bob_token = rated(h, ada, bob)

    def unreadable(pool: str, player: str) -> None:
        raise StoreError("the disk is failing")

    monkeypatch.setattr(h.store, "standing", unreadable)
    over = resign(bob, game_id, bob_token)
    assert over.result.winner == 0 and over.ratings is None
    assert h.store.rated_games(None, 0) == []
