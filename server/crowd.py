"""Who follows a game and what each hears (lila-ws's `RoundCrowd`): a change's events fanned out
(the seat to move gets its own copy, with its legal moves), a joiner's or watcher's catch-up,
and news that is no game event. Pure: it returns the messages; the core queues them."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from ubao.protocol import AnalysisEvent, Event, RematchOffer, ServerMessage
from ubao.server.outputs import SendMessage
from ubao.server.room import Room
from ubao.server.sessions import Connection


def fan_out(
    room: Room, events: Sequence[Event], recipients: Sequence[int], conns: Mapping[int, Connection]
) -> list[SendMessage]:
    """`events` for `recipients`: the holder of the seat to move gets the copy with the legal
    moves, the others the frame the store encoded (`Room.take_body`), once for all of them."""
    turn = (room.game_id, room.to_move)
    movers = tuple(c for c in recipients if turn in conns[c].seats)
    others = tuple(c for c in recipients if c not in movers)
    out: list[SendMessage] = []
    for event in events:
        personal = room.with_legal(event)
        body = room.take_body(event)
        if personal is not event and movers:
            out.append(SendMessage(movers, personal))
            if others:
                out.append(SendMessage(others, event, body))
        elif recipients:
            out.append(SendMessage(tuple(recipients), event, body))
    return out


def catch_up(room: Room, conn: Connection, since_v: int | None, now: int) -> list[ServerMessage]:
    """What a joiner, resumer or watcher missed since version `since_v` (a snapshot if it saw
    none, or one this game never had; the events and then the game's analysis, if it has one,
    otherwise), then the rematch offer that waits in a finished game (it is in no replayed
    event): a player who comes back sees it, as everyone there did."""
    missed = room.events_since(since_v) if since_v is not None else None
    to_move = (room.game_id, room.to_move) in conn.seats
    out: list[ServerMessage]
    if missed is None:
        out = [room.snapshot(now, with_legal=to_move)]
    else:
        out = [room.with_legal(event) if to_move else event for event in missed]
        if room.analysis is not None:  # in the snapshot, but in no replayed event
            out.append(AnalysisEvent(room.game_id, "done", room.analysis))
    if room.rematch_offer is not None:
        out.append(RematchOffer(room.game_id, room.rematch_offer, "offered"))
    return out


def tell(room: Room, message: ServerMessage, exclude: Collection[int] = ()) -> list[SendMessage]:
    """Everyone in the game (but `exclude`) hears `message`: news that is no game event (a
    rematch offer, a player leaving or coming back to a finished game: nothing stored, no new
    version)."""
    recipients = tuple(conn for conn in room.watchers if conn not in exclude)
    return [SendMessage(recipients, message)] if recipients else []
