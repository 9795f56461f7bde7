"""Bench games, speed and solve tables, players, and the strength of the search."""

from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path

import pytest

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
