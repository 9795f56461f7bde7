"""QA round 8 of `ubao-engine match` and `bench`: an external engine silent after `go` is
stopped, then given up on; no peak memory claimed for the native search; times fine enough to
compare; options a bench mode ignores refused; `bench --backend`; an even score's Elo is 0.0;
an opening that ends the game is drawn again."""

from __future__ import annotations

import json
import math
import random
import re
import sys
from pathlib import Path

import pytest

from tests.support.engine import fails, needs_native
from tests.support.server import FAKE_ENGINE
from ubao.engine.backend import NATIVE_BUILT
from ubao.engine.games import make_game
from ubao.engine.tools import match
from ubao.engine.tools.cli import main
from ubao.engine.tools.match import EngineSpec, MatchReport, OpeningError, opening, run_match

pytestmark = pytest.mark.timeout(120)  # a match that hangs fails instead of waiting for ever

SMALL = '{"pits":3,"seeds":2}'
MATCH = ["match", "kalah", "--options", SMALL, "--games", "2", "--engine1", "time=50"]

ANSWERS_AT_STOP = """\
import json, sys
from ubao.engine.games import make_game
game = position = None
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["uci"]:
        print("uciok", flush=True)
    elif words[:1] == ["isready"]:
        print("readyok", flush=True)
    elif words[:1] == ["position"]:
        game = make_game(words[1], json.loads(words[2]))
        position = game.parse_position(" ".join(words[3:words.index("moves")])
                                       if "moves" in words else " ".join(words[3:]))
        if "moves" in words:
            for text in words[words.index("moves") + 1:]:
                position = game.play_text(position, text)
    elif words[:1] == ["go"]:
        print("info depth 1", flush=True)  # and then nothing until stop
    elif words[:1] == ["stop"]:
        move = game.legal_moves(position)[0]
        print("bestmove", game.format_move(position, move), flush=True)
    elif words[:1] == ["quit"]:
        break
"""
"""An engine that overruns every `movetime` but answers `stop` at once, as UCI asks."""


def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Margins short enough for a fast test; a silent engine stays silent however long."""
    monkeypatch.setattr(match, "MOVE_MARGIN_SECONDS", 0.5)
    monkeypatch.setattr(match, "STOP_GRACE_SECONDS", 0.5)
    monkeypatch.setattr(match, "QUIT_SECONDS", 5.0)


# -- 1. an external engine that never answers `go` ----------------------------------------------


@pytest.mark.parametrize("mode", ["hang", "hang-info"])
def test_an_engine_silent_after_go_ends_a_timed_match_in_one_line(
    mode: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    short_waits(monkeypatch)
    engine = f"{sys.executable} {FAKE_ENGINE} --mode {mode}"
    line = fails([*MATCH, "--engine2", engine], capsys)
    assert line.startswith("ubao-engine match: the engine "), line
    assert "did not answer bestmove within 0.55 s of 'go movetime 50'" in line, line
    assert "nor within 0.5 s of stop" in line, line


def test_an_engine_that_answers_only_stop_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    short_waits(monkeypatch)
    script = tmp_path / "late_engine.py"
    script.write_text(ANSWERS_AT_STOP)
    main([*MATCH, "--engine2", f"{sys.executable} {script}", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 2


# -- 2. and 3. peak memory and times in the games table -----------------------------------------


def bench_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    main(["bench", "--options", SMALL, "--depths", "1,2", "--evals", "store_diff", *argv])
    rows: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return rows


@needs_native
def test_no_peak_memory_is_claimed_for_the_native_search(
    capsys: pytest.CaptureFixture[str],
) -> None:
    native = bench_json(["--memory", "--backend", "native", "--json"], capsys)
    assert {row["search"] for row in native} == {"native"}
    assert all(row["peak_memory"] is None for row in native)
    python = bench_json(["--memory", "--backend", "python", "--json"], capsys)
    assert {row["search"] for row in python} == {"python"}
    assert all(isinstance(row["peak_memory"], int) and row["peak_memory"] > 0 for row in python)
    main(["bench", "--options", SMALL, "--depths", "1", "--memory", "--backend", "native"])
    table = capsys.readouterr().out.splitlines()
    header = table[1].split()
    peak = header.index("peak") - 1  # "time ms" before it: one column, two words
    assert table[2].split()[peak] == "-"
    assert table[-1].endswith("(tracemalloc slows the search), not in native searches")


def test_the_games_table_prints_times_in_tenths_of_a_millisecond(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["bench", "--options", SMALL, "--depths", "1,2", "--evals", "store_diff"])
    table = capsys.readouterr().out.splitlines()
    header = table[1].split()
    assert "ms" in header and "s" not in header
    column = header.index("time")
    times = [line.split()[column] for line in table[2:4]]
    assert all(re.fullmatch(r"\d+\.\d", text) for text in times), times


def test_csv_and_json_keep_the_full_precision_of_the_seconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = bench_json(["--json"], capsys)
    seconds = [row["seconds"] for row in rows]
    assert all(isinstance(value, float) and value > 0 for value in seconds)
    assert any(round(value, 2) != value for value in seconds if isinstance(value, float))


# -- 4. and 5. options a mode does not use; --backend ---------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--speed", "--depths", "3", "--games", "kalah", "--seconds", "0.01"], "--depths is not"),
        (["--speed", "--depths", "2,3,4,5", "--seconds", "0.01"], "--depths is not"),
        (["--solve", "--game", "othello", "--cells", "2x2"], "--game is not used by --solve"),
        (["--solve", "--cells", "2x2", "--hash", "1", "--exact"], "--exact, --hash are not"),
        (["--depths", "1", "--cells", "2x2"], "--cells is not used by the games bench"),
        (["--depths", "1", "--seconds", "1", "--backends", "python"], "--backends, --seconds"),
        (["--speed", "--backend", "python"], "choose them with --backends"),
        (["--speed", "--threads", "2", "--algorithms", "minimax"], "--algorithms is not used"),
        (["--speed", "--svg", "chart.svg"], "--svg is not used by --speed"),
        (["--depths", "1", "--seat", "1"], "--seat says which side plays an --opponent"),
    ],
)
def test_a_bench_mode_refuses_the_options_it_does_not_use(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = fails(["bench", *argv], capsys)
    assert line.startswith("ubao-engine bench: ") and message in line, line


def test_bench_takes_the_backend_of_its_games_and_of_solve(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = bench_json(["--backend", "python", "--json"], capsys)
    assert {row["search"] for row in rows} == {"python"}
    main(["bench", "--solve", "--cells", "2x3", "--backend", "python", "--json"])
    (solved,) = json.loads(capsys.readouterr().out)
    assert (solved["value"], solved["agrees"]) == (-2, True)
    if not NATIVE_BUILT:
        assert "native core is not built" in fails(["bench", "--backend", "native"], capsys)


# -- 6. the match's Elo and openings --------------------------------------------------------------


def test_an_even_score_is_elo_0_not_minus_0() -> None:
    report = MatchReport("a", "b", games=2, wins=1, losses=1, margins=[3, -3])
    elo = report.to_dict()["elo"]
    assert elo == 0.0 and math.copysign(1.0, elo) == 1.0
    assert '"elo": 0.0' in json.dumps(report.to_dict())
    tied = MatchReport("a", "b", games=4, wins=1, draws=2, losses=1)
    assert math.copysign(1.0, tied.elo()[0] or 0.0) == 1.0


def test_an_opening_that_ends_the_game_is_drawn_again_reproducibly() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2})
    # 10 random plies end about four games in five of this small Kalah: many redraws.
    for seed in range(20):
        position, moves = opening(game, random.Random(seed), 10)
        assert len(moves) == 10 and game.outcome(position) is None
        assert opening(game, random.Random(seed), 10)[1] == moves


def test_a_match_whose_openings_all_end_the_game_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2})
    with pytest.raises(OpeningError, match="ask for fewer plies"):
        run_match(game, EngineSpec(depth=1), EngineSpec(depth=1), games=2, random_plies=500)
    argv = ["match", "kalah", "--engine1", "depth=1", "--engine2", "depth=1", "--games", "2"]
    line = fails([*argv, "--random-plies", "500"], capsys)
    assert line.startswith("ubao-engine match: --random-plies 500: 100 random openings"), line
