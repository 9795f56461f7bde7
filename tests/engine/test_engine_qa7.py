"""QA round 7 of the engine: seed counts beyond the native core's bound refused where the
position is given, perft's depth bound, the solver's winner in Bao (who may hold fewer seeds),
UCI's `debug`, and the API's refusals of moves and positions that are not the game's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.engine import BACKENDS, needs_native
from tests.tools.test_cli import run
from tests.tools.test_stdio import Recorder, bestmove
from ubao.engine.game import (
    MAX_COUNT,
    IllegalMoveError,
    NotationError,
    OptionsError,
    PositionError,
)
from ubao.engine.games import make_game
from ubao.engine.othello import Position as OthelloPosition
from ubao.engine.perft import MAX_DEPTH, perft
from ubao.engine.search import Searcher
from ubao.engine.solve import Solver

pytestmark = pytest.mark.timeout(120)


HUGE_PIT = "kalah(6,4) S 4,4,4,4,4,2000000/4,4,4,4,4,4 0,0"
HUGE_STORE = "kalah(6,4) S 4,4,4,4,4,4/4,4,4,4,4,4 0,99999999999"
HUGE_HOLE = "00000000/0000000(2000000)/20000000/00000000 S 0-0 -"
HUGE_PLY = "00000000/00000002/20000000/00000000 S 0-0 - ply=2000000000"
NORTH_STUCK = "00000011/11111111/20000000/00000000 S 0-0 -"
"""South's only move, A1R, leaves North without a legal move: South wins with fewer seeds."""
SOUTH_LOSES = "00000000/00000002/20000000/00000000 S 0-0 -"
"""A forced loss for South, with equal seeds at the end."""


# -- 1. seed counts beyond the bound ------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("game", "text"),
    [("kalah", HUGE_PIT), ("kalah", HUGE_STORE), ("bao", HUGE_HOLE), ("bao", HUGE_PLY)],
)
def test_stdio_refuses_a_position_beyond_the_bound_and_keeps_running(
    backend: str, game: str, text: str
) -> None:
    recorder = Recorder()
    assert recorder.send(f"setoption name Backend value {backend}") == []
    lines = recorder.send(f"position {game} {{}} {text}", "isready")
    assert len(lines) == 2 and lines[0].startswith("error ") and lines[1] == "readyok"
    assert "1,000,000" in lines[0]
    lines = recorder.send("position kalah {} startpos", "go depth 2")
    assert bestmove(lines) in "123456"


def test_a_position_refused_on_python_never_reaches_the_native_core() -> None:
    recorder = Recorder()
    recorder.send("setoption name Backend value python")
    assert recorder.send(f"position kalah {{}} {HUGE_PIT}")[0].startswith("error ")
    lines = recorder.send("setoption name Backend value auto", "go depth 2")
    assert lines == ["error go: no position yet; send position first"]


@pytest.mark.parametrize("command", ["moves", "play", "analyse"])
def test_the_cli_refuses_a_position_beyond_the_bound_in_one_line(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    extra = {"moves": [], "play": ["1"], "analyse": ["--depth", "2"]}[command]
    status, _, err = run(capsys, command, "kalah", "--position", HUGE_PIT, *extra)
    assert status == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "at most 1,000,000 seeds" in err
    status, out, _ = run(capsys, command, "kalah", "--position", HUGE_PIT, *extra, "--json")
    assert status == 2
    assert json.loads(out)["kind"] == "NotationError"


def test_the_bound_is_the_same_in_text_and_json_and_overlong_numbers_are_refused() -> None:
    kalah, bao = make_game("kalah", backend="python"), make_game("bao", backend="python")
    edge = f"kalah(6,4) S {MAX_COUNT},4,4,4,4,4/4,4,4,4,4,4 0,0"
    assert kalah.parse_position(edge)[0] == MAX_COUNT
    overlong = "9" * 5000  # int() itself refuses this many digits with a bare ValueError
    for text in (HUGE_PIT, f"kalah(6,4) S 4,4,4,4,4,4/4,4,4,4,4,4 0,{overlong}"):
        with pytest.raises(NotationError, match="at most 1,000,000"):
            kalah.parse_position(text)
    with pytest.raises(NotationError):
        kalah.parse_position("kalah(6,4) S 4,4,4,4,4,４/4,4,4,4,4,4 0,0")
    for text in (HUGE_HOLE, HUGE_PLY, f"{SOUTH_LOSES} hand={overlong}"):
        with pytest.raises(NotationError, match="at most"):
            bao.parse_position(text)
    data: dict[str, Any] = bao.position_json(bao.start())
    with pytest.raises(NotationError, match="1,000,000,000"):
        bao.parse_position_json({**data, "ply": 2_000_000_000})
    with pytest.raises(NotationError, match="1,000,000"):
        bao.parse_position_json({**data, "stock": [MAX_COUNT + 1, 22]})


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


# -- 2. perft's depth ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_perft_refuses_a_depth_beyond_the_bound_in_one_line(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    for depth in ("99999", str(MAX_DEPTH + 1), "-1"):
        status, _, err = run(capsys, "perft", "kalah", "--depth", depth, "--backend", backend)
        assert status == 2 and err.strip().splitlines() == [
            f"ubao-engine perft: --depth must be from 0 to {MAX_DEPTH}"
        ]
    game = make_game("kalah", backend=backend)
    with pytest.raises(ValueError, match="from 0 to 1000"):
        perft(game, game.start(), 99999)
    assert perft(game, game.start(), 1) == 6


# -- 3. the solver's winner ---------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_solver_ranks_the_winner_before_the_seeds(backend: str) -> None:
    bao = make_game("bao", backend=backend)
    stuck = bao.parse_position(NORTH_STUCK)
    solution = Solver(bao).solve(stuck)
    assert (solution.winner, solution.wdl) == (0, "W")
    outcome = bao.outcome(bao.play(stuck, solution.pv[0]))
    assert outcome is not None and outcome.winner == 0
    assert solution.value == outcome.score[0] - outcome.score[1] < 0  # a win with fewer seeds
    solution = Solver(bao).solve(bao.parse_position(SOUTH_LOSES))
    assert (solution.winner, solution.wdl) == (1, "L")


def test_the_cli_solve_says_who_wins(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", "bao", "--position", NORTH_STUCK)
    assert status == 0 and "player 0 wins" in out.splitlines()[0]
    status, out, _ = run(capsys, "solve", "bao", "--position", SOUTH_LOSES, "--json")
    assert status == 0 and (json.loads(out)["winner"], json.loads(out)["wdl"]) == (1, "L")


@pytest.mark.parametrize("backend", BACKENDS)
def test_mancala_solutions_stay_margins(backend: str) -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 3}, backend=backend)
    solution = Solver(game).solve()
    assert solution.value == 2 and (solution.winner, solution.wdl) == (0, "W")


def test_a_game_whose_positions_repeat_is_refused_for_that_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = run(capsys, "solve", "ethiopian", "--options", '{"pits":3,"seeds":2}')
    assert status == 2 and "positions can repeat" in err and "too long to solve" not in err


# -- 4. UCI's debug -----------------------------------------------------------------------------


def test_debug_never_answers_error() -> None:
    recorder = Recorder()
    assert recorder.send("debug", "debug maybe", "debug on off") == []
    assert recorder.session.debug  # bare `debug` toggled it on, the next two changed nothing
    assert recorder.send("debug") == [] and not recorder.session.debug


# -- 5. moves and positions that are not the game's ---------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_move_that_only_equals_a_legal_one_is_illegal(backend: str) -> None:
    kalah = make_game("kalah", backend=backend)
    for move in (3.0, True, "3", None):
        with pytest.raises(IllegalMoveError):
            kalah.play(kalah.start(), move)
    with pytest.raises(NotationError):
        kalah.parse_move(kalah.start(), "３")
    assert kalah.parse_move(kalah.start(), "03") == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_othello_legal_moves_refuse_a_malformed_position(backend: str) -> None:
    othello = make_game("othello", backend=backend)
    for position in ((1, 1, 0), (1 << 64, 0, 0), (1, 2, 2)):
        with pytest.raises(PositionError, match="not a position of othello"):
            othello.legal_moves(OthelloPosition(*position))


@pytest.mark.parametrize("backend", BACKENDS)
def test_go_movetime_0_reports_no_score_no_iteration_produced(backend: str) -> None:
    recorder = Recorder()
    recorder.send(f"setoption name Backend value {backend}")
    lines = recorder.send("position kalah {} startpos", "go movetime 0")
    assert bestmove(lines) in "123456"
    assert not [line for line in lines if line.startswith("info depth 0")]


@needs_native
def test_a_search_of_a_position_beyond_the_native_bounds_is_a_position_error() -> None:
    """A position built by hand through the API, with more seeds than the core reads: the
    native search refuses it as the rules do, with a GameError, not a bare ValueError."""
    game = make_game("kalah", backend="native")
    position = list(game.start())
    position[5] = MAX_COUNT + 1
    with pytest.raises(PositionError, match="native core"):
        Searcher(game, "negamax").search(tuple(position), depth=3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bao_max_plies_has_the_same_bound_on_both_backends(backend: str) -> None:
    """Beyond the ply counter's bound (the position notation's), refused on both backends."""
    assert make_game("bao", {"max_plies": 1_000_000_000}, backend).name == "bao"
    with pytest.raises(OptionsError, match="max_plies"):
        make_game("bao", {"max_plies": 1_000_000_001}, backend)
