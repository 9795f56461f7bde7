"""A real terminal: `ubao` with no command opens the lobby at 80x24; Enter takes the open seat
of a game created by `ubao play` in another terminal (one home for both), leaving it comes back
to the lobby, a bot game is watched from the lobby to its end, and q quits."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.client import game_server, url_of
from tests.support.tmux import keys, screen_shows, terminal
from ubao.client.connection import request_once
from ubao.protocol import Create, SeatSpec

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


async def test_the_lobby_joins_an_open_game_and_watches_a_bot_game_to_its_end(
    tmp_path: Path,
) -> None:
    socket = f"ubao-test-lobby-{os.getpid()}"
    async with game_server() as server:
        url = url_of(server)
        bob = [
            "play", "--server", url, "--name", "bob", "--new", "kalah",
            "--options", '{"pits": 4, "seeds": 3}', "--speed", "0",
        ]  # fmt: skip
        lobby = ["--server", url, "--name", "tess", "--speed", "0"]
        async with (
            terminal(socket, tmp_path, bob, 80, 24, session="bob"),
            terminal(socket, tmp_path, lobby, 80, 24, session="lobby"),
        ):
            await screen_shows(socket, "ply 0  waiting", session="bob")
            pane = await screen_shows(socket, "bob (guest) vs (open)", session="lobby")
            assert pane.startswith("ubao lobby: tess  1 open, 0 live, 0 finished  [all]")
            hint = "Enter: play  n: new game  l: ratings  t: tournaments  Tab: filter  q: quit"
            assert hint in pane

            await keys(socket, "Enter", session="lobby")  # bob's open seat, no id copied
            await screen_shows(socket, "North: tess", "tess (guest) (you)", session="lobby")
            await screen_shows(socket, "North: tess", "Your move (South)", session="bob")
            await keys(socket, "C-q", session="lobby")
            pane = await screen_shows(
                socket,
                "Enter on it takes you back",
                "> kalah  bob (guest) vs tess (guest) (away)",
                session="lobby",
            )  # the server may hear that tess left after the lobby's first page
            assert "playing" in pane

            bots = Create(
                id=0,
                game="kalah",
                options={"pits": 3, "seeds": 2},
                seats=(SeatSpec.bot(1), SeatSpec.bot(2)),
                pace_ms=500,
            )
            ok = await request_once(url, "maker", "spectator", bots)
            await screen_shows(socket, "bot d1 vs bot d2", session="lobby")
            await keys(socket, "Home", "Enter", session="lobby")  # the newest live game
            await screen_shows(socket, f"kalah {ok.game_id}", "(watching)", session="lobby")
            await screen_shows(socket, "Game over", session="lobby")
            await keys(socket, "q", session="lobby")
            pane = await screen_shows(socket, "ubao lobby: tess", "1 finished", session="lobby")
            (row,) = [line for line in pane.splitlines() if "bot d1 vs bot d2" in line]
            assert row.startswith("> ") and (" won " in row or " draw" in row)

            # a rated game against a server bot: the server's refusal on the message line
            await keys(socket, "n", "Down", "Right", "Down", "Right", session="lobby")
            await screen_shows(
                socket, "> rated: < yes (between two accounts only) >", session="lobby"
            )
            await keys(socket, "Enter", session="lobby")
            await screen_shows(
                socket, "ubao lobby: tess", "no server bot plays rated", session="lobby"
            )
            await keys(socket, "q", session="lobby")
            await screen_shows(socket, "ubao exited with status 0", session="lobby")
