"""A tournament's pure state machine (server/tournament.py): round-robin pairings meet every
pair once (twice, colours swapped), a Swiss never pairs two entrants twice and pairs within
score groups, the arena pairs whoever is free; standings, Sonneborn-Berger, Buchholz and the
performance rating against values computed by hand; the lifecycle's refusals."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from ubao.protocol import ErrorCode
from ubao.server.lifecycle import Rejected
from ubao.server.tournament import (
    Entrant,
    Finished,
    Format,
    Pairing,
    RoundPaired,
    Settings,
    StartGame,
    Tournament,
    crosstable,
    next_steps,
    round_robin_round,
    standings,
)


def tournament(n: int, format: Format = "round_robin", **settings: object) -> Tournament:
    t = Tournament("t1", Settings("test", "kalah", {}, format=format, **settings))  # type: ignore[arg-type]
    for i in range(n):
        t.enter(Entrant(f"e{i}", depth=1, rating=1500 + 100 * i))
    t.start(0)
    return t


def play_out(
    t: Tournament, outcome: object, wall_ms: int = 0, limit: int = 10_000
) -> dict[str, float | None]:
    """Run the machine to its end, each game ending at once with `outcome(pairing)`."""
    results: dict[str, float | None] = {}
    for number in range(limit):
        steps = next_steps(t, results, wall_ms)
        if any(isinstance(step, Finished) for step in steps):
            return results
        for step in steps:
            if isinstance(step, StartGame):
                p = t.pairings[step.index]
                game_id = f"g{number}-{step.index}"
                t.pairings[step.index] = Pairing(p.round, p.white, p.black, game_id)
                results[game_id] = outcome(p)  # type: ignore[operator]
    raise AssertionError("the tournament never finished")


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 9])
def test_a_round_robin_pairs_every_pair_once_and_alternates_colours(n: int) -> None:
    rounds = [round_robin_round(n, r, double=False) for r in range(1, n + n % 2)]
    games = [(p.white, p.black) for made in rounds for p in made if p.black is not None]
    assert Counter(frozenset(g) for g in games) == {
        frozenset(pair): 1 for pair in combinations(range(n), 2)
    }
    for made in rounds:  # nobody twice in a round
        seated = [e for p in made for e in (p.white, p.black) if e is not None]
        assert sorted(seated) == list(range(n))
    whites = Counter(white for white, _ in games)
    assert max(whites.values()) - min(whites.get(e, 0) for e in range(n)) <= 1 + n % 2


@pytest.mark.parametrize("n", [3, 4, 6])
def test_a_double_round_robin_plays_every_pair_twice_with_colours_swapped(n: int) -> None:
    t = tournament(n, double=True)
    play_out(t, lambda p: 1.0)
    games = [(p.white, p.black) for p in t.pairings if p.black is not None]
    assert sorted(games) == sorted((a, b) for a in range(n) for b in range(n) if a != b)
    assert t.status == "finished" and t.rounds == 2 * (n - 1 + n % 2)


def test_a_swiss_never_repeats_a_pairing_and_pairs_within_score_groups() -> None:
    rng = random.Random(7)
    t = tournament(20, "swiss", rounds=6, concurrency=64)
    results: dict[str, float | None] = {}
    for number in range(1, 7):
        points = {row.entrant: row.points for row in standings(t, results)}
        steps = next_steps(t, results, 0)
        assert steps[0] == RoundPaired(number) and len(steps) == 11
        made = [p for p in t.pairings if p.round == number]
        if number == 2:  # ten on 1 and ten on 0 after round 1: each group pairs within itself
            assert all(points[p.white] == points[p.black] for p in made if p.black is not None)
        for step in steps[1:]:
            assert isinstance(step, StartGame)
            p = t.pairings[step.index]
            t.pairings[step.index] = Pairing(p.round, p.white, p.black, f"g{step.index}")
            shares = [1.0, 0.0] if number == 1 else [1.0, 0.5, 0.0]
            results[f"g{step.index}"] = rng.choice(shares)
    assert next_steps(t, results, 0) == [Finished()]
    met = [frozenset((p.white, p.black)) for p in t.pairings if p.black is not None]
    assert len(met) == len(set(met)) == 6 * 10
    balance = Counter[int]()
    for p in t.pairings:
        if p.black is not None:
            balance[p.white] += 1
            balance[p.black] -= 1
    assert all(abs(balance[e]) <= 2 for e in range(20))


def test_a_swiss_gives_the_bye_to_the_lowest_ranked_who_has_had_none() -> None:
    t = tournament(5, "swiss", rounds=3)
    play_out(t, lambda p: 1.0 if p.white < (p.black or 0) else 0.0)
    byes = [p.white for p in t.pairings if p.black is None]
    assert len(byes) == 3 and len(set(byes)) == 3
    row = next(r for r in standings(t, {}) if r.entrant == byes[0])
    assert row.byes == 1 and row.points == 1.0  # a bye scores a win, with no game played


def hand_made() -> tuple[Tournament, dict[str, float | None]]:
    """Four entrants, single round-robin: A beats B and C, draws D; B beats C and D; C draws D.
    Points: A 2.5, B 2, C 0.5, D 1."""
    t = Tournament("t1", Settings("hand", "kalah", {}))
    for name, rating in (("A", 1600), ("B", 1500), ("C", 1400), ("D", 1300)):
        t.enter(Entrant(name, depth=1, rating=rating))
    t.start(0)
    games = [(0, 1, 1.0), (2, 0, 0.0), (0, 3, 0.5), (1, 2, 1.0), (3, 1, 0.0), (2, 3, 0.5)]
    results: dict[str, float | None] = {}
    for i, (white, black, share) in enumerate(games):
        t.pairings.append(Pairing(1 + i // 2, white, black, f"g{i}"))
        results[f"g{i}"] = share
    return t, results


def test_tiebreaks_and_performance_match_the_hand_computed_values() -> None:
    t, results = hand_made()
    rows = {row.entrant: row for row in standings(t, results)}
    assert [rows[e].points for e in range(4)] == [2.5, 2.0, 0.5, 1.0]
    # Sonneborn-Berger: the points of those beaten, half the points of those drawn.
    assert rows[0].sonneborn_berger == 2.0 + 0.5 + 0.5 * 1.0  # beat B, C; drew D
    assert rows[1].sonneborn_berger == 0.5 + 1.0  # beat C, D
    assert rows[2].sonneborn_berger == 0.5 * 1.0  # drew D
    assert rows[3].sonneborn_berger == 0.5 * 2.5 + 0.5 * 0.5  # drew A, C
    # Buchholz: the opponents' points.
    assert rows[0].buchholz == 2.0 + 0.5 + 1.0
    assert rows[3].buchholz == 2.5 + 2.0 + 0.5
    # Performance: the opponents' mean rating + 400 × (wins − losses) / games.
    assert rows[0].performance == round((1500 + 1400 + 1300) / 3 + 400 * 2 / 3)
    assert rows[2].performance == round((1600 + 1500 + 1300) / 3 - 400 * 2 / 3)
    assert [row.entrant for row in standings(t, results)] == [0, 1, 3, 2]


def test_a_complete_round_robin_tie_is_broken_by_sonneborn_berger() -> None:
    t, results = hand_made()
    results["g2"] = 0.0  # D beats A: A (beat B, C) and B (beat C, D) both on 2 points
    rows = standings(t, results)
    assert [(r.entrant, r.points) for r in rows[:2]] == [(0, 2.0), (1, 2.0)]
    assert (rows[0].sonneborn_berger, rows[1].sonneborn_berger) == (2.0 + 0.5, 0.5 + 1.5)
    assert rows[0].buchholz == rows[1].buchholz == 4.0  # all play all: Buchholz cannot tell


def test_a_swiss_tie_is_broken_by_buchholz_before_sonneborn_berger() -> None:
    """Six entrants, three rounds. Results: 0 beats 1, 2; loses to 4. 4 beats 5 and 0, loses
    to 1. 2 beats 3; 3 beats 1; 3-5 and 2-5 drawn. 0 and 4 have 2 points each; Buchholz: 0
    met 1, 2, 4 (1 + 1.5 + 2 = 4.5), 4 met 5, 1, 0 (1 + 1 + 2 = 4); Sonneborn-Berger: 0 beat
    1 and 2 (1 + 1.5 = 2.5), 4 beat 5 and 0 (1 + 2 = 3)."""
    t = Tournament("s", Settings("x", "kalah", {}, format="swiss"))
    for n in range(6):
        t.enter(Entrant(str(n), depth=1))
    games = [(0, 1), (2, 3), (4, 5), (0, 2), (1, 4), (3, 5), (0, 4), (1, 3), (2, 5)]
    shares = [1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.0, 0.0, 0.5]
    t.pairings = [Pairing(1 + i // 3, w, b, f"g{i}") for i, (w, b) in enumerate(games)]
    results: dict[str, float | None] = {f"g{i}": share for i, share in enumerate(shares)}
    rows = standings(t, results)
    top = [(r.entrant, r.points, r.buchholz, r.sonneborn_berger) for r in rows[:2]]
    assert top == [(0, 2.0, 4.5, 2.5), (4, 2.0, 4.0, 3.0)]
    as_round_robin = Tournament("r", Settings("x", "kalah", {}), t.entrants, t.pairings)
    assert [r.entrant for r in standings(as_round_robin, results)[:2]] == [4, 0]


def test_kgp_scoring_gives_two_a_win_and_one_a_draw() -> None:
    t, results = hand_made()
    kgp = Tournament("t3", Settings("hand", "kalah", {}, scoring="kgp"), t.entrants, t.pairings)
    assert [r.points for r in sorted(standings(kgp, results), key=lambda r: r.entrant)] == [
        5,
        4,
        1,
        2,
    ]


def test_the_crosstable_shows_each_game_from_each_side() -> None:
    t, results = hand_made()
    results["g5"] = None  # C - D still played
    cells = crosstable(t, results)
    assert cells[0] == ["", "1", "1", "½"]
    assert cells[2][3] == "*" and cells[3][2] == "*"
    assert cells[1][0] == "0"


def test_an_arena_pairs_free_entrants_until_its_time_is_up_and_scores_streaks_double() -> None:
    t = tournament(4, "arena", minutes=1)
    results: dict[str, float | None] = {}
    steps = next_steps(t, results, 0)
    assert [type(s) for s in steps] == [RoundPaired, StartGame, StartGame]
    for step in steps:
        if isinstance(step, StartGame):
            p = t.pairings[step.index]
            t.pairings[step.index] = Pairing(p.round, p.white, p.black, f"g{step.index}")
    results["g0"] = None
    results["g1"] = 1.0  # one game over: its two entrants would meet again, so they wait
    assert next_steps(t, results, 1000) == []
    results["g0"] = 1.0  # the other game over too: four free, paired anew
    again = next_steps(t, results, 2000)
    assert RoundPaired(2) in again and len(t.pairings) == 4
    new = {frozenset((p.white, p.black)) for p in t.pairings[2:]}
    assert not new & {frozenset((p.white, p.black)) for p in t.pairings[:2]}
    for i in (2, 3):
        t.pairings[i] = Pairing(2, t.pairings[i].white, t.pairings[i].black, f"g{i}")
        results[f"g{i}"] = None
    assert next_steps(t, results, 60_000) == []  # time is up: wait for the games played
    results["g2"] = results["g3"] = 0.5
    assert next_steps(t, results, 60_000) == [Finished()]


def test_an_arena_streak_doubles_from_the_third_win() -> None:
    t = Tournament("t4", Settings("a", "kalah", {}, format="arena"))
    for name in "AB":
        t.enter(Entrant(name, depth=1))
    results = {}
    for i, share in enumerate([1.0, 1.0, 1.0, 0.5, 1.0]):
        t.pairings.append(Pairing(i + 1, 0, 1, f"g{i}"))
        results[f"g{i}"] = share
    a = next(r for r in standings(t, results) if r.entrant == 0)
    assert a.points == 2 + 2 + 4 + 2 + 2  # the draw ends the streak


def test_the_lifecycle_refuses_what_its_status_does_not_allow() -> None:
    t = tournament(2)
    with pytest.raises(Rejected) as refused:
        t.enter(Entrant("late", depth=1))
    assert refused.value.code == ErrorCode.TOURNAMENT_CLOSED
    with pytest.raises(Rejected):
        t.start(0)
    alone = Tournament("t5", Settings("a", "kalah", {}))
    alone.enter(Entrant("x", depth=1))
    with pytest.raises(Rejected):
        alone.start(0)  # two entrants at least
    with pytest.raises(Rejected) as twice:
        alone.enter(Entrant("X", depth=2))
    assert twice.value.code == ErrorCode.ALREADY_ENTERED
    alone.cancel()
    with pytest.raises(Rejected):
        alone.cancel()
