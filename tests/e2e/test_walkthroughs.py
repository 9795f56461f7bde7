"""README's walkthroughs, run as a user runs them: the console scripts against a real server.

Each test starts `ubao-server` on a free port with a fresh database and drives `ubao` the way
the README says. The full-screen steps run in tmux and are skipped where tmux is missing.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(240)

BIN = Path(sys.executable).parent
WAIT_S = 90.0
SMALL = '{"pits": 3, "seeds": 2}'
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fresh user: tokens and the default database live here."""
    return tmp_path


@pytest.fixture
def server(home: Path) -> Iterator[str]:
    """`ubao-server` on a free port, as step 1 of the quick start runs it; yields its URL."""
    process = subprocess.Popen(
        [str(BIN / "ubao-server"), "--port", "0", "--db", str(home / "ubao.sqlite3")],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    url = None
    for line in process.stderr:
        found = re.search(r"listening on (ws://\S+)", line)
        if found:
            url = found.group(1)
            break
    assert url, "the server did not start"
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def ubao(home: Path, *args: str, timeout: float = WAIT_S) -> str:
    """Run `ubao ARGS` to its end; its standard output."""
    return ubao_run(home, *args, timeout=timeout).stdout


def ubao_run(home: Path, *args: str, timeout: float = WAIT_S) -> subprocess.CompletedProcess[str]:
    """Run `ubao ARGS` to its end, successfully."""
    result = subprocess.run(
        [str(BIN / "ubao"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "XDG_DATA_HOME": str(home)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result


def game_ids(home: Path, url: str) -> list[str]:
    """The ids in `ubao games`, oldest first."""
    lines = ubao(home, "games", "--server", url).splitlines()[1:]
    return [line.split()[0] for line in lines if line.strip()]


class Terminal:
    """One tmux session running a full-screen command; the pane outlives it for diagnosis."""

    def __init__(self, socket: str, name: str, home: Path, command: list[str]) -> None:
        self.socket, self.name = socket, name
        env = f"XDG_DATA_HOME={shlex.quote(str(home))} LANG=C.UTF-8"
        self.tmux(
            "new-session", "-d", "-s", name, "-x", "130", "-y", "40",
            f"env {env} {shlex.join(command)}; echo exited $?; sleep {WAIT_S}",
        )  # fmt: skip

    def tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False
        )
        return result.stdout

    def type(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def shows(self, *texts: str) -> str:
        """The screen once it shows every one of `texts`."""
        return self.matches(*map(re.escape, texts))

    def matches(self, *patterns: str) -> str:
        """The screen once every one of the regular expressions `patterns` matches it."""
        deadline = time.monotonic() + WAIT_S
        while True:
            screen = self.tmux("capture-pane", "-p", "-t", self.name)
            if all(re.search(pattern, screen) for pattern in patterns):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name} never showed {patterns}:\n{screen}")
            time.sleep(0.2)


@pytest.fixture
def socket() -> Iterator[str]:
    name = f"ubao-walk-{os.getpid()}"
    yield name
    subprocess.run(["tmux", "-L", name, "kill-server"], capture_output=True, check=False)


@needs_tmux
def test_walkthrough_1_two_people_play_each_other_from_two_terminals(
    server: str, home: Path, socket: str
) -> None:
    """As one user on one machine does it: both terminals share HOME (and the token file)."""
    alice = Terminal(socket, "alice", home, [
        str(BIN / "ubao"), "play", "--server", server, "--name", "alice", "--new", "kalah",
        "--options", SMALL, "--speed", "0",
    ])  # fmt: skip
    alice.shows("S1", "S3")
    (game_id,) = game_ids(home, server)
    bob = Terminal(socket, "bob", home, [
        str(BIN / "ubao"), "play", "--server", server, "--name", "bob", "--join", game_id,
        "--speed", "0",
    ])  # fmt: skip
    bob.shows("South: alice", "North: bob")
    alice.shows("Your move (South)")
    alice.type("1", "Enter")
    bob.shows("1. S 1", "Your move (North)")
    bob.type("3", "Enter")
    alice.shows("2. N 3")
    assert "took over" not in alice.shows("Your move (South)")


def test_walkthrough_2_a_bot_client_serves_a_game_that_wants_a_bot(server: str, home: Path) -> None:
    serving = subprocess.Popen(
        [str(BIN / "ubao"), "bot", "--server", server, "--depth", "2", "--serve"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": str(home)},
    )
    try:
        hosting = ubao_run(
            home, "bot", "--server", server, "--new", "kalah", "--options", SMALL,
            "--depth", "3", "--vs-external-bot",
        ).stderr  # fmt: skip
        ends = re.findall(r"game \S+ over: .*", hosting)
        assert len(ends) == 1 and re.search(r"(wins|Draw) .*\d+-\d+$", ends[0]), hosting
    finally:
        serving.terminate()
        _, log = serving.communicate(timeout=30)
    assert f"connecting to {server} as " in log.splitlines()[0], log
    assert f"serving {server} as " in log.splitlines()[1], log
    assert re.search(r"ply \d+: ", log), "the serving bot logs each move with its info"
    (game_id,) = game_ids(home, server)
    lobby = ubao(home, "games", "--server", server)
    # The lobby says how it ended: who won and the score, or a draw.
    assert re.search(rf"^{game_id} .* over: (.+ won|draw) \d+-\d+ ", lobby, re.MULTILINE), lobby


@needs_tmux
def test_walkthrough_3_watch_an_ai_match_then_export_and_replay_it(
    server: str, home: Path, socket: str
) -> None:
    watch = Terminal(socket, "watch", home, [
        str(BIN / "ubao"), "watch", "--server", server, "--new", "kalah", "--options", SMALL,
        "--bot", "1", "--bot", "3", "--speed", "0",
    ])  # fmt: skip
    watch.shows("Game over")
    watch.type("Left")  # step back through the moves, as on lichess
    watch.matches(r"Looking at move (\d+) of \d+")
    watch.type("End")
    watch.shows("Game over")
    (game_id,) = game_ids(home, server)
    record = home / "game.txt"
    ubao(home, "export", game_id, "--server", server, "-o", str(record))
    text = record.read_text()
    assert '[Game "kalah"]' in text and "Result" in text
    replay = Terminal(socket, "replay", home, [str(BIN / "ubao"), "replay", str(record)])
    replay.shows("S1", "S3")
    replay.shows("move 0 of")
    replay.type("End")
    replay.matches(r"move (\d+) of \1\b")
