"""The game screen on its own: events fed by hand, keys typed through pipe input."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.support.client import until
from tests.support.screen import (
    PEOPLE,
    Recorder,
    Shown,
    SizedOutput,
    aborted_game,
    draw,
    legal_snapshot,
    played,
    sized,
    start_of,
    status_lines,
)
from ubao.client.app import MAX_STEP, GameApp
from ubao.client.layout import END_WIDTH, PANEL_MIN_WIDTH
from ubao.client.panels import describe_seat, format_clock, format_search_report
from ubao.client.state import GameState
from ubao.engine.games import GAMES, make_game
from ubao.protocol import (
    BotInfo,
    Clocks,
    ClockSpec,
    Moved,
    Over,
    RematchOffer,
    Result,
    SeatEvent,
    SeatInfo,
    Snapshot,
)

pytestmark = pytest.mark.timeout(60)

SNAPSHOT = Snapshot(
    game_id="g1",
    v=1,
    game="kalah",
    options={"pits": 4, "seeds": 3},
    status="playing",
    position="kalah(4,3) S 3,3,3,3/3,3,3,3 0,0",
    to_move=0,
    ply=0,
    history=(),
    seats=(SeatInfo("bot", "b1", True), SeatInfo("bot", "b2", True)),
)
MOVED = Moved(
    game_id="g1",
    v=2,
    ply=0,
    seat=0,
    move="2",
    position="kalah(4,3) S 3,0,4,4/3,3,3,3 1,0",
    to_move=0,
)


class Running:
    def __init__(self, app: GameApp, keys: PipeInput, task: asyncio.Task[None]) -> None:
        self.app, self.keys, self.task = app, keys, task


@pytest.fixture
async def watching() -> AsyncIterator[Running]:
    """A spectator's screen with the animation at its slowest, so that it is surely running."""
    with create_pipe_input() as keys:
        app = GameApp(GameState("g1"), step_seconds=MAX_STEP, input=keys, output=DummyOutput())
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        yield Running(app, keys, task)
        app.quit()
        await asyncio.wait_for(task, 30)


MOVED_AGAIN = Moved(
    game_id="g1",
    v=3,
    ply=1,
    seat=0,
    move="1",
    position="kalah(4,3) N 0,1,5,5/3,3,3,3 1,0",
    to_move=1,
)
"""South's extra turn after MOVED: pit 1's three seeds into S2, S3 and S4."""


async def test_esc_ends_the_move_shown_at_its_final_frame(watching: Running) -> None:
    app = watching.app
    app.on_event(SNAPSHOT)
    app.on_event(MOVED)
    frame = app.animation.frame
    assert frame is not None and frame.step.hole == "S2"
    view, marks = app.board()
    assert marks.active == "S2" and view.values["S2"] == 0
    watching.keys.send_text("\x1b")
    await until(lambda: app.animation.frame is None, "the animation to end")
    view, marks = app.board()
    assert marks.active is None and marks.last == frozenset({"S2"})
    assert view.values["S*"] == 1


async def test_a_move_arriving_during_an_animation_is_animated_after_it(
    watching: Running,
) -> None:
    app = watching.app
    app.step_seconds = 0.05
    app.on_event(SNAPSHOT)
    app.on_event(MOVED)
    app.on_event(MOVED_AGAIN)
    assert app.animation.waiting == 1
    seen: list[tuple[str, int]] = []

    def frame_of_the_second_move() -> bool:
        frame = app.animation.frame
        if frame is not None:
            seen.append((frame.step.hole, int(frame.view.values["S1"])))
        return frame is not None and frame.step.hole == "S1"

    await until(frame_of_the_second_move, "the second move's first frame")
    assert ("S*", 3) in seen, "the first move reached its final frame"
    await until(lambda: app.animation.frame is None, "the end of both")
    assert app.board()[0].values == app.state.view.values


async def test_a_spectator_steps_back_through_the_moves_and_end_returns_to_live(
    watching: Running,
) -> None:
    app = watching.app
    app.step_seconds = 0
    for event in (SNAPSHOT, MOVED, MOVED_AGAIN):
        app.on_event(event)
    watching.keys.send_text("\x1b[D")  # left: the board after the first move
    await until(lambda: app.browsing == 1, "one move back")
    view, marks = app.board()
    assert (view.values["S1"], view.values["S2"], marks.last) == (3, 0, frozenset({"S2"}))
    assert "move 1 of 2" in app._title()
    assert "End back to live" in fragment_list_to_text(app._status_text())
    watching.keys.send_text("\x1b[D\x1b[D")  # left twice: the start, and no further
    await until(lambda: app.browsing == 0, "the start")
    assert app.board()[0].values == app.state.view_at(0).values
    watching.keys.send_text("\x1b[C")  # right
    await until(lambda: app.browsing == 1, "one move forward")
    watching.keys.send_text("\x1b[F")  # End: live again
    await until(lambda: app.browsing is None, "live")
    assert app.board()[0].values == app.state.view.values


async def test_a_player_with_no_move_but_a_pass_passes_at_once_and_says_so() -> None:
    """Issue 36, features: Othello's forced pass needed a keypress (`pass`, Enter)."""
    actions = Recorder()
    snapshot = dataclasses.replace(
        start_of("othello", {"size": 4}, PEOPLE),
        position="XXO-XXOOOXOOXXXX O",
        to_move=1,
        ply=9,
        legal=("pass",),
    )
    with create_pipe_input() as keys:
        app = GameApp(GameState("g1"), seat=1, actions=actions, input=keys, output=DummyOutput())
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        app.on_event(dataclasses.replace(snapshot, game_id="g1"))
        await until(lambda: actions.moves == ["pass"], "the pass sent by itself")
        assert app.message[1] in ("You have no move and pass", "")
        app.quit()
        await asyncio.wait_for(task, 30)


async def test_the_list_of_moves_sits_on_the_help_line_and_closes_on_enter_and_esc() -> None:
    actions = Recorder()
    with create_pipe_input() as keys:
        app = GameApp(GameState("g1"), seat=0, actions=actions, input=keys, output=DummyOutput())
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        app.on_event(dataclasses.replace(SNAPSHOT, legal=("1", "2", "3", "4")))
        keys.send_text("\t")
        await until(lambda: app.buffer.complete_state is not None, "the list")
        await until(lambda: "Tab picks: 1 2 3 4" in fragment_list_to_text(app._help_text()))
        keys.send_text("\x1b")
        await until(lambda: app.buffer.complete_state is None, "Esc to close it")
        assert app.state.history == [] and app.message[1] == ""
        keys.send_text("\t")
        await until(lambda: app.buffer.complete_state is not None, "the list again")
        keys.send_text("\t\t")  # its first move chosen, then its second
        await until(lambda: app.buffer.text == "2", "the second move chosen")
        assert "Enter plays, Tab: next: 1 2 3 4" in fragment_list_to_text(app._help_text())
        keys.send_text("\r")
        await until(lambda: actions.moves == ["2"], "the move sent")
        await asyncio.sleep(0.2)  # a list reopening would do so at once
        assert app.buffer.complete_state is None and app.buffer.text == ""
        app.quit()
        await asyncio.wait_for(task, 30)


async def test_f1_or_question_mark_shows_rules_notation_marks_and_keys(watching: Running) -> None:
    app = watching.app
    app.on_event(SNAPSHOT)
    assert "F1: help" in fragment_list_to_text(app._help_text())
    watching.keys.send_text("\x1bOP")  # F1
    await until(lambda: app.showing_help, "the help")
    shown = " ".join(fragment_list_to_text(app._help_screen()).split())
    assert GAMES["kalah"].summary in shown
    assert "pit number" in shown and "Marks:" in shown and "End: back to live" in shown
    watching.keys.send_text("\x1b")
    await until(lambda: not app.showing_help, "the help to close")
    watching.keys.send_text("?")
    await until(lambda: app.showing_help, "the help again")


async def test_ctrl_f_and_ctrl_b_change_the_animation_pace(watching: Running) -> None:
    watching.keys.send_text("\x06")  # Ctrl-F
    await until(lambda: watching.app.step_seconds == MAX_STEP / 2, "faster")
    watching.keys.send_text("\x02\x02")  # Ctrl-B twice: capped
    await until(lambda: watching.app.step_seconds == MAX_STEP, "slower")


async def test_a_spectator_cannot_enter_moves(watching: Running) -> None:
    watching.app.on_event(SNAPSHOT)
    watching.keys.send_text("2\r")
    await until(lambda: watching.app.message[1], "a message")
    assert watching.app.message[1] == "watching: moves cannot be entered"
    assert watching.app.state.history == []


async def test_q_leaves_a_spectators_screen(watching: Running) -> None:
    watching.keys.send_text("q")
    await asyncio.wait_for(watching.task, 30)


async def test_a_screen_told_to_quit_before_it_runs_leaves_at_once() -> None:
    with create_pipe_input() as keys:
        app = GameApp(GameState("g1"), input=keys, output=DummyOutput())
        app.quit()
        await asyncio.wait_for(app.run(), 30)


@pytest.mark.parametrize(("ms", "text"), [(300_000, "5:00"), (61_999, "1:01"), (9_450, "0:09.4")])
def test_clocks_show_minutes_and_seconds_and_tenths_at_the_end(ms: int, text: str) -> None:
    assert format_clock(ms) == text


def test_the_players_panel_names_bot_settings_and_seats_waiting_for_a_bot_client() -> None:
    assert describe_seat(SeatInfo("bot", "b", True, depth=3, time_ms=500, eval="mobility")) == (
        "server bot (depth 3, 500 ms, mobility)"
    )
    assert describe_seat(SeatInfo("bot", "b", True)) == "server bot"
    assert describe_seat(SeatInfo("open", None, False)) == "waiting for a player"
    wanted = SeatInfo("open", None, False, wants_bot=True, depth=4)
    assert describe_seat(wanted) == "waiting for a bot client (depth 4)"


async def test_the_players_panel_shows_the_lag_once_measured() -> None:
    with create_pipe_input() as keys:
        state = GameState("g1")
        app = GameApp(state, input=keys, output=DummyOutput())
        state.apply(SNAPSHOT, 0.0)
        panel = fragment_list_to_text(app._players_text())
        assert "lag -" in panel and "server bot" in panel
        state.rtt_ms = 42.4
        assert "lag 42 ms" in fragment_list_to_text(app._players_text())


async def test_the_end_keeps_its_result_line_wraps_between_words_and_offers_no_moves() -> None:
    over = Over(game_id="g1", v=3, result=Result(1, "resign", None))
    with create_pipe_input() as keys:
        state = GameState("g1")
        names = (SeatInfo("open", "alice", True), SeatInfo("open", "bartholomew-the-long", True))

        class EndsAtOnce(Recorder):
            """The server's events for the move arrive before its answer, the end with them."""

            async def move(self, ply: int, move: str) -> None:
                app.on_event(dataclasses.replace(MOVED, to_move=1))
                app.on_event(over)

        app = GameApp(state, seat=0, actions=EndsAtOnce(), input=keys, output=DummyOutput())
        app.set_connection("connected", True)
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        app.on_event(dataclasses.replace(SNAPSHOT, seats=names, legal=("1", "2", "3", "4")))
        keys.send_text("2\r")
        await until(lambda: not app.input.sending and state.over, "the end")
        result = "North, bartholomew-the-long, wins by resignation"
        assert app._result_text() == result
        await until(lambda: app.settled, "the last move shown")
        status = fragment_list_to_text(app._status_text()).splitlines()
        assert status[0] == f"Game over: {result}" and app.message[1] == ""
        keys.send_text("\r")  # a bare Enter after the end says nothing ...
        keys.send_text("3\r")  # ... and a move is told the game is over, not whose turn it is
        await until(lambda: app.message[1], "the answer to the move")
        assert app.message[1].startswith("the game is over")
        assert fragment_list_to_text(app._status_text()).startswith(f"Game over: {result}\n")
        end = fragment_list_to_text(app._end_text()).splitlines()
        assert all(len(line) <= END_WIDTH - 4 for line in end)
        assert " ".join(end[:2]).split() == app._result_text().split()
        help_line = fragment_list_to_text(app._help_text())
        assert "Tab" not in help_line and "q: leave" in help_line
        assert app._prompt() == "> "
        app.quit()
        await asyncio.wait_for(task, 30)


def test_engine_reports_say_from_whose_side_the_score_is_and_no_mate() -> None:
    info = BotInfo(depth=6, score=3, nodes=5210, time_ms=38, pv=("3", "1"))
    assert format_search_report(info, "North") == (
        "North: depth 6, +3 for North\n  5210 nodes, 38 ms, pv 3 1"
    )
    won = dataclasses.replace(info, score=999_995, mate=5)
    assert format_search_report(won, "South").startswith("South: depth 6, South wins in\n  5 plies")
    lost = dataclasses.replace(info, score=-999_996, mate=-1)
    assert "South loses\n  in 1 ply\n" in format_search_report(lost, "South")


def test_a_bots_comment_is_shown_and_a_report_without_search_is_its_time_alone() -> None:
    """A KGP agent's move (docs/kgp.md): depth 0, its `info:comment` if it set one."""
    searched = BotInfo(depth=6, score=3, nodes=5210, time_ms=38, pv=("3",), comment="sure")
    assert format_search_report(searched, "North").endswith("pv 3\n  sure")
    agent = BotInfo(depth=0, score=0, nodes=0, time_ms=412, pv=("3",))
    assert format_search_report(agent, "South") == "South: 412 ms"
    said = dataclasses.replace(agent, comment="Best move: 3, depth 4")
    assert format_search_report(said, "South") == "South: 412 ms\n  Best move: 3, depth 4"


def test_engine_reports_break_between_words_to_fit_the_side_panel() -> None:
    pv = tuple(str(n % 6 + 1) for n in range(30))
    info = BotInfo(depth=12, score=999_995, mate=11, nodes=123_456, time_ms=987, pv=pv)
    lines = format_search_report(info, "North").split("\n")
    assert all(len(line) < PANEL_MIN_WIDTH for line in lines)
    words = " ".join(lines).split()
    assert words[:6] == ["North:", "depth", "12,", "North", "wins", "in"]
    assert words[-30:] == list(pv)


def test_the_players_panel_shows_the_time_control_and_warns_on_low_time() -> None:
    with create_pipe_input() as keys:
        state = GameState("g1")
        app = GameApp(state, input=keys, output=DummyOutput(), clock=lambda: 0.0)
        clocks = Clocks((200_000, 9_000), running=1, increment_ms=3_000)
        state.apply(
            dataclasses.replace(SNAPSHOT, clock=ClockSpec(300_000, 3_000), clocks=clocks), 0
        )
        panel = fragment_list_to_text(app._players_text())
        assert panel.startswith("Players  5+3  lag -")
        assert "0:09.0 !" in panel and "3:20  " in panel
        low = [text for style, text, *_ in app._players_text() if "clock.low" in style]
        assert low == ["0:09.0 !"]


async def test_a_bao_hole_the_rules_forbid_is_refused_with_the_rule_in_full_at_60_columns() -> None:
    """The refusal line says why (the rule's reason, from the rules' parser; rule ids refer to
    docs/bao.md) and is never cut: it takes more rows at 60 columns; nothing is sent."""
    game = make_game("bao")
    start = game.start()
    snapshot = dataclasses.replace(
        SNAPSHOT,
        game="bao",
        options={},
        position=game.format_position(start),
        legal=tuple(game.format_move(start, move) for move in game.legal_moves(start)),
    )
    actions = Recorder()
    with create_pipe_input() as keys:
        output = SizedOutput(60, 20)
        app = GameApp(GameState("g1"), seat=0, actions=actions, input=keys, output=output)
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        app.on_event(snapshot)
        keys.send_text("A5\r")
        reason = "a functional nyumba is played only when it is your last front hole [R6.4a]"
        await until(
            lambda: (
                app.message[0] == "class:status.error"
                and app.message[1].startswith(f"A5: {reason}; legal moves: A6L A6R")
            ),
            "the refusal",
        )
        shown = " ".join(" ".join(draw(app.application, 60, 20)[-5:-2]).split())
        assert f"A5: {reason}" in shown
        keys.send_text("B1\r")
        await until(lambda: app.message[1].startswith("B1: the back row plays no part in namua"))
        assert actions.moves == [] and app.state.history == []
        app.quit()
        await asyncio.wait_for(task, 30)


@pytest.mark.timeout(300)
def test_connecting_shows_only_quit_and_waiting_shows_the_command_to_join() -> None:
    app = sized(80, 24, seat=None)
    assert fragment_list_to_text(app._help_text()) == "^Q: leave"
    waiting = dataclasses.replace(
        legal_snapshot("kalah"),
        status="waiting",
        seats=(PEOPLE[0], SeatInfo("open", None, False)),
        legal=None,
    )
    app.set_seat(0)
    app.on_event(waiting)
    keys = fragment_list_to_text(app._help_text())
    assert "Tab" not in keys and "arrows" not in keys and "^Q: leave" in keys
    assert "ubao play --join=AbCd1234 --name=NAME" in app.turn_text()[1]


@pytest.mark.timeout(300)
def test_status_line_wording_resign_rematch_reconnect_and_one_legal_move() -> None:
    app = sized(80, 24)
    app.on_event(dataclasses.replace(legal_snapshot("kalah"), seats=PEOPLE))
    app.enter("resign")
    app.enter("n")
    assert app.message[1] == "not resigned"
    app.enter("resign")
    assert app._question() == "Resign this game? y = yes, n or Esc = no" and not app.message[1]
    app.enter("n")
    # A move sent again after a reconnection, then the opponent is back: the move stays said.
    game = make_game("kalah", {})
    start = game.start()
    move = game.legal_moves(start)[1]
    after = game.play(start, move)
    app.on_event(
        Moved(
            game_id="AbCd1234",
            v=2,
            ply=0,
            seat=0,
            move=game.format_move(start, move),
            position=game.format_position(after),
            to_move=game.to_move(after),
        )
    )
    said = app.message[1]
    assert said.startswith("You played ")
    app.on_event(SeatEvent(game_id="AbCd1234", v=3, seat=1, name="bob", connected=True))
    assert app.message[1] == said
    # The player who declines an offer is told it was them.
    app.on_rematch(RematchOffer(game_id="AbCd1234", seat=1, state="declined"))
    assert app.message == ("", "you declined the rematch")


@pytest.mark.timeout(300)
async def test_the_feedback_line_names_the_move_being_shown_not_a_later_one() -> None:
    snapshot, moves = played("bao")
    with create_pipe_input() as keys:
        app = GameApp(
            GameState("AbCd1234"), input=keys, output=SizedOutput(80, 24), step_seconds=0.25
        )
        app.set_connection("connected", True)
        task = asyncio.create_task(app.run())
        try:
            await until(lambda: app.application.is_running, "the screen")
            app.on_event(snapshot)
            app.on_event(moves[0])
            app.on_event(moves[1])  # arrives while the first is shown
            frame = app.animation.frame
            assert frame is not None and frame.ply == 0
            assert app.message[1] == f"{app.side_name(moves[0].seat)} played {moves[0].move}"
            await until(
                lambda: app.animation.frame is None or app.animation.frame.ply == 1,
                "the second move shown",
            )
            assert app.message[1] == f"{app.side_name(moves[1].seat)} played {moves[1].move}"
        finally:
            app.quit()
            await asyncio.wait_for(task, 30)


@pytest.mark.timeout(120)
def test_news_from_before_goes_when_the_connection_drops() -> None:
    app = GameApp(GameState("AbCd1234"), seat=0, output=SizedOutput(80, 24))
    app.set_connection("connected", True)
    app.say("North, bob, is here")
    app.set_connection("server unreachable; reconnecting in 2 s", False)
    assert app.message[1] == ""


@pytest.mark.timeout(120)
async def test_an_aborted_game_reads_game_aborted_on_screen_not_a_draw(shown: Shown) -> None:
    snapshot, over = aborted_game()
    shown.app.on_event(snapshot)
    shown.app.on_event(over)
    assert shown.app.turn_text()[1] == "Game aborted"
    screen = shown.text()
    assert "Game aborted" in screen and "Draw" not in screen, screen


@pytest.mark.timeout(120)
async def test_during_an_animation_title_board_panel_and_status_tell_the_same_move(
    shown: Shown,
) -> None:
    """Three moves and the end arrive at once (`--pace 0`): while the first is shown, the
    title gives its ply and no end, the status line says who sows and nobody else to move, the
    board and the panel mark its mover; once every move is shown, the game's end."""
    snapshot, events = played("kalah")
    app = shown.app
    app.on_event(dataclasses.replace(snapshot, seats=PEOPLE))
    for event in events[:3]:
        app.on_event(event)
    app.on_event(Over(game_id="AbCd1234", v=5, result=Result(1, "resign", None)))
    frame = app.animation.frame
    assert frame is not None
    mover = app.side_name(frame.mover)
    assert "ply 1  playing" in app._title() and "over" not in app._title()
    first, *_ = status_lines(app)
    assert first.startswith(f"{mover} ") and "to move" not in first, first
    board = fragment_list_to_text(app._board_text()).splitlines()
    marked = [line for line in board if "<- to move" in line]
    assert len(marked) == 1 and marked[0].startswith(f"{mover}:"), board
    panel = fragment_list_to_text(app._players_text())
    assert f"> {mover}:" in panel, panel
    assert app.shown_ply == 1
    app.step_seconds = 0.01  # the rest at once (the frame shown now keeps its time)
    await until(lambda: app.settled, "every move shown")
    assert "ply 3  over" in app._title()
    assert status_lines(app)[0].startswith("Game over: North, bob, wins by resignation")


@pytest.mark.timeout(120)
def test_a_side_and_its_player_are_named_without_doubled_parentheses() -> None:
    snapshot, _ = played("othello")
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(80, 24))
        app.on_event(dataclasses.replace(snapshot, seats=PEOPLE, to_move=1))
        assert app.turn_text()[1] == "White (O), bob, to move"
