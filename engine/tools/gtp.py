"""`ubao-engine gtp`: ubao's Othello engine behind GTP, the Go Text Protocol, as Edax speaks it.

`GTPEngine` is one conversation: one command line in, the response's lines out through a
callback. GTP answers every command before it reads the next, so `genmove` searches in the
caller's thread, with ubao's stdio engine (`EngineSession`) in this process: the depth of
`--depth`, the time of `time_settings`/`time_left` through the one time manager.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TextIO

from ubao.engine.game import GameError
from ubao.engine.games import make_game
from ubao.engine.othello.game import DEFAULT_SIZE
from ubao.engine.protocols.dialect import EnginePosition
from ubao.engine.protocols.ggf import must_pass
from ubao.engine.protocols.gtp import (
    GTP_VERSION,
    GTPCommand,
    GTPError,
    GTPResponse,
    format_response,
    parse_colour,
    parse_command,
)
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.session import EngineSession
from ubao.engine.protocols.ubao import format_go, format_position, parse_bestmove
from ubao.engine.searchable import Searchable
from ubao.engine.tools.nboard import DEFAULT_DEPTH, ENGINE_NAME

ENGINE_VERSION = "1"
COLOUR_NAMES = ("black", "white")


@dataclass
class Clock:
    """GTP's time system: main time, then byo-yomi periods of `stones` moves in `period_s`."""

    main_s: float = 0.0
    period_s: float = 0.0
    stones: int = 0
    left: dict[int, tuple[float, int]] = field(default_factory=dict)
    """`time_left` per player: seconds and stones left (0 stones: still in main time)."""

    def limits(self, player: int, depth: int) -> Limits:
        """The depth, and the time the mover has: its clock, or a byo-yomi period's share
        (without `time_left`, the whole main time, or a period's share when there is none)."""
        if player not in self.left:
            if self.main_s:
                main = round(self.main_s * 1000)
                return Limits(depth=depth, clocks=(main, main))
            if self.stones:
                return Limits(depth=depth, time_ms=round(self.period_s / self.stones * 1000))
            return Limits(depth=depth)
        seconds, stones = self.left[player]
        if stones:
            return Limits(depth=depth, time_ms=round(seconds / stones * 1000))
        clocks = [
            None if side not in self.left else round(self.left[side][0] * 1000) for side in (0, 1)
        ]
        return Limits(depth=depth, clocks=(clocks[0], clocks[1]))


class GTPEngine:
    """The engine side of GTP for Othello: one command line in, a response out."""

    def __init__(
        self, write: Callable[[str], None], backend: str | None = None, depth: int = DEFAULT_DEPTH
    ) -> None:
        self._write = write
        self.backend = backend
        self.depth = depth
        self.size = DEFAULT_SIZE
        self.moves: list[str] = []
        self.clock = Clock()
        self._heard: list[str] = []
        self._session = EngineSession(self._heard.append, backend)

    def handle(self, line: str) -> bool:
        """Process one command line; False after `quit`."""
        try:
            command = parse_command(line)
        except GTPError as error:
            self._answer(GTPResponse(False, str(error)))
            return True
        if command is None:
            return True
        handler = self._handlers.get(command.name)
        try:
            if handler is None:
                raise GTPError("unknown command")
            text = handler(self, command)
        except (GTPError, GameError) as error:
            self._answer(GTPResponse(False, str(error), command.id))
            return True
        self._answer(GTPResponse(True, text, command.id))
        return command.name != "quit"

    def _answer(self, response: GTPResponse) -> None:
        for line in format_response(response):
            self._write(line)

    # -- the board ---------------------------------------------------------------------------

    def _game(self) -> Searchable[Any, Any]:
        return make_game("othello", {"size": self.size}, self.backend)

    def _position(self) -> Any:
        game = self._game()
        position = game.start()
        for move in self.moves:
            position = game.play(position, game.parse_move(position, move))
        return position

    def _play_as(self, player: int, move: str) -> None:
        """`move` for `player`, passing first for the side to move if it must (as Edax does)."""
        game, position = self._game(), self._position()
        if game.to_move(position) != player:
            if not must_pass(game, position):
                raise GTPError(f"it is {COLOUR_NAMES[game.to_move(position)]}'s turn")
            self.moves.append("pass")
            position = game.play(position, game.parse_move(position, "pass"))
        parsed = game.parse_move(position, move)
        game.play(position, parsed)
        self.moves.append(game.format_move(position, parsed))

    # -- commands ----------------------------------------------------------------------------

    def _protocol_version(self, command: GTPCommand) -> str:
        return str(GTP_VERSION)

    def _name(self, command: GTPCommand) -> str:
        return ENGINE_NAME

    def _version(self, command: GTPCommand) -> str:
        return ENGINE_VERSION

    def _known_command(self, command: GTPCommand) -> str:
        return "true" if command.arguments and command.arguments[0] in self._handlers else "false"

    def _list_commands(self, command: GTPCommand) -> str:
        return "\n".join(self._handlers)

    def _quit(self, command: GTPCommand) -> str:
        return ""

    def _boardsize(self, command: GTPCommand) -> str:
        size = _argument(command, 0, "boardsize SIZE")
        try:
            make_game("othello", {"size": int(size) if size.isdigit() else size})
        except GameError:
            raise GTPError("unacceptable size") from None
        self.size, self.moves = int(size), []
        return ""

    def _clear_board(self, command: GTPCommand) -> str:
        self.moves = []
        return ""

    def _komi(self, command: GTPCommand) -> str:
        return ""  # Othello has no komi

    def _play(self, command: GTPCommand) -> str:
        player = parse_colour(_argument(command, 0, "play COLOUR VERTEX"))
        move = _argument(command, 1, "play COLOUR VERTEX")
        try:
            self._play_as(player, move)
        except GameError as error:
            raise GTPError(f"illegal move: {error}") from None
        return ""

    def _genmove(self, command: GTPCommand) -> str:
        player = parse_colour(_argument(command, 0, "genmove COLOUR"))
        game, position = self._game(), self._position()
        if game.to_move(position) != player and must_pass(game, position):
            self._play_as(1 - player, "pass")
            position = self._position()
        if game.is_over(position):
            return "pass"
        if game.to_move(position) != player:
            raise GTPError(f"it is {COLOUR_NAMES[game.to_move(position)]}'s turn")
        engine_position = EnginePosition(
            "othello", {"size": self.size}, "startpos", tuple(self.moves), player
        )
        self._heard.clear()
        self._session.handle(format_position(engine_position))
        self._session.handle(format_go(self.clock.limits(player, self.depth)))
        self._session.wait()
        for line in self._heard:
            result = parse_bestmove(line)
            if result is not None and result.move is not None:
                self._play_as(player, result.move)
                return result.move
        raise GTPError(next((line for line in self._heard if line.startswith("error")), "no move"))

    def _undo(self, command: GTPCommand) -> str:
        if not self.moves:
            raise GTPError("cannot undo")
        self.moves.pop()
        return ""

    def _time_settings(self, command: GTPCommand) -> str:
        usage = "time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES"
        main, period, stones = (_number(command, i, usage) for i in range(3))
        self.clock = Clock(main, period, int(stones))
        return ""

    def _time_left(self, command: GTPCommand) -> str:
        usage = "time_left COLOUR TIME STONES"
        player = parse_colour(_argument(command, 0, usage))
        self.clock.left[player] = (_number(command, 1, usage), int(_number(command, 2, usage)))
        return ""

    def _showboard(self, command: GTPCommand) -> str:
        game, position = self._game(), self._position()
        board = game.format_position(position).split()[0]
        columns = "abcdefghijklmnop"[: self.size]
        rows = [f"   {' '.join(columns)}"]
        for row in range(self.size):
            cells = board[row * self.size : (row + 1) * self.size]
            rows.append(f"{row + 1:2d} {' '.join(cells)}")
        rows.append(f"{COLOUR_NAMES[game.to_move(position)]} to move")
        return "\n" + "\n".join(rows)

    def _final_score(self, command: GTPCommand) -> str:
        game = self._game()
        board = game.format_position(self._position()).split()[0]
        black, white = board.count("X"), board.count("O")
        if black == white:
            return "0"
        return f"B+{black - white}" if black > white else f"W+{white - black}"

    def _set_game(self, command: GTPCommand) -> str:
        if command.arguments != ("Othello",):
            raise GTPError("unsupported game")
        return ""

    def _list_games(self, command: GTPCommand) -> str:
        return "Othello"

    _handlers: ClassVar[dict[str, Callable[[GTPEngine, GTPCommand], str]]] = {
        "protocol_version": _protocol_version,
        "name": _name,
        "version": _version,
        "known_command": _known_command,
        "list_commands": _list_commands,
        "quit": _quit,
        "boardsize": _boardsize,
        "clear_board": _clear_board,
        "komi": _komi,
        "play": _play,
        "genmove": _genmove,
        "undo": _undo,
        "time_settings": _time_settings,
        "time_left": _time_left,
        "showboard": _showboard,
        "final_score": _final_score,
        "set_game": _set_game,
        "list_games": _list_games,
    }


def _argument(command: GTPCommand, index: int, usage: str) -> str:
    if index >= len(command.arguments):
        raise GTPError(f"syntax error: {usage}")
    return command.arguments[index]


def _number(command: GTPCommand, index: int, usage: str) -> float:
    try:
        return float(_argument(command, index, usage))
    except ValueError:
        raise GTPError(f"syntax error: {usage}") from None


def serve(
    lines: Iterable[str], out: TextIO, backend: str | None = None, depth: int = DEFAULT_DEPTH
) -> None:
    def write(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    engine = GTPEngine(write, backend, depth)
    for line in lines:
        if not engine.handle(line):
            return


def main(backend: str | None = None, depth: int = DEFAULT_DEPTH) -> None:
    serve(sys.stdin, sys.stdout, backend, depth)
