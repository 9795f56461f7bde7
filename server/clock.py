"""Time for the session core: an injectable monotonic clock, game clocks and message budgets.

Everything here takes `now` (monotonic milliseconds) as an argument, so the core is tested with
a hand-driven clock and never sleeps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ubao.protocol import Clocks

Now = Callable[[], int]
"""A clock: monotonic milliseconds, only ever compared and subtracted."""


def wall_ms() -> int:
    """Milliseconds since the epoch: only echoed to clients (`ping`'s `server_t`)."""
    return time.time_ns() // 1_000_000


@dataclass(slots=True)
class GameClock:
    """A Fischer clock pair, kept by the server.

    `remaining` is each seat's time at the moment its clock last stopped; the running seat's
    time is `remaining - (now - since)`.
    """

    remaining: list[int]
    increment_ms: int
    running: int | None = None
    since: int = 0

    @classmethod
    def new(cls, initial_ms: int, increment_ms: int) -> GameClock:
        return cls([initial_ms, initial_ms], increment_ms)

    def left(self, seat: int, now: int) -> int:
        """The seat's time left (negative once its flag has fallen)."""
        if seat == self.running:
            return self.remaining[seat] - (now - self.since)
        return self.remaining[seat]

    def start(self, seat: int, now: int) -> None:
        self.running = seat
        self.since = now

    def press(self, seat: int, now: int, next_seat: int) -> None:
        """`seat` moved in time: stop its clock, add the increment, start `next_seat`'s."""
        self.remaining[seat] = self.left(seat, now) + self.increment_ms
        self.start(next_seat, now)

    def stop(self, now: int) -> None:
        if self.running is not None:
            self.remaining[self.running] = max(0, self.left(self.running, now))
            self.running = None

    def flagged(self, now: int) -> int | None:
        """The seat whose time has run out, if any."""
        if self.running is not None and self.left(self.running, now) <= 0:
            return self.running
        return None

    def deadline(self) -> int | None:
        """When the running seat's flag falls."""
        if self.running is None:
            return None
        return self.since + self.remaining[self.running]

    def wire(self, now: int, first_move_due: int | None = None) -> Clocks:
        """The clocks as the protocol sends them, with the time left for an awaited untimed
        first move that is due at `first_move_due`."""
        left = (max(0, self.left(0, now)), max(0, self.left(1, now)))
        first = None if first_move_due is None else max(0, first_move_due - now)
        return Clocks(left, self.running, self.increment_ms, first)


@dataclass(slots=True)
class MessageBudget:
    """A token bucket: `burst` messages at once, refilled at `per_second`."""

    burst: int
    per_second: float
    tokens: float
    last: int

    @classmethod
    def new(cls, burst: int, per_second: float, now: int) -> MessageBudget:
        return cls(burst, per_second, float(burst), now)

    def take(self, now: int) -> bool:
        """Spend one message; False when the budget is exhausted."""
        elapsed = max(0, now - self.last) / 1000
        self.tokens = min(float(self.burst), self.tokens + elapsed * self.per_second)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
