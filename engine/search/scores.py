"""Scores of a search: a finished game's score (winner, then margin, then plies) and how to read
one back: the forced result, the plies to the end, the text for people."""

from __future__ import annotations

from ubao.engine.game import Outcome

MATE = 1_000_000_000
"""The base score of a won finished game: a win by `margin`, `k` plies from the root, scores
MATE + PLY_SPAN * margin - k, a loss its negation, a draw 0."""
PLY_SPAN = 1000
"""One point of final margin outweighs any difference in plies (a search is under 1000 deep)."""
MATE_BOUND = MATE - 1_000_000


def final_score(outcome: Outcome, player: int, ply: int) -> float:
    """A finished game's score for `player`, `ply` plies from the root: the winner, then the
    margin (what the game is scored by), then sooner wins and later losses."""
    winner = outcome.winner
    if winner is None:
        return 0
    margin = max(0, outcome.score[winner] - outcome.score[1 - winner])
    value = MATE + PLY_SPAN * margin - ply
    return value if winner == player else -value


def forced_result(score: float) -> tuple[int, int] | None:
    """(plies to the end, final margin) of a finished-game score, both negative for a loss;
    None for an evaluation."""
    if -MATE_BOUND <= score <= MATE_BOUND:
        return None
    rest = round(abs(score)) - MATE  # PLY_SPAN * margin - plies, plies in [0, PLY_SPAN)
    margin = -(-rest // PLY_SPAN)
    plies = PLY_SPAN * margin - rest
    return (plies, margin) if score > 0 else (-plies, -margin)


def mate_distance(score: float) -> int | None:
    """Plies to the end of a forced game from a score, negative for a loss; else None."""
    forced = forced_result(score)
    return None if forced is None else forced[0]


def format_score(score: float, proved: bool = True) -> str:
    """A score for people: `+3`, `-1.25`, `win in 7 by 4`, `loss in 4 by 2`; a forced result
    not `proved` (a search that met a horizon elsewhere) is a bound: `win in 7 by at least 4`."""
    forced = forced_result(score)
    if forced is not None:
        plies, margin = forced
        by = f" by {'' if proved else 'at least '}{abs(margin)}" if margin else ""
        return f"win in {plies}{by}" if score > 0 else f"loss in {-plies}{by}"
    if score == int(score):
        return f"{int(score):+d}"
    return f"{score:+.2f}"
