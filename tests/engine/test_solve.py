"""The solver: exact values of small games, checked against the published Kalah table."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from tests.support.engine import BACKENDS, SMALL_OPTIONS, sample_positions
from ubao.engine.endgame import open_endgame
from ubao.engine.games import make_game
from ubao.engine.mancala.game import Kalah, Mancala, Position
from ubao.engine.othello.game import Position as OthelloPosition
from ubao.engine.search import search
from ubao.engine.solve import UNBOUNDED, Solver, table_entries

# (pits, seeds) -> South's final margin under perfect play, default `kalah` rules: the rows
# m <= 3 of the table in docs/mancala.md §7 (Irving, Donkers & Uiterwijk 2000).
PUBLISHED = {
    (1, 1): 0, (1, 2): -2, (1, 3): 6, (1, 4): -2, (1, 5): 2, (1, 6): 0,
    (2, 1): 2, (2, 2): -2, (2, 3): -2, (2, 4): -12, (2, 5): 6, (2, 6): 8,
    (3, 1): 0, (3, 2): 4, (3, 3): 2, (3, 4): 2, (3, 5): 6, (3, 6): -10,
}  # fmt: skip


@pytest.mark.parametrize(("pits", "seeds"), sorted(PUBLISHED))
def test_the_solver_reproduces_the_published_kalah_value(pits: int, seeds: int) -> None:
    solution = Solver(make_game("kalah", {"pits": pits, "seeds": seeds})).solve()
    value = PUBLISHED[pits, seeds]
    assert solution.value == value
    assert solution.wdl == ("W" if value > 0 else "L" if value < 0 else "D")


# The same with `empty_capture: false` (standard commercial rules), rows m = 2 and 3 of §7.
PUBLISHED_NO_EMPTY_CAPTURE = {
    (2, 1): 2, (2, 2): -2, (2, 3): -2, (2, 4): -10, (2, 5): 6, (2, 6): 8,
    (3, 1): 0, (3, 2): 4, (3, 3): 2, (3, 4): 2, (3, 5): 6, (3, 6): -8,
}  # fmt: skip


@pytest.mark.parametrize(("pits", "seeds"), sorted(PUBLISHED_NO_EMPTY_CAPTURE))
def test_the_solver_reproduces_the_values_without_empty_captures(pits: int, seeds: int) -> None:
    game = make_game("kalah", {"pits": pits, "seeds": seeds, "empty_capture": False})
    assert Solver(game).solve().value == PUBLISHED_NO_EMPTY_CAPTURE[pits, seeds]


@pytest.mark.parametrize(("pits", "seeds"), [(2, 4), (3, 3), (3, 5)])
def test_the_line_of_best_play_ends_with_the_solved_margin(pits: int, seeds: int) -> None:
    game = make_game("kalah", {"pits": pits, "seeds": seeds})
    solution = Solver(game).solve()
    position = game.start()
    assert solution.move == solution.pv[0]
    for move in solution.pv:
        position = game.play(position, move)
    outcome = game.outcome(position)
    assert outcome is not None
    assert outcome.score[0] - outcome.score[1] == solution.value


def test_every_position_on_the_best_line_keeps_the_value_for_player_0() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 4})
    solver = Solver(game)
    solution = solver.solve()
    position = game.start()
    for move in solution.pv[:6]:
        position = game.play(position, move)
        assert solver.solve(position).value == solution.value


def test_a_finished_position_solves_to_its_final_margin() -> None:
    game = make_game("kalah", {"pits": 2, "seeds": 1})
    position = game.parse_position("kalah(2,1) N 0,0/0,0 3,1")
    solution = Solver(game).solve(position)
    assert (solution.value, solution.move, solution.pv) == (2, None, ())
    assert solution.winner == 0


def test_the_solver_agrees_with_an_unlimited_depth_search() -> None:
    for pits, seeds in [(2, 2), (2, 5), (3, 2), (3, 3)]:
        game = make_game("kalah", {"pits": pits, "seeds": seeds})
        forced = search(game, game.start(), 60)
        assert forced.mate is not None
        solved = Solver(game).solve()
        assert (forced.mate > 0) == (solved.value > 0)


class UnboundedKalah(Kalah):
    """Kalah whose board key calls every point loose: the solver must prove every margin."""

    def board_key(self, position: Position) -> tuple[int, int, int]:
        key, banked, _ = super().board_key(position)
        return key, banked, UNBOUNDED


@pytest.mark.parametrize(("pits", "seeds"), [(4, 2), (4, 3)])
def test_the_seeds_still_loose_prune_without_changing_the_value(pits: int, seeds: int) -> None:
    options = {"pits": pits, "seeds": seeds}
    plain = Solver(UnboundedKalah(options)).solve()
    bounded = Solver(Kalah(options)).solve()
    assert bounded.value == plain.value
    assert bounded.expanded < plain.expanded


def test_a_tiny_table_stays_bounded_and_still_solves_exactly() -> None:
    # the Python table (the native one: tests/engine/test_native_solve.py)
    game = make_game("kalah", {"pits": 4, "seeds": 3}, backend="python")
    solver = Solver(game, hash_mb=0.01)
    assert len(solver.table) == table_entries(0.01) == 64
    assert solver.solve().value == 8
    assert solver.table_entries <= 64


def test_the_table_keeps_values_relative_to_the_stores() -> None:
    # Two positions with the same pits and different stores share one entry: solving the
    # second after the first expands nothing new.
    game = make_game("kalah", {"pits": 3, "seeds": 3})
    solver = Solver(game)
    first = solver.solve(game.parse_position("kalah(3,3) S 1,2,3/0,2,1 4,5"))
    second = solver.solve(game.parse_position("kalah(3,3) S 1,2,3/0,2,1 9,0"))
    assert second.value == first.value + 10
    assert second.expanded < first.expanded
    assert second.pv[0] == first.pv[0]


def test_a_north_position_is_the_mirror_of_the_south_one() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 3})
    south = Solver(game).solve(game.parse_position("kalah(3,3) S 1,2,3/0,2,1 4,5"))
    north = Solver(game).solve(game.parse_position("kalah(3,3) N 0,2,1/1,2,3 5,4"))
    assert north.value == -south.value


def test_the_benchmark_baseline_solves_the_same_values() -> None:
    # benchmarks/kalah_mtdf.py, the plain MTD(f) the solver is measured against, is right too.
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "kalah_mtdf.py"
    spec = importlib.util.spec_from_file_location("kalah_mtdf", path)
    assert spec is not None and spec.loader is not None
    baseline = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(baseline)
    for (pits, seeds), value in {(2, 4): -12, (3, 3): 2, (3, 6): -10, (4, 2): 6}.items():
        assert baseline.solve(pits, seeds)[0] == value


def test_each_probe_reports_the_bounds_proved_so_far() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    heard: list[tuple[int, int, int]] = []
    solution = Solver(game).solve(None, lambda *report: heard.append(report))
    assert len(heard) == solution.probes
    assert heard[-1][:2] == (8, 8)
    assert [low for low, _, _ in heard] == sorted(low for low, _, _ in heard)


NORTH_STUCK = "00000011/11111111/20000000/00000000 S 0-0 -"
"""South's only move, A1R, leaves North without a legal move: South wins with fewer seeds."""


SOUTH_LOSES = "00000000/00000002/20000000/00000000 S 0-0 -"
"""A forced loss for South, with equal seeds at the end."""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_solver_ranks_the_winner_before_the_seeds(backend: str) -> None:
    bao = make_game("bao", backend=backend)
    stuck = bao.parse_position(NORTH_STUCK)
    solution = Solver(bao).solve(stuck)
    assert (solution.winner, solution.wdl) == (0, "W")
    outcome = bao.outcome(bao.play(stuck, solution.pv[0]))
    assert outcome is not None and outcome.winner == 0
    assert solution.value == outcome.score[0] - outcome.score[1] < 0  # a win with fewer seeds
    solution = Solver(bao).solve(bao.parse_position(SOUTH_LOSES))
    assert (solution.winner, solution.wdl) == (1, "L")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_mancala_solutions_stay_margins(backend: str) -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 3}, backend=backend)
    solution = Solver(game).solve()
    assert solution.value == 2 and (solution.winner, solution.wdl) == (0, "W")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_game_that_ends_by_its_stores_is_not_solved_by_pit_keys(
    backend: str, tmp_path: Path
) -> None:
    """Option `early_end` reads the stores, which the solver's keys and the endgame databases
    leave out: both refuse such a game rather than answer wrongly."""
    game = make_game("kalah", {"pits": 3, "seeds": 2, "early_end": True}, backend)
    assert isinstance(game, Mancala)
    with pytest.raises(ValueError, match="early_end"):
        Solver(game)
    with pytest.raises(ValueError, match="early_end"):
        open_endgame(game, 4, tmp_path)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_solve_out_of_time_raises_and_the_solver_goes_on_afterwards(backend: str) -> None:
    """`seconds` bounds a solve (the game review's per-position budget): TimeoutError, and the
    same solver then solves a position whole, its table holding only proved bounds."""
    big = make_game("kalah", {"pits": 6, "seeds": 4}, backend)
    solver = Solver(big, hash_mb=16)
    with pytest.raises(TimeoutError, match="time ran out"):
        solver.solve(seconds=0.0 if backend == "python" else 0.01)
    late = big.start()
    for move in [
        "3",
        "6",
        "2",
        "1",
        "4",
        "4",
        "6",
        "2",
        "6",
        "4",
        "2",
        "5",
        "6",
        "1",
        "5",
        "6",
        "5",
        "6",
        "4",
        "6",
        "5",
        "6",
        "3",
        "4",
    ]:
        late = big.play(late, big.parse_move(late, move))
    assert solver.solve(late).value == Solver(big, hash_mb=16).solve(late).value


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_probe_says_whether_a_position_is_worth_a_value(backend: str) -> None:
    """`at_least`, the game review's check of a mark: the mover's value against a bound."""
    game = make_game("kalah", {"pits": 4, "seeds": 3}, backend)
    solver = Solver(game)
    position = game.start()
    for move in ["2", "4", "1", "3"]:
        mover_value = solver.solve(position).value * (-1 if game.to_move(position) else 1)
        assert Solver(game).at_least(position, mover_value)
        assert not Solver(game).at_least(position, mover_value + 1)
        position = game.play(position, game.parse_move(position, move))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["kalah", "egyptian", "othello"])
def test_the_result_alone_is_the_solved_winner_and_its_move_keeps_it(
    name: str, backend: str
) -> None:
    """`result`, the win/loss/draw search: the winner `solve` finds, and a move whose child
    `solve` gives the same winner."""
    game = make_game(name, SMALL_OPTIONS[name], backend)
    results = set()
    late = [p for p in sample_positions(game, 300, seed=11) if not endless(game, p)]
    for position in late[8:80:8]:
        result = Solver(game).result(position)
        assert result.winner == Solver(game).solve(position).winner
        assert result.move is not None and result.probes >= 1
        child = game.play(position, result.move)
        assert Solver(game).solve(child).winner == result.winner
        results.add(result.wdl)
    assert len(results) > 1  # the positions are not all one result


def endless(game: Any, position: Any) -> bool:
    """Whether `position` is too early for the Python solver to be quick: Othello (6x6) with
    more than 12 empty squares."""
    return (
        isinstance(position, OthelloPosition) and (position.black | position.white).bit_count() < 24
    )


def test_a_finished_position_has_its_result_and_no_move() -> None:
    game = make_game("kalah", {"pits": 2, "seeds": 1})
    position = game.start()
    while game.legal_moves(position):
        position = game.play(position, game.legal_moves(position)[0])
    result = Solver(game).result(position)
    assert (result.move, result.probes) == (None, 0)
    assert result.winner == Solver(game).solve(position).winner
