"""The two-row mancala family, rule by rule as in docs/mancala.md (sections §1..§6)."""

from __future__ import annotations

import functools
import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.engine import BACKENDS, KALAH_43, KALAH_43_JSON, KALAH_START, refusals, report
from ubao.engine.game import (
    MAX_COUNT,
    IllegalMoveError,
    NotationError,
    OptionsError,
    PositionError,
    Step,
)
from ubao.engine.games import make_game
from ubao.engine.mancala.game import Mancala
from ubao.engine.perft import perft


def kalah(**options: object) -> Mancala:
    game = make_game("kalah", options)
    assert isinstance(game, Mancala)
    return game


def at(game: Mancala, text: str) -> tuple[int, ...]:
    return game.parse_position(text)


def after(game: Mancala, text: str, *moves: str) -> str:
    position = game.parse_position(text)
    for move in moves:
        position = game.play_text(position, move)
    return game.format_position(position)


# -- §1 Board ---------------------------------------------------------------------------------


def test_start_position_has_n_seeds_in_every_pit_empty_stores_south_to_move() -> None:
    game = kalah(pits=5, seeds=3)
    assert game.format_position(game.start()) == "kalah(5,3) S 3,3,3,3,3/3,3,3,3,3 0,0"
    assert game.to_move(game.start()) == 0


@pytest.mark.parametrize(("pits", "seeds"), [(1, 1), (12, 12), (6, 6)])
def test_every_size_from_1_to_12_is_accepted(pits: int, seeds: int) -> None:
    game = kalah(pits=pits, seeds=seeds)
    assert sum(game.start()[:-1]) == 2 * pits * seeds


@pytest.mark.parametrize(
    "options",
    [
        {"pits": 0},
        {"pits": 13},
        {"seeds": "4"},
        {"capture_sower": 1},
        {"end_check": "both"},
        {"remaining": "nobody"},
        {"colour": "red"},
    ],
)
def test_bad_options_are_rejected_with_a_message_naming_them(options: dict[str, object]) -> None:
    with pytest.raises(OptionsError, match=next(iter(options))):
        kalah(**options)


def test_unknown_game_is_rejected() -> None:
    with pytest.raises(OptionsError, match="unknown game"):
        make_game("chess")


# -- §2 Sowing --------------------------------------------------------------------------------


def test_sowing_goes_counter_clockwise_into_own_store_then_opponent_row() -> None:
    game = kalah()
    assert after(game, "kalah(6,4) S 4,4,4,4,4,4/4,4,4,4,4,4 0,0", "5") == (
        "kalah(6,4) N 4,4,4,4,0,5/5,5,4,4,4,4 1,0"
    )


def test_north_sows_along_its_row_into_its_store_then_south_row() -> None:
    game = kalah()
    assert after(game, "kalah(6,4) N 4,4,4,4,4,4/4,4,4,4,4,4 0,0", "5") == (
        "kalah(6,4) S 5,5,4,4,4,4/4,4,4,4,0,5 0,1"
    )


def test_sowing_skips_the_opponent_store() -> None:
    game = kalah(pits=2, seeds=1)
    # 6 seeds from S2: S*, N1, N2, (skip N*), S1, S2, S*.
    assert after(game, "kalah(2,1) S 0,6/1,0 0,0", "2") == "kalah(2,1) S 1,1/2,1 2,0"


def test_a_lap_sows_into_the_origin_pit_again() -> None:
    game = kalah(pits=2, seeds=1, end_check="mover")
    # 6 seeds from S2 on a 2-pit board: S*, N1, N2, S1, S2 (the origin, not skipped), S*.
    position = after(game, "kalah(2,1) S 0,6/0,1 0,0", "2")
    assert position == "kalah(2,1) S 1,1/1,2 2,0"


def test_many_laps_give_every_hole_but_the_opponent_store_the_same_share() -> None:
    game = kalah(pits=1, seeds=1)
    # Ring S1, S*, N1 (N* skipped): 7 seeds = 2 laps + 1, the last in S1's store? S1 gets laps.
    position = game.play_text(at(game, "kalah(1,1) S 7/1 0,0"), "1")
    assert sum(position[:-1]) == 8
    assert game.sowing_path(at(game, "kalah(1,1) S 7/1 0,0"), 1)[0] == Step("S1", "lift")


# -- §3 Outcomes of the last seed -------------------------------------------------------------


@pytest.mark.parametrize(("remaining", "taker"), [("owner", "N*"), ("mover", "S*")])
def test_the_sweep_path_takes_each_rows_pits_up_then_banks_them_in_their_store(
    remaining: str, taker: str
) -> None:
    """The seeds left at the end go to a store: each row's pits are swept ("sweep", nobody's
    capture), then the store they go to is a step too (it was missing)."""
    game = kalah(pits=3, seeds=2, remaining=remaining, early_end=True)
    path = game.sowing_path(at(game, "kalah(3,2) S 1,0,1/1,1,0 6,2"), 3)
    assert path[2:] == [
        Step("S1", "sweep"), Step("S*", "store"),
        Step("N1", "sweep"), Step("N2", "sweep"), Step(taker, "store"),
    ]  # fmt: skip


def test_extra_turn_when_the_last_seed_falls_in_own_store() -> None:
    game = kalah()
    position = game.play_text(game.start(), "3")
    assert game.to_move(position) == 0


def test_capture_takes_the_opposite_pit_and_the_sower_by_default() -> None:
    game = kalah(pits=3, seeds=2)
    # S1 has 1 seed: it falls into empty S2, opposite N2 (3 seeds) is captured with the sower.
    assert after(game, "kalah(3,2) S 1,0,5/1,3,1 0,1", "1") == "kalah(3,2) N 0,0,5/1,0,1 4,1"


def test_capture_sower_false_leaves_the_capturing_seed() -> None:
    game = kalah(pits=3, seeds=2, capture_sower=False)
    assert after(game, "kalah(3,2) S 1,0,5/1,3,1 0,1", "1") == "kalah(3,2) N 0,1,5/1,0,1 3,1"


def test_empty_capture_true_banks_the_sower_even_when_the_opposite_pit_is_empty() -> None:
    game = kalah(pits=3, seeds=2)
    assert after(game, "kalah(3,2) S 1,0,5/1,0,4 0,1", "1") == "kalah(3,2) N 0,0,5/1,0,4 1,1"


def test_empty_capture_false_captures_nothing_when_the_opposite_pit_is_empty() -> None:
    game = kalah(pits=3, seeds=2, empty_capture=False)
    assert after(game, "kalah(3,2) S 1,0,5/1,0,4 0,1", "1") == "kalah(3,2) N 0,1,5/1,0,4 0,1"


def test_no_capture_when_the_last_seed_falls_on_the_opponent_side() -> None:
    game = kalah(pits=3, seeds=2)
    assert after(game, "kalah(3,2) S 1,1,2/0,3,1 0,4", "3") == "kalah(3,2) N 1,1,0/1,3,1 1,4"


def test_no_capture_when_the_last_seed_falls_in_an_occupied_own_pit() -> None:
    game = kalah(pits=3, seeds=2)
    assert after(game, "kalah(3,2) S 1,1,2/2,3,1 0,2", "1") == "kalah(3,2) N 0,2,2/2,3,1 0,2"


def test_a_lap_that_ends_in_the_emptied_origin_pit_captures() -> None:
    game = kalah(pits=2, seeds=2)
    # 5 seeds from S1 on the 5-hole ring end in S1 itself, which was empty: capture.
    result = game.play_text(at(game, "kalah(2,2) S 5,1/1,1 0,0"), "1")
    assert game.format_position(result) == "kalah(2,2) N 0,2/2,0 4,0"


def test_egyptian_defaults_keep_the_sower_and_need_a_seed_opposite() -> None:
    game = make_game("egyptian")
    assert game.options["capture_sower"] is False and game.options["empty_capture"] is False
    text = "egyptian(6,4) S 1,0,4,4,4,4/4,4,4,4,0,4 0,3"
    assert game.format_position(game.play_text(game.parse_position(text), "1")) == (
        "egyptian(6,4) N 0,1,4,4,4,4/4,4,4,4,0,4 0,3"
    )
    text = "egyptian(6,4) S 1,0,4,4,4,4/4,4,4,4,2,4 0,1"
    assert game.format_position(game.play_text(game.parse_position(text), "1")) == (
        "egyptian(6,4) N 0,1,4,4,4,4/4,4,4,4,0,4 2,1"
    )


# -- §4 End of the game -----------------------------------------------------------------------


def test_game_ends_when_either_row_is_empty_and_remaining_seeds_go_to_their_owner() -> None:
    game = kalah(pits=3, seeds=2)
    # South sows its last seed into the store (extra turn), its row is empty: the game ends.
    final = game.play_text(at(game, "kalah(3,2) S 0,0,1/2,1,0 5,3"), "3")
    assert game.format_position(final) == "kalah(3,2) S 0,0,0/0,0,0 6,6"
    outcome = game.outcome(final)
    assert outcome is not None and outcome.winner is None and outcome.score == (6, 6)
    assert game.legal_moves(final) == []


def test_end_check_mover_lets_the_game_go_on_while_the_player_to_move_has_seeds() -> None:
    game = kalah(pits=3, seeds=2, end_check="mover")
    # South empties its row but moves again (extra turn): it has no seeds, so the game ends.
    final = game.play_text(at(game, "kalah(3,2) S 0,0,1/2,1,0 5,3"), "3")
    assert game.outcome(final) is not None
    # North's row is empty but South is to move and has seeds: play goes on.
    position = at(game, "kalah(3,2) S 1,2,0/0,0,0 4,5")
    assert game.outcome(position) is None
    assert game.legal_moves(position) == [1, 2]


def test_remaining_mover_gives_all_seeds_left_to_the_player_who_holds_them() -> None:
    game = kalah(pits=3, seeds=2, remaining="mover")
    final = game.play_text(at(game, "kalah(3,2) S 0,0,1/2,1,0 5,3"), "3")
    outcome = game.outcome(final)
    assert outcome is not None and outcome.score == (6, 6)


def test_the_winner_has_more_seeds_in_his_store() -> None:
    game = kalah(pits=3, seeds=2)
    final = game.play_text(at(game, "kalah(3,2) S 0,0,1/0,1,0 8,2"), "3")
    outcome = game.outcome(final)
    assert outcome is not None and outcome.winner == 0 and outcome.score == (9, 3)


def test_a_capture_that_empties_the_opponent_row_ends_the_game() -> None:
    game = kalah(pits=3, seeds=2)
    final = game.play_text(at(game, "kalah(3,2) S 1,0,2/0,3,0 3,3"), "1")
    outcome = game.outcome(final)
    assert outcome is not None and outcome.score == (9, 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_early_end_stops_the_game_once_a_store_holds_more_than_half(backend: str) -> None:
    """Option `early_end` (KGP's rule, docs/kgp.md): the stores then 10 of 19 seeds, South has won;
    each row's seeds go to their owner. Without it the game goes on."""
    text = "kalah(3,2) S 1,0,2/1,0,4 9,2"
    early = make_game("kalah", {"pits": 3, "seeds": 2, "early_end": True}, backend)
    assert early.format_position(early.play_text(early.parse_position(text), "3")) == (
        "kalah(3,2) N 0,0,0/0,0,0 11,8"
    )
    late = make_game("kalah", {"pits": 3, "seeds": 2}, backend)
    assert late.format_position(late.play_text(late.parse_position(text), "3")) == (
        "kalah(3,2) N 1,0,0/2,0,4 10,2"
    )
    exactly_half = early.parse_position("kalah(3,2) N 1,0,0/2,0,4 9,3")  # 9 of 19 is not past it
    assert not early.is_over(exactly_half) and early.legal_moves(exactly_half) == [1, 3]
    past = early.parse_position("kalah(3,2) N 1,0,0/2,0,4 10,2")
    assert early.is_over(past) and early.legal_moves(past) == []


# -- §5 Ethiopian -----------------------------------------------------------------------------


def test_ethiopian_offers_both_directions_and_never_a_single_seed() -> None:
    game = make_game("ethiopian")
    position = game.parse_position("ethiopian(6,4) S 1,2,0,0,0,1/4,4,4,4,4,4 0,0")
    assert [game.format_move(position, m) for m in game.legal_moves(position)] == ["2L", "2R"]
    with pytest.raises(IllegalMoveError, match="single seed"):
        game.parse_move(position, "1R")


def test_ethiopian_clockwise_sows_away_from_the_store_then_opponent_row_then_own_store() -> None:
    game = make_game("ethiopian")
    text = "ethiopian(6,4) S 0,2,0,0,0,2/0,0,0,0,0,3 0,0"
    # 2L from S2: S1, then (skip N*) N6.
    assert game.format_position(game.play_text(game.parse_position(text), "2L")) == (
        "ethiopian(6,4) N 1,0,0,0,0,2/0,0,0,0,0,4 0,0"
    )


def test_ethiopian_clockwise_lap_reaches_own_store_last() -> None:
    game = make_game("ethiopian", {"pits": 2, "seeds": 2})
    # 4 seeds from S1 clockwise: N2, N1, S*... the path skips North's store.
    path = game.sowing_path(game.parse_position("ethiopian(2,2) S 4,2/2,2 0,0"), -1)
    assert [step.hole for step in path] == ["S1", "N2", "N1", "S*", "S2"]


def test_ethiopian_extra_turn_and_capture_in_the_clockwise_direction() -> None:
    game = make_game("ethiopian", {"pits": 2, "seeds": 2})
    # 1L from S1 with 3 seeds: N2, N1, then South's own store: South moves again.
    extra = game.play_text(game.parse_position("ethiopian(2,2) S 3,2/2,2 0,0"), "1L")
    assert game.format_position(extra) == "ethiopian(2,2) S 0,2/3,3 1,0"
    game = make_game("ethiopian", {"pits": 4, "seeds": 2})
    # 3L from S3: S2, then S1, empty: the 3 seeds of N4 opposite are captured, the sower stays.
    text = "ethiopian(4,2) S 0,0,2,3/1,2,3,3 0,0"
    captured = game.play_text(game.parse_position(text), "3L")
    assert game.format_position(captured) == "ethiopian(4,2) N 1,1,0,3/1,2,3,0 3,0"


def test_ethiopian_game_ends_when_a_player_has_only_singletons() -> None:
    game = make_game("ethiopian", {"pits": 3, "seeds": 2})
    position = game.parse_position("ethiopian(3,2) N 1,0,1/2,0,0 4,4")
    outcome = game.outcome(position)
    assert outcome is not None and outcome.score == (6, 6)
    assert game.legal_moves(position) == []


# -- §6 Notation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kalah(6,4) S 4,4,4,4,4,4/4,4,4,4,4,4", "4 fields"),
        ("kalah(5,4) S 4,4,4,4,4,4/4,4,4,4,4,4 0,0", "is for 'kalah\\(5,4\\)'"),
        ("kalah(6,4) W 4,4,4,4,4,4/4,4,4,4,4,4 0,0", "S or N"),
        ("kalah(6,4) S 4,4,4,4,4/4,4,4,4,4,4 0,0", "6 pits"),
        ("kalah(6,4) S 4,4,4,4,4,4,4,4,4,4,4,4 0,0", "South's pits / North's pits"),
        ("kalah(6,4) S 4,4,4,-4,4,4/4,4,4,4,4,4 0,0", "non-negative"),
        ("kalah(6,4) S 0,0,0,0,0,0/0,0,0,0,0,0 0,0", "at least one seed"),
        ("kalah(6,4) S 4,4,4,4,4,4/4,4,4,4,4,4 0", "2 stores"),
    ],
)
def test_malformed_positions_are_rejected_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        kalah().parse_position(text)


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("x", NotationError, "pit number"),
        ("7", NotationError, "does not exist"),
        ("0", NotationError, "does not exist"),
        ("3R", NotationError, "no direction"),
        ("", NotationError, "pit number"),
    ],
)
def test_malformed_moves_are_rejected_with_the_reason(
    text: str, error: type[Exception], message: str
) -> None:
    game = kalah()
    with pytest.raises(error, match=message):
        game.parse_move(game.start(), text)


def test_an_empty_pit_is_an_illegal_move_with_the_reason() -> None:
    game = kalah()
    position = game.play_text(game.start(), "3")
    with pytest.raises(IllegalMoveError, match="pit 3 holds 0"):
        game.parse_move(position, "3")
    with pytest.raises(IllegalMoveError):
        game.play(position, 3)


def test_position_json_round_trips() -> None:
    game = kalah(pits=4, seeds=3)
    position = game.play_text(game.start(), "2")
    assert game.parse_position_json(game.position_json(position)) == position


# -- invariants over random games -------------------------------------------------------------

GAME_SPECS = [
    ("kalah", {}),
    ("kalah", {"pits": 3, "seeds": 5, "empty_capture": False, "capture_sower": False}),
    ("kalah", {"pits": 4, "seeds": 2, "end_check": "mover", "remaining": "mover"}),
    ("egyptian", {}),
    ("ethiopian", {}),
]


@settings(max_examples=60, deadline=None)
@given(spec=st.sampled_from(GAME_SPECS), seed=st.integers(0, 2**32 - 1))
def test_random_games_conserve_seeds_round_trip_notation_and_terminate(
    spec: tuple[str, dict[str, object]], seed: int
) -> None:
    name, options = spec
    game = make_game(name, options)
    assert isinstance(game, Mancala)
    rng = random.Random(seed)
    position = game.start()
    total = sum(position[:-1])
    for _ply in range(2000):
        assert sum(position[:-1]) == total
        assert game.parse_position(game.format_position(position)) == position
        moves = game.legal_moves(position)
        if not moves:
            break
        for move in moves:
            assert game.parse_move(position, game.format_move(position, move)) == move
        move = rng.choice(moves)
        path = game.sowing_path(position, move)
        assert path[0].action == "lift"
        sown = itertools.takewhile(lambda step: step.action not in ("capture", "sweep"), path[1:])
        assert len(list(sown)) == position[position[-1] * (game.pits + 1) + abs(move) - 1]
        position = game.play(position, move)
    outcome = game.outcome(position)
    assert outcome is not None, "a random game must end"
    assert sum(outcome.score) == total
    assert outcome.winner == (
        None if outcome.score[0] == outcome.score[1] else int(outcome.score[1] > outcome.score[0])
    )


# -- perft, counted two independent ways ------------------------------------------------------


def count_by_replaying(game: Mancala, depth: int) -> int:
    """Enumerate every sequence of pit numbers and replay it from the start through notation."""
    count = 0
    pits = [str(pit) for pit in range(1, game.pits + 1)]
    prefixes: set[tuple[str, ...]] = {()}
    for length in range(1, depth + 1):
        extended: set[tuple[str, ...]] = set()
        for prefix in prefixes:
            for pit in pits:
                sequence = (*prefix, pit)
                position = replay(game, sequence)
                if position is None:
                    continue
                if game.outcome(position) is not None or length == depth:
                    count += 1
                else:
                    extended.add(sequence)
        prefixes = extended
    return count


@functools.cache
def replay(game: Mancala, sequence: tuple[str, ...]) -> tuple[int, ...] | None:
    """The position after `sequence`, or None if a move in it is illegal."""
    position = game.start() if not sequence else replay(game, sequence[:-1])
    if position is None or not sequence:
        return position
    try:
        return game.play_text(position, sequence[-1])
    except IllegalMoveError:
        return None


def test_kalah_6_4_perft_to_depth_6_agrees_between_recursion_and_replay() -> None:
    game = kalah()
    recursive = [perft(game, game.start(), depth) for depth in range(1, 7)]
    assert recursive == [count_by_replaying(game, depth) for depth in range(1, 7)]
    assert recursive[:2] == [6, 35]


def test_perft_counts_a_game_ending_early_once() -> None:
    game = kalah(pits=1, seeds=1)
    # South sows its only seed into its store: the row is empty, the game is over.
    assert perft(game, game.start(), 5) == 1
    assert list(itertools.islice((perft(game, game.start(), d) for d in range(3)), 3)) == [1, 1, 1]


@pytest.mark.parametrize(("name", "options"), GAME_SPECS)
def test_a_thousand_random_games_per_variant_conserve_seeds_and_end_with_a_true_result(
    name: str, options: dict[str, object]
) -> None:
    game = make_game(name, options)
    rng = random.Random(f"{name}{options}")
    start = game.start()
    total = sum(start[:-1])
    for _game in range(1000):
        position = start
        while moves := game.legal_moves(position):
            position = game.play(position, rng.choice(moves))
            assert sum(position[:-1]) == total and min(position[:-1]) >= 0
        outcome = game.outcome(position)
        assert outcome is not None and sum(outcome.score) == total
        assert sum(position[:-1]) == sum(outcome.score), "the end banks every seed"


@pytest.mark.parametrize(
    ("name", "options"),
    [
        *GAME_SPECS,
        ("kalah", {"pits": 2, "seeds": 12}),  # whole laps round the ring
        ("kalah", {"pits": 5, "seeds": 4, "empty_capture": False, "end_check": "mover"}),
        ("ethiopian", {"pits": 3, "seeds": 9, "end_check": "mover", "remaining": "mover"}),
    ],
)
def test_children_sow_as_play_does_and_is_over_agrees_with_outcome(
    name: str, options: dict[str, object]
) -> None:
    # `children` sows inline for speed and checks one row where it can; `play` is the reference.
    game = make_game(name, options)
    rng = random.Random(f"children {name}{options}")
    for _game in range(100):
        position = game.start()
        while True:
            moves = game.legal_moves(position)
            assert game.children(position) == [(move, game.play(position, move)) for move in moves]
            assert game.is_over(position) == (game.outcome(position) is not None) == (not moves)
            if not moves:
                break
            position = game.play(position, rng.choice(moves))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_mancala_move_that_is_not_legal_has_no_notation(backend: str) -> None:
    kalah = make_game("kalah", {}, backend)
    position = kalah.parse_position("kalah(6,4) S 4,0,4,4,4,4/4,4,4,4,4,4 0,4")
    refusals(kalah, position, [99, 0, -1, 7, 2, 3.0, True, "1"])
    assert [kalah.format_move(position, move) for move in kalah.legal_moves(position)] == [
        "1", "3", "4", "5", "6",
    ]  # fmt: skip
    over = kalah.parse_position("kalah(6,4) S 0,0,0,0,0,0/4,4,4,4,4,4 24,0")
    refusals(kalah, over, [1, 6])
    ethiopian = make_game("ethiopian", {}, backend)
    single = ethiopian.parse_position("ethiopian(6,4) S 1,4,4,4,4,4/4,4,4,4,4,4 0,0")
    refusals(ethiopian, single, [1, -1, 7, -7, 0])
    assert ethiopian.format_move(single, -2) == "2L"


HUGE_PIT = "kalah(6,4) S 4,4,4,4,4,2000000/4,4,4,4,4,4 0,0"


HUGE_HOLE = "00000000/0000000(2000000)/20000000/00000000 S 0-0 -"


HUGE_PLY = "00000000/00000002/20000000/00000000 S 0-0 - ply=2000000000"


SOUTH_LOSES = "00000000/00000002/20000000/00000000 S 0-0 -"
"""A forced loss for South, with equal seeds at the end."""


@pytest.mark.timeout(120)
def test_the_bound_is_the_same_in_text_and_json_and_overlong_numbers_are_refused() -> None:
    kalah, bao = make_game("kalah", backend="python"), make_game("bao", backend="python")
    edge = f"kalah(6,4) S {MAX_COUNT},4,4,4,4,4/4,4,4,4,4,4 0,0"
    assert kalah.parse_position(edge)[0] == MAX_COUNT
    overlong = "9" * 5000  # int() itself refuses this many digits with a bare ValueError
    for text in (HUGE_PIT, f"kalah(6,4) S 4,4,4,4,4,4/4,4,4,4,4,4 0,{overlong}"):
        with pytest.raises(NotationError, match="at most 1,000,000"):
            kalah.parse_position(text)
    with pytest.raises(NotationError):
        kalah.parse_position("kalah(6,4) S 4,4,4,4,4,４/4,4,4,4,4,4 0,0")
    for text in (HUGE_HOLE, HUGE_PLY, f"{SOUTH_LOSES} hand={overlong}"):
        with pytest.raises(NotationError, match="at most"):
            bao.parse_position(text)
    data: dict[str, Any] = bao.position_json(bao.start())
    with pytest.raises(NotationError, match="1,000,000,000"):
        bao.parse_position_json({**data, "ply": 2_000_000_000})
    with pytest.raises(NotationError, match="1,000,000"):
        bao.parse_position_json({**data, "stock": [MAX_COUNT + 1, 22]})


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_position_need_not_name_the_seeds_option(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 4}, backend)
    position = game.parse_position(KALAH_43)
    assert position == game.parse_position("kalah(4,4) S 3,3,3,3/3,3,3,3 0,0")
    assert game.format_position(position) == "kalah(4,4) S 3,3,3,3/3,3,3,3 0,0"
    assert game.parse_position_json(KALAH_43_JSON) == position
    data = report(
        capsys, "moves", "kalah", "--options", '{"seeds": 4}', "--position", KALAH_43,
        "--backend", backend,
    )  # fmt: skip
    assert data["moves"] == ["1", "2", "3", "4"] and data["position"].startswith("kalah(4,4) ")


BAD_JSON: list[tuple[Any, str]] = [
    ({}, "missing field.*'game', 'pits'"),
    ([1, 2], "must be an object"),
    (None, "must be an object"),
    ({k: v for k, v in KALAH_START.items() if k != "game"}, "missing field.*'game'"),
    ({**KALAH_START, "extra": 1}, "unknown field.*'extra'"),
    ({**KALAH_START, "pits": [[4] * 6, ["4", 4, 4, 4, 4, 4]]}, "'pits' North's row.*'4'"),
    ({**KALAH_START, "pits": [[4] * 6, [4, 4, 4, 4, 4, True]]}, "'pits' North's row.*True"),
    ({**KALAH_START, "pits": [[4] * 6, [4, 4, 4, 4, 4, 4.0]]}, "'pits' North's row.*4.0"),
    ({**KALAH_START, "pits": [[4] * 6, "4,4"]}, "'pits' North's row must be a list of 6"),
    ({**KALAH_START, "pits": [[4] * 6, [4] * 7]}, "'pits' North's row must be a list of 6"),
    ({**KALAH_START, "pits": [[4] * 6]}, "'pits' must be 2 lists"),
    ({**KALAH_START, "pits": [[4] * 6, [-1] + [4] * 5]}, "non-negative"),
    ({**KALAH_START, "pits": [[4] * 6, [2_000_000] + [4] * 5]}, "at most 1,000,000"),
    ({**KALAH_START, "stores": [0, "0"]}, "'stores'.*'0'"),
    ({**KALAH_START, "stores": 0}, "'stores' must be a list of 2"),
    ({**KALAH_START, "to_move": 0}, "'to_move' must be 'S' or 'N', not 0"),
    ({**KALAH_START, "to_move": "W"}, "'to_move'"),
    ({**KALAH_START, "game": 6}, "'game' must be a string"),
    ({**KALAH_START, "game": "egyptian(6,4)"}, "'game'.*but the game is kalah"),
    ({**KALAH_START, "game": "kalah(4,4)"}, "'game'.*4 pits a side"),
    ({**KALAH_START, "pits": [[0] * 6, [0] * 6]}, "at least one seed"),
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("data", "message"), BAD_JSON)
def test_the_kalah_json_form_is_checked_field_by_field(
    backend: str, data: Any, message: str
) -> None:
    game = make_game("kalah", {}, backend)
    with pytest.raises(PositionError, match=message) as refused:
        game.parse_position_json(data)
    assert "\n" not in str(refused.value) and str(refused.value).startswith("bad kalah position")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["kalah", "egyptian", "ethiopian"])
def test_the_json_form_round_trips_and_takes_the_bare_name(backend: str, name: str) -> None:
    game = make_game(name, {}, backend)
    position = game.play(game.start(), game.legal_moves(game.start())[0])
    data = game.position_json(position)
    assert data["game"] == f"{name}(6,4)"
    assert game.parse_position_json(data) == position
    assert game.parse_position_json({**data, "game": name}) == position
