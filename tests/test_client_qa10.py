"""QA round 10 of the terminal client: `r: rematch` is offered only while the server would take
the offer, as on lichess, where the rematch button goes once the opponent has left."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_client_support import game_server, kalah_create, screen, until, url_of

from ubao.client.state import GameState
from ubao.protocol import SeatInfo

pytestmark = pytest.mark.timeout(120)


async def test_no_rematch_is_offered_once_the_opponent_has_left(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        tokens = tmp_path / "tokens.json"
        async with screen(url, "alice", tokens, create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            async with screen(url, "bob", tokens, game_id=alice.live.game_id) as bob:
                await until(lambda: alice.live.state.legal, "alice's turn")
                alice.type("\x12y")  # Ctrl-R, y: resign
                await until(lambda: bob.live.state.over, "the end")
                assert "r: rematch" in alice.live.app._help_text()[0][1]
            await until(lambda: not alice.live.state.seats[1].connected, "bob has left")
            assert "r: rematch" not in alice.live.app._help_text()[0][1]
            assert "rematch" not in str(alice.live.app._end_text())


def test_a_bot_or_an_offer_that_waits_is_there_to_answer() -> None:
    state = GameState("g", status="over")
    state.seats = [SeatInfo("open", "alice", True), SeatInfo("open", "bob", False)]
    assert not state.can_rematch(0)
    state.rematch = 1  # bob's offer, made before he left, still waits
    assert state.can_rematch(0)
    state.rematch = None
    state.seats[1] = SeatInfo("bot", "bot d4", False)
    assert state.can_rematch(0)
    state.seats[1] = SeatInfo("open", None, False)  # nobody ever sat there
    assert not state.can_rematch(0)
    state.status = "playing"
    state.seats[1] = SeatInfo("open", "bob", True)
    assert not state.can_rematch(0)
