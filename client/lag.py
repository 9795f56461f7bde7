"""The round trip to the server, measured with app-level pings. Pure: times come in as numbers.

The clocks in an event are as they stood when the server sent it; the event reaches the client
about half a round trip later. So the running clock is shown that much lower (see
`GameState.remaining_ms`), and the players panel shows the lag itself.
"""

from __future__ import annotations

from dataclasses import dataclass

SMOOTHING = 0.25
"""Weight of a new sample in the running average (as TCP smooths its round-trip time), so that
one slow ping does not make the display jump."""


@dataclass(slots=True)
class Lag:
    rtt_ms: float | None = None
    """The smoothed round-trip time; None before the first ping came back."""

    def observe(self, sent_ms: int, received_ms: int) -> float:
        """A ping sent at `sent_ms` was answered at `received_ms` (the same monotonic clock);
        returns the new smoothed round-trip time."""
        sample = float(max(0, received_ms - sent_ms))
        if self.rtt_ms is None:
            self.rtt_ms = sample
        else:
            self.rtt_ms += SMOOTHING * (sample - self.rtt_ms)
        return self.rtt_ms


def format_lag(rtt_ms: float | None) -> str:
    """The lag as the players panel shows it."""
    return "lag -" if rtt_ms is None else f"lag {rtt_ms:.0f} ms"
