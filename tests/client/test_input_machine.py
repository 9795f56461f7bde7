"""The game screen's input machine on its own: no screen, no server, only facts and effects."""

from __future__ import annotations

import dataclasses
from typing import Any

from ubao.client.input_machine import (
    ASKING_TRANSITIONS,
    ERROR,
    KEY_HINTS,
    SEAT_LOST,
    AnswerOffer,
    Asking,
    Browse,
    Facts,
    Hint,
    InputMachine,
    Request,
    Say,
    Screen,
    SendMove,
    Transition,
    Trigger,
)
from ubao.engine.games import make_game

KALAH = make_game("kalah", {"pits": 4, "seeds": 3})
START = KALAH.start()
LEGAL = [KALAH.format_move(START, move) for move in KALAH.legal_moves(START)]


def facts(**changes: Any) -> Facts:
    """South to move at the start of a small Kalah game, nothing typed or asked."""
    base = Facts(
        seat=0,
        started=True,
        over=False,
        waiting=False,
        can_rematch=False,
        legal=LEGAL,
        takeback=None,
        draw=None,
        rematch=None,
        reply_too=False,
        has_moved=False,
        opponent="North",
        typed="",
        helping=False,
        listing=False,
        picked=False,
        animating=False,
        browsing=None,
        shown_ply=0,
        history=0,
        cursor=None,
        cursor_moves=[],
        cells="pits",
        game=KALAH,
        position=START,
    )
    return dataclasses.replace(base, **changes)


def run(machine: InputMachine, effects: list[Any] | None) -> list[Any]:
    """Apply what the effects change in the machine, as the screen does."""
    for effect in effects or []:
        machine.apply(effect)
    return effects or []


def test_every_state_has_a_transition_for_what_can_happen_in_it() -> None:
    for asking in Asking:
        for trigger in (Trigger.RESOLVED, Trigger.ASK_RESIGN, Trigger.RESET):
            assert (asking, trigger) in ASKING_TRANSITIONS
    assert {asking for asking, trigger in ASKING_TRANSITIONS if trigger is Trigger.ASK} == {
        Asking.NOTHING,
        Asking.QUESTION,
    }


def test_a_move_typed_is_sent_and_entry_waits_for_its_answer() -> None:
    machine = InputMachine()
    effects = run(machine, machine.enter(facts(), LEGAL[0]))
    assert effects[-2:] == [Say(f"sending {LEGAL[0]} ..."), SendMove(LEGAL[0])]
    assert machine.sending and not machine.my_turn(LEGAL, over=False)
    assert machine.enter(facts(), LEGAL[1]) == [Say("wait: a move is on its way")]


def test_resign_asked_over_nothing_goes_back_to_nothing_on_a_no() -> None:
    machine = InputMachine()
    run(machine, machine.press(facts(), "c-r"))
    assert machine.confirming_resign and machine.prompt(facts()) == "resign? "
    assert run(machine, machine.press(facts(), "n"))[-1] == Say("not resigned")
    assert not machine.confirming_resign and machine.prompt(facts()) == "move> "


def test_y_answers_a_takeback_request_with_a_move_half_typed() -> None:
    machine = InputMachine()
    asked = facts(takeback=1, typed="2")
    assert machine.press(asked, "y") == [AnswerOffer(offer="takeback", accept=True)]
    assert machine.press(facts(typed="2"), "y") is None  # nothing asked: the letter is typed
    assert "asks to take back" in (machine.question_text(asked) or "")


def test_escape_closes_the_help_first_then_the_list_then_the_animation() -> None:
    machine = InputMachine()
    everything = facts(helping=True, listing=True, animating=True)
    assert machine.escape(everything) == [Screen("help")]
    assert machine.escape(dataclasses.replace(everything, helping=False)) == [Screen("close list")]
    assert machine.escape(facts(animating=True)) == [Screen("skip")]
    assert machine.escape(facts()) == []


def test_a_spectator_steps_through_the_moves_and_q_leaves() -> None:
    machine = InputMachine()
    watching = facts(seat=None, legal=[], shown_ply=4, history=4)
    assert machine.press(watching, "left") == [Browse(3)]
    assert machine.press(watching, "end") == [Browse(None)]
    assert machine.press(watching, "q") == [Screen("quit")]
    assert machine.enter(watching, "1") == [Say("watching: moves cannot be entered", ERROR)]


def test_closed_for_good_nothing_goes_and_nothing_is_asked() -> None:
    machine = InputMachine()
    run(machine, machine.press(facts(), "c-r"))
    machine.close()
    assert machine.asking is Asking.NOTHING and not machine.my_turn(LEGAL, over=False)
    assert machine.press(facts(), "c-r") == [Say(SEAT_LOST, ERROR)]
    assert run(machine, [Transition(Trigger.RESET)]) == [Transition(Trigger.RESET)]


def test_the_key_hint_names_the_keys_of_the_mode_and_what_enter_does_with_the_line() -> None:
    machine = InputMachine()
    assert set(KEY_HINTS) == set(Hint)
    assert machine.keys_hint(facts(started=False)) == "^Q: leave"
    assert machine.keys_hint(facts()) == "F1: help  Tab: moves  arrows: pits  ^R: resign  ^Q: leave"
    assert machine.keys_hint(facts(waiting=True)) == "F1: help  ^Q: leave"
    assert machine.hint(facts(seat=None)) is Hint.WATCHING
    assert machine.hint(facts(seat=None, over=True)) is Hint.OVER
    assert machine.hint(facts(over=True, can_rematch=True)) is Hint.REMATCH
    assert machine.entry_hint(facts(typed=LEGAL[0])) == "Enter plays "
    assert machine.entry_hint(facts(typed=LEGAL[0], legal=[])) is None  # not our turn
    assert machine.entry_hint(facts(listing=True)) == "Tab picks: "
    assert machine.entry_hint(facts(listing=True, picked=True)) == "Enter plays, Tab: next: "


def test_draw_offers_are_made_and_answered_as_takebacks_are() -> None:
    """Issue 36, features: `draw` offers one (or accepts the opponent's); `y` or `n` answers
    the opponent's, whatever is typed."""
    machine = InputMachine()
    assert machine.enter(facts(), "draw") == [Say("offering a draw ..."), Request("draw")]
    assert machine.enter(facts(draw=0), "draw")[0].style == ERROR  # type: ignore[union-attr]
    offered = facts(draw=1)
    assert machine.question_text(offered) == "North offers a draw: y = accept, n = decline"
    assert machine.press(offered, "n") == [AnswerOffer(offer="draw", accept=False)]
    assert machine.enter(offered, "draw") == [AnswerOffer(offer="draw", accept=True)]
    assert machine.enter(facts(seat=None), "draw")[0].style == ERROR  # type: ignore[union-attr]
