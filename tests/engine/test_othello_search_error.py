"""benchmarks/othello_search_error.py measures searches against the exact result of each game:
the reference is the solver's margin where the game reaches `--exact-at` empties, from each
earlier position's mover's side, and the bands sum the errors up as root mean square, mean and
spread."""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from types import ModuleType

import pytest

from ubao.engine.backend import NATIVE_BUILT, NativeOthello
from ubao.engine.othello.game import Position
from ubao.engine.othello_endgame import OthelloEndgame
from ubao.engine.record import Record, format_record
from ubao.engine.search import Searcher

if not NATIVE_BUILT:
    pytest.skip("the native core is not built", allow_module_level=True)

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("othello_search_error")


def filed_game(folder: Path) -> list[Position]:
    """A game of the native search against itself, filed as `match --out` files it; its
    positions from the start to the end."""
    game = NativeOthello({})
    searcher = Searcher(game, evaluation="patterns")
    line, moves = [game.start()], []
    while not game.is_over(line[-1]):
        move = searcher.search(line[-1], 1).move
        assert move is not None  # the game goes on
        moves.append(game.format_move(line[-1], move))
        line.append(game.play(line[-1], move))
    (folder / "games").mkdir()
    record = Record({"Game": "othello", "Options": '{"size":8}'}, tuple(moves))
    (folder / "games" / "0001.txt").write_text(format_record(record))
    return line


def test_solved_at_the_end_the_reference_is_the_games_result(
    bench: ModuleType, tmp_path: Path
) -> None:
    end = filed_game(tmp_path)[-1]
    result = end.black.bit_count() - end.white.bit_count()
    game = NativeOthello({})
    found = list(bench.samples(game, OthelloEndgame(game, 16), tmp_path, 0))
    assert len(found) >= 20
    for sample in found:
        empties = bench.empties(sample.position)
        assert empties <= 52 and empties % 2 == 0
        assert sample.reference == (result if sample.position.player == 0 else -result)


def test_the_reference_is_the_solvers_margin_where_the_game_reaches_it(
    bench: ModuleType, tmp_path: Path
) -> None:
    line = filed_game(tmp_path)
    game = NativeOthello({})
    solver = OthelloEndgame(game, 16)
    reached = next(p for p in line if bench.empties(p) <= 14)
    margin = solver.margin(reached)
    assert margin is not None  # no time limit
    found = list(bench.samples(game, solver, tmp_path, 14))
    assert [s.position for s in found] == [
        p for p in line if 14 < bench.empties(p) <= 52 and bench.empties(p) % 2 == 0
    ]
    for sample in found:
        same_mover = sample.position.player == reached.player
        assert sample.reference == (margin if same_mover else -margin)


def test_a_search_to_the_end_gives_the_exact_margin(bench: ModuleType) -> None:
    game = NativeOthello({})
    position = game.parse_position(
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
    )  # FFO #1: 14 empties, +18 for the mover
    assert bench.ubao_searcher(game, "patterns", True)(position, 20) == 18


def test_the_bands_give_rms_mean_and_spread(bench: ModuleType) -> None:
    rows = [(50, 3.0), (52, -1.0), (24, 2.0), (40, 0.5)]
    table = dict(bench.by_band(rows, 22))
    assert list(table) == ["50-52", "44-48", "38-42", "32-36", "26-30", "24", "all"]
    assert table["50-52"].rms == pytest.approx(math.sqrt(5))
    assert table["50-52"].mean == pytest.approx(1.0)
    assert table["50-52"].spread == pytest.approx(2.0)
    assert table["24"].spread == pytest.approx(0.0)
    assert table["44-48"] is None
    assert table["all"].mean == pytest.approx(1.125)


def test_bands_at_or_below_the_reach_are_left_out(bench: ModuleType) -> None:
    assert [name for name, _ in bench.by_band([(40, 1.0)], 30)] == [
        "50-52",
        "44-48",
        "38-42",
        "32-36",
        "all",
    ]
