"""NBoard, the Othello GUI protocol of Chris Welty's NBoard and NTest, both sides' text.

A GUI sends one command a line: `nboard 2` first, then `set depth N`, `set game GGF` (the game
so far, ggf.py), `set contempt N`, `move F5[/eval[/time]]`, `hint N`, `go`, `ping N`, `learn`,
`analyze`. The engine answers `go` with `=== F5[/eval[/time]]` (some engines, Edax among them,
separate the fields with spaces), `ping N` with `pong N` once it has stopped thinking, and
reports `search PV EVAL 0 DEPTH [text]` and `book PV EVAL GAMES DEPTH [text]` lines while it
thinks, `nodestats NODES SECONDS`, `status TEXT` and `set myname NAME`. Evaluations are in
discs, from the mover's point of view. A pass is `PA`.

The engine's side parses commands (`parse_command`) and formats replies (`format_reply`); the
driver's side (`NBoardDialect`) formats commands and parses replies. Pure text, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ubao.engine.protocols.dialect import EnginePosition, Ready, Refused, Reply
from ubao.engine.protocols.ggf import (
    GgfClock,
    GgfError,
    GgfGame,
    GgfMove,
    format_ggf,
    format_move_item,
    format_square,
    ggf_game,
    must_pass,
    parse_ggf,
    parse_move_item,
    parse_square,
    played_out,
)
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.results import Info, PlayResult

NBOARD_VERSION = 2
"""The protocol's current version, which `nboard` announces."""
FALLBACK_DEPTH = 12
"""The depth an NBoard engine is given when neither the options nor a search's limits give
one: NBoard engines search by depth (Edax and NTest leave the record's clocks aside), and some
answer no `go` before a `set depth`."""

_PV_MOVE = re.compile(r"[pP][aAsS]|[a-zA-Z][0-9]+")
"""One move of a hint line's PV, which is written without spaces (`F5d6C3`, `F5-D6-C3`)."""


class NBoardError(ValueError):
    """A command or reply that is not NBoard."""


# -- commands (GUI to engine) --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    version: int


@dataclass(frozen=True, slots=True)
class SetDepth:
    depth: int


@dataclass(frozen=True, slots=True)
class SetGame:
    game: GgfGame


@dataclass(frozen=True, slots=True)
class SetContempt:
    contempt: int
    """In centidiscs: what a draw is worth to the engine's side."""


@dataclass(frozen=True, slots=True)
class PlayMove:
    move: GgfMove


@dataclass(frozen=True, slots=True)
class Hint:
    moves: int


@dataclass(frozen=True, slots=True)
class Go:
    pass


@dataclass(frozen=True, slots=True)
class Ping:
    number: int


@dataclass(frozen=True, slots=True)
class Learn:
    pass


@dataclass(frozen=True, slots=True)
class Analyze:
    pass


@dataclass(frozen=True, slots=True)
class Quit:
    pass


Command = (
    Hello | SetDepth | SetGame | SetContempt | PlayMove | Hint | Go | Ping | Learn | Analyze | Quit
)


def parse_command(line: str) -> Command | None:
    """The command on a line; None for a line that is no NBoard command (the protocol says to
    ignore such lines), NBoardError for a known command with a wrong argument."""
    words = line.split()
    if not words:
        return None
    name, rest = words[0], line.strip()[len(words[0]) :].strip()
    if name == "set" and len(words) > 1:
        name, rest = f"set {words[1]}", rest[len(words[1]) :].strip()
    try:
        if name == "nboard":
            return Hello(_integer(rest, "nboard VERSION"))
        if name == "set depth":
            return SetDepth(_integer(rest, "set depth N", minimum=1))
        if name == "set game":
            return SetGame(parse_ggf(rest))
        if name == "set contempt":
            return SetContempt(_integer(rest, "set contempt N", minimum=None))
        if name == "move":
            return PlayMove(parse_move_item(rest))
        if name == "hint":
            return Hint(_integer(rest, "hint N", minimum=1))
        if name == "ping":
            return Ping(_integer(rest, "ping N", minimum=None))
    except GgfError as error:
        raise NBoardError(f"{name}: {error}") from None
    simple: dict[str, Command] = {
        "go": Go(),
        "learn": Learn(),
        "analyze": Analyze(),
        "quit": Quit(),
    }
    return simple.get(name) if not rest else None


def format_command(command: Command) -> str:
    match command:
        case Hello(version):
            return f"nboard {version}"
        case SetDepth(depth):
            return f"set depth {depth}"
        case SetGame(game):
            return f"set game {format_ggf(game)}"
        case SetContempt(contempt):
            return f"set contempt {contempt}"
        case PlayMove(move):
            return f"move {format_move_item(move)}"
        case Hint(moves):
            return f"hint {moves}"
        case Ping(number):
            return f"ping {number}"
        case Go():
            return "go"
        case Learn():
            return "learn"
        case Analyze():
            return "analyze"
        case Quit():
            return "quit"


# -- replies (engine to GUI) ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pong:
    number: int


@dataclass(frozen=True, slots=True)
class BestMove:
    """`=== MOVE[/eval[/seconds]]`: the move the engine would play (the GUI plays it)."""

    move: GgfMove


@dataclass(frozen=True, slots=True)
class HintLine:
    """A `search` (or, from the engine's book, `book`) line: one move's evaluation so far."""

    pv: tuple[str, ...]
    """Moves in ubao's notation, the first the move evaluated."""
    evaluation: float
    depth: str
    """The depth as the engine writes it (`12`, `20@73%`, `60`)."""
    games: int = 0
    """Book lines: the games the book has with the move."""
    book: bool = False
    text: str = ""


@dataclass(frozen=True, slots=True)
class NodeStats:
    nodes: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Status:
    text: str


@dataclass(frozen=True, slots=True)
class MyName:
    name: str


@dataclass(frozen=True, slots=True)
class Learned:
    pass


@dataclass(frozen=True, slots=True)
class Analysis:
    """`analysis MOVE_NUMBER EVAL`: a retrograde analysis' evaluation of one position."""

    move_number: int
    evaluation: float


EngineReply = Pong | BestMove | HintLine | NodeStats | Status | MyName | Learned | Analysis


def format_reply(reply: EngineReply) -> str:
    match reply:
        case Pong(number):
            return f"pong {number}"
        case BestMove(move):
            return f"=== {format_move_item(move)}"
        case HintLine(pv, evaluation, depth, games, book, text):
            moves = "".join(format_square(move) for move in pv)
            line = f"{'book' if book else 'search'} {moves} {evaluation:.2f} {games} {depth}"
            return f"{line} {text}".rstrip()
        case NodeStats(nodes, seconds):
            return f"nodestats {nodes} {seconds:.2f}"
        case Status(text):
            return f"status {text}".rstrip()
        case MyName(name):
            return f"set myname {name}"
        case Learned():
            return "learned"
        case Analysis(move_number, evaluation):
            return f"analysis {move_number} {evaluation:.2f}"


def parse_reply(line: str) -> EngineReply | None:
    """What an engine's line says; None for a line that is none of NBoard's replies (engines
    print banners and debugging), NBoardError for a reply with wrong fields."""
    words = line.split()
    if not words:
        return None
    head = words[0]
    try:
        if head == "pong" and len(words) == 2:
            return Pong(int(words[1]))
        if head == "===" and len(words) > 1:
            return BestMove(parse_move_item("/".join(words[1:4])))
        if head in ("search", "book") and len(words) >= 5:
            return HintLine(
                pv=parse_pv(words[1]),
                evaluation=parse_evaluation(words[2]),
                games=int(float(words[3])),
                depth=words[4],
                book=head == "book",
                text=" ".join(words[5:]),
            )
        if head == "nodestats" and len(words) >= 3:
            return NodeStats(int(float(words[1])), float(words[2]))
        if head == "status":
            return Status(" ".join(words[1:]))
        if head == "set" and len(words) >= 2 and words[1] == "myname":
            return MyName(" ".join(words[2:]))
        if head == "learned":
            return Learned()
        if head == "analysis" and len(words) >= 3:
            return Analysis(int(words[1]), parse_evaluation(words[2]))
    except (ValueError, GgfError) as error:
        raise NBoardError(f"{line!r}: {error}") from None
    return None


def parse_pv(text: str) -> tuple[str, ...]:
    moves = _PV_MOVE.findall(text.replace("-", ""))
    if "".join(moves) != text.replace("-", ""):
        raise NBoardError(f"{text!r} is not a principal variation (F5d6C3)")
    return tuple(parse_square(move) for move in moves)


def parse_evaluation(text: str) -> float:
    """A number, or NBoard's pair `(draw-to-black,draw-to-white)`: its first value."""
    return float(text.strip("()").split(",")[0])


def depth_of(text: str) -> int | None:
    """The plies of a hint line's depth (`20@73%` is 20 plies at 73% certainty)."""
    digits = re.match(r"[0-9]+", text)
    return int(digits.group()) if digits else None


# -- the driver's side ---------------------------------------------------------------------------


@dataclass
class NBoardDialect:
    """Drives an NBoard engine: a `set game` with the whole game before each `go`, `ping` to
    synchronise (the handshake and each `configure` are answered by their `pong`) and to stop.

    `configure` takes `depth` and `contempt` (and passes any other name on as `set NAME
    VALUE`, which engines that do not know it ignore). Searches are Othello's on GGF's board
    sizes; a search's depth comes from its limits or, without one, the last `set depth` sent
    (`FALLBACK_DEPTH` when none was).
    A forced pass is answered without asking the engine, as NBoard GUIs pass for it.
    """

    version: int = NBOARD_VERSION
    name: str = "nboard"
    engine_name: str | None = None
    """What the engine called itself (`set myname`)."""
    _pings: int = 0
    _sync: int | None = None
    """The ping whose pong answers the handshake or a configure."""
    _searching: bool = False
    _last: Info | None = None
    _stopped_at: int | None = None
    """The ping that stopped the running search."""
    _refusal: str | None = None
    """Why the search asked for could not be sent (answered at the next sync)."""
    _depth_set: bool = False
    """A `set depth` was sent (by `configure` or a search)."""
    _forced_pass: bool = False
    """The search asked for is a forced pass (answered at the next sync)."""

    def start(self) -> list[str]:
        return [format_command(Hello(self.version)), self._ping_for_sync()]

    def configure(self, options: Mapping[str, str]) -> list[str]:
        if not options:
            return []
        lines = [f"set {name.lower()} {value}" for name, value in options.items()]
        self._depth_set = self._depth_set or "depth" in map(str.lower, options)
        return [*lines, self._ping_for_sync()]

    def new_game(self) -> list[str]:
        return []  # every search sends its whole game

    def search(self, position: EnginePosition, limits: Limits) -> list[str]:
        clocks = tuple(
            None if left is None else GgfClock(left / 1000, increment / 1000)
            for left, increment in zip(limits.clocks, limits.increments, strict=True)
        )
        try:
            game = ggf_game(position, clocks=clocks, black="black", white="white", place="ubao")
            othello, _, board = played_out(position)
        except GgfError as error:
            # a position NBoard cannot carry: a sync, whose pong answers with the refusal
            self._refusal = str(error)
            return [self._ping_for_sync()]
        if must_pass(othello, board):
            # NBoard GUIs pass for the engine, which is never asked: a sync answers the pass
            self._forced_pass = True
            return [self._ping_for_sync()]
        lines = [format_command(SetGame(game))]
        depth = limits.depth
        if depth is None and not self._depth_set:
            depth = FALLBACK_DEPTH  # NTest ignores a `go` before any `set depth`
        if depth is not None:
            self._depth_set = True
            lines.append(format_command(SetDepth(depth)))
        self._searching, self._last, self._stopped_at = True, None, None
        return [*lines, format_command(Go())]

    def stop(self) -> list[str]:
        """NBoard has no `stop`: a `ping` makes the engine stop thinking before its pong."""
        if not self._searching:
            return []
        self._pings += 1
        self._stopped_at = self._pings
        return [format_command(Ping(self._pings))]

    def quit(self) -> list[str]:
        return [format_command(Quit())]

    def receive(self, line: str) -> list[Reply]:
        try:
            reply = parse_reply(line)
        except NBoardError as error:
            if not (self._searching and line.startswith("===")):
                return []  # a report it could not read: engines write much besides NBoard
            self._searching = False  # an answer it could not read: the search has failed
            return [Refused(str(error)), Ready()]
        match reply:
            case Pong(number) if number == self._sync:
                self._sync = None
                refusal, self._refusal = self._refusal, None
                if self._forced_pass:
                    self._forced_pass = False
                    return [PlayResult("pass", None)]
                return [Ready()] if refusal is None else [Refused(refusal), Ready()]
            case Pong(number) if self._searching and number == self._stopped_at:
                # stopped without an answer: its best line so far, if it said one
                self._searching = False
                if self._last is not None and self._last.pv:
                    return [PlayResult(self._last.pv[0], self._last)]
                return [Refused("the engine stopped without a move")]
            case BestMove(move) if self._searching:
                self._searching = False
                info = replace(
                    self._last or Info(),
                    score=None if move.evaluation is None else round(move.evaluation),
                    time_ms=None if move.seconds is None else round(move.seconds * 1000),
                )
                return [PlayResult(move.move, info)]
            case HintLine(pv, evaluation, depth) if self._searching:
                self._last = Info(depth=depth_of(depth), score=round(evaluation), pv=pv)
                return [self._last]
            case NodeStats(nodes, seconds) if self._searching:
                self._last = replace(
                    self._last or Info(), nodes=nodes, time_ms=round(seconds * 1000)
                )
                return [self._last]
            case MyName(name):
                self.engine_name = name
        return []

    def _ping_for_sync(self) -> str:
        self._pings += 1
        self._sync = self._pings
        return format_command(Ping(self._pings))


def _integer(text: str, usage: str, minimum: int | None = 0) -> int:
    try:
        value = int(text)
    except ValueError:
        raise NBoardError(f"usage: {usage}") from None
    if minimum is not None and value < minimum:
        raise NBoardError(f"usage: {usage}, N at least {minimum}")
    return value
