"""`ubao-engine stdio`: the line protocol of docs/engine-protocol.md, in process and over pipes."""

from __future__ import annotations

import argparse
import io
import threading
import time

import pytest

from tests.support.engine import BACKENDS, KALAH_43, fails, run
from tests.support.server import FAILING_ENGINE
from tests.support.stdio import Engine, Recorder, bestmove
from ubao.engine.backend import NATIVE_BUILT
from ubao.engine.game import NotationError
from ubao.engine.games import make_game
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.session import MAX_HASH_MB, EngineSession
from ubao.engine.protocols.timing import time_budget
from ubao.engine.search import ENTRY_BYTES, Searcher
from ubao.engine.tools.cli import build_parser, main


def test_uci_identifies_the_engine_and_its_options() -> None:
    lines = Recorder().send("uci")
    assert lines[0] == "id name ubao-engine"
    assert lines[-1] == "uciok"
    options = [line for line in lines if line.startswith("option name ")]
    assert [line[len("option name ") : line.index(" type ")] for line in options] == [
        "Algorithm",
        "Eval",
        "Hash",
        "Exact",
        "ProbCut",
        "Threads",
        "Backend",
        "Ponder",
        "Move Overhead",
        "MultiPV",
        "Book",
    ]


def test_isready_answers_readyok() -> None:
    assert Recorder().send("isready") == ["readyok"]


def test_go_depth_reports_every_iteration_then_one_legal_bestmove() -> None:
    lines = Recorder().send("position kalah {} startpos moves 3", "go depth 4")
    infos = [line for line in lines if line.startswith("info ")]
    assert [int(line.split()[2]) for line in infos] == [1, 4]  # Kalah deepens 3 plies at a time
    for line in infos:
        words = line.split()
        assert words[1::2][:6] == ["depth", "score", "nodes", "nps", "time", "pv"]
    game = make_game("kalah", {})
    position = game.play_text(game.start(), "3")
    move = bestmove(lines)
    game.parse_move(position, move)  # raises if illegal
    assert infos[-1].split(" pv ")[1].split()[0] == move


def test_positions_in_the_games_notation_may_contain_spaces() -> None:
    lines = Recorder().send(
        'position kalah {"pits":2,"seeds":1} kalah(2,1) N 1,0/1,1 0,0 moves 1', "go depth 2"
    )
    assert bestmove(lines) in ("1", "2")


def test_a_forced_win_is_reported_as_mate_in_plies() -> None:
    lines = Recorder().send('position kalah {"pits":3,"seeds":3} startpos', "go depth 30")
    last_info = [line for line in lines if line.startswith("info ")][-1]
    # kalah(3,3) is a win by 2 (docs/mancala.md §7); the quickest such win takes 11 plies.
    assert " score mate 11 " in last_info


def test_a_finished_game_answers_bestmove_none() -> None:
    lines = Recorder().send(
        'position kalah {"pits":2,"seeds":1} kalah(2,1) N 0,0/0,0 3,1', "go depth 3"
    )
    assert lines == ["bestmove none"]


@pytest.mark.parametrize(
    "command",
    [
        "frobnicate",
        "go depth x",
        "go depth 0",
        "go nodes 0",
        "go movetime",
        "go mate x",
        "go searchmoves",
        "go depth 2 searchmoves 9",
        "position",
        "position chess {} startpos",
        "position kalah {bad startpos",
        "position kalah [] startpos",
        "position kalah {} startpos moves 9",
        'position kalah {"pits":99} startpos',
        "position kalah {} kalah(6,4) X 1/2 0,0",
        "setoption name Algorithm value mcts",
        "setoption name Hash value lots",
        "setoption name Hash value 5000",
        "setoption name Exact value maybe",
        "setoption name Threads value 0",
        "setoption name Threads value 65",
        "setoption name Threads value two",
        "setoption name Colour value blue",
        "setoption Algorithm minimax",
    ],
)
def test_a_malformed_command_gets_an_error_and_changes_nothing(command: str) -> None:
    recorder = Recorder()
    recorder.send('position kalah {"pits":3,"seeds":2} startpos moves 1')
    session = recorder.session
    before = (
        session.game,
        session.position,
        session.algorithm,
        session.hash_mb,
        session.exact,
        session.threads,
    )
    lines = recorder.send(command)
    assert len(lines) == 1 and lines[0].startswith("error "), lines
    assert (
        session.game,
        session.position,
        session.algorithm,
        session.hash_mb,
        session.exact,
        session.threads,
    ) == before
    assert bestmove(recorder.send("go depth 2")) in ("1", "2", "3")  # still running


def test_a_search_that_fails_says_so_and_still_answers_a_legal_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("out of luck")

    monkeypatch.setattr(Searcher, "search", fail)
    recorder = Recorder()
    lines = recorder.send('position kalah {"pits":3,"seeds":2} startpos', "go depth 4")
    assert lines == ["error the search failed: RuntimeError('out of luck')", "bestmove 1"]
    assert not recorder.session.searching  # and the next command is served as usual
    assert recorder.send("isready") == ["readyok"]


def test_the_probcut_option_makes_the_search_full_width() -> None:
    recorder = Recorder()
    lines = recorder.send("position othello {} startpos", "go depth 3")
    assert recorder.session.searcher is not None
    assert recorder.session.searcher.probcut is not None  # 8x8's default evaluation has fits
    lines = recorder.send("setoption name ProbCut value false", "go depth 3")
    assert not [line for line in lines if line.startswith("error")]
    assert recorder.session.searcher.probcut is None


def test_go_before_any_position_is_an_error() -> None:
    assert Recorder().send("go depth 2")[0].startswith("error ")


def test_options_choose_the_algorithm_and_evaluation() -> None:
    recorder = Recorder()
    lines = recorder.send(
        "setoption name Algorithm value minimax",
        "setoption name Eval value mobility",
        "setoption name Hash value 8",
        "setoption name Exact value true",
        "position kalah {} startpos",
        "go depth 3",
    )
    assert not [line for line in lines if line.startswith("error")]
    searcher = recorder.session.searcher
    assert searcher is not None
    assert (searcher.algorithm, searcher.evaluation_name, searcher.hash_mb, searcher.exact) == (
        "minimax",
        "mobility",
        8,
        True,
    )
    assert searcher.table.capacity == 8 * 2**20 // ENTRY_BYTES


@pytest.mark.parametrize("backend", ["python", "native"])
def test_threads_search_natively_or_say_in_one_line_why_not(backend: str) -> None:
    if backend == "native" and not NATIVE_BUILT:
        pytest.skip("the native core is not built")
    recorder = Recorder()
    recorder.session.backend = backend
    lines = recorder.send(
        "setoption name Threads value 2", "position kalah {} startpos", "go depth 6"
    )
    searcher = recorder.session.searcher
    assert searcher is not None and searcher.threads == (2 if backend == "native" else 1)
    notes = [line for line in lines if line.startswith("info string ")]
    assert notes == ([] if backend == "native" else [f"info string {searcher.threads_note}"])
    assert bestmove(lines) in [str(pit) for pit in range(1, 7)]


def test_an_evaluation_the_new_game_lacks_falls_back_to_its_first_with_an_error() -> None:
    recorder = Recorder()
    recorder.send("setoption name Eval value store_diff")
    lines = recorder.send("position othello {} startpos")
    assert lines[0].startswith("error ") and "using" in lines[0]
    assert recorder.session.evaluation is None
    assert recorder.send("setoption name Eval value nope")[0].startswith("error ")


def test_go_infinite_answers_only_after_stop_and_isready_meanwhile() -> None:
    recorder = Recorder()
    session = recorder.session
    session.handle('position kalah {"pits":6,"seeds":6} startpos')
    session.handle("go infinite")
    time.sleep(0.2)
    session.handle("isready")
    assert "readyok" in recorder.lines
    assert not [line for line in recorder.lines if line.startswith("bestmove")]
    assert session.handle("go depth 3") is True  # refused while searching
    assert recorder.lines[-1].startswith("error ")
    session.handle("stop")  # returns once the bestmove is written
    assert recorder.lines[-1].startswith("bestmove ")


def test_go_infinite_that_finishes_early_still_waits_for_stop() -> None:
    recorder = Recorder()
    session = recorder.session
    session.handle('position kalah {"pits":2,"seeds":1} startpos')
    session.handle("go infinite")
    time.sleep(0.3)  # the tiny game is solved long before this
    assert not [line for line in recorder.lines if line.startswith("bestmove")]
    session.handle("stop")
    assert recorder.lines[-1].startswith("bestmove ")


def test_movetime_and_clocks_end_the_search_in_time() -> None:
    recorder = Recorder()
    start = time.perf_counter()
    lines = recorder.send('position kalah {"pits":6,"seeds":6} startpos', "go movetime 200")
    assert bestmove(lines)
    lines = recorder.send("go wtime 3000 btime 3000 winc 0 binc 0")
    assert bestmove(lines)
    assert time.perf_counter() - start < 10  # generous: a slow shared machine


def test_quit_ends_the_session_and_stops_a_search() -> None:
    recorder = Recorder()
    recorder.session.handle('position kalah {"pits":6,"seeds":6} startpos')
    recorder.session.handle("go infinite")
    assert recorder.session.handle("quit") is False
    assert recorder.lines[-1].startswith("bestmove ")


# -- over real pipes -------------------------------------------------------------------------


def test_the_engine_subprocess_speaks_the_protocol_and_survives_errors() -> None:
    engine = Engine()
    try:
        engine.send("uci")
        engine.expect("uciok")
        engine.send("isready")
        engine.expect("readyok")
        engine.send("position kalah {} startpos moves 3 4")
        engine.send("go depth 5")
        lines = engine.expect("bestmove ")
        assert [line for line in lines if line.startswith("info depth 5 ")]
        engine.send("this is not a command")
        assert engine.expect("error")[-1] == "error unknown command 'this'"
        engine.send('position kalah {"pits":6,"seeds":6} startpos')
        engine.send("go infinite")
        engine.expect("info depth 2 ")  # Kalah's iterations: 2, 5, 8 ...
        engine.send("isready")
        assert not [line for line in engine.expect("readyok") if line.startswith("bestmove")]
        engine.send("stop")
        move = engine.expect("bestmove ")[-1].split()[1]
        game = make_game("kalah", {"pits": 6, "seeds": 6})
        game.parse_move(game.start(), move)
        engine.send("go movetime 300")
        engine.expect("bestmove ", timeout=10)
        engine.send("quit")
        assert engine.process.wait(timeout=10) == 0
    finally:
        engine.process.kill()
        engine.process.wait()


def test_an_engine_whose_search_fails_answers_its_best_move_so_far_and_goes_on() -> None:
    engine = Engine(FAILING_ENGINE)
    try:
        engine.send("position kalah {} startpos")
        engine.send("go depth 6")
        info, error, best = engine.expect("bestmove ")
        assert info.startswith("info depth 1 ")
        assert error == "error the search failed: RuntimeError('out of luck')"
        assert best == f"bestmove {info.split(' pv ')[1].split()[0]}"
        engine.send("go depth 6")
        assert engine.expect("bestmove ")[-1].startswith("bestmove ")
        engine.send("quit")
        assert engine.process.wait(timeout=10) == 0
    finally:
        engine.process.kill()
        engine.process.wait()


def test_go_right_after_bestmove_starts_the_next_search() -> None:
    """A driver may send `go` the moment it reads `bestmove`, before the thread has returned."""
    lines: list[str] = []
    answered = threading.Event()

    def slow_write(line: str) -> None:
        lines.append(line)
        if line.startswith("bestmove"):
            answered.set()
            time.sleep(0.05)  # the search thread is still alive when the driver reacts

    session = EngineSession(slow_write)
    session.handle("position kalah {} startpos")
    session.handle("go depth 1")
    assert answered.wait(30)
    session.handle("go depth 1")
    session.wait()
    assert not [line for line in lines if line.startswith("error")], lines
    assert sum(line.startswith("bestmove") for line in lines) == 2


def test_a_position_alone_names_its_board_size() -> None:
    lines = Recorder().send("position othello {} -XO--XO--XO----- O", "go depth 1")
    assert bestmove(lines) in ("a1", "a2", "a3", "a4")
    lines = Recorder().send("position kalah {} kalah(2,1) S 1,1/1,1 0,0", "go depth 2")
    assert bestmove(lines) in ("1", "2")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_pits_mismatch_names_the_pits_not_a_made_up_game(backend: str) -> None:
    recorder = Recorder()
    recorder.send(f"setoption name Backend value {backend}")
    lines = recorder.send(f'position kalah {{"pits":6}} {KALAH_43}', "isready")
    assert lines[-1] == "readyok" and len(lines) == 2
    assert "4 pits a side, but the game has 6 (option 'pits')" in lines[0]
    assert "kalah(6,3)" not in lines[0]
    game = make_game("kalah", {}, backend)
    for text, message in (
        (KALAH_43, "4 pits a side, but the game has 6"),
        ("egyptian(6,4) S 4,4,4,4,4,4/4,4,4,4,4,4 0,0", "but the game is kalah"),
        ("kalah(6,13) S 4,4,4,4,4,4/4,4,4,4,4,4 0,0", "seeds per pit are 1..12"),
        ("kalah(6,0) S 4,4,4,4,4,4/4,4,4,4,4,4 0,0", "seeds per pit are 1..12"),
    ):
        with pytest.raises(NotationError, match=message):
            game.parse_position(text)


def backend_action(parser: argparse.ArgumentParser, command: str) -> argparse.Action:
    """The `--backend` argument of one subcommand."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub: argparse.ArgumentParser = commands.choices[command]
    return next(a for a in sub._actions if "--backend" in a.option_strings)


@pytest.mark.timeout(120)
def test_stdio_has_the_backend_flag_of_the_other_commands() -> None:
    parser = build_parser()
    ours, theirs = backend_action(parser, "stdio"), backend_action(parser, "moves")
    assert (ours.help, ours.choices, ours.default) == (theirs.help, theirs.choices, theirs.default)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_stdio_runs_on_the_backend_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    monkeypatch.setenv("UBAO_BACKEND", "auto")
    commands = "uci\ndebug on\nposition kalah {} startpos\ngo depth 1\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(commands))
    status, out, _ = run(capsys, "stdio", "--backend", backend)
    assert status == 0
    lines = out.splitlines()
    assert f"option name Backend type combo default {backend} var auto var python var native" in (
        lines
    )
    assert any(line.endswith(f"{backend} backend") for line in lines if "search:" in line)
    assert bestmove(lines) in "123456"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("clocks", ["wtime -5 btime 100", "btime -1 wtime -20", "wtime -5"])
def test_a_negative_clock_counts_as_zero_and_the_engine_moves(backend: str, clocks: str) -> None:
    recorder = Recorder()
    recorder.send(f"setoption name Backend value {backend}")
    lines = recorder.send("position kalah {} startpos", f"go {clocks}")
    assert not [line for line in lines if line.startswith("error")]
    assert bestmove(lines) in "123456"


HUGE_PIT = "kalah(6,4) S 4,4,4,4,4,2000000/4,4,4,4,4,4 0,0"


HUGE_STORE = "kalah(6,4) S 4,4,4,4,4,4/4,4,4,4,4,4 0,99999999999"


HUGE_HOLE = "00000000/0000000(2000000)/20000000/00000000 S 0-0 -"


HUGE_PLY = "00000000/00000002/20000000/00000000 S 0-0 - ply=2000000000"


@pytest.mark.timeout(120)
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


@pytest.mark.timeout(120)
def test_a_position_refused_on_python_never_reaches_the_native_core() -> None:
    recorder = Recorder()
    recorder.send("setoption name Backend value python")
    assert recorder.send(f"position kalah {{}} {HUGE_PIT}")[0].startswith("error ")
    lines = recorder.send("setoption name Backend value auto", "go depth 2")
    assert lines == ["error go: no position yet; send position first"]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_go_movetime_0_reports_no_score_no_iteration_produced(backend: str) -> None:
    recorder = Recorder()
    recorder.send(f"setoption name Backend value {backend}")
    lines = recorder.send("position kalah {} startpos", "go movetime 0")
    assert bestmove(lines) in "123456"
    assert not [line for line in lines if line.startswith("info depth 0")]


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


@pytest.mark.timeout(120)
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


@pytest.mark.timeout(120)
def test_a_clock_go_without_the_movers_clock_moves_at_once() -> None:
    hard = time_budget(Limits(clocks=(1000, None)), 1).hard_ms
    assert hard is not None and hard <= 1.0
    assert time_budget(Limits(clocks=(None, 5000)), 0).hard_ms == pytest.approx(1.0)
    recorder = Recorder()
    recorder.session.handle("position othello {} startpos moves d3")
    recorder.session.handle("go wtime 1000")  # player 1, White, is to move: no clock of its own
    lines = wait_for_bestmove(recorder)
    game = make_game("othello", {})
    position = game.play_text(game.start(), "d3")
    game.parse_move(position, bestmove(lines))  # raises if illegal


@pytest.mark.timeout(120)
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
    too_big = str(MAX_HASH_MB + 1)
    assert "--hash" in fails([*argv, "--hash", too_big], capsys)
    assert "--hash" in fails([*argv, "--hash", "-1"], capsys)
    with pytest.raises(SystemExit):
        main([argv[0], "--help"])
    assert f"0 to {MAX_HASH_MB})" in " ".join(capsys.readouterr().out.split())


def test_a_huge_go_nodes_is_no_limit_not_a_failed_search() -> None:
    recorder = Recorder()
    got = recorder.send(
        "position kalah {} startpos", "go nodes 99999999999999999999999 depth 4", "isready"
    )
    assert not [line for line in got if line.startswith("error")], got
    assert bestmove(got) and any(line.startswith("info depth 4") for line in got)


FINISHED = 'position kalah {"pits":2,"seeds":1} kalah(2,1) N 0,0/0,0 3,1'


@pytest.mark.timeout(120)
@pytest.mark.parametrize("go", ["go infinite", "go ponder"])
def test_go_infinite_or_ponder_on_a_finished_game_waits_like_a_search(go: str) -> None:
    recorder = Recorder()
    recorder.session.handle(FINISHED)
    recorder.session.handle(go)
    time.sleep(0.2)
    assert recorder.lines == []  # nothing until stop, as a search of a live game
    assert recorder.send("stop") == ["bestmove none"]
    recorder.session.handle(f"{go} depth 3")  # after ponderhit, a search of depth 3 would end
    assert recorder.send("ponderhit" if go == "go ponder" else "stop") == ["bestmove none"]
    assert recorder.send("go depth 3") == ["bestmove none"]  # a bounded go: at once
