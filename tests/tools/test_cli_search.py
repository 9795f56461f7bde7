"""`ubao-engine analyse` and `solve`, and `python -m ubao.engine` as the same program."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.engine import fails
from tests.support.engine import run as run_status
from ubao.engine.backend import NATIVE_BUILT
from ubao.engine.games import make_game
from ubao.engine.mancala.game import Mancala
from ubao.engine.tools import bench, cli
from ubao.engine.tools.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(*argv: str) -> tuple[str, str]:
    """`ubao-engine ARGV` in process: (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(list(argv))
    return out.getvalue(), err.getvalue()


def test_analyse_prints_the_move_score_pv_and_statistics() -> None:
    out, _ = run("analyse", "kalah", "--depth", "5")
    assert "best move: " in out
    assert "score: " in out and "pv: " in out
    assert "generated" in out and "expanded" in out and "cut-offs" in out
    assert "table hits" in out and "nodes/s" in out and "table entries" in out
    assert [line for line in out.splitlines() if line.startswith("depth  5")]


def test_analyse_json_has_every_statistic() -> None:
    out, _ = run(
        "analyse",
        "kalah",
        "--options",
        '{"pits":4,"seeds":3}',
        "--depth",
        "4",
        "--algorithm",
        "alphabeta",
        "--eval",
        "mobility",
        "--memory",
        "--backend",
        "python",  # tracemalloc measures the Python search; a native one reports no peak
        "--json",
    )
    data = json.loads(out)
    assert (data["algorithm"], data["evaluation"]) == ("alphabeta", "mobility")
    assert data["pv"][0] == data["move"]
    stats = data["stats"]
    for key in ("generated", "expanded", "evaluated", "cutoffs", "table_hits", "depth", "nps"):
        assert key in stats
    assert stats["depth"] == 4 and stats["peak_memory"] > 0


def test_analyse_says_whether_probcut_prunes_and_no_probcut_switches_it_off() -> None:
    """On 8x8 Othello a search on a clock (or deeper than 10 plies) prunes by multi-ProbCut
    unless told not to; one asked for 10 plies or fewer is full width."""
    selective = json.loads(run("analyse", "othello", "--time-ms", "100", "--json")[0])
    full = json.loads(run("analyse", "othello", "--time-ms", "100", "--no-probcut", "--json")[0])
    assert selective["probcut"] and not full["probcut"]
    assert "strength mode, ProbCut," in run("analyse", "othello", "--time-ms", "50")[0]
    assert not json.loads(run("analyse", "othello", "--depth", "3", "--json")[0])["probcut"]
    assert "ProbCut" not in run("analyse", "othello", "--depth", "3")[0]
    assert not json.loads(run("analyse", "kalah", "--depth", "3", "--json")[0])["probcut"]


def test_analyse_trace_prints_the_tree_and_keeps_json_on_stdout_clean() -> None:
    out, err = run(
        "analyse", "kalah", "--options", '{"pits":2,"seeds":2}', "--depth", "3", "--trace",
        "--json",
    )  # fmt: skip
    json.loads(out)
    assert "negamax to depth 3" in err and "window" in err


def test_analyse_with_a_time_limit_stops_in_time() -> None:
    out, _ = run("analyse", "kalah", "--options", '{"seeds":6}', "--time-ms", "200", "--json")
    data = json.loads(out)
    assert data["stopped"] and data["move"]
    assert data["stats"]["seconds"] < 3


def test_analyse_of_a_finished_game_says_so() -> None:
    out, _ = run(
        "analyse", "kalah", "--options", '{"pits":2,"seeds":1}', "--position",
        "kalah(2,1) N 0,0/0,0 3,1", "--depth", "2",
    )  # fmt: skip
    assert "best move: none, the game is over" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["analyse", "kalah"], "--depth N, --time-ms MS"),
        (["analyse", "kalah", "--depth", "0"], "--depth must be from 1 to 200"),
        (["analyse", "kalah", "--depth", "2", "--eval", "nope"], "no evaluation 'nope'"),
        (["bench", "--algorithms", "nope"], "unknown nope"),
        (["bench", "--depths", "2,x"], "--depths must be integers"),
        (["bench", "--speed", "--games", "chess"], "unknown game(s) chess"),
        (["bench", "--solve", "--cells", "3by3"], "is not PITSxSEEDS"),
    ],
)
def test_command_errors_exit_with_status_2_and_say_what_is_wrong(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_solve_prints_the_value_and_a_line_of_best_play() -> None:
    out, _ = run("solve", "kalah", "--options", '{"pits":3,"seeds":2}')
    assert out.startswith("value: +4 (player 0's final score minus player 1's): player 0 wins")
    data = json.loads(run("solve", "kalah", "--options", '{"pits":2,"seeds":4}', "--json")[0])
    assert (data["value"], data["wdl"], data["winner"]) == (-12, "L", 1)
    assert data["pv"][0] == data["move"]


def test_solve_wld_prints_who_wins_and_a_move_that_keeps_it() -> None:
    out, _ = run("solve", "kalah", "--options", '{"pits":3,"seeds":2}', "--wld")
    assert out.splitlines()[0] == (
        "result: player 0 wins (win, draw or loss only: the margin is not sought)"
    )
    assert out.splitlines()[1].startswith("move that keeps it: ")
    data = json.loads(
        run("solve", "kalah", "--options", '{"pits":2,"seeds":4}', "--wld", "--json")[0]
    )
    assert (data["wdl"], data["winner"]) == ("L", 1) and "value" not in data
    assert data["move"] in ("1", "2") and data["probes"] >= 1


def test_python_dash_m_engine_is_ubao_engine() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ubao.engine", "analyse", "kalah", "--depth", "3", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout)["stats"]["depth"] == 3


NORTH_STUCK = "00000011/11111111/20000000/00000000 S 0-0 -"
"""South's only move, A1R, leaves North without a legal move: South wins with fewer seeds."""


SOUTH_LOSES = "00000000/00000002/20000000/00000000 S 0-0 -"
"""A forced loss for South, with equal seeds at the end."""


@pytest.mark.timeout(120)
def test_the_cli_solve_says_who_wins(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_status(capsys, "solve", "bao", "--position", NORTH_STUCK)
    assert status == 0 and "player 0 wins" in out.splitlines()[0]
    status, out, _ = run_status(capsys, "solve", "bao", "--position", SOUTH_LOSES, "--json")
    assert status == 0 and (json.loads(out)["winner"], json.loads(out)["wdl"]) == (1, "L")


@pytest.mark.timeout(120)
def test_a_game_whose_positions_repeat_is_refused_for_that_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = run_status(capsys, "solve", "ethiopian", "--options", '{"pits":3,"seeds":2}')
    assert status == 2 and "positions can repeat" in err and "too long to solve" not in err


@pytest.mark.timeout(120)
def test_analyse_minimax_with_a_depth_and_a_time_prints_a_searched_depth(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["analyse", "kalah", "--algorithm", "minimax", "--depth", "40", "--time-ms", "300"])
    out = capsys.readouterr().out
    assert re.search(r"^depth +1 +score", out, re.MULTILINE), out
    reached = re.search(r"^depth (\d+) \(stopped by the time limit\)", out, re.MULTILINE)
    assert reached is not None and int(reached.group(1)) >= 1, out


@pytest.mark.timeout(120)
@pytest.mark.parametrize("value", ["0", "-5", "nan", "x"])
def test_analyse_refuses_a_time_that_is_not_positive(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "--time-ms" in fails(["analyse", "kalah", f"--time-ms={value}"], capsys)


@pytest.mark.timeout(120)
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


@pytest.mark.timeout(120)
def test_analyse_stopped_before_its_first_iteration_has_a_move_but_no_score(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["analyse", "kalah", "--time-ms", "0.001", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["stats"]["depth"] == 0 and data["move"] is not None
    assert data["score"] is None and data["score_text"] is None and data["pv"] == []
    main(["analyse", "kalah", "--time-ms", "0.001"])
    assert "score: none, no iteration completed in time" in capsys.readouterr().out


@pytest.mark.timeout(120)
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
