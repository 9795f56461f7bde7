"""QA round 10 of the engine's tools: `match` against an external engine that writes bytes that
are not UTF-8 or refuses a position; `go` limits in ASCII digits only; `go infinite` and
`go ponder` on a finished game answer only when a search would; `analyse` stopped before its
first iteration claims no score; trace limits and settings given twice refused; a wrong
UBAO_BACKEND on one line of `--version`."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.support.engine import fails
from tests.support.server import FAKE_ENGINE
from tests.tools.test_stdio import Recorder
from ubao.engine.backend import NATIVE_BUILT
from ubao.engine.games import make_game
from ubao.engine.tools.cli import main
from ubao.engine.tools.stdio import Go, ProtocolError, parse_go, time_budget

pytestmark = pytest.mark.timeout(120)  # a match that hangs fails instead of waiting for ever

SMALL = '{"pits":3,"seeds":2}'
FINISHED = 'position kalah {"pits":2,"seeds":1} kalah(2,1) N 0,0/0,0 3,1'


@pytest.mark.parametrize("limit", ["depth=2", "time=50"])
def test_an_engine_line_that_is_not_utf8_is_read_and_the_match_plays_on(
    limit: str, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = f"{sys.executable} {FAKE_ENGINE} --mode bad-bytes"
    main(["match", "kalah", "--options", SMALL, "--games", "2", "--engine1", limit,
          "--engine2", engine, "--json"])  # fmt: skip
    captured = capsys.readouterr()
    assert '"games": 2' in captured.out and "Traceback" not in captured.err


@pytest.mark.parametrize("limit", ["depth=2", "time=50"])
def test_a_refused_position_ends_the_match_quoting_the_engine(
    limit: str, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = f"{sys.executable} {FAKE_ENGINE} --mode refuse-position"
    line = fails(
        ["match", "kalah", "--options", SMALL, "--games", "2", "--engine1", limit,
         "--engine2", engine],
        capsys,
    )  # fmt: skip
    assert "refused the position: error move 1 (1): that pit is empty" in line, line


@pytest.mark.parametrize("value", ["٥", "1_0", "５", "+5", "5.0"])
def test_go_limits_are_ascii_integers(value: str) -> None:
    with pytest.raises(ProtocolError, match="must be an integer"):
        parse_go(["depth", value])
    assert parse_go(["wtime", "-20", "btime", "100"]).clocks == (0, 100)


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


def test_analyse_stopped_before_its_first_iteration_has_a_move_but_no_score(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["analyse", "kalah", "--time-ms", "0.001", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["stats"]["depth"] == 0 and data["move"] is not None
    assert data["score"] is None and data["score_text"] is None and data["pv"] == []
    main(["analyse", "kalah", "--time-ms", "0.001"])
    assert "score: none, no iteration completed in time" in capsys.readouterr().out


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


def test_a_backend_the_environment_cannot_have_is_named_on_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ubao.engine", "--version"],
        env={"UBAO_BACKEND": "nope", "COLUMNS": "80"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.count("\n") == 1 and "UBAO_BACKEND='nope'" in result.stdout


def test_sudden_death_on_16x16_othello_plans_over_the_moves_the_board_has_left() -> None:
    """Each move spends its whole hard budget and 8 ms of the driver's: planning over 30 moves
    flagged at move 83 of 126 with a minute on the clock; planning over half the empty squares
    finishes the game with time to spare."""
    game = make_game("othello", {"size": 16})
    position = game.start()
    assert game.moves_to_go(position) == 126
    left = 60_000
    for played in range(126):
        moves_to_go = game.moves_to_go(position)
        hard, _ = time_budget(Go(clocks=(left, left)), game.to_move(position), 10, moves_to_go)
        assert hard is not None
        left -= int(hard) + 8
        assert left > 0, f"flagged at move {played}"
        taken = position.black | position.white
        empty = [square for square in range(256) if not taken >> square & 1][:2]
        position = position._replace(black=position.black | sum(1 << s for s in empty))
    assert make_game("kalah").moves_to_go(make_game("kalah").start()) is None


@pytest.mark.parametrize("game", ["kalah", "othello", "egyptian"])
def test_analyse_json_is_the_same_on_both_backends(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Python search's integer evaluations once gave `"score": 3` where the native one
    gave `3.0`: a driver comparing the two saw them differ."""
    reports = []
    for backend in ["python", "native"] if NATIVE_BUILT else ["python"]:
        main(["analyse", game, "--depth", "4", "--exact", "--json", "--backend", backend])
        data = json.loads(capsys.readouterr().out)
        assert isinstance(data["score"], float)
        del data["stats"]["seconds"], data["stats"]["nps"]
        reports.append(data)
    assert reports[0] == reports[-1]
