"""Glicko-2 against Glickman's worked example, and the pools and speeds games are rated in."""

from __future__ import annotations

import pytest

from ubao.protocol import ClockSpec, Result
from ubao.server.glicko2 import Outcome, Rating, update
from ubao.server.ratings import (
    DEFAULT,
    MAX_RD,
    MIN_RD,
    PROVISIONAL_RD,
    Standing,
    pool_of,
    rated_game,
    replay,
    speed_of,
)


def test_the_papers_worked_example() -> None:
    """ "Example of the Glicko-2 system", section 'Example calculation': 1464.06, 151.52, 0.05999
    (the paper rounds its steps; unrounded, the rating is 1464.05)."""
    player = Rating(1500, 200, 0.06)
    games = [
        Outcome(Rating(1400, 30, 0.06), 1),
        Outcome(Rating(1550, 100, 0.06), 0),
        Outcome(Rating(1700, 300, 0.06), 0),
    ]
    after = update(player, games, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = update(Rating(1500, 200, 0.06), [], tau=0.5)
    assert after.rating == 1500 and after.volatility == 0.06
    assert after.rd == pytest.approx((200**2 + (0.06 * 173.7178) ** 2) ** 0.5)


def test_a_win_raises_the_winner_as_much_as_it_lowers_an_equal_loser() -> None:
    game = rated_game("g", "kalah/blitz", 0, ("a", "b"), (Standing(), Standing()), win(0))
    first, second = game.after
    assert first.rating.rating > 1500 > second.rating.rating
    assert first.rating.rating - 1500 == pytest.approx(1500 - second.rating.rating)
    assert (first.wins, first.losses, second.wins, second.losses) == (1, 0, 0, 1)
    assert first.games == second.games == 1


def test_a_draw_between_equals_moves_no_rating() -> None:
    game = rated_game("g", "kalah/blitz", 0, ("a", "b"), (Standing(), Standing()), win(None))
    assert [s.rating.rating for s in game.after] == pytest.approx([1500, 1500])
    assert [s.draws for s in game.after] == [1, 1]


def test_newcomers_are_provisional_and_the_deviation_stays_within_lichess_bounds() -> None:
    assert DEFAULT.rd > PROVISIONAL_RD and Standing().provisional
    newcomer = Standing().after(DEFAULT, 1)
    assert newcomer.provisional and newcomer.rating.rd <= MAX_RD
    very_sure = Standing(Rating(1500, 30, 0.06)).after(Rating(1500, 30, 0.06), 1)
    assert very_sure.rating.rd == MIN_RD and not very_sure.provisional


def test_many_games_make_a_rating_established() -> None:
    a, b = Standing(), Standing()
    for n in range(30):
        game = rated_game(str(n), "kalah/blitz", n, ("a", "b"), (a, b), win(0 if n % 3 else 1))
        a, b = game.after
    assert not a.provisional and not b.provisional
    assert a.rating.rating > b.rating.rating  # a won two games in three


def test_replay_gives_what_the_games_gave_in_turn() -> None:
    a, b, c = Standing(), Standing(), Standing()
    first = rated_game("1", "kalah/blitz", 1, ("a", "b"), (a, b), win(0))
    a, b = first.after
    second = rated_game("2", "kalah/blitz", 2, ("b", "c"), (b, c), win(None))
    b, c = second.after
    assert replay([first, second]) == {
        ("kalah/blitz", "a"): a,
        ("kalah/blitz", "b"): b,
        ("kalah/blitz", "c"): c,
    }


@pytest.mark.parametrize(
    ("initial_s", "increment_s", "speed"),
    [
        (60, 0, "bullet"),
        (120, 1, "bullet"),  # 160 s estimated
        (180, 0, "blitz"),
        (180, 2, "blitz"),  # 260 s
        (300, 5, "rapid"),  # 500 s
        (600, 0, "rapid"),
        (900, 15, "classical"),  # 1500 s
        (1800, 0, "classical"),
    ],
)
def test_a_clocked_games_speed_is_its_estimated_duration(
    initial_s: int, increment_s: int, speed: str
) -> None:
    assert speed_of(ClockSpec(initial_s * 1000, increment_s * 1000)) == speed


def test_untimed_games_have_a_pool_of_their_own_and_each_game_its_pools() -> None:
    assert speed_of(None) == "untimed"
    assert pool_of("kalah", None) == "kalah/untimed"
    assert pool_of("bao", ClockSpec(600_000, 0)) == "bao/rapid"
    assert pool_of("othello", ClockSpec(60_000, 0)) == "othello/bullet"


def win(winner: int | None) -> Result:
    return Result(winner, "normal", None)
