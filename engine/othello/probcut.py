"""Multi-ProbCut for 8x8 Othello: the cut checks of the strength search, per evaluation.

A deep search's value is predicted from a shallow one's by a line fitted on positions of
self-play games (`benchmarks/othello_probcut.py`, per game stage and depth pair: deep = slope
* shallow + offset, with the residuals' standard deviation `sigma`). A null-window node whose
prediction lies THRESHOLD sigmas beyond its window is cut without the deep search (Buro's
multi-ProbCut: checks at many depths, fitted per stage). The fits live in `probcut_fits`, by
evaluation name, since each evaluation predicts its own deeper values; an evaluation without
fits searches full width.
"""

from __future__ import annotations

from ubao.engine.othello.probcut_fits import FITS
from ubao.engine.searchable import ProbCut, ProbCutCheck

SIZE = 8
"""The board the fits are for."""
STAGES = 6
"""Game stages by squares occupied, as the trained evaluation's."""
THRESHOLD = 1.5
"""How many standard errors beyond the window a prediction must lie to cut."""
LEAST_DEPTH = 3
"""The shallowest node with a check (its shallow search is one ply)."""
FULL_WIDTH = 10
"""A search asked for at most this many plies is full width, as Edax's levels 1 to 10: cuts
near the root change the move played, and a search this shallow is fast without them
(measured in docs/othello.md, Multi-ProbCut)."""


def shallow_depth(depth: int) -> int:
    """The shallow search of a node `depth` plies above the horizon: about a quarter of it,
    of the same parity (the evaluation sways with the side to move at the horizon), as Edax
    pairs them."""
    return 2 * (depth // 4) + depth % 2


def stage(occupied: int) -> int:
    """The game stage of a position with `occupied` squares taken."""
    return min(occupied * STAGES // (SIZE * SIZE), STAGES - 1)


def _occupied(position: tuple[int, int, int]) -> int:
    return (position[0] | position[1]).bit_count()


def checks(evaluation: str, threshold: float = THRESHOLD) -> ProbCut | None:
    """The checks for `evaluation` on 8x8, or None when it has no fits. A node with at least as
    many plies left as empty squares gets none: its full-width search may end every line, and
    a value it proves must stay proved (a cut's shallow search would meet the horizon)."""
    fits = FITS.get(evaluation)
    if not fits:
        return None
    depths = 1 + max(depth for _, depth in fits)
    rows: dict[tuple[ProbCutCheck | None, ...], int] = {}
    stages = []
    for occupied in range(SIZE * SIZE + 1):
        row = tuple(
            _check(fits.get((stage(occupied), depth)), depth, threshold)
            if depth < SIZE * SIZE - occupied
            else None
            for depth in range(depths)
        )
        stages.append(rows.setdefault(row, len(rows)))
    return ProbCut(_occupied, tuple(stages), tuple(rows), FULL_WIDTH)


def _check(
    fit: tuple[float, float, float] | None, depth: int, threshold: float
) -> ProbCutCheck | None:
    """The check of a node `depth` plies deep from its (slope, offset, sigma), if fitted."""
    if fit is None:
        return None
    slope, offset, sigma = fit
    return (shallow_depth(depth), slope, threshold * sigma - offset, -threshold * sigma - offset)
