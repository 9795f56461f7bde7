"""QA round 10 of the terminal client: `r: rematch` is offered only while the server would take
the offer, as on lichess, where the rematch button goes once the opponent has left; the move
list of a bot's game reaches down to the game-over box, and gets every row the players and the
engine's report do not fill."""

from __future__ import annotations

import pytest

from tests.support.screen import SizedOutput
from ubao.client.app import GameApp
from ubao.client.state import GameState

pytestmark = pytest.mark.timeout(120)


def test_news_from_before_goes_when_the_connection_drops() -> None:
    app = GameApp(GameState("AbCd1234"), seat=0, output=SizedOutput(80, 24))
    app.set_connection("connected", True)
    app.say("North, bob, is here")
    app.set_connection("server unreachable; reconnecting in 2 s", False)
    assert app.message[1] == ""
