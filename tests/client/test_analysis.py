"""A game's analysis in the terminal: `ubao replay` and the end-of-game screen show it (the
marks beside the moves, the evaluation, the engine's line at the ply shown, a key to the next
mistake, a key that asks the server), `ubao export` writes the marks and replay reads them
back, and replay's study puts the engine on the position shown and takes moves of one's own."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import PipeInput, create_pipe_input

from tests.support.client import game_server, kalah_create, screen, until, url_of
from tests.support.screen import SIZES, SizedOutput, draw, finished, played, whole
from ubao.client.__main__ import build_parser
from ubao.client.analysis_text import graph, marks_of, next_serious
from ubao.client.app import GameApp
from ubao.client.connection import fetch_analysis
from ubao.client.export import replay_of
from ubao.client.replay import KEYS, ReplayApp
from ubao.client.state import GameState
from ubao.engine.games import GAMES
from ubao.engine.protocols.wire import game_analysis
from ubao.engine.record import Record, format_record, parse_record
from ubao.engine.review import ReviewBudget, review_game
from ubao.protocol import GameAnalysis, Moved, SeatSpec

RIGHT, ESCAPE = "\x1b[C", "\x1b"


def analysed(record: Record) -> GameAnalysis:
    """The engine's analysis of the record's moves, at a small budget."""
    budget = ReviewBudget(time_ms=20, exact_within=0)  # a game cut short: no endgame to prove
    review = review_game(record.game, record.options, record.moves, budget)
    return game_analysis(review, 20)


def record_of_game(name: str) -> Record:
    _, events = played(name)
    sides = GAMES[name].sides
    tags = {"Game": name, "Options": "{}", sides[0]: "ann", sides[1]: "bo", "GameId": "AbCd1234"}
    return Record(tags, tuple(event.move for event in events))


def test_the_mistake_key_finds_mistakes_and_blunders_not_inaccuracies() -> None:
    marks = ("", "?!", "?", "", "??", "")
    assert next_serious(marks, 0) == 3  # the board after the move marked `?`
    assert next_serious(marks, 3) == 5
    assert next_serious(marks, 5) is None
    assert next_serious(marks, 5, -1) == 3 and next_serious(marks, 3, -1) is None


def test_a_record_with_marks_shows_them_and_jumps_between_mistakes() -> None:
    record = record_of_game("kalah")
    marked = parse_record(format_record(dataclasses.replace(record, marks=("", "?", "", "??", ""))))
    assert marked.marks == ("", "?", "", "??", "")  # written into the record and read back
    with create_pipe_input() as keys:
        app = ReplayApp(marked, replay_of(marked), input=keys, output=SizedOutput(80, 24))
        moves = fragment_list_to_text(app._moves_text())
        assert f"{record.moves[1]}?\n" in moves and f"{record.moves[3]}??\n" in moves
        app.jump(1)
        assert app.ply == 2
        app.jump(1)
        assert app.ply == 4
        app.jump(1)
        assert app.ply == 4 and app.said == "no mistake after this move"
        app.jump(-1)
        assert app.ply == 2


@pytest.mark.parametrize(("columns", "rows"), SIZES)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_analysis_fits_under_the_whole_board(name: str, columns: int, rows: int) -> None:
    record = record_of_game(name)
    analysis = analysed(record)
    with create_pipe_input() as keys:
        output = SizedOutput(columns, rows)
        app = ReplayApp(record, replay_of(record), analysis=analysis, input=keys, output=output)
        app.go(2)
        lines = draw(app.application, columns, rows)
        board = fragment_list_to_text(app._board_text()).splitlines()
    shown = "\n".join(lines)
    assert whole(board, lines), shown
    assert lines[-1].startswith("F1: help"), shown
    ply = analysis.plies[1]
    assert f"2. {ply.move}" in shown and analysis.units in shown, shown  # the verdict, the value
    if columns == 80:
        assert f"line {' '.join(ply.line[:3])}" in shown, shown  # the engine's line
    assert marks_of(analysis) == app.marks
    assert len(graph(analysis, 10)) == min(10, len(analysis.plies))


def test_the_keys_fit_an_80_column_terminal() -> None:
    assert len(KEYS) <= 80


async def test_the_study_shows_the_engines_lines_and_plays_moves_of_ones_own() -> None:
    record = record_of_game("kalah")
    with create_pipe_input() as keys:
        app = ReplayApp(record, replay_of(record), input=keys, output=SizedOutput(80, 24))
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        keys.send_text(RIGHT + "e")
        await until(lambda: len(app.engine.lines) >= 2, "two of the engine's lines (MultiPV)")
        shown = "\n".join(draw(app.application, 80, 24))
        assert "1. d" in shown and "2. d" in shown, shown
        game = app.replay.game
        start = app.replay.positions[1]
        legal = [game.format_move(start, move) for move in game.legal_moves(start)]
        keys.send_text("t" + legal[-1] + "\r")
        await until(lambda: app.variation is not None, "the move tried")
        assert app.variation is not None and app.variation.moves == [legal[-1]]
        assert app.ply == 1 and app.record == record  # the game itself is unchanged
        after = game.format_position(game.play_text(start, legal[-1]))
        assert game.format_position(app.variation.position) == after
        await until(lambda: "after move 1" in "\n".join(draw(app.application, 80, 24)), "said")
        keys.send_text("u")
        await until(lambda: app.variation is None, "the move taken back")
        await until(lambda: 1 in app.engine.lines, "the engine's line from the game's position")
        keys.send_text("1")  # the engine's first line's move
        await until(lambda: app.variation is not None, "the engine's move played")
        keys.send_text(ESCAPE)
        await until(lambda: app.variation is None, "back to the game")
        keys.send_text("q")
        await asyncio.wait_for(task, 30)
    assert not app.engine.searching


async def test_the_analysis_asked_for_reaches_the_end_screen_export_and_replay(
    tmp_path: Path,
) -> None:
    async with game_server(analysis_time_ms=20) as server:
        url = url_of(server)
        create = kalah_create(SeatSpec.bot(1), SeatSpec.bot(3))
        async with screen(url, "carol", tmp_path / "c.json", create=create, watch=True) as carol:
            await until(lambda: carol.live.state.over, "the bots' game to end")
            carol.keys.send_text("a")
            await until(lambda: carol.live.state.analysis is not None, "the analysis")
            analysis = carol.live.state.analysis
            assert analysis is not None
            panel = fragment_list_to_text(carol.live.app._info_text())
            assert panel.startswith("Analysis") and analysis.units in panel, panel
            game_id = carol.live.game_id or ""
        out = tmp_path / "game.txt"
        args = build_parser().parse_args(
            ["export", game_id, "--server", url, "-o", str(out), "--analyse"]
        )
        assert await args.handler(args) == 0
        record = parse_record(out.read_text())
        assert record.marks == marks_of(analysis)
        assert record.tags["SouthAccuracy"] == f"{analysis.sides[0].accuracy:.1f}"
        asked: list[int] = []

        async def fetch(queued: Callable[[int], None]) -> GameAnalysis:
            asked.append(1)
            return await fetch_analysis(url, "dave", game_id, None, queued)

        with create_pipe_input() as keys:
            output = SizedOutput(80, 24)
            app = ReplayApp(record, replay_of(record), fetch=fetch, input=keys, output=output)
            task = asyncio.create_task(app.run())
            await until(lambda: app.application.is_running, "the replay")
            keys.send_text("a")
            await until(lambda: app.analysis is not None, "the server's analysis in the replay")
            assert app.analysis == analysis and asked == [1]
            keys.send_text("q")
            await asyncio.wait_for(task, 30)


@pytest.mark.parametrize(("columns", "rows"), SIZES)
@pytest.mark.parametrize("name", ["kalah", "othello", "bao"])
async def test_the_end_screen_shows_the_analysis_beside_the_moves(
    name: str, columns: int, rows: int
) -> None:
    events = finished(name, 6)
    moves = tuple(event.move for event in events if isinstance(event, Moved))
    record = Record({"Game": name, "Options": "{}"}, moves)
    analysis = analysed(record)
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(columns, rows))
        app.set_connection("connected", True)
        for event in events:
            app.on_event(event)
        app.animation.skip()
        app.state.analysis = analysis
        app.browse(3)
        lines = draw(app.application, columns, rows)
        panel = fragment_list_to_text(app._info_text())
        listed = fragment_list_to_text(app._moves_text())
    shown = "\n".join(lines)
    assert "too small" not in shown, shown
    assert panel.startswith("Analysis") and f"3. {analysis.plies[2].move}" in panel, panel
    for move, mark in zip(moves, marks_of(analysis), strict=True):
        assert f" {move}{mark}\n" in listed, listed


def game_over(keys: PipeInput) -> tuple[GameApp, GameAnalysis]:
    """The end screen of a six-move Kalah game, on 80x24, and the game's analysis (not yet
    given to the screen)."""
    events = finished("kalah", 6)
    moves = tuple(event.move for event in events if isinstance(event, Moved))
    analysis = analysed(Record({"Game": "kalah", "Options": "{}"}, moves))
    app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(80, 24))
    app.set_connection("connected", True)
    for event in events:
        app.on_event(event)
    app.animation.skip()
    return app, analysis


async def test_the_game_over_box_gives_the_analysis_it_covers() -> None:
    with create_pipe_input() as keys:
        app, analysis = game_over(keys)
        app.state.analysis = analysis
        shown = "\n".join(draw(app.application, 80, 24))
    assert app.ending()
    south = analysis.sides[0]
    assert f"│South {south.accuracy:.0f}% {south.inaccuracies}?! {south.mistakes}?" in shown, shown
    assert "m: mistakes" in shown, shown


def test_on_the_end_screen_the_mistake_key_starts_from_the_first_move() -> None:
    # The end screen shows the last move: the first `m` goes to the game's first mistake.
    with create_pipe_input() as keys:
        app, analysis = game_over(keys)
        plies = [dataclasses.replace(ply, mark="") for ply in analysis.plies]
        plies[1] = dataclasses.replace(plies[1], mark="mistake")
        app.state.analysis = dataclasses.replace(analysis, plies=tuple(plies))
        app.jump_to_mistake(1)
        assert app.shown_ply == 2
        app.jump_to_mistake(1)  # none after it: said, and the board stays
        assert app.shown_ply == 2
