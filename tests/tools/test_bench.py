"""Bench games, speed and solve tables, players, and the strength of the search."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
from pathlib import Path

import pytest

from tests.support.engine import fails, needs_native
from ubao.engine.backend import NATIVE_BUILT, resolve_backend
from ubao.engine.games import GAMES, make_game
from ubao.engine.tools import bench
from ubao.engine.tools.cli import main
from ubao.engine.tools.players import (
    FirstPlayer,
    RandomPlayer,
    SearchPlayer,
    make_player,
    play_game,
)

SMALL = {"pits": 3, "seeds": 3}


def test_bench_plays_one_game_per_algorithm_evaluation_and_depth() -> None:
    game = make_game("kalah", SMALL)
    rows = bench.bench_games(
        game, ["minimax", "alphabeta", "negamax", "first"], list(game.evaluations), [1, 2, 3, 4]
    )
    assert len(rows) == 3 * len(game.evaluations) * 4 + 1
    for row in rows:
        assert row.winner in ("player 0", "player 1", "draw")
        assert row.plies > 0
    searched = [row for row in rows if row.algorithm != "first"]
    assert all(row.generated >= row.expanded > 0 for row in searched)
    first = rows[-1]
    assert (first.algorithm, first.generated, first.depth) == ("first", 0, None)


def test_bench_games_are_reproducible_to_the_node() -> None:
    game = make_game("kalah", SMALL)

    def counts() -> list[tuple[int, int, int, str, str]]:
        rows = bench.bench_games(
            game, ["alphabeta", "random"], ["store_diff"], [2, 4], opponent="random", seed=7
        )
        return [(r.generated, r.expanded, r.plies, r.winner, r.score) for r in rows]

    assert counts() == counts()


def test_against_an_opponent_only_the_combinations_own_searches_count() -> None:
    game = make_game("kalah", SMALL)
    (selfplay,) = bench.bench_games(game, ["negamax"], ["store_diff"], [3])
    (versus,) = bench.bench_games(
        game, ["negamax"], ["store_diff"], [3], opponent="negamax:store_diff:3", seat=1
    )
    assert selfplay.plies == versus.plies  # the same players, so the same game
    assert versus.generated < selfplay.generated


def test_unknown_opponents_are_refused_with_the_accepted_forms() -> None:
    game = make_game("kalah", SMALL)
    for spec in ("mcts", "alphabeta", "alphabeta:store_diff:x", "alphabeta:nope:3"):
        with pytest.raises(ValueError):
            bench.bench_games(game, ["negamax"], ["store_diff"], [1], opponent=spec)


def test_the_progress_bar_draws_on_its_stream_and_clears_it() -> None:
    stream = io.StringIO()
    bar = bench.Progress(2, stream, width=4)
    bar.step("one")
    bar.step("two")
    bar.close()
    text = stream.getvalue()
    assert "\r[....] 0/2 one" in text and "\r[##..] 1/2 two" in text
    assert text.endswith("\r")
    silent = bench.Progress(2, None)
    silent.step("one")  # draws nothing and does not fail


def test_the_bench_command_prints_a_table_and_writes_csv_and_json(tmp_path: Path) -> None:
    csv_path, json_path = tmp_path / "rows.csv", tmp_path / "rows.json"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(
            [
                "bench",
                "--options",
                json.dumps(SMALL),
                "--algorithms",
                "minimax,negamax,random",
                "--evals",
                "store_diff,mobility",
                "--depths",
                "1,2,3,4",
                "--csv",
                str(csv_path),
                "--json-file",
                str(json_path),
            ]
        )
    table = out.getvalue().splitlines()
    assert table[0] == "kalah(3,3), opponent same"
    assert table[1].split()[:5] == ["algorithm", "eval", "depth", "generated", "expanded"]
    rows_printed = [line for line in table if line.split()[0] in ("minimax", "negamax", "random")]
    assert len(rows_printed) == 2 * 2 * 4 + 1
    assert table[-1].startswith("peak KiB: measured with --memory only")
    with open(csv_path) as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 17 and rows[0]["algorithm"] == "minimax"
    assert json.loads(json_path.read_text())[-1]["algorithm"] == "random"


def test_the_speed_bench_covers_every_registered_game() -> None:
    rows = bench.bench_speed(seconds=0.05)
    assert [row.game for row in rows if row.backend == "python"] == list(GAMES)
    assert {row.backend for row in rows} == set(bench.SPEED_BACKENDS)
    for row in rows:
        assert row.generated > 0 and row.nps > 0 and row.movegen_per_second > 0
        assert row.perft_per_second > 0
        assert row.positions == len(bench.SPEED_PLIES)


def test_the_solve_bench_sets_values_beside_the_published_table() -> None:
    rows = bench.bench_solve([(2, 3), (3, 2)])
    assert [(row.value, row.agrees) for row in rows] == [(-2, True), (4, True)]
    assert "kalah(2,3)" in bench.solve_table(rows)


def test_the_reference_table_holds_the_published_values() -> None:
    assert len(bench.KALAH_VALUES) == 36
    assert bench.KALAH_VALUES[6, 4] == 10 and bench.KALAH_VALUES[3, 6] == -10


def test_baseline_players_are_reproducible_and_weak() -> None:
    game = make_game("kalah", SMALL)
    assert isinstance(make_player(game, "first"), FirstPlayer)
    one = play_game(game, (RandomPlayer(game, 3), RandomPlayer(game, 4)))
    two = play_game(game, (RandomPlayer(game, 3), RandomPlayer(game, 4)))
    assert one.moves == two.moves
    record = play_game(game, (FirstPlayer(game), SearchPlayer(game, depth=4)))
    assert record.winner == 1
    with pytest.raises(ValueError, match="unknown player"):
        make_player(game, "oracle")
    with pytest.raises(ValueError, match="depth or a time"):
        make_player(game, "negamax")


def test_a_ply_limit_leaves_a_game_unfinished() -> None:
    game = make_game("kalah", {})
    record = play_game(game, (FirstPlayer(game), FirstPlayer(game)), max_plies=3)
    assert len(record.moves) == 3 and record.outcome is None and record.winner is None


@pytest.mark.slow
def test_a_depth_6_bot_beats_random_in_at_least_95_of_100_kalah_games() -> None:
    game = make_game("kalah", {})
    wins = 0
    for seed in range(100):
        bot = SearchPlayer(game, "negamax", depth=6)
        opponent = RandomPlayer(game, seed)
        seat = seed % 2
        players = (bot, opponent) if seat == 0 else (opponent, bot)
        wins += play_game(game, players).winner == seat
    assert wins >= 95


@pytest.mark.timeout(120)
@pytest.mark.skipif(
    resolve_backend() != "native", reason="the Python solver takes any size, slowly"
)
def test_bench_solve_names_the_cell_the_native_solver_refuses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = fails(["bench", "--solve", "--cells", "9x9"], capsys)
    assert line.startswith("ubao-engine bench: kalah(9,9): 162 seeds"), line


SMALL_JSON = '{"pits":3,"seeds":2}'


def bench_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    main(["bench", "--options", SMALL_JSON, "--depths", "1,2", "--evals", "store_diff", *argv])
    rows: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return rows


@pytest.mark.timeout(120)
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
    main(["bench", "--options", SMALL_JSON, "--depths", "1", "--memory", "--backend", "native"])
    table = capsys.readouterr().out.splitlines()
    header = table[1].split()
    peak = header.index("peak") - 1  # "time ms" before it: one column, two words
    assert table[2].split()[peak] == "-"
    assert table[-1].endswith("(tracemalloc slows the search), not in native searches")


@pytest.mark.timeout(120)
def test_the_games_table_prints_times_in_tenths_of_a_millisecond(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["bench", "--options", SMALL_JSON, "--depths", "1,2", "--evals", "store_diff"])
    table = capsys.readouterr().out.splitlines()
    header = table[1].split()
    assert "ms" in header and "s" not in header
    column = header.index("time")
    times = [line.split()[column] for line in table[2:4]]
    assert all(re.fullmatch(r"\d+\.\d", text) for text in times), times


@pytest.mark.timeout(120)
def test_csv_and_json_keep_the_full_precision_of_the_seconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = bench_json(["--json"], capsys)
    seconds = [row["seconds"] for row in rows]
    assert all(isinstance(value, float) and value > 0 for value in seconds)
    assert any(round(value, 2) != value for value in seconds if isinstance(value, float))


@pytest.mark.timeout(120)
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


@pytest.mark.timeout(120)
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


def test_cells_in_superscript_digits_are_refused_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "is not PITSxSEEDS" in fails(["bench", "--solve", "--cells", "3x\u00b2"], capsys)


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
