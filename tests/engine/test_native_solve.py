"""The native solver and endgame database against the Python ones, their oracle: the same
database bytes for every rule set, the same values on every small cell with both capture rules,
with and without a database, and from random positions; a best line that ends with the value;
the published table of docs/mancala.md §7; the dispatch that picks it; a bounded table; probes
on several threads, which must find the same values (one bucket shared by every thread too);
a probe that Ctrl-C stops, on one thread or several.

The whole module skips when the extension is not built (the Python solver then runs everywhere,
as tests/engine/test_solve.py checks).
"""

from __future__ import annotations

import random
import signal
import threading
from types import FrameType
from typing import Any

import pytest

from tests.support.native import FLAGS, pair
from ubao.engine._native import Mancala as MancalaCore
from ubao.engine._native import Solver as SolverCore
from ubao.engine.backend import NATIVE_BUILT
from ubao.engine.endgame import Endgame, build, native_rules, zeroed
from ubao.engine.game import Game
from ubao.engine.games import make_game
from ubao.engine.mancala.game import Mancala, Position
from ubao.engine.solve import Solution, Solver

if not NATIVE_BUILT:
    pytest.skip("the native core is not built", allow_module_level=True)

RULE_SETS = [
    {"capture_sower": sower, "empty_capture": empty, "end_check": end, "remaining": rest}
    for sower, empty, end, rest in FLAGS
]
"""Every combination of the options that change the rules of the one-way mancala family."""


def mancala_pair(name: str, options: dict[str, Any]) -> tuple[Mancala, Mancala]:
    reference, native = pair(name, options)
    assert isinstance(reference, Mancala) and isinstance(native, Mancala)
    return reference, native


def solved(game: Mancala, position: Position | None = None, seeds: int = 0) -> Solution[int]:
    """`game` solved from `position` by the solver of its backend, with a database of `seeds`
    seeds (built on that backend) when `seeds` is set."""
    return Solver(game, endgame=build(game, seeds) if seeds else None).solve(position)


def final_margin(game: Game[Any, Any], position: Any, line: tuple[int, ...]) -> int:
    for move in line:
        position = game.play(position, move)
    outcome = game.outcome(position)
    assert outcome is not None, "the line stops before the end of the game"
    return outcome.score[0] - outcome.score[1]


@pytest.mark.parametrize("options", RULE_SETS)
def test_the_native_database_is_the_python_one(options: dict[str, Any]) -> None:
    for name, pits, seeds in [("kalah", 3, 6), ("kalah", 2, 8), ("egyptian", 4, 4)]:
        reference, native = mancala_pair(name, {"pits": pits, **options})
        assert native_rules(native) is not None and native_rules(reference) is None
        assert build(native, seeds).values == build(reference, seeds).values


def test_a_database_built_on_every_core_is_the_python_one() -> None:
    """Six pits, 8 seeds: levels of up to 75 k positions, which the threads share by blocks of
    4096 (the small databases above fit in one block, one thread's) and whose values they read
    across blocks as the recursion needs them."""
    reference, native = mancala_pair("kalah", {"pits": 6})
    assert build(native, 8).values == build(reference, 8).values


def test_ctrl_c_stops_a_database_build() -> None:
    """The main thread polls the signal; the other threads end with it (20 seeds on 12 pits:
    226 M positions, 20-40 s of work)."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise Interrupted

    _, native = mancala_pair("kalah", {"pits": 6})
    rules = native_rules(native)
    assert rules is not None
    previous = signal.signal(signal.SIGINT, interrupt)
    timer = threading.Timer(0.3, signal.raise_signal, (signal.SIGINT,))
    timer.start()
    try:
        with pytest.raises(Interrupted):
            SolverCore.build_endgame(rules, 20, zeroed(Endgame.size(6, 20)))
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("empty_capture", [True, False])
@pytest.mark.parametrize(("pits", "seeds"), [(3, 3), (4, 3), (6, 2), (5, 2), (2, 5), (3, 5)])
def test_every_small_cell_solves_as_in_python(pits: int, seeds: int, empty_capture: bool) -> None:
    options = {"pits": pits, "seeds": seeds, "empty_capture": empty_capture}
    reference, native = mancala_pair("kalah", options)
    for database in (0, 6):
        expected = solved(reference, seeds=database)
        solution = solved(native, seeds=database)
        assert solution.value == expected.value, database
        assert solution.pv[0] == solution.move
        assert final_margin(native, native.start(), solution.pv) == solution.value


# docs/mancala.md §7: the larger cells, default rules and `empty_capture: false`.
PUBLISHED = {
    (True, 4, 4): 2, (True, 5, 3): 8, (True, 6, 3): 2, (True, 4, 5): 2,
    (False, 4, 4): 2, (False, 5, 3): 6, (False, 6, 3): 2, (False, 4, 3): 6,
}  # fmt: skip


@pytest.mark.parametrize(("empty_capture", "pits", "seeds"), sorted(PUBLISHED))
def test_the_native_solver_reproduces_the_published_values(
    empty_capture: bool, pits: int, seeds: int
) -> None:
    options = {"pits": pits, "seeds": seeds, "empty_capture": empty_capture}
    game = make_game("kalah", options, backend="native")
    assert isinstance(game, Mancala)
    solution = solved(game, seeds=8)
    assert solution.value == PUBLISHED[empty_capture, pits, seeds]
    assert final_margin(game, game.start(), solution.pv) == solution.value


def random_positions(game: Mancala, rng: random.Random, count: int) -> list[Position]:
    """Positions of random games, from a few plies in to the last moves, and positions with
    random seeds in the pits (more than the game starts with, sometimes)."""
    positions: list[Position] = []
    while len(positions) < count:
        position = game.start()
        for _ in range(rng.randint(1, 14)):
            moves = game.legal_moves(position)
            if not moves:
                break
            position = game.play(position, rng.choice(moves))
        positions.append(position)
        m = game.pits
        pits = [rng.choice((0, 0, 1, 2, 3, 5, 9)) for _ in range(2 * m)]
        stores = rng.randrange(12), rng.randrange(12)
        positions.append((*pits[:m], stores[0], *pits[m:], stores[1], rng.randrange(2)))
    return positions


@pytest.mark.parametrize("options", RULE_SETS)
def test_random_positions_solve_as_in_python(options: dict[str, Any]) -> None:
    reference, native = mancala_pair("kalah", {"pits": 3, "seeds": 3, **options})
    databases = {game: build(game, 5) for game in (reference, native)}
    python, c = Solver(reference), Solver(native)
    python_db, c_db = (Solver(game, endgame=databases[game]) for game in (reference, native))
    rng = random.Random(f"solve{sorted(options.items())}")
    for position in random_positions(reference, rng, 10):
        expected = python.solve(position)
        assert c.solve(position).value == expected.value, reference.format_position(position)
        solution = c_db.solve(position)
        assert solution.value == python_db.solve(position).value == expected.value
        assert final_margin(native, position, solution.pv) == solution.value


def test_the_egyptian_rules_solve_natively_too() -> None:
    reference, native = mancala_pair("egyptian", {"pits": 3, "seeds": 4})
    assert Solver(native).native is not None
    rng = random.Random(5)
    for position in [reference.start(), *random_positions(reference, rng, 10)]:
        assert solved(native, position).value == solved(reference, position).value


def test_the_solver_picks_the_native_core_for_the_native_one_way_mancala_games() -> None:
    assert Solver(make_game("kalah", backend="native")).native is not None
    assert Solver(make_game("kalah", backend="python")).native is None
    assert Solver(make_game("ethiopian", {"pits": 3}, backend="native")).native is None
    assert Solver(make_game("othello", {"size": 4}, backend="native")).native is None
    native = make_game("kalah", {"pits": 3, "seeds": 2}, backend="native")
    assert isinstance(native, Mancala)

    class Plain:
        """A database that is not an `Endgame`: the Python solver asks it."""

        def __init__(self, database: Endgame) -> None:
            self.seeds = database.seeds
            self.value = database.value

    database = build(native, 4)
    assert Solver(native, endgame=database).native is not None
    asked = Solver(native, endgame=Plain(database))
    assert asked.native is None
    assert asked.solve().value == solved(native).value == 4


def test_a_tiny_table_still_solves_exactly() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 3}, backend="native")
    solver = Solver(game, hash_mb=0.0001)  # one bucket of four entries
    solution = solver.solve()
    assert solution.value == 8
    assert 0 < solution.table_entries <= 4
    assert solution.expanded > Solver(game).solve().expanded


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_solve_to_the_same_values(threads: int) -> None:
    for (empty_capture, pits, seeds), value in PUBLISHED.items():
        options = {"pits": pits, "seeds": seeds, "empty_capture": empty_capture}
        game = make_game("kalah", options, backend="native")
        solver = Solver(game, threads=threads)
        assert solver.threads == threads and solver.threads_note is None
        solution = solver.solve()
        assert solution.value == value, options
        assert final_margin(game, game.start(), solution.pv) == solution.value


@pytest.mark.parametrize("options", RULE_SETS[::3])
def test_threads_solve_random_positions_as_in_python(options: dict[str, Any]) -> None:
    reference, native = mancala_pair("kalah", {"pits": 4, "seeds": 3, **options})
    database = build(native, 5)
    python = Solver(reference)
    solvers = [Solver(native, threads=2), Solver(native, endgame=database, threads=3)]
    # every thread in one bucket of four entries: torn slots, if any, would read as bounds
    solvers.append(Solver(native, hash_mb=0.0001, threads=3))
    rng = random.Random(f"threads{sorted(options.items())}")
    for position in random_positions(reference, rng, 6):
        expected = python.solve(position).value
        for solver in solvers:
            solution = solver.solve(position)
            assert solution.value == expected, reference.format_position(position)
            assert final_margin(native, position, solution.pv) == expected


def test_a_python_solver_says_it_runs_on_one_thread() -> None:
    solver = Solver(make_game("kalah", backend="python"), threads=2)
    assert solver.threads == 1
    assert solver.threads_note == (
        "threads: 1 of 2 asked: the Python solver runs on one thread (threads need the native "
        "core's mancala solver)"
    )
    with pytest.raises(ValueError, match="threads must be from 1 to 64"):
        Solver(make_game("kalah", backend="native"), threads=0)
    with pytest.raises(ValueError, match="threads must be 1 to 64"):
        SolverCore(MancalaCore(3, True, True, False, False, False), 1.0, threads=65)


def test_finished_positions_and_the_stores_are_read_from_the_position() -> None:
    reference, native = mancala_pair("kalah", {"pits": 2, "seeds": 1})
    finished = native.parse_position("kalah(2,1) N 0,0/0,0 3,1")
    assert (solved(native, finished).value, solved(native, finished).pv) == (2, ())
    unswept = (0, 0, 5, 2, 1, 0, 1)  # South has no seed: over, North banks his own
    assert solved(native, unswept).value == solved(reference, unswept).value == 2
    solver = Solver(native)
    south = solver.solve(native.parse_position("kalah(2,1) S 1,2/0,1 4,5"))
    again = solver.solve(native.parse_position("kalah(2,1) S 1,2/0,1 9,0"))
    assert again.value == south.value + 10
    north = solver.solve(native.parse_position("kalah(2,1) N 0,1/1,2 5,4"))
    assert north.value == -south.value


def test_each_probe_reports_the_bounds_proved_so_far() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 3}, backend="native")
    heard: list[tuple[int, int, int]] = []
    solution = Solver(game).solve(None, lambda *report: heard.append(report))
    assert len(heard) == solution.probes
    assert heard[-1][:2] == (8, 8)
    assert [expanded for _, _, expanded in heard][-1] == solution.expanded


def test_the_core_refuses_what_it_cannot_solve() -> None:
    rules = MancalaCore(3, True, True, False, False, False)
    both_ways = MancalaCore(3, False, False, False, False, True)
    with pytest.raises(ValueError, match="repeats positions"):
        SolverCore(both_ways, 1.0)
    with pytest.raises(ValueError, match="repeats positions"):
        SolverCore.build_endgame(both_ways, 4, zeroed(Endgame.size(3, 4)))
    with pytest.raises(ValueError, match="0 to 127 seeds"):
        SolverCore.build_endgame(rules, 128, zeroed(10))
    with pytest.raises(ValueError, match="not room for a 3-pit database of 4 seeds"):
        SolverCore.build_endgame(rules, 4, zeroed(Endgame.size(3, 4) - 1))
    with pytest.raises(TypeError):
        SolverCore.build_endgame(rules, 4, bytes(Endgame.size(3, 4)))  # read-only
    with pytest.raises(ValueError, match="not the values of a 3-pit database of 4 seeds"):
        SolverCore(rules, 1.0, b"\0" * 10, 4)
    with pytest.raises(ValueError, match="tuple of 9 integers"):
        SolverCore(rules, 1.0).test((1, 2, 3), 0)
    crowded = (9000, 0, 0, 0, 1, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="too many for the native solver"):
        SolverCore(rules, 1.0).test(crowded, 0)


class Interrupted(Exception):
    """What the test's SIGINT handler raises."""


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_a_long_probe(threads: int) -> None:
    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise Interrupted

    game = make_game("kalah", {"pits": 6, "seeds": 5}, backend="native")
    solver = Solver(game, hash_mb=16, threads=threads)
    previous = signal.signal(signal.SIGINT, interrupt)
    timer = threading.Timer(0.3, signal.raise_signal, (signal.SIGINT,))
    timer.start()
    try:
        with pytest.raises(Interrupted):
            solver.solve()  # minutes of work: the signal ends it within a poll
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    position = game.parse_position("kalah(6,5) S 0,0,0,0,1,2/1,0,0,0,0,0 27,29")
    reference = make_game("kalah", {"pits": 6, "seeds": 5}, backend="python")
    assert solver.solve(position).value == Solver(reference).solve(position).value
