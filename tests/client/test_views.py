"""Board views: a position laid out as data (`board`), then drawn as formatted text (`render`),
one game family at a time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_to_text

from ubao.client.board import (
    Animation,
    BaoView,
    MancalaView,
    Marks,
    OthelloView,
    sowing_frames,
    step_cursor,
    view_from_json,
    view_of,
)
from ubao.client.panels import describe_step
from ubao.client.render import render_board
from ubao.engine.games import make_game

VECTORS = Path(__file__).parents[1] / "data" / "bao.jsonl"
BAO_START = {
    "board": [
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 2, 2, 6, 0, 0, 0, 0],
        [0, 0, 0, 0, 6, 2, 2, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
    ],
    "stock": [22, 22],
    "owned": [True, True],
    "to_move": "S",
}
"""Bao's start position in the JSON form of docs/bao.md §2.3 (vector N01)."""


def lines(text: StyleAndTextTuples) -> list[str]:
    return fragment_list_to_text(text).splitlines()


def styled(text: StyleAndTextTuples, style_class: str) -> list[str]:
    """The stripped texts of the fragments carrying `style_class`."""
    return [t.strip() for style, t, *_ in text if style_class in style.split()]


def kalah(**options: Any) -> Any:
    return make_game("kalah", options)


# -- mancala ------------------------------------------------------------------------------------


def test_kalah_shows_north_row_reversed_above_south_row_with_stores_at_the_ends() -> None:
    game = kalah(pits=4, seeds=3)
    position = game.parse_position("kalah(4,3) S 1,2,3,4/5,6,7,8 9,10")
    text = lines(render_board(view_of(game, position), 0, names=("alice", "bob")))
    assert text[0].startswith("North: bob")
    assert text[1].split() == ["N4", "N3", "N2", "N1"]
    assert text[2].split() == ["8", "7", "6", "5"]
    assert text[3].split() == ["N*", "10", "9", "S*"]
    assert text[4].split() == ["1", "2", "3", "4"]
    assert text[5].split() == ["S1", "S2", "S3", "S4"]
    assert text[6].startswith("South: alice") and "to move" in text[6]


def test_kalah_from_norths_seat_puts_north_at_the_bottom_read_from_norths_left() -> None:
    game = kalah(pits=4, seeds=3)
    position = game.parse_position("kalah(4,3) N 1,2,3,4/5,6,7,8 9,10")
    text = lines(render_board(view_of(game, position), 1))
    assert text[2].split() == ["4", "3", "2", "1"]
    assert text[3].split() == ["S*", "9", "10", "N*"]
    assert text[4].split() == ["5", "6", "7", "8"]
    assert text[5].split() == ["N1", "N2", "N3", "N4"]
    assert "to move" in text[6] and text[6].startswith("North")


def test_kalah_marks_legal_holes_last_move_and_cursor_by_style() -> None:
    game = kalah(pits=4, seeds=3)
    view = view_of(game, game.start())
    marks = Marks(legal=frozenset({"S1", "S2"}), last=frozenset({"N3"}), cursor="S2")
    text = render_board(view, 0, marks)
    assert styled(text, "class:hole.legal") == ["3'", "[  3]"]
    assert styled(text, "class:hole.last") == ["3"]
    assert styled(text, "class:hole.cursor") == ["[  3]"]


def test_mancala_move_hole_is_the_movers_pit_whatever_the_direction() -> None:
    view = view_of(make_game("ethiopian", {"pits": 4}), make_game("ethiopian", {"pits": 4}).start())
    assert view.move_hole("3L", 0) == "S3"
    assert view.move_hole("3R", 1) == "N3"
    assert isinstance(view, MancalaView)


def test_kalah_sowing_frames_follow_the_seeds_hole_by_hole_into_the_store() -> None:
    game = kalah(pits=4, seeds=3)
    start = game.start()
    steps = game.sowing_path(start, 2)
    frames = sowing_frames(view_of(game, start), steps, 0)
    assert [frame.step.hole for frame in frames] == ["S2", "S3", "S4", "S*"]
    assert [frame.hand.seeds for frame in frames] == [3, 2, 1, 0]
    assert frames[-1].view.values == view_of(game, game.play(start, 2)).values


def test_kalah_capture_frames_bank_the_captured_seeds() -> None:
    game = kalah(pits=4, seeds=3)
    position = game.parse_position("kalah(4,3) S 1,0,3,3/3,3,3,3 0,0")
    steps = game.sowing_path(position, 1)
    assert [step.action for step in steps] == ["lift", "sow", "capture", "capture", "store"]
    frames = sowing_frames(view_of(game, position), steps, 0)
    assert frames[-1].view.values == view_of(game, game.play(position, 1)).values


@pytest.mark.parametrize(
    ("variant", "position", "move"),
    [
        ("kalah", "S 1,0,1/1,1,0 6,2", "3"),
        ("egyptian", "S 1,0,1/1,1,0 6,2", "3"),
        ("ethiopian", "S 1,2,0/1,2,0 6,0", "2R"),  # a single seed is never sown there
    ],
)
@pytest.mark.parametrize("remaining", ["owner", "mover"])
def test_the_end_sweep_is_drawn_into_each_store_and_said_as_nobodys_capture(
    variant: str, position: str, move: str, remaining: str
) -> None:
    """Issue 36, 3: the seeds left at the end were shown as the mover capturing them, and the
    step that banks them (North's store) was never drawn. Every frame of the sweep now says
    it is the sweep, and the frames end on the position the rules give."""
    game = make_game(variant, {"pits": 3, "seeds": 2, "remaining": remaining, "early_end": True})
    start = game.parse_position(f"{variant}(3,2) {position}")
    played = game.parse_move(start, move)
    steps = game.sowing_path(start, played)
    frames = sowing_frames(view_of(game, start), steps, 0)
    assert frames[-1].view.values == view_of(game, game.play(start, played)).values
    first = next(i for i, step in enumerate(steps) if step.action == "sweep")
    said = [describe_step(frame, "South") for frame in frames[first:]]
    taker = "S*" if remaining == "mover" else "N*"
    north = frames[-1].before.seeds
    assert said[-3:] == [
        "game over: N1 swept up, 1 left",
        f"game over: N2 swept up, {north} left",
        f"game over: the {north} left go to {taker}",
    ]
    assert said[0] == "game over: S1 swept up, 1 left" and "South" not in "".join(said)
    assert said[-4].startswith("game over: the ") and said[-4].endswith(" to S*")
    assert describe_step(frames[0], "South").startswith("South lifts S")


# -- Bao ----------------------------------------------------------------------------------------


def test_bao_start_shows_four_rows_owner_labels_nyumba_and_stocks() -> None:
    view = view_from_json("bao", BAO_START)
    assert isinstance(view, BaoView)
    text = lines(render_board(view, 0, names=("alice", "bob")))
    assert text[0] == "North: bob"
    assert text[1] == "  stock 22  nyumba a5 functional"
    assert text[2].split() == ["8", "7", "6", "5", "4", "3", "2", "1"]
    assert text[3].split() == ["b", *"0" * 8]
    assert text[4].split() == ["a", "0", "2", "2", "(", "6)", "0", "0", "0", "0"]
    assert text[5].split() == ["A", "0", "0", "0", "0", "(", "6)", "2", "2", "0"]
    assert text[6].split() == ["B", *"0" * 8]
    assert text[7].split() == [str(n) for n in range(1, 9)]
    assert text[8] == "South: alice  <- to move"
    assert text[9] == "  stock 22  nyumba A5 functional"


def test_bao_from_norths_seat_rotates_the_board_and_keeps_owner_labels() -> None:
    view = view_from_json("bao", BAO_START)
    rows = view.grid(1)
    assert rows[0] == [f"B{n}" for n in range(8, 0, -1)]
    assert rows[1] == [f"A{n}" for n in range(8, 0, -1)]
    assert rows[2] == [f"a{n}" for n in range(1, 9)]
    assert rows[3] == [f"b{n}" for n in range(1, 9)]
    text = lines(render_board(view, 1))
    assert text[5].split() == ["a", "0", "0", "0", "0", "(", "6)", "2", "2", "0"]


def test_bao_labels_follow_the_vector_layout_for_every_hole() -> None:
    board = [[10 * r + c for c in range(8)] for r in range(4)]
    view = view_from_json("bao", {**BAO_START, "board": board})
    assert view.values["b8"] == 0 and view.values["b1"] == 7
    assert view.values["a8"] == 10 and view.values["a1"] == 17
    assert view.values["A1"] == 20 and view.values["A8"] == 27
    assert view.values["B1"] == 30 and view.values["B8"] == 37


def test_bao_nyumba_status_reads_functional_dormant_or_lost() -> None:
    dormant = {**BAO_START, "board": [[0] * 8, [0] * 8, [0, 0, 0, 0, 3, 0, 0, 0], [0] * 8]}
    view = view_from_json("bao", {**dormant, "owned": [True, False]})
    assert isinstance(view, BaoView)
    assert view.nyumba_status(0) == "nyumba A5 dormant"
    assert view.nyumba_status(1) == "nyumba a5 lost"
    assert styled(render_board(view, 0), "class:nyumba") == ["(  3)"]


def test_bao_takasia_names_the_blocked_hole_in_the_players_frame() -> None:
    vectors = [json.loads(line) for line in VECTORS.read_text().splitlines()]
    vector = next(v for v in vectors if v["position"].get("takasia"))
    view = view_from_json("bao", vector["position"])
    assert isinstance(view, BaoView)
    player = "SN".index(vector["position"]["takasia"]["player"])
    hole = vector["position"]["takasia"]["hole"]
    blocked = hole.upper() if player == 0 else hole.lower()
    text = render_board(view, 0)
    assert f"takasia: may not start from {blocked}" in fragment_list_to_text(text)
    assert styled(text, "class:takasia") == [str(view.values[blocked])]


def test_bao_move_hole_uses_the_movers_case() -> None:
    view = view_from_json("bao", BAO_START)
    assert view.move_hole("A6L", 0) == "A6"
    assert view.move_hole("a5R", 1) == "a5"
    assert view.move_hole("b2l+", 1) == "b2"


def test_every_bao_vector_position_renders_with_64_seeds_accounted_for() -> None:
    for line in VECTORS.read_text().splitlines():
        position = json.loads(line)["position"]
        view = view_from_json("bao", position)
        assert isinstance(view, BaoView)
        on_board = sum(int(v) for v in view.values.values())
        assert on_board + sum(view.stock) == sum(map(sum, position["board"])) + sum(
            position["stock"]
        )
        assert len(lines(render_board(view, 0))) == 10


# -- Othello ------------------------------------------------------------------------------------


def test_othello_grid_has_coordinates_discs_and_legal_squares() -> None:
    game = make_game("othello", {"size": 6})
    text = render_board(view_of(game, game.start()), 0, Marks(legal=frozenset({"c2"})))
    rows = lines(text)
    assert rows[0].startswith("White (O)") and "discs 2" in rows[0]
    assert rows[1].split() == list("abcdef")
    assert rows[2].split() == ["1", *"." * 6]
    assert rows[3].split() == ["2", ".", ".", "+", ".", ".", "."]
    assert rows[4].split() == ["3", ".", ".", "O", "X", ".", "."]
    assert rows[5].split() == ["4", ".", ".", "X", "O", ".", "."]
    assert rows[-1].startswith("Black (X)") and rows[-1].endswith("<- to move")


def test_othello_frames_place_then_flip_in_the_movers_colour() -> None:
    game = make_game("othello", {"size": 6})
    start = game.start()
    move = game.parse_move(start, "c2")
    frames = sowing_frames(view_of(game, start), game.sowing_path(start, move), 0)
    assert frames[0].step.hole == "c2" and frames[0].view.values["c2"] == "X"
    assert frames[-1].view.values == view_of(game, game.play(start, move)).values
    othello_view = frames[-1].view
    assert isinstance(othello_view, OthelloView)
    assert othello_view.move_hole("pass", 0) is None


# -- keyboard cursor ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "key", "end"),
    [
        (None, "right", "A6"),
        ("A6", "right", "A7"),
        ("A7", "right", "B2"),
        ("B2", "left", "A7"),
        ("A6", "left", "A6"),
        ("A7", "down", "B2"),
        ("B2", "up", "A6"),
        ("A6", "up", "A6"),
    ],
)
def test_cursor_walks_only_selectable_holes(start: str | None, key: str, end: str) -> None:
    grid = view_from_json("bao", BAO_START).grid(0)
    selectable = frozenset({"A6", "A7", "B2"})
    assert step_cursor(grid, selectable, start, key) == end


def test_cursor_is_none_without_selectable_holes() -> None:
    grid = view_from_json("bao", BAO_START).grid(0)
    assert step_cursor(grid, frozenset(), "A6", "left") is None


def test_every_bao_vector_move_animates_to_the_position_the_rules_give() -> None:
    game = make_game("bao")
    for line in VECTORS.read_text().splitlines():
        vector = json.loads(line)
        position = game.parse_position_json(vector["position"])
        move = game.parse_move(position, vector["move"])
        frames = sowing_frames(
            view_of(game, position), game.sowing_path(position, move), game.to_move(position)
        )
        final = frames[-1].view
        expected = view_of(game, game.play(position, move))
        assert isinstance(final, BaoView) and isinstance(expected, BaoView)
        assert (final.values, final.stock) == (expected.values, expected.stock), vector["id"]


def test_a_finished_bao_position_marks_nobody_to_move() -> None:
    finished = {key: value for key, value in BAO_START.items() if key != "to_move"}
    text = fragment_list_to_text(
        render_board(view_from_json("bao", {**finished, "winner": "S"}), 0)
    )
    assert "to move" not in text


def test_queued_moves_play_in_order_faster_with_a_backlog_and_a_skip_keeps_the_final_frame() -> (
    None
):
    game = kalah(pits=4, seeds=3)
    start = game.start()
    after = game.play(start, 2)
    first = sowing_frames(view_of(game, start), game.sowing_path(start, 2), 0)
    second = sowing_frames(view_of(game, after), game.sowing_path(after, 1), 0)
    animation = Animation()
    animation.push(first)
    animation.push(second)
    assert animation.frame == first[0] and animation.waiting == 1
    assert animation.delay(1.0) == 0.5
    animation.skip()
    assert animation.frame == first[-1]
    animation.advance()
    assert animation.frame == second[0] and animation.delay(1.0) == 1.0
    assert animation.trail == frozenset({"S1"})
    for _ in second[1:]:
        animation.advance()
    assert animation.frame == second[-1]
    animation.advance()
    assert animation.frame is None
