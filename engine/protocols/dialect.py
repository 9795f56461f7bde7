"""A driver's protocol dialect: a sans-I/O codec between ubao's terms and an engine's lines.

`EngineClient` (client.py) sends what a dialect's methods return and hands it every line the
engine writes (`receive`), which the dialect turns into replies. The ubao stdio dialect is in
ubao.py; the registry of dialects by name is `DIALECTS` in the package's `__init__`.

What answers what: `start`, `configure` and `new_game` are each answered by one `Ready` (a
`Refused` before it says the engine refused a line of them; an empty list is answered by
nothing); `search` by `Info` reports, then one `PlayResult`; `stop` by the running search's
`PlayResult`; `quit` by the engine's exit. A dialect that must check the position before it
starts the search (ubao's `isready` after `position`) answers the check with `Send`, the lines
that start it, or with a `Refused` then a `Ready` when the engine refused the position.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.results import Info, PlayResult


@dataclass(frozen=True, slots=True)
class EnginePosition:
    """What to search, in ubao's terms."""

    game: str
    """The registry's name: kalah, egyptian, ethiopian, bao, othello."""
    options: Mapping[str, Any]
    """The game's options ({"pits": 6, "seeds": 4}, {"size": 8})."""
    start: str
    """`startpos`, or the start position in the game's notation."""
    moves: tuple[str, ...]
    """The moves played since, in notation."""
    player: int
    """Whose turn it is now (0 or 1)."""


@dataclass(frozen=True, slots=True)
class Ready:
    """The engine answered the handshake or a sync (`uciok`, `readyok`)."""


@dataclass(frozen=True, slots=True)
class Refused:
    """The engine refused a command (`error ...`)."""

    message: str


@dataclass(frozen=True, slots=True)
class Send:
    """Lines the driver must send now, because of what the engine answered (ubao's `go`,
    once the position's check passed)."""

    lines: tuple[str, ...]


Reply = Ready | Refused | Send | Info | PlayResult


class Dialect(Protocol):
    """One engine protocol, as the driver speaks it."""

    name: str
    """"ubao" (the stdio line protocol), "nboard", "gtp", ..."""

    def start(self) -> list[str]:
        """The handshake."""
        ...

    def configure(self, options: Mapping[str, str]) -> list[str]:
        """Set the engine's options."""
        ...

    def new_game(self) -> list[str]:
        """The next search is of another game."""
        ...

    def search(self, position: EnginePosition, limits: Limits) -> list[str]:
        """Set the position and start the search."""
        ...

    def stop(self) -> list[str]:
        """End the running search now."""
        ...

    def quit(self) -> list[str]:
        """Ask the engine to exit."""
        ...

    def receive(self, line: str) -> list[Reply]:
        """What one line of the engine's output says."""
        ...
