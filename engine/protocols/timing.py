"""The time manager: how long a search may take, from its limits and the clocks.

The one formula of every caller: the stdio engine's clock searches, the bot client's, a
driver's safety deadline.
"""

from __future__ import annotations

from dataclasses import dataclass

from ubao.engine.protocols.limits import Limits

MOVE_OVERHEAD_MS = 10
"""What a clock search keeps back for each move still to play (`setoption name Move Overhead`,
as in UCI engines): the time a move costs outside the search (reading the position, the
driver's and the pipe's delays), which the clock counts and the search's own deadline does not."""
MOVES_TO_GO = 30
"""A clock search plans for this many more of its own moves, or the game's `moves_to_go` if
more."""
HARD_FACTOR = 4
"""An iteration may run past the planned time up to this factor ..."""
MAX_SHARE = 0.5
"""... but never past this share of the time left on the clock."""


@dataclass(frozen=True, slots=True)
class Budget:
    """A search's time in milliseconds: `hard_ms` its deadline, `soft_ms` when to stop
    deepening (None: no such limit)."""

    hard_ms: float | None
    soft_ms: float | None


def time_budget(
    limits: Limits,
    player: int,
    overhead_ms: int = MOVE_OVERHEAD_MS,
    moves_to_go: int | None = None,
) -> Budget:
    """The budget of `player`'s search within `limits`.

    On a clock the engine first keeps back `overhead_ms` for each move it plans for and two
    more (as Stockfish's Move Overhead does), then plans the rest over 30 moves, or the game's
    `moves_to_go` when more (`limits.moves_to_go` when fewer are to go), plus most of the
    increment per move, lets an iteration run to four times that, and never uses more than
    half of what is left. Limits that give only the other side's clock are still a clock
    search (as in UCI engines): the mover's missing time counts as 0, so it moves at once.
    """
    hard: float | None = limits.time_ms
    soft: float | None = None
    left = limits.clocks[player]
    if left is None and limits.clocks != (None, None):
        left = 0
    if left is not None:
        increment = limits.increments[player]
        planned = max(MOVES_TO_GO, moves_to_go or 0)
        moves = planned if limits.moves_to_go is None else min(limits.moves_to_go, planned)
        left = max(0, left - overhead_ms * (moves + 2))
        soft = left / moves + 0.75 * increment
        cap = max(1.0, min(HARD_FACTOR * soft, MAX_SHARE * left))
        hard = cap if hard is None else min(hard, cap)
    return Budget(hard, soft)
