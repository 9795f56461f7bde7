"""`ubao-engine moves | play | perft`: the command-line contract scripts depend on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.engine import BACKENDS, report, run
from ubao.engine.games import make_game
from ubao.engine.perft import MAX_DEPTH, perft

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


KALAH_43 = "kalah(4,3) S 3,3,3,3/3,3,3,3 0,0"


KALAH_43_JSON = {
    "game": "kalah(4,3)",
    "pits": [[3, 3, 3, 3], [3, 3, 3, 3]],
    "stores": [0, 0],
    "to_move": "S",
}


KALAH_START = {
    "game": "kalah(6,4)",
    "pits": [[4] * 6, [4] * 6],
    "stores": [0, 0],
    "to_move": "S",
}


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
    for depth in ("99999", str(MAX_DEPTH + 1), "-1"):
        status, _, err = run(capsys, "perft", "kalah", "--depth", depth, "--backend", backend)
        assert status == 2 and err.strip().splitlines() == [
            f"ubao-engine perft: --depth must be from 0 to {MAX_DEPTH}"
        ]
    game = make_game("kalah", backend=backend)
    with pytest.raises(ValueError, match="from 0 to 1000"):
        perft(game, game.start(), 99999)
    assert perft(game, game.start(), 1) == 6
