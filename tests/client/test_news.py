"""What the game screen's feedback line says of each server event, on its own: no screen, no
server, only an event and the screen as the news reads it."""

from __future__ import annotations

import dataclasses

from ubao.client.input_machine import ERROR, Say
from ubao.client.news import (
    OFFERED_MINE,
    Seen,
    about_an_offer,
    back_in_game,
    moved,
    rematch_changed,
    seat_changed,
    takeback_changed,
)
from ubao.protocol import Moved, RematchOffer, SeatEvent, TakebackRequest

SOUTH = Seen(seat=0, sides=("South", "North"), names=("alice", "bob"), over=False, said="")
"""Alice's screen, South, mid-game, nothing said."""


def test_a_move_names_its_player_and_the_takeback_it_declined() -> None:
    move = Moved(game_id="g", v=3, ply=2, seat=1, move="4", position="", to_move=0)
    assert moved(move, SOUTH, declined=False) == "North played 4"
    assert moved(move, SOUTH, declined=True) == "North played 4 (takeback declined)"
    mine = dataclasses.replace(move, seat=0, to_move=1)
    assert moved(mine, SOUTH, declined=False) == "You played 4"


def test_an_extra_turn_and_a_pass_are_said_as_such() -> None:
    """Issue 36, features: Kalah's extra turn is announced, and a side with no move passes."""
    again = Moved(game_id="g", v=3, ply=2, seat=1, move="3", position="", to_move=1)
    assert moved(again, SOUTH, declined=False) == "North played 3 and moves again"
    mine = dataclasses.replace(again, seat=0, to_move=0)
    assert moved(mine, SOUTH, declined=False) == "You played 3: your move again"
    passed = dataclasses.replace(again, move="pass", to_move=0)
    assert moved(passed, SOUTH, False, passing=True) == "North has no move and passes"
    assert moved(dataclasses.replace(passed, seat=0), SOUTH, False, True) == (
        "You have no move and pass"
    )


def test_a_seat_event_says_who_came_went_or_freed_the_seat() -> None:
    def seat(**changes: object) -> SeatEvent:
        event = SeatEvent(game_id="g", v=4, seat=1, name="bob", connected=True)
        return dataclasses.replace(event, **changes)  # type: ignore[arg-type]

    assert seat_changed(seat(), SOUTH) == Say("North, bob, is here")
    assert seat_changed(seat(), dataclasses.replace(SOUTH, said="You played 3")) is None
    assert seat_changed(seat(seat=0), SOUTH) is None  # our own return
    assert seat_changed(seat(name=None, connected=False), SOUTH) == Say(
        "North's seat is free again"
    )
    assert seat_changed(seat(connected=False, grace_ms=30_000), SOUTH) == Say(
        "North, bob, disconnected; 30 s to return", ERROR
    )
    over = dataclasses.replace(SOUTH, over=True)
    assert seat_changed(seat(connected=False), over) == Say("North, bob, left")
    assert back_in_game(seat(seat=0), 0) and not back_in_game(seat(), 0)


def test_a_takeback_says_what_was_taken_back_and_at_whose_request() -> None:
    asked = TakebackRequest(game_id="g", v=5, seat=1, state="asked", ply=3)
    assert takeback_changed(asked, SOUTH, 4, answering=False) == Say("North asks for a takeback")
    assert takeback_changed(asked, SOUTH, 4, answering=True) == Say("")  # the question line
    declined = dataclasses.replace(asked, seat=0, state="declined")
    assert takeback_changed(declined, SOUTH, 4, answering=False) == Say("takeback declined", ERROR)
    granted = dataclasses.replace(asked, state="accepted", ply=1)
    assert takeback_changed(granted, SOUTH, 3, answering=False) == Say(
        "takeback: their last move and the reply taken back, as North asked; back at ply 1"
    )


def test_a_rematch_offer_is_said_and_forgotten_with_the_connection() -> None:
    offer = RematchOffer(game_id="g", seat=1, state="offered")
    said = rematch_changed(offer, SOUTH)
    assert said == Say("North offers a rematch")
    assert about_an_offer(dataclasses.replace(SOUTH, said=said.text))
    assert rematch_changed(dataclasses.replace(offer, seat=0), SOUTH) == Say(OFFERED_MINE)
    declined = dataclasses.replace(offer, state="declined")
    assert rematch_changed(declined, SOUTH) == Say("you declined the rematch")
    watcher = dataclasses.replace(SOUTH, seat=None)
    assert rematch_changed(declined, watcher) == Say("South declined the rematch")
