"""Which games a tournament plays: pairings, sides, openings (random or from a file)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ubao.engine.games import make_game
from ubao.engine.tools.schedule import (
    OpeningError,
    openings_needed,
    pairings,
    random_opening,
    random_openings,
    read_openings,
    schedule,
)

SMALL = {"pits": 3, "seeds": 3}


def test_a_round_robin_pairs_everyone_and_a_gauntlet_only_the_first() -> None:
    assert pairings(4, "round-robin") == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert pairings(4, "gauntlet") == [(0, 1), (0, 2), (0, 3)]
    with pytest.raises(ValueError, match="at least two"):
        pairings(1, "round-robin")
    with pytest.raises(ValueError, match="format"):
        pairings(3, "swiss")


@pytest.mark.parametrize("format", ["round-robin", "gauntlet"])
@pytest.mark.parametrize(("rounds", "games"), [(1, 2), (3, 2), (2, 4), (3, 1)])
def test_every_engine_plays_each_side_equally_often_against_each_opponent(
    format: str, rounds: int, games: int
) -> None:
    planned = schedule(4, format, rounds, games)
    assert [game.number for game in planned] == list(range(1, len(planned) + 1))
    assert len(planned) == len(pairings(4, format)) * rounds * games
    sides = Counter(game.seats for game in planned)
    for first, second in pairings(4, format):
        together = sides[(first, second)] + sides[(second, first)]
        assert together == rounds * games
        assert abs(sides[(first, second)] - sides[(second, first)]) <= (rounds * games) % 2


def test_a_pair_of_games_shares_its_opening_with_the_sides_swapped() -> None:
    planned = schedule(3, "round-robin", 2, 2)
    for pairing in ({0, 1}, {0, 2}, {1, 2}):
        games = [game for game in planned if set(game.seats) == pairing]
        assert [game.opening for game in games] == [0, 0, 1, 1]
        assert games[0].seats == games[1].seats[::-1] and games[2].seats == games[3].seats[::-1]
        assert [game.round for game in games] == [1, 1, 2, 2]
    assert openings_needed(2, 2) == 2 and openings_needed(3, 1) == 2


def test_random_openings_replay_from_their_seed_and_never_end_the_game() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2})
    openings = random_openings(game, 7, 10, 5)
    assert openings == random_openings(game, 7, 10, 5) != random_openings(game, 8, 10, 5)
    for opening in openings:
        position = game.start()
        for text in opening:
            position = game.play_text(position, text)
        assert len(opening) == 10 and game.outcome(position) is None


def test_an_opening_that_ends_the_game_is_drawn_again_reproducibly() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2})
    # 10 random plies end about four games in five of this small Kalah: many redraws.
    for seed in range(20):
        moves = random_opening(game, random.Random(seed), 10)
        assert len(moves) == 10
        assert random_opening(game, random.Random(seed), 10) == moves
    with pytest.raises(OpeningError, match="ask for fewer plies"):
        random_opening(game, random.Random(0), 500)


def test_an_openings_file_is_read_line_by_line_and_checked() -> None:
    game = make_game("kalah", SMALL)
    text = "# two openings\n\n1 3\n 2   1 \n"
    assert read_openings(game, text.splitlines()) == [("1", "3"), ("2", "1")]
    with pytest.raises(OpeningError, match=r"line 2, move 2 \(9\)"):
        read_openings(game, ["1", "1 9"])
    with pytest.raises(OpeningError, match="holds no opening"):
        read_openings(game, ["# nothing", ""])
    othello = make_game("othello", {"size": 8})
    assert read_openings(othello, ["f5 d6 c3"]) == [("f5", "d6", "c3")]
