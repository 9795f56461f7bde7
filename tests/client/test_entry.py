"""Move entry: a typed move is sent, completed by a question, or refused with a clear reason."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input

from tests.support.client import until
from tests.support.screen import PEOPLE, Recorder, Shown, SizedOutput, legal_snapshot, played, sized
from ubao.client.app import GameApp
from ubao.client.entry import Ask, OneMove, Option, Reject, hole_entry, read_entry
from ubao.client.state import GameState
from ubao.engine.games import make_game
from ubao.protocol import SeatInfo

SAFARI_POSITION = "00000000/12070000/11207020/00000000 N 20-21 SN ply=3"
"""North to move in the namua stage; a7 and a8 capture and reach the nyumba decision."""


def legal_of(game: Any, position: Any) -> list[str]:
    return [game.format_move(position, move) for move in game.legal_moves(position)]


def entry(game: Any, position: Any, text: str, decided: bool = False) -> Any:
    return read_entry(text, legal_of(game, position), game, position, decided)


def test_a_legal_kalah_move_is_sent_in_canonical_form() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    assert entry(game, game.start(), " 2 ") == OneMove("2")


def test_an_empty_pit_is_refused_with_the_rules_reason() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    position = game.parse_position("kalah(4,3) S 0,3,3,3/3,3,3,3 0,0")
    result = entry(game, position, "1")
    assert isinstance(result, Reject) and "pit 1 holds 0" in result.message


def test_a_malformed_entry_is_refused_with_the_notation_help() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    result = entry(game, game.start(), "x9")
    assert isinstance(result, Reject) and "write a pit number 1..4" in result.message


def test_nothing_is_accepted_when_it_is_not_your_turn() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    assert read_entry("2", [], game, game.start()) == Reject("it is not your turn")


def test_an_ethiopian_pit_without_direction_asks_left_or_right() -> None:
    game = make_game("ethiopian", {"pits": 4, "seeds": 3})
    result = entry(game, game.start(), "3")
    assert isinstance(result, Ask)
    assert [(o.answer, o.move) for o in result.options] == [("L", "3L"), ("R", "3R")]
    picked = result.pick("r")
    assert picked == Option("R", "3R", False)
    assert entry(game, game.start(), picked.move) == OneMove("3R")


def test_othello_accepts_any_case_and_refuses_an_occupied_square() -> None:
    game = make_game("othello", {"size": 6})
    assert entry(game, game.start(), "C2") == OneMove("c2")
    result = entry(game, game.start(), "c3")
    assert isinstance(result, Reject) and "occupied" in result.message


def test_bao_move_without_letter_lists_the_candidates() -> None:
    game = make_game("bao")
    result = entry(game, game.start(), "a6")
    assert isinstance(result, Ask)
    assert [o.move for o in result.options] == ["A6L", "A6R"]
    assert "L or R" in result.question


def test_bao_move_reaching_the_nyumba_decision_asks_stop_or_safari() -> None:
    game = make_game("bao")
    position = game.parse_position(SAFARI_POSITION)
    result = entry(game, position, "a7r")
    assert isinstance(result, Ask) and "stop there, or go on safari" in result.question
    assert result.pick("safari") == Option("safari", "a7R+", True)
    assert result.pick("stop") == Option("stop", "a7R", True)
    assert entry(game, position, "a7R", decided=True) == OneMove("a7R")
    assert entry(game, position, "a7R+") == OneMove("a7R+")
    assert entry(game, position, "a7:ccw>") == OneMove("a7R+")


def test_bao_safari_where_no_decision_arises_is_refused() -> None:
    game = make_game("bao")
    result = entry(game, game.start(), "A6L+")
    assert isinstance(result, Reject) and "no stop/safari decision" in result.message


def test_choosing_a_hole_with_two_moves_asks_which() -> None:
    game = make_game("bao")
    position = game.start()
    result = hole_entry("A6", legal_of(game, position), game, position, ["A6R", "A6L"])
    assert isinstance(result, Ask) and [o.move for o in result.options] == ["A6L", "A6R"]


def test_choosing_a_hole_with_one_move_plays_it() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    position = game.start()
    assert hole_entry("S3", legal_of(game, position), game, position, ["3"]) == OneMove("3")


def test_choosing_a_hole_that_leads_to_the_nyumba_still_asks_stop_or_safari() -> None:
    game = make_game("bao")
    position = game.parse_position(SAFARI_POSITION)
    legal = legal_of(game, position)
    result = hole_entry("a8", legal, game, position, ["a8R", "a8R+"])
    assert isinstance(result, Ask) and [o.answer for o in result.options] == ["stop", "safari"]


@pytest.mark.parametrize("answer", ["", "L"])
def test_a_single_candidate_question_is_confirmed_by_enter_or_its_answer(answer: str) -> None:
    question = Ask("A5 means A5L: confirm with Enter", (Option("L", "A5L", False),))
    assert question.pick(answer) == Option("L", "A5L", False)
    assert question.pick("R") is None


def test_a_hole_chosen_with_the_cursor_asks_l_or_r_and_takes_the_letter_as_the_answer() -> None:
    """The Bao capture after A6L a5R, and an Ethiopian pit (whose moves do not name the
    hole's row): the question says "Answer L or R" whichever way the hole was chosen, `L` is
    accepted, and its sowing ends in one ellipsis, not four dots."""
    game = make_game("bao")
    position = game.play_text(game.play_text(game.start(), "A6L"), "a5R")
    result = hole_entry("A3", legal_of(game, position), game, position, ["A3L", "A3R"])
    assert isinstance(result, Ask) and [o.answer for o in result.options] == ["L", "R"]
    assert result.question.startswith("A3: which way? L sows A1 A2, R sows A8 A7 A6... ")
    assert "Answer L or R (Esc cancels)" in result.question and "...." not in result.question
    assert result.pick("L") == Option("L", "A3L", False)
    assert result.pick("a3r") == Option("R", "A3R", False)
    ethiopian = make_game("ethiopian", {"pits": 4, "seeds": 3})
    start = ethiopian.start()
    result = hole_entry("S3", legal_of(ethiopian, start), ethiopian, start, ["3L", "3R"])
    assert isinstance(result, Ask) and [o.answer for o in result.options] == ["L", "R"]


def test_with_one_legal_move_the_filled_entry_says_enter_plays() -> None:
    app = sized(80, 24)
    app.on_event(dataclasses.replace(legal_snapshot("kalah"), legal=("3",)))
    app.buffer.text = "3"  # what Tab does with a single move: fills it in, no list
    assert app.buffer.complete_state is None
    assert fragment_list_to_text(app._help_text()).startswith("Enter plays 3")


LEFT, RIGHT = "\x1b[D", "\x1b[C"


def test_a_question_that_leaves_the_hole_open_too_is_a_choice_of_moves() -> None:
    game = make_game("bao", {})
    start = game.start()
    legal = [game.format_move(start, move) for move in game.legal_moves(start)]
    asked = read_entry("a", legal, game, start)  # what Tab completes on ["A6L", …, "A7R"]
    assert isinstance(asked, Ask)
    assert asked.question.startswith("a: which move? A6L sows "), asked.question
    assert "Answer 6L, 6R, 7L or 7R" in asked.question and "which way" not in asked.question
    way = read_entry("A6", legal, game, start)
    assert isinstance(way, Ask) and way.question.startswith("A6: which way? L sows ")


@pytest.mark.parametrize("player", [("bao", 80, 24)], indirect=True)
async def test_left_and_right_answer_a_direction_question(player: Shown) -> None:
    app = player.app
    for arrow, move in ((LEFT, "A6L"), (RIGHT, "A7R")):
        app.enter(move[:2])
        assert app.input.question is not None and "Answer L or R" in app.input.question.question
        player.keys.send_text(arrow)
        sent = app.actions
        assert isinstance(sent, Recorder)
        await until(lambda: sent.moves[-1:] == [move], f"{move} sent")  # noqa: B023
        assert app.input.question is None
        await until(lambda: not app.input.sending, "the answer")


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("name", "cell"), [("othello", "square"), ("kalah", "pit")])
def test_the_entry_hint_names_the_games_own_cells(name: str, cell: str) -> None:
    game = make_game(name)
    start = game.start()
    legal = [game.format_move(start, move) for move in game.legal_moves(start)]
    refusal = read_entry("", legal, game, start)
    assert isinstance(refusal, Reject) and f"pick a {cell} with the arrow keys" in refusal.message


@pytest.mark.timeout(120)
def test_a_move_typed_before_the_opponent_came_says_so() -> None:
    snapshot, _ = played("kalah")
    waiting = dataclasses.replace(
        snapshot, status="waiting", seats=(PEOPLE[0], SeatInfo("open", None, False))
    )
    with create_pipe_input() as keys:
        app = GameApp(GameState("g"), seat=0, input=keys, output=SizedOutput(80, 24))
        app.on_event(waiting)
        app.enter("3")
        assert app.message[1] == "the opponent has not joined yet"
