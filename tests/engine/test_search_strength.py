"""The search as a player: the real objective, the strength mode, the game's order, the table."""

from __future__ import annotations

import random
from typing import Any, ClassVar

import pytest

from tests.support.engine import BACKENDS, SMALL_OPTIONS, sample_positions
from ubao.engine.game import Outcome, Step
from ubao.engine.games import GAMES, make_game
from ubao.engine.othello.game import PASS, Othello
from ubao.engine.search import (
    ALGORITHMS,
    ENTRY_BYTES,
    EXACT,
    FIRST_SLOTS,
    LOWER,
    MATE,
    PLY_SPAN,
    Searcher,
    SearchResult,
    Tracer,
    TranspositionTable,
    format_score,
    search,
)
from ubao.engine.searchable import Searchable
from ubao.engine.solve import Solver


def late_kalah_positions(count: int, seed: int, seeds_left: int) -> list[Any]:
    """Kalah (6,4) positions with at most `seeds_left` seeds in the pits and two moves or more."""
    game = make_game("kalah", {})
    return [
        position
        for position in sample_positions(game, 4000, seed)
        if sum(position[:6]) + sum(position[7:13]) <= seeds_left
        and len(game.legal_moves(position)) > 1
    ][:count]


# -- the objective: the winner, then the margin, then the plies ---------------------------------


def solved_kalah(seeds_left: int) -> tuple[Searchable[Any, Any], Solver[Any, Any], list[Any]]:
    """Kalah (6,4), its solver, and 12 late positions with their exact margins (the mover's)."""
    game = make_game("kalah", {})
    positions = late_kalah_positions(12, seed=3, seeds_left=seeds_left)
    assert len(positions) == 12
    return game, Solver(game), positions


def margin_for_mover(solver: Solver[Any, Any], game: Searchable[Any, Any], position: Any) -> int:
    """The solver's final margin of `position` from its mover's view."""
    return solver.solve(position).value * (1 if game.to_move(position) == 0 else -1)


@pytest.mark.parametrize("exact", [False, True])
def test_a_search_to_the_end_finds_the_exact_margin_and_a_move_that_keeps_it(exact: bool) -> None:
    game, solver, positions = solved_kalah(seeds_left=14)
    for position in positions:
        truth = margin_for_mover(solver, game, position)
        result: SearchResult[Any] = search(game, position, 40, exact=exact)
        assert (result.margin if result.margin is not None else 0) == truth
        child_value = solver.solve(game.play(position, result.move)).value
        mover = game.to_move(position)
        assert child_value * (1 if mover == 0 else -1) == truth, game.format_position(position)


def test_a_search_ends_once_its_result_is_proven_through_the_table() -> None:
    """A result whose every line ended the game, or reached an entry whose own search did, is
    stored at FINAL_DEPTH and ends the deepening: each of these searches to depth 60 stops
    within 24 plies with the solver's margin (before, 9 of them went on to 60, their table hits
    of proven lines taken as horizons met)."""
    game, solver, positions = solved_kalah(seeds_left=20)
    for position in positions:
        truth = margin_for_mover(solver, game, position)
        result: SearchResult[Any] = search(game, position, 60)
        assert result.stats.depth <= 24, game.format_position(position)
        assert (result.margin if result.margin is not None else 0) == truth


class TwoRoads(Searchable[tuple[str, int], str]):
    """Player 0 either wins 1-0 at once (`quick`) or lets player 1 make a forced move and then
    wins 5-0 (`slow`)."""

    name: ClassVar[str] = "tworoads"
    MOVES: ClassVar[dict[str, dict[str, tuple[str, int]]]] = {
        "root": {"quick": ("quick", 1), "slow": ("middle", 1)},
        "middle": {"wait": ("slow", 0)},
    }
    RESULTS: ClassVar[dict[str, Outcome]] = {
        "quick": Outcome(0, (1, 0)),
        "slow": Outcome(0, (5, 0)),
    }

    def __init__(self) -> None:
        self.options = {}
        self.evaluations = {"zero": lambda position: 0.0}

    def start(self) -> tuple[str, int]:
        return ("root", 0)

    def to_move(self, position: tuple[str, int]) -> int:
        return position[1]

    def legal_moves(self, position: tuple[str, int]) -> list[str]:
        return list(self.MOVES.get(position[0], {}))

    def play(self, position: tuple[str, int], move: str) -> tuple[str, int]:
        return self.MOVES[position[0]][move]

    def outcome(self, position: tuple[str, int]) -> Outcome | None:
        return self.RESULTS.get(position[0])

    def format_move(self, position: tuple[str, int], move: str) -> str:
        return move

    def parse_move(self, position: tuple[str, int], text: str) -> str:
        return text

    def format_position(self, position: tuple[str, int]) -> str:
        return f"{position[0]} {position[1]}"

    def parse_position(self, text: str) -> tuple[str, int]:
        node, player = text.split()
        return (node, int(player))

    def sowing_path(self, position: tuple[str, int], move: str) -> list[Step]:
        return []


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("exact", [False, True])
def test_a_bigger_win_outranks_a_quicker_one(algorithm: str, exact: bool) -> None:
    result = search(TwoRoads(), ("root", 0), 4, algorithm=algorithm, exact=exact)
    assert result.move == "slow"
    assert (result.mate, result.margin) == (2, 5)
    assert result.score == MATE + 5 * PLY_SPAN - 2
    assert format_score(result.score) == "win in 2 by 5"


# -- the two modes ------------------------------------------------------------------------------


def test_the_strength_mode_takes_deeper_table_scores_and_the_exact_mode_does_not() -> None:
    game = make_game("kalah", {})
    position = sample_positions(game, 5, seed=2)[-1]
    counts = {}
    for exact in (False, True):
        searcher = Searcher(game, exact=exact)
        searcher.search(position, 9)
        counts[exact] = searcher.search(position, 6).stats.generated
    assert counts[False] < counts[True]
    exact_again = Searcher(game, exact=True)
    assert (
        exact_again.search(position, 6).score
        == search(game, position, 6, algorithm="minimax").score
    )


# -- the game's order, children one at a time, the end test in the evaluation -------------------


@pytest.mark.parametrize("name", sorted(GAMES))
def test_search_moves_child_and_leaf_evaluation_agree_with_the_rules(name: str) -> None:
    game = make_game(name, SMALL_OPTIONS.get(name, {}))
    positions = sample_positions(game, 150, seed=5)
    positions.append(game.play(positions[-1], game.legal_moves(positions[-1])[0]))
    leaves = {name: game.leaf_evaluation(evaluate) for name, evaluate in game.evaluations.items()}
    for position in positions:
        ordered = game.search_moves(position)
        assert sorted(map(repr, ordered)) == sorted(map(repr, game.legal_moves(position)))
        for move in ordered:
            assert game.child(position, move) == game.play(position, move)
        for evaluation, leaf in leaves.items():
            expected = None if game.is_over(position) else game.evaluations[evaluation](position)
            assert leaf(position) == expected


def test_kalah_orders_extra_turns_then_captures_then_the_rest_from_the_store() -> None:
    game = make_game("kalah", {})
    assert game.search_moves(game.start()) == [3, 6, 5, 4, 2, 1]  # pit 3 ends in the store
    # Pits 5 and 3 end in the store; pit 1 (1 seed) lands in the empty pit 2, facing 5 seeds.
    position = game.parse_position("kalah(6,4) S 1,0,4,4,2,4/4,4,4,5,4,4 0,0")
    assert game.search_moves(position) == [5, 3, 1, 6, 4]


@pytest.mark.parametrize("backend", BACKENDS)
def test_othello_orders_by_the_opponents_replies_fewest_first_ties_by_the_squares(
    backend: str,
) -> None:
    """Above the horizon the fewest replies first (Edax's and Zebra's order); one ply above it
    the square weights alone, which cost no move made."""
    game = make_game("othello", {}, backend)
    for position in sample_positions(game, 60, seed=37):
        squares = game.horizon_moves(position)

        def replies(move: int, position: Any = position) -> int:
            """The opponent's placements: a pass counts none."""
            return sum(reply != PASS for reply in game.legal_moves(game.play(position, move)))

        assert game.search_moves(position) == sorted(squares, key=replies)
    position = game.start()
    for text in ["f5", "d6", "c3", "d3", "c4", "f4"]:
        position = game.play_text(position, text)
    # the square order tries e3 first (8 replies); c5 and e6 leave 5, in the square order
    shown = [game.format_move(position, move) for move in game.search_moves(position)]
    assert game.format_move(position, game.horizon_moves(position)[0]) == "e3"
    assert shown[:4] == ["c5", "e6", "f6", "e3"]


def test_far_from_the_horizon_othello_searches_the_best_evaluated_children_first() -> None:
    """From `sort_depth` plies left, after the table's move, by each child's evaluation (the
    mover's best first); nearer the horizon, and with no table move, in the game's order."""
    game = Othello()
    assert game.search_hints.sort_depth == 4
    position = game.start()
    for text in ["d3", "c5", "f6", "f5", "e6", "e3"]:
        position = game.play_text(position, text)
    lines: list[str] = []
    search(game, position, 4, tracer=Tracer(lines.append, 1, 10_000))
    header = next(i for i, line in enumerate(lines) if line.startswith("negamax to depth 4"))
    by_depth = [
        [
            line.split(":")[0].strip()
            for line in part
            if line.startswith("  ") and ": player" in line
        ]
        for part in (lines[:header], lines[header:])
    ]
    assert by_depth[0] == [game.format_move(position, m) for m in game.search_moves(position)]
    table_move, *rest = by_depth[1]
    value = {text: game.patterns(game.play_text(position, text)) for text in rest}  # Black's
    assert rest == sorted(rest, key=lambda text: -value[text])
    assert rest != [text for text in by_depth[0] if text != table_move]  # not the game's order


@pytest.mark.parametrize("backend", BACKENDS)
def test_kalah_depth_14_from_the_start_needs_few_nodes(backend: str) -> None:
    game = make_game("kalah", {}, backend)
    done: list[SearchResult[Any]] = []
    result = Searcher(game).search(game.start(), 14, on_iteration=done.append)
    assert result.score == search(game, game.start(), 14, exact=True).score == 7
    assert [it.stats.depth for it in done] == [2, 5, 8, 11, 14]  # three plies at a time
    # A plain alpha-beta in the game's order without a table visits 39 k nodes (docs/engine.md);
    # all the iterations together make fewer than 1.5 times that (issue 14's target).
    assert result.stats.generated < 1.5 * 39_000


# -- the transposition table -----------------------------------------------------------------


def test_the_table_is_sized_in_megabytes_and_a_table_of_zero_stores_nothing() -> None:
    table = TranspositionTable(1)
    assert table.capacity == (1 << 20) // ENTRY_BYTES
    empty = TranspositionTable(0)
    empty.store(5, 3, EXACT, 1.0, 2)
    assert empty.probe(5) is None and len(empty) == 0


def test_the_table_grows_within_its_memory_and_keeps_what_it_can() -> None:
    table = TranspositionTable(ENTRY_BYTES * 10_000 / (1 << 20))
    rng = random.Random(1)
    keys = list({rng.getrandbits(63) - (1 << 62) for _ in range(4000)})
    for key in keys:
        table.store(key, 4, LOWER, key / 7, key % 11)
    assert FIRST_SLOTS < table.slots <= table.capacity
    found = [key for key in keys if table.probe(key) == (4, LOWER, key / 7, key % 11)]
    assert len(found) > 0.8 * len(keys)  # a third key in a bucket evicts one
    for key in range(30_000):
        table.store(key, 1, EXACT, 0.0, None)
        assert len(table) <= table.capacity


def test_replacement_keeps_this_searchs_deeper_entries_and_drops_older_searches_first() -> None:
    table = TranspositionTable(2 * ENTRY_BYTES / (1 << 20))  # one bucket
    assert table.capacity == 2
    table.store(1, 9, EXACT, 9.0, None)
    table.store(2, 5, EXACT, 5.0, None)
    table.store(3, 1, EXACT, 1.0, None)  # evicts the shallower entry of this search
    assert table.probe(1) is not None and table.probe(2) is None and table.probe(3) is not None
    table.next_search()
    table.store(4, 1, EXACT, 1.0, None)  # an older search's entry goes first, deep or not
    table.store(5, 1, EXACT, 1.0, None)
    assert table.probe(1) is None and table.probe(3) is None
    assert table.probe(4) is not None and table.probe(5) is not None


def test_a_searcher_kept_over_a_whole_game_does_not_degrade() -> None:
    game = make_game("kalah", {})
    kept = Searcher(game, hash_mb=0.1)  # about 3 k entries: full after a few moves
    position = game.start()
    for _ in range(15):
        position = game.play(position, kept.search(position, 8).move)
    late = kept.search(position, 8)
    fresh = Searcher(game, hash_mb=0.1).search(position, 8)
    assert late.stats.table_entries <= kept.table.capacity
    assert late.stats.generated <= 1.5 * fresh.stats.generated
