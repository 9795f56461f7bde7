"""How an `EngineClient` reaches its engine: lines to it and from it, nothing more.

`SubprocessTransport` is a program over pipes; `SessionTransport` is ubao's own engine in this
process (the stdio engine's `EngineSession`, its search in a thread of its own, no pipes);
`ScriptedTransport` plays an expected conversation, for tests (python-chess's MockTransport).
The server's Redis job stream is no transport: see server/workers.py.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Sequence
from typing import Protocol

from ubao.engine.protocols.session import EngineSession

MAX_LINE = 1 << 16
"""The longest line read from an engine; a longer one is unreadable output."""


class EngineGone(Exception):
    """The engine can no longer be talked to: it exited, closed its output, does not read its
    input or wrote what cannot be read."""


class Transport(Protocol):
    async def send(self, line: str) -> None:
        """Write one line (no newline) to the engine."""
        ...

    async def receive(self) -> str:
        """The engine's next line, without its newline; EngineGone at the end of its output."""
        ...

    async def close(self, timeout_s: float) -> None:
        """Wait up to `timeout_s` for the engine to end (after a `quit`), then kill it."""
        ...

    def kill(self) -> None:
        """End the engine now, without waiting."""
        ...


class SubprocessTransport:
    """A program speaking over its stdin and stdout (its stderr goes nowhere)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, argv: Sequence[str]) -> SubprocessTransport:
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                limit=MAX_LINE,
            )
        except OSError as exc:
            raise EngineGone(f"cannot start {argv[0]}: {exc}") from None
        return cls(process)

    async def send(self, line: str) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line.encode() + b"\n")
            await self.process.stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise EngineGone(f"engine does not read its input: {exc}") from None

    async def receive(self) -> str:
        assert self.process.stdout is not None
        try:
            raw = await self.process.stdout.readline()
        except ValueError as exc:  # a line longer than MAX_LINE
            raise EngineGone(f"unreadable output: {exc}") from None
        if not raw:
            raise EngineGone(f"engine exited (code {await self.process.wait()})")
        return raw.decode(errors="replace").strip()

    async def close(self, timeout_s: float) -> None:
        if self.process.returncode is None and timeout_s > 0:
            try:
                async with asyncio.timeout(timeout_s):
                    await self.process.wait()
            except TimeoutError:
                pass
        self.kill()
        await self.process.wait()

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
        # Closing our end of stdin lets asyncio release the process's transport.
        assert self.process.stdin is not None
        self.process.stdin.close()


class SessionTransport:
    """ubao's stdio engine in this process: lines go straight to an `EngineSession`.

    `stop` and `quit` wait for the search thread, so they are handled in a daemon thread of
    their own: the event loop never waits for a search, and one that never ends cannot hold
    the process's exit.
    """

    def __init__(self, backend: str | None = None) -> None:
        loop = asyncio.get_running_loop()
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        """The session's output; None at its end."""
        self._ended = asyncio.Event()

        def write(line: str) -> None:  # from the search thread too
            loop.call_soon_threadsafe(self._lines.put_nowait, line)

        self._loop = loop
        self.session = EngineSession(write, backend)

    async def send(self, line: str) -> None:
        if self._ended.is_set():
            raise EngineGone("the engine has quit")
        command = line.split(maxsplit=1)[0] if line.strip() else ""
        if command in ("stop", "quit"):
            threading.Thread(target=self._waiting, args=(line,), daemon=True).start()
        elif not self.session.handle(line):
            self._end()

    def _waiting(self, line: str) -> None:
        if not self.session.handle(line):
            self._loop.call_soon_threadsafe(self._end)

    def _end(self) -> None:
        if not self._ended.is_set():
            self._ended.set()
            self._lines.put_nowait(None)

    async def receive(self) -> str:
        line = await self._lines.get()
        if line is None:
            self._lines.put_nowait(None)  # every later read finds the end too
            raise EngineGone("the engine has quit")
        return line

    async def close(self, timeout_s: float) -> None:
        try:
            async with asyncio.timeout(timeout_s):
                await self._ended.wait()
        except TimeoutError:
            self.kill()

    def kill(self) -> None:
        """Stop the search (a thread cannot be killed; one that ignores `stop` is left to
        the process's exit) and end the output."""
        if not self._ended.is_set():
            threading.Thread(target=self.session.stop, daemon=True).start()
            self._end()


class ScriptedTransport:
    """An engine that plays an expected conversation, for tests: each line the driver must
    send, with the lines the engine answers it. A line not expected fails the test
    (AssertionError); `exit=True` ends the engine's output after its answer."""

    def __init__(self) -> None:
        self._script: deque[tuple[str, tuple[str, ...], bool]] = deque()
        self._output: asyncio.Queue[str | None] = asyncio.Queue()
        self.sent: list[str] = []
        """Every line the driver sent, in order."""
        self.closed = False
        self.killed = False

    def expect(self, line: str, answers: Sequence[str] = (), *, exit: bool = False) -> None:
        self._script.append((line, tuple(answers), exit))

    def assert_done(self) -> None:
        """Every expected line was sent."""
        assert not self._script, f"never sent: {[line for line, _, _ in self._script]}"

    async def send(self, line: str) -> None:
        if self.killed:
            raise EngineGone("the engine was killed")
        self.sent.append(line)
        assert self._script, f"unexpected {line!r}: the script is over"
        expected, answers, exit = self._script.popleft()
        assert line == expected, f"expected {expected!r}, got {line!r}"
        for answer in answers:
            self._output.put_nowait(answer)
        if exit:
            self._output.put_nowait(None)

    async def receive(self) -> str:
        line = await self._output.get()
        if line is None:
            self._output.put_nowait(None)
            raise EngineGone("engine exited (code 0)")
        return line

    async def close(self, timeout_s: float) -> None:
        self.closed = True

    def kill(self) -> None:
        self.killed = True
        self._output.put_nowait(None)
