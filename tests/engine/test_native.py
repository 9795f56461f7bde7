"""The native core against the Python rules, its oracle: perft counts, legal moves and positions
along seeded random games and on random positions, for every option set and board size.

The whole module skips when the extension is not built; the backend switch itself is tested
in test_native_backend.py, with and without the extension.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import threading
import time
import tracemalloc
from typing import Any

import pytest

from tests.support.engine import needs_native
from tests.support.native import (
    MANCALA_OPTION_SETS,
    OTHELLO_SIZES,
    assert_same_refusal,
    assert_same_rules,
    pair,
    random_game,
    random_mancala_position,
)
from ubao.engine.backend import NATIVE_BUILT, NativeRules
from ubao.engine.game import MAX_COUNT, GameError, PositionError
from ubao.engine.games import make_game
from ubao.engine.othello.game import Position as OthelloPosition
from ubao.engine.perft import perft, walk
from ubao.engine.searchable import Searchable

if not NATIVE_BUILT:
    pytest.skip("the native core is not built", allow_module_level=True)


OTHELLO_8X8_PERFT = (1, 4, 12, 56, 244, 1_396, 8_200, 55_092, 390_216, 3_005_288)
"""docs/othello.md §5, depths 0 to 9."""


@pytest.mark.parametrize(("name", "options"), MANCALA_OPTION_SETS)
def test_mancala_random_games_and_perft_match_python(name: str, options: dict[str, Any]) -> None:
    reference, native = pair(name, options)
    rng = random.Random(f"{name}{sorted(options.items())}")
    for _ in range(40):
        random_game(reference, native, rng)
    start = reference.start()
    for depth in range(5):
        assert perft(native, start, depth) == walk(reference, start, depth)


@pytest.mark.parametrize(("name", "options"), MANCALA_OPTION_SETS)
def test_mancala_sowings_of_whole_laps_match_python(name: str, options: dict[str, Any]) -> None:
    """A pit of one lap's seeds (the ring less a store) and around it, of several laps, and
    of many: the sowing's rare path (a lap or more) and its edges (nothing left after the
    laps: the last seed falls in the pit itself)."""
    reference, native = pair(name, options)
    rng = random.Random(f"laps{name}{sorted(options.items())}")
    m = options["pits"]
    lap = 2 * m + 1
    for seeds in (lap - 1, lap, lap + 1, 2 * lap - 1, 2 * lap, 2 * lap + 1, 37 * lap + 5):
        for mover, pit in itertools.product((0, 1), range(m)):
            rows = [[rng.choice((0, 0, 1, 2, 5)) for _ in range(m)] for _ in range(2)]
            rows[mover][pit] = seeds
            position = (*rows[0], rng.randint(0, 9), *rows[1], rng.randint(0, 9), mover)
            assert_same_rules(reference, native, position)


@pytest.mark.parametrize(("name", "options"), MANCALA_OPTION_SETS[::3])
def test_mancala_fuzz_random_positions(name: str, options: dict[str, Any]) -> None:
    reference, native = pair(name, options)
    rng = random.Random(f"fuzz{name}{sorted(options.items())}")
    pits = options["pits"]
    for _ in range(300):
        position = random_mancala_position(reference, rng)
        assert_same_rules(reference, native, position)
        assert perft(native, position, 2) == walk(reference, position, 2)
        legal = reference.legal_moves(position)
        illegal = [m for m in range(-pits, pits + 1) if m not in legal][:3]
        for move in illegal:
            assert_same_refusal(reference, native, position, move)


@pytest.mark.parametrize("size", OTHELLO_SIZES)
def test_othello_random_games_match_python(size: int) -> None:
    reference, native = pair("othello", {"size": size})
    rng = random.Random(size)
    for _ in range(60 if size <= 8 else 6):
        random_game(reference, native, rng)


@pytest.mark.parametrize(("size", "depth"), [(4, 7), (6, 5), (8, 4), (10, 4), (16, 3)])
def test_othello_perft_matches_python(size: int, depth: int) -> None:
    reference, native = pair("othello", {"size": size})
    start = reference.start()
    assert perft(native, start, depth) == walk(reference, start, depth)


def test_othello_8x8_perft_matches_the_rules_table() -> None:
    native = make_game("othello", backend="native")
    for depth, nodes in enumerate(OTHELLO_8X8_PERFT):
        assert perft(native, native.start(), depth) == nodes


def test_othello_perft_counts_passes_and_the_end() -> None:
    """A 4x4 game where White must pass, and a finished board (docs/othello.md §3)."""
    reference, native = pair("othello", {"size": 4})
    for text in ("XXXX-OOOXXXXXXXX O", "XXXXXXXXXXXXXXXO X", "-XXX-OOO-OOO---- X"):
        position = reference.parse_position(text)
        assert_same_rules(reference, native, position)
        for depth in range(6):
            assert perft(native, position, depth) == walk(reference, position, depth)


@pytest.mark.parametrize("size", OTHELLO_SIZES)
def test_othello_fuzz_random_positions(size: int) -> None:
    """Random boards (most of them unreachable), both sides to move: every rules answer, and
    every refusal's message, agree."""
    reference, native = pair("othello", {"size": size})
    rng = random.Random(f"fuzz{size}")
    squares = size * size
    for _ in range(150 if size <= 8 else 40):
        fill = rng.random()
        black = white = 0
        for square in range(squares):
            roll = rng.random()
            if roll < fill / 2:
                black |= 1 << square
            elif roll < fill:
                white |= 1 << square
        position = OthelloPosition(black, white, rng.randint(0, 1))
        assert_same_rules(reference, native, position)
        legal = set(reference.legal_moves(position))
        for move in [-1, *rng.sample(range(squares), 3)]:
            if move not in legal:
                assert_same_refusal(reference, native, position, move)


def test_native_positions_are_the_python_values() -> None:
    """The same types come back, so positions hash, compare and print alike."""
    native = make_game("othello", {"size": 10}, backend="native")
    (_, child), *_ = native.children(native.start())
    assert type(child) is OthelloPosition and isinstance(native, NativeRules)
    kalah = make_game("kalah", backend="native")
    assert type(kalah.children(kalah.start())[0][1]) is tuple


@pytest.mark.parametrize(
    ("name", "position"),
    [
        ("kalah", (4, 4, 4)),
        ("kalah", [4] * 6 + [0] + [4] * 6 + [0, 2]),
        ("kalah", (-1,) * 15),
        ("othello", OthelloPosition(1 << 64, 0, 0)),
        ("othello", OthelloPosition(1, 1, 0)),
        ("othello", (0, 0)),
    ],
)
def test_what_is_not_a_position_is_refused(name: str, position: Any) -> None:
    game = make_game(name, backend="native")
    with pytest.raises(ValueError, match="position"):
        game.children(position)


def every_method(game: Searchable[Any, Any], position: Any, illegal: int) -> None:
    """Calls each rules method once, an illegal move's refusal too."""
    game.children(position)
    game.outcome(position)
    game.child(position, game.legal_moves(position)[0])
    with contextlib.suppress(GameError):
        game.play(position, illegal)


@pytest.mark.parametrize(
    ("name", "options", "illegal"), [("kalah", {}, 0), ("othello", {"size": 12}, -5)]
)
def test_no_reference_leaks_in_a_loop(name: str, options: dict[str, Any], illegal: int) -> None:
    """Positions, lists and refusals made by the core are freed: memory stays flat over many
    calls of every method."""
    game = make_game(name, options, backend="native")
    start = game.start()
    for _ in range(300):  # warm up caches and free lists
        every_method(game, start, illegal)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(5000):
        every_method(game, start, illegal)
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 10_000, grown


def test_perft_lets_other_threads_run() -> None:
    """The core counts without the GIL: the main thread keeps running during a long perft."""
    game = make_game("othello", backend="native")
    counted: list[int] = []
    worker = threading.Thread(target=lambda: counted.append(perft(game, game.start(), 10)))
    ticks = 0
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    assert counted == [24_571_284] and ticks >= 3


@pytest.mark.timeout(120)
@needs_native
def test_the_native_rules_raise_a_game_error_for_a_position_they_cannot_read() -> None:
    kalah = make_game("kalah", backend="native")
    huge = (4,) * 5 + (MAX_COUNT + 1, 0) + (4,) * 6 + (0, 0)
    for method in (kalah.legal_moves, kalah.children, kalah.is_over, kalah.outcome):
        with pytest.raises(PositionError, match="1000000"):
            method(huge)
    with pytest.raises(PositionError):
        kalah.play(huge, 1)
    with pytest.raises(PositionError):
        perft(kalah, huge, 2)
    bao = make_game("bao", backend="native")
    with pytest.raises(PositionError):
        bao.legal_moves((*bao.start()[:41], 2_000_000_000))
