"""Rematch orchestration: what a `rematch` or `rematch_answer` does in a finished game (refused,
an offer made or declined, or the rematch played), the new game it creates, who sits in it and
what everyone in the old game hears. Pure: the core carries the steps out and queues the
messages."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from ubao.protocol import (
    Create,
    ErrorCode,
    Event,
    Rematch,
    RematchAnswer,
    RematchOffer,
    RematchState,
)
from ubao.server.crowd import tell
from ubao.server.lifecycle import (
    REMATCH,
    REMATCH_REFUSALS,
    Rejected,
    RematchAction,
    advance,
    answer,
    offer_of,
)
from ubao.server.outputs import SendMessage
from ubao.server.room import Room, hash_token
from ubao.server.sessions import Connection


@dataclass(frozen=True, slots=True)
class PlayRematch:
    """Create the rematch now: `offerer`'s offer is accepted (or a bot accepts it at once)."""

    offerer: int


@dataclass(frozen=True, slots=True)
class OfferRematch:
    """`seat` offers a rematch; the opponent is asked."""

    seat: int


@dataclass(frozen=True, slots=True)
class DeclineRematch:
    """The opponent declines `offerer`'s offer."""

    offerer: int


RematchStep = PlayRematch | OfferRematch | DeclineRematch


def check_kept(room: Room, kept: bool, token: str, keep_finished: int) -> None:
    """Refuse a rematch of a game read back for this command alone and forgotten again (not
    `kept`: `--keep-finished 0`): the game is over and its players' seats went with it, so
    "resume it first" would not help. Nobody is in it to play again with."""
    if kept or room.seat_of(token) is None:
        return
    why = "it keeps no finished games" if not keep_finished else "any more"
    message = (
        f"game {room.game_id} is over and not kept by this server ({why}): "
        "nobody is in it to play a rematch with"
    )
    raise Rejected(ErrorCode.NOT_STARTED, message)


def rematch_step(room: Room, seat: int, command: Rematch | RematchAnswer) -> RematchStep:
    """What `seat`'s command does in `room`, or Rejected: the game must be over, have had an
    opponent, not be rematched already; an answer needs the opponent's offer, and a `rematch`
    crossing the opponent's offer (or facing a server bot) plays it at once."""
    advance(room.status, "rematch", room.game_id)
    opponent = room.seats[1 - seat]
    if opponent.free:
        message = (
            f"game {room.game_id} never started: nobody sat in seat {1 - seat} "
            "to play a rematch with"
        )
        raise Rejected(ErrorCode.NOT_STARTED, message)
    if room.rematch_id is not None:
        message = f"game {room.game_id} was rematched already: game {room.rematch_id}"
        raise Rejected(ErrorCode.ALREADY_REMATCHED, message)
    offerer = room.rematch_offer
    action: RematchAction = "offer"
    if isinstance(command, RematchAnswer):
        action = "accept" if command.accept else "decline"
    state = _answer(seat, offerer, action, room.game_id)
    if offerer is None:  # a new offer
        offerer = seat
        if opponent.is_bot:  # the server bot answers at once
            state = _answer(1 - seat, seat, "accept", room.game_id)
    if state == "accepted":
        return PlayRematch(offerer)
    if state == "declined":
        return DeclineRematch(offerer)
    if opponent.holder is None:
        # As on lichess, where the rematch button goes once the opponent has left.
        message = (
            f"{opponent.name} has left game {room.game_id}: nobody is there to play a rematch with"
        )
        raise Rejected(ErrorCode.NOT_STARTED, message)
    return OfferRematch(seat)


def offer_news(room: Room, step: OfferRematch | DeclineRematch) -> RematchOffer:
    """Make or decline the offer; what everyone in the game hears of it."""
    if isinstance(step, DeclineRematch):
        room.rematch_offer = None
        return RematchOffer(room.game_id, step.offerer, "declined")
    room.rematch_offer = step.seat
    return RematchOffer(room.game_id, step.seat, "offered")


def rematch_create(room: Room, command_id: int) -> Create:
    """The rematch's `create`: same game, options, clock, pace, seat kinds and rating (a rated
    game's rematch is rated: the same two accounts), seats swapped."""
    return Create(
        id=command_id,
        game=room.game_name,
        options=room.options,
        seats=(room.seats[1].spec, room.seats[0].spec),
        clock=room.clock_spec,
        pace_ms=room.pace_ms or None,
        rated=room.rated,
    )


def rematch_players(room: Room, conns: Mapping[int, Connection]) -> dict[int, Connection]:
    """The connected players of `room` (server bots aside), by their seat in the rematch: seats
    swap."""
    return {
        1 - index: conns[seat.holder]
        for index, seat in enumerate(room.seats)
        if not seat.is_bot and seat.holder is not None
    }


def seat_players(
    room: Room, new: Room, players: Mapping[int, Connection], now: int
) -> tuple[list[Event], dict[int, str]]:
    """Seat each of `room`'s `players` in the rematch `new` under the name it had, with a new
    token; their connections hold the new seats. Returns the events and each seat's token."""
    events: list[Event] = []
    tokens: dict[int, str] = {}
    for new_seat, player in players.items():
        tokens[new_seat] = secrets.token_urlsafe(24)
        name = room.seats[1 - new_seat].name or player.name
        token_hash = hash_token(tokens[new_seat])
        account = room.seats[1 - new_seat].account
        joined = new.join(
            new_seat, name, token_hash, player.id, now, is_bot=player.is_bot, account=account
        )
        events += joined[1]
    for new_seat, player in players.items():
        player.seats.add((new.game_id, new_seat))
    return events, tokens


def rematch_news(
    room: Room, offerer: int, new: Room, players: Mapping[int, Connection], tokens: dict[int, str]
) -> list[SendMessage]:
    """The accepted offer: each player hears it with its seat and token in `new`, everyone else
    in `room` without."""
    accepted = RematchOffer(room.game_id, offerer, "accepted", new_game_id=new.game_id)
    out = [
        SendMessage((player.id,), dataclasses.replace(accepted, new_seat=seat, token=tokens[seat]))
        for seat, player in players.items()
    ]
    return out + tell(room, accepted, frozenset(player.id for player in players.values()))


def rematch_lapse(room: Room, seat: int, held: bool) -> list[SendMessage]:
    """`seat`'s player leaves the finished game (`held`: it held the seat): as on lichess, an
    offer lapses when its player leaves (withdrawn), and when the player it waits for leaves
    (declined: they will not answer it)."""
    offerer = room.rematch_offer
    if offerer is None or (offerer != seat and not held):
        return []  # nothing waits, or the player it waits for had lost the seat already
    state = _answer(seat, offerer, "leave", room.game_id)
    assert state is not None
    room.rematch_offer = None
    return tell(room, RematchOffer(room.game_id, offerer, state))


def _answer(
    seat: int, offerer: int | None, action: RematchAction, game_id: str
) -> RematchState | None:
    """The offer's state after `seat`'s `action` (server/lifecycle.py, `REMATCH`)."""
    return answer(REMATCH, REMATCH_REFUSALS, offer_of(seat, offerer), action, game_id)
