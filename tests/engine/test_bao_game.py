"""Bao behind the `Game` interface: options, notation, JSON, paths, evaluations, speed-ups.

Sections §x refer to docs/bao.md (the notation is §17).
"""

from __future__ import annotations

import random
from dataclasses import fields
from typing import Any

import pytest

from tests.support.engine import BACKENDS, refusals, run, swap_players
from ubao.engine.bao.game import FLAGS, Bao
from ubao.engine.bao.rules import PLY, BaoMove, Position, Rules
from ubao.engine.game import IllegalMoveError, NotationError, OptionsError, Step
from ubao.engine.games import make_game

CORE = Bao()
START = CORE.start()


def at(text: str, game: Bao = CORE) -> Position:
    return game.parse_position(text)


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions of random games, for round-trip and symmetry checks."""
    rng = random.Random(seed)
    positions: list[Position] = []
    while len(positions) < count:
        position = CORE.start()
        while moves := CORE.legal_moves(position):
            positions.append(position)
            position = CORE.play(position, rng.choice(moves))
        positions.append(position)
    return positions


# -- Options ----------------------------------------------------------------------------------


def test_the_registry_makes_bao_with_options() -> None:
    game = make_game("bao", {"profile": "nierse", "sixteen_rule": True})
    assert isinstance(game, Bao)
    assert game.describe() == "bao(nierse, sixteen_rule=True)"
    assert CORE.describe() == "bao(core)"


def test_options_are_complete_and_core_is_the_default() -> None:
    assert CORE.options == {
        "profile": "core",
        "setup": "namua",
        "max_plies": 500,
        **{name: values[0] for name, values in FLAGS.items()},
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"profil": "core"}, "unknown bao option(s) 'profil'"),
        ({"profile": "zanzibar"}, "'profile' must be one of core, nierse, kujifunza"),
        ({"profile": ["core"]}, "'profile' must be one of core, nierse, kujifunza"),
        ({"sixteen_rule": "yes"}, "'sixteen_rule' must be one of true, false"),
        ({"sixteen_rule": 1}, "'sixteen_rule' must be one of true, false"),
        ({"takasia": "kiba"}, "'takasia' must be one of 'de_voogt', 'mtaji_moja', 'none'"),
        ({"max_plies": -1}, "'max_plies' must be an integer from 0 (no limit) to 1,000,000,000"),
        ({"max_plies": True}, "'max_plies' must be an integer from 0"),
        ({"setup": "random"}, "'setup' must be one of 'namua', 'kujifunza'"),
    ],
)
def test_bad_options_raise_options_error_saying_what_is_wrong(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Bao(options)


def test_every_flag_defaults_to_its_core_choice() -> None:
    assert [(f.name, f.default) for f in fields(Rules)] == [
        (name, values[0]) for name, values in FLAGS.items()
    ]


def test_a_flag_overrides_the_profile() -> None:
    game = Bao({"profile": "kujifunza", "takasia": "de_voogt"})
    assert game.options["setup"] == "kujifunza" and game.options["takasia"] == "de_voogt"


# -- Move notation (§17) ----------------------------------------------------------------------


def test_moves_print_as_in_records_south_upper_north_lower() -> None:
    assert [CORE.format_move(START, move) for move in CORE.legal_moves(START)] == [
        "A6L",
        "A6R",
        "A7L",
        "A7R",
    ]
    north = CORE.play_text(START, "A7L")
    assert sorted(CORE.format_move(north, m) for m in CORE.legal_moves(north)) == ["a5L", "a5R"]


@pytest.mark.parametrize("text", ["A6L", "a6l", " A6L ", "A6:ccw", "a6:CCW", "A6L*"])
def test_move_input_is_case_insensitive_with_aliases(text: str) -> None:
    assert CORE.parse_move(START, text) == BaoMove(5, -1)


def test_back_row_letters_run_the_other_way() -> None:
    position = at("00000000/00000001/10000000/20000000 S 0-2 -")
    assert CORE.parse_move(position, "B1L") == BaoMove(15, 1) == CORE.parse_move(position, "B1:cw")
    assert CORE.parse_move(position, "B1R") == BaoMove(15, -1)


def test_namua_capture_letters_name_the_kichwa() -> None:
    position = at("00000000/10183200/00007000/00000000 S 10-10 SN")  # vector N05a
    assert CORE.parse_move(position, "A5L") == BaoMove(4, 1)  # left kichwa, sown clockwise
    assert CORE.parse_move(position, "A5R") == BaoMove(4, -1)


def test_a_forced_kichwa_may_be_omitted_and_safari_is_a_suffix() -> None:
    position = at("00000000/03480256/02108034/00000000 S 10-10 SN")  # vector N07a
    assert CORE.format_move(position, CORE.parse_move(position, "A2")) == "A2L"
    assert CORE.parse_move(position, "A8R>") == CORE.parse_move(position, "a8r+")
    assert CORE.parse_move(position, "A8R+").safari
    assert not CORE.parse_move(position, "A8R").safari  # no suffix = stop


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("C3L", NotationError, "is not a Bao move"),
        ("A9L", NotationError, "is not a Bao move"),
        ("A6", NotationError, "incomplete: say which, A6L A6R"),
        (
            "A5L",
            IllegalMoveError,
            r"nyumba is played only when .* \[R6\.4a\]; legal moves: A6L A6R",
        ),
        ("B1L", IllegalMoveError, r"the back row plays no part in namua \[R6\.4\]"),
        ("A6R+", IllegalMoveError, r"meets no stop/safari decision \[R10\.3\]; play A6R"),
    ],
)
def test_bad_move_input_says_what_is_wrong(text: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        CORE.parse_move(START, text)


def test_ambiguous_central_capture_lists_the_candidates() -> None:
    position = at("00000000/10183200/00007000/00000000 S 10-10 SN")
    with pytest.raises(NotationError, match="A5L A5R"):
        CORE.parse_move(position, "A5")


def test_a_takasa_marker_on_a_capture_is_refused() -> None:
    position = at("00000000/10183200/00007000/00000000 S 10-10 SN")
    with pytest.raises(IllegalMoveError, match="non-capturing"):
        CORE.parse_move(position, "A5L*")


def test_playing_an_illegal_move_value_raises() -> None:
    with pytest.raises(IllegalMoveError, match="legal moves: A6L A6R A7L A7R"):
        CORE.play(START, BaoMove(4, 1))


def test_no_move_parses_once_the_game_is_over() -> None:
    with pytest.raises(IllegalMoveError, match="the game is over"):
        CORE.parse_move(at("00000000/00000000/10000000/00000000 N 3-3 SN"), "a1R")


# -- Position notation ------------------------------------------------------------------------


def test_position_text_round_trips_over_random_games() -> None:
    for position in random_positions(400, seed=3):
        text = CORE.format_position(position)
        assert "moves" not in text.split()
        assert CORE.parse_position(text) == position


def test_position_json_round_trips_over_random_games() -> None:
    for position in random_positions(400, seed=4):
        assert CORE.parse_position_json(CORE.position_json(position)) == position


def test_counts_of_10_or_more_are_written_in_parentheses() -> None:
    text = "00000000/00000001/000(17)0000/00000000 S 0-0 -"
    assert at(text)[3] == 17 and CORE.format_position(at(text)) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "at least 4 fields"),
        ("00000000/02260000/00006220 S 22-22 SN", "4 rows"),
        ("0000000/02260000/00006220/00000000 S 22-22 SN", "not 8 cells"),
        ("00000000/02260000/00006220/0000000(x) S 22-22 SN", "not 8 cells"),
        ("00000000/02260000/00006220/00000000 W 22-22 SN", "S or N"),
        ("00000000/02260000/00006220/00000000 S 22 SN", "south-north"),
        ("00000000/02260000/00006220/00000000 S 22-x SN", "non-negative integer"),
        ("00000000/02260000/00006220/00000000 S 22-22 NS", "SN, S, N or -"),
        ("00000000/02260000/00006220/00000000 S 22-22 SN moves=3", "unknown field"),
        ("00000000/02260000/00006220/00000000 S 22-22 SN takasia=B2", "one of S's A1..A8"),
        ("00000000/02260000/00006220/00000000 S 0-0 SN takasia=a2", "one of S's A1..A8"),
        ("00000000/02260000/00006220/00000000 S 0-0 SN target=A2", "one of N's a1..a8"),
        ("00000000/02260000/00006220/00000000 S 22-22 SN takasia=A2", "mtaji stage"),
        ("00000000/00000000/00000000/00000000 S 0-0 -", "both front rows are empty"),
    ],
)
def test_bad_position_text_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        CORE.parse_position(text)


def test_position_json_is_the_vector_form() -> None:
    assert CORE.position_json(START) == {
        "board": [[0] * 8, [0, 2, 2, 6, 0, 0, 0, 0], [0, 0, 0, 0, 6, 2, 2, 0], [0] * 8],
        "stock": [22, 22],
        "owned": [True, True],
        "to_move": "S",
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"board": [[0] * 8] * 3}, "'board' must be a list of 4"),
        ({"stock": [22, -1]}, "a stock must be a non-negative integer"),
        ({"owned": [1, 1]}, "'owned' holds true/false"),
        ({"to_move": "south"}, "'to_move' must be 'S' or 'N'"),
        ({"colour": "red"}, "unknown field"),
        ({"winner": "N"}, "the winner cannot be the side to move|does not follow"),
        ({"takasia": {"player": "N", "hole": "A2"}}, "restricts the side to move only"),
    ],
)
def test_bad_position_json_says_what_is_wrong(change: dict[str, Any], message: str) -> None:
    data = {**CORE.position_json(START), **change}
    with pytest.raises(NotationError, match=message):
        CORE.parse_position_json(data)


def test_a_declared_winner_must_follow_from_the_position() -> None:
    data = {**CORE.position_json(START), "winner": "S"}
    del data["to_move"]
    with pytest.raises(NotationError, match="does not follow"):
        CORE.parse_position_json(data)


# -- Outcome, draw convention and keys ------------------------------------------------------


def test_the_ply_counter_is_not_part_of_the_key() -> None:
    position = CORE.play_text(START, "A6L")
    assert position[PLY] == 1
    assert CORE.key(position) == CORE.key((*position[:PLY], 40))


def test_max_plies_0_means_no_limit() -> None:
    game = Bao({"max_plies": 0})
    position = at("00000000/00000001/10000000/20000000 S 0-2 - ply=100000", game)
    assert game.outcome(position) is None and game.legal_moves(position)


# -- Sowing path ------------------------------------------------------------------------------


def test_the_sowing_path_labels_north_holes_in_lowercase() -> None:
    north = CORE.play_text(START, "A7L")
    assert CORE.sowing_path(north, CORE.parse_move(north, "a5R")) == [
        Step("a5", "place"),
        Step("A4", "capture"),
        Step("a8", "sow"),
    ]


def test_the_sowing_path_of_a_tax_lifts_two_seeds() -> None:
    position = at("00000000/01290200/00009000/00000000 S 10-10 SN")  # vector N10a
    steps = CORE.sowing_path(position, CORE.parse_move(position, "A5R"))
    assert [f"{s.action}:{s.hole}" for s in steps] == ["place:A5", "lift:A5", "sow:A6", "sow:A7"]


def test_the_sowing_path_of_an_illegal_move_raises() -> None:
    with pytest.raises(IllegalMoveError):
        CORE.sowing_path(START, BaoMove(4, 1))


# -- Evaluations ------------------------------------------------------------------------------


def test_three_named_evaluations_the_first_is_the_default() -> None:
    assert list(CORE.evaluations) == ["balanced", "material", "front_row"]
    assert CORE.evaluations["material"](START) == 0
    assert all(evaluate(START) == 0 for evaluate in CORE.evaluations.values())


def test_evaluations_are_antisymmetric_under_swapping_the_players() -> None:
    for position in random_positions(300, seed=5):
        if CORE.outcome(position) is not None:
            continue
        swapped = swap_players(position)
        for evaluate in CORE.evaluations.values():
            assert evaluate(swapped) == pytest.approx(-evaluate(position))


def test_evaluations_prefer_the_side_with_more_seeds() -> None:
    richer = at("00000000/00000001/22222222/00000000 S 0-0 -")
    assert all(evaluate(richer) > 0 for evaluate in CORE.evaluations.values())


# -- Speed-ups --------------------------------------------------------------------------------


def test_children_are_cached_so_play_after_legal_moves_simulates_nothing() -> None:
    game = Bao()
    calls = 0
    simulate = game._simulate

    def counting(*args: Any) -> Any:
        nonlocal calls
        calls += 1
        return simulate(*args)

    game._simulate = counting
    moves = game.legal_moves(START)
    assert calls == 4
    children = game.children(START)
    for move in moves:
        game.play(START, move)
    assert calls == 4
    assert children == [(move, game.play(START, move)) for move, _ in children]
    assert sorted(moves) == sorted(move for move, _ in children)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bao_move_that_is_not_legal_has_no_notation(backend: str) -> None:
    bao = make_game("bao", {}, backend)
    start = bao.start()
    refusals(
        bao,
        start,
        [BaoMove(99, 1), BaoMove(0, 5), BaoMove(0, 1), BaoMove(5, 1, True), 3, "x", None],
    )
    texts = [bao.format_move(start, move) for move in bao.legal_moves(start)]
    assert texts == ["A6L", "A6R", "A7L", "A7R"]
    assert [bao.parse_move(start, text) for text in texts] == bao.legal_moves(start)


OVER_WITH_HAND = "00000000/00000000/00006220/00000000 N 0-0 SN hand=3"
"""North to move with an empty front row: the game ended by a capture, 3 seeds in hand."""


NO_HAND = "only after a capture ended the game"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("00000000/02260000/00006220/00000000 S 0-0 SN hand=3", NO_HAND),
        ("00000000/00000000/00006220/00000000 S 0-0 SN hand=3", NO_HAND),
        ("00000000/02260000/00006220/00000000 S 0-0 SN ply=3 ply=4", "'ply' is given twice"),
        ("00000000/02260000/00006220/00000000 S 0-0 SN endless endless", "'endless' is given"),
        (f"{OVER_WITH_HAND} hand=3", "'hand' is given twice"),
    ],
)
def test_bao_refuses_a_repeated_field_and_a_hand_in_a_game_not_over(
    backend: str, text: str, message: str
) -> None:
    game = make_game("bao", {}, backend)
    with pytest.raises(NotationError, match=message):
        game.parse_position(text)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_bao_keeps_a_hand_where_a_capture_ended_the_game(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    game = make_game("bao", {}, backend)
    position = game.parse_position(OVER_WITH_HAND)
    assert game.format_position(position) == OVER_WITH_HAND
    outcome = game.outcome(position)
    assert outcome is not None and outcome.winner == 0 and outcome.score == (13, 0)
    data = game.position_json(position)
    assert game.parse_position_json(data) == position
    not_over = {**data, "board": [[0] * 8, [0, 0, 0, 0, 0, 0, 0, 1], *data["board"][2:]]}
    with pytest.raises(NotationError, match=NO_HAND):
        game.parse_position_json(not_over)
    text = "00000000/02260000/00006220/00000000 S 0-0 SN hand=3"
    status, out, err = run(capsys, "moves", "bao", "--position", text, "--backend", backend)
    assert (status, out) == (2, "") and NO_HAND in err
