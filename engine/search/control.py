"""The limits a search runs under and how it is stopped: the deepest iteration, the most nodes
and threads, and the deadline that `stop` moves to now from any thread."""

from __future__ import annotations

from collections.abc import Callable
from math import inf

MAX_SEARCH_DEPTH = 200
"""The deepest iteration a search without a depth limit starts."""
FINAL_DEPTH = MAX_SEARCH_DEPTH + 1
"""The depth the strength mode stores with a result whose search met no horizon (every line
ended the game, or in such an entry): true at every depth, it settles a node at any."""
MAX_NODES = 2**63 - 1
"""The largest node limit: more than any search makes, and what the native core reads."""
MAX_THREADS = 64


class SearchAborted(Exception):
    """Raised inside the tree when the deadline passes or `stop` is called; never escapes."""


class SearchControl:
    """The deadline a running search polls; `stop` from any thread moves it to now."""

    __slots__ = ("deadline", "on_stop")

    def __init__(self) -> None:
        self.deadline = inf
        self.on_stop: Callable[[], None] | None = None
        """Also called by `stop`: a native search, which holds no GIL to poll the deadline."""

    @property
    def stopped(self) -> bool:
        """`stop` was called (not merely the deadline passed)."""
        return self.deadline == -inf

    def stop(self) -> None:
        self.deadline = -inf
        if self.on_stop is not None:
            self.on_stop()
