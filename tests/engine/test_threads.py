"""The parallel native search (`threads`, ABDADA): forced values agree with one thread and
with the solver, every move is legal under many short searches, `stop` still ends it, the exact
mode stays node for node the Python search's, and everything else says it runs one thread.

Timing is never asserted (the machine is shared): only values, legality and termination. The
module skips when the extension is not built, but for the Python backend's own check.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import threading
import time
from typing import Any

import pytest

from tests.engine.test_native_search import summary
from tests.support.engine import needs_native
from ubao.engine.games import make_game
from ubao.engine.search import MAX_THREADS, SearchControl, Searcher, forced_result
from ubao.engine.solve import Solver
from ubao.engine.tools import bench, entrants
from ubao.engine.tools.cli import main


def test_the_python_search_runs_one_thread_and_says_why() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2}, backend="python")
    searcher = Searcher(game, threads=4)
    assert searcher.threads == 1
    assert searcher.threads_note is not None and "Python search" in searcher.threads_note
    result = searcher.search(game.start(), 4)
    assert result.stats.threads == 1 and result.move in game.legal_moves(game.start())
    assert Searcher(game).threads_note is None
    for wrong in (0, MAX_THREADS + 1):
        with pytest.raises(ValueError, match="threads"):
            Searcher(game, threads=wrong)


@needs_native
def test_the_exact_mode_stays_on_one_thread_node_for_node() -> None:
    reference = make_game("kalah", {}, backend="python")
    native = make_game("kalah", {}, backend="native")
    searcher = Searcher(native, exact=True, threads=2)
    assert searcher.threads == 1
    assert searcher.threads_note is not None and "exact mode" in searcher.threads_note
    python = Searcher(reference, exact=True)
    assert summary(searcher.search(native.start(), 7)) == summary(
        python.search(reference.start(), 7)
    )


def endgame_positions(count: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Kalah(6,4) positions of random games with at most 20 seeds left on the board."""
    game = make_game("kalah", {}, backend="native")
    found: list[tuple[int, ...]] = []
    for _ in range(100 * count):  # bounded: a few games suffice
        position = game.start()
        while (moves := game.legal_moves(position)) and sum(position[:6] + position[7:13]) > 20:
            position = game.play(position, rng.choice(moves))
        if moves:
            found.append(position)
        if len(found) == count:
            break
    return found


@needs_native
def test_forced_values_agree_with_one_thread_and_the_solver() -> None:
    """Deep enough to reach every end, threads change nothing of a position's value."""
    game = make_game("kalah", {}, backend="native")
    solver = Solver(game)
    for position in endgame_positions(6, random.Random(15)):
        exact = solver.solve(position).value * (1 if game.to_move(position) == 0 else -1)
        one = Searcher(game).search(position, 40)
        assert one.margin == (exact or None), position
        for threads in (2, 3):
            many = Searcher(game, threads=threads).search(position, 40)
            assert many.stats.threads == threads
            assert many.margin == one.margin, (position, threads)
            assert many.score == one.score or forced_result(many.score) is not None
            assert many.move in game.legal_moves(position)


@needs_native
@pytest.mark.parametrize(("name", "options"), [("kalah", {}), ("othello", {}), ("bao", {})])
def test_many_short_searches_play_legal_moves(name: str, options: dict[str, Any]) -> None:
    """Tens of searches cut at random moments, a kept table shared by the threads."""
    game = make_game(name, options, backend="native")
    rng = random.Random(7)
    searcher = Searcher(game, threads=3, hash_mb=1)
    position = game.start()
    for _ in range(40):
        moves = game.legal_moves(position)
        if not moves:
            position = game.start()
            continue
        result = searcher.search(position, rng.choice((None, 6)), time_ms=rng.uniform(1, 15))
        assert result.move in moves
        assert result.stats.threads == 3
        position = game.play(position, rng.choice(moves))


@needs_native
def test_stop_from_another_thread_ends_a_threaded_search() -> None:
    game = make_game("othello", {}, backend="native")
    searcher = Searcher(game, threads=2)
    control = SearchControl()
    found: list[Any] = []
    worker = threading.Thread(
        target=lambda: found.append(searcher.search(game.start(), control=control))
    )
    worker.start()
    time.sleep(0.2)
    control.stop()
    worker.join(timeout=30)
    assert not worker.is_alive() and found
    assert found[0].stopped and found[0].move in game.legal_moves(game.start())


def run(*argv: str) -> tuple[str, str]:
    """`ubao-engine ARGV` in process: (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(list(argv))
    return out.getvalue(), err.getvalue()


def test_analyse_on_the_python_backend_says_it_runs_one_thread() -> None:
    out, err = run("analyse", "kalah", "--depth", "3", "--threads", "2", "--backend", "python")
    assert "1 thread)" in out
    assert err.startswith("threads: 1 of 2 asked: the Python search")
    with pytest.raises(SystemExit):
        run("analyse", "kalah", "--depth", "3", "--threads", "0")


SMALL_CELL = ("kalah", "--options", '{"pits": 4, "seeds": 3}', "--db", "0")
"""A cell `solve` answers in a blink: +8."""


def test_solve_on_the_python_backend_says_it_runs_one_thread() -> None:
    out, err = run("solve", *SMALL_CELL, "--threads", "2", "--backend", "python")
    assert out.startswith("value: +8") and "threads" not in out.splitlines()[-1]
    assert err.startswith("threads: 1 of 2 asked: the Python solver runs on one thread")
    with pytest.raises(SystemExit):
        run("solve", *SMALL_CELL, "--threads", "0")


@needs_native
def test_solve_takes_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UBAO_BACKEND", "native")
    out, err = run("solve", *SMALL_CELL, "--threads", "2")
    assert out.startswith("value: +8") and out.splitlines()[-1].endswith(", 2 threads")
    assert not err
    data = json.loads(run("solve", *SMALL_CELL, "--threads", "2", "--json")[0])
    assert (data["value"], data["threads"]) == (8, 2)


@needs_native
def test_analyse_bench_and_match_take_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UBAO_BACKEND", "native")  # CI runs the suite again on the Python one
    out, err = run("analyse", "kalah", "--depth", "8", "--threads", "2", "--json")
    assert json.loads(out)["stats"]["threads"] == 2 and not err
    out, _ = run(
        "bench", "--speed", "--threads", "2", "--games", "kalah", "--seconds", "0.05", "--json"
    )
    (row,) = json.loads(out)
    assert row["game"] == "kalah" and row["threads"] == 2 and row["speedup"] > 0
    assert len(row["depths"]) == len(bench.SPEED_PLIES) and row["many_nps"] > 0
    assert "speedup" in bench.threads_table(bench.bench_threads(["othello"], 2, 0.02))
    spec = entrants.parse_spec("depth=3,threads=2", threads=3)
    assert spec is not None and spec.threads == 2 and spec.describe().endswith(":t2")
    out, _ = run(
        "match",
        "kalah",
        "--engine1",
        "depth=2",
        "--engine2",
        "depth=3",
        "--games",
        "2",
        "--threads",
        "2",
        "--json",
    )
    assert json.loads(out)["engine2"] == "negamax:default:d3:t2"
