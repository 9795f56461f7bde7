"""The native 8x8 board operations (engine/native/othello_board8.h): each path (portable, AVX2,
AVX-512) gives the Python rules' placements and flips on every square of many positions,
the `patterns` evaluation's value (its PEXT way runs beside a SIMD path), perft stays exact by
either, and the switch between them works as documented."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ubao.engine.backend import NATIVE_BUILT, NativeOthello
from ubao.engine.game import PositionError
from ubao.engine.othello.game import PASS, Othello, Position
from ubao.engine.search import Searcher

if not NATIVE_BUILT:
    pytest.skip("the native core is not built", allow_module_level=True)

from ubao.engine import _native  # imported only where it is built

PERFT_8X8 = {1: 4, 2: 12, 3: 56, 4: 244, 5: 1_396, 6: 8_200, 7: 55_092}
"""docs/othello.md §5, as in tests/engine/test_othello.py."""


PATHS = _native.othello_board8_paths()
"""The paths this machine runs: the portable one, then AVX2 and AVX-512 where the CPU has them."""


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs a test by one path, then puts back the one that ran before."""
    before = _native.othello_board8_path()
    name: str = request.param
    assert _native.set_othello_board8_path(name) == name
    yield name
    _native.set_othello_board8_path(before)


def random_boards(rng: random.Random, count: int) -> Iterator[tuple[int, int]]:
    """Boards of every density, the edges and corners as likely as the middle: each square the
    mover's, the opponent's or empty at random odds drawn per board."""
    for _ in range(count):
        own_odds, opp_odds = rng.random() * 0.5, rng.random() * 0.5
        own = opp = 0
        for square in range(64):
            draw = rng.random()
            if draw < own_odds:
                own |= 1 << square
            elif draw < own_odds + opp_odds:
                opp |= 1 << square
        yield own, opp


def expected(own: int, opp: int, rules: Othello) -> tuple[int, dict[int, int]]:
    """The Python rules' placements of the mover (black here) and each one's flips."""
    position = Position(own, opp, 0)
    moves = [move for move in rules.legal_moves(position) if move != PASS]
    flips = {move: rules.play(position, move).white ^ opp for move in moves}
    return sum(1 << move for move in moves), flips


def test_each_path_places_and_flips_as_the_python_rules_on_every_square(path: str) -> None:
    rules, rng = Othello({"size": 8}), random.Random(37)
    for own, opp in random_boards(rng, 600):
        placements, flips = expected(own, opp, rules)
        assert _native.othello_board8_placements(own, opp) == placements, (path, own, opp)
        for square in range(64):
            if not (own | opp) >> square & 1:
                found = _native.othello_board8_flips(own, opp, square)
                assert found == flips.get(square, 0), (path, own, opp, square)


def test_the_paths_agree_on_positions_of_random_games() -> None:
    """The paths side by side on reachable positions, both colours to move."""
    if len(PATHS) < 2:
        pytest.skip("one path only: this CPU has no AVX2")
    game, rng = NativeOthello({"size": 8}), random.Random(41)
    before = _native.othello_board8_path()
    try:
        for _ in range(40):
            position = game.start()
            while not game.is_over(position):
                own, opp = position.black, position.white
                found = {}
                for name in PATHS:
                    _native.set_othello_board8_path(name)
                    found[name] = [_native.othello_board8_placements(own, opp)] + [
                        _native.othello_board8_flips(own, opp, square)
                        for square in range(64)
                        if not (own | opp) >> square & 1
                    ]
                assert all(found[name] == found["portable"] for name in PATHS), position
                position = game.play(position, rng.choice(game.legal_moves(position)))
    finally:
        _native.set_othello_board8_path(before)


def test_each_path_evaluates_the_patterns_as_the_python_evaluation(path: str) -> None:
    """The search's `patterns` leaves: the PEXT way (a SIMD path) and the spelled-out one
    (portable) give the Python value, so a native search matches the Python one exactly."""
    rng = random.Random(8)
    python, native = Othello(), NativeOthello({})
    for _ in range(12):
        position = python.start()
        for _ in range(rng.randrange(4, 44)):
            moves = python.legal_moves(position)
            if not moves:
                break
            position = python.play(position, rng.choice(moves))
        ours = Searcher(native, evaluation="patterns", selective=False).search(position, 2)
        theirs = Searcher(python, evaluation="patterns", selective=False).search(position, 2)
        assert (ours.move, ours.score, ours.stats.evaluated) == (
            theirs.move,
            theirs.score,
            theirs.stats.evaluated,
        )


@pytest.mark.parametrize("depth", sorted(PERFT_8X8))
def test_perft_is_exact_by_either_path(path: str, depth: int) -> None:
    game = NativeOthello({"size": 8})
    assert game.perft(game.start(), depth) == PERFT_8X8[depth]


def test_the_simd_paths_are_offered_where_linux_says_the_cpu_has_them() -> None:
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists() or os.uname().machine != "x86_64":
        pytest.skip("no /proc/cpuinfo of an x86-64 CPU to ask")
    flags = set(cpuinfo.read_text().split())
    expected = ["portable"]
    if "avx2" in flags:
        expected.append("avx2")
        if {"avx512vl", "avx512cd"} <= flags:
            expected.append("avx512")
    assert expected == PATHS


def test_the_fastest_path_offered_runs_unless_the_environment_names_one() -> None:
    asked = os.environ.get("UBAO_OTHELLO_SIMD")
    if asked == "0":
        assert _native.othello_board8_path() == "portable"
    elif asked in PATHS:
        assert _native.othello_board8_path() == asked
    else:
        assert _native.othello_board8_path() == PATHS[-1]


def path_at_load(asked: str) -> str:
    """The path a fresh interpreter runs with UBAO_OTHELLO_SIMD set to `asked`."""
    code = "from ubao.engine import _native; print(_native.othello_board8_path())"
    environment = {**os.environ, "UBAO_OTHELLO_SIMD": asked}
    run = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True
    )
    return run.stdout.strip()


def test_the_environment_keeps_the_portable_path_or_stops_at_a_path_named() -> None:
    assert path_at_load("0") == "portable"
    assert path_at_load("avx2") == ("avx2" if "avx2" in PATHS else "portable")


def test_a_path_of_another_name_is_refused() -> None:
    before = _native.othello_board8_path()
    with pytest.raises(ValueError, match="no board path 'sse2'"):
        _native.set_othello_board8_path("sse2")
    assert _native.othello_board8_path() == before


@pytest.mark.parametrize(
    ("own", "opp", "square"),
    [(1, 1, 5), (1, 2, 0), (1, 2, 64), (1, 2, -1)],
    ids=["overlapping", "occupied", "beyond", "negative"],
)
def test_boards_and_squares_out_of_the_rules_are_refused(own: int, opp: int, square: int) -> None:
    with pytest.raises(PositionError):
        _native.othello_board8_flips(own, opp, square)
