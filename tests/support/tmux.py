"""Programs in a real terminal (no tests here): `ubao` run in a tmux session of a given size,
keys sent to it and its screen read back."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from tests.support.client import WAIT_S


async def tmux(socket: str, *args: str, check: bool = True) -> str:
    process = await asyncio.create_subprocess_exec(
        "tmux", "-L", socket, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    assert process.returncode == 0 or not check, err.decode()
    return out.decode()


async def screen_shows(socket: str, *texts: str, session: str = "ubao") -> str:
    """The pane's text once it contains every one of `texts` (fails after WAIT_S)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while True:
        pane = await tmux(socket, "capture-pane", "-p", "-t", session)
        if all(text in pane for text in texts):
            return pane
        if loop.time() > deadline:
            raise AssertionError(f"the terminal never showed {texts}:\n{pane}")
        await asyncio.sleep(0.1)


async def keys(socket: str, *names: str, session: str = "ubao") -> None:
    """Type `names` (tmux key names or text) into the session."""
    await tmux(socket, "send-keys", "-t", session, *names)


@contextlib.asynccontextmanager
async def terminal(
    socket: str,
    home: Path,
    arguments: list[str],
    columns: int,
    rows: int,
    session: str = "ubao",
) -> AsyncIterator[None]:
    """`ubao ARGUMENTS` in a tmux session of the given size, with `home` for its data (the
    seat tokens); the pane outlives the client, so that a failure shows what it printed."""
    command = [sys.executable, "-m", "ubao.client", *arguments]
    env = f"XDG_DATA_HOME={shlex.quote(str(home))} LANG=C.UTF-8"
    await tmux(
        socket, "new-session", "-d", "-s", session, "-x", str(columns), "-y", str(rows),
        f"cd {shlex.quote(str(Path.cwd()))} && env {env} {shlex.join(command)}; "
        f"echo ubao exited with status $?; sleep {WAIT_S}",
    )  # fmt: skip
    try:
        yield
    finally:
        await tmux(socket, "kill-session", "-t", session, check=False)
