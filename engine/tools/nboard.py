"""`ubao-engine nboard`: ubao's Othello engine behind the NBoard protocol, for Othello GUIs.

`NBoardEngine` is one conversation: it takes one NBoard command at a time (parsed by
`ubao.engine.protocols.nboard`) and writes reply lines through a callback, so it is tested
without pipes. The searching is ubao's stdio engine (`EngineSession`) in this process, given
the game of `set game`/`move` and limits from `set depth` and the record's clocks; a job (`go`,
`hint`, `analyze`) runs in a thread of its own, so that `ping` is answered while it thinks:
`ping` stops the job, waits for its last line, then says `pong`.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace
from enum import Enum
from typing import TextIO

from ubao.engine.game import GameError
from ubao.engine.protocols.dialect import EnginePosition
from ubao.engine.protocols.ggf import GgfGame, GgfMove, game_position
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.nboard import (
    Analysis,
    Analyze,
    BestMove,
    Command,
    EngineReply,
    Go,
    Hello,
    Hint,
    HintLine,
    Learn,
    Learned,
    MyName,
    NBoardError,
    NodeStats,
    Ping,
    PlayMove,
    Pong,
    Quit,
    SetContempt,
    SetDepth,
    SetGame,
    Status,
    format_reply,
    parse_command,
)
from ubao.engine.protocols.results import Info, PlayResult
from ubao.engine.protocols.session import MAX_MULTIPV, EngineSession
from ubao.engine.protocols.ubao import format_go, format_position, parse_bestmove, parse_info

ENGINE_NAME = "ubao"
DEFAULT_DEPTH = 6
"""The depth before the GUI's `set depth` (NBoard always sends one before it asks)."""


class Job(Enum):
    """What the engine is doing: one job at a time, any of them ended by `ping`."""

    IDLE = "idle"
    GO = "go"
    HINT = "hint"
    ANALYZE = "analyze"


JOB_STATUS = {Job.GO: "thinking", Job.HINT: "analysing", Job.ANALYZE: "analysing the game"}


def nboard_evaluation(info: Info | None, squares: int) -> float | None:
    """A report's score as NBoard's evaluation: ubao's score (discs at the end of the game, the
    evaluation's own units before), a forced result as every square won or lost."""
    if info is None:
        return None
    if info.mate is not None:
        return float(squares if info.mate > 0 else -squares)
    return None if info.score is None else float(info.score)


class NBoardEngine:
    """The engine side of NBoard: one command line in, reply lines out."""

    def __init__(
        self, write: Callable[[str], None], backend: str | None = None, depth: int = DEFAULT_DEPTH
    ) -> None:
        self._lock = threading.Lock()
        self._write = write
        self.depth = depth
        self.contempt = 0
        """`set contempt`: kept, and unused (ubao's search has no contempt)."""
        self.game: GgfGame | None = None
        self._session = EngineSession(self._heard, backend)
        self._job = Job.IDLE
        self._thread: threading.Thread | None = None
        self._cancelled = threading.Event()
        self._heard_lines: list[str] = []
        self._on_info: Callable[[Info], None] | None = None
        """What the running search's reports become (`go`'s node counts)."""

    def say(self, reply: EngineReply) -> None:
        with self._lock:
            self._write(format_reply(reply))

    def handle(self, line: str) -> bool:
        """Process one command line; False after `quit`."""
        try:
            command = parse_command(line)
        except NBoardError as error:
            self.say(Status(f"error: {error}"))
            return True
        if command is None:
            return True  # NBoard says to ignore a line one does not understand
        if isinstance(command, Ping | Quit):
            self.stop()
        else:
            self.wait()  # a command in the middle of a job waits for it, as NBoard's do
        return self._dispatch(command)

    def stop(self) -> None:
        """End the running job; its last line is written before this returns."""
        self._cancelled.set()
        while self._thread is not None and self._thread.is_alive():
            self._session.stop()  # again, should the job have started another search since
            self._thread.join(0.05)
        self.wait()

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _dispatch(self, command: Command) -> bool:
        match command:
            case Hello():
                pass
            case SetDepth(depth):
                self.depth = depth
                self.say(MyName(f"{ENGINE_NAME}{depth}"))
            case SetContempt(contempt):
                self.contempt = contempt
            case SetGame(game):
                self._set_game(game)
            case PlayMove(move):
                self._play(move)
            case Ping(number):
                self.say(Pong(number))
            case Go():
                self._start(Job.GO, 1)
            case Hint(moves):
                self._start(Job.HINT, moves)
            case Analyze():
                self._start(Job.ANALYZE, 1)
            case Learn():
                self.say(Learned())  # ubao keeps no book to learn into
            case Quit():
                return False
        return True

    def _set_game(self, game: GgfGame) -> None:
        try:
            game_position(game)
        except GameError as error:
            self.say(Status(f"error: set game: {error}"))
            return
        self.game = game

    def _play(self, move: GgfMove) -> None:
        if self.game is None:
            self.say(Status("error: move before set game"))
            return
        game = replace(self.game, moves=(*self.game.moves, move))
        try:
            game_position(game)
        except GameError as error:
            self.say(Status(f"error: move {move.move}: {error}"))
            return
        self.game = game

    # -- jobs ------------------------------------------------------------------------------------

    def _start(self, job: Job, moves: int) -> None:
        if self.game is None:
            self.say(Status("error: no game yet; set game first"))
            return
        self._cancelled.clear()
        self._job = job
        target = {Job.GO: self._go, Job.HINT: self._hint, Job.ANALYZE: self._analyze}[job]
        self._thread = threading.Thread(target=self._run, args=(target, moves), daemon=True)
        self._thread.start()

    def _run(self, target: Callable[[GgfGame, int], None], moves: int) -> None:
        assert self.game is not None
        self.say(Status(f"{ENGINE_NAME} is {JOB_STATUS[self._job]}"))
        try:
            target(self.game, moves)
        finally:
            self._job = Job.IDLE
            self.say(Status(""))

    def _go(self, game: GgfGame, _: int) -> None:
        squares = game.size * game.size
        self._on_info = lambda info: self._node_stats(info)
        result = self._search(game_position(game), self._limits(game))
        if result is not None and result.move is not None:
            seconds = (
                None
                if result.info is None or result.info.time_ms is None
                else result.info.time_ms / 1000
            )
            self.say(
                BestMove(GgfMove(result.move, nboard_evaluation(result.info, squares), seconds))
            )

    def _hint(self, game: GgfGame, moves: int) -> None:
        """The best `moves` moves: the engine's MultiPV lines (each the best of the moves the
        lines before it leave), each reported once its search is done (a shallower
        iteration's line would stay on the GUI's board as that move's evaluation)."""
        squares = game.size * game.size
        self._on_info = None
        self._session.handle(f"setoption name MultiPV value {min(moves, MAX_MULTIPV)}")
        self._session.handle("setoption name Book value false")  # hints are searched
        try:
            self._search(game_position(game), Limits(depth=self.depth))
        finally:
            self._session.handle("setoption name MultiPV value 1")
            self._session.handle("setoption name Book value true")
        deepest: dict[int, Info] = {}
        for line in self._heard_lines:
            info = parse_info(line)
            if info is not None and info.string is None and info.pv and info.depth is not None:
                deepest[info.multipv] = info  # each line's last report is its deepest
        for _, info in sorted(deepest.items()):
            evaluation = nboard_evaluation(info, squares)
            if evaluation is not None:
                self.say(HintLine(info.pv, evaluation, str(info.depth)))

    def _analyze(self, game: GgfGame, _: int) -> None:
        """Every position of the game from the last back to the start, its evaluation for the
        side to move there."""
        self._on_info = None
        squares = game.size * game.size
        self._session.handle("setoption name Book value false")  # an analysis is searched
        try:
            for number in range(len(game.moves), -1, -1):
                if self._cancelled.is_set():
                    return
                position = game_position(replace(game, moves=game.moves[:number]))
                result = self._search(position, Limits(depth=self.depth))
                evaluation = nboard_evaluation(None if result is None else result.info, squares)
                if evaluation is not None:
                    self.say(Analysis(number, evaluation))
        finally:
            self._session.handle("setoption name Book value true")

    def _search(self, position: EnginePosition, limits: Limits) -> PlayResult | None:
        """One search by the in-process engine; None if it refused (said as a status)."""
        self._heard_lines = []
        for command in (format_position(position), format_go(limits)):
            self._session.handle(command)
        self._session.wait()
        last: Info | None = None
        for line in self._heard_lines:
            result = parse_bestmove(line)
            info = parse_info(line)
            if info is not None and info.principal:
                last = info
            if result is not None:
                return PlayResult(result.move, last)
            if line.startswith("error"):
                self.say(Status(line))
        return None

    def _heard(self, line: str) -> None:
        """A line of the in-process engine (from its search thread too)."""
        self._heard_lines.append(line)
        info = parse_info(line)
        if info is not None and self._on_info is not None:
            self._on_info(info)

    def _node_stats(self, info: Info) -> None:
        if info.nodes is not None and info.time_ms is not None:
            self.say(NodeStats(info.nodes, info.time_ms / 1000))

    def _limits(self, game: GgfGame) -> Limits:
        """`set depth`, and the clocks the record gives, less the time its moves took."""
        clocks: list[int | None] = []
        increments: list[int] = []
        for player, clock in enumerate(game.clocks):
            if clock is None:
                clocks.append(None)
                increments.append(0)
                continue
            moves = (
                game.moves[player::2] if _first_mover(game) == 0 else game.moves[1 - player :: 2]
            )
            used = sum(move.seconds or 0.0 for move in moves)
            left = clock.seconds - used + clock.increment * len(moves)
            clocks.append(max(0, round(left * 1000)))
            increments.append(round(clock.increment * 1000))
        return Limits(
            depth=self.depth,
            clocks=(clocks[0], clocks[1]),
            increments=(increments[0], increments[1]),
        )


def _first_mover(game: GgfGame) -> int:
    return 0 if game.start.split()[1] == "X" else 1


def serve(
    lines: Iterable[str], out: TextIO, backend: str | None = None, depth: int = DEFAULT_DEPTH
) -> None:
    """Run a conversation over `lines` until `quit` or the end of input."""

    def write(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    engine = NBoardEngine(write, backend, depth)
    for line in lines:
        if not engine.handle(line):
            return
    engine.wait()


def main(backend: str | None = None, depth: int = DEFAULT_DEPTH) -> None:
    serve(sys.stdin, sys.stdout, backend, depth)
