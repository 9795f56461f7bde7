"""Rematches in the sans-I/O core: offered, accepted (seats swapped, new tokens to their own
players only, spectators told), declined, withdrawn, granted by a bot, and every refusal."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.server import (
    Harness,
    Peer,
    move,
    offer,
    over_at_once,
    refused,
    small_limits,
    started_game,
)
from ubao.protocol import (
    AppCloseCode,
    Cancel,
    ClockSpec,
    Error,
    ErrorCode,
    Move,
    Ok,
    Over,
    Rematch,
    RematchAnswer,
    RematchOffer,
    Resign,
    Resume,
    SeatEvent,
    SeatSpec,
    Snapshot,
    Watch,
)
from ubao.server.limits import Share


def finished(h: Harness, **create: Any) -> tuple[str, Peer, str, Peer, str]:
    """A game of two people, South having resigned: (game_id, south, token, north, token)."""
    south, north = h.player("south"), h.player("north")
    game_id = south.create(**create)
    _, south_token, _ = south.join(game_id, 0)
    _, north_token, _ = north.join(game_id, 1)
    south.ok(Resign(id=south.next_id(), game_id=game_id, token=south_token))
    return game_id, south, south_token, north, north_token


def answer(peer: Peer, game_id: str, token: str, accept: bool) -> list[Any]:
    return peer.send(RematchAnswer(id=peer.next_id(), game_id=game_id, token=token, accept=accept))


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


def test_a_rematch_where_no_finished_game_is_kept_says_the_game_is_over_and_not_kept() -> None:
    """With `--keep-finished 0` a game is forgotten with its seats as it ends: "resume it
    first" sent players round in circles (a resume is forgotten again at once)."""
    h = Harness(small_limits(keep_finished=0))
    game_id, south, south_token, north, north_token = finished(h)
    error = south.error(Rematch(id=south.next_id(), game_id=game_id, token=south_token))
    assert error.code == ErrorCode.NOT_STARTED
    assert "is over and not kept by this server (it keeps no finished games)" in error.message
    assert "resume" not in error.message
    south.ok(Resume(id=south.next_id(), game_id=game_id, token=south_token, since_v=0))
    again = south.error(Rematch(id=south.next_id(), game_id=game_id, token=south_token))
    assert (again.code, again.message) == (error.code, error.message)
    answer = RematchAnswer(id=north.next_id(), game_id=game_id, token=north_token, accept=True)
    assert north.error(answer).code == ErrorCode.NOT_STARTED
    # A token of no seat is still told so first, as in any game.
    wrong = south.error(Rematch(id=south.next_id(), game_id=game_id, token="x" * 32))
    assert wrong.code == ErrorCode.NOT_YOUR_SEAT


def test_a_rematch_over_the_offerers_share_names_the_offerer_to_the_one_who_accepts() -> None:
    """The new game counts against the offerer's share: refused when North accepts, the
    message once said "this connection already has …" of North, who had no game to finish."""
    h = Harness(small_limits(per_connection=Share(games=1, waiting=1, bot_seats=4)))
    game_id, south, south_token, north, north_token = finished(h)
    south.create()  # a game waiting for a player: South's share is full
    assert offer(south, game_id, south_token)[0].type == "ok"
    got = answer(north, game_id, north_token, accept=True)
    assert len(got) == 1 and got[0].code == ErrorCode.QUOTA_EXCEEDED, got
    assert got[0].message.startswith("the rematch offerer's connection already has 1 games")


@pytest.mark.parametrize("end", ["cancel", "resign"])
def test_a_game_that_ended_before_it_started_has_no_rematch(end: str) -> None:
    h = Harness()
    creator = h.player("ada")
    game_id = creator.create()
    _, token, _ = creator.join(game_id, 0)
    if end == "cancel":
        creator.ok(Cancel(id=creator.next_id(), game_id=game_id))
    else:
        creator.ok(Resign(id=creator.next_id(), game_id=game_id, token=token))
    for command in (
        Rematch(id=50, game_id=game_id, token=token),
        RematchAnswer(id=51, game_id=game_id, token=token, accept=True),
    ):
        got = creator.send(command)
        assert len(got) == 1 and isinstance(got[0], Error), got
        assert got[0].code == ErrorCode.NOT_STARTED and "never started" in got[0].message
    room = h.core.rooms[game_id]
    assert room.rematch_offer is None and room.rematch_id is None
    assert not any(isinstance(m, RematchOffer) for m in creator.inbox)
    assert list(h.core.rooms) == [game_id]


GRACE_MS = 30_000


def aborted_by_bob_leaving(h: Harness) -> tuple[str, Peer, str, str]:
    """alice (South) plays her first move, bob leaves (Ctrl-Q) before his and does not come
    back: the game is aborted. Returns (game_id, alice, alice's token, bob's token)."""
    game_id, alice, a_token, bob, b_token = started_game(h)
    move(alice, game_id, a_token, 0, "1")
    h.disconnect(bob)
    h.advance(GRACE_MS)
    over = alice.inbox[-1]
    assert isinstance(over, Over) and (over.result.winner, over.result.reason) == (None, "aborted")
    return game_id, alice, a_token, b_token


def test_no_offer_is_shown_once_it_was_declined_or_withdrawn() -> None:
    h = Harness(small_limits(grace_ms=GRACE_MS))
    game_id, alice, a_token, b_token = aborted_by_bob_leaving(h)
    offer(alice, game_id, a_token)
    h.disconnect(alice)  # the offer lapses with its player
    bob = h.player("bob")
    got = bob.send(Resume(id=bob.next_id(), game_id=game_id, token=b_token, since_v=0))
    assert isinstance(got[1], Snapshot) and got[1].rematch is None and len(got) == 2


def test_a_rematch_offered_to_a_player_who_left_is_refused_until_they_are_back() -> None:
    h = Harness()
    game_id, alice, a_token, bob, b_token = over_at_once(h)
    h.disconnect(alice)
    got = offer(bob, game_id, b_token)
    refused(got, ErrorCode.NOT_STARTED)
    assert "alice has left" in got[0].message
    assert h.core.rooms[game_id].rematch_offer is None

    back = h.player("alice")
    back.ok(Resume(id=1, game_id=game_id, token=a_token, since_v=0))
    assert bob.inbox[-1] == SeatEvent(
        game_id, h.core.rooms[game_id].v, 0, "alice", True, status="over"
    )
    got = offer(bob, game_id, b_token)
    assert got[1:] == [RematchOffer(game_id, 1, "offered")] and back.inbox[-1] == got[1]


def test_a_standing_offer_lapses_when_the_player_it_waits_for_leaves() -> None:
    h = Harness()
    game_id, alice, a_token, bob, b_token = over_at_once(h)
    fan = h.player("fan", "spectator")
    fan.ok(Watch(id=1, game_id=game_id))
    offer(bob, game_id, b_token)
    h.disconnect(alice)
    declined = RematchOffer(game_id, 1, "declined")
    assert [m.type for m in bob.inbox[-2:]] == ["seat", "rematch_offer"]
    assert bob.inbox[-1] == fan.inbox[-1] == declined
    assert h.core.rooms[game_id].rematch_offer is None

    back = h.player("alice")
    got = back.send(Resume(id=1, game_id=game_id, token=a_token, since_v=0))
    assert isinstance(got[1], Snapshot) and got[1].rematch is None and len(got) == 2
    assert offer(bob, game_id, b_token)[1] == RematchOffer(game_id, 1, "offered")


def test_an_offer_stands_for_a_player_who_takes_their_seat_over_from_a_new_connection() -> None:
    """A client that reconnects before the server saw its old connection go resumes from the
    new one: the player never left, so the offer still waits, and is sent again after the
    snapshot or the replayed events, to them and to a spectator who comes."""
    h = Harness()
    game_id, alice, a_token, bob, b_token = over_at_once(h)
    offer(bob, game_id, b_token)
    offered = RematchOffer(game_id, 1, "offered")
    again = h.player("alice")
    got = again.send(Resume(id=1, game_id=game_id, token=a_token, since_v=0))
    assert isinstance(got[1], Snapshot) and got[1].rematch == 1 and got[2:] == [offered]
    assert alice.closed is not None and alice.closed[0] == AppCloseCode.SEAT_TAKEN_OVER
    h.disconnect(alice)  # the old connection's close changes nothing
    assert bob.inbox[-1] == offered and h.core.rooms[game_id].rematch_offer == 1

    seen = h.core.rooms[game_id].v - 1  # missed the `over`: a replay, no snapshot
    third = h.player("alice")
    got = third.send(Resume(id=1, game_id=game_id, token=a_token, since_v=seen))
    assert [m.type for m in got] == ["ok", "over", "rematch_offer"] and got[-1] == offered
    fan = h.player("fan", "spectator")
    got = fan.send(Watch(id=1, game_id=game_id))
    assert isinstance(got[1], Snapshot) and got[1].rematch == 1 and got[2:] == [offered]


def test_a_standing_rematch_offer_survives_other_games_finishing() -> None:
    h = Harness(small_limits(keep_finished=1))
    game_id, alice, a_token, bob, b_token = over_at_once(h)
    assert offer(alice, game_id, a_token)[1] == RematchOffer(game_id, 0, "offered")
    over_at_once(h)  # cy and dee's game: the one kept beyond it would push ada's out
    assert game_id in h.core.rooms
    got = answer(bob, game_id, b_token, True)
    assert isinstance(got[0], Ok), got
    assert isinstance(got[1], RematchOffer) and got[1].state == "accepted"
    assert got[1].new_game_id is not None
