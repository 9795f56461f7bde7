"""Every game's screen at 80x24 and 60x20: the board comes first and whole, the status, input
and help lines stay, and the side panel goes beside the board, under it, or folds away."""

from __future__ import annotations

import dataclasses

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input

from tests.support.screen import (
    PLIES,
    SIZES,
    SizedOutput,
    clocked,
    draw,
    finished,
    legal_snapshot,
    played,
    start_of,
    whole,
)
from ubao.client.app import GameApp
from ubao.client.board import view_of
from ubao.client.export import replay_of
from ubao.client.layout import Fit, fold, panel_beside
from ubao.client.render import SIDE_LINE_WIDTH, render_board
from ubao.client.replay import ReplayApp
from ubao.client.state import GameState
from ubao.engine.games import GAMES, make_game
from ubao.engine.record import Record
from ubao.protocol import BotInfo, Clocks, ClockSpec, Moved, SeatInfo, Snapshot


@pytest.mark.parametrize(("columns", "rows"), SIZES)
@pytest.mark.parametrize("name", sorted(GAMES))
async def test_the_board_comes_first_and_whole_on_a_small_terminal(
    name: str, columns: int, rows: int
) -> None:
    snapshot, events = played(name)
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), input=keys, output=SizedOutput(columns, rows))
        app.on_event(snapshot)
        for event in events:
            app.on_event(event)
        lines = draw(app.application, columns, rows)
        board = fragment_list_to_text(app._board_text()).splitlines()
    shown = "\n".join(lines)
    assert "too small" not in shown, shown
    assert whole(board, lines), shown
    assert lines[-1].startswith("F1: help"), shown
    assert lines[-2].startswith(">"), shown
    assert "to move" in lines[-4] or "to move" in lines[-3], shown
    if columns == 80:
        assert "Players" in shown and f"{PLIES}. " in shown, shown


@pytest.mark.parametrize(("columns", "rows"), SIZES)
@pytest.mark.parametrize("name", sorted(GAMES))
async def test_a_replay_shows_the_whole_board_on_a_small_terminal(
    name: str, columns: int, rows: int
) -> None:
    _, events = played(name)
    info = GAMES[name]
    record = Record(
        {"Game": name, "Options": "{}", info.sides[0]: "ann", info.sides[1]: "bo"},
        tuple(event.move for event in events),
    )
    with create_pipe_input() as keys:
        app = ReplayApp(record, replay_of(record), input=keys, output=SizedOutput(columns, rows))
        app.go(PLIES)
        lines = draw(app.application, columns, rows)
        board = fragment_list_to_text(app._board_text()).splitlines()
    shown = "\n".join(lines)
    assert whole(board, lines), shown
    assert lines[-1].startswith("F1: help"), shown


def test_folding_drops_an_empty_feedback_line_then_the_title_never_the_board() -> None:
    assert fold(24, 10, 2, beside=True, empty_feedback=True, clock_rows=None) == Fit()
    # Bao at 60x16 with a two-row question: the empty feedback line goes.
    assert fold(16, 10, 4, beside=False, empty_feedback=True, clock_rows=None) == Fit(
        feedback=False, panel_rows=0
    )
    # ... and with a refusal under the question, the title goes instead.
    assert fold(16, 10, 4, beside=False, empty_feedback=False, clock_rows=None) == Fit(
        title=False, panel_rows=0
    )


async def test_a_bao_direction_question_at_60x16_keeps_board_and_question() -> None:
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(60, 16))
        app.set_connection("connected", True)
        app.on_event(legal_snapshot("bao"))
        app.enter("A6")
        assert app.input.question is not None
        for answer in ("", "x"):  # the question alone, then under a refusal
            if answer:
                app.enter(answer)
            shown = "\n".join(draw(app.application, 60, 16))
            assert "too small" not in shown, shown
            assert "which way?" in shown and " B    0" in shown and "Answer L or" in shown, shown
            assert shown.splitlines()[-2].startswith("answer>"), shown


async def test_the_last_move_stays_in_sight_above_the_game_over_box() -> None:
    events = finished("othello", 24)
    last = events[-2]
    assert isinstance(last, Moved)
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(80, 24))
        app.set_connection("connected", True)
        for event in events:
            app.on_event(event)
        assert app.ending()
        lines = draw(app.application, 80, 24)
    shown = "\n".join(lines)
    assert "Game over" in shown, shown
    assert f"{last.ply + 1:>4}. " in shown, shown


@pytest.mark.parametrize("to_move", [True, False])
def test_othello_with_long_names_keeps_the_panel_beside_the_board_at_80_columns(
    to_move: bool,
) -> None:
    """QA: "Black (X): ubao-engine (depth 2)  discs 4  <- to move" was 55 columns, wider than
    what an 80-column terminal leaves beside the panel, and pushed the panel under the board,
    then back beside it when the game ended (no mover mark). Both side lines now fit, the mark
    shown or not."""
    game = make_game("othello", {})
    position = game.start()
    view = view_of(game, position)
    if not to_move:
        view = dataclasses.replace(view, to_move=None)
    names = ("ubao-engine (depth 2)", "a-player-name-of-sixty-four-characters-" + "x" * 25)
    board = render_board(view, 0, names=names)
    lines = fragment_list_to_text(board).splitlines()
    assert all(len(line) <= SIDE_LINE_WIDTH for line in lines), lines
    assert panel_beside(80, board)
    assert any("ubao-engine (depth 2)" in line for line in lines)  # short names whole


BOTS = (
    SeatInfo("bot", "ubao-engine (depth 1)", True, depth=1),
    SeatInfo("bot", "ubao-engine (depth 3)", True, depth=3),
)


@pytest.mark.parametrize(
    ("name", "options", "rows"),
    [
        ("kalah", {"pits": 12, "seeds": 12}, 16),
        ("ethiopian", {"pits": 12, "seeds": 12}, 16),
        ("othello", {"size": 16}, 24),
        ("othello", {"size": 14}, 20),
        ("othello", {}, 16),
        ("bao", {}, 16),
    ],
)
async def test_every_board_at_its_largest_fits_60_columns_whole(
    name: str, options: dict[str, int], rows: int
) -> None:
    """Kalah with 12 pits (its most, and S12, N12 and both stores in sight) and Othello 16x16
    draw compact; an AI-vs-AI game's long names are cut, never wrapped onto a row of their
    own."""
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), input=keys, output=SizedOutput(60, rows))
        app.set_connection("connected", True)
        app.on_event(start_of(name, options, BOTS))
        board = fragment_list_to_text(app._board_core()).splitlines()
        lines = draw(app.application, 60, rows)
    shown = "\n".join(lines)
    assert "too small" not in shown and "needs a terminal" not in shown, shown
    assert max(map(len, board)) <= 60, board
    assert whole(board, lines[1:]) or whole(board, lines), shown
    assert lines[-1].startswith("F1: help") and lines[-2].startswith(">"), shown
    sides = [line for line in board if line.startswith(("North", "South", "Black", "White"))]
    assert len(sides) == 2 and any("to move" in line for line in sides), board
    if name != "bao":  # Bao's facts have a line of their own, by design
        assert not any(line.startswith("  discs") for line in board), board
    if "pits" in options:
        for label in ("S1", "S12", "N1", "N12", "N*", "S*"):
            assert label in shown, (label, shown)


async def test_a_board_taller_than_the_terminal_says_the_size_it_needs() -> None:
    """Othello 16x16 needs 22 rows: at 60x20 the screen says so, instead of a cut board or
    prompt_toolkit's bare "Window too small"."""
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), input=keys, output=SizedOutput(60, 20))
        app.set_connection("connected", True)
        app.on_event(start_of("othello", {"size": 16}, BOTS))
        shown = " ".join(" ".join(draw(app.application, 60, 20)).split())
    assert "needs a terminal of at least 51x22" in shown and "is 60x20" in shown, shown
    assert "too small" not in shown, shown


async def test_the_panel_reads_a_seat_waiting_for_a_bot_client_whole_at_80_columns() -> None:
    wanted = (
        SeatInfo("open", None, False, wants_bot=True, depth=2),
        SeatInfo("open", None, False, wants_bot=True, depth=5),
    )
    for clock in (None, ClockSpec(600_000, 5_000)):
        snapshot = dataclasses.replace(
            start_of("kalah", {}, wanted),
            status="waiting",
            clock=clock,
            clocks=None if clock is None else Clocks((600_000, 600_000), None, 5_000),
        )
        with create_pipe_input() as keys:
            app = GameApp(GameState("AbCd1234"), input=keys, output=SizedOutput(80, 24))
            app.set_connection("connected", True)
            app.on_event(snapshot)
            lines = draw(app.application, 80, 24)
        panel = [line.split("|", 1)[1] for line in lines if "|" in line]
        wants = [line for line in panel if "bot client" in line]
        assert len(wants) == 2, lines
        for line in wants:
            assert line.endswith((")", "\u2026")), lines
        if clock is None:
            assert any(line.endswith("bot client (depth 5)") for line in wants), lines


async def test_othello_10x10_with_a_clock_fits_60x16() -> None:
    with create_pipe_input() as keys:
        app = clocked(keys, "othello", {"size": 10})
        lines = draw(app.application, 60, 16)
        shown = "\n".join(lines)
        assert "too small" not in shown.lower() and "needs a terminal" not in shown, shown
        assert " 10  ." in shown and lines[-3].startswith("Your move (Black (X)): 60 s"), shown
        assert lines[-2].startswith("move>") and lines[-2].endswith("B 5:00  W 5:00"), shown
        assert lines[-1].startswith("F1: help"), shown
        app.say("White (O) played e3")  # a message takes the key line's place
        lines = draw(app.application, 60, 16)
        assert lines[-1] == "White (O) played e3" and lines[-5].startswith(" 10  ."), lines
        assert lines[-2].endswith("W 5:00"), lines


async def test_a_status_line_too_long_for_the_board_says_the_size_it_needs() -> None:
    """A spectator's status line naming long bot names beside the first move's countdown
    takes two rows: the screen's own size message, never prompt_toolkit's."""
    bots = (
        SeatInfo("bot", "ubao-engine (depth 1)", True, depth=1),
        SeatInfo("bot", "ubao-engine (depth 3)", True, depth=3),
    )
    with create_pipe_input() as keys:
        app = clocked(keys, "othello", {"size": 10}, seats=bots)
        app.seat = None
        shown = " ".join(" ".join(draw(app.application, 60, 16)).split())
    assert "needs a terminal of at least 46x17" in shown and "is 60x16" in shown, shown
    assert "too small" not in shown.lower(), shown


def against_a_bot(name: str, plies: int, over: bool) -> list[str]:
    """Alice's screen at 80x24, `plies` into a game of `name` against a server bot that reports
    on each of its moves, drawn (after the game's end if `over`); in a running event loop."""
    report = BotInfo(depth=2, score=0, nodes=30, time_ms=1, pv=("1",))
    bot = (SeatInfo("open", "alice", True), SeatInfo("bot", "ubao-engine (depth 2)", False))
    events = finished(name, plies)
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(80, 24))
        app.set_connection("connected", True)
        for event in events if over else events[:-1]:
            if isinstance(event, Snapshot):
                event = dataclasses.replace(event, seats=bot)
            if isinstance(event, Moved) and event.seat == 1:
                event = dataclasses.replace(event, info=report)
            app.on_event(event)
        app.animation.skip()
        assert app.ending() == over and app.state.info
        return draw(app.application, 80, 24)


@pytest.mark.timeout(120)
async def test_a_bot_games_move_list_reaches_down_to_the_game_over_box() -> None:
    """The box would cover the engine's report under the list: the report goes while the box
    is shown, and the list's last move is right above the box (the list once left the box's
    height blank above the report, scrolling most moves away)."""
    lines = against_a_bot("othello", 30, over=True)
    top = next(row for row, line in enumerate(lines) if "Game over" in line)
    assert lines[top - 1].endswith("30. W f4"), "\n".join(lines)
    assert "Engine" not in "\n".join(lines)  # under the box: it goes, and the list reaches down


@pytest.mark.timeout(120)
async def test_the_move_list_gets_the_rows_the_report_does_not_fill() -> None:
    """Bao against a bot, 12 plies in, at 80x24: the engine's report sits at the panel's foot
    with no blank row under it, and the list shows all it has room for (it once scrolled
    three moves away while blank rows stayed under the report and the players)."""
    panel = [line.partition("|")[2] for line in against_a_bot("bao", 12, over=False)[:20]]
    assert panel[-1].strip() == "30 nodes, 1 ms, pv 1", panel
    assert panel[6].strip().startswith("2. N"), panel  # moves 2 to 12: all that fits


@pytest.mark.timeout(120)
async def test_the_panels_divider_never_moves_back_while_the_board_text_changes() -> None:
    """Watching Othello at 80x24: the to-move mark goes from side to side, the discs reach
    two digits, looking back shortens the title; the divider once moved back and forth with
    each of them. Now it only ever moves out, to the widest the board has been."""
    events = finished("othello", 30)[:-1]
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=None, input=keys, output=SizedOutput(80, 24))
        app.set_connection("connected", True)
        dividers = []
        for event in events:
            app.on_event(event)
            app.animation.skip()
            dividers.append(draw(app.application, 80, 24)[0].index("|"))
        app.browse(3)
        dividers.append(draw(app.application, 80, 24)[0].index("|"))
    assert dividers == sorted(dividers) and len(set(dividers)) <= 3, dividers


@pytest.mark.parametrize(("columns", "rows"), [(60, 16), (80, 24)])
@pytest.mark.parametrize("name", ["bao", "othello", "kalah"])
async def test_a_replay_says_how_the_game_ended_on_a_small_terminal(
    name: str, columns: int, rows: int
) -> None:
    _, events = played(name)
    sides = GAMES[name].sides
    tags = {"Game": name, "Options": "{}", sides[0]: "ann", sides[1]: "bo", "Reason": "aborted"}
    record = Record({**tags, "Result": "*"}, tuple(event.move for event in events))
    with create_pipe_input() as keys:
        app = ReplayApp(record, replay_of(record), input=keys, output=SizedOutput(columns, rows))
        app.go(len(events))
        shown = "\n".join(draw(app.application, columns, rows))
        app.go(1)
        earlier = "\n".join(draw(app.application, columns, rows))
    assert "Game aborted" in shown and "too small" not in shown, shown
    assert shown.splitlines()[-1].startswith("F1: help"), shown
    assert earlier.count("Game aborted") <= 1, earlier  # the panel may say it, if it has room
