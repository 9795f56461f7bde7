"""Rematch orchestration: what a `rematch` or `rematch_answer` does in a finished game (refused,
an offer made or declined, or the rematch played), and the new game it creates. Pure: the core
carries the step out."""

from __future__ import annotations

from dataclasses import dataclass

from ubao.protocol import Create, ErrorCode, Rematch, RematchAnswer
from ubao.server.lifecycle import Rejected, advance
from ubao.server.room import Room


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
    offer = room.rematch_offer
    if isinstance(command, RematchAnswer):
        if offer is None or offer == seat:
            message = f"no rematch offer of the opponent's waits in game {room.game_id}"
            raise Rejected(ErrorCode.NO_REMATCH_OFFER, message)
        return PlayRematch(offer) if command.accept else DeclineRematch(offer)
    if offer == seat:
        message = f"your rematch offer in game {room.game_id} waits for its answer"
        raise Rejected(ErrorCode.REMATCH_PENDING, message)
    if offer is not None or opponent.is_bot:
        return PlayRematch(seat if offer is None else offer)
    if opponent.holder is None:
        # As on lichess, where the rematch button goes once the opponent has left.
        message = (
            f"{opponent.name} has left game {room.game_id}: nobody is there to play a rematch with"
        )
        raise Rejected(ErrorCode.NOT_STARTED, message)
    return OfferRematch(seat)


def rematch_create(room: Room, command_id: int) -> Create:
    """The rematch's `create`: same game, options, clock, pace and seat kinds, seats swapped."""
    return Create(
        id=command_id,
        game=room.game_name,
        options=room.options,
        seats=(room.seats[1].spec, room.seats[0].spec),
        clock=room.clock_spec,
        pace_ms=room.pace_ms or None,
    )
