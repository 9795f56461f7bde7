"""Engine-tool defects a UCI-habits QA pass found (round 9): option values in digits other than
ASCII are refused, not a crash; a clock search keeps back a move overhead (`Move Overhead`); a
huge `go nodes` is no limit rather than a failed search; a reader gone away ends the session
without a traceback; bench refuses a folder as its output and says why fewer threads search
than asked, as analyse and match do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.engine import fails
from tests.tools.test_stdio import Recorder, bestmove
from ubao.engine.tools.cli import main
from ubao.engine.tools.stdio import Go, time_budget


@pytest.mark.parametrize("option", ["Hash", "Threads", "Move Overhead"])
def test_an_option_in_superscript_digits_is_refused_and_the_engine_goes_on(option: str) -> None:
    recorder = Recorder()
    got = recorder.send(f"setoption name {option} value \u00b2", "isready")
    assert got[0].startswith(f"error {option} must be an integer") and got[-1] == "readyok"


def test_move_overhead_is_kept_back_for_every_move_planned_for() -> None:
    recorder = Recorder()
    assert recorder.send("setoption name move overhead value 40") == []
    assert recorder.session.overhead_ms == 40
    go = Go(clocks=(2000, 2000))
    _, soft = time_budget(go, 0, 40)
    assert soft == pytest.approx((2000 - 40 * 32) / 30)
    # Less than the overhead of the moves to come left: move at once.
    assert time_budget(Go(clocks=(300, 300)), 0)[0] == pytest.approx(1.0)
    assert recorder.send("setoption name Move Overhead value 5001")[0].startswith("error ")


def test_a_huge_go_nodes_is_no_limit_not_a_failed_search() -> None:
    recorder = Recorder()
    got = recorder.send(
        "position kalah {} startpos", "go nodes 99999999999999999999999 depth 4", "isready"
    )
    assert not [line for line in got if line.startswith("error")], got
    assert bestmove(got) and any(line.startswith("info depth 4") for line in got)


def test_a_reader_gone_away_mid_search_ends_the_session_without_a_traceback() -> None:
    script = (
        "import sys; from ubao.engine.tools import stdio; "
        "stdio.serve(iter(['position othello {\"size\": 8} startpos', 'go movetime 1000']), "
        "sys.stdout)"
    )
    engine = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert engine.stdout is not None and engine.stderr is not None
    engine.stdout.readline()  # the first info line: the search is on
    engine.stdout.close()  # as `| head -1` does
    _, err = engine.communicate(timeout=60)
    assert b"Traceback" not in err, err.decode()


def test_cells_in_superscript_digits_are_refused_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "is not PITSxSEEDS" in fails(["bench", "--solve", "--cells", "3x\u00b2"], capsys)


def test_a_match_spec_in_superscript_digits_is_refused_in_plain_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["match", "kalah", "--engine1", "depth=\u00b2", "--engine2", "depth=1"]
    message = fails(argv, capsys)
    assert "depth must be a whole number" in message and "invalid literal" not in message


def test_a_bench_output_that_is_a_folder_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "it is a folder" in fails(["bench", "--svg", str(tmp_path), "--depths", "1"], capsys)


def test_bench_says_why_fewer_threads_search_than_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "--threads", "2", "--algorithms", "alphabeta", "--depths", "1"]
    main([*argv, "--evals", "store_diff", "--max-plies", "4"])
    assert "threads: 1 of 2 asked" in capsys.readouterr().err  # why, by backend and algorithm
