"""The native search against the Python search, its oracle: value, best move, principal
variation and every node count identical, in both modes, at fixed depths, for every mancala
option set and every Othello size, and with every algorithm and every evaluation of each game;
the dispatch that picks it; time limits and `stop` from another thread.

The whole module skips when the extension is not built (the Python search then runs
everywhere, as the rest of the suite checks).
"""

from __future__ import annotations

import random
import signal
import threading
import time
from types import FrameType
from typing import Any

import pytest

from tests.support.engine import needs_native
from tests.support.native import MANCALA_OPTION_SETS, OTHELLO_SIZES, pair, random_mancala_position
from ubao.engine.backend import NATIVE_BUILT, NativeRules
from ubao.engine.game import MAX_COUNT, PositionError
from ubao.engine.games import make_game
from ubao.engine.perft import perft
from ubao.engine.search import ALGORITHMS, SearchControl, Searcher, SearchResult, Tracer
from ubao.engine.searchable import Searchable
from ubao.engine.tools import bench

if not NATIVE_BUILT:
    pytest.skip("the native core is not built", allow_module_level=True)


def summary(result: SearchResult[Any]) -> tuple[Any, ...]:
    """Everything a search returns but its times."""
    stats = result.stats
    return (
        result.move,
        result.score,
        result.pv,
        result.stopped,
        stats.generated,
        stats.expanded,
        stats.evaluated,
        stats.cutoffs,
        stats.table_hits,
        stats.depth,
        stats.table_entries,
    )


def along_a_game(
    game: Searchable[Any, Any], rng: random.Random, count: int, limit: int = 1000
) -> list[Any]:
    """The start and `count - 1` positions of one random game (at most `limit` plies long),
    spread from start to end."""
    line = [game.start()]
    while len(line) <= limit and (moves := game.legal_moves(line[-1])):
        line.append(game.play(line[-1], rng.choice(moves)))
    return [line[0], *sorted(rng.sample(line[1:], min(count - 1, len(line) - 1)), key=line.index)]


def assert_searches_alike(
    reference: Searchable[Any, Any],
    native: Searchable[Any, Any],
    positions: list[Any],
    rng: random.Random,
    deepest: int = 6,
    evaluation: str | None = None,
    algorithm: str = "negamax",
    least: int = 1,
) -> None:
    """Kept searchers of both backends, each mode, search every position alike, each to a
    depth of `least` to `deepest`, with `algorithm` and `evaluation` (the game's default when
    None)."""
    for exact in (True, False):
        python = Searcher(reference, algorithm, evaluation, exact=exact)
        core = Searcher(native, algorithm, evaluation, exact=exact)
        assert python.native is None and core.native is not None
        for position in positions:
            depth = rng.randint(least, deepest)
            expected = summary(python.search(position, depth))
            assert summary(core.search(position, depth)) == expected, (position, depth, exact)


def algorithms_and_evaluations(name: str) -> list[tuple[str, str]]:
    """Every (algorithm, evaluation) of game `name` but negamax with the default evaluation,
    which every other test searches with."""
    evaluations = list(make_game(name, backend="python").evaluations)
    pairs = [(algorithm, evaluation) for algorithm in ALGORITHMS for evaluation in evaluations]
    return [pair for pair in pairs if pair != ("negamax", evaluations[0])]


DEEPEST = {"minimax": 4, "alphabeta": 5, "negamax": 5}
"""The deepest search of the evaluation tests per algorithm: the Python minimax visits every
node."""


@pytest.mark.parametrize(("name", "options"), MANCALA_OPTION_SETS)
def test_every_option_set_searches_as_python(name: str, options: dict[str, Any]) -> None:
    reference, native = pair(name, options)
    rng = random.Random(f"search{name}{sorted(options.items())}")
    positions = along_a_game(reference, rng, 6)
    while len(positions) < 10:  # and free positions: laps, empty rows, either mover
        candidate = random_mancala_position(reference, rng)
        if reference.legal_moves(candidate):
            positions.append(candidate)
    assert_searches_alike(reference, native, positions, rng)


EVALUATED_MANCALA = [MANCALA_OPTION_SETS[i] for i in (0, 11, 21, 38)]
"""Option sets every algorithm and evaluation are compared on: each variant, both end checks,
sizes from 2 to 12 pits."""


@pytest.mark.parametrize(("name", "options"), EVALUATED_MANCALA)
def test_mancala_searches_deep_enough_for_the_table_search_as_python(
    name: str, options: dict[str, Any]
) -> None:
    """Below the root, the mancala family's table serves only nodes 8 plies or more above the
    horizon (`table_depth`): these searches go deeper, so that both backends probe, store and
    order by the table's moves alike."""
    reference, native = pair(name, options)
    assert reference.search_hints.table_depth == native.search_hints.table_depth == 8
    rng = random.Random(f"table{name}{sorted(options.items())}")
    assert_searches_alike(reference, native, along_a_game(reference, rng, 3), rng, 10, least=9)


@pytest.mark.parametrize(
    ("name", "options", "algorithm", "evaluation"),
    [
        (name, options, algorithm, evaluation)
        for name, options in EVALUATED_MANCALA
        for algorithm, evaluation in algorithms_and_evaluations(name)
    ],
)
def test_every_mancala_algorithm_and_evaluation_searches_as_python(
    name: str, options: dict[str, Any], algorithm: str, evaluation: str
) -> None:
    reference, native = pair(name, options)
    rng = random.Random(f"search{name}{algorithm}{evaluation}{sorted(options.items())}")
    positions = along_a_game(reference, rng, 6)
    while len(positions) < 8:
        candidate = random_mancala_position(reference, rng)
        if reference.legal_moves(candidate):
            positions.append(candidate)
    assert_searches_alike(
        reference, native, positions, rng, DEEPEST[algorithm], evaluation, algorithm
    )


@pytest.mark.parametrize(
    ("size", "algorithm", "evaluation"),
    [
        (size, algorithm, evaluation)
        for size in (6, 8, 10)
        for algorithm, evaluation in algorithms_and_evaluations("othello")
        if evaluation in make_game("othello", {"size": size}, backend="python").evaluations
    ],
)
def test_every_othello_algorithm_and_evaluation_searches_as_python(
    size: int, algorithm: str, evaluation: str
) -> None:
    """Both board widths; along random games, so the last empties' disc count is met too."""
    reference, native = pair("othello", {"size": size})
    rng = random.Random(f"search othello {size} {algorithm} {evaluation}")
    positions = along_a_game(reference, rng, 6) + along_a_game(reference, rng, 3)
    deepest = DEEPEST[algorithm] - (size > 8 and algorithm == "minimax")
    assert_searches_alike(reference, native, positions, rng, deepest, evaluation, algorithm)


@pytest.mark.parametrize("size", OTHELLO_SIZES)
def test_every_othello_size_searches_as_python(size: int) -> None:
    """Along random games: openings, passes, the disc count of the last empties, the end."""
    reference, native = pair("othello", {"size": size})
    rng = random.Random(f"search othello {size}")
    positions = along_a_game(reference, rng, 8) + along_a_game(reference, rng, 4)
    assert_searches_alike(reference, native, positions, rng, 6 if size <= 10 else 3)


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize(
    ("name", "options", "depths"),
    [("kalah", {"pits": 6, "seeds": 4}, (9, 11)), ("othello", {}, (4, 6))],
)
def test_deep_searches_with_a_kept_small_table(
    exact: bool, name: str, options: dict[str, Any], depths: tuple[int, int]
) -> None:
    """A game played by kept searchers whose table fills, grows to an odd size and replaces
    entries of earlier searches: both backends search every move alike."""
    reference, native = pair(name, options)
    python = Searcher(reference, exact=exact, hash_mb=0.1)
    core = Searcher(native, exact=exact, hash_mb=0.1)
    position = reference.start()
    for ply in range(40):
        depth = depths[0] if ply % 3 else depths[1]
        expected = python.search(position, depth)
        assert summary(core.search(position, depth)) == summary(expected), ply
        if expected.move is None:
            break
        position = reference.play(position, expected.move)
    assert python.table.capacity == 3276 and core.search(position, 3).stats.table_entries > 0


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize(
    ("algorithm", "name", "depths"),
    [
        ("alphabeta", "kalah", (7, 9)),
        ("alphabeta", "othello", (3, 5)),
        ("minimax", "kalah", (4, 5)),
    ],
)
def test_a_game_of_kept_alphabeta_and_minimax_searchers(
    exact: bool, algorithm: str, name: str, depths: tuple[int, int]
) -> None:
    """As above for the other algorithms: alphabeta's table (player 0's values) fills and
    replaces; minimax keeps none, and searches only the depth asked."""
    reference, native = pair(name, {})
    python = Searcher(reference, algorithm, exact=exact, hash_mb=0.05)
    core = Searcher(native, algorithm, exact=exact, hash_mb=0.05)
    position = reference.start()
    for ply in range(30):
        depth = depths[0] if ply % 3 else depths[1]
        expected = python.search(position, depth)
        assert summary(core.search(position, depth)) == summary(expected), ply
        if expected.move is None:
            break
        position = reference.play(position, expected.move)
    entries = core.search(position, 3).stats.table_entries
    assert entries == 0 if algorithm == "minimax" else entries > 0


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize(
    ("name", "depth"), [("kalah", 10), ("egyptian", 9), ("othello", 5), ("bao", 5)]
)
def test_root_moves_search_alike_with_kept_tables(algorithm: str, name: str, depth: int) -> None:
    """Root moves restricted (`go ... searchmoves`) between whole searches of kept searchers:
    the native core restricts its own root and shares its table with the whole searches, as
    the Python search does (it ran the Python search on a table of its own before); the
    restricted root's value is not the position's, so neither stores it. Every algorithm, both
    modes."""
    reference, native = pair(name, {})
    rng = random.Random(11)
    for exact in (True, False):
        python = Searcher(reference, algorithm, exact=exact)
        core = Searcher(native, algorithm, exact=exact)
        position = reference.start()
        for ply in range(8):
            moves = reference.legal_moves(position)
            if not moves:
                break
            some = rng.sample(moves, max(1, len(moves) // 2))
            deep = depth - (algorithm == "minimax") * depth // 3
            for root_moves in (None, some, None):
                expected = python.search(position, deep, root_moves=root_moves)
                got = core.search(position, deep, root_moves=root_moves)
                assert summary(got) == summary(expected), (ply, root_moves, exact)
                assert root_moves is None or expected.move in root_moves
            position = reference.play(position, rng.choice(moves))


def test_root_moves_hold_on_threads() -> None:
    """Every thread of a parallel search restricts its root: the move, and every line's first
    move, among the root moves asked."""
    game = make_game("kalah", {}, backend="native")
    position = game.start()
    for root_moves in ([1], [2, 6], [4, 5, 6]):
        lines: list[SearchResult[Any]] = []
        result = Searcher(game, threads=2).search(
            position, 14, root_moves=root_moves, on_iteration=lines.append
        )
        assert result.stats.threads == 2
        assert {line.pv[0] for line in lines} <= set(root_moves)


def test_no_table_and_finished_games_match() -> None:
    reference, native = pair("ethiopian", {})
    for exact in (True, False):
        python = Searcher(reference, exact=exact, hash_mb=0)
        core = Searcher(native, exact=exact, hash_mb=0)
        assert summary(core.search(reference.start(), 6)) == summary(
            python.search(reference.start(), 6)
        )
    with pytest.raises(ValueError, match="table's memory"):
        Searcher(native, hash_mb=2.0**31)
    over = (0, 0, 0, 0, 0, 0, 20, 1, 0, 0, 0, 0, 0, 27, 0)
    assert reference.is_over(over)
    assert summary(Searcher(native).search(over, 4)) == summary(Searcher(reference).search(over, 4))


@pytest.mark.parametrize(
    ("name", "position", "depth"),
    [
        ("kalah", None, 10),
        ("othello", "--OOO-----OOOO---OOXXO----XXXO-----XXO------X------O-X---------- X", 6),
    ],
)
def test_a_search_stopped_anywhere_by_its_node_limit_ends_as_python(
    name: str, position: str | None, depth: int
) -> None:
    # Among the limits, some stop a re-search at the root: the move that failed high is played.
    reference, native = pair(name, {})
    start = reference.start() if position is None else reference.parse_position(position)
    whole = Searcher(reference).search(start, depth).stats.generated
    switched = 0
    for nodes in range(50, whole, whole // 60):
        python = Searcher(reference).search(start, depth, nodes=nodes)
        core = Searcher(native).search(start, depth, nodes=nodes)
        assert summary(core) == summary(python), nodes
        # a move that beat the last completed iteration's: its line is the move alone
        switched += python.stats.depth > 0 and python.pv == (python.move,)
    assert switched


def test_the_native_search_runs_where_the_core_has_it() -> None:
    """Every algorithm with every evaluation on a native game; the Python search elsewhere.
    Threads run the strength mode's negamax only."""
    for name in ("kalah", "egyptian", "ethiopian", "othello", "bao"):
        game = make_game(name, backend="native")
        for algorithm in ALGORITHMS:
            for evaluation in game.evaluations:
                assert Searcher(game, algorithm, evaluation, exact=True).native is not None
                assert Searcher(game, algorithm, evaluation).native is not None
    assert Searcher(make_game("kalah", backend="python"), "minimax").native is None
    assert Searcher(make_game("othello", {"size": 12}, backend="native")).native is not None
    kalah = make_game("kalah", backend="native")
    assert isinstance(kalah, NativeRules)
    with pytest.raises(ValueError, match="no evaluation 'discs'"):
        kalah.search_core("negamax", "discs", 1, False)
    wide = make_game("othello", {"size": 10}, backend="native")
    assert isinstance(wide, NativeRules)
    with pytest.raises(ValueError, match="patterns evaluation needs an 8x8 board"):
        wide.search_core("negamax", "patterns", 1, False)
    with pytest.raises(ValueError, match="no algorithm 'mcts'"):
        kalah.search_core("mcts", "store_diff", 1, False)
    alone = Searcher(kalah, "alphabeta", threads=2)
    assert alone.threads == 1 and "alphabeta searches on one thread" in str(alone.threads_note)


def test_a_trace_runs_the_python_search() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2}, backend="native")
    lines: list[str] = []
    searcher = Searcher(game)
    traced = searcher.search(game.start(), 3, tracer=Tracer(lines.append))
    assert lines and traced.score == searcher.search(game.start(), 3).score


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_time_limit_and_iterations(algorithm: str) -> None:
    game = make_game("kalah", backend="native")
    seen: list[int] = []
    result = Searcher(game, algorithm).search(
        game.start(), time_ms=30, on_iteration=lambda done: seen.append(done.stats.depth)
    )
    assert result.stopped and result.move in game.legal_moves(game.start())
    step = 1 if algorithm == "minimax" else game.search_hints.deepening_step  # Kalah: 2, 5, 8 ...
    assert seen == list(range(2 if step == 3 else 1, seen[-1] + 1, step))
    assert result.stats.depth == seen[-1]


def test_stop_from_another_thread_while_the_gil_is_free() -> None:
    """A search without limits runs (the main thread keeps running: no GIL held) until `stop`;
    stopped before it starts, it returns at once with a legal move."""
    game = make_game("kalah", {"pits": 6, "seeds": 6}, backend="native")
    searcher = Searcher(game)
    control = SearchControl()
    found: list[SearchResult[int]] = []
    worker = threading.Thread(
        target=lambda: found.append(searcher.search(game.start(), control=control))
    )
    worker.start()
    ticks = 0
    while ticks < 5:
        ticks += 1
        time.sleep(0.002)
    control.stop()
    worker.join()
    assert found[0].stopped and found[0].move in game.legal_moves(game.start())
    early = SearchControl()
    early.stop()
    result = searcher.search(game.start(), 20, control=early)
    assert result.stopped and result.stats.depth == 0 and result.move is not None


class Interrupted(Exception):
    """What the test's SIGINT handler raises."""


def test_ctrl_c_stops_a_native_iteration_within_a_poll() -> None:
    """Ctrl-C during an iteration as long as a second: the signal's handler runs within a
    poll, long before the iteration would end, its exception ends the search, and the
    searcher stays usable."""
    game = make_game("kalah", {"pits": 6, "seeds": 6}, backend="native")
    searcher = Searcher(game)
    ended = [time.monotonic()]  # when each iteration ended
    signalled: list[float] = []

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise Interrupted

    def send() -> None:
        signalled.append(time.monotonic())
        signal.raise_signal(signal.SIGINT)

    def iterated(done: SearchResult[int]) -> None:
        ended.append(time.monotonic())
        if ended[-1] - ended[-2] >= 1.0 and not signalled:  # the next one lasts as long
            threading.Timer(0.05, send).start()

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        with pytest.raises(Interrupted):
            searcher.search(game.start(), 60, on_iteration=iterated)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - signalled[0] < (ended[-1] - ended[-2]) / 2
    after = searcher.search(game.start(), 4)
    assert not after.stopped and after.move in game.legal_moves(game.start())


def test_ctrl_c_stops_a_native_perft_between_two_chunks() -> None:
    """Othello perft 13 counts for minutes in C, without the GIL; counted chunk by chunk, it
    stops within milliseconds of the signal."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise Interrupted

    game = make_game("othello", {}, backend="native")
    previous = signal.signal(signal.SIGINT, interrupt)
    timer = threading.Timer(0.3, signal.raise_signal, (signal.SIGINT,))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(Interrupted):
            perft(game, game.start(), 13)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 10


def test_the_speed_bench_says_where_the_search_ran() -> None:
    rows = bench.bench_speed(["kalah", "bao"], seconds=0.02)
    assert [(row.game, row.backend, row.search) for row in rows] == [
        ("kalah", "python", "python"),
        ("kalah", "native", "native"),
        ("bao", "python", "python"),
        ("bao", "native", "native"),
    ]


@pytest.mark.timeout(120)
@needs_native
def test_a_search_of_a_position_beyond_the_native_bounds_is_a_position_error() -> None:
    """A position built by hand through the API, with more seeds than the core reads: the
    native search refuses it as the rules do, with a GameError, not a bare ValueError."""
    game = make_game("kalah", backend="native")
    position = list(game.start())
    position[5] = MAX_COUNT + 1
    with pytest.raises(PositionError, match="native core"):
        Searcher(game, "negamax").search(tuple(position), depth=3)
