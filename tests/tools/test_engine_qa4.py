"""QA round 4 of the engine's command line and stdio protocol: minimax under a time or node
limit deepens (a real move and score, not the first legal move), one-line errors instead of
tracebacks, a clock `go` without the mover's clock, one `--hash` cap, the `--db` cap, the
`--version` line, one score format, and the `Ponder` option."""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import pytest

from tests.support.engine import BACKENDS, fails
from tests.support.server import FAKE_ENGINE
from tests.tools.test_stdio import Recorder, bestmove
from ubao.engine import backend
from ubao.engine.backend import resolve
from ubao.engine.games import make_game
from ubao.engine.mancala import Mancala
from ubao.engine.search import Searcher, SearchResult
from ubao.engine.tools import bench, cli, match, stdio
from ubao.engine.tools.cli import main
from ubao.engine.tools.stdio import Go, time_budget

pytestmark = pytest.mark.timeout(120)


def wait_for_bestmove(recorder: Recorder, timeout: float = 30.0) -> list[str]:
    """The lines once a `bestmove` came; a search still going after `timeout` is stopped and
    the test fails (no test may wait for ever)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(line.startswith("bestmove ") for line in recorder.lines):
            recorder.session.wait()
            return recorder.lines
        time.sleep(0.01)
    recorder.session.handle("stop")
    raise AssertionError(f"no bestmove within {timeout} s: {recorder.lines[-3:]}")


# -- 1. minimax with a depth and a time or node limit --------------------------------------------


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


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_minimax_with_a_depth_alone_still_runs_one_search(backend_name: str) -> None:
    game = make_game("kalah", {}, backend_name)
    depths: list[int] = []
    Searcher(game, "minimax").search(
        game.start(), 4, on_iteration=lambda it: depths.append(it.stats.depth)
    )
    assert depths == [4]


def test_analyse_minimax_with_a_depth_and_a_time_prints_a_searched_depth(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["analyse", "kalah", "--algorithm", "minimax", "--depth", "40", "--time-ms", "300"])
    out = capsys.readouterr().out
    assert re.search(r"^depth +1 +score", out, re.MULTILINE), out
    reached = re.search(r"^depth (\d+) \(stopped by the time limit\)", out, re.MULTILINE)
    assert reached is not None and int(reached.group(1)) >= 1, out


def test_stdio_minimax_with_a_depth_and_a_limit_sends_info_lines() -> None:
    recorder = Recorder()
    lines = recorder.send(
        "setoption name Algorithm value minimax",
        "position kalah {} startpos",
        "go depth 20 nodes 20000",
    )
    infos = [line for line in lines if line.startswith("info depth ")]
    assert [line.split()[2] for line in infos[:2]] == ["1", "2"]
    make_game("kalah", {}).parse_move(make_game("kalah", {}).start(), bestmove(lines))
    lines = recorder.send("go depth 20 movetime 300")
    assert any(line.startswith("info depth 1 ") for line in lines), lines


@pytest.mark.parametrize("value", ["0", "-5", "nan", "x"])
def test_analyse_refuses_a_time_that_is_not_positive(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "--time-ms" in fails(["analyse", "kalah", f"--time-ms={value}"], capsys)


# -- 2. one-line errors, exit status 2 ----------------------------------------------------------


MATCH = ["match", "kalah", "--engine1", "depth=1"]
"""A match command, its second engine to come."""
FAKE = f"{sys.executable} {FAKE_ENGINE} --mode"
"""tests/support/fake_engine.py, its misbehaviour to come."""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["analyse", "kalah", "--depth", "201"], "--depth must be from 1 to 200"),
        (["match", "kalah", "--engine1", "depth=300", "--engine2", "depth=2"], "from 1 to 200"),
        (
            [*MATCH, "--engine2", "/nonexistent"],
            "cannot run the engine '/nonexistent': No such file or directory",
        ),
        ([*MATCH, "--engine2", f"{sys.executable} -c pass"], "exited before answering uciok"),
        ([*MATCH, "--engine2", "'unclosed"], "No closing quotation"),
        ([*MATCH, "--games", "1", "--engine2", f"{FAKE} illegal"], "answered 'bestmove"),
        ([*MATCH, "--games", "1", "--engine2", f"{FAKE} crash"], "before answering bestmove"),
        ([*MATCH, "--engine2", "depth=2", "--games", "0"], "1 or more"),
        ([*MATCH, "--engine2", "depth=2", "--max-plies", "0"], "1 or more"),
        (["moves", "kalah", "--options", "{bad"], "--options is not valid JSON"),
        (["analyse", "kalah", "--depth", "1", "--options", "[6]"], "must be a JSON object"),
        (["analyse", "kalah", "--depth", "1", "--position", "nonsense"], "a position has 4 fields"),
        (["bench", "--depths", "2", "--csv", "/nonexistent/rows.csv"], "cannot write"),
        (["bench", "--depths", "2", "--svg", "/nonexistent/chart.svg"], "cannot write"),
        (["bench", "--speed", "--seconds", "0"], "--seconds"),
        (["solve", "kalah", "--db", "-1"], "--db"),
        (["solve", "kalah", "--db", "72"], "positions, a byte each: more than the"),
    ],
)
def test_user_errors_end_in_one_line_and_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = fails(argv, capsys)
    assert line.startswith("ubao-engine ") and message in line, line


def test_an_engine_silent_after_uci_ends_the_match_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An engine that never answers `uci` (a wrong program, a hung one) is given up on."""
    monkeypatch.setattr(match, "HANDSHAKE_SECONDS", 0.5)
    monkeypatch.setattr(match, "QUIT_SECONDS", 0.5)
    silent = f"{sys.executable} -c 'import time; time.sleep(60)'"
    line = fails([*MATCH, "--engine2", silent], capsys)
    assert "did not answer uciok within 0.5 s" in line, line


@pytest.mark.skipif(resolve() != "native", reason="the Python solver takes any size, slowly")
def test_bench_solve_names_the_cell_the_native_solver_refuses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = fails(["bench", "--solve", "--cells", "9x9"], capsys)
    assert line.startswith("ubao-engine bench: kalah(9,9): 162 seeds"), line


# -- 3. a clock `go` without the mover's clock --------------------------------------------------


def test_a_clock_go_without_the_movers_clock_moves_at_once() -> None:
    hard, _ = time_budget(Go(clocks=(1000, None)), 1)
    assert hard is not None and hard <= 1.0
    assert time_budget(Go(clocks=(None, 5000)), 0)[0] == pytest.approx(1.0)
    recorder = Recorder()
    recorder.session.handle("position othello {} startpos moves d3")
    recorder.session.handle("go wtime 1000")  # player 1, White, is to move: no clock of its own
    lines = wait_for_bestmove(recorder)
    game = make_game("othello", {})
    position = game.play_text(game.start(), "d3")
    game.parse_move(position, bestmove(lines))  # raises if illegal


# -- 4. limits -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["analyse", "kalah", "--depth", "1"],
        ["bench", "--depths", "1"],
        ["solve", "kalah"],
    ],
)
def test_every_hash_has_the_protocols_cap(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    too_big = str(stdio.MAX_HASH_MB + 1)
    assert "--hash" in fails([*argv, "--hash", too_big], capsys)
    assert "--hash" in fails([*argv, "--hash", "-1"], capsys)
    with pytest.raises(SystemExit):
        main([argv[0], "--help"])
    assert f"0 to {stdio.MAX_HASH_MB})" in " ".join(capsys.readouterr().out.split())


def test_a_match_hash_is_at_least_0_and_at_most_the_cap() -> None:
    spec = match.parse_spec("depth=2,hash=0")
    assert spec is not None and spec.hash_mb == 0
    for text in ("depth=2,hash=-1", f"depth=2,hash={stdio.MAX_HASH_MB + 1}"):
        with pytest.raises(ValueError, match=f"at least 0 .* at most {stdio.MAX_HASH_MB}"):
            match.parse_spec(text)


def test_the_endgame_database_is_capped_at_the_games_seeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2})
    assert isinstance(game, Mancala)
    assert cli.endgame_seeds(game, 99) == bench.endgame_cap(game, 99) == 12
    assert cli.endgame_seeds(game, 5) == 5
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    main(["solve", "kalah", "--options", '{"pits":1,"seeds":1}', "--db", "99", "--hash", "1"])
    assert "endgame database: 2 seeds, 6 positions" in capsys.readouterr().out


# -- 5. cosmetics --------------------------------------------------------------------------------


def test_version_says_once_that_the_native_core_asked_for_is_not_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(backend, "NATIVE_BUILT", False)
    monkeypatch.setattr(cli, "NATIVE_BUILT", False)
    monkeypatch.setenv("UBAO_BACKEND", "native")
    line = cli.version()
    assert line.endswith("(UBAO_BACKEND=native, but the native core is not built)"), line
    assert line.count("not built") == 1
    monkeypatch.setenv("UBAO_BACKEND", "python")
    assert cli.version().endswith("(backend python; native core not built)")


def test_a_spec_with_an_unknown_setting_names_it() -> None:
    with pytest.raises(ValueError, match="unknown setting 'bogus'"):
        match.parse_spec("depth=3,bogus=1")
    spec = match.parse_spec("depth=3, eval=mobility, exact")
    assert spec is not None and (spec.depth, spec.evaluation, spec.exact) == (3, "mobility", True)
    assert match.parse_spec("python -m ubao.engine stdio") is None  # a command


# -- 6. the Ponder option ------------------------------------------------------------------------


def test_uci_declares_ponder_and_setoption_accepts_it() -> None:
    recorder = Recorder()
    lines = recorder.send("uci")
    assert "option name Ponder type check default false" in lines
    assert lines[-1] == "uciok"
    before = (recorder.session.algorithm, recorder.session.hash_mb, recorder.session.exact)
    assert (
        recorder.send("setoption name Ponder value true", "setoption name ponder value FALSE") == []
    )
    assert (recorder.session.algorithm, recorder.session.hash_mb, recorder.session.exact) == before
    assert recorder.send("setoption name Ponder value maybe") == [
        "error Ponder must be true or false"
    ]


def test_the_help_of_each_command_parses() -> None:
    """Every parser the new argument types sit in still builds (no duplicate options)."""
    assert isinstance(cli.build_parser(), argparse.ArgumentParser)


def test_without_the_native_core_a_command_says_the_python_engine_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """pip hides the build's line that no core was built: each command on the default backend
    says it instead; asking for python explicitly is not worth a warning."""
    monkeypatch.setattr(cli, "NATIVE_BUILT", False)
    monkeypatch.delenv("UBAO_BACKEND", raising=False)
    main(["analyse", "kalah", "--depth", "1", "--backend", "python"])
    assert cli.NO_NATIVE_CORE not in capsys.readouterr().err
    main(["analyse", "kalah", "--depth", "1"])
    assert capsys.readouterr().err.count(cli.NO_NATIVE_CORE) == 1
