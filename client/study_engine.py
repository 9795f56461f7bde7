"""The engine of `ubao replay`'s study mode: ubao's stdio engine in this process (the library's
`EngineClient` over a `SessionTransport`, its search in a thread of its own), searching the
position shown without a limit and reporting its deepening lines (MultiPV) until it is stopped
or given another position."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from ubao.engine.protocols import EnginePosition, Limits
from ubao.engine.protocols.client import EngineClient, EngineFailure
from ubao.engine.protocols.results import Info
from ubao.engine.protocols.transports import EngineGone, SessionTransport
from ubao.engine.protocols.ubao import UbaoDialect

START_TIMEOUT_S = 20.0
"""For the engine in this process to answer its handshake and options."""
STOP_GRACE_S = 2.0


class StudyEngine:
    """Searches one position at a time; `lines` holds its latest report of each line."""

    def __init__(self, changed: Callable[[], None], multipv: int) -> None:
        self.changed = changed
        """Called at every report (the screen redraws)."""
        self.multipv = multipv
        self.lines: dict[int, Info] = {}
        self.failure: str | None = None
        self._client: EngineClient | None = None
        self._search: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def searching(self) -> bool:
        return self._search is not None and not self._search.done()

    async def analyse(
        self, game: str, options: dict[str, Any], moves: Sequence[str], player: int
    ) -> None:
        """Search this position (the game's start and `moves` from it) until `stop`."""
        await self.stop()
        if self._closed:
            return
        self.lines, self.failure = {}, None
        try:
            client = await self._started()
        except EngineFailure as exc:
            self.failure = str(exc)
            self.changed()
            return
        position = EnginePosition(game, options, "startpos", tuple(moves), player)
        self._search = asyncio.create_task(self._run(client, position))

    async def stop(self) -> None:
        """End the search, if one runs (its last lines stay shown)."""
        search, self._search = self._search, None
        if search is None or search.done():
            return
        search.cancel()
        with contextlib.suppress(asyncio.CancelledError, EngineFailure):
            await search

    async def close(self) -> None:
        """Stop for good: the engine quits, and no search starts any more."""
        self._closed = True
        await self.stop()
        if self._client is not None:
            await self._client.quit(STOP_GRACE_S)
            self._client = None

    async def _started(self) -> EngineClient:
        if self._client is None:
            transport = SessionTransport()
            client = await EngineClient.start(transport, UbaoDialect(), START_TIMEOUT_S, "study")
            await client.configure({"MultiPV": str(self.multipv)})
            self._client = client
        return self._client

    async def _run(self, client: EngineClient, position: EnginePosition) -> None:
        def report(info: Info) -> None:
            if info.string is None and info.depth is not None and info.pv:
                self.lines[info.multipv] = info
                self.changed()

        try:
            await client.play(position, Limits(infinite=True), on_info=report)
        except asyncio.CancelledError:
            # The engine still searches: tell it to stop and wait for its move, so that the
            # next search starts on a quiet engine.
            with contextlib.suppress(EngineFailure, EngineGone, TimeoutError):
                await client.transport.send("stop")
                async with asyncio.timeout(STOP_GRACE_S):
                    while (line := await client.transport.receive()) and not line.startswith(
                        "bestmove"
                    ):
                        pass
            raise
        except EngineFailure as exc:
            self.failure = str(exc)
            self.changed()
