"""`ubao-engine stdio`: the engine as a subprocess speaking the line protocol.

docs/engine-protocol.md is the specification. `Session` is the protocol's state machine: it
takes one command line at a time and writes reply lines through a callback, so it is tested
without pipes. The search runs in a thread, so `stop` and `isready` are answered while it
thinks; `serve` only moves lines between the pipes and the session.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, TextIO

from ubao.engine.game import Game, GameError
from ubao.engine.games import GAMES, game_for_position, make_game
from ubao.engine.search import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    DEFAULT_HASH_MB,
    MAX_DEPTH,
    MAX_THREADS,
    SearchControl,
    Searcher,
    SearchResult,
    mate_distance,
)

ENGINE_NAME = "ubao-engine"
MAX_HASH_MB = 4096
"""The largest transposition table `setoption name Hash` accepts, in MB."""

MOVES_TO_GO = 30
"""A clock search plans for this many more of its own moves."""
HARD_FACTOR = 4
"""An iteration may run past the planned time up to this factor ..."""
MAX_SHARE = 0.5
"""... but never past this share of the time left on the clock."""


class ProtocolError(ValueError):
    """A malformed or impossible command; the reply is `error MESSAGE`."""


@dataclass(frozen=True, slots=True)
class Go:
    """The limits of one `go` command."""

    depth: int | None = None
    movetime: int | None = None
    clocks: tuple[int | None, int | None] = (None, None)
    """Milliseconds left for player 0 (`wtime`) and player 1 (`btime`)."""
    increments: tuple[int, int] = (0, 0)
    infinite: bool = False


def parse_go(words: list[str]) -> Go:
    """The limits of `go` from the words after it; ProtocolError says what is wrong."""
    depth = movetime = wtime = btime = None
    winc = binc = 0
    infinite = False
    i = 0
    while i < len(words):
        word = words[i]
        if word == "infinite":
            infinite = True
            i += 1
            continue
        if word not in ("depth", "movetime", "wtime", "btime", "winc", "binc"):
            raise ProtocolError(f"go: unknown limit {word!r}")
        if i + 1 == len(words):
            raise ProtocolError(f"go: {word} needs a value")
        try:
            value = int(words[i + 1])
        except ValueError:
            raise ProtocolError(f"go: {word} must be an integer, not {words[i + 1]!r}") from None
        if word == "depth":
            if not 1 <= value <= MAX_DEPTH:
                raise ProtocolError(f"go: depth must be from 1 to {MAX_DEPTH}")
            depth = value
        elif value < 0:
            raise ProtocolError(f"go: {word} must not be negative")
        elif word == "movetime":
            movetime = value
        elif word == "wtime":
            wtime = value
        elif word == "btime":
            btime = value
        elif word == "winc":
            winc = value
        else:
            binc = value
        i += 2
    if not infinite and depth is None and movetime is None and wtime is None and btime is None:
        raise ProtocolError("go needs depth N, movetime MS, wtime/btime MS or infinite")
    return Go(depth, movetime, (wtime, btime), (winc, binc), infinite)


def time_budget(go: Go, player: int) -> tuple[float | None, float | None]:
    """(hard, soft) milliseconds for the search: the deadline and when to stop deepening.

    On a clock the engine plans time/30 plus most of the increment per move, lets an
    iteration run to four times that, and never uses more than half of what is left.
    """
    hard: float | None = go.movetime
    soft: float | None = None
    left = go.clocks[player]
    if left is not None:
        increment = go.increments[player]
        soft = left / MOVES_TO_GO + 0.75 * increment
        cap = max(1.0, min(HARD_FACTOR * soft, MAX_SHARE * left))
        hard = cap if hard is None else min(hard, cap)
    return hard, soft


def format_info(game: Game[Any, Any], position: Any, result: SearchResult[Any]) -> str:
    """The `info` line of a completed iteration."""
    distance = mate_distance(result.score)
    score = f"mate {distance}" if distance is not None else str(round(result.score))
    stats = result.stats
    moves = []
    for move in result.pv:
        moves.append(game.format_move(position, move))
        position = game.play(position, move)
    pv = f" pv {' '.join(moves)}" if moves else ""
    return (
        f"info depth {stats.depth} score {score} nodes {stats.generated} "
        f"nps {round(stats.nps)} time {round(stats.seconds * 1000)}{pv}"
    )


class Session:
    """The engine side of the protocol: one command line in, reply lines out."""

    def __init__(self, write: Callable[[str], None], backend: str | None = None) -> None:
        self._write = write
        self.backend = backend
        """The rules' backend (engine/backend.py); None: `UBAO_BACKEND`, else auto."""
        self._lock = threading.Lock()
        self.algorithm = DEFAULT_ALGORITHM
        self.evaluation: str | None = None
        self.hash_mb = DEFAULT_HASH_MB
        self.exact = False
        self.threads = 1
        self.game: Game[Any, Any] | None = None
        self.position: Any = None
        self.searcher: Searcher[Any, Any] | None = None
        """The engine of the current game, kept between searches for its tables."""
        self._settings: tuple[str, str | None, int, bool, int] | None = None
        """The (algorithm, evaluation, hash MB, exact, threads) the searcher was made with."""
        self._thread: threading.Thread | None = None
        self._control: SearchControl | None = None
        self._infinite = False
        """The running search only ends on `stop`."""
        self._stopped = threading.Event()
        """Set by `stop`: an infinite search that finished early waits for it."""
        self._answered = threading.Event()
        """Set as the search thread writes `bestmove`: the next `go` may start at once."""

    def say(self, line: str) -> None:
        with self._lock:
            self._write(line)

    @property
    def searching(self) -> bool:
        """A search is running and has not answered yet."""
        if self._thread is None or not self._thread.is_alive():
            return False
        if self._answered.is_set():
            self._thread.join()  # only returning from the thread is left
            return False
        return True

    def handle(self, line: str) -> bool:
        """Process one command line; False after `quit`."""
        words = line.split()
        if not words:
            return True
        command = words[0]
        try:
            if command == "quit":
                self.stop()
                return False
            handler = self._handlers.get(command)
            if handler is None:
                raise ProtocolError(f"unknown command {command!r}")
            handler(self, words[1:])
        except ProtocolError as error:
            self.say(f"error {error}")
        return True

    def stop(self) -> None:
        """End the running search; its `bestmove` is written before this returns."""
        self._stopped.set()
        if self._control is not None:
            self._control.stop()
        self.wait()

    def finish(self) -> None:
        """The end of input: let a bounded search answer, stop an infinite one."""
        if self._infinite:
            self.stop()
        self.wait()

    def wait(self) -> None:
        """Wait for the search thread to finish."""
        if self._thread is not None:
            self._thread.join()

    # -- commands ----------------------------------------------------------------------------

    def _uci(self, words: list[str]) -> None:
        self.say(f"id name {ENGINE_NAME}")
        choices = " ".join(f"var {name}" for name in ALGORITHMS)
        self.say(f"option name Algorithm type combo default {DEFAULT_ALGORITHM} {choices}")
        self.say("option name Eval type string default <empty>")
        self.say(f"option name Hash type spin default {DEFAULT_HASH_MB} min 0 max {MAX_HASH_MB}")
        self.say("option name Exact type check default false")
        self.say(f"option name Threads type spin default 1 min 1 max {MAX_THREADS}")
        self.say("uciok")

    def _isready(self, words: list[str]) -> None:
        self.say("readyok")

    def _setoption(self, words: list[str]) -> None:
        if len(words) < 3 or words[0] != "name" or "value" not in words[2:]:
            raise ProtocolError("setoption name NAME value VALUE")
        split = words.index("value", 2)
        name, value = " ".join(words[1:split]), " ".join(words[split + 1 :])
        if name == "Algorithm":
            if value not in ALGORITHMS:
                raise ProtocolError(f"Algorithm must be one of {', '.join(ALGORITHMS)}")
            self.algorithm = value
        elif name == "Eval" and value in ("", "<empty>"):
            self.evaluation = None  # the game's first
        elif name == "Eval":
            if self.game is not None and value not in self.game.evaluations:
                known = ", ".join(self.game.evaluations)
                raise ProtocolError(f"{self.game.name} has no evaluation {value!r}; known: {known}")
            self.evaluation = value
        elif name == "Hash":
            if not value.isdigit() or int(value) > MAX_HASH_MB:
                raise ProtocolError(f"Hash must be an integer from 0 to {MAX_HASH_MB} (MB)")
            self.hash_mb = int(value)
        elif name == "Exact":
            if value not in ("true", "false"):
                raise ProtocolError("Exact must be true or false")
            self.exact = value == "true"
        elif name == "Threads":
            if not value.isdigit() or not 1 <= int(value) <= MAX_THREADS:
                raise ProtocolError(f"Threads must be an integer from 1 to {MAX_THREADS}")
            self.threads = int(value)
        else:
            raise ProtocolError(
                f"unknown option {name!r}; known: Algorithm, Eval, Hash, Exact, Threads"
            )

    def _ucinewgame(self, words: list[str]) -> None:
        self._require_idle("ucinewgame")
        self.searcher = None

    def _position(self, words: list[str]) -> None:
        if len(words) < 3:
            raise ProtocolError("position GAME OPTIONS startpos|POS [moves M1 M2 ...]")
        name, options_text = words[0], words[1]
        if name not in GAMES:
            raise ProtocolError(f"unknown game {name!r}; known: {', '.join(GAMES)}")
        try:
            options = json.loads(options_text)
        except json.JSONDecodeError as error:
            raise ProtocolError(f"OPTIONS is not JSON without spaces: {error}") from None
        if not isinstance(options, dict):
            raise ProtocolError('OPTIONS must be a JSON object, e.g. {} or {"pits":6}')
        rest = words[2:]
        moves: list[str] = []
        if "moves" in rest:
            split = rest.index("moves")
            rest, moves = rest[:split], rest[split + 1 :]
        try:
            if rest == ["startpos"]:
                game = make_game(name, options, self.backend)
                position = game.start()
            elif rest:
                game, position = game_for_position(name, options, " ".join(rest), self.backend)
            else:
                raise ProtocolError("position needs startpos or a position")
        except GameError as error:
            raise ProtocolError(str(error)) from None
        for number, text in enumerate(moves, 1):
            try:
                position = game.play(position, game.parse_move(position, text))
            except GameError as error:
                raise ProtocolError(f"move {number} ({text}): {error}") from None
        if self.evaluation is not None and self.evaluation not in game.evaluations:
            self.say(
                f"error {game.name} has no evaluation {self.evaluation!r}; using "
                f"{next(iter(game.evaluations))}"
            )
            self.evaluation = None
        if self.game is None or (game.name, dict(game.options)) != (
            self.game.name,
            dict(self.game.options),
        ):
            self.searcher = None  # the tables belong to the old game
        self.game, self.position = game, position

    def _go(self, words: list[str]) -> None:
        self._require_idle("go")
        if self.game is None:
            raise ProtocolError("go: no position yet; send position first")
        go = parse_go(words)
        game, position = self.game, self.position
        settings = (self.algorithm, self.evaluation, self.hash_mb, self.exact, self.threads)
        if self.searcher is None or self._settings != settings:
            try:
                self.searcher = Searcher(game, *settings)
            except ValueError as error:
                raise ProtocolError(str(error)) from None
            self._settings = settings
            if self.searcher.threads_note is not None:
                self.say(f"info string {self.searcher.threads_note}")
        searcher = self.searcher
        legal = game.legal_moves(position)
        if not legal:
            self.say("bestmove none")
            return
        hard, soft = time_budget(go, game.to_move(position))
        self._stopped.clear()
        self._answered.clear()
        self._infinite = go.infinite or (go.depth is None and hard is None)
        self._control = control = SearchControl()
        self._thread = threading.Thread(
            target=self._think,
            args=(searcher, position, legal[0], go, hard, soft, control),
            name="search",
            daemon=True,
        )
        self._thread.start()

    def _stop(self, words: list[str]) -> None:
        self.stop()

    def _require_idle(self, command: str) -> None:
        if self.searching:
            raise ProtocolError(f"{command}: a search is running; send stop first")

    def _think(
        self,
        searcher: Searcher[Any, Any],
        position: Any,
        move: Any,
        go: Go,
        hard: float | None,
        soft: float | None,
        control: SearchControl,
    ) -> None:
        """The search thread: info after every iteration, then exactly one bestmove.

        `move` is the fallback, a legal move. A search that fails still answers (`error`, then
        the best move of its last completed iteration, or the fallback): an engine bug must not
        cost a driver the game.
        """
        game = searcher.game

        def report(result: SearchResult[Any]) -> None:
            nonlocal move
            move = result.move
            self.say(format_info(game, position, result))

        try:
            move = searcher.search(
                position, go.depth, hard, soft_time_ms=soft, control=control, on_iteration=report
            ).move
        except Exception as error:
            self.say(f"error the search failed: {error!r}")
        if go.infinite:
            self._stopped.wait()  # `go infinite` answers only after `stop`
        self._answered.set()
        self.say(f"bestmove {game.format_move(position, move)}")

    _handlers: ClassVar[dict[str, Callable[[Session, list[str]], None]]] = {
        "uci": _uci,
        "isready": _isready,
        "setoption": _setoption,
        "ucinewgame": _ucinewgame,
        "position": _position,
        "go": _go,
        "stop": _stop,
    }


def serve(lines: Iterable[str], out: TextIO) -> None:
    """Run a session over `lines` until `quit` or the end of input."""

    def write(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    session = Session(write)
    for line in lines:
        if not session.handle(line):
            return
    session.finish()


def main() -> None:
    serve(sys.stdin, sys.stdout)
