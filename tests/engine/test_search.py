"""The search: three algorithms that agree, iterative deepening, the table, time control, trace."""

from __future__ import annotations

import threading
import time
from functools import cache
from typing import Any, ClassVar

import pytest

from tests.support.engine import BACKENDS, SMALL_OPTIONS, sample_positions
from ubao.engine.backend import NATIVE_BUILT
from ubao.engine.game import IllegalMoveError, NotationError, Outcome, Step
from ubao.engine.games import GAMES, make_game
from ubao.engine.search import (
    ALGORITHMS,
    MATE,
    MAX_NODES,
    PLY_SPAN,
    SearchControl,
    Searcher,
    SearchResult,
    Tracer,
    forced_result,
    format_score,
    mate_distance,
    search,
)
from ubao.engine.searchable import Searchable

POSITIONS_PER_GAME = 200


class Pebbles(Searchable[tuple[int, int], int]):
    """Take 1, 3 or 4 pebbles; whoever takes the last one wins; taking 3 earns another turn.

    Small enough to solve by brute force in the test, and its extra turns break any search
    that decides max or min by the parity of the depth.
    """

    name: ClassVar[str] = "pebbles"

    def __init__(self) -> None:
        self.options = {}
        self.evaluations = {"zero": lambda position: 0.0, "pile": lambda position: position[0]}

    def start(self) -> tuple[int, int]:
        return (12, 0)

    def to_move(self, position: tuple[int, int]) -> int:
        return position[1]

    def legal_moves(self, position: tuple[int, int]) -> list[int]:
        return [take for take in (1, 3, 4) if take <= position[0]]

    def play(self, position: tuple[int, int], move: int) -> tuple[int, int]:
        pile, player = position
        if move not in self.legal_moves(position):
            raise IllegalMoveError(f"cannot take {move} of {pile}")
        left = pile - move
        return (left, player if move == 3 and left else 1 - player)

    def outcome(self, position: tuple[int, int]) -> Outcome | None:
        if position[0]:
            return None
        winner = 1 - position[1]  # the player who took the last pebble
        return Outcome(winner, (1, 0) if winner == 0 else (0, 1))

    def format_move(self, position: tuple[int, int], move: int) -> str:
        return str(move)

    def parse_move(self, position: tuple[int, int], text: str) -> int:
        if not text.isdigit():
            raise NotationError(text)
        return int(text)

    def format_position(self, position: tuple[int, int]) -> str:
        return f"{position[0]} {position[1]}"

    def parse_position(self, text: str) -> tuple[int, int]:
        pile, player = text.split()
        return (int(pile), int(player))

    def sowing_path(self, position: tuple[int, int], move: int) -> list[Step]:
        return []


@cache
def pebbles_truth(pile: int, player: int) -> tuple[bool, int]:
    """(the mover wins, plies to the end) with fast wins and slow losses, by brute force."""
    game = Pebbles()
    position = (pile, player)
    if not pile:
        return False, 0
    lines = []
    for move in game.legal_moves(position):
        child = game.play(position, move)
        won, plies = pebbles_truth(*child)
        lines.append((won if child[1] == player else not won, plies + 1))
    wins = [plies for won, plies in lines if won]
    return (True, min(wins)) if wins else (False, max(plies for _, plies in lines))


# -- the three algorithms agree ----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GAMES))
def test_minimax_alphabeta_and_negamax_return_the_same_value_on_random_positions(
    name: str,
) -> None:
    game = make_game(name, SMALL_OPTIONS.get(name, {}))
    for depth in (1, 2, 3):
        for position in sample_positions(game, POSITIONS_PER_GAME, seed=depth):
            found = {
                algorithm: search(game, position, depth, algorithm=algorithm, exact=True)
                for algorithm in ALGORITHMS
            }
            scores = {result.score for result in found.values()}
            assert len(scores) == 1, (game.format_position(position), found)
            # Ties go to the move the game lists first, so the moves agree too.
            assert len({result.move for result in found.values()}) == 1


@pytest.mark.parametrize("name", sorted(GAMES))
def test_alpha_beta_expands_fewer_nodes_than_minimax_for_the_same_value(name: str) -> None:
    game = make_game(name, SMALL_OPTIONS.get(name, {}))
    expanded = dict.fromkeys(ALGORITHMS, 0)
    for position in sample_positions(game, 25, seed=4):
        scores = set()
        for algorithm in ALGORITHMS:
            result = search(game, position, 5, algorithm=algorithm, exact=True)
            scores.add(result.score)
            expanded[algorithm] += result.stats.expanded
        assert len(scores) == 1, game.format_position(position)
    # Even counting the shallower iterations of iterative deepening.
    assert expanded["alphabeta"] < expanded["minimax"]
    assert expanded["negamax"] < expanded["minimax"]


def test_the_algorithms_agree_deeper_on_kalah_where_alpha_beta_prunes_most() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    expanded = dict.fromkeys(ALGORITHMS, 0)
    for position in sample_positions(game, 40, seed=2):
        scores = set()
        for algorithm in ALGORITHMS:
            result = search(game, position, 5, algorithm=algorithm, exact=True)
            scores.add(result.score)
            expanded[algorithm] += result.stats.expanded
        assert len(scores) == 1
    assert expanded["alphabeta"] < 0.8 * expanded["minimax"]
    assert expanded["negamax"] < 0.8 * expanded["minimax"]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_extra_turns_let_the_side_to_move_decide_so_every_forced_result_is_exact(
    algorithm: str,
) -> None:
    game = Pebbles()
    for pile in range(1, 13):
        for player in (0, 1):
            result = search(game, (pile, player), 14, algorithm=algorithm, evaluation="zero")
            won, plies = pebbles_truth(pile, player)
            assert result.mate == (plies if won else -plies), (pile, player)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_quickest_win_is_chosen_over_a_slower_one(algorithm: str) -> None:
    # From 3 pebbles, taking all 3 wins at once; taking 1 wins too, two plies later.
    assert pebbles_truth(2, 1) == (False, 2)
    result = search(Pebbles(), (3, 0), 4, algorithm=algorithm, evaluation="zero")
    assert result.move == 3
    assert result.score == MATE + PLY_SPAN - 1  # a win by 1 (1-0), one ply away


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_lost_position_is_played_out_as_long_as_possible(algorithm: str) -> None:
    # From 8 every move loses: taking 4 loses two plies later, taking 1 holds out for four.
    won, plies = pebbles_truth(8, 0)
    assert (won, plies) == (False, 4)
    assert pebbles_truth(4, 1) == (True, 1)
    result = search(Pebbles(), (8, 0), 6, algorithm=algorithm, evaluation="zero")
    assert result.score == plies - MATE - PLY_SPAN
    assert result.mate == -plies


def test_finished_games_outrank_every_evaluation() -> None:
    game = Pebbles()
    result = search(game, (5, 0), 1, evaluation="pile")
    # Taking 1 leaves a pile of 4 worth +4 to the evaluation, but no move wins at once.
    assert mate_distance(result.score) is None
    win = search(game, (3, 0), 1, evaluation="pile")
    assert win.move == 3 and win.score > 1e6


# -- iterative deepening, the table, ordering ---------------------------------------------------


@pytest.mark.parametrize("algorithm", ["alphabeta", "negamax"])
def test_iterative_deepening_returns_the_fixed_depth_minimax_value(algorithm: str) -> None:
    game = make_game("kalah", {"pits": 5, "seeds": 3})
    for position in sample_positions(game, 15, seed=3):
        plain = search(game, position, 6, algorithm="minimax")
        deepened = Searcher(game, algorithm, exact=True).search(position, 6)
        assert deepened.score == plain.score
        if deepened.mate is None:
            assert deepened.stats.depth == 6
        # The chosen move really is worth the score at depth 6.
        child = game.play(position, deepened.move)
        value = search(game, child, 5, algorithm="minimax").score
        if game.to_move(child) != game.to_move(position):
            value = -value
        if mate_distance(value) is not None:  # one ply further from the root
            value += -1 if value > 0 else 1
        assert value == deepened.score


def test_the_principal_variation_is_a_legal_line_starting_with_the_move() -> None:
    game = make_game("kalah", {})
    for position in sample_positions(game, 10, seed=4):
        result = search(game, position, 6)
        assert result.pv[0] == result.move
        assert 1 <= len(result.pv) <= 6
        for move in result.pv:
            position = game.play(position, move)


def test_a_searcher_reuses_its_table_and_keeps_the_value() -> None:
    game = make_game("kalah", {})
    position = sample_positions(game, 1, seed=5)[0]
    searcher = Searcher(game)
    first = searcher.search(position, 10)  # deeper than Kalah's `table_depth`, 8
    again = searcher.search(position, 10)
    assert again.score == first.score
    assert again.stats.table_hits > 0
    assert again.stats.expanded < first.stats.expanded
    searcher.clear()
    assert not searcher.table


@pytest.mark.parametrize("exact", [False, True])
def test_a_search_again_keeps_its_whole_line(exact: bool) -> None:
    """The second search finds the first one's exact entries on its line, below the root; it
    searches those nodes anyway, or the line would end where the table's moves end, 8 plies
    above the horizon (Kalah's `table_depth`): 5 moves of 12, before."""
    game = make_game("kalah", {})
    searcher = Searcher(game, exact=exact)
    first = searcher.search(game.start(), 12)
    again = searcher.search(game.start(), 12)
    assert len(first.pv) == len(again.pv) == 12
    assert again.pv == first.pv and again.score == first.score


def test_a_table_of_size_zero_gives_the_same_values() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 4})
    for position in sample_positions(game, 10, seed=6):
        with_table = search(game, position, 6)
        without = search(game, position, 6, hash_mb=0)
        assert with_table.score == without.score
        assert without.stats.table_entries == 0


def test_move_ordering_and_the_table_prune_more_than_alpha_beta_alone() -> None:
    game = make_game("kalah", {})
    position = game.start()
    deep = search(game, position, 6)
    assert deep.stats.cutoffs > 0
    plain = search(game, position, 6, algorithm="minimax")
    assert deep.score == plain.score
    assert deep.stats.generated * 10 < plain.stats.generated
    # Kalah's table serves the nodes `table_depth` (8) or more plies above the horizon.
    assert search(game, position, 12).stats.table_hits > 0


# -- statistics ------------------------------------------------------------------------------


def test_statistics_count_what_the_search_did() -> None:
    game = make_game("kalah", {})
    result = search(game, game.start(), 5)
    stats = result.stats
    assert stats.generated >= stats.expanded > 0
    assert stats.evaluated > 0
    assert stats.depth == 5
    assert stats.seconds > 0 and stats.nps > 0
    assert stats.table_entries > 0
    assert stats.peak_memory is None
    assert set(stats.to_dict()) >= {"generated", "expanded", "cutoffs", "table_hits", "nps"}


def test_peak_memory_is_measured_only_when_asked() -> None:
    game = make_game("kalah", {}, "python")
    result = search(game, game.start(), 6, measure_memory=True)
    assert result.stats.peak_memory is not None and result.stats.peak_memory > 0
    if NATIVE_BUILT:  # tracemalloc does not see the native search's C memory: not measured
        native = make_game("kalah", {}, "native")
        assert search(native, native.start(), 6, measure_memory=True).stats.peak_memory is None


def test_minimax_at_depth_d_generates_every_position_perft_counts() -> None:
    from ubao.engine.perft import perft

    game = make_game("kalah", {})
    # Minimax expands every position above the horizon: it generates perft(1..d) together
    # (minus lines that end the game early, which the start of Kalah has none of).
    result = search(game, game.start(), 3, algorithm="minimax")
    assert result.stats.generated == sum(perft(game, game.start(), d) for d in (1, 2, 3))


# -- time control and stop ----------------------------------------------------------------------


def test_a_time_limit_stops_the_search_with_a_legal_move() -> None:
    game = make_game("kalah", {"pits": 6, "seeds": 6})
    start = time.perf_counter()
    result = search(game, game.start(), time_ms=150)
    elapsed = time.perf_counter() - start
    assert result.stopped
    assert result.move in game.legal_moves(game.start())
    assert elapsed < 3.0  # generous: the suite runs on a slow shared machine
    assert result.stats.depth >= 1


def test_stop_from_another_thread_ends_an_unlimited_search() -> None:
    game = make_game("kalah", {"pits": 6, "seeds": 6})
    searcher = Searcher(game)
    control = SearchControl()
    results = []
    thread = threading.Thread(
        target=lambda: results.append(searcher.search(game.start(), control=control))
    )
    thread.start()
    time.sleep(0.1)
    control.stop()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert results[0].stopped
    assert results[0].move in game.legal_moves(game.start())


def test_a_search_stopped_before_it_starts_still_returns_a_legal_move() -> None:
    game = make_game("kalah", {})
    control = SearchControl()
    control.stop()
    result = Searcher(game).search(game.start(), 10, control=control)
    assert result.stopped
    assert result.move in game.legal_moves(game.start())


def test_a_root_move_that_fails_high_is_played_when_time_runs_out_in_its_re_search() -> None:
    # As Crafty plays: the null window proved the move better than the best so far, and the
    # search stopped before the full window said by how much.
    game = make_game("kalah", {}, "python")
    searcher = Searcher(game)
    failed: list[str] = []
    completed: list[SearchResult[int]] = []

    def write(line: str) -> None:
        root_child = line.startswith("  ") and not line.startswith("   ")
        if root_child and "null window failed high" in line and not failed:
            failed.append(line.split(":")[0].strip())
            searcher.stop()

    result = searcher.search(
        game.start(), 10, tracer=Tracer(write, 1, 10**6), on_iteration=completed.append
    )
    assert result.stopped and failed
    assert game.format_move(game.start(), result.move) == failed[0]
    assert result.move != completed[-1].move  # not the last iteration's move


def test_a_finished_game_has_no_move_and_scores_its_result() -> None:
    # Player 0 took the last pebble; player 1 is to move in a lost game.
    result = search(Pebbles(), (0, 1), 3, evaluation="zero")
    assert result.move is None and result.pv == ()
    assert result.score == -MATE - PLY_SPAN


# -- names and errors -------------------------------------------------------------------------


def test_evaluations_are_chosen_by_name_and_unknown_names_are_refused() -> None:
    game = make_game("kalah", {})
    assert Searcher(game).evaluation_name == next(iter(game.evaluations))
    for name in game.evaluations:
        assert Searcher(game, evaluation=name).evaluation_name == name
    with pytest.raises(ValueError, match="no evaluation 'nope'"):
        Searcher(game, evaluation="nope")
    with pytest.raises(ValueError, match="unknown algorithm"):
        Searcher(game, algorithm="mcts")
    with pytest.raises(ValueError, match="depth"):
        search(game, game.start(), 0)


def test_scores_read_as_numbers_or_forced_results() -> None:
    assert format_score(3) == "+3"
    assert format_score(-1.5) == "-1.50"
    assert format_score(MATE - 7) == "win in 7"
    assert format_score(MATE + 3 * PLY_SPAN - 7) == "win in 7 by 3"
    assert format_score(4 - MATE - 2 * PLY_SPAN) == "loss in 4 by 2"
    assert forced_result(4 - MATE - 2 * PLY_SPAN) == (-4, -2)
    assert forced_result(12.5) is None


# -- trace ----------------------------------------------------------------------------------


def test_the_trace_shows_windows_values_and_prunes_indented_by_depth() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2})
    lines: list[str] = []
    search(game, game.start(), 4, algorithm="alphabeta", tracer=Tracer(lines.append, 4, 10_000))
    text = "\n".join(lines)
    assert "alphabeta to depth 4" in text
    assert "window [-inf, +inf]" in text
    assert "cut-off:" in text and "pruned moves:" in text
    assert any(line.startswith("        ") for line in lines)  # ply 4 is indented 8 spaces


def test_the_negamax_trace_shows_negated_and_null_windows() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 3})
    lines: list[str] = []
    search(game, game.start(), 5, tracer=Tracer(lines.append, 5, 100_000))
    text = "\n".join(lines)
    assert "its own view" in text
    assert "null window at" in text


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_scoring_the_last_ply_in_its_parent_changes_nothing(algorithm: str) -> None:
    # A tracer over every ply makes each leaf a node call of its own, as before the shortcut.
    # (Traced minimax also runs the shallower iterations, so only its result is compared.)
    for name in sorted(GAMES):
        game = make_game(name, SMALL_OPTIONS.get(name, {}))
        for position in sample_positions(game, 15, seed=7):
            fast = search(game, position, 3, algorithm=algorithm)
            calls = search(
                game,
                position,
                3,
                algorithm=algorithm,
                tracer=Tracer(lambda line: None, max_ply=3, max_lines=0),
            )
            assert (fast.move, fast.score, fast.pv) == (calls.move, calls.score, calls.pv)
            if algorithm != "minimax":
                counts = ("generated", "expanded", "evaluated", "cutoffs", "table_hits")
                assert [getattr(fast.stats, c) for c in counts] == [
                    getattr(calls.stats, c) for c in counts
                ]


def test_the_trace_respects_its_depth_and_line_limits() -> None:
    game = make_game("kalah", {})
    lines: list[str] = []
    result = search(game, game.start(), 6, tracer=Tracer(lines.append, max_ply=2, max_lines=50))
    assert len(lines) == 50 + 1  # the budget, then a notice
    assert lines[-1] == "... trace stopped after 50 lines"
    assert not any(line.startswith("      ") for line in lines)  # nothing below ply 2
    assert result.score == search(game, game.start(), 6).score


ONE_REPLY = "kalah(6,4) S 0,0,0,0,0,20/4,4,4,4,4,4 0,0"
"""South's only move, 6, sows round the board: the game goes on for many plies."""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_single_reply_ends_only_a_timed_search(backend: str) -> None:
    game = make_game("kalah", {}, backend)
    position = game.parse_position(ONE_REPLY)
    assert game.legal_moves(position) == [6]
    searcher = Searcher(game)
    first = searcher.search(position, time_ms=60_000)
    assert first.move == 6 and not first.stopped and first.stats.depth == 2
    assert searcher.search(position, soft_time_ms=60_000).stats.depth == 2

    by_nodes = searcher.search(position, nodes=20_000)  # `go nodes 20000`
    assert by_nodes.move == 6 and by_nodes.stopped and by_nodes.stats.depth > 2

    def stop_at_depth_8(result: SearchResult[Any]) -> None:
        if result.stats.depth >= 8:
            searcher.stop()

    infinite = searcher.search(position, on_iteration=stop_at_depth_8)  # `go infinite`, `stop`
    assert infinite.move == 6 and infinite.stats.depth == 8


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("limits", "error", "message"),
    [
        ({"depth": 2.0}, TypeError, "the depth must be an int, not 2.0"),
        ({"depth": "3"}, TypeError, "the depth must be an int, not '3'"),
        ({"depth": True}, TypeError, "the depth must be an int, not True"),
        ({"depth": 0}, ValueError, "the depth must be from 1 to 200, not 0"),
        ({"depth": 201}, ValueError, "the depth must be from 1 to 200, not 201"),
        ({"nodes": 2.5}, TypeError, "the node limit must be an int, not 2.5"),
        ({"nodes": True}, TypeError, "the node limit must be an int, not True"),
        ({"nodes": 0}, ValueError, "the node limit must be from 1 to"),
        ({"nodes": MAX_NODES + 1}, ValueError, "the node limit must be from 1 to"),
        ({"depth": 3, "mate": 2.5}, TypeError, "the mate distance in plies must be an int"),
        ({"depth": 3, "mate": True}, TypeError, "the mate distance in plies must be an int"),
        ({"depth": 3, "mate": 0}, ValueError, "the mate distance in plies must be 1 or more"),
        ({"time_ms": float("nan")}, ValueError, "time_ms must be 0 ms or more, not nan"),
        ({"time_ms": -1}, ValueError, "time_ms must be 0 ms or more, not -1"),
        ({"time_ms": "500"}, TypeError, "time_ms must be a number of milliseconds"),
        ({"time_ms": True}, TypeError, "time_ms must be a number of milliseconds"),
        ({"depth": 3, "soft_time_ms": float("nan")}, ValueError, "soft_time_ms must be 0 ms"),
        ({"depth": 3, "soft_time_ms": -0.5}, ValueError, "soft_time_ms must be 0 ms or more"),
        ({"depth": 3, "soft_time_ms": "5"}, TypeError, "soft_time_ms must be a number of"),
        ({"time_ms": 10**400}, ValueError, "time_ms is more milliseconds than a float holds"),
    ],
)
def test_search_limits_of_a_wrong_type_or_out_of_range_are_refused_up_front(
    backend: str, limits: dict[str, Any], error: type[Exception], message: str
) -> None:
    game = make_game("kalah", {}, backend)
    searcher = Searcher(game)
    with pytest.raises(error, match=f"^{message}"):
        searcher.search(game.start(), **limits)
    assert searcher.search(game.start(), depth=2).stats.depth == 2  # nothing was left behind


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend_name", BACKENDS)
def test_minimax_with_a_depth_and_a_node_limit_deepens_to_a_real_result(
    backend_name: str,
) -> None:
    game = make_game("kalah", {}, backend_name)
    searcher = Searcher(game, "minimax")
    iterations: list[SearchResult[int]] = []
    result = searcher.search(game.start(), 40, nodes=20_000, on_iteration=iterations.append)
    assert result.stopped
    assert [it.stats.depth for it in iterations] == list(range(1, len(iterations) + 1))
    assert result.stats.depth == len(iterations) >= 3
    last = iterations[-1]
    if result.move == last.move:  # else a move that beat it in the aborted iteration
        assert (result.score, result.pv) == (last.score, last.pv)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend_name", BACKENDS)
def test_minimax_with_a_depth_and_a_time_limit_reports_completed_iterations(
    backend_name: str,
) -> None:
    game = make_game("kalah", {}, backend_name)
    depths: list[int] = []
    result = Searcher(game, "minimax").search(
        game.start(), 40, 500, on_iteration=lambda it: depths.append(it.stats.depth)
    )
    assert depths and depths[0] == 1 and result.stats.depth == depths[-1] >= 1
    soft: list[int] = []
    Searcher(game, "minimax").search(
        game.start(), 40, soft_time_ms=1, on_iteration=lambda it: soft.append(it.stats.depth)
    )
    assert soft[0] == 1  # a clock budget deepens too


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend_name", BACKENDS)
def test_minimax_with_a_depth_alone_still_runs_one_search(backend_name: str) -> None:
    game = make_game("kalah", {}, backend_name)
    depths: list[int] = []
    Searcher(game, "minimax").search(
        game.start(), 4, on_iteration=lambda it: depths.append(it.stats.depth)
    )
    assert depths == [4]
