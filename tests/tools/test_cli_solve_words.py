"""`ubao-engine solve` on Othello: progress in words (never the solver's internal value), and a
note pointing to the faster path where the generic Python solver runs."""

from __future__ import annotations

import pytest

from tests.support.engine import BACKENDS, run
from ubao.engine.games import make_game
from ubao.engine.solve import WIN, Solver
from ubao.engine.tools.cli import probe_progress, slow_solve_note, value_words

LATE = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXOOOOOOOOOOOOOOOOOOOOOO-OO--- X"
"""Black to move with four empties left."""


def test_values_are_said_in_words() -> None:
    assert value_words(WIN + 1, ranked=True) == "a win by 1"
    assert value_words(-WIN - 38, ranked=True) == "a loss by 38"
    assert value_words(0, ranked=True) == "a draw"
    assert value_words(-3, ranked=False) == "a loss by 3"


def test_probe_progress_says_bounds_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    say = probe_progress(ranked=True)
    say(WIN + 1, 1 << 40, 10)
    say(WIN + 4, WIN + 4, 20)
    err = capsys.readouterr().err
    assert "4294967" not in err
    assert "at least a win by 1, 10 positions expanded" in err
    assert "exactly a win by 4, 20 positions expanded" in err


@pytest.mark.parametrize("backend", BACKENDS)
def test_solve_othello_progress_has_no_internal_values(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys, "solve", "othello", "--position", LATE, "--backend", backend, "--progress", "always"
    )
    assert status == 0, err
    assert out.startswith("value: ")
    assert "4294967" not in err
    assert "the side to move gets exactly a" in err


def test_the_note_points_python_8x8_users_to_the_native_solver() -> None:
    game = make_game("othello", {"size": 8}, "python")
    note = slow_solve_note(game, Solver(game))
    assert note is not None and "--backend native" in note
    kalah = make_game("kalah", {"pits": 3, "seeds": 2}, "python")
    assert slow_solve_note(kalah, Solver(kalah)) is None
