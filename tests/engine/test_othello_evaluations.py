"""Othello evaluations: what each one rewards, their symmetries, and the exact count at the end."""

from __future__ import annotations

import random
from array import array
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ubao.engine.backend import NATIVE_BUILT, NativeOthello
from ubao.engine.othello import pattern_weights, patterns, trained, trained_weights
from ubao.engine.othello.game import PASS, Othello, Position
from ubao.engine.search import Searcher

Transform = Callable[[list[str]], list[str]]
SYMMETRIES: list[Transform] = [
    lambda rows: rows,
    lambda rows: rows[::-1],
    lambda rows: [row[::-1] for row in rows],
    lambda rows: [row[::-1] for row in rows[::-1]],
    lambda rows: ["".join(column) for column in zip(*rows, strict=True)],
    lambda rows: ["".join(column) for column in zip(*rows, strict=True)][::-1],
    lambda rows: ["".join(column)[::-1] for column in zip(*rows, strict=True)],
    lambda rows: ["".join(column)[::-1] for column in zip(*rows, strict=True)][::-1],
]
"""The eight symmetries of a square board, acting on its rows."""


def single_disc(game: Othello, label: str) -> Position:
    """Black alone on one square: what the positional evaluation makes of that square."""
    return game.parse_position(board_with(game, {label: "X"}) + " X")


def board_with(game: Othello, discs: dict[str, str]) -> str:
    s = game.size
    board = ["-"] * (s * s)
    for label, letter in discs.items():
        board[(int(label[1:]) - 1) * s + ord(label[0]) - ord("a")] = letter
    return "".join(board)


def transformed(game: Othello, position: Position, symmetry: Transform) -> Position:
    board, side = game.format_position(position).split()
    s = game.size
    rows = symmetry([board[r * s : (r + 1) * s] for r in range(s)])
    return game.parse_position("".join(rows) + " " + side)


@st.composite
def played_positions(draw: st.DrawFn) -> tuple[Othello, Position]:
    """A position some plies into a random game on a random board size."""
    game = Othello({"size": draw(st.sampled_from(range(4, 17, 2)))})
    position = game.start()
    for _ in range(draw(st.integers(0, 60))):
        moves = game.legal_moves(position)
        if not moves:
            break
        position = game.play(position, draw(st.sampled_from(moves)))
    return game, position


def test_patterns_is_the_default_on_8x8_and_standard_on_the_sizes_not_fitted_on() -> None:
    hand_set = ["standard", "positional", "mobility", "discs"]
    assert list(Othello().evaluations) == ["patterns", "trained", *hand_set]
    for size in (4, 6, 10, 16):
        assert list(Othello({"size": size}).evaluations) == [*hand_set, "trained"]


@pytest.mark.parametrize("size", range(4, 17, 2))
def test_every_evaluation_scores_the_start_even_but_for_the_movers_tempo_and_parity(
    size: int,
) -> None:
    game = Othello({"size": size})
    table = patterns.weights()  # the first stage's weights: Black moves, White gets the last move
    moving = (table[patterns.TEMPO] - table[patterns.PARITY]) / patterns.SCALE
    for name, evaluate in game.evaluations.items():
        assert evaluate(game.start()) == (moving if name == "patterns" else 0), name


def test_patterns_weighs_who_gets_the_last_move() -> None:
    assert patterns.last_mover(discs=5, tempo=1) == 1  # 59 empty, Black to move: Black last
    assert patterns.last_mover(discs=5, tempo=-1) == -1
    assert patterns.last_mover(discs=4, tempo=1) == -1  # 60 empty: White last
    assert patterns.last_mover(discs=4, tempo=-1) == 1


def test_patterns_blends_the_stages_whose_middles_are_nearest_with_no_jump_between_them() -> None:
    """Each disc more moves a board the same share from one stage's weights toward the next's
    (so a search's value does not jump where a stage ends); before the first stage's middle and
    after the last's, a board takes that stage alone."""
    step = 2 * patterns.STAGES  # a disc's share, in 1/BLEND
    counts = range(patterns.FIRST_DISCS, patterns.LAST_DISCS + 1)
    blends = [patterns.blend_of(discs) for discs in counts]
    assert blends[0][:2] == (0, 0) and blends[-1][:2] == (patterns.STAGES - 1,) * 2
    places = [
        earlier * patterns.BLEND + share for earlier, later, share in blends if later > earlier
    ]
    assert len(places) > 40 and all(b - a == step for a, b in pairwise(places))
    assert all(later - earlier in (0, 1) for earlier, later, _ in blends)
    half = patterns.BLEND // 2
    assert (
        patterns.blended(100, 300, 0) == 100 and patterns.blended(100, 300, patterns.BLEND) == 300
    )
    assert patterns.blended(1, 2, half) == 2 and patterns.blended(-1, -2, half) == -2  # half away


def test_discs_counts_black_minus_white() -> None:
    game = Othello()
    position = game.play_text(game.start(), "d3")
    assert game.discs(position) == 4 - 1


@settings(max_examples=60, deadline=None)
@given(played=played_positions())
def test_swapping_the_colours_negates_every_evaluation(played: tuple[Othello, Position]) -> None:
    game, position = played
    swapped = Position(position.white, position.black, 1 - position.player)
    for name, evaluate in game.evaluations.items():
        assert evaluate(swapped) == -evaluate(position), name


@settings(max_examples=60, deadline=None)
@given(played=played_positions())
def test_rotating_or_reflecting_the_board_changes_no_evaluation(
    played: tuple[Othello, Position],
) -> None:
    game, position = played
    for symmetry in SYMMETRIES:
        image = transformed(game, position, symmetry)
        assert len(game.legal_moves(image)) == len(game.legal_moves(position))
        for name, evaluate in game.evaluations.items():
            assert evaluate(image) == evaluate(position), name


@pytest.mark.parametrize("size", range(4, 17, 2))
def test_a_corner_is_the_best_square_and_an_x_square_the_worst_on_every_size(size: int) -> None:
    game = Othello({"size": size})
    value = {
        (r, c): game.positional(single_disc(game, label(r, c)))
        for r in range(size)
        for c in range(size)
    }
    far = size - 1
    assert [rc for rc, v in value.items() if v == max(value.values())] == [
        (0, 0),
        (0, far),
        (far, 0),
        (far, far),
    ]
    assert [rc for rc, v in value.items() if v == min(value.values())] == [
        (1, 1),
        (1, far - 1),
        (far - 1, 1),
        (far - 1, far - 1),
    ]
    for c_square in [(0, 1), (1, 0), (0, far - 1), (far, far - 1)]:
        assert value[c_square] < 0, "a C-square is poor while its corner is empty"


def test_x_and_c_squares_stop_costing_once_their_corner_is_taken() -> None:
    game = Othello()
    for square in ["b2", "b1", "a2"]:
        alone = game.positional(single_disc(game, square))
        corner_taken = game.parse_position(board_with(game, {"a1": "O", square: "X"}) + " X")
        corner_only = game.parse_position(board_with(game, {"a1": "O"}) + " X")
        assert game.positional(corner_taken) - game.positional(corner_only) > alone, square


@settings(max_examples=60, deadline=None)
@given(played=played_positions())
def test_mobility_follows_the_difference_in_placements_whoever_is_to_move(
    played: tuple[Othello, Position],
) -> None:
    game, position = played
    assume((position.black | position.white).bit_count() < game.size * (game.size - 1))
    black, white, _ = position
    placements = [
        len([m for m in game.legal_moves(Position(black, white, player)) if m != PASS])
        for player in (0, 1)
    ]
    lead = placements[0] - placements[1]
    for player in (0, 1):
        value = game.mobility(Position(black, white, player))
        assert (value > 0, value < 0) == (lead > 0, lead < 0)


def test_every_evaluation_counts_discs_exactly_in_the_last_row_of_empties() -> None:
    game = Othello()
    # 8 empties (a row's worth): the count decides; one more empty and it is still a heuristic.
    near_end = game.parse_position("O" + "-" * 8 + "X" * 39 + "O" * 16 + " X")
    assert game.discs(near_end) == 39 - 17
    for name, evaluate in game.evaluations.items():
        if name != "patterns":
            assert evaluate(near_end) == 39 - 17, name
    earlier = game.parse_position("O" + "-" * 9 + "X" * 38 + "O" * 16 + " X")
    assert game.positional(earlier) != game.discs(earlier)


def late_positions() -> list[Position]:
    """One random game's positions from 9 down to 3 empty squares."""
    game, rng = Othello(), random.Random(7)
    position, found = game.start(), []
    for empties in range(9, 2, -1):
        while 64 - (position.black | position.white).bit_count() > empties:
            position = game.play(position, rng.choice(game.legal_moves(position)))
        assert not game.is_over(position)
        found.append(position)
    return found


def test_patterns_evaluates_down_to_4_empties_and_counts_discs_in_the_last_3() -> None:
    """Fitted on exactly solved positions down to 4 empties, where the disc count is far from
    the final margin (a search whose horizon fell in the last 8 empties compared lines by it)."""
    game = Othello()
    for position in late_positions():
        counted = 64 - (position.black | position.white).bit_count() <= 3
        assert (game.patterns(position) == game.discs(position)) == counted
        assert game.leaf_evaluation(game.patterns)(position) == game.patterns(position)


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native core is not built")
def test_the_native_search_evaluates_the_last_empties_as_the_python_one() -> None:
    game, native = Othello(), NativeOthello({"size": 8})
    for position in late_positions():
        ours = Searcher(game, evaluation="patterns").search(position, depth=1)
        theirs = Searcher(native, evaluation="patterns").search(position, depth=1)
        assert (ours.score, ours.move) == (theirs.score, theirs.move)


def test_trained_counts_each_feature_black_minus_white() -> None:
    game = Othello()
    # Black: corner a1 and the edge b1-d1 joined to it; an X-square g7 beside the empty h8.
    # White: e1, just past the run, on an edge square but anchored to no corner of its own.
    position = game.parse_position(
        board_with(game, {"a1": "X", "b1": "X", "c1": "X", "d1": "X", "e1": "O", "g7": "X"}) + " X"
    )
    found = dict(zip(trained.FEATURES, game.trained_features(position), strict=True))
    assert (found["corner"], found["c_square"], found["a_square"]) == (1, 1, 1)
    assert found["edge"] == 1 - 1, "d1 against e1"
    assert found["x_square"] == 1
    assert found["x_beside_empty"] == 1
    assert found["c_beside_empty"] == 0, "b1's corner is taken"
    assert found["anchored"] == 3
    assert found["frontier"] == 5 - 1, "every disc touches an empty square"


def test_trained_weights_are_as_fitted_and_rate_a_corner_above_an_x_square() -> None:
    assert len(trained_weights.WEIGHTS) == trained.STAGES
    assert trained.digest(trained_weights.WEIGHTS) == trained_weights.DIGEST, "edited by hand"
    game = Othello()
    for row in trained_weights.WEIGHTS:
        assert len(row) == len(trained.FEATURES)
        weight = dict(zip(trained.FEATURES, row, strict=True))
        assert weight["corner"] > 0 > weight["x_beside_empty"]
    corner = game.parse_position(board_with(game, {"a1": "X", "d4": "O", "e5": "O"}) + " O")
    x_square = game.parse_position(board_with(game, {"b2": "X", "d4": "O", "e5": "O"}) + " O")
    assert game.trained(corner) > game.trained(x_square)


def test_patterns_weights_are_as_fitted_and_rate_a_corner_above_an_x_square() -> None:
    assert patterns.weights() and patterns.stage_of(4) == 0
    assert patterns.stage_of(patterns.LAST_DISCS) == patterns.STAGES - 1
    game = Othello()
    corner = game.parse_position(board_with(game, {"a1": "X", "d4": "O", "e5": "O"}) + " O")
    x_square = game.parse_position(board_with(game, {"b2": "X", "d4": "O", "e5": "O"}) + " O")
    assert game.patterns(corner) > game.patterns(x_square)


def test_a_patterns_weights_file_not_as_fitted_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    patterns.weights.cache_clear()
    monkeypatch.setattr(pattern_weights, "DIGEST", "0" * 64)
    try:
        with pytest.raises(ValueError, match="not the file the training wrote"):
            patterns.weights()
    finally:
        patterns.weights.cache_clear()


def test_a_patterns_weights_file_the_environment_names_is_read_checked_by_its_digest(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    candidate = array("h", patterns.weights())
    candidate[patterns.MOBILITY] += 256  # the first stage's weight per placement, 1 disc more
    data = patterns.encode(candidate)
    named = tmp_path / "candidate.bin"
    named.write_bytes(data)
    Path(f"{named}{patterns.DIGEST_SUFFIX}").write_text(patterns.digest(data) + "\n")
    monkeypatch.setenv(patterns.ENVIRONMENT, str(named))
    patterns.weights.cache_clear()
    try:
        assert patterns.weights() == candidate
        named.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
        patterns.weights.cache_clear()
        with pytest.raises(ValueError, match="not the file the training wrote"):
            patterns.weights()
    finally:
        patterns.weights.cache_clear()


def test_each_pattern_instance_reads_its_squares_first_square_most_significant() -> None:
    game = Othello()
    position = game.parse_position(board_with(game, {"a1": "X", "b1": "O"}) + " X")
    (offset, squares), *_ = patterns.INSTANCES
    assert squares[:2] == (0, 1), "the first edge starts at a1, b1"
    digits = len(squares)
    found = patterns.indices(position.black, position.white)[0]
    assert found == offset + 1 * 3 ** (digits - 1) + 2 * 3 ** (digits - 2)


def label(row: int, column: int) -> str:
    return f"{'abcdefghijklmnop'[column]}{row + 1}"
