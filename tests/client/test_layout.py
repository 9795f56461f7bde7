"""Every game's screen at 80x24 and 60x20: the board comes first and whole, the status, input
and help lines stay, and the side panel goes beside the board, under it, or folds away."""

from __future__ import annotations

from typing import Any

import pytest
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import DummyOutput

from ubao.client.app import GameApp
from ubao.client.export import replay_of
from ubao.client.record import Record
from ubao.client.replay import ReplayApp
from ubao.client.state import GameState
from ubao.engine.games import GAMES, make_game
from ubao.protocol import BotInfo, Moved, SeatInfo, Snapshot

SIZES = [(80, 24), (60, 20)]
BOT = SeatInfo("bot", "ubao-engine (depth 12)", True, depth=12, time_ms=500)
PLIES = 5


class SizedOutput(DummyOutput):
    """A terminal of a given size that draws nothing."""

    def __init__(self, columns: int, rows: int) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def draw(application: Any, columns: int, rows: int) -> list[str]:
    """The screen's lines as the terminal would show them (of a running screen too: a new
    render count, as a real redraw makes, so that no control draws text cached before)."""
    application.render_counter += 1
    screen = Screen()
    with set_app(application):
        application.layout.container.write_to_screen(
            screen, MouseHandlers(), WritePosition(0, 0, columns, rows), "", False, None
        )
        screen.draw_all_floats()
    return [
        "".join(screen.data_buffer[y][x].char for x in range(columns)).rstrip() for y in range(rows)
    ]


def whole(board: list[str], lines: list[str]) -> bool:
    """The board's lines begin the screen's lines, none of them cut."""
    return len(lines) >= len(board) and all(
        line.startswith(part.rstrip()) for part, line in zip(board, lines, strict=False)
    )


def played(name: str) -> tuple[Snapshot, list[Moved]]:
    """The start of a game of `name` with a bot in each seat, and its first moves."""
    game = make_game(name, {})
    position = game.start()
    snapshot = Snapshot(
        game_id="AbCd1234",
        v=1,
        game=name,
        options={},
        status="playing",
        position=game.format_position(position),
        to_move=game.to_move(position),
        ply=0,
        history=(),
        seats=(BOT, BOT),
    )
    events = []
    for ply in range(PLIES):
        seat = game.to_move(position)
        move = game.legal_moves(position)[ply % len(game.legal_moves(position))]
        text = game.format_move(position, move)
        position = game.play(position, move)
        info = BotInfo(depth=12, score=-3, nodes=123456, time_ms=480, pv=(text,) * 6)
        events.append(
            Moved(
                game_id="AbCd1234",
                v=ply + 2,
                ply=ply,
                seat=seat,
                move=text,
                position=game.format_position(position),
                to_move=game.to_move(position),
                info=info,
            )
        )
    return snapshot, events


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
    assert lines[-1].startswith("left/right"), shown
