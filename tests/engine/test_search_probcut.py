"""Multi-ProbCut (docs/engine.md, Multi-ProbCut): where it applies (the strength mode's negamax
of 8x8 Othello with a fitted evaluation) and where never (the exact mode, other algorithms,
sizes, evaluations, or switched off); that it prunes; that a value it reports as proved is
the exact one; and that the native search cuts node for node as the Python one."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.support.engine import needs_native
from tests.support.native import pair
from ubao.engine.backend import NativeRules
from ubao.engine.games import make_game
from ubao.engine.othello import probcut
from ubao.engine.othello.game import Othello, Position
from ubao.engine.othello.probcut_fits import FITS
from ubao.engine.search import Searcher, SearchResult


def game_line(game: Othello, seed: int) -> list[Position]:
    """Every position of one random game from the start."""
    rng = random.Random(seed)
    line = [game.start()]
    while moves := game.legal_moves(line[-1]):
        line.append(game.play(line[-1], rng.choice(moves)))
    return line


def work(result: SearchResult[Any]) -> tuple[Any, ...]:
    stats = result.stats
    return (result.move, result.score, result.pv, stats.generated, stats.evaluated, stats.cutoffs)


@pytest.mark.parametrize("evaluation", ["patterns", "trained"])
def test_the_shipped_fits_give_checks_to_the_fitted_evaluations_only_on_8x8(
    evaluation: str,
) -> None:
    game = Othello({})
    checks = game.probcut(evaluation)
    assert checks is not None and len(checks.stages) == 65 and len(checks.checks) <= 32
    for occupied, row in enumerate(checks.stages):
        for depth, check in enumerate(checks.checks[row]):
            if check is None:
                continue
            assert depth < 64 - occupied  # a search that may reach the end is not cut
            shallow, slope, high, low = check
            assert shallow == probcut.shallow_depth(depth) and 0 < shallow < depth
            assert slope > 0 and high > low  # the cut lies beyond the window on both sides
    assert checks.checks[checks.stages[30]][8] is not None  # the middle game is cut
    assert Othello({"size": 6}).probcut(evaluation) is None
    assert game.probcut("discs") is None  # nothing fitted for it


def test_only_the_strength_modes_negamax_prunes() -> None:
    game = Othello({})
    assert Searcher(game).probcut is not None
    assert Searcher(game, selective=False).probcut is None
    assert Searcher(game, exact=True).probcut is None
    assert Searcher(game, "alphabeta").probcut is None
    assert Searcher(game, evaluation="standard").probcut is None


def test_a_search_asked_for_a_small_depth_is_full_width() -> None:
    """Up to `FULL_WIDTH` plies (Edax's levels 1 to 10) the search is the full-width one, node
    for node; deeper, or with no depth asked (on a clock), it cuts."""
    game = Othello({})
    searcher = Searcher(game)
    assert searcher.cuts(probcut.FULL_WIDTH) is None
    assert searcher.cuts(probcut.FULL_WIDTH + 1) is searcher.probcut is not None
    assert searcher.cuts(None) is searcher.probcut
    for position in game_line(game, 7)[16:40:8]:
        selective = Searcher(game).search(position, 6)
        whole = Searcher(game, selective=False).search(position, 6)
        assert work(selective) == work(whole)


@needs_native
def test_the_native_search_cuts_only_beyond_the_full_width() -> None:
    """One searcher, one native core: its checks follow each search's depth."""
    game = make_game("othello", {}, backend="native")
    assert isinstance(game, Othello)
    position = game_line(game, 7)[24]
    searcher, whole = Searcher(game), Searcher(game, selective=False)
    for depth in (probcut.FULL_WIDTH + 2, probcut.FULL_WIDTH, probcut.FULL_WIDTH + 2):
        searcher.clear()
        whole.clear()
        cut, full = searcher.search(position, depth), whole.search(position, depth)
        if depth <= probcut.FULL_WIDTH:
            assert work(cut) == work(full)
        else:
            assert cut.stats.generated < full.stats.generated * 0.8


def test_probcut_prunes_and_switched_off_searches_full_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(probcut, "FULL_WIDTH", 0)  # cuts at 6 plies, a test that runs fast
    game = Othello({})
    line = game_line(game, 7)
    cut = full = 0
    for position in line[16:40:8]:
        selective = Searcher(game).search(position, 6)
        whole = Searcher(game, selective=False).search(position, 6)
        cut += selective.stats.generated
        full += whole.stats.generated
        # switched off, the search is the plain one: the exact mode's value at the same depth
        assert whole.score == Searcher(game, exact=True).search(position, 6).score
    assert cut < full * 0.8


TIGHT = {(stage, d): (1.0, 0.25 * stage, 1.0) for stage in range(6) for d in range(3, 13)}
"""Fits much tighter than the shipped ones, at every stage: cuts at most nodes."""


def test_a_value_proved_full_width_stays_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    """No check where a node's full-width search may end every line, and a cut needs a shallow
    search that met the horizon: what the full-width search proves, the selective one proves
    alike, with the same (exact) value. (It may prove more: its shallow searches leave the
    table proved entries of lines that ended.)"""
    monkeypatch.setitem(FITS, "trained", TIGHT)
    monkeypatch.setattr(probcut, "FULL_WIDTH", 0)
    game = Othello({})
    proved = 0
    for seed in range(4):
        for position in game_line(game, seed)[-11:-8]:  # 8 to 10 empty squares, about
            depth = 64 - (position.black | position.white).bit_count() + 4  # room for passes
            selective = Searcher(game).search(position, depth)
            whole = Searcher(game, selective=False).search(position, depth)
            if whole.proved:
                proved += 1
                assert selective.proved and selective.score == whole.score
    assert proved >= 4


@needs_native
@pytest.mark.parametrize("depth", [5, 6, 7])
def test_tight_checks_cut_alike_on_both_backends(
    monkeypatch: pytest.MonkeyPatch, depth: int
) -> None:
    """With tight fits cutting at most nodes, the native search still makes the same moves,
    values and node counts as the Python one."""
    monkeypatch.setitem(FITS, "trained", TIGHT)
    monkeypatch.setattr(probcut, "FULL_WIDTH", 0)
    reference, native = pair("othello", {})
    assert isinstance(reference, Othello)
    for position in game_line(reference, depth)[12:44:8]:
        python, core = Searcher(reference), Searcher(native)
        assert python.native is None and core.native is not None
        assert work(core.search(position, depth)) == work(python.search(position, depth))


@needs_native
def test_the_native_search_takes_checks_for_its_board_only() -> None:
    checks = Othello({}).probcut("trained")
    assert checks is not None
    six = make_game("othello", {"size": 6}, backend="native")
    assert isinstance(six, NativeRules)
    core = six.search_core("negamax", "trained", 1, False)
    with pytest.raises(ValueError, match="a stage for every count of squares occupied"):
        core.set_probcut(checks.stages, checks.checks)
    kalah = make_game("kalah", {}, backend="native")
    assert isinstance(kalah, NativeRules)
    with pytest.raises(ValueError, match="only an Othello search"):
        kalah.search_core("negamax", "store_diff", 1, False).set_probcut(
            checks.stages, checks.checks
        )
