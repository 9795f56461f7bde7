"""The optional bell (`--bell`, off by default): rung when the opponent moves while the terminal
is not being looked at. A terminal that reports its focus (xterm's focus events, turned on with
`FOCUS_REPORTS_ON`: most terminals, and tmux with `focus-events on`) says whether it is looked
at; where no report comes, a terminal where no key was pressed for `LOOKED_AT_S` is taken as
not looked at. Pure: the screen feeds it keys, focus reports and the time, and asks it."""

from __future__ import annotations

import math
from dataclasses import dataclass

FOCUS_REPORTS_ON, FOCUS_REPORTS_OFF = "\x1b[?1004h", "\x1b[?1004l"
"""What asks the terminal to report its focus, and to stop."""
FOCUS_IN, FOCUS_OUT = "\x1b[I", "\x1b[O"
"""What the terminal sends when it gains and loses the focus."""
LOOKED_AT_S = 30.0
"""Without focus reports: how long after the last key the terminal counts as looked at."""


@dataclass(slots=True)
class Attention:
    """Whether the player is looking at the screen, as far as the terminal lets us know."""

    focused: bool | None = None
    """The terminal's last focus report; None while it has sent none."""
    last_key: float = -math.inf
    """When (monotonic seconds) the player last pressed a key."""

    def looked_at(self, now: float) -> bool:
        if self.focused is not None:
            return self.focused
        return now - self.last_key < LOOKED_AT_S

    def rings_for(self, mover: int, seat: int | None, now: float) -> bool:
        """Whether a move by `mover` rings the bell on the screen of `seat`: the opponent's
        move, while nobody looks."""
        return seat is not None and mover != seat and not self.looked_at(now)
