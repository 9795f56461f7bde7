"""Abort (lichess's rule): a player who has not moved yet calls the game off, and nobody wins;
once they have moved, the screen says to resign instead (issue 36, features)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.client import two_players, until
from ubao.protocol import Result

pytestmark = pytest.mark.timeout(120)


async def test_a_player_who_has_not_moved_aborts_the_game_and_nobody_wins(tmp_path: Path) -> None:
    async with two_players(tmp_path) as (alice, bob):
        alice.type("1\r")
        await until(lambda: bob.live.state.history == ["1"], "alice's move at bob's")
        alice.type("abort\r")
        await until(lambda: "no longer be aborted" in alice.live.app.message[1], "the refusal")
        assert not alice.live.state.over
        bob.type("abort\r")
        await until(lambda: alice.live.state.over, "the end at alice's")
        assert alice.live.state.result == Result(None, "aborted", None)
        await until(lambda: "aborted" in alice.live.app.turn_text()[1], "the end said")
