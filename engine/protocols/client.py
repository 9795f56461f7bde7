"""The engine client: one asyncio driver of any engine, over any transport, in any dialect.

It sends what the dialect says, reads the engine's lines through the dialect, and owns the
deadlines: a handshake or a sync that does not come in time, a search past its budget (then
`stop`, and a grace for the answer), an engine that died or refused a command are each an
`EngineFailure` that carries the last report, so that a driver can still play the best move
the engine found.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping

from ubao.engine.protocols.dialect import Dialect, EnginePosition, Ready, Refused, Send
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.results import Info, PlayResult
from ubao.engine.protocols.transports import EngineGone, Transport

log = logging.getLogger("ubao.engine.protocols")


class EngineFailure(Exception):
    """The engine died, hung, refused a command or answered nonsense; `info` is its last
    report of its principal line, if any."""

    def __init__(self, message: str, info: Info | None = None) -> None:
        super().__init__(message)
        self.info = info


class EngineClient:
    """Drives one engine. Commands wait for their answer; one at a time."""

    def __init__(
        self, transport: Transport, dialect: Dialect, timeout_s: float, label: str = "engine"
    ) -> None:
        self.transport = transport
        self.dialect = dialect
        self.timeout_s = timeout_s
        """How long the engine has to answer a command that is not a search."""
        self.label = label
        """The engine's name in the log."""

    @classmethod
    async def start(
        cls, transport: Transport, dialect: Dialect, timeout_s: float, label: str = "engine"
    ) -> EngineClient:
        """The handshake; the engine is killed if it fails (or the caller is cancelled)."""
        client = cls(transport, dialect, timeout_s, label)
        try:
            await client._exchange(dialect.start(), "the handshake")
        except BaseException:
            await client.kill()
            raise
        return client

    async def configure(self, options: Mapping[str, str]) -> None:
        await self._exchange(self.dialect.configure(options), "the options")

    async def new_game(self) -> None:
        await self._exchange(self.dialect.new_game(), "the new game")

    async def play(
        self,
        position: EnginePosition,
        limits: Limits,
        *,
        budget_s: float | None = None,
        stop_grace_s: float = 2.0,
        on_info: Callable[[Info], None] | None = None,
    ) -> PlayResult:
        """Search; `stop` at `budget_s` (None: never), EngineFailure if still no answer after
        `stop_grace_s` more. A refusal before the search started (the position) fails at once;
        one during it is only logged, since the engine still owes its answer."""
        loop = asyncio.get_running_loop()
        deadline = None if budget_s is None else loop.time() + budget_s
        await self._send(self.dialect.search(position, limits))
        started = stopped = False
        refused: str | None = None
        info: Info | None = None
        while True:
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                if stopped:
                    raise EngineFailure("no bestmove even after stop", info)
                await self._send(self.dialect.stop(), info)
                stopped = True
                deadline = loop.time() + stop_grace_s
                continue
            line = await self._read(left, info)
            for reply in [] if line is None else self.dialect.receive(line):
                if isinstance(reply, Send):
                    await self._send(list(reply.lines), info)
                    started = True
                    if stopped:  # the budget ran out while the position was checked
                        await self._send(self.dialect.stop(), info)
                elif isinstance(reply, Refused):
                    if started:
                        log.warning("%s says %r; waiting for its move", self.label, line)
                    else:
                        refused = refused or line
                elif isinstance(reply, Info):
                    started = True
                    if reply.principal:
                        info = reply
                    if on_info is not None:
                        on_info(reply)
                elif refused is not None:  # the Ready of a refused check, or a move after it
                    raise EngineFailure(f"engine refused a command: {refused!r}", info)
                elif isinstance(reply, PlayResult):
                    return reply if reply.info is not None else PlayResult(reply.move, info)

    async def quit(self, timeout_s: float) -> None:
        """Ask the engine to exit; kill it if it has not within `timeout_s`."""
        with contextlib.suppress(EngineFailure):
            await self._send(self.dialect.quit())
        await self.transport.close(timeout_s)

    async def kill(self) -> None:
        """End the engine now and wait until it is gone."""
        self.transport.kill()
        await self.transport.close(0)

    async def _exchange(self, lines: list[str], what: str) -> None:
        """Send lines answered by one Ready; a Refused before it is an EngineFailure."""
        if not lines:
            return
        await self._send(lines)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        refused: str | None = None
        while True:
            line = await self._read(deadline - loop.time())
            if line is None:
                raise EngineFailure(f"no answer to {what} within {self.timeout_s:g} s")
            for reply in self.dialect.receive(line):
                if isinstance(reply, Refused):
                    refused = refused or line
                elif isinstance(reply, Ready):
                    if refused is not None:
                        raise EngineFailure(f"engine refused a command: {refused!r}")
                    return

    async def _send(self, lines: list[str], info: Info | None = None) -> None:
        try:
            for line in lines:
                await self.transport.send(line)
        except EngineGone as exc:
            raise EngineFailure(str(exc), info) from None

    async def _read(self, timeout_s: float | None, info: Info | None = None) -> str | None:
        """The next line, or None if none came within `timeout_s` (None: wait for it)."""
        if timeout_s is not None and timeout_s <= 0:
            return None
        try:
            # Not `wait_for`: on Python 3.11 it drops a cancellation that coincides with a line.
            async with asyncio.timeout(timeout_s):
                return await self.transport.receive()
        except TimeoutError:
            return None
        except EngineGone as exc:
            raise EngineFailure(str(exc), info) from None
