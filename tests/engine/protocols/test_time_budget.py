"""The one time manager: a search's deadline and planned time from its limits and clocks."""

from __future__ import annotations

import pytest

from ubao.engine.games import make_game
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.timing import MOVE_OVERHEAD_MS, Budget, time_budget


def test_the_clock_budget_plans_a_share_of_the_time_left() -> None:
    kept_back = MOVE_OVERHEAD_MS * 32  # for each of the 30 moves planned for, and two more
    budget = time_budget(Limits(clocks=(30_000, 60_000), increments=(1000, 0)), 0)
    assert budget.soft_ms == pytest.approx((30_000 - kept_back) / 30 + 750)
    assert budget.hard_ms == pytest.approx(4 * (30_000 - kept_back) / 30 + 4 * 750)
    budget = time_budget(Limits(clocks=(30_000, 900), increments=(0, 1000)), 1)
    assert budget.hard_ms == pytest.approx((900 - kept_back) / 2)  # never over half the rest
    budget = time_budget(Limits(clocks=(30_000, 900)), 0, overhead_ms=0)
    assert budget.soft_ms == pytest.approx(1000)
    assert time_budget(Limits(time_ms=500), 0) == Budget(500, None)
    assert time_budget(Limits(depth=4), 0) == Budget(None, None)
    assert time_budget(Limits(time_ms=100, clocks=(60_000, 60_000)), 1).hard_ms == 100


@pytest.mark.timeout(120)
def test_sudden_death_on_16x16_othello_plans_over_the_moves_the_board_has_left() -> None:
    """Each move spends its whole hard budget and 8 ms of the driver's: planning over 30 moves
    flagged at move 83 of 126 with a minute on the clock; planning over half the empty squares
    finishes the game with time to spare."""
    game = make_game("othello", {"size": 16})
    position = game.start()
    assert game.moves_to_go(position) == 126
    left = 60_000
    for played in range(126):
        moves_to_go = game.moves_to_go(position)
        limits = Limits(clocks=(left, left))
        hard = time_budget(limits, game.to_move(position), 10, moves_to_go).hard_ms
        assert hard is not None
        left -= int(hard) + 8
        assert left > 0, f"flagged at move {played}"
        taken = position.black | position.white
        empty = [square for square in range(256) if not taken >> square & 1][:2]
        position = position._replace(black=position.black | sum(1 << s for s in empty))
    assert make_game("kalah").moves_to_go(make_game("kalah").start()) is None
