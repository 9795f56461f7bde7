"""The solver's fast path (docs/engine.md, Solver): mancala sows its packed board keys itself
(`Mancala.board_children`), which must be the Python rules' own children seen through
`board_key` under every rule set, and the solver that searches those keys must be the one that
searches positions through the `Game` interface, cut for cut."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import product
from typing import Any

import pytest

from ubao.engine.endgame import build
from ubao.engine.games import make_game
from ubao.engine.mancala.game import Kalah, Position
from ubao.engine.solve import Solution, Solver

RULE_SETS = [
    {"capture_sower": sower, "empty_capture": empty, "end_check": end, "remaining": rest}
    for sower, empty in product((True, False), repeat=2)
    for end, rest in product(("either", "mover"), ("owner", "mover"))
]
"""Every combination of the options that change the rules of the one-way mancala family."""


class PositionKalah(Kalah):
    """Kalah without board children: the solver searches its positions (the fallback)."""

    search_hints = replace(Kalah.search_hints, board_seeds=0)


def random_positions(
    game: Kalah, rng: random.Random, count: int, laps: bool = False
) -> list[Position]:
    """Positions of random games (finished ones too), and random pits (with `laps`, some of more
    than a lap of seeds: too many to solve), with random stores and mover."""
    positions: list[Position] = []
    lap = 2 * game.pits + 1
    counts = (0, 0, 1, 1, 2, 3, lap - 1, lap, 2 * lap + 1) if laps else (0, 0, 1, 1, 2, 3)
    while len(positions) < count:
        position = game.start()
        for _ in range(rng.randint(0, 30)):
            moves = game.legal_moves(position)
            if not moves:
                break
            position = game.play(position, rng.choice(moves))
        positions.append(position)
        m = game.pits
        pits = [rng.choice(counts) for _ in range(2 * m)]
        stores = rng.randrange(20), rng.randrange(20)
        positions.append((*pits[:m], stores[0], *pits[m:], stores[1], rng.randrange(2)))
    return positions


@pytest.mark.parametrize("options", RULE_SETS)
def test_board_children_are_the_childrens_board_keys(options: dict[str, Any]) -> None:
    for pits in (1, 2, 3, 6):
        game = Kalah({"pits": pits, **options})
        rng = random.Random(f"children {pits} {sorted(options.items())}")
        for position in random_positions(game, rng, 100, laps=True):
            key, banked, loose = game.board_key(position)
            me = game.to_move(position)
            expected = []
            for move, child in reversed(game.children(position)):
                child_key, child_banked, child_loose = game.board_key(child)
                gain = child_banked - banked if me == 0 else banked - child_banked
                expected.append((move, gain, game.to_move(child) == me, child_key, child_loose))
            assert game.board_children(key, loose) == expected, game.format_position(position)


def test_only_the_games_sowing_one_way_sow_boards() -> None:
    assert make_game("kalah", backend="python").search_hints.board_seeds == 255
    assert make_game("egyptian", backend="python").search_hints.board_seeds == 255
    # the mover picks a way
    assert make_game("ethiopian", backend="python").search_hints.board_seeds == 0
    assert make_game("othello", {"size": 4}, backend="python").search_hints.board_seeds == 0


def same_search(solution: Solution[int]) -> tuple[Any, ...]:
    return (solution.value, solution.pv, solution.expanded, solution.probes)


@pytest.mark.parametrize("options", RULE_SETS)
def test_the_solver_searches_boards_as_it_searches_positions(options: dict[str, Any]) -> None:
    # One solver of each kind over a sequence of positions: their tables evolve alike too.
    boards = Kalah({"pits": 3, "seeds": 3, **options})
    positions = PositionKalah({"pits": 3, "seeds": 3, **options})
    rng = random.Random(f"solve {sorted(options.items())}")
    cases = [boards.start(), *random_positions(boards, rng, 12)]
    for seeds in (0, 5):
        database = build(boards, seeds) if seeds else None
        on_boards = Solver(boards, endgame=database, hash_mb=0.05)
        on_positions = Solver(positions, endgame=database, hash_mb=0.05)
        for position in cases:
            solution = on_boards.solve(position)
            assert same_search(solution) == same_search(on_positions.solve(position))
            assert on_boards.table_entries == on_positions.table_entries


def test_a_larger_cell_expands_the_same_positions_either_way() -> None:
    options = {"pits": 4, "seeds": 3}
    solution = Solver(Kalah(options)).solve()
    assert solution.value == 8  # docs/mancala.md §7
    assert same_search(solution) == same_search(Solver(PositionKalah(options)).solve())


def test_a_board_with_more_seeds_than_a_key_holds_is_searched_as_positions() -> None:
    # One pit a side: one move each turn, so the game is a forced line, played out here.
    game = Kalah({"pits": 1})
    position = game.parse_position("kalah(1,4) S 200/100 0,0")
    assert game.board_key(position)[2] > game.search_hints.board_seeds
    final = position
    while game.legal_moves(final):
        final = game.play(final, 1)
    outcome = game.outcome(final)
    assert outcome is not None
    assert Solver(game).solve(position).value == outcome.score[0] - outcome.score[1]
