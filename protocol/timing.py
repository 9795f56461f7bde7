"""The monotonic clock both ends read: a ping's `t` is the client's, the server core's `now` the
server's. One definition, so that "monotonic milliseconds" means the same thing everywhere."""

from __future__ import annotations

import time


def monotonic_ms() -> int:
    """Monotonic milliseconds: only ever compared and subtracted, never shown as a date."""
    return time.monotonic_ns() // 1_000_000
