"""The stdio engine's side of the protocol: `EngineSession`, one command line in, reply lines out.

docs/engine-protocol.md is the specification. The session is the protocol's state machine: it
takes one command line at a time and writes reply lines through a callback, so it is tested
without pipes and runs in process (`SessionTransport`, the cluster's workers). The search runs
in a thread, so `stop` and `isready` are answered while it thinks; `ubao-engine stdio`
(engine/tools/stdio.py) only moves lines between the pipes and a session.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from ubao.engine.backend import BACKENDS, backend_of, chosen, resolve_backend
from ubao.engine.game import GameError
from ubao.engine.games import GAMES, game_for_position, make_game
from ubao.engine.othello_book import BookError, BookMove, shipped_book
from ubao.engine.protocols.dialect import EnginePosition
from ubao.engine.protocols.display import display
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.results import Info
from ubao.engine.protocols.timing import MOVE_OVERHEAD_MS, time_budget
from ubao.engine.protocols.ubao import (
    EngineProtocolError,
    decimal,
    format_info,
    parse_go,
    parse_position,
    parse_setoption,
)
from ubao.engine.search import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    DEFAULT_HASH_MB,
    MAX_SEARCH_DEPTH,
    MAX_THREADS,
    SearchControl,
    Searcher,
    SearchResult,
    mate_distance,
)
from ubao.engine.searchable import Searchable

ENGINE_NAME = "ubao-engine"
ENGINE_AUTHOR = "the ubao developers"
OPTIONS = (
    "Algorithm",
    "Eval",
    "Hash",
    "Exact",
    "ProbCut",
    "Threads",
    "Backend",
    "Ponder",
    "Move Overhead",
    "MultiPV",
    "Book",
)
"""Every option of `setoption`, as `uci` lists them (their names match in any case, as UCI's)."""
MAX_HASH_MB = 4096
"""The largest table `setoption name Hash` accepts, in MB; every command's `--hash` and
`match`'s `hash=` share this cap."""
MAX_MOVE_OVERHEAD_MS = 5000
MAX_MULTIPV = 256
"""The most root lines `setoption name MultiPV` asks for (more than any position has moves)."""


def search_plies(limits: Limits) -> int | None:
    """The depth limit: `depth`, or `mate`'s 2N-1 plies, whichever is smaller."""
    if limits.mate is None:
        return limits.depth
    plies = min(2 * limits.mate - 1, MAX_SEARCH_DEPTH)
    return plies if limits.depth is None else min(limits.depth, plies)


def mate_plies(limits: Limits) -> int | None:
    """`mate` N as the plies a win must end within: 2N-1."""
    return None if limits.mate is None else 2 * limits.mate - 1


def check_value(option: str, value: str) -> bool:
    """A `type check` option's value, `true` or `false` in any case."""
    if value.lower() not in ("true", "false"):
        raise EngineProtocolError(f"{option} must be true or false")
    return value.lower() == "true"


def search_report(game: Searchable[Any, Any], position: Any, result: SearchResult[Any]) -> Info:
    """The report of a completed iteration."""
    stats = result.stats
    distance = mate_distance(result.score)
    moves = []
    for move in result.pv:
        moves.append(game.format_move(position, move))
        position = game.play(position, move)
    return Info(
        depth=stats.depth,
        score=None if distance is not None else round(result.score),
        mate=distance,
        nodes=stats.generated,
        nps=round(stats.nps),
        time_ms=round(stats.seconds * 1000),
        pv=tuple(moves),
    )


def read_position(words: list[str], backend: str | None) -> tuple[Searchable[Any, Any], Any]:
    """The game and position of `position`'s words, its moves played by the rules."""
    if len(words) >= 3 and words[0] not in GAMES:
        raise EngineProtocolError(f"unknown game {words[0]!r}; known: {', '.join(GAMES)}")
    name, options, start, moves = parse_position(words)
    try:
        if start == "startpos":
            game = make_game(name, options, backend)
            position = game.start()
        else:
            game, position = game_for_position(name, options, start, backend)
    except GameError as error:
        raise EngineProtocolError(str(error)) from None
    for number, text in enumerate(moves, 1):
        try:
            position = game.play(position, game.parse_move(position, text))
        except GameError as error:
            raise EngineProtocolError(f"move {number} ({text}): {error}") from None
    return game, position


def read_search(
    setup: Sequence[str], go: str, backend: str | None = None
) -> tuple[EnginePosition, Limits, dict[str, str]]:
    """A search given as the lines that set it up and its `go` (a cluster job's, made by
    `ubao.search_lines`): its position, checked by the rules, its limits and the options set
    (the last value of each); EngineProtocolError says what the engine would refuse."""
    options: dict[str, str] = {}
    found: EnginePosition | None = None
    for line in setup:
        command, *words = line.split()
        if command == "setoption":
            name, value = parse_setoption(words)
            options[name] = value
        elif command == "position":
            game, position = read_position(words, backend)
            _, game_options, start, moves = parse_position(words)
            found = EnginePosition(game.name, game_options, start, moves, game.to_move(position))
        else:
            raise EngineProtocolError(f"{command!r} does not set up a search")
    if found is None:
        raise EngineProtocolError("no position to search")
    command, *words = go.split() or [""]
    if command != "go":
        raise EngineProtocolError(f"{go!r} is not a go line")
    return found, parse_go(words), options


class EngineSession:
    """The engine side of the protocol: one command line in, reply lines out."""

    def __init__(
        self,
        write: Callable[[str], None],
        backend: str | None = None,
        book_seed: int | None = None,
    ) -> None:
        self._write = write
        self.backend = backend
        """The rules' backend (engine/backend.py); None: `UBAO_BACKEND`, else auto."""
        self.default_backend = chosen(backend)
        """The `Backend` option's default, which `uci` shows: the backend the engine began with."""
        self._lock = threading.Lock()
        self.algorithm = DEFAULT_ALGORITHM
        self.evaluation: str | None = None
        self.hash_mb = DEFAULT_HASH_MB
        self.exact = False
        self.threads = 1
        self.selective = True
        """Multi-ProbCut where the game has it (`setoption name ProbCut value false`: none)."""
        self.overhead_ms = MOVE_OVERHEAD_MS
        self.multipv = 1
        """How many best root lines a search reports (`setoption name MultiPV`, as in UCI)."""
        self.book = True
        """Play 8x8 Othello's opening book while the position is in it (`setoption name Book`)."""
        self._book_chooser = random.Random(book_seed)
        """Draws among the book's near-best moves; unseeded, games from the start vary."""
        self.debug = False
        """`debug on`: a line on each search's limits before it and on its work after it."""
        self.game: Searchable[Any, Any] | None = None
        self.position: Any = None
        self.searcher: Searcher[Any, Any] | None = None
        """The engine of the current game, kept between searches for its tables."""
        self._settings: tuple[str, str | None, int, bool, int, bool] | None = None
        """The (algorithm, evaluation, hash MB, exact, threads, ProbCut) the searcher was made
        with."""
        self._thread: threading.Thread | None = None
        self._control: SearchControl | None = None
        self._infinite = False
        """The running search only ends on `stop` (or `ponderhit`, while pondering)."""
        self._pondering = False
        """The running search is a `go ponder` that has had no `ponderhit` nor `stop` yet."""
        self._limits: Limits | None = None
        """The limits of the running search."""
        self._mover = 0
        """The player to move in the position of the running search (whose clock counts)."""
        self._stopped = threading.Event()
        """Set by `stop`: an infinite search that finished early waits for it."""
        self._released = threading.Event()
        """Set by `ponderhit` and `stop`: a ponder search that finished early waits for it."""
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
                raise EngineProtocolError(f"unknown command {command!r}")
            handler(self, words[1:])
        except EngineProtocolError as error:
            self.say(f"error {error}")
        return True

    def stop(self) -> None:
        """End the running search; its `bestmove` is written before this returns."""
        self._stopped.set()
        self._pondering = False
        if self._control is not None:
            self._control.stop()
        self._released.set()  # after the stop: a ponder search must not miss it
        self.wait()

    def finish(self) -> None:
        """The end of input: let a bounded search answer, stop an infinite one (or a ponder)."""
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
        self.say(f"id author {ENGINE_AUTHOR}")
        choices = " ".join(f"var {name}" for name in ALGORITHMS)
        self.say(f"option name Algorithm type combo default {DEFAULT_ALGORITHM} {choices}")
        self.say("option name Eval type string default <empty>")
        self.say(f"option name Hash type spin default {DEFAULT_HASH_MB} min 0 max {MAX_HASH_MB}")
        self.say("option name Exact type check default false")
        self.say("option name ProbCut type check default true")
        self.say(f"option name Threads type spin default 1 min 1 max {MAX_THREADS}")
        backends = " ".join(f"var {name}" for name in BACKENDS)
        self.say(f"option name Backend type combo default {self.default_backend} {backends}")
        self.say("option name Ponder type check default false")
        self.say(
            f"option name Move Overhead type spin default {MOVE_OVERHEAD_MS} min 0 "
            f"max {MAX_MOVE_OVERHEAD_MS}"
        )
        self.say(f"option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}")
        self.say("option name Book type check default true")
        self.say("uciok")

    def _isready(self, words: list[str]) -> None:
        self.say("readyok")

    def _display(self, words: list[str]) -> None:
        """`d`, as Stockfish's: the current position for people (answered at once, even while
        a search runs)."""
        if self.game is None:
            raise EngineProtocolError("d: no position yet; send position first")
        for line in display(self.game, self.position):
            self.say(line)

    def _debug(self, words: list[str]) -> None:
        """As UCI engines take it: `debug` alone toggles, any other argument is ignored (UCI's
        `debug` never answers `error`)."""
        if not words:
            self.debug = not self.debug
        elif words[0] in ("on", "off"):
            self.debug = words[0] == "on"

    def _register(self, words: list[str]) -> None:
        """Accepted and ignored: the engine needs no registration."""

    def _setoption(self, words: list[str]) -> None:
        name, value = parse_setoption(words)
        option = {known.lower(): known for known in OPTIONS}.get(name.lower())
        if option == "Algorithm":
            if value.lower() not in ALGORITHMS:
                raise EngineProtocolError(f"Algorithm must be one of {', '.join(ALGORITHMS)}")
            self.algorithm = value.lower()
        elif option == "Eval" and value in ("", "<empty>"):
            self.evaluation = None  # the game's first
        elif option == "Eval":
            if self.game is not None and value not in self.game.evaluations:
                known = ", ".join(self.game.evaluations)
                raise EngineProtocolError(
                    f"{self.game.name} has no evaluation {value!r}; known: {known}"
                )
            self.evaluation = value
        elif option == "Hash":
            if not decimal(value) or int(value) > MAX_HASH_MB:
                raise EngineProtocolError(f"Hash must be an integer from 0 to {MAX_HASH_MB} (MB)")
            self.hash_mb = int(value)
        elif option == "Exact":
            self.exact = check_value(option, value)
        elif option == "ProbCut":
            self.selective = check_value(option, value)
        elif option == "Book":
            self.book = check_value(option, value)
        elif option == "Ponder":
            check_value(option, value)  # a GUI's leave to `go ponder`, which always works
        elif option == "Threads":
            if not decimal(value) or not 1 <= int(value) <= MAX_THREADS:
                raise EngineProtocolError(f"Threads must be an integer from 1 to {MAX_THREADS}")
            self.threads = int(value)
        elif option == "Backend":
            self._set_backend(value.lower())
        elif option == "MultiPV":
            if not decimal(value) or not 1 <= int(value) <= MAX_MULTIPV:
                raise EngineProtocolError(f"MultiPV must be an integer from 1 to {MAX_MULTIPV}")
            self.multipv = int(value)
        elif option == "Move Overhead":
            if not decimal(value) or int(value) > MAX_MOVE_OVERHEAD_MS:
                message = f"Move Overhead must be an integer from 0 to {MAX_MOVE_OVERHEAD_MS} (ms)"
                raise EngineProtocolError(message)
            self.overhead_ms = int(value)
        else:
            raise EngineProtocolError(f"unknown option {name!r}; known: {', '.join(OPTIONS)}")

    def _set_backend(self, backend: str) -> None:
        """The rules' backend from now on: the current game, if any, moves to it at once (its
        positions are the same values on either backend), so that an error comes now."""
        if backend not in BACKENDS:
            raise EngineProtocolError(f"Backend must be one of {', '.join(BACKENDS)}")
        try:
            resolve_backend(backend)
            game = (
                None if self.game is None else make_game(self.game.name, self.game.options, backend)
            )
        except GameError as error:
            raise EngineProtocolError(str(error)) from None
        self.backend = backend
        if game is not None and type(game) is not type(self.game):
            self.game = game
            self.searcher = None  # the searcher belongs to the old rules

    def _ucinewgame(self, words: list[str]) -> None:
        self._require_idle("ucinewgame")
        self.searcher = None

    def _position(self, words: list[str]) -> None:
        game, position = read_position(words, self.backend)
        if self.evaluation is not None and self.evaluation not in game.evaluations:
            self.say(
                f"error {game.name} has no evaluation {self.evaluation!r}; using "
                f"{next(iter(game.evaluations))}"
            )
            self.evaluation = None
        if self.game is None or (game.name, dict(game.options), type(game)) != (
            self.game.name,
            dict(self.game.options),
            type(self.game),
        ):
            self.searcher = None  # the tables belong to the old game
        self.game, self.position = game, position

    def _go(self, words: list[str]) -> None:
        self._require_idle("go")
        if self.game is None:
            raise EngineProtocolError("go: no position yet; send position first")
        go = parse_go(words)
        game, position = self.game, self.position
        root_moves = None
        if go.searchmoves:
            try:
                root_moves = [game.parse_move(position, text) for text in go.searchmoves]
            except GameError as error:
                raise EngineProtocolError(f"go: searchmoves: {error}") from None
        settings = (
            self.algorithm,
            self.evaluation,
            self.hash_mb,
            self.exact,
            self.threads,
            self.selective,
        )
        if self.searcher is None or self._settings != settings:
            try:
                self.searcher = Searcher(game, *settings)
            except ValueError as error:
                raise EngineProtocolError(str(error)) from None
            self._settings = settings
            if self.searcher.threads_note is not None:
                self.say(f"info string {self.searcher.threads_note}")
        searcher = self.searcher
        legal = game.legal_moves(position)
        if not legal and not (go.infinite or go.ponder):
            self.say("bestmove none")  # nothing to search, and the answer is due at once
            return
        booked = self._book_move(game, position, go)
        if booked is not None:
            self.say(f"info string book move {booked.move}, {booked.value:+.2f} discs")
            info = Info(depth=0, score=round(booked.value), nodes=0, time_ms=0, pv=(booked.move,))
            self.say(format_info(info))
            self.say(f"bestmove {booked.move}")
            return
        self._stopped.clear()
        self._released.clear()
        self._answered.clear()
        self._limits, self._mover = go, game.to_move(position)
        self._pondering = go.ponder
        self._infinite = go.ponder or self._unbounded(go)
        self._control = control = SearchControl()
        self._thread = threading.Thread(
            target=self._think,
            args=(searcher, position, legal[0] if legal else None, go, root_moves, control),
            name="search",
            daemon=True,
        )
        self._thread.start()

    def _book_move(self, game: Searchable[Any, Any], position: Any, go: Limits) -> BookMove | None:
        """The opening book's move, for a search that plays (not an analysis: no `infinite`,
        `ponder`, `mate`, `searchmoves`, MultiPV or Exact) in 8x8 Othello; None to search."""
        analysis = go.infinite or go.ponder or go.mate is not None or bool(go.searchmoves)
        if not self.book or analysis or self.exact or self.multipv > 1:
            return None
        if game.name != "othello" or game.options.get("size") != 8:
            return None
        try:
            return shipped_book().choose(game.format_position(position), self._book_chooser)
        except BookError as error:
            self.book = False
            self.say(f"info string no opening book: {error}")
            return None

    def _unbounded(self, go: Limits) -> bool:
        """Whether a search with these limits only ends on `stop`."""
        hard = time_budget(go, self._mover, self.overhead_ms).hard_ms
        return go.infinite or (search_plies(go) is None and hard is None and go.nodes is None)

    def _stop(self, words: list[str]) -> None:
        self.stop()

    def _ponderhit(self, words: list[str]) -> None:
        """The opponent played the move pondered on: search on as a normal `go` would."""
        if not self._pondering or self._limits is None:
            return  # no ponder search to turn into a normal one: nothing to do
        self._pondering = False
        self._infinite = self._unbounded(self._limits)
        if self._control is not None:
            self._control.stop()
        self._released.set()  # after the stop: the thread's next search has its own control

    def _require_idle(self, command: str) -> None:
        if self.searching:
            raise EngineProtocolError(f"{command}: a search is running; send stop first")

    def _think(
        self,
        searcher: Searcher[Any, Any],
        position: Any,
        move: Any | None,
        go: Limits,
        root_moves: list[Any] | None,
        control: SearchControl,
    ) -> None:
        """The search thread: info after every iteration, then exactly one bestmove.

        `move` is the fallback, a legal move (None: the game is over, and `bestmove none` comes
        when a search's would). A `go ponder` searches without limits until `ponderhit` or
        `stop`; after `ponderhit`, it searches again with the `go`'s limits from then on (the
        table keeps what pondering found, so the first iterations are quick).
        """
        game = searcher.game
        if move is None:
            if go.ponder:
                self._released.wait()
        elif go.ponder:
            pondering = Limits(infinite=True, searchmoves=go.searchmoves)
            move = self._search(searcher, position, move, pondering, root_moves, control)
            self._released.wait()
            if not self._stopped.is_set():  # ponderhit
                self._control = control = SearchControl()
                if self._stopped.is_set():  # a `stop` that came as the control changed
                    control.stop()
                move = self._search(searcher, position, move, go, root_moves, control)
        else:
            move = self._search(searcher, position, move, go, root_moves, control)
        if go.infinite:
            self._stopped.wait()  # `go infinite` answers only after `stop`
        self._answered.set()
        self.say(f"bestmove {'none' if move is None else game.format_move(position, move)}")

    def _search(
        self,
        searcher: Searcher[Any, Any],
        position: Any,
        move: Any,
        go: Limits,
        root_moves: list[Any] | None,
        control: SearchControl,
    ) -> Any:
        """One search with `go`'s limits, its budget from now; the move it found.

        A search that fails still answers (`error`, then the best move of its last completed
        iteration, or the fallback `move`): an engine bug must not cost a driver the game.
        """
        game = searcher.game
        started = time.monotonic()
        mover, moves_to_go = game.to_move(position), game.moves_to_go(position)
        budget = time_budget(go, mover, self.overhead_ms, moves_to_go)
        candidates = root_moves or game.legal_moves(position)
        lines = min(self.multipv, len(candidates))
        # Several lines share the time: the first gets its share, the others what is left.
        hard = None if budget.hard_ms is None else budget.hard_ms / max(1, lines)
        soft = None if budget.soft_ms is None else budget.soft_ms / max(1, lines)
        if self.debug:
            self.say(f"info string {describe_search(searcher, go, hard, soft)}")
        if lines > 1 and search_plies(go) is None and hard is None and go.nodes is None:
            return self._analyse(searcher, position, move, candidates, lines, root_moves, control)
        numbered = self.multipv > 1

        def report(result: SearchResult[Any]) -> None:
            nonlocal move
            move = result.move
            self.say(format_info(search_report(game, position, result), numbered))

        try:
            result = searcher.search(
                position,
                search_plies(go),
                hard,
                soft_time_ms=soft,
                control=control,
                on_iteration=report,
                nodes=go.nodes,
                mate=mate_plies(go),
                root_moves=root_moves,
            )
        except Exception as error:
            self.say(f"error the search failed: {error!r}")
            return move
        if result.stopped and result.move is not None and result.stats.depth:
            # As UCI engines do: a last `info` with the whole search's nodes and time, so that
            # a driver reading the last line knows what the move cost, not its last iteration.
            # Stopped before any iteration completed (`go movetime 0`), it has no score to say.
            self.say(format_info(search_report(game, position, result), numbered))
        if lines > 1 and result.move is not None and result.stats.depth and not control.stopped:
            deadline = None if budget.hard_ms is None else started + budget.hard_ms / 1000
            self._more_lines(searcher, position, go, candidates, result, lines, deadline)
        if self.debug:
            self.say(f"info string {describe_work(result)}")
        return result.move

    def _analyse(
        self,
        searcher: Searcher[Any, Any],
        position: Any,
        move: Any,
        candidates: list[Any],
        lines: int,
        root_moves: list[Any] | None,
        control: SearchControl,
    ) -> Any:
        """MultiPV under a search without limits (`go infinite`, pondering), as analysis GUIs
        use it: rounds of every line at one depth, one depth step deeper each round, until
        `stop` (or `ponderhit`), or until the first line's search met no horizon. The move is
        line 1's of the last round it completed, else the fallback `move`."""
        game = searcher.game
        exact_steps = searcher.exact or searcher.algorithm == "minimax"
        step = 1 if exact_steps else game.search_hints.deepening_step
        for depth in range(1, MAX_SEARCH_DEPTH + 1, step):
            excluded: list[Any] = []
            for number in range(1, lines + 1):
                rest = [candidate for candidate in candidates if candidate not in excluded]
                try:
                    line = searcher.search(
                        position,
                        depth,
                        control=control,
                        root_moves=root_moves if number == 1 else rest,
                    )
                except Exception as error:
                    self.say(f"error the search failed: {error!r}")
                    return move
                if line.stopped or line.move is None:
                    return move
                if number == 1:
                    move, exhausted = line.move, line.stats.depth < depth
                info = replace(search_report(game, position, line), multipv=number)
                self.say(format_info(info, multipv=True))
                excluded.append(line.move)
            if exhausted:
                break
        return move

    def _more_lines(
        self,
        searcher: Searcher[Any, Any],
        position: Any,
        go: Limits,
        candidates: list[Any],
        best: SearchResult[Any],
        lines: int,
        deadline: float | None,
    ) -> None:
        """MultiPV's lines after the first: each the best of the root moves the lines before
        it left out, searched to the depth the first one reached (the `searchmoves`
        machinery), before `deadline` (monotonic seconds). A line cut short by the time, its
        node limit or `stop` is not reported, nor any after it."""
        game = searcher.game
        excluded = [best.move]
        for number in range(2, lines + 1):
            rest = [move for move in candidates if move not in excluded]
            left = None if deadline is None else (deadline - time.monotonic()) * 1000
            if self._stopped.is_set() or (left is not None and left <= 0):
                return
            self._control = control = SearchControl()
            if self._stopped.is_set():  # a `stop` that came as the control changed
                return
            try:
                line = searcher.search(
                    position,
                    best.stats.depth,
                    left,
                    control=control,
                    nodes=go.nodes,
                    root_moves=rest,
                )
            except Exception as error:
                self.say(f"error the search of line {number} failed: {error!r}")
                return
            if line.stopped or line.move is None or line.stats.depth < best.stats.depth:
                return
            info = replace(search_report(game, position, line), multipv=number)
            self.say(format_info(info, multipv=True))
            excluded.append(line.move)

    _handlers: ClassVar[dict[str, Callable[[EngineSession, list[str]], None]]] = {
        "uci": _uci,
        "isready": _isready,
        "d": _display,
        "debug": _debug,
        "register": _register,
        "setoption": _setoption,
        "ucinewgame": _ucinewgame,
        "position": _position,
        "go": _go,
        "stop": _stop,
        "ponderhit": _ponderhit,
    }


def describe_search(
    searcher: Searcher[Any, Any], go: Limits, hard: float | None, soft: float | None
) -> str:
    """`debug on`'s line before a search: its limits and the engine that runs it."""
    limits = [
        f"{name} {value}"
        for name, value in (("depth", search_plies(go)), ("nodes", go.nodes), ("mate", go.mate))
        if value is not None
    ]
    if hard is not None:
        limits.append(f"deadline {round(hard)} ms")
    if soft is not None:
        limits.append(f"planned {round(soft)} ms")
    if go.searchmoves:
        limits.append(f"searchmoves {' '.join(go.searchmoves)}")
    mode = "exact" if searcher.exact else "strength"
    return (
        f"search: {', '.join(limits) or 'until stop'}; {searcher.algorithm}, "
        f"{searcher.evaluation_name}, {mode} mode, {searcher.threads} thread(s), "
        f"{backend_of(searcher.game)} backend"
    )


def describe_work(result: SearchResult[Any]) -> str:
    """`debug on`'s line after a search: what it did."""
    stats = result.stats
    return (
        f"searched: depth {stats.depth}{' (stopped)' if result.stopped else ''}, "
        f"{stats.generated} nodes, {stats.expanded} expanded, {stats.evaluated} evaluated, "
        f"{stats.cutoffs} cut-offs, {stats.table_hits} table hits, "
        f"{stats.table_entries} table entries, {stats.seconds * 1000:.0f} ms"
    )
