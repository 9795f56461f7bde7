"""`ubao-engine moves | play | perft`: the command-line contract scripts depend on."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.engine import BACKENDS, KALAH_43, KALAH_43_JSON, KALAH_START, fails, report, run
from tests.support.server import FAKE_ENGINE
from ubao.engine import backend
from ubao.engine.games import make_game
from ubao.engine.perft import MAX_PERFT_DEPTH, perft
from ubao.engine.tools import cli
from ubao.engine.tools.cli import main

ENGINE = Path(sys.executable).parent / "ubao-engine"
START_BAO = {
    "board": [[0] * 8, [0, 2, 2, 6, 0, 0, 0, 0], [0, 0, 0, 0, 6, 2, 2, 0], [0] * 8],
    "stock": [22, 22],
    "owned": [True, True],
    "to_move": "S",
}


def test_moves_prints_one_legal_move_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "moves", "kalah") == (0, "1\n2\n3\n4\n5\n6\n", "")
    assert run(capsys, "moves", "ethiopian", "--options", '{"pits": 2}')[1].split() == [
        "1L", "1R", "2L", "2R",
    ]  # fmt: skip


def test_moves_reads_a_position_in_notation_or_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    position = "kalah(6,4) S 0,0,0,0,0,1/4,4,4,4,4,4 10,10"
    assert run(capsys, "moves", "kalah", "--position", position)[1] == "6\n"
    _, out, _ = run(capsys, "moves", "bao", "--position-json", json.dumps(START_BAO))
    assert out.split() == ["A6L", "A6R", "A7L", "A7R"]


def test_play_prints_the_position_and_the_result_when_the_game_ends(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "play", "kalah", "3", "6")
    assert (status, out) == (0, "kalah(6,4) N 4,4,0,5,5,0/5,5,5,5,4,4 2,0\n")
    options = '{"pits": 1, "seeds": 1}'
    status, out, _ = run(capsys, "play", "kalah", "--options", options, "1")
    assert status == 0
    assert out.splitlines() == ["kalah(1,1) S 0/0 1,1", "result: draw 1-1 (normal)"]


def test_play_accepts_moves_after_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "play", "othello", "--options", '{"size": 4}', "b1", "a1")
    assert status == 0 and out.strip().endswith(" X")


def test_play_plays_a_complete_game_in_each_mancala_variant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for game in ("kalah", "egyptian", "ethiopian"):
        moves: list[str] = []
        while True:
            _, out, _ = run(capsys, "play", game, *moves, "--json")
            report = json.loads(out)
            if report["over"]:
                break
            _, listed, _ = run(capsys, "moves", game, "--position", report["position"])
            moves.append(listed.split()[0])
        assert sum(report["result"]["score"]) == 48
        assert report["moves"] == moves


@pytest.mark.parametrize(
    ("moves", "says"),
    [
        (["3", "3"], "move 2 ('3'): 3 is illegal: pit 3 holds 0"),
        (["x"], "move 1 ('x'): 'x' is not a move of kalah"),
        (["1", "7"], "move 2 ('7'): '7': pit 7 does not exist"),
    ],
)
def test_a_bad_move_exits_non_zero_naming_the_move_and_why(
    capsys: pytest.CaptureFixture[str], moves: list[str], says: str
) -> None:
    status, out, err = run(capsys, "play", "kalah", *moves)
    assert status == 2 and out == "" and says in err


def test_json_errors_are_machine_readable(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "play", "kalah", "3", "3", "--json")
    assert status == 2
    assert json.loads(out) == {
        "error": "move 2 ('3'): 3 is illegal: pit 3 holds 0: it is empty",
        "kind": "IllegalMoveError",
    }


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["moves", "kalah", "--options", "{pits"], "--options is not valid JSON"),
        (["moves", "kalah", "--options", "[1]"], "must be a JSON object"),
        (["moves", "kalah", "--options", '{"pits": 40}'], "'pits' must be an integer"),
        (["moves", "kalah", "--position", "kalah(6,4) S"], "4 fields"),
        (["moves", "bao", "--position-json", "{"], "--position-json is not valid JSON"),
        (["perft", "kalah", "--depth", "-1"], "--depth must be from 0 to 1000"),
    ],
)
def test_bad_arguments_exit_non_zero_with_the_reason(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    status, _, err = run(capsys, *argv)
    assert status == 2 and says in err


def test_perft_counts_sequences_and_reports_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "perft", "kalah", "--depth", "3")[1] == "185\n"
    _, out, _ = run(capsys, "perft", "othello", "--depth", "4", "--json")
    assert json.loads(out)["nodes"] == 244


def test_the_console_script_is_installed_and_speaks_the_same() -> None:
    result = subprocess.run(
        [str(ENGINE), "play", "kalah", "3", "--json"], capture_output=True, text=True, check=True
    )
    report = json.loads(result.stdout)
    assert report["position"] == "kalah(6,4) S 4,4,0,5,5,5/4,4,4,4,4,4 1,0"
    assert report["to_move"] == 0 and report["result"] is None


def test_a_position_alone_names_its_board_size(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "moves", "kalah", "--position", "kalah(3,2) S 2,0,1/2,2,2 1,0")
    assert (status, out.split()) == (0, ["1", "3"])
    board = "-XO--XO--XO-----"
    assert run(capsys, "moves", "othello", "--position", f"{board} O")[1].split() == [
        "a1", "a2", "a3", "a4",
    ]  # fmt: skip
    status, _, err = run(
        capsys,
        "moves",
        "kalah",
        "--options",
        '{"pits": 6}',
        "--position",
        "kalah(3,2) S 1,1,1/1,1,1 0,0",
    )
    assert status == 2 and "is for 'kalah(3,2)'" in err, "explicit options win and must agree"


def first_progress_line(*args: str) -> str:
    """The first line `ubao-engine ARGS --progress always` writes on stderr; then it is killed."""
    running = subprocess.Popen(
        [str(ENGINE), *args, "--progress", "always"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert running.stderr is not None
        return running.stderr.readline()
    finally:
        running.kill()
        running.wait()


def test_a_solve_too_big_to_finish_says_it_is_still_at_work() -> None:
    """8x8 Othello from the start: no probe ends soon, so a line every few seconds says that
    the solver runs, how fast, and how to stop it."""
    line = first_progress_line("solve", "othello")
    assert line.startswith("still solving after ") and "Ctrl-C stops" in line, line


def test_a_long_native_probe_says_how_many_positions_it_expanded() -> None:
    """Kalah (6,5) without a database: the native core's first probe takes minutes, and the
    line counts its positions as they go (it said 0 until the probe ended)."""
    kalah65 = ("kalah", "--options", '{"seeds": 5}', "--db", "0", "--hash", "64")
    line = first_progress_line("solve", *kalah65)
    assert line.startswith("still solving after "), line
    assert int(line.split(": ")[1].split()[0]) > 0, line


BOARD_4X4 = "-----OX--XO----- X"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("game", "options", "text", "data"),
    [
        ("othello", "{}", BOARD_4X4, BOARD_4X4),
        ("kalah", "{}", KALAH_43, KALAH_43_JSON),
        ("kalah", '{"pits": 4}', KALAH_43, KALAH_43_JSON),
        ("kalah", '{"seeds": 5}', KALAH_43, KALAH_43_JSON),
    ],
)
def test_the_json_position_fills_in_options_as_the_text_does(
    capsys: pytest.CaptureFixture[str],
    backend: str,
    game: str,
    options: str,
    text: str,
    data: Any,
) -> None:
    common = ("moves", game, "--options", options, "--backend", backend)
    from_text = report(capsys, *common, "--position", text)
    from_json = report(capsys, *common, "--position-json", json.dumps(data))
    assert from_json == from_text
    assert from_json["moves"] and from_json["options"] == from_text["options"]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_given_options_win_over_the_json_position_and_must_agree(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    for argv in (
        ("othello", "--options", '{"size": 8}', "--position-json", json.dumps(BOARD_4X4)),
        ("kalah", "--options", '{"pits": 6}', "--position-json", json.dumps(KALAH_43_JSON)),
    ):
        status, _, err = run(capsys, "moves", *argv, "--backend", backend)
        assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert (
        report(capsys, "moves", "kalah", "--position-json", json.dumps(KALAH_START))["options"][
            "pits"
        ]
        == 6
    )


@pytest.mark.timeout(120)
def test_the_cli_says_which_json_field_is_wrong_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(
        capsys, "moves", "kalah", "--position-json", json.dumps({**KALAH_START, "x": 1}), "--json"
    )
    assert status == 2 and len(err.strip().splitlines()) == 1 and "'x'" in err
    assert json.loads(out)["kind"] == "PositionError"


HUGE_PIT = "kalah(6,4) S 4,4,4,4,4,2000000/4,4,4,4,4,4 0,0"


@pytest.mark.timeout(120)
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


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_perft_refuses_a_depth_beyond_the_bound_in_one_line(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    for depth in ("99999", str(MAX_PERFT_DEPTH + 1), "-1"):
        status, _, err = run(capsys, "perft", "kalah", "--depth", depth, "--backend", backend)
        assert status == 2 and err.strip().splitlines() == [
            f"ubao-engine perft: --depth must be from 0 to {MAX_PERFT_DEPTH}"
        ]
    game = make_game("kalah", backend=backend)
    with pytest.raises(ValueError, match="from 0 to 1000"):
        perft(game, game.start(), 99999)
    assert perft(game, game.start(), 1) == 6


MATCH = ["match", "kalah", "--engine1", "depth=1"]
"""A match command, its second engine to come."""


FAKE = f"{sys.executable} {FAKE_ENGINE} --mode"
"""tests/support/fake_engine.py, its misbehaviour to come."""


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["analyse", "kalah", "--depth", "201"], "--depth must be from 1 to 200"),
        (["match", "kalah", "--engine1", "depth=300", "--engine2", "depth=2"], "from 1 to 200"),
        (
            [*MATCH, "--engine2", "/nonexistent"],
            "the engine '/nonexistent' did not start: cannot start /nonexistent",
        ),
        (
            [*MATCH, "--engine2", f"{sys.executable} -c pass"],
            "did not start: engine exited (code 0)",
        ),
        ([*MATCH, "--engine2", "'unclosed"], "No closing quotation"),
        (
            [*MATCH, "--games", "1", "--engine2", f"{FAKE} illegal"],
            "answered '9Z': '9Z' is not a move",
        ),
        ([*MATCH, "--games", "1", "--engine2", f"{FAKE} crash"], "engine exited (code 3)"),
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


@pytest.mark.timeout(120)
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


@pytest.mark.timeout(120)
def test_the_help_of_each_command_parses() -> None:
    """Every parser the new argument types sit in still builds (no duplicate options)."""
    assert isinstance(cli.build_parser(), argparse.ArgumentParser)


@pytest.mark.timeout(120)
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


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "argv",
    [
        ["analyse", "kalah", "--depth", "2", "--trace", "--trace-depth", "0"],
        ["analyse", "kalah", "--depth", "2", "--trace", "--trace-lines", "0"],
        ["match", "kalah", "--engine1", "depth=2,depth=3", "--engine2", "depth=1"],
    ],
)
def test_limits_that_mean_nothing_and_settings_given_twice_are_refused(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    line = fails(argv, capsys)
    assert "must be 1 or more" in line or "depth given twice" in line, line


@pytest.mark.timeout(120)
def test_a_backend_the_environment_cannot_have_is_named_on_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ubao.engine", "--version"],
        env={"UBAO_BACKEND": "nope", "COLUMNS": "80"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.count("\n") == 1 and "UBAO_BACKEND='nope'" in result.stdout
