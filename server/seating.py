"""Who sits where and who follows a game: a seat taken by a joiner, the seat a command's token
holds on its connection, a seat taken over from another connection, and what a joiner, resumer
or watcher is sent to catch up. Pure: the room and the connections change, the messages are
returned; the core saves and queues them."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping

from ubao.protocol import AppCloseCode, ErrorCode, Event, Join, Ok
from ubao.server.crowd import catch_up
from ubao.server.intake import close
from ubao.server.lifecycle import Rejected
from ubao.server.outputs import Close, SendMessage
from ubao.server.room import Room, hash_token
from ubao.server.sessions import Connection

log = logging.getLogger("ubao.server")


def seat_joiner(room: Room, conn: Connection, join: Join, now: int) -> tuple[Ok, list[Event]]:
    """Seat `conn`'s player in `room` with a new token: the reply that tells it, and the
    events."""
    token = secrets.token_urlsafe(24)
    is_bot = conn.role == "bot"
    seat, events = room.join(join.seat, conn.name, hash_token(token), conn.id, now, is_bot=is_bot)
    room.seats[seat].account = conn.account
    conn.seats.add((room.game_id, seat))
    log.debug("connection %d joined game %s as seat %d", conn.id, room.game_id, seat)
    return Ok(id=join.id, game_id=room.game_id, seat=seat, token=token), events


def check_rated_joiner(room: Room, conn: Connection) -> None:
    """A rated game seats accounts only, and never one account in both seats."""
    if conn.account is None:
        message = f"game {room.game_id} is rated: only an account may join it, not a guest"
        raise Rejected(ErrorCode.RATED_NEEDS_ACCOUNTS, message)
    if any(seat.account == conn.account for seat in room.seats):
        message = f"game {room.game_id} is rated: its other seat is this account's already"
        raise Rejected(ErrorCode.RATED_NEEDS_ACCOUNTS, message)


def held_seat(conn: Connection, room: Room, token: str) -> int:
    """The seat of `room` that `token` holds, if `conn` holds it; else Rejected."""
    seat = room.seat_of(token)
    if seat is None:
        raise Rejected(ErrorCode.NOT_YOUR_SEAT, f"this token holds no seat of {room.game_id}")
    if (room.game_id, seat) not in conn.seats:
        message = (
            f"seat {seat} of {room.game_id} is not held by this connection; resume it first"
            if room.seats[seat].holder is None
            else f"seat {seat} is played from another connection; resume it to take over"
        )
        raise Rejected(ErrorCode.NOT_YOUR_SEAT, message)
    return seat


def take_over(conns: Mapping[int, Connection], previous: int, room: Room, seat: int) -> list[Close]:
    """Close the connection the seat was taken from (4001), whatever else it holds: the
    close is the protocol's only notice of a lost seat (clients stop on it), so its other
    seats go as in any disconnection, when the layer reports the close. Only the seat
    taken over is not dropped: it is the new connection's."""
    old = conns.get(previous)
    if old is None:
        return []
    old.seats.discard((room.game_id, seat))
    log.info("connection %d lost game %s seat %d to a takeover", old.id, room.game_id, seat)
    return [close(old, AppCloseCode.SEAT_TAKEN_OVER, "seat taken over by another connection")]


def subscribe(conn: Connection, room: Room, since_v: int | None, now: int) -> list[SendMessage]:
    """What the joiner, resumer or watcher missed (`catch_up`); it follows the game from now
    on."""
    room.watchers.add(conn.id)
    conn.rooms.add(room.game_id)
    return [SendMessage((conn.id,), message) for message in catch_up(room, conn, since_v, now)]
