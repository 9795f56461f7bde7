"""Screens without a terminal (no tests here): a terminal of a given size, what it would show,
and games to feed a screen (`played` by bots, `finished` by the first legal move)."""

from __future__ import annotations

import dataclasses
from typing import Any

from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import PipeInput
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import DummyOutput

from ubao.client.app import GameApp
from ubao.client.input_machine import Dialog
from ubao.client.state import GameState
from ubao.engine.games import make_game
from ubao.protocol import (
    BotInfo,
    Clocks,
    ClockSpec,
    Moved,
    Over,
    Result,
    SeatEvent,
    SeatInfo,
    Snapshot,
)

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


PEOPLE = (SeatInfo("open", "root", True), SeatInfo("open", "bob", True))


def sized(columns: int, rows: int, seat: int | None = 0) -> GameApp:
    """A connected screen of a given size, not running (drawn with `draw`)."""
    app = GameApp(GameState("AbCd1234"), seat=seat, output=SizedOutput(columns, rows))
    app.set_connection("connected", True)
    return app


def finished(name: str, plies: int) -> list[Snapshot | Moved | Over]:
    """A game of `name` played `plies` plies (the first legal move each time), then over."""
    game = make_game(name, {})
    position = game.start()
    events: list[Snapshot | Moved | Over] = [
        Snapshot(
            game_id="AbCd1234",
            v=1,
            game=name,
            options={},
            status="playing",
            position=game.format_position(position),
            to_move=game.to_move(position),
            ply=0,
            history=(),
            seats=PEOPLE,
        )
    ]
    for ply in range(plies):
        seat = game.to_move(position)
        move = game.legal_moves(position)[0]
        text = game.format_move(position, move)
        position = game.play(position, move)
        events.append(
            Moved(
                game_id="AbCd1234",
                v=ply + 2,
                ply=ply,
                seat=seat,
                move=text,
                position=game.format_position(position),
                to_move=game.to_move(position),
            )
        )
    events.append(Over(game_id="AbCd1234", v=plies + 2, result=Result(0, "resign", None)))
    return events


class Recorder:
    """Actions that only remember the moves sent."""

    def __init__(self) -> None:
        self.moves: list[str] = []

    async def move(self, ply: int, move: str) -> None:
        self.moves.append(move)

    async def resign(self) -> None:
        raise AssertionError("not asked for")

    async def abort(self) -> None:
        raise AssertionError("not asked for")

    async def draw(self, ply: int) -> None:
        raise AssertionError("not asked for")

    async def answer_draw(self, ply: int, accept: bool) -> None:
        raise AssertionError("not asked for")

    async def takeback(self, ply: int) -> None:
        raise AssertionError("not asked for")

    async def answer_takeback(self, ply: int, accept: bool) -> None:
        raise AssertionError("not asked for")

    async def rematch(self) -> None:
        raise AssertionError("not asked for")

    async def answer_rematch(self, accept: bool) -> None:
        raise AssertionError("not asked for")

    async def analyse(self) -> int | None:
        raise AssertionError("not asked for")


def legal_snapshot(name: str, seat: int = 0) -> Snapshot:
    """The start of `name` with `seat` to move, as the server sends it to that seat."""
    snapshot, _ = played(name)
    game = make_game(name, {})
    start = game.start()
    legal = tuple(game.format_move(start, move) for move in game.legal_moves(start))
    return dataclasses.replace(snapshot, legal=legal if seat == game.to_move(start) else None)


class Shown:
    """A running screen of a given size and the pipe that types into it."""

    def __init__(self, app: GameApp, keys: PipeInput, columns: int, rows: int) -> None:
        self.app, self.keys, self.columns, self.rows = app, keys, columns, rows

    def lines(self) -> list[str]:
        return draw(self.app.application, self.columns, self.rows)

    def text(self) -> str:
        return "\n".join(self.lines())


def dialog(app: GameApp) -> Dialog:
    """What the screen's question line asks now (the opponent's offer, say), as the input
    machine decides it."""
    return app.input.dialog(app.facts())


def status_lines(app: GameApp) -> list[str]:
    return fragment_list_to_text(app._status_text()).splitlines()


def start_of(name: str, options: dict[str, int], seats: tuple[SeatInfo, SeatInfo]) -> Snapshot:
    game = make_game(name, options)
    start = game.start()
    return Snapshot(
        game_id="AbCd1234",
        v=1,
        game=name,
        options=options,
        status="playing",
        position=game.format_position(start),
        to_move=game.to_move(start),
        ply=0,
        history=(),
        seats=seats,
    )


CLOCK = ClockSpec(300_000, 0)
"""5+0: "5:00" on each clock."""


def clocked(
    keys: PipeInput, snapshot_game: str, options: dict[str, int], **fields: object
) -> GameApp:
    """A player's screen at 60x16 of a game with a 5+0 clock, its first move due."""
    snapshot = dataclasses.replace(
        start_of(snapshot_game, options, PEOPLE),
        clock=CLOCK,
        clocks=Clocks((300_000, 300_000), None, 0, first_move_ms=60_000),
        **fields,  # type: ignore[arg-type]
    )
    app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(60, 16))
    app.set_connection("connected", True)
    app.on_event(snapshot)
    return app


def aborted_game() -> tuple[Snapshot, Over]:
    snapshot, _ = played("kalah")
    start = dataclasses.replace(snapshot, seats=PEOPLE)
    return start, Over(game_id="AbCd1234", v=2, result=Result(None, "aborted", None))


def old_game_left(v: int) -> SeatEvent:
    """The opponent leaving the finished game A (presence news after a rematch), at the
    version that would be game B's next."""
    return SeatEvent(game_id="OldGameA", v=v, seat=1, name="bob", connected=False, status="over")
