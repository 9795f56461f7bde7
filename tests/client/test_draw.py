"""Draw offers, answered as takebacks are (issue 36, features): `draw` offers one, the
opponent's question line asks, `y` ends the game drawn by agreement, `n` (or a move) declines."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.client import two_players, until
from ubao.protocol import Result

pytestmark = pytest.mark.timeout(120)


async def test_a_draw_offered_is_declined_then_agreed(tmp_path: Path) -> None:
    async with two_players(tmp_path) as (alice, bob):
        alice.type("draw\r")
        await until(lambda: bob.live.state.draw == 0, "the offer at bob's")
        question = bob.live.app.input.question_text(bob.live.app.facts())
        assert question == "South offers a draw: y = accept, n = decline"
        bob.type("n")
        await until(lambda: alice.live.app.message[1] == "draw declined", "the refusal said")
        assert alice.live.state.draw is None and not alice.live.state.over
        bob.type("draw\r")
        await until(lambda: alice.live.state.draw == 1, "bob's offer at alice's")
        alice.type("y")
        await until(lambda: bob.live.state.over, "the end at bob's")
        assert bob.live.state.result == Result(None, "agreement", None)
        await until(lambda: "Draw by agreement" in bob.live.app.turn_text()[1], "the end said")
