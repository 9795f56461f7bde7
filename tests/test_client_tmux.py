"""A real terminal: `ubao play` in tmux shows the board and accepts a typed move."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from test_client_support import WAIT_S, game_server, url_of

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


async def tmux(socket: str, *args: str, check: bool = True) -> str:
    process = await asyncio.create_subprocess_exec(
        "tmux", "-L", socket, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    assert process.returncode == 0 or not check, err.decode()
    return out.decode()


async def screen_shows(socket: str, *texts: str) -> str:
    """The pane's text once it contains every one of `texts` (fails after WAIT_S)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while True:
        pane = await tmux(socket, "capture-pane", "-p", "-t", "ubao")
        if all(text in pane for text in texts):
            return pane
        if loop.time() > deadline:
            raise AssertionError(f"the terminal never showed {texts}:\n{pane}")
        await asyncio.sleep(0.1)


async def test_ubao_play_in_a_real_terminal_shows_the_board_and_plays_a_move(
    tmp_path: Path,
) -> None:
    socket = f"ubao-test-{os.getpid()}"
    async with game_server() as server:
        command = [
            sys.executable,
            "-m",
            "ubao.client",
            "play",
            "--server",
            url_of(server),
            "--name",
            "tess",
            "--new",
            "kalah",
            "--options",
            '{"pits": 4, "seeds": 3}',
            "--vs-bot",
            "1",
            "--speed",
            "0",
        ]
        env = f"XDG_DATA_HOME={shlex.quote(str(tmp_path))} LANG=C.UTF-8"
        await tmux(
            socket,
            "new-session",
            "-d",
            "-s",
            "ubao",
            "-x",
            "120",
            "-y",
            "36",
            # The pane outlives the client so that a failure shows what it printed.
            f"cd {shlex.quote(str(Path.cwd()))} && env {env} {shlex.join(command)}; "
            f"echo ubao exited with status $?; sleep {WAIT_S}",
        )
        try:
            board = await screen_shows(socket, "S1", "S4", "N*", "Your move (South)")
            assert "South: tess" in board and "North: ubao-engine (depth 1)" in board
            await tmux(socket, "send-keys", "-t", "ubao", "3", "Enter")
            await screen_shows(socket, "1. S 3")
            await tmux(socket, "send-keys", "-t", "ubao", "C-q")
            await screen_shows(socket, "return with: ubao play --join")
        finally:
            await tmux(socket, "kill-server", check=False)
