"""Properties of docs/bao.md §16.5 over random games: hypothesis picks the seeds of the games.

Each property test plays its own 500 games (120 for the costlier symmetry checks), about 2,700
games in all; hypothesis runs derandomized so that the suite is reproducible.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.engine import swap_players
from ubao.engine.bao.game import Bao
from ubao.engine.bao.rules import (
    HAND,
    OWNED,
    PLY,
    STOCK,
    TAKASIA,
    TARGET,
    TO_MOVE,
    BaoMove,
    Position,
)

GAME = Bao()
PROPERTY = settings(max_examples=500, deadline=None, derandomize=True, database=None)
SAMPLE = settings(max_examples=120, deadline=None, derandomize=True, database=None)
seeds = st.integers(0, 2**32 - 1)

Ply = tuple[Position, list[tuple[BaoMove, Position]], BaoMove | None]


def random_game(seed: int) -> list[Ply]:
    """A random game from the start: each position, its children and the move played."""
    rng = random.Random(seed)
    position = GAME.start()
    plies: list[Ply] = []
    while True:
        children = GAME.children(position)
        if not children:
            plies.append((position, children, None))
            return plies
        move, child = rng.choice(children)
        plies.append((position, children, move))
        position = child


def _mirror_hole(hole: int) -> int:
    return 7 - hole if hole < 8 else 23 - hole


def mirror(position: Position) -> Position:
    """Each ring reflected left-right (§15); only a symmetry when no nyumba is owned."""
    rings = [position[16 * p : 16 * p + 16] for p in (0, 1)]
    board = [ring[_mirror_hole(i)] for ring in rings for i in range(16)]
    fields = [
        -1 if position[index] < 0 else _mirror_hole(position[index]) for index in (TAKASIA, TARGET)
    ]
    return (*board, *position[STOCK:TAKASIA], *fields, *position[HAND:])


def mirror_move(move: BaoMove) -> BaoMove:
    return BaoMove(_mirror_hole(move.hole), -move.direction, move.safari)


def has_capture(position: Position) -> bool:
    """Whether the mover can capture, computed afresh from R6.1 and R7.1."""
    player = position[TO_MOVE]
    me = position[16 * player : 16 * player + 16]
    op = position[16 * (1 - player) : 16 * (1 - player) + 16]
    if position[STOCK + player]:
        return any(me[i] and op[7 - i] for i in range(8))
    for hole in range(16):
        if 2 <= me[hole] <= 15:
            for direction in (1, -1):
                landing = (hole + direction * me[hole]) % 16
                if landing < 8 and me[landing] and op[7 - landing]:
                    return True
    return False


@PROPERTY
@given(seeds)
def test_R3_3_seeds_are_conserved_after_every_move(seed: int) -> None:
    """[R3.3] sum(board) + sum(stock) + seeds in hand == 64 after every move."""
    for _, children, _ in random_game(seed):
        for _, child in children:
            assert sum(child[:34]) + child[HAND] == 64


@PROPERTY
@given(seeds)
def test_is_over_agrees_with_outcome(seed: int) -> None:
    uncached = Bao()  # never asked for children, so is_over simulates
    for _, children, _ in random_game(seed):
        for _, child in children:
            assert uncached.is_over(child) == (uncached.outcome(child) is not None)
            assert GAME.is_over(child) == (GAME.outcome(child) is not None)


@PROPERTY
@given(seeds)
def test_R3_4_one_stock_seed_per_namua_turn_and_mtaji_from_turn_45(seed: int) -> None:
    """[R3.4] Stocks fall together, one seed a namua turn; South opens the mtaji stage."""
    for position, _, move in random_game(seed):
        ply = position[PLY]
        if ply < 44:
            assert position[STOCK] == 22 - (ply + 1) // 2
            assert position[STOCK + 1] == 22 - ply // 2
        else:
            assert position[STOCK] == position[STOCK + 1] == 0
        if ply == 44 and move is not None:
            assert position[TO_MOVE] == 0  # South makes the first mtaji move


@PROPERTY
@given(seeds)
def test_R5_2_capture_obligation_all_moves_capture_or_none_does(seed: int) -> None:
    """[R5.2] When a capture exists every legal move captures; otherwise none does."""
    for position, children, _ in random_game(seed):
        if not children:
            continue
        must = has_capture(position)
        opponent = 16 * (1 - position[TO_MOVE])
        for _, child in children:
            # Only a capture ever touches the opponent's holes.
            captured = child[opponent : opponent + 16] != position[opponent : opponent + 16]
            assert captured == must


@PROPERTY
@given(seeds)
def test_R12_4_the_mover_never_empties_his_own_front_row(seed: int) -> None:
    """[R12.4] No legal move leaves the mover's own front row empty."""
    for position, children, _ in random_game(seed):
        mover = position[TO_MOVE]
        for _, child in children:
            assert any(child[16 * mover : 16 * mover + 8])


@PROPERTY
@given(seeds)
def test_termination_every_random_game_ends_by_the_rules(seed: int) -> None:
    """[R12.2] Every random game ends with a winner, by an empty front row or no move."""
    plies = random_game(seed)
    last = plies[-1][0]
    outcome = GAME.outcome(last)
    assert outcome is not None and outcome.reason in ("front_row_empty", "no_moves")
    assert all(GAME.outcome(position) is None for position, _, _ in plies[:-1])


@SAMPLE
@given(seeds)
def test_player_swap_gives_the_same_moves_and_swapped_children(seed: int) -> None:
    for position, children, _ in random_game(seed):
        twin = swap_players(position)
        twin_children = GAME.children(twin)
        assert [move for move, _ in twin_children] == [move for move, _ in children]
        assert [child for _, child in twin_children] == [swap_players(c) for _, c in children]
        texts = [GAME.format_move(position, move).upper() for move, _ in children]
        assert [GAME.format_move(twin, move).upper() for move, _ in twin_children] == texts


@SAMPLE
@given(seeds)
def test_mirror_symmetry_without_owned_nyumba(seed: int) -> None:
    """Ownership is cleared in every position of the game: the rest of the rules are symmetric."""
    for position, _, _ in random_game(seed):
        plain = (*position[:OWNED], 0, 0, *position[TO_MOVE:])
        children = GAME.children(plain)
        mirrored = dict(GAME.children(mirror(plain)))
        assert set(mirrored) == {mirror_move(move) for move, _ in children}
        for move, child in children:
            assert mirrored[mirror_move(move)] == mirror(child)
