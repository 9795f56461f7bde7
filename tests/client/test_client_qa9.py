"""What QA found in the terminal client (round 9): an old game's presence news applied to its
rematch (and the rematch's seat token forgotten), Othello 10x10 with a clock at 60x16, and a
clock broken between its side's letter and its time."""

from __future__ import annotations

import dataclasses

from tests.client.test_layout import start_of
from tests.client.test_rematch import old_game_left
from tests.support.screen import PEOPLE
from ubao.client.state import Applied, GameState

# -- 1. a rematch's old game ---------------------------------------------------------------------


def test_an_event_of_another_game_changes_nothing() -> None:
    state = GameState("AbCd1234")
    assert state.apply(start_of("othello", {}, PEOPLE), 0.0) is Applied.APPLIED
    before = dataclasses.replace(state)
    assert state.apply(old_game_left(state.v + 1), 1.0) is Applied.OTHER_GAME
    assert state == before and not state.over and state.seats[1].connected
    other = dataclasses.replace(start_of("kalah", {}, PEOPLE), game_id="OldGameA", v=9)
    assert state.apply(other, 1.0) is Applied.OTHER_GAME and state.game_name == "othello"


# -- 2. Othello 10x10 with a clock at 60x16 ------------------------------------------------------


# -- 3. a clock is never broken --------------------------------------------------------------
