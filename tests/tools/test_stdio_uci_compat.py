"""`ubao-engine stdio` driven as a UCI GUI drives an engine (docs/engine-protocol.md, "UCI
compatibility"): option names in any case, `id author`, a `bestmove` for every `go` (bare,
`nodes`, `mate`, `ponder`, `searchmoves`), `ponderhit`, `debug`, `register`, the `Backend`
option; the search's node limit and root moves behind them; and the command line's `match
--backend`, help texts and README's solve line."""

from __future__ import annotations

import argparse
import json
import math
import re
import time
from typing import Any

import pytest

from tests.support.engine import BACKENDS
from tests.support.stdio import ROOT, Engine, Recorder, bestmove
from ubao.engine.backend import NATIVE_BUILT, backend_of, chosen
from ubao.engine.games import make_game
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.timing import time_budget
from ubao.engine.search import ALGORITHMS, Searcher, SearchResult
from ubao.engine.tools import cli

BIG = 'position kalah {"pits":6,"seeds":6} startpos'
"""A game no search finishes in the time of a test."""


def wait_for(lines: list[str], prefix: str, timeout: float = 30.0) -> list[str]:
    """The lines that start with `prefix`, once there is one (bounded by `timeout`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [line for line in lines if line.startswith(prefix)]
        if found:
            return found
        time.sleep(0.01)
    raise AssertionError(f"no {prefix!r} within {timeout} s: {lines[-5:]}")


def infos(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("info depth ")]


# -- 1. option names in any case ---------------------------------------------------------------


def test_option_names_and_values_match_in_any_case() -> None:
    recorder = Recorder()
    lines = recorder.send(
        "setoption name hash value 8",
        "setoption name THREADS value 2",
        "setoption name exact value TRUE",
        "setoption name aLgOrItHm value AlphaBeta",
        "setoption name backend value PYTHON",
    )
    assert lines == []
    session = recorder.session
    assert (session.hash_mb, session.threads, session.exact, session.algorithm) == (
        8,
        2,
        True,
        "alphabeta",
    )
    assert session.backend == "python"
    assert recorder.send("setoption name colour value blue")[0].startswith("error unknown option")


# -- 2. id author ------------------------------------------------------------------------------


def test_uci_names_the_author_and_lists_the_backend_option() -> None:
    lines = Recorder().send("uci")
    assert lines[:2] == ["id name ubao-engine", "id author the ubao developers"]
    backend = [line for line in lines if line.startswith("option name Backend ")]
    default = chosen(None)  # the environment's choice, else auto
    assert backend == [
        f"option name Backend type combo default {default} var auto var python var native"
    ]
    assert lines[-1] == "uciok"


# -- 3. every go answers bestmove --------------------------------------------------------------


def test_a_bare_go_searches_until_stop() -> None:
    recorder = Recorder()
    session = recorder.session
    session.handle(BIG)
    session.handle("go")
    wait_for(recorder.lines, "info depth 2 ")
    assert not [line for line in recorder.lines if line.startswith("bestmove")]
    session.handle("stop")
    assert recorder.lines[-1].startswith("bestmove ")


@pytest.mark.parametrize("backend", BACKENDS)
def test_go_nodes_stops_after_about_that_many_nodes(backend: str) -> None:
    recorder = Recorder()
    lines = recorder.send(
        f"setoption name Backend value {backend}", "debug on", BIG, "go nodes 3000"
    )
    bestmove(lines)
    searched = [line for line in lines if line.startswith("info string searched: ")]
    assert len(searched) == 1, lines
    count = re.search(r" (\d+) nodes,", searched[0])
    assert count is not None
    assert 3000 <= int(count.group(1)) <= 3000 + 7  # at most one node's children past the limit
    assert "(stopped)" in searched[0]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("name", ["kalah", "othello", "bao"])
def test_the_native_search_stops_at_the_node_the_python_search_does(
    name: str, algorithm: str, exact: bool
) -> None:
    if not NATIVE_BUILT:
        pytest.skip("the native core is not built")

    def run(backend: str, nodes: int) -> tuple[Any, ...]:
        game = make_game(name, {}, backend)
        depth = 5 if algorithm == "minimax" else None
        result = Searcher(game, algorithm, exact=exact).search(game.start(), depth, nodes=nodes)
        stats = result.stats
        return (result.move, result.score, result.pv, result.stopped, stats.generated, stats.depth)

    for nodes in (1, 300, 2500):
        python, native = run("python", nodes), run("native", nodes)
        assert python == native
        assert python[3] or nodes == 2500  # the small limits stop the search


def test_a_node_limit_on_threads_counts_every_threads_nodes() -> None:
    if not NATIVE_BUILT:
        pytest.skip("the native core is not built")
    game = make_game("kalah", {"pits": 6, "seeds": 6}, "native")
    searcher = Searcher(game, threads=2)
    assert searcher.threads == 2
    result = searcher.search(game.start(), nodes=50_000)
    # Each thread takes its share of what is left; a thread that finishes an iteration first
    # ends it, leaving some of the others' shares unspent.
    assert result.stopped and 10_000 <= result.stats.generated <= 50_000 + 100


def test_go_mate_stops_at_a_proven_win_within_its_plies() -> None:
    # kalah(3,2) is a win by 4 in 8 plies, proven from depth 8 on; the iterations of 39 plies
    # are 3, 6, 9 ... (Kalah deepens 3 plies at a time, ending at the depth asked).
    start = 'position kalah {"pits":3,"seeds":2} startpos'
    lines = Recorder().send(start, "go mate 20")
    last = infos(lines)[-1].split()
    assert last[1:5] == ["depth", "9", "score", "mate"]  # not on to 39 plies
    assert 0 < int(last[5]) <= 39
    assert bestmove(lines) == last[last.index("pv") + 1]
    lines = Recorder().send(start, "go mate 4")  # within 7 plies there is no forced win
    assert infos(lines)[-1].split()[1:4] == ["depth", "7", "score"]
    assert " score mate " not in infos(lines)[-1]
    bestmove(lines)


def test_go_ponder_thinks_until_ponderhit_then_searches_with_the_go_limits() -> None:
    recorder = Recorder()
    session = recorder.session
    session.handle(BIG)
    session.handle("go ponder movetime 200")
    wait_for(recorder.lines, "info depth 2 ")
    time.sleep(0.3)  # longer than the movetime: pondering ignores it
    assert not [line for line in recorder.lines if line.startswith("bestmove")]
    pondered = len(recorder.lines)
    session.handle("ponderhit")
    wait_for(recorder.lines, "bestmove ")
    assert "info depth 2 " in [line[:13] for line in recorder.lines[pondered:]]  # a new search
    assert sum(line.startswith("bestmove ") for line in recorder.lines) == 1
    assert recorder.send("ponderhit") == []  # nothing pondering: ignored, no error


def test_stop_while_pondering_answers_the_pondering_move() -> None:
    recorder = Recorder()
    session = recorder.session
    session.handle(BIG)
    session.handle("go ponder wtime 1000 btime 1000")
    wait_for(recorder.lines, "info depth 2 ")
    session.handle("stop")  # returns once the bestmove is written
    assert recorder.lines[-1].startswith("bestmove ")
    game = make_game("kalah", {"pits": 6, "seeds": 6})
    game.parse_move(game.start(), bestmove(recorder.lines))  # raises if illegal


def test_a_ponder_search_that_ends_by_itself_waits_for_ponderhit() -> None:
    recorder = Recorder()
    session = recorder.session
    session.handle('position kalah {"pits":2,"seeds":1} startpos')
    session.handle("go ponder depth 3")
    time.sleep(0.3)  # the tiny game is solved long before this
    assert not [line for line in recorder.lines if line.startswith("bestmove")]
    pondered = len(recorder.lines)
    session.handle("ponderhit")
    wait_for(recorder.lines, "bestmove ")
    depths = [int(line.split()[2]) for line in infos(recorder.lines[pondered:])]
    assert depths == [3]  # the search of `go depth 3`: Kalah deepens 3 plies at a time


@pytest.mark.parametrize("backend", BACKENDS)
def test_searchmoves_restricts_the_root_moves(backend: str) -> None:
    recorder = Recorder()
    recorder.session.backend = backend
    lines = recorder.send("position kalah {} startpos", "go depth 5 searchmoves 2 5")
    assert bestmove(lines) in ("2", "5")
    assert {line.split(" pv ")[1].split()[0] for line in infos(lines)} <= {"2", "5"}
    lines = recorder.send("go depth 2 searchmoves 1 9")
    assert len(lines) == 1 and lines[0].startswith("error go: searchmoves: ")


def test_root_moves_give_the_same_search_on_either_backend() -> None:
    if not NATIVE_BUILT:
        pytest.skip("the native core is not built")
    results: list[SearchResult[Any]] = []
    for backend in ("python", "native"):
        game = make_game("othello", {}, backend)
        searcher = Searcher(game)
        results.append(searcher.search(game.start(), 5, root_moves=[19, 37]))
    python, native = results
    assert (python.move, python.score, python.pv) == (native.move, native.score, native.pv)
    assert python.move in (19, 37)
    assert python.stats.generated == native.stats.generated


def test_root_moves_must_be_legal() -> None:
    game = make_game("kalah", {})
    with pytest.raises(ValueError):
        Searcher(game).search(game.start(), 2, root_moves=[7])
    with pytest.raises(ValueError):
        Searcher(game).search(game.start(), 2, root_moves=[])


def test_debug_adds_info_strings_and_register_is_accepted() -> None:
    recorder = Recorder()
    assert recorder.send("register later", "register name x code y") == []
    lines = recorder.send("position kalah {} startpos", "debug on", "go depth 3")
    notes = [line for line in lines if line.startswith("info string ")]
    assert [note.split()[2] for note in notes] == ["search:", "searched:"]
    assert "depth 3" in notes[0]
    lines = recorder.send("debug off", "go depth 3")
    assert not [line for line in lines if line.startswith("info string ")]
    assert recorder.send("debug maybe") == []  # as in UCI: no `error` for `debug`


# -- 4. the Backend option ---------------------------------------------------------------------


def test_the_backend_option_moves_the_current_game() -> None:
    recorder = Recorder()
    session = recorder.session
    recorder.send("setoption name Backend value python", "position kalah {} startpos moves 3")
    assert session.game is not None and backend_of(session.game) == "python"
    position = session.position
    if NATIVE_BUILT:
        assert recorder.send("setoption name Backend value native") == []
        assert backend_of(session.game) == "native" and session.position == position
        lines = recorder.send("go depth 3")
        assert session.searcher is not None and backend_of(session.searcher.game) == "native"
        bestmove(lines)
    assert recorder.send("setoption name Backend value gpu")[0].startswith("error Backend ")


# -- over a pipe, as a GUI ---------------------------------------------------------------------


def test_a_uci_gui_session_over_a_pipe() -> None:
    engine = Engine()
    try:
        engine.send("uci")
        assert "id author the ubao developers" in engine.expect("uciok")
        for line in ("setoption name hash value 8", "debug on", "register later"):
            engine.send(line)
        engine.send("isready")
        assert engine.expect("readyok") == ["readyok"]  # no error before it
        engine.send(BIG)
        engine.send("go")
        engine.expect("info depth 2 ")
        engine.send("stop")
        engine.expect("bestmove ")
        engine.send("go nodes 500 searchmoves 1 2")
        assert engine.expect("bestmove ")[-1].split()[1] in ("1", "2")
        engine.send("go ponder btime 500 wtime 500")
        engine.expect("info depth 2 ")
        engine.send("ponderhit")
        engine.expect("bestmove ")
        engine.send("go mate 2")
        engine.expect("bestmove ")
        engine.send("quit")
        assert engine.process.wait(timeout=10) == 0
    finally:
        engine.process.kill()
        engine.process.wait()


# -- 5. the command line -----------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_match_takes_a_backend(backend: str, capsys: pytest.CaptureFixture[str]) -> None:
    engines = ["--engine1", "depth=1", "--engine2", "depth=1", "--games", "2", "--json"]
    cli.main(
        ["match", "kalah", "--options", '{"pits":3,"seeds":2}', "--backend", backend, *engines]
    )
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == backend and report["games"] == 2


def test_every_command_line_argument_has_help() -> None:
    parser = cli.build_parser()
    commands = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, sub in commands.choices.items()
        for action in sub._actions
        if action.help is None
    ]
    assert missing == []


# -- 6. README ---------------------------------------------------------------------------------


def test_readme_says_what_the_first_solve_of_kalah_builds() -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("ubao-engine solve kalah  ")
    comment = " ".join(
        line.split("#", 1)[1].strip() for line in readme[start:].splitlines()[:3] if "#" in line
    )
    assert "first run" in comment
    # One byte per position: every way to put up to AUTO_ENDGAME_SEEDS seeds in 12 pits.
    pits = 2 * 6
    megabytes = math.comb(cli.AUTO_ENDGAME_SEEDS + pits, pits) / 1e6
    assert f"{round(megabytes)} MB endgame database" in comment


def test_a_search_cut_by_its_time_ends_with_an_info_of_the_whole_search() -> None:
    """The last `info` before `bestmove` counts the whole search's time and nodes, as UCI
    engines print it: a server bot reports what its move cost, not its last full iteration."""
    lines = Recorder().send(BIG, "go depth 60 movetime 300")
    assert lines[-1].startswith("bestmove ")
    last = lines[-2].split()
    assert last[0] == "info", lines[-3:]
    spent = int(last[last.index("time") + 1])
    assert spent >= 250, lines[-3:]  # the 300 ms, give or take the clock's start
    earlier = infos(lines[:-2])
    assert earlier and int(earlier[-1].split()[earlier[-1].split().index("time") + 1]) < spent


@pytest.mark.timeout(120)
def test_debug_never_answers_error() -> None:
    recorder = Recorder()
    assert recorder.send("debug", "debug maybe", "debug on off") == []
    assert recorder.session.debug  # bare `debug` toggled it on, the next two changed nothing
    assert recorder.send("debug") == [] and not recorder.session.debug


@pytest.mark.timeout(120)
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


@pytest.mark.parametrize("option", ["Hash", "Threads", "Move Overhead"])
def test_an_option_in_superscript_digits_is_refused_and_the_engine_goes_on(option: str) -> None:
    recorder = Recorder()
    got = recorder.send(f"setoption name {option} value \u00b2", "isready")
    assert got[0].startswith(f"error {option} must be an integer") and got[-1] == "readyok"


def test_move_overhead_is_kept_back_for_every_move_planned_for() -> None:
    recorder = Recorder()
    assert recorder.send("setoption name move overhead value 40") == []
    assert recorder.session.overhead_ms == 40
    soft = time_budget(Limits(clocks=(2000, 2000)), 0, 40).soft_ms
    assert soft == pytest.approx((2000 - 40 * 32) / 30)
    # Less than the overhead of the moves to come left: move at once.
    assert time_budget(Limits(clocks=(300, 300)), 0).hard_ms == pytest.approx(1.0)
    assert recorder.send("setoption name Move Overhead value 5001")[0].startswith("error ")
