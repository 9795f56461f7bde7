"""QA round 8 of the engine: `--position-json` fills in options as `--position` does, a mancala
position's seeds per pit are free, the Kalah JSON form checked field by field, Bao's one-line
extras, `ubao-engine stdio --backend`, a negative clock in `go`, and typed errors for values of
the wrong type through the API."""

from __future__ import annotations

import argparse
import io
import json
from typing import Any

import pytest

from tests.support.engine import BACKENDS
from tests.tools.test_cli import run
from tests.tools.test_stdio import Recorder, bestmove
from ubao.engine.game import (
    IllegalMoveError,
    NotationError,
    OptionsError,
    PositionError,
)
from ubao.engine.games import GAMES, make_game
from ubao.engine.tools.cli import build_parser
from ubao.engine.tools.stdio import ProtocolError, parse_go

pytestmark = pytest.mark.timeout(120)


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


def report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """The `--json` report of a command that must succeed."""
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


# -- 1. --position-json fills in the options as --position does -------------------------------


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


# -- 2. a mancala position's seeds per pit are free, its pits are not -------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_position_need_not_name_the_seeds_option(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 4}, backend)
    position = game.parse_position(KALAH_43)
    assert position == game.parse_position("kalah(4,4) S 3,3,3,3/3,3,3,3 0,0")
    assert game.format_position(position) == "kalah(4,4) S 3,3,3,3/3,3,3,3 0,0"
    assert game.parse_position_json(KALAH_43_JSON) == position
    data = report(
        capsys, "moves", "kalah", "--options", '{"seeds": 4}', "--position", KALAH_43,
        "--backend", backend,
    )  # fmt: skip
    assert data["moves"] == ["1", "2", "3", "4"] and data["position"].startswith("kalah(4,4) ")


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


# -- 3. the Kalah JSON form, field by field ---------------------------------------------------

BAD_JSON: list[tuple[Any, str]] = [
    ({}, "missing field.*'game', 'pits'"),
    ([1, 2], "must be an object"),
    (None, "must be an object"),
    ({k: v for k, v in KALAH_START.items() if k != "game"}, "missing field.*'game'"),
    ({**KALAH_START, "extra": 1}, "unknown field.*'extra'"),
    ({**KALAH_START, "pits": [[4] * 6, ["4", 4, 4, 4, 4, 4]]}, "'pits' North's row.*'4'"),
    ({**KALAH_START, "pits": [[4] * 6, [4, 4, 4, 4, 4, True]]}, "'pits' North's row.*True"),
    ({**KALAH_START, "pits": [[4] * 6, [4, 4, 4, 4, 4, 4.0]]}, "'pits' North's row.*4.0"),
    ({**KALAH_START, "pits": [[4] * 6, "4,4"]}, "'pits' North's row must be a list of 6"),
    ({**KALAH_START, "pits": [[4] * 6, [4] * 7]}, "'pits' North's row must be a list of 6"),
    ({**KALAH_START, "pits": [[4] * 6]}, "'pits' must be 2 lists"),
    ({**KALAH_START, "pits": [[4] * 6, [-1] + [4] * 5]}, "non-negative"),
    ({**KALAH_START, "pits": [[4] * 6, [2_000_000] + [4] * 5]}, "at most 1,000,000"),
    ({**KALAH_START, "stores": [0, "0"]}, "'stores'.*'0'"),
    ({**KALAH_START, "stores": 0}, "'stores' must be a list of 2"),
    ({**KALAH_START, "to_move": 0}, "'to_move' must be 'S' or 'N', not 0"),
    ({**KALAH_START, "to_move": "W"}, "'to_move'"),
    ({**KALAH_START, "game": 6}, "'game' must be a string"),
    ({**KALAH_START, "game": "egyptian(6,4)"}, "'game'.*but the game is kalah"),
    ({**KALAH_START, "game": "kalah(4,4)"}, "'game'.*4 pits a side"),
    ({**KALAH_START, "pits": [[0] * 6, [0] * 6]}, "at least one seed"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("data", "message"), BAD_JSON)
def test_the_kalah_json_form_is_checked_field_by_field(
    backend: str, data: Any, message: str
) -> None:
    game = make_game("kalah", {}, backend)
    with pytest.raises(PositionError, match=message) as refused:
        game.parse_position_json(data)
    assert "\n" not in str(refused.value) and str(refused.value).startswith("bad kalah position")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["kalah", "egyptian", "ethiopian"])
def test_the_json_form_round_trips_and_takes_the_bare_name(backend: str, name: str) -> None:
    game = make_game(name, {}, backend)
    position = game.play(game.start(), game.legal_moves(game.start())[0])
    data = game.position_json(position)
    assert data["game"] == f"{name}(6,4)"
    assert game.parse_position_json(data) == position
    assert game.parse_position_json({**data, "game": name}) == position


def test_the_cli_says_which_json_field_is_wrong_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(
        capsys, "moves", "kalah", "--position-json", json.dumps({**KALAH_START, "x": 1}), "--json"
    )
    assert status == 2 and len(err.strip().splitlines()) == 1 and "'x'" in err
    assert json.loads(out)["kind"] == "PositionError"


# -- 4. Bao's one-line extras -----------------------------------------------------------------

OVER_WITH_HAND = "00000000/00000000/00006220/00000000 N 0-0 SN hand=3"
"""North to move with an empty front row: the game ended by a capture, 3 seeds in hand."""
NO_HAND = "only after a capture ended the game"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("00000000/02260000/00006220/00000000 S 0-0 SN hand=3", NO_HAND),
        ("00000000/00000000/00006220/00000000 S 0-0 SN hand=3", NO_HAND),
        ("00000000/02260000/00006220/00000000 S 0-0 SN ply=3 ply=4", "'ply' is given twice"),
        ("00000000/02260000/00006220/00000000 S 0-0 SN endless endless", "'endless' is given"),
        (f"{OVER_WITH_HAND} hand=3", "'hand' is given twice"),
    ],
)
def test_bao_refuses_a_repeated_field_and_a_hand_in_a_game_not_over(
    backend: str, text: str, message: str
) -> None:
    game = make_game("bao", {}, backend)
    with pytest.raises(NotationError, match=message):
        game.parse_position(text)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bao_keeps_a_hand_where_a_capture_ended_the_game(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    game = make_game("bao", {}, backend)
    position = game.parse_position(OVER_WITH_HAND)
    assert game.format_position(position) == OVER_WITH_HAND
    outcome = game.outcome(position)
    assert outcome is not None and outcome.winner == 0 and outcome.score == (13, 0)
    data = game.position_json(position)
    assert game.parse_position_json(data) == position
    not_over = {**data, "board": [[0] * 8, [0, 0, 0, 0, 0, 0, 0, 1], *data["board"][2:]]}
    with pytest.raises(NotationError, match=NO_HAND):
        game.parse_position_json(not_over)
    text = "00000000/02260000/00006220/00000000 S 0-0 SN hand=3"
    status, out, err = run(capsys, "moves", "bao", "--position", text, "--backend", backend)
    assert (status, out) == (2, "") and NO_HAND in err


# -- 5. ubao-engine stdio --backend -----------------------------------------------------------


def backend_action(parser: argparse.ArgumentParser, command: str) -> argparse.Action:
    """The `--backend` argument of one subcommand."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub: argparse.ArgumentParser = commands.choices[command]
    return next(a for a in sub._actions if "--backend" in a.option_strings)


def test_stdio_has_the_backend_flag_of_the_other_commands() -> None:
    parser = build_parser()
    ours, theirs = backend_action(parser, "stdio"), backend_action(parser, "moves")
    assert (ours.help, ours.choices, ours.default) == (theirs.help, theirs.choices, theirs.default)


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


# -- 6. a negative clock in go ----------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("clocks", ["wtime -5 btime 100", "btime -1 wtime -20", "wtime -5"])
def test_a_negative_clock_counts_as_zero_and_the_engine_moves(backend: str, clocks: str) -> None:
    recorder = Recorder()
    recorder.send(f"setoption name Backend value {backend}")
    lines = recorder.send("position kalah {} startpos", f"go {clocks}")
    assert not [line for line in lines if line.startswith("error")]
    assert bestmove(lines) in "123456"


def test_negative_clocks_parse_as_zero_and_other_negatives_stay_refused() -> None:
    assert parse_go(["wtime", "-5", "btime", "100"]).clocks == (0, 100)
    for words in (["winc", "-1"], ["binc", "-1"], ["movetime", "-1"], ["movestogo", "-1"]):
        with pytest.raises(ProtocolError, match=words[0]):
            parse_go(words)


# -- 7. typed errors for values of the wrong type ---------------------------------------------

WRONG_TYPES: list[Any] = [None, 3, 19.0, True, b"3", ["3"]]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_wrong_types_raise_the_games_own_errors(backend: str, name: str) -> None:
    game = make_game(name, {}, backend)
    start = game.start()
    for value in WRONG_TYPES:
        with pytest.raises(NotationError):
            game.parse_move(start, value)
        with pytest.raises(NotationError):
            game.parse_position(value)
        if not isinstance(value, bytes | list) and type(value) is not int:  # 3 may be legal
            with pytest.raises(IllegalMoveError):
                game.play(start, value)
    wrong_options: list[Any] = [[1], "size", 5, {1: 2}, {None: 1, "pits": 4}]
    for options in wrong_options:
        with pytest.raises(OptionsError):
            make_game(name, options, backend)
    for bad_name in (["kalah"], None, 3):
        with pytest.raises(OptionsError):
            make_game(bad_name, {}, backend)  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", BACKENDS)
def test_othello_play_refuses_a_float_or_a_bool_square(backend: str) -> None:
    othello = make_game("othello", {}, backend)
    start = othello.start()
    for move in (19.0, True, 19.5):
        with pytest.raises(IllegalMoveError, match="not an othello move"):
            othello.play(start, move)
        with pytest.raises(IllegalMoveError, match="not an othello move"):
            othello.format_move(start, move)
    assert othello.play(start, 19) != start  # d3, an int, stays a move


@pytest.mark.parametrize("backend", BACKENDS)
def test_ethiopian_play_names_a_move_of_the_wrong_type(backend: str) -> None:
    game = make_game("ethiopian", {}, backend)
    for move in (None, "3", 3.0):
        with pytest.raises(IllegalMoveError, match="not a move of ethiopian"):
            game.play(game.start(), move)
