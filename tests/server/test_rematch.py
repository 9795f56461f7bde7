"""Rematches in the sans-I/O core: offered, accepted (seats swapped, new tokens to their own
players only, spectators told), declined, withdrawn, granted by a bot, and every refusal."""

from __future__ import annotations

from typing import Any

from tests.support.server import Harness, Peer, small_limits
from ubao.protocol import (
    ClockSpec,
    Error,
    ErrorCode,
    Move,
    Ok,
    Rematch,
    RematchAnswer,
    RematchOffer,
    Resign,
    SeatSpec,
    Snapshot,
    Watch,
)
from ubao.server.core import Share


def finished(h: Harness, **create: Any) -> tuple[str, Peer, str, Peer, str]:
    """A game of two people, South having resigned: (game_id, south, token, north, token)."""
    south, north = h.player("south"), h.player("north")
    game_id = south.create(**create)
    _, south_token, _ = south.join(game_id, 0)
    _, north_token, _ = north.join(game_id, 1)
    south.ok(Resign(id=south.next_id(), game_id=game_id, token=south_token))
    return game_id, south, south_token, north, north_token


def offer(peer: Peer, game_id: str, token: str) -> list[Any]:
    return peer.send(Rematch(id=peer.next_id(), game_id=game_id, token=token))


def answer(peer: Peer, game_id: str, token: str, accept: bool) -> list[Any]:
    return peer.send(RematchAnswer(id=peer.next_id(), game_id=game_id, token=token, accept=accept))


def refused(got: list[Any], code: ErrorCode) -> None:
    assert len(got) == 1 and isinstance(got[0], Error) and got[0].code == code, got


def test_an_accepted_rematch_seats_both_players_swapped_with_their_own_new_tokens() -> None:
    h = Harness()
    clock = ClockSpec(60_000, 2_000)
    game_id, south, s_token, north, n_token = finished(h, clock=clock, pace_ms=500)
    fan = h.player("fan", role="spectator")
    fan.ok(Watch(id=1, game_id=game_id))
    got = offer(south, game_id, s_token)
    assert isinstance(got[0], Ok) and got[1] == RematchOffer(game_id, 0, "offered")
    assert north.inbox[-1] == fan.inbox[-1] == got[1]

    got = answer(north, game_id, n_token, True)
    assert isinstance(got[0], Ok)
    mine = got[1]
    assert isinstance(mine, RematchOffer) and mine.state == "accepted"
    new_id = mine.new_game_id
    assert new_id is not None and new_id != game_id
    assert mine.new_seat == 0 and mine.token is not None
    snapshot = got[2]
    assert isinstance(snapshot, Snapshot) and snapshot.game_id == new_id
    assert snapshot.status == "playing" and snapshot.legal  # North moves first now
    assert [seat.name for seat in snapshot.seats] == ["north", "south"]
    assert (snapshot.clock, snapshot.options) == (clock, {"pits": 3, "seeds": 2})
    theirs = [m for m in south.inbox if isinstance(m, RematchOffer) and m.state == "accepted"]
    assert (
        len(theirs) == 1 and theirs[0].new_seat == 1 and theirs[0].token not in (None, mine.token)
    )
    assert fan.inbox[-1] == RematchOffer(game_id, 0, "accepted", new_game_id=new_id)
    room = h.core.rooms[new_id]
    assert room.pace_ms == 500 and room.creator == south.conn

    # Each token holds its own seat; the new game is stored like any other.
    assert isinstance(
        north.send(Move(id=50, game_id=new_id, token=mine.token, ply=0, move="1"))[0], Ok
    )
    assert h.store.load(new_id) is not None
    refused(offer(south, game_id, s_token), ErrorCode.ALREADY_REMATCHED)


def test_offers_declined_crossed_withdrawn_and_every_refusal() -> None:
    h = Harness()
    south, north = h.player("south"), h.player("north")
    game_id = south.create()
    _, s_token, _ = south.join(game_id, 0)
    _, n_token, _ = north.join(game_id, 1)
    refused(offer(south, game_id, s_token), ErrorCode.NOT_OVER)
    south.ok(Resign(id=south.next_id(), game_id=game_id, token=s_token))
    spectator = h.player("eve", role="spectator")
    refused(offer(spectator, game_id, s_token), ErrorCode.NOT_YOUR_SEAT)
    refused(offer(south, game_id, "not-a-token"), ErrorCode.NOT_YOUR_SEAT)
    refused(offer(north, game_id, s_token), ErrorCode.NOT_YOUR_SEAT)
    refused(answer(north, game_id, n_token, True), ErrorCode.NO_REMATCH_OFFER)
    offer(south, game_id, s_token)
    refused(offer(south, game_id, s_token), ErrorCode.REMATCH_PENDING)
    refused(answer(south, game_id, s_token, True), ErrorCode.NO_REMATCH_OFFER)
    got = answer(north, game_id, n_token, False)
    assert isinstance(got[0], Ok) and got[1] == RematchOffer(game_id, 0, "declined")
    assert south.inbox[-1] == got[1] and h.core.rooms[game_id].rematch_offer is None

    offer(north, game_id, n_token)
    h.disconnect(north)  # the offer lapses with its player
    assert south.inbox[-1] == RematchOffer(game_id, 1, "withdrawn")
    refused(answer(south, game_id, s_token, True), ErrorCode.NO_REMATCH_OFFER)
    assert len(h.core.rooms) == 1


def test_offers_that_cross_make_the_rematch() -> None:
    h = Harness()
    game_id, south, s_token, north, n_token = finished(h)
    offer(south, game_id, s_token)
    got = offer(north, game_id, n_token)
    assert isinstance(got[0], Ok) and isinstance(got[1], RematchOffer)
    assert got[1].state == "accepted" and got[1].new_seat == 0


def test_a_server_bot_accepts_at_once_and_moves_first_in_the_new_game() -> None:
    h = Harness()
    human = h.player("ada")
    game_id = human.create(SeatSpec.open(), SeatSpec.bot(2, time_ms=100))
    _, token, _ = human.join(game_id, 0)
    human.ok(Resign(id=human.next_id(), game_id=game_id, token=token))
    got = offer(human, game_id, token)
    assert [m.type for m in got] == ["ok", "rematch_offer", "snapshot"]
    new_id = got[1].new_game_id
    room = h.core.rooms[new_id]
    assert [seat.spec for seat in room.seats] == [SeatSpec.bot(2, time_ms=100), SeatSpec.open()]
    assert got[1].new_seat == 1 and room.seats[1].name == "ada"
    assert [turn.game_id for turn in h.bot_turns] == [new_id]


def test_a_rematch_counts_against_the_offerers_share_and_changes_nothing_over_it() -> None:
    per_connection = Share(games=1, waiting=1, bot_seats=4)
    h = Harness(small_limits(per_connection=per_connection))
    human = h.player("ada")
    game_id = human.create(SeatSpec.open(), SeatSpec.bot(2))
    _, token, _ = human.join(game_id, 0)
    human.ok(Resign(id=human.next_id(), game_id=game_id, token=token))
    human.create()  # a game waiting for a player: the share is full
    refused(offer(human, game_id, token), ErrorCode.QUOTA_EXCEEDED)
    assert len(h.core.rooms) == 2 and h.core.rooms[game_id].rematch_offer is None
