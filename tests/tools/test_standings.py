"""Points, Elo with its error bar, and the crosstable of a list of game results."""

from __future__ import annotations

import math

import pytest

from ubao.engine.tools.standings import GameResult, crosstable, elo_estimate, standings


def test_the_elo_and_its_error_bar_match_a_hand_computed_value() -> None:
    # +3 =1 -1: score 0.7, Elo 400 log10(0.7/0.3) = 147.19; the points' standard deviation
    # 0.4 over 5 games, through the curve's slope 400/(ln 10 * 0.21) = 827.2: 1.96 * 0.1789 *
    # 827.2 = 290.04.
    elo, error = elo_estimate([1, 1, 1, 0.5, 0])
    assert elo == pytest.approx(147.19, abs=0.01)
    assert error == pytest.approx(290.04, abs=0.01)
    even, bar = elo_estimate([1, 0])
    assert even == 0.0 and bar == pytest.approx(1.96 * 0.5 / math.sqrt(2) * 1600 / math.log(10))
    assert elo_estimate([1, 1]) == (None, None) == elo_estimate([])


def game(number: int, seats: tuple[int, int], winner: int | None) -> GameResult:
    return GameResult(number, seats, winner, "normal", (10, 8) if winner == 0 else (8, 10), 20)


RESULTS = [
    game(1, (0, 1), 0),  # a beats b
    game(2, (1, 0), None),  # a draws b
    game(3, (0, 2), 1),  # c beats a
    game(4, (2, 0), 0),  # c beats a
    game(5, (1, 2), 0),  # b beats c
    game(6, (2, 1), 1),  # b beats c
]


def test_standings_rank_by_points_with_each_engines_games() -> None:
    table = standings(["a", "b", "c"], RESULTS)
    assert [(line.name, line.points, line.games) for line in table] == [
        ("b", 2.5, 4),
        ("c", 2.0, 4),
        ("a", 1.5, 4),
    ]
    b = table[0]
    assert (b.wins, b.draws, b.losses) == (2, 1, 1)
    assert b.elo == pytest.approx(elo_estimate([0, 0.5, 1, 1])[0])


def test_the_crosstable_gives_each_engines_points_against_each_other() -> None:
    text = crosstable(["a", "b", "c"], RESULTS)
    lines = text.splitlines()
    assert lines[1].split()[:6] == ["1", "b", "4", "2.5", "62.5%", "2"]
    # Both tables number the entrants by rank, so that column 1 is the leader in each.
    assert [line.split()[:2] for line in lines[-3:]] == [["1", "b"], ["2", "c"], ["3", "a"]]
    rows = {line.split()[1]: line.split()[2:] for line in lines[-3:]}
    assert rows == {
        "b": ["-", "2/2", "0.5/2"],
        "c": ["0/2", "-", "2/2"],
        "a": ["1.5/2", "0/2", "-"],
    }
    assert "unbounded" not in lines[1]
    only = crosstable(["a", "b"], [game(1, (0, 1), 0)])
    assert "unbounded" in only and "1/1" in only
