"""GTP, the Go Text Protocol (version 2), as Othello engines speak it; both sides' text.

A controller sends `[id] command [arguments]` lines; the engine answers each, in order, with
`=[id] result` or `?[id] message` and an empty line (a result may take several lines). Before a
command is read, control characters other than tabs go, tabs become spaces and a `#` starts a
comment. Othello engines (Edax) keep GTP's commands (`boardsize`, `clear_board`, `play COLOUR
VERTEX`, `genmove COLOUR`, `undo`, `time_settings`, `time_left`, `showboard`, ...) but write
vertices in Othello's own coordinates, ubao's: a column letter from the left with no letter
skipped, a row number from the top (`d3`), and `pass`.

The engine's side parses commands (`parse_command`) and formats responses
(`format_response`); the driver's side (`GTPDialect`) formats commands and parses responses.
Pure text, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ubao.engine.protocols.dialect import EnginePosition, Ready, Refused, Reply
from ubao.engine.protocols.ggf import GgfError, played_out
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.results import PlayResult

GTP_VERSION = 2
COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
"""GTP's colour words, any case, and ubao's players: Black moves first (player 0)."""

_RESPONSE = re.compile(r"([=?])([0-9]+)?(?:\s(.*))?")


class GTPError(ValueError):
    """A command or response that is not GTP."""


@dataclass(frozen=True, slots=True)
class GTPCommand:
    name: str
    arguments: tuple[str, ...] = ()
    id: int | None = None


@dataclass(frozen=True, slots=True)
class GTPResponse:
    ok: bool
    text: str
    """The result (`=`) or the error message (`?`), its lines joined by newlines."""
    id: int | None = None


def preprocess(line: str) -> str:
    """GTP's cleaning of an input line: no control characters but tabs (now spaces), no
    comment."""
    line = line.split("#", 1)[0].replace("\t", " ")
    return "".join(char for char in line if char >= " " or char == "\n").strip()


def parse_command(line: str) -> GTPCommand | None:
    """The command on a line; None for a line with none (empty or a comment)."""
    words = preprocess(line).split()
    if not words:
        return None
    command_id = None
    if words[0].isascii() and words[0].isdigit():
        command_id = int(words[0])
        words = words[1:]
        if not words:
            raise GTPError("an id with no command")
    return GTPCommand(words[0].lower(), tuple(words[1:]), command_id)


def format_command(command: GTPCommand) -> str:
    words = ([] if command.id is None else [str(command.id)]) + [command.name, *command.arguments]
    return " ".join(words)


def format_response(response: GTPResponse) -> list[str]:
    """The response's lines, the empty line that ends it included."""
    head = ("=" if response.ok else "?") + ("" if response.id is None else str(response.id))
    first, *rest = response.text.split("\n")
    return [f"{head} {first}".rstrip(), *rest, ""]


def parse_response(lines: list[str], expected_id: int | None = None) -> GTPResponse:
    """A response from its lines (the ending empty line left out). Engines that put a space
    between `=` and the id (Edax) are understood when the id is the one expected."""
    match = _RESPONSE.fullmatch(lines[0].rstrip()) if lines else None
    if match is None:
        raise GTPError(f"{lines[0] if lines else ''!r} does not start a response (= or ?)")
    sign, digits, text = match.groups()
    text = text or ""
    command_id = None if digits is None else int(digits)
    if command_id is None and expected_id is not None:
        first, _, after = text.partition(" ")
        if first == str(expected_id):
            command_id, text = expected_id, after
    return GTPResponse(sign == "=", "\n".join([text.strip(), *lines[1:]]).strip(), command_id)


def parse_colour(text: str) -> int:
    colour = COLOURS.get(text.lower())
    if colour is None:
        raise GTPError(f"{text!r} is not a colour: b, w, black or white")
    return colour


def format_colour(player: int) -> str:
    return "bw"[player]


# -- the driver's side ---------------------------------------------------------------------------


@dataclass
class GTPDialect:
    """Drives an Othello GTP engine: each search replays the game from a cleared board
    (`boardsize`, `clear_board`, `play` per move, passes too) before `genmove`.

    GTP has no depth and no way to stop a search: the engine's own settings choose the depth
    (Edax's `-l`), a search's time reaches it as `time_settings`/`time_left` (a clock, or a
    byo-yomi period of one move for a fixed time), and a search that overruns its budget is the
    client's to abandon. GTP sets up no arbitrary position: a search from another start than
    the game's own (written out or `startpos`) is refused. `configure` sends each option as a
    command of its own (`komi 0`).
    """

    name: str = "gtp"
    _ids: int = 0
    _pending: dict[int, str] = field(default_factory=dict)
    """The commands sent and not answered yet: id to command name."""
    _batch_end: int | None = None
    """The id whose answer ends the handshake, a configure or a search."""
    _refused: str | None = None
    """Why the batch under way failed: its end then answers with this refusal."""
    _lines: list[str] = field(default_factory=list)
    """The response being read."""

    def start(self) -> list[str]:
        return self._batch([("protocol_version", ()), ("name", ())])

    def configure(self, options: Mapping[str, str]) -> list[str]:
        commands = [(name.lower(), tuple(str(value).split())) for name, value in options.items()]
        return self._batch(commands) if commands else []

    def new_game(self) -> list[str]:
        return []  # every search sets up its whole game

    def search(self, position: EnginePosition, limits: Limits) -> list[str]:
        try:
            othello, start, _ = played_out(position)
            standard = othello.format_position(start) == othello.format_position(othello.start())
        except GgfError as error:
            standard, problem = False, str(error)
        else:
            problem = "GTP sets up no position: its games start from the start position"
        if not standard:
            # nothing GTP can say: the batch's one command answers with the refusal
            self._refused = problem
            return self._batch([("protocol_version", ())])
        commands: list[tuple[str, tuple[str, ...]]] = [
            ("boardsize", (str(othello.options["size"]),)),
            ("clear_board", ()),
            *time_commands(limits, position.player),
        ]
        player = othello.to_move(start)
        for move in position.moves:
            commands.append(("play", (format_colour(player), move)))
            player = 1 - player
        commands.append(("genmove", (format_colour(position.player),)))
        return self._batch(commands)

    def stop(self) -> list[str]:
        return []  # GTP cannot interrupt a command

    def quit(self) -> list[str]:
        return self._batch([("quit", ())])

    def receive(self, line: str) -> list[Reply]:
        if line.strip():
            if self._lines or line[:1] in "=?":
                self._lines.append(line)
            return []  # a line outside a response: engines' chatter
        if not self._lines:
            return []
        lines, self._lines = self._lines, []
        expected = min(self._pending) if self._pending else None
        try:
            response = parse_response(lines, expected)
        except GTPError as error:  # an answer it could not read: what was under way has failed
            self._pending.clear()
            self._batch_end = self._refused = None
            return [Refused(str(error)), Ready()]
        command_id = response.id if response.id in self._pending else expected
        if command_id is None:
            return []
        command = self._pending.pop(command_id)
        if not response.ok and self._refused is None:
            self._refused = f"{command}: {response.text}"
        if command_id != self._batch_end:
            return []
        self._batch_end = None
        refused, self._refused = self._refused, None
        if refused is not None:  # a refusal, then in step again: the client fails at once
            return [Refused(refused), Ready()]
        if command == "genmove":
            move = response.text.split()[0].lower() if response.text else ""
            return [PlayResult(None if move == "resign" else move, None)]
        return [Ready()]

    def _batch(self, commands: list[tuple[str, tuple[str, ...]]]) -> list[str]:
        lines = []
        for name, arguments in commands:
            self._ids += 1
            self._pending[self._ids] = name
            lines.append(format_command(GTPCommand(name, arguments, self._ids)))
        self._batch_end = self._ids
        return lines


def time_commands(limits: Limits, player: int) -> list[tuple[str, tuple[str, ...]]]:
    """A search's time as GTP says it: the clocks as main time left (GTP has no increment),
    a fixed time as a byo-yomi period of one move."""
    if limits.time_ms is not None:
        seconds = str(max(1, limits.time_ms // 1000))
        return [
            ("time_settings", ("0", seconds, "1")),
            ("time_left", (format_colour(player), seconds, "1")),
        ]
    if limits.clocks == (None, None):
        return []
    main = max(left or 0 for left in limits.clocks) // 1000
    commands: list[tuple[str, tuple[str, ...]]] = [("time_settings", (str(main), "0", "0"))]
    for side, left in enumerate(limits.clocks):
        if left is not None:
            commands.append(("time_left", (format_colour(side), str(left // 1000), "0")))
    return commands
