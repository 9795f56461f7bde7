"""A real terminal: `ubao play` in tmux shows the board and accepts a typed move."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.client import game_server, url_of
from tests.support.tmux import keys, screen_shows, terminal, tmux
from ubao.engine.record import Record, format_record

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


async def test_ubao_play_in_a_real_terminal_shows_the_board_and_plays_a_move(
    tmp_path: Path,
) -> None:
    socket = f"ubao-test-{os.getpid()}"
    async with game_server() as server:
        arguments = [
            "play", "--server", url_of(server), "--name", "tess", "--new", "kalah",
            "--options", '{"pits": 4, "seeds": 3}', "--vs-bot", "1", "--speed", "0",
        ]  # fmt: skip
        async with terminal(socket, tmp_path, arguments, 120, 36):
            board = await screen_shows(socket, "S1", "S4", "N*", "Your move (South)")
            assert "South: tess" in board and "North: ubao-engine (depth 1)" in board
            await tmux(socket, "send-keys", "-t", "ubao", "3", "Enter")
            await screen_shows(socket, "1. S 3")
            await tmux(socket, "send-keys", "-t", "ubao", "C-q")
            await screen_shows(socket, "return with: ubao play --join")


async def test_bao_at_80x24_shows_the_whole_board_before_the_panel(tmp_path: Path) -> None:
    socket = f"ubao-test-bao-{os.getpid()}"
    async with game_server() as server:
        arguments = [
            "play", "--server", url_of(server), "--name", "tess", "--new", "bao",
            "--vs-bot", "1", "--speed", "0",
        ]  # fmt: skip
        async with terminal(socket, tmp_path, arguments, 80, 24):
            pane = await screen_shows(socket, "Your move (South)", "Players")
            rows = pane.splitlines()
            numbers = next(i for i, row in enumerate(rows) if row.split()[:8] == list("87654321"))
            for row, prefix in zip(rows[numbers + 1 : numbers + 5], "baAB", strict=True):
                assert len(row.split("|")[0].split()) >= 9 and row.split()[0] == prefix, pane
            assert rows[numbers + 5].split()[:8] == list("12345678"), pane
            assert "stock 22  nyumba A5 functional" in pane, pane


async def test_replay_at_60x20_opens_its_help_and_animates_a_step(tmp_path: Path) -> None:
    """Issue 36, 15: the replay had no help and no animation."""
    socket = f"ubao-test-replay-{os.getpid()}"
    record = Record({"Game": "kalah", "Options": "{}", "South": "ann", "North": "bo"}, ("3", "2"))
    path = tmp_path / "game.txt"
    path.write_text(format_record(record))
    async with terminal(socket, tmp_path, ["replay", str(path)], 60, 20):
        await screen_shows(socket, "move 0 of 2", "F1: help")
        await keys(socket, "F1")
        await screen_shows(socket, "Help: replay of kalah")
        await keys(socket, "Escape")
        await keys(socket, "Right")
        await screen_shows(socket, "move 1 of 2")
        await keys(socket, "q")
        await screen_shows(socket, "ubao exited with status 0")
