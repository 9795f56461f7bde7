"""The engine-protocol library: one way to drive an engine and to be one (python-chess's
`chess.engine` is the model).

Pure parts: typed search limits (`limits`), reports and results (`results`), the one time
manager (`timing`), the dialects as sans-I/O codecs (`dialect`, ubao's stdio protocol in
`ubao`). The I/O edge: the stdio engine's state machine (`session`), the transports
(`transports`) and the asyncio client (`client`), imported from their modules.
"""

from __future__ import annotations

from collections.abc import Callable

from ubao.engine.protocols.dialect import (
    Dialect,
    EnginePosition,
    Ready,
    Refused,
    Reply,
    Send,
)
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.results import Info, PlayResult
from ubao.engine.protocols.timing import Budget, time_budget
from ubao.engine.protocols.ubao import UbaoDialect

DIALECTS: dict[str, Callable[[], Dialect]] = {"ubao": UbaoDialect}
"""Every dialect by name: a new dialect is one entry here."""

__all__ = [
    "DIALECTS",
    "Budget",
    "Dialect",
    "EnginePosition",
    "Info",
    "Limits",
    "PlayResult",
    "Ready",
    "Refused",
    "Reply",
    "Send",
    "UbaoDialect",
    "time_budget",
]
