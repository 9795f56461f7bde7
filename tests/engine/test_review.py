"""Game review: every move valued and marked, checked against perfect play on small games."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from tests.support.engine import BACKENDS, needs_native
from ubao.engine.games import make_game
from ubao.engine.mancala import kalah_openings
from ubao.engine.review import (
    GLYPHS,
    MARKS,
    PlayerSummary,
    PlyReview,
    ReviewBudget,
    classify,
    move_accuracy,
    openings_digest,
    review_from_json,
    review_game,
    review_to_json,
    summarise,
    thresholds,
)
from ubao.engine.search import Searcher
from ubao.engine.solve import Solver

SMALL = {"pits": 4, "seeds": 3}


def uneven_game(game: Any, seed: int, random_share: float = 0.3) -> list[str]:
    """A game with mistakes in it: shallow searches and, now and then, a random move."""
    rng = random.Random(seed)
    searcher: Searcher[Any, Any] = Searcher(game)
    position = game.start()
    moves = []
    while not game.is_over(position):
        if rng.random() < random_share:
            move = rng.choice(game.legal_moves(position))
        else:
            move = searcher.search(position, rng.randint(1, 3)).move
        moves.append(game.format_move(position, move))
        position = game.play(position, move)
    return moves


def exact_losses(game: Any, moves: list[str]) -> list[float]:
    """Each move's loss under perfect play, from the solver directly, the mover's view."""
    solver: Solver[Any, Any] = Solver(game)
    position = game.start()
    losses = []
    for text in moves:
        child = game.play(position, game.parse_move(position, text))
        before = solver.solve(position).value
        outcome = game.outcome(child)
        after = outcome.score[0] - outcome.score[1] if outcome else solver.solve(child).value
        losses.append(float((after - before) * (1 if game.to_move(position) else -1)))
        position = child
    return losses


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_proved_plies_carry_the_exact_loss_and_its_mark(backend: str, seed: int) -> None:
    game = make_game("kalah", SMALL, backend)
    moves = uneven_game(game, seed)
    review = review_game("kalah", SMALL, moves, ReviewBudget(exact_within=99), backend=backend)
    losses = exact_losses(game, moves)
    assert [ply.exact for ply in review.plies] == [True] * len(moves)
    assert [ply.loss for ply in review.plies] == losses
    assert [ply.mark for ply in review.plies] == [classify(x, thresholds("kalah")) for x in losses]
    assert any(ply.mark for ply in review.plies), "the game has mistakes to find"
    assert [ply.move for ply in review.plies] == moves


@pytest.mark.parametrize("backend", BACKENDS)
def test_searched_marks_hold_against_perfect_play(backend: str) -> None:
    """Issue 34's check, small: every move the search calls a mistake or a blunder loses at
    least that class's threshold exactly, and the moves losing that much are caught."""
    game = make_game("kalah", SMALL, backend)
    _, mistake, blunder = thresholds("kalah")
    caught = losing = 0
    for seed in (3, 4):
        moves = uneven_game(game, seed)
        budget = ReviewBudget(time_ms=60_000, exact_within=0, nodes=20_000, solve_ms=0)
        review = review_game("kalah", SMALL, moves, budget, backend=backend)
        searched = [ply for ply in review.plies if not ply.exact]
        assert searched and all(ply.nodes > 0 and ply.depth > 0 for ply in searched)
        for ply, loss in zip(review.plies, exact_losses(game, moves), strict=True):
            if ply.mark == "blunder":
                assert loss >= blunder, ply
            if ply.mark == "mistake":
                assert loss >= mistake, ply
            if loss >= mistake:
                losing += 1
                caught += ply.mark in ("mistake", "blunder")
    assert losing and caught >= 0.95 * losing


def wrong_marks(review: Any, losses: list[float]) -> list[PlyReview]:
    """The plies marked a mistake or a blunder that lose less than that class's threshold."""
    limits = thresholds("kalah")
    return [
        ply
        for ply, loss in zip(review.plies, losses, strict=True)
        if ply.mark in ("mistake", "blunder") and loss < limits[MARKS.index(ply.mark) - 1]
    ]


@needs_native
def test_an_unproved_mistake_the_solver_disproves_is_lowered() -> None:
    """A starved search (300 nodes, nothing proved ahead) calls moves mistakes that lose
    less; the solver's probes (time enough on this small board) lower those marks."""
    game = make_game("kalah", SMALL, "native")
    moves = uneven_game(game, 2)
    losses = exact_losses(game, moves)

    def review(confirm_ms: int | None) -> Any:
        budget = ReviewBudget(60_000, 0, nodes=300, solve_ms=0, confirm_ms=confirm_ms)
        review = review_game("kalah", SMALL, moves, budget, backend="native")
        assert review.budget["confirm_ms"] == (24_000 if confirm_ms is None else confirm_ms)
        return review

    assert wrong_marks(review(0), losses), "the search alone errs here"
    checked = review(None)
    assert wrong_marks(checked, losses) == []
    missed = [
        ply
        for ply, loss in zip(checked.plies, losses, strict=True)
        if classify(loss, thresholds("kalah")) in ("mistake", "blunder")
        and ply.mark != classify(loss, thresholds("kalah"))
    ]
    assert missed == [], "with time enough every mistake and blunder is settled"


@needs_native
def test_a_mark_the_check_cannot_settle_is_lowered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Probes that never end in time (a pool spent) settle nothing: the search's mistakes
    and blunders are not shown as such, only the classes the proofs made sure of."""
    game = make_game("kalah", SMALL, "native")
    moves = uneven_game(game, 2)
    budget = ReviewBudget(60_000, 0, nodes=300, solve_ms=0)
    searched = review_game("kalah", SMALL, moves, replace(budget, confirm_ms=0), backend="native")
    claimed = [
        ply.ply for ply in searched.plies if ply.mark in ("mistake", "blunder") and not ply.exact
    ]
    assert claimed, "the search marks mistakes here"

    def out_of_time(*args: Any, **kwargs: Any) -> bool:
        raise TimeoutError("the solver's time ran out")

    monkeypatch.setattr(Solver, "at_least", out_of_time)
    checked = review_game("kalah", SMALL, moves, budget, backend="native")
    assert [ply.mark for ply in checked.plies if ply.ply in claimed] == ["inaccuracy"] * len(
        claimed
    )
    assert [ply.loss for ply in checked.plies if ply.ply in claimed] == [3.0] * len(claimed)


def test_the_values_are_seat_zeros_and_the_loss_the_movers() -> None:
    review = review_game("kalah", SMALL, uneven_game(make_game("kalah", SMALL), 1))
    for ply in review.plies:
        sign = 1 if ply.mover == 0 else -1
        assert ply.loss == max(0.0, sign * (ply.before - ply.after))
        assert ply.line[0] == ply.best
        if ply.loss == 0 and ply.exact:
            assert ply.before == ply.after
    assert review.units == "seeds"
    assert review.budget["time_ms"] == 1000 and review.budget["exact_within"] == 12


def test_each_player_has_counts_and_an_accuracy() -> None:
    limits = thresholds("kalah")
    assert move_accuracy(0, limits) == 100
    assert move_accuracy(limits[1], limits) == 50
    plies = [
        PlyReview(0, 0, "1", "1", ("1",), 0, 0, 0.0, "", True, 1, 0, 0),
        PlyReview(2, 0, "2", "1", ("1",), 0, -8, 8.0, "blunder", True, 1, 0, 0),
        PlyReview(4, 0, "3", "3", ("3",), 0, 0, 0.0, "", True, 1, 0, 0, forced=True),
    ]
    summary = summarise(plies, limits)
    assert summary.counts == {"": 2, "inaccuracy": 0, "mistake": 0, "blunder": 1}
    assert summary.accuracy == pytest.approx((100 + 25) / 2)  # the forced move counts in none
    assert summary.average_loss == 4.0
    assert summarise([], limits) == PlayerSummary(100.0, dict.fromkeys(GLYPHS, 0), 0.0)


def test_a_review_round_trips_through_json() -> None:
    review = review_game("kalah", SMALL, uneven_game(make_game("kalah", SMALL), 2))
    data = review_to_json(review)
    assert review_from_json(data) == review
    assert data["plies"][0]["glyph"] == GLYPHS[review.plies[0].mark]
    assert set(data["players"][0]["counts"]) == {"good", "inaccuracy", "mistake", "blunder"}
    broken = dict(data, plies=[dict(data["plies"][0], mark="oops")])
    with pytest.raises(ValueError, match="mark 'oops'"):
        review_from_json(broken)
    with pytest.raises(ValueError, match="not a review"):
        review_from_json({"game": "kalah"})


def test_an_illegal_move_names_its_ply() -> None:
    with pytest.raises(ValueError, match=r"ply 2 \('9'\)"):
        review_game("kalah", SMALL, ["1", "9"])
    with pytest.raises(ValueError, match="unknown game"):
        review_game("chess", {}, [])


def test_othello_near_its_end_is_exact_in_discs() -> None:
    options = {"size": 4}
    game = make_game("othello", options)
    moves = uneven_game(game, 5)
    review = review_game("othello", options, moves, ReviewBudget(time_ms=50, exact_within=6))
    solver: Solver[Any, Any] = Solver(game)
    position = game.start()
    proved = 0
    for ply in review.plies:
        empties = 16 - (position.black | position.white).bit_count()
        assert ply.exact == (empties <= 6)
        if ply.exact:
            proved += 1
            assert ply.before == solver.solve(position).value
        position = game.play(position, game.parse_move(position, ply.move))
    assert proved and review.units == "discs"


@needs_native
def test_othello_on_the_native_core_is_exact_within_twenty_empties_by_default() -> None:
    """The native 8x8 endgame solver proves every position of 20 empty squares or fewer at the
    default budget, each valued as the solver values it alone."""
    game = make_game("othello", {}, "native")
    moves = uneven_game(game, 3, random_share=0.5)
    review = review_game("othello", {}, moves, ReviewBudget(time_ms=20), backend="native")
    solver: Solver[Any, Any] = Solver(game)
    position = game.start()
    proved = 0
    for ply in review.plies:
        empties = 64 - (position.black | position.white).bit_count()
        assert ply.exact == (empties <= 20), (ply.ply, empties)
        if ply.exact and empties in (20, 14, 8):
            proved += 1
            assert ply.before == solver.solve(position).value
        position = game.play(position, game.parse_move(position, ply.move))
    assert proved == 3 and review.budget["exact_within"] == 20


def test_bao_is_reviewed_in_points_by_the_search() -> None:
    game = make_game("bao")
    position = game.start()
    moves = []
    for _ in range(4):
        move = game.legal_moves(position)[0]
        moves.append(game.format_move(position, move))
        position = game.play(position, move)
    review = review_game("bao", {}, moves, ReviewBudget(time_ms=20))
    assert review.units == "points" and not any(ply.exact for ply in review.plies)
    assert all(abs(ply.before) <= 64 and ply.depth >= 1 for ply in review.plies)


@pytest.mark.parametrize(
    ("name", "options", "exact"),
    [("egyptian", SMALL, True), ("kalah", {**SMALL, "early_end": True}, False)],
)
def test_other_mancala_rules_are_reviewed_and_proved_where_the_solver_can(
    name: str, options: dict[str, Any], exact: bool
) -> None:
    """Egyptian is solved as Kalah is; a game that ends early by its stores cannot be (the
    solver keys positions by their pits), so the search values all of it."""
    moves = uneven_game(make_game(name, options), 6)
    review = review_game(name, options, moves, ReviewBudget(time_ms=20, exact_within=99))
    assert all(ply.exact == exact for ply in review.plies)
    assert [ply.move for ply in review.plies] == moves


def test_mancala_proves_plies_from_the_end_only_of_a_game_ended_by_the_rules() -> None:
    """A resigned game's last plies are positions from its middle or its start: the default
    proves none from the end there (the solver would take minutes)."""
    options = {"pits": 5, "seeds": 3}
    moves = uneven_game(make_game("kalah", options), 5)
    budget = ReviewBudget(time_ms=20, solve_ms=0, confirm_ms=0)
    assert review_game("kalah", options, moves, budget).budget["exact_within"] == 12
    resigned = review_game("kalah", options, moves[:-1], budget)
    assert resigned.budget["exact_within"] == 0
    assert review_game("kalah", options, moves[:5], budget).budget["exact_within"] == 0
    pinned = replace(budget, exact_within=3)
    assert review_game("kalah", options, moves[:5], pinned).budget["exact_within"] == 3
    # Over by the rules after 10 plies of first moves: its start is within 12 plies of its end,
    # and proving Kalah (6,4)'s opening would take minutes; the default leaves it to the pool.
    game = make_game("kalah", {})
    position, quick = game.start(), []
    while not game.is_over(position):
        quick.append(game.format_move(position, game.legal_moves(position)[0]))
        position = game.play_text(position, quick[-1])
    assert len(quick) <= 12
    review = review_game("kalah", {}, quick, budget)
    assert not review.plies[2].exact  # (ply 0 is the opening table's)


def test_the_opening_table_is_as_solved_and_whole() -> None:
    """engine/mancala/kalah_openings.py is what benchmarks/kalah_openings.py wrote: its digest
    matches its values, and it holds every line of play up to its depth."""
    assert openings_digest(kalah_openings.VALUES) == kalah_openings.DIGEST
    game = make_game("kalah", kalah_openings.OPTIONS)
    lines: list[tuple[tuple[str, ...], Any]] = [((), game.start())]
    for depth in range(kalah_openings.DEPTH):
        lines += [
            ((*moves, game.format_move(position, move)), game.play(position, move))
            for moves, position in lines
            if len(moves) == depth and not game.is_over(position)
            for move in game.legal_moves(position)
        ]
    assert sorted(kalah_openings.VALUES) == sorted(" ".join(moves) for moves, _ in lines)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_first_plies_of_kalah_take_the_opening_tables_values(backend: str) -> None:
    """Positions no budget proves are exact from the table: before and after of every ply
    within its depth are its values (seat 0's view), with nothing solved or checked."""
    game = make_game("kalah", kalah_openings.OPTIONS, backend)
    positions, moves = [game.start()], []
    for _ in range(kalah_openings.DEPTH):
        move = game.legal_moves(positions[-1])[-1]
        moves.append(game.format_move(positions[-1], move))
        positions.append(game.play(positions[-1], move))

    def seat_zeros(ply: int) -> int:
        value = kalah_openings.VALUES[" ".join(moves[:ply])]
        return -value if game.to_move(positions[ply]) else value

    budget = ReviewBudget(time_ms=50, exact_within=0, solve_ms=0, confirm_ms=0)
    review = review_game("kalah", {}, moves, budget, backend=backend)
    assert [(ply.exact, ply.before, ply.after) for ply in review.plies] == [
        (True, seat_zeros(ply), seat_zeros(ply + 1)) for ply in range(len(moves))
    ]
