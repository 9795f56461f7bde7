"""benchmarks/zebra_nboard.py gives Zebra the time per move it is asked for: its clock solves
Zebra's time manager for the aim, and the aim is steered until the moves take `--seconds`."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ADAPTER = Path(__file__).resolve().parents[2] / "benchmarks" / "zebra_nboard.py"


@pytest.fixture(scope="module")
def adapter() -> ModuleType:
    spec = importlib.util.spec_from_file_location("zebra_nboard", ADAPTER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def zebra_takes(aim: float) -> float:
    """A Zebra whose move runs 40 % past its aim, after 0.1 s to start and load its weights."""
    return 0.1 + 1.4 * aim


def test_the_first_aim_is_the_measured_share_of_the_time(adapter: ModuleType) -> None:
    assert adapter.Pace(2.0).aim() == pytest.approx(2.0 * adapter.FIRST_AIM_SHARE)


@pytest.mark.parametrize("seconds", [0.25, 1.0, 4.0])
def test_the_middle_game_moves_come_to_take_the_time_asked(
    adapter: ModuleType, seconds: float
) -> None:
    pace = adapter.Pace(seconds)
    took = []
    for _ in range(200):
        aim = pace.aim()
        took.append(zebra_takes(aim))
        pace.record(aim, took[-1], 40)
    assert sum(took[-50:]) / 50 == pytest.approx(seconds, rel=0.03)


def test_the_solving_moves_near_the_end_leave_the_aim_alone(adapter: ModuleType) -> None:
    pace = adapter.Pace(1.0)
    before = pace.aim()
    pace.record(before, 0.05, adapter.ZEBRA_SOLVE_EMPTIES)
    assert pace.aim() == before


@pytest.mark.parametrize("empties", [50, 40, 31])
def test_the_clock_gives_the_middle_game_move_its_aim(adapter: ModuleType, empties: int) -> None:
    # Zebra's timer.c: (clock - reserve) / (moves left + 1) * 0.7 seconds for this move.
    clock, increment = adapter.zebra_clock(0.65, empties, 1.0)
    moves_left = max((1 + empties) // 2 - 5, 2)
    given = (clock - adapter.ZEBRA_RESERVE_SECONDS) / (moves_left + 1) * 0.7
    assert increment == 0
    assert 0.65 <= given < 0.65 + 0.7 / (moves_left + 1)


@pytest.mark.parametrize("seconds", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("empties", range(22, 31))
def test_near_the_end_a_solve_stops_at_about_the_moves_time_and_the_aim_stays(
    adapter: ModuleType, empties: int, seconds: float
) -> None:
    # end.c lets a solve run to a share of the clock less its reserve; timer.c aims a move at
    # 0.7 of (that clock and the increment of every move left) over the moves left and one.
    aim = 0.65 * seconds
    clock, increment = adapter.zebra_clock(aim, empties, seconds)
    share = adapter.zebra_solve_share(empties)
    solve = (clock - adapter.ZEBRA_RESERVE_SECONDS) * share
    assert abs(solve - seconds) <= share / 2 or solve == share  # whole seconds of clock
    moves_left = max((1 + empties) // 2 - 5, 2)
    given = (clock - adapter.ZEBRA_RESERVE_SECONDS + moves_left * increment) / (moves_left + 1)
    assert abs(given * 0.7 - aim) <= 0.7 * (1 + moves_left / 2) / (moves_left + 1)
