"""The driver: `Searcher`, one engine kept between searches, and iterative deepening over a
tree walk (the Python node functions of `tree`, or the native core's search)."""

from __future__ import annotations

import sys
import time
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from math import floor, inf, log2
from typing import TYPE_CHECKING, Any, Generic, cast

from ubao.engine.backend import NativeRules
from ubao.engine.game import M, P, shown
from ubao.engine.othello_endgame import MOST, OthelloEndgame, endgame_for
from ubao.engine.search.control import (
    MAX_NODES,
    MAX_SEARCH_DEPTH,
    MAX_THREADS,
    SearchAborted,
    SearchControl,
)
from ubao.engine.search.scores import (
    MATE,
    PLY_SPAN,
    final_score,
    forced_result,
    mate_distance,
)
from ubao.engine.search.table import DEFAULT_HASH_MB, TranspositionTable
from ubao.engine.search.trace import Tracer
from ubao.engine.search.tree import NativeTree, PythonTree
from ubao.engine.searchable import Evaluation, ProbCut, Searchable

if TYPE_CHECKING:
    from ubao.engine._native import Search
    from ubao.engine.othello.game import Position as OthelloPosition

ALGORITHMS = ("minimax", "alphabeta", "negamax")
"""Every search algorithm by name."""
DEFAULT_ALGORITHM = "negamax"

RESULT_SHARE = 0.75
"""Who wins matters more than the margin, and more than the usual search's guess."""
RESULT_BASE = 24
RESULT_BASE_SECONDS = 0.4
"""Who wins at `RESULT_BASE` empty squares takes the native solver about this long (the median
of positions from 1 s games against Zebra, on the shared 2-core machine), and about twice as
long for each square more."""
RESULT_REACH = 30
"""The most empty squares at which a timed search seeks who wins, whatever its time."""
ENDGAME_REACH = 24
"""The most empty squares at which a timed 8x8 Othello search, who wins known, seeks the
margin too (with half the time left)."""
UNTIMED_ENDGAME_REACH = 20
"""The same for a search with neither time nor depth limit (seconds on the native solver)."""


@dataclass(frozen=True, slots=True)
class SearchStats:
    """What one search did; the counters add up every iteration."""

    generated: int
    """Positions created by move generation (children are made one at a time, so a cut-off
    leaves the rest unmade)."""
    expanded: int
    """Positions whose moves were generated."""
    evaluated: int
    """Positions scored by the static evaluation (the leaves at the horizon)."""
    cutoffs: int
    """Nodes left before their last move because a move refuted the window (prunes)."""
    table_hits: int
    """Nodes answered by the transposition table without a search."""
    depth: int
    """The deepest iteration completed."""
    seconds: float
    table_entries: int
    """Transposition-table entries after the search (ENTRY_BYTES each)."""
    peak_memory: int | None = None
    """Peak bytes allocated during the search (tracemalloc; only when asked, it is slow)."""
    threads: int = 1
    """Threads that searched; the counters add up every thread's nodes."""

    @property
    def nps(self) -> float:
        """Generated nodes per second."""
        return self.generated / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "generated": self.generated,
            "expanded": self.expanded,
            "evaluated": self.evaluated,
            "cutoffs": self.cutoffs,
            "table_hits": self.table_hits,
            "depth": self.depth,
            "seconds": self.seconds,
            "nps": round(self.nps),
            "table_entries": self.table_entries,
            "peak_memory": self.peak_memory,
            "threads": self.threads,
        }


@dataclass(frozen=True, slots=True)
class SearchResult(Generic[M]):
    """What a search found: the move to play, its score and the principal variation."""

    move: M | None
    """The best move found, always legal; None only when the game is over."""
    score: float
    """From the side to move's point of view; beyond ±MATE_BOUND a forced result."""
    pv: tuple[M, ...]
    """The principal variation, starting with `move`."""
    stats: SearchStats
    stopped: bool
    """The deadline or `stop` ended the search before the depth it was given."""
    proved: bool = False
    """The score is the exact value: the last iteration met no horizon (every line ended the
    game), or the endgame solver gave it. A forced result not proved is a bound: a win or loss
    by at least its margin."""

    @property
    def mate(self) -> int | None:
        """Plies to a forced end of the game (negative when losing), None if not forced."""
        return mate_distance(self.score)

    @property
    def margin(self) -> int | None:
        """The final margin of a forced result (negative when losing), None if not forced."""
        forced = forced_result(self.score)
        return None if forced is None else forced[1]


def pick_evaluation(game: Searchable[Any, Any], name: str | None) -> tuple[str, Evaluation]:
    """The evaluation `name` of `game` (its first when None); ValueError lists the names."""
    evaluations: Mapping[str, Evaluation] = game.evaluations
    if name is None:
        name = next(iter(evaluations))
    try:
        return name, evaluations[name]
    except KeyError:
        raise ValueError(
            f"{game.name} has no evaluation {name!r}; known: {', '.join(evaluations)}"
        ) from None


def _check_count(value: Any, what: str, most: int | None = None) -> None:
    """A whole-number limit of `Searcher.search`, unless None: an int (a bool, which Python
    counts as one, is a mistake here) from 1 to `most`. Checked up front, as the two backends
    would each fail their own way (or not at all) deep in the search."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {shown(value)}")
    if value < 1 or (most is not None and value > most):
        limits = "1 or more" if most is None else f"from 1 to {most}"
        raise ValueError(f"{what} must be {limits}, not {shown(value)}")


def _check_milliseconds(value: Any, what: str) -> None:
    """A time limit of `Searcher.search`, unless None: an int or float (not a bool) of 0 ms or
    more (0: move at once, with the first legal move, as `go movetime 0` asks); a NaN, which
    compares false with every clock reading, would never end the search."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} must be a number of milliseconds, not {shown(value)}")
    if not value >= 0:
        raise ValueError(f"{what} must be 0 ms or more, not {shown(value)}")
    if isinstance(value, int) and value > sys.float_info.max:  # the clock could not add it
        raise ValueError(f"{what} is more milliseconds than a float holds: {shown(value)}")


class Searcher(Generic[P, M]):
    """One engine: a game, an algorithm, an evaluation and a mode, with a table kept between
    searches, so that a bot's next search starts from what its last one learnt.

    `threads` above 1 runs the native negamax of the strength mode on that many threads sharing
    its table (ABDADA); everything else searches on one (`threads_note` says why).

    `selective` lets the strength mode's negamax prune by multi-ProbCut where the game has
    checks fitted for the evaluation (`Searchable.probcut`; 8x8 Othello), in searches deeper
    than the checks' `full_width` or with no depth asked (`cuts`); the exact mode and the other
    algorithms always search full width."""

    def __init__(
        self,
        game: Searchable[P, M],
        algorithm: str = DEFAULT_ALGORITHM,
        evaluation: str | None = None,
        hash_mb: float = DEFAULT_HASH_MB,
        exact: bool = False,
        threads: int = 1,
        selective: bool = True,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be from 1 to {MAX_THREADS}")
        self.game = game
        self.algorithm = algorithm
        self.evaluation_name, self.evaluation = pick_evaluation(game, evaluation)
        self.exact = exact
        """The exact mode: table scores only of the very depth, ties at the root to the game's
        first move, so that every algorithm returns the same value at the same depth."""
        self.hash_mb = hash_mb
        self.probcut: ProbCut | None = None
        """Multi-ProbCut's checks (None: every search is full width)."""
        if selective and not exact and algorithm == "negamax":
            self.probcut = game.probcut(self.evaluation_name)
        self.table = TranspositionTable(hash_mb)
        self.control = SearchControl()
        self.native: Search | None = None
        """The same search in the native core, with its own table, where the game's backend
        has one; it then runs every untraced search."""
        if isinstance(game, NativeRules):
            self.native = game.search_core(algorithm, self.evaluation_name, hash_mb, exact)
        self._native_cuts: ProbCut | None = None
        """The checks the native core holds (set for a search that cuts, cleared for one that
        does not)."""
        self.threads_asked = threads
        self.threads = 1
        """Threads an untraced search runs."""
        self.endgame: OthelloEndgame | None = None
        """The exact endgame solver of 8x8 Othello on the native core, made when first
        needed (never in the exact mode, which searches node for node as documented)."""
        self._endgame_known = exact
        if self.native is not None and threads > 1 and not exact:
            self.threads = self.native.set_threads(threads)

    def cuts(self, depth: int | None) -> ProbCut | None:
        """The checks a search to `depth` (None: none asked, as on a clock) applies: none when
        it asks for `full_width` plies or fewer, so that a small depth is searched full width,
        as asked (Edax's levels 1 to 10 search so)."""
        probcut = self.probcut
        if probcut is None or (depth is not None and depth <= probcut.full_width):
            return None
        return probcut

    @property
    def threads_note(self) -> str | None:
        """One line saying why fewer threads search than were asked, or None."""
        if self.threads == self.threads_asked:
            return None
        if self.exact:
            why = "the exact mode searches on one thread, node for node as documented"
        elif self.native is None:
            why = "the Python search runs on one thread (threads need the native core's negamax)"
        elif self.algorithm != "negamax":
            why = f"{self.algorithm} searches on one thread (threads run negamax)"
        else:
            why = "this build of the native core runs no more"
        return f"threads: {self.threads} of {self.threads_asked} asked: {why}"

    def clear(self) -> None:
        """Forget everything learnt (a new game)."""
        self.table.clear()
        if self.native is not None:
            self.native.clear()
        if self.endgame is not None:
            self.endgame.core.clear()

    def stop(self) -> None:
        """Make the running search return now with the best move of its last iteration, or a
        move that beat it in the iteration under way."""
        self.control.stop()

    def search(
        self,
        position: P,
        depth: int | None = None,
        time_ms: float | None = None,
        *,
        soft_time_ms: float | None = None,
        control: SearchControl | None = None,
        on_iteration: Callable[[SearchResult[M]], None] | None = None,
        tracer: Tracer | None = None,
        measure_memory: bool = False,
        nodes: int | None = None,
        mate: int | None = None,
        root_moves: Sequence[M] | None = None,
    ) -> SearchResult[M]:
        """Search `position` by iterative deepening to `depth` plies and/or for `time_ms`.

        `time_ms` aborts the iteration under way; `soft_time_ms` only keeps a new one from
        starting (a clock budget); `nodes` aborts the search once it has generated that many
        positions; `mate` ends it after an iteration that proves a win within `mate` plies.
        With no depth, time or node limit the search runs until `stop`. `root_moves` (legal
        moves of `position`) are the only moves searched at the root. A `control` made
        beforehand can stop the search even before it starts. `on_iteration` receives the
        result of every completed iteration.
        """
        _check_count(depth, "the depth", MAX_SEARCH_DEPTH)
        _check_count(nodes, "the node limit", MAX_NODES)
        _check_count(mate, "the mate distance in plies")
        _check_milliseconds(time_ms, "time_ms")
        _check_milliseconds(soft_time_ms, "soft_time_ms")
        allowed = None
        if root_moves is not None:
            allowed = frozenset(root_moves)
            legal = self.game.legal_moves(position)
            if not allowed or not allowed <= set(legal):
                raise ValueError("the root moves must be legal moves of the position, one or more")
        start = time.perf_counter()
        self.control = control = control if control is not None else SearchControl()
        if time_ms is not None:
            control.deadline = min(control.deadline, start + time_ms / 1000)
        soft_deadline = inf if soft_time_ms is None else start + soft_time_ms / 1000
        self.table.next_search()

        def deepen() -> SearchResult[M]:
            return self._deepen(
                position, depth, start, soft_deadline, on_iteration, tracer, nodes, mate, allowed
            )

        if not measure_memory or self._native_runs(tracer):
            return deepen()  # tracemalloc sees no C memory: a native search's peak is not known
        started_tracing = not tracemalloc.is_tracing()
        if started_tracing:
            tracemalloc.start()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        try:
            result = deepen()
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            if started_tracing:
                tracemalloc.stop()
        return replace(result, stats=replace(result.stats, peak_memory=peak))

    def _native_runs(self, tracer: Tracer | None) -> bool:
        """Whether the native core runs the search: it has the game, and no trace asks for the
        Python search."""
        return self.native is not None and tracer is None

    def _deepen(
        self,
        position: P,
        depth: int | None,
        start: float,
        soft_deadline: float,
        on_iteration: Callable[[SearchResult[M]], None] | None,
        tracer: Tracer | None,
        nodes: int | None,
        mate: int | None,
        allowed: frozenset[M] | None,
    ) -> SearchResult[M]:
        """Iterative deepening: each iteration orders the next one's moves through the table,
        the last at the depth asked and each `search_hints.deepening_step` plies below the next.

        A forced result does not end it: a deeper iteration may find a larger margin. It ends
        when an iteration met no horizon (every line ended the game, or in a proven entry:
        the value is exact), or proved a win within `mate` plies, or, under a time limit, after
        one iteration when the root has a single move (a search without one, `go infinite` or
        pondering, goes on until its node limit or `stop`).
        """
        game = self.game
        cuts = self.cuts(depth)
        tree: PythonTree | NativeTree
        if self.native is not None and self._native_runs(tracer):
            if cuts is not self._native_cuts:
                self.native.set_probcut(*((cuts.stages, cuts.checks) if cuts else (None, None)))
                self._native_cuts = cuts
            tree = NativeTree(self.native, self.control, self.threads, nodes, allowed)
        else:
            tree = PythonTree(self, tracer, nodes, allowed, cuts)
        moves = game.search_moves(position)
        if allowed is not None:
            moves = [move for move in moves if move in allowed]
        if not moves:
            outcome = game.outcome(position)
            score = final_score(outcome, game.to_move(position), 0) if outcome else 0.0
            return self._result(tree, score, (), 0, start, False, outcome is not None)
        if depth is None and tracer is None and nodes is None and allowed is None:
            solved = self._solve(position, soft_deadline)
            if solved is not None:
                if on_iteration is not None:
                    on_iteration(solved)
                return solved
        # Plain minimax gains nothing from shallower iterations; it only needs them when a time
        # or node limit may end the search first (the depth is then a cap), for a real result.
        timed = soft_deadline < inf or self.control.deadline < inf
        limited = timed or nodes is not None
        plain = self.algorithm == "minimax" and depth is not None and tracer is None and not limited
        last_depth = depth if depth is not None else MAX_SEARCH_DEPTH
        # Every depth in the exact mode, and for minimax, whose iterations order nothing.
        step = 1 if self.exact or self.algorithm == "minimax" else game.search_hints.deepening_step
        first_depth = last_depth if plain else (last_depth - 1) % step + 1
        best: SearchResult[M] | None = None
        for iteration in range(first_depth, last_depth + 1, step):
            tree.root_move = best.move if best is not None else None
            try:
                score = tree.run(position, iteration)
            except SearchAborted:
                done = best.stats.depth if best is not None else 0
                if best is None or tree.root_best not in (None, best.move):
                    # The last best move was searched first; a move that beat it at the new
                    # depth is the better guess, with its score at that depth: exact, or the
                    # bound its null window proved when time ran out in its re-search.
                    move = tree.root_best if tree.root_best is not None else moves[0]
                    return self._result(tree, tree.root_score, (move,), done, start, True)
                return self._result(tree, best.score, best.pv, done, start, True)
            # The exact mode keeps no FINAL_DEPTH entry: an iteration evaluating no leaf ends it.
            proved = tree.exhausted or (self.exact and tree.leafless)
            best = self._result(
                tree,
                score,
                tree.principal_variation(position, iteration),
                iteration,
                start,
                False,
                proved,
            )
            if on_iteration is not None:
                on_iteration(best)
            if proved or (len(moves) == 1 and timed):
                break  # every line ended the game within the horizon, or the only move on a clock
            if mate is not None and best.mate is not None and 0 < best.mate <= mate:
                break  # the win asked for is proven
            if time.perf_counter() >= soft_deadline:
                break
        assert best is not None
        return best

    def _solve(self, position: P, soft_deadline: float) -> SearchResult[M] | None:
        """The result of an 8x8 Othello position within the endgame solver's reach, for a
        search with no depth asked (a depth keeps the search node for node the Python one's),
        or None: out of reach, lost with the margin not found (the usual search then plays for
        the opponent's mistakes), or the solver ran out of time.

        With no limit, the margin up to `UNTIMED_ENDGAME_REACH` empties. On a clock, as Edax
        and Zebra play, who wins first (within `result_reach` of its time), then up to
        `ENDGAME_REACH` empties the margin (half the rest); a win whose margin was not found is
        played by a move that keeps it, its score a bound."""
        game = self.game
        if not self._endgame_known:
            self._endgame_known = True
            self.endgame = endgame_for(game, min(self.hash_mb, DEFAULT_HASH_MB))
        endgame = self.endgame
        if endgame is None:
            return None
        board = cast("OthelloPosition", position)
        empties = 64 - (board.black | board.white).bit_count()
        start = time.perf_counter()
        end = min(self.control.deadline, soft_deadline)
        if empties > (UNTIMED_ENDGAME_REACH if end == inf else result_reach(end - start)):
            return None
        nodes_before = endgame.nodes()
        previous, self.control.on_stop = self.control.on_stop, endgame.stop
        try:
            if end == inf:
                found: int | tuple[int, int] | None = endgame.margin(board)
            else:
                found = self._on_clock(endgame, board, empties, end)
        finally:
            self.control.on_stop = previous
        if found is None:
            return None
        if isinstance(found, int):
            line = endgame.line(board, found)
            final = board
            for move in line:
                final = endgame.game.play(final, move)
            outcome = endgame.game.outcome(final)
            assert outcome is not None
            score = final_score(outcome, game.to_move(position), len(line))
            pv, depth, proved = cast(tuple[M, ...], line), len(line), True
        else:
            bound, move = found
            score = MATE + PLY_SPAN * bound - empties  # a win by at least `bound`
            pv, depth, proved = (cast(M, move),), empties, False
        searched = endgame.nodes() - nodes_before
        stats = SearchStats(
            generated=searched,
            expanded=searched,
            evaluated=0,
            cutoffs=0,
            table_hits=0,
            depth=depth,
            seconds=time.perf_counter() - start,
            table_entries=0,
        )
        return SearchResult(pv[0], float(score), pv, stats, False, proved)

    @staticmethod
    def _on_clock(
        endgame: OthelloEndgame, board: OthelloPosition, empties: int, end: float
    ) -> int | tuple[int, int] | None:
        """On a clock ending at `end`: the mover's margin if found in time; else in a win, the
        bound proved and a move that keeps the win; else None."""
        left = end - time.perf_counter()
        found = endgame.result(board, seconds=left * RESULT_SHARE) if left > 0 else None
        if found is None:
            return None
        bound, move = found
        if bound == 0:
            return 0  # a draw: the margin itself
        left = end - time.perf_counter()
        if empties <= ENDGAME_REACH and left > 0:
            window = (bound - 1, MOST) if bound > 0 else (-MOST, bound + 1)
            margin = endgame.margin(board, *window, seconds=left / 2)
            if margin is not None:
                return margin
        return (bound, move) if bound > 0 else None

    def _result(
        self,
        tree: PythonTree | NativeTree,
        score: float,
        pv: tuple[M, ...],
        depth: int,
        start: float,
        stopped: bool,
        proved: bool = False,
    ) -> SearchResult[M]:
        stats = SearchStats(
            generated=tree.generated,
            expanded=tree.expanded,
            evaluated=tree.evaluated,
            cutoffs=tree.cutoffs,
            table_hits=tree.hits,
            depth=depth,
            seconds=time.perf_counter() - start,
            table_entries=tree.table_entries,
            threads=tree.threads,
        )
        # A float on both backends: the Python search's integer evaluations stay ints.
        return SearchResult(pv[0] if pv else None, float(score), pv, stats, stopped, proved)


def result_reach(seconds: float) -> int:
    """The most empty squares at which a search with `seconds` seeks who wins first: where the
    solver likely answers within its share. A failed try leaves the usual search only the
    rest: at 1 s a move, who wins from 26 empty squares took 1 to 6 s and mostly failed, and
    the moves the search then found in a quarter second lost discs the full second kept."""
    budget = RESULT_SHARE * seconds / RESULT_BASE_SECONDS
    return min(RESULT_REACH, RESULT_BASE + floor(log2(budget))) if budget > 0 else 0


def search(
    game: Searchable[P, M],
    position: P,
    depth: int | None = None,
    time_ms: float | None = None,
    *,
    algorithm: str = DEFAULT_ALGORITHM,
    evaluation: str | None = None,
    hash_mb: float = DEFAULT_HASH_MB,
    exact: bool = False,
    tracer: Tracer | None = None,
    measure_memory: bool = False,
) -> SearchResult[M]:
    """One search with a fresh table: the best move of `position` at `depth` and/or `time_ms`."""
    searcher = Searcher(game, algorithm, evaluation, hash_mb, exact)
    return searcher.search(position, depth, time_ms, tracer=tracer, measure_memory=measure_memory)
