"""`ubao-engine stdio` for the tests (no tests here): a session driven in process line by line
(`Recorder`), the engine as a subprocess over pipes (`Engine`), and the `bestmove` of a reply."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from ubao.engine.protocols.session import EngineSession

ROOT = Path(__file__).resolve().parents[2]


class Recorder:
    """A session whose replies are collected in a list."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.session = EngineSession(self.lines.append)

    def send(self, *commands: str) -> list[str]:
        """Send commands, wait for any search to end, and return the new reply lines."""
        start = len(self.lines)
        for command in commands:
            self.session.handle(command)
        self.session.wait()
        return self.lines[start:]


def bestmove(lines: list[str]) -> str:
    found = [line.split()[1] for line in lines if line.startswith("bestmove ")]
    assert len(found) == 1, lines
    return found[0]


class Engine:
    """`python -m ubao.engine stdio` in a subprocess, its output read by a thread into a queue."""

    def __init__(self, command: tuple[str, ...] = (sys.executable, "-m", "ubao.engine", "stdio")):
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def expect(self, prefix: str, timeout: float = 30.0) -> list[str]:
        """Lines up to and including the first that starts with `prefix`."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            seen.append(line)
            if line.startswith(prefix):
                return seen
