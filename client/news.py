"""What the game screen's feedback line says of each server event, sans I/O.

`GameApp.on_event` applies an event to the game's state and asks this module what to say of
it: each function answers from the event and `Seen` (the screen as the news reads it) with
the words (`Say`, effects as data), and the screen says them. Who is named how (`who`) is
decided here too, for the status line as for the news.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ubao.client.input_machine import ERROR, Say
from ubao.protocol import (
    DrawOffer,
    Event,
    Moved,
    RematchOffer,
    SeatEvent,
    Snapshot,
    TakebackRequest,
)

OFFERED_MINE = "rematch offered; waiting for the answer"


@dataclass(frozen=True, slots=True)
class Seen:
    """The screen as the news reads it: whose it is, who plays, and what it says now."""

    seat: int | None
    """The seat this screen plays, None while watching."""
    sides: Sequence[str]
    """The sides' labels ("South", "North")."""
    names: Sequence[str | None]
    """Who plays each side (None: an open seat)."""
    over: bool
    said: str
    """What the feedback line says now."""

    def who(self, side: int) -> str:
        """A side and who plays it: "North, bob" (a side's label may have parentheses of its
        own: "White (O), bob")."""
        return f"{self.sides[side]}, {self.names[side] or 'open seat'}"


def moved(event: Moved, seen: Seen, declined: bool, passing: bool = False) -> str:
    """A move, with the takeback request it `declined` (whose own event came just before): a
    pass (`passing`, a move on no hole) as a side with no move, and an extra turn (the mover
    is to move again, Kalah's last seed in its store) as such."""
    mine = event.seat == seen.seat
    who = "You" if mine else seen.sides[event.seat]
    if passing:
        text = "You have no move and pass" if mine else f"{who} has no move and passes"
    else:
        text = f"{who} played {event.move}"
        if event.to_move == event.seat and not seen.over:
            text += ": your move again" if mine else " and moves again"
    return text + (" (takeback declined)" if declined else "")


def seat_changed(event: SeatEvent, seen: Seen) -> Say | None:
    """A player came, went or left their seat free; None says nothing new."""
    if event.seat == seen.seat and event.connected:
        return None  # our own return (after a restart, say): the connection line tells it
    if event.name is None:
        return Say(f"{seen.sides[event.seat]}'s seat is free again")
    if event.connected:
        if seen.said.startswith("You played "):
            return None  # the panel shows who is here; the player's move is the news
        return Say(f"{seen.who(event.seat)}, is here")
    if seen.over:
        return Say(f"{seen.who(event.seat)}, left")
    held = f"; {event.grace_ms / 1000:.0f} s to return" if event.grace_ms else ""
    return Say(f"{seen.who(event.seat)}, disconnected{held}", ERROR)


def takeback_changed(event: TakebackRequest, seen: Seen, before: int, answering: bool) -> Say:
    """A takeback asked, declined, or granted (the game was at ply `before`); `answering`:
    the request waits for this player's answer (the question line asks it)."""
    mine = event.seat == seen.seat
    side = seen.sides[event.seat]
    if event.state == "asked":
        if mine:
            return Say("takeback asked; waiting for the answer")
        return Say("" if answering else f"{side} asks for a takeback")
    if event.state == "declined":
        return Say("takeback declined", ERROR if mine else "")
    who = "you" if mine else side
    taken = before - event.ply
    moves = "your last move" if mine else "their last move"
    if taken > 1:
        moves += f" and the {taken - 1} after it" if taken > 2 else " and the reply"
    return Say(f"takeback: {moves} taken back, as {who} asked; back at ply {event.ply}")


def draw_changed(event: DrawOffer, seen: Seen, answering: bool) -> Say:
    """A draw offered or declined (an accepted one ends the game: `over` says it);
    `answering`: the offer waits for this player's answer (the question line asks it)."""
    mine = event.seat == seen.seat
    if event.state == "offered":
        if mine:
            return Say("draw offered; waiting for the answer")
        return Say("" if answering else f"{seen.sides[event.seat]} offers a draw")
    return Say("draw declined", ERROR if mine else "")


def rematch_changed(offer: RematchOffer, seen: Seen) -> Say:
    """An offer made, declined or withdrawn (an accepted one switches games)."""
    mine = offer.seat == seen.seat
    if offer.state == "offered":
        return Say(OFFERED_MINE if mine else offered(seen.sides[offer.seat]))
    if offer.state == "declined":
        if mine:
            return Say("rematch declined", ERROR)
        if seen.seat is not None:
            return Say("you declined the rematch")
        return Say(f"{seen.sides[1 - offer.seat]} declined the rematch")
    return Say(f"{seen.sides[offer.seat]} withdrew the rematch offer (left)")


def offered(side: str) -> str:
    return f"{side} offers a rematch"


def about_an_offer(seen: Seen) -> bool:
    """The feedback line speaks of a rematch offer (forgotten on a new connection)."""
    return seen.said in (OFFERED_MINE, *(offered(side) for side in seen.sides))


def back_in_game(event: Event, seat: int | None) -> bool:
    """A resume ends with our own seat event (or a snapshot): the game is up to date."""
    if isinstance(event, Snapshot):
        return True
    return isinstance(event, SeatEvent) and event.seat == seat and event.connected
