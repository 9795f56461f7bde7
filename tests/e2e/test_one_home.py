"""A real terminal, as a new user runs it: two terminals of one user (one home, the default
name) at 80x24 and 60x20. The waiting screen's hint joins as the other player, and running
`ubao play --join` on one's own waiting game asks before it takes the seat over (issue 36, 2)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.support.client import game_server, url_of
from tests.support.tmux import keys, screen_shows, terminal

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


@pytest.mark.parametrize(("columns", "rows"), [(80, 24), (60, 20)])
async def test_joining_ones_own_waiting_game_asks_and_the_hint_joins_as_the_other_player(
    tmp_path: Path, columns: int, rows: int
) -> None:
    socket = f"ubao-test-home-{os.getpid()}-{columns}"
    async with game_server() as server:
        url = url_of(server)
        new = ["play", "--server", url, "--new", "kalah", "--speed", "0"]
        async with terminal(socket, tmp_path, new, columns, rows, session="maker"):
            pane = await screen_shows(socket, "--name=NAME", session="maker")
            flat = " ".join(pane.split())
            found = re.search(r"ubao play --join=(\S+) --name=NAME", flat)
            assert found is not None, pane
            game_id = found[1]
            again = ["play", "--server", url, f"--join={game_id}", "--speed", "0"]
            async with terminal(socket, tmp_path, again, columns, rows, session="again"):
                await screen_shows(socket, "take the seat over here", session="again")
                await keys(socket, "n", "Enter", session="again")
                pane = await screen_shows(socket, "ubao exited with status 0", session="again")
                assert f"--join={game_id} --name=NAME" in "".join(pane.splitlines()), pane
            pane = await screen_shows(socket, "waiting for a player", session="maker")
            assert "took over" not in pane
            other = [*again, "--name", "bob"]
            async with terminal(socket, tmp_path, other, columns, rows, session="bob"):
                await screen_shows(socket, "North: bob", session="bob")
                await screen_shows(socket, "Your move (South)", session="maker")
