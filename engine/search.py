"""Game-tree search over the `Game` interface: minimax, alpha-beta and negamax.

Finished games score their real result: the winner first, then the final margin, then the
plies to the end (faster wins, slower losses) as a tie-break. The pruning algorithms add
iterative deepening, a fixed-memory transposition table, move ordering (the game's static
order, then the table's move first) and, in negamax, principal variation search. Two modes: the
strength mode (default) takes a table score searched at least as deep as needed and starts each
iteration with an aspiration window; the exact mode takes only scores of the very depth, so
that the three algorithms return the same value at the same depth. The side to move decides
whether a node maximises, so extra turns and passes need no special case. A game on the
native backend offers the same three algorithms in C (`search_core`), which then run instead,
node for node the same, negamax in the strength mode on several threads if asked (lazy SMP).
docs/engine.md explains each part.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from math import inf, nextafter
from typing import TYPE_CHECKING, Any, Generic

from ubao.engine.backend import NativeRules
from ubao.engine.game import Evaluation, Game, M, Outcome, P, shown

if TYPE_CHECKING:
    from ubao.engine._native import Search

ALGORITHMS = ("minimax", "alphabeta", "negamax")
"""Every search algorithm by name."""
DEFAULT_ALGORITHM = "negamax"

MATE = 1_000_000_000
"""The base score of a won finished game: a win by `margin`, `k` plies from the root, scores
MATE + PLY_SPAN * margin - k, a loss its negation, a draw 0."""
PLY_SPAN = 1000
"""One point of final margin outweighs any difference in plies (a search is under 1000 deep)."""
MATE_BOUND = MATE - 1_000_000
"""Scores beyond this are finished games, not evaluations (evaluations must stay below it)."""
MAX_DEPTH = 200
"""The deepest iteration a search without a depth limit starts."""
FINAL_DEPTH = MAX_DEPTH + 1
"""The depth the strength mode stores with a result whose search met no horizon (every line
ended the game, or in such an entry): true at every depth, it settles a node at any."""
MAX_NODES = 2**63 - 1
"""The largest node limit: more than any search makes, and what the native core reads."""
MAX_THREADS = 64
"""The most threads one search runs (the native core's SEARCH_MAX_THREADS)."""

EXACT, LOWER, UPPER = 0, 1, 2
"""Transposition-table bound flags: the stored score is exact, a lower or an upper bound."""

DEFAULT_HASH_MB = 16
"""The transposition table's default memory, in MB (the `Hash` option of the protocol)."""
ENTRY_BYTES = 32
"""Memory per table entry: the key's 64-bit hash, the score (a double), the depth, flag and
age packed into 64 bits, and a reference to the best move (our games' moves are small ints,
which Python shares, or tuples the game's move generation already holds)."""
FIRST_SLOTS = 1 << 12
"""A new table starts this small and doubles as it fills, up to its memory: a short search
never pays for a large table."""
AGE_BITS = 8
DEPTH_SHIFT = 2 + AGE_BITS


class SearchAborted(Exception):
    """Raised inside the tree when the deadline passes or `stop` is called; never escapes."""


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

    @property
    def mate(self) -> int | None:
        """Plies to a forced end of the game (negative when losing), None if not forced."""
        return mate_distance(self.score)

    @property
    def margin(self) -> int | None:
        """The final margin of a forced result (negative when losing), None if not forced."""
        forced = forced_result(self.score)
        return None if forced is None else forced[1]


@dataclass(frozen=True, slots=True)
class Tracer:
    """Prints the tree as it is searched, for teaching: windows, values, table hits, prunes."""

    write: Callable[[str], None]
    max_ply: int = 3
    """Nodes deeper than this are searched but not printed."""
    max_lines: int = 1000
    """Printing stops after this many lines (the search goes on)."""


class SearchControl:
    """The deadline a running search polls; `stop` from any thread moves it to now."""

    __slots__ = ("deadline", "on_stop")

    def __init__(self) -> None:
        self.deadline = inf
        self.on_stop: Callable[[], None] | None = None
        """Also called by `stop`: a native search, which holds no GIL to poll the deadline."""

    def stop(self) -> None:
        self.deadline = -inf
        if self.on_stop is not None:
            self.on_stop()


def forced_result(score: float) -> tuple[int, int] | None:
    """(plies to the end, final margin) of a finished-game score, both negative for a loss;
    None for an evaluation."""
    if -MATE_BOUND <= score <= MATE_BOUND:
        return None
    rest = round(abs(score)) - MATE  # PLY_SPAN * margin - plies, plies in [0, PLY_SPAN)
    margin = -(-rest // PLY_SPAN)
    plies = PLY_SPAN * margin - rest
    return (plies, margin) if score > 0 else (-plies, -margin)


def mate_distance(score: float) -> int | None:
    """Plies to the end of a forced game from a score, negative for a loss; else None."""
    forced = forced_result(score)
    return None if forced is None else forced[0]


def format_score(score: float) -> str:
    """A score for people: `+3`, `-1.25`, `win in 7 by 4`, `loss in 4 by 2`."""
    forced = forced_result(score)
    if forced is not None:
        plies, margin = forced
        by = f" by {abs(margin)}" if margin else ""
        return f"win in {plies}{by}" if score > 0 else f"loss in {-plies}{by}"
    if score == int(score):
        return f"{int(score):+d}"
    return f"{score:+.2f}"


def pick_evaluation(game: Game[Any, Any], name: str | None) -> tuple[str, Evaluation]:
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


def final_score(outcome: Outcome, player: int, ply: int) -> float:
    """A finished game's score for `player`, `ply` plies from the root: the winner, then the
    margin (what the game is scored by), then sooner wins and later losses."""
    winner = outcome.winner
    if winner is None:
        return 0
    margin = max(0, outcome.score[winner] - outcome.score[1 - winner])
    value = MATE + PLY_SPAN * margin - ply
    return value if winner == player else -value


class TranspositionTable:
    """What searches learnt, in fixed memory: `megabytes` of ENTRY_BYTES entries.

    An entry is found by the 64-bit hash of the game's key (a false match needs two positions
    with the same 64-bit hash in one bucket). Each hash has a bucket of two slots; a new entry
    takes the slot of the same position, else an empty one, else the less valuable of the two:
    one from an earlier search (`next_search` ages the table, so a table kept over a whole game
    keeps learning), else the shallower. The arrays start small and double as they fill, up to
    the memory given.
    """

    def __init__(self, megabytes: float = DEFAULT_HASH_MB) -> None:
        if megabytes < 0:
            raise ValueError("the table's memory must be 0 MB or more")
        self.capacity = int(megabytes * (1 << 20)) // ENTRY_BYTES // 2 * 2
        """The most entries the memory holds (an even number: whole buckets)."""
        self.age = 0
        self._allocate(min(self.capacity, FIRST_SLOTS))

    def _allocate(self, slots: int) -> None:
        self.slots = slots
        self.used = 0
        self._keys = array("q", bytes(8 * slots))
        self._scores = array("d", bytes(8 * slots))
        self._meta = array("q", bytes(8 * slots))
        """depth << DEPTH_SHIFT | age << 2 | flag; 0 marks an empty slot (depth >= 1)."""
        self._moves: list[Any] = [None] * slots

    def __len__(self) -> int:
        return self.used

    def clear(self) -> None:
        self.age = 0
        self._allocate(min(self.capacity, FIRST_SLOTS))

    def next_search(self) -> None:
        """A new search begins: entries of earlier ones become the first to replace."""
        self.age = (self.age + 1) % (1 << AGE_BITS)

    def probe(self, key: int) -> tuple[int, int, float, Any] | None:
        """(depth, flag, score, best move) stored for `key`, or None."""
        if not self.slots:
            return None
        i = key % (self.slots >> 1) * 2
        keys = self._keys
        if keys[i] != key:
            i += 1
            if keys[i] != key:
                return None
        meta = self._meta[i]
        if not meta:
            return None
        return meta >> DEPTH_SHIFT, meta & 3, self._scores[i], self._moves[i]

    def store(self, key: int, depth: int, flag: int, score: float, move: Any) -> None:
        """Keep an entry (depth >= 1), replacing as the class says."""
        if not self.slots:
            return
        i = key % (self.slots >> 1) * 2
        keys = self._keys
        meta = self._meta
        if not (keys[i] == key and meta[i]):
            j = i + 1
            same = keys[j] == key and meta[j]
            if same or not meta[j] or (meta[i] and self._worth(meta[j]) < self._worth(meta[i])):
                i = j
        if not meta[i]:
            self.used += 1
        keys[i] = key
        self._scores[i] = score
        meta[i] = depth << DEPTH_SHIFT | self.age << 2 | flag
        self._moves[i] = move
        if 2 * self.used > self.slots and self.slots < self.capacity:
            self._grow()

    def _worth(self, meta: int) -> int:
        """How much an entry is worth keeping: this search's first, then the deeper."""
        current = (meta >> 2) % (1 << AGE_BITS) == self.age
        return current << 16 | meta >> DEPTH_SHIFT

    def _grow(self) -> None:
        """Twice the slots (within the memory), every entry moved over."""
        old = (self._keys, self._scores, self._meta, self._moves)
        age = self.age
        self._allocate(min(2 * self.slots, self.capacity))
        for key, score, meta, move in zip(*old, strict=True):
            if meta:
                self.age = (meta >> 2) % (1 << AGE_BITS)
                self.store(key, meta >> DEPTH_SHIFT, meta & 3, score, move)
        self.age = age


class Searcher(Generic[P, M]):
    """One engine: a game, an algorithm, an evaluation and a mode, with a table kept between
    searches, so that a bot's next search starts from what its last one learnt.

    `threads` above 1 runs the native negamax of the strength mode on that many threads sharing
    its table (lazy SMP); everything else searches on one (`threads_note` says why)."""

    def __init__(
        self,
        game: Game[P, M],
        algorithm: str = DEFAULT_ALGORITHM,
        evaluation: str | None = None,
        hash_mb: float = DEFAULT_HASH_MB,
        exact: bool = False,
        threads: int = 1,
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
        self.table = TranspositionTable(hash_mb)
        self.control = SearchControl()
        self.native: Search | None = None
        """The same search in the native core, with its own table, where the game's backend
        has one; it then runs every untraced search."""
        if isinstance(game, NativeRules):
            self.native = game.search_core(algorithm, self.evaluation_name, hash_mb, exact)
        self.threads_asked = threads
        self.threads = 1
        """Threads an untraced search runs."""
        if self.native is not None and threads > 1 and not exact:
            self.threads = self.native.set_threads(threads)

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

    def stop(self) -> None:
        """Make the running search return now with the best move of its last iteration."""
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
        _check_count(depth, "the depth", MAX_DEPTH)
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
        the last at the depth asked and each `game.deepening_step` plies below the next.

        A forced result does not end it: a deeper iteration may find a larger margin. It ends
        when an iteration met no horizon (every line ended the game, or in a proven entry:
        the value is exact), or proved a win within `mate` plies, or, under a time limit, after
        one iteration when the root has a single move (a search without one, `go infinite` or
        pondering, goes on until its node limit or `stop`).
        """
        game = self.game
        tree: _Tree | _NativeTree = (
            _NativeTree(self.native, self.control, self.threads, nodes, allowed)
            if self.native is not None and self._native_runs(tracer)
            else _Tree(self, tracer, nodes, allowed)
        )
        moves = game.search_moves(position)
        if allowed is not None:
            moves = [move for move in moves if move in allowed]
        if not moves:
            outcome = game.outcome(position)
            score = final_score(outcome, game.to_move(position), 0) if outcome else 0.0
            return self._result(tree, score, (), 0, start, False)
        # Plain minimax gains nothing from shallower iterations; it only needs them when a time
        # or node limit may end the search first (the depth is then a cap), for a real result.
        timed = soft_deadline < inf or self.control.deadline < inf
        limited = timed or nodes is not None
        plain = self.algorithm == "minimax" and depth is not None and tracer is None and not limited
        last_depth = depth if depth is not None else MAX_DEPTH
        # Every depth in the exact mode, and for minimax, whose iterations order nothing.
        step = 1 if self.exact or self.algorithm == "minimax" else game.deepening_step
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
                    # depth is the better guess, with its exact score at that depth.
                    move = tree.root_best if tree.root_best is not None else moves[0]
                    return self._result(tree, tree.root_score, (move,), done, start, True)
                return self._result(tree, best.score, best.pv, done, start, True)
            best = self._result(
                tree, score, tree.principal_variation(position, iteration), iteration, start, False
            )
            if on_iteration is not None:
                on_iteration(best)
            if tree.exhausted or (len(moves) == 1 and timed):
                break  # every line ended the game within the horizon, or the only move on a clock
            if mate is not None and best.mate is not None and 0 < best.mate <= mate:
                break  # the win asked for is proven
            if time.perf_counter() >= soft_deadline:
                break
        assert best is not None
        return best

    def _result(
        self,
        tree: _Tree | _NativeTree,
        score: float,
        pv: tuple[M, ...],
        depth: int,
        start: float,
        stopped: bool,
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
        return SearchResult(pv[0] if pv else None, float(score), pv, stats, stopped)


def search(
    game: Game[P, M],
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


class _Tree:
    """One search's tree walk.

    The node functions are closures over local variables, the fastest way to reach shared
    state in CPython; their counters are read through `counts`.
    """

    def __init__(
        self,
        searcher: Searcher[Any, Any],
        tracer: Tracer | None,
        nodes: int | None = None,
        allowed: frozenset[Any] | None = None,
    ) -> None:
        self.root_move: Any = None
        """The move to search first at the root (the last iteration's best)."""
        self.root_best: Any = None
        """The best root move so far in the iteration under way."""
        self.root_score: float = 0.0
        self.exhausted = False
        """The last iteration met no horizon: every line it searched ended the game, or in a
        proven entry (FINAL_DEPTH)."""
        self.table = searcher.table
        self.game = searcher.game
        self.algorithm = searcher.algorithm
        self.threads = 1
        self._out = _TraceOut(searcher.game, tracer)
        self._counts, self._root, self._pv_line = _build(
            self, searcher, self._out, tracer, nodes, allowed
        )
        self._tracer = tracer

    def run(self, position: Any, depth: int) -> float:
        """One iteration to `depth`; the score from the side to move's point of view."""
        before = self._counts()
        self.root_best = None
        if self._tracer is not None:
            view = "the side to move's" if self.algorithm == "negamax" else "player 0's"
            self._out.line(
                0,
                f"{self.algorithm} to depth {depth}, player {self.game.to_move(position)} to "
                f"move; windows and values from {view} point of view",
            )
        score = self._root(position, depth)
        after = self._counts()
        self.exhausted = after[2] == before[2] and after[5] == before[5]
        return score

    @property
    def generated(self) -> int:
        return self._counts()[0]

    @property
    def expanded(self) -> int:
        return self._counts()[1]

    @property
    def evaluated(self) -> int:
        return self._counts()[2]

    @property
    def cutoffs(self) -> int:
        return self._counts()[3]

    @property
    def hits(self) -> int:
        return self._counts()[4]

    @property
    def table_entries(self) -> int:
        return len(self.table)

    def principal_variation(self, position: Any, depth: int) -> tuple[Any, ...]:
        """The root's line from the search, continued through the table where a hit cut it."""
        game = self.game
        pv = list(self._pv_line())
        for move in pv:
            position = game.play(position, move)
        key = None if type(game).key is Game.key else game.key
        while len(pv) < depth:
            entry = self.table.probe(hash(position if key is None else key(position)))
            if entry is None or entry[3] is None or entry[3] not in game.legal_moves(position):
                break
            pv.append(entry[3])
            position = game.play(position, entry[3])
        return tuple(pv)


class _NativeTree:
    """What `_deepen` asks of `_Tree`, from the native core's search: each iteration runs in C
    without the GIL, on `threads` threads; `stop` reaches it through the control's `on_stop`,
    the node limit (every thread's nodes since `begin`, 0: none) and the root moves (None:
    every move) through each iteration."""

    def __init__(
        self,
        core: Search,
        control: SearchControl,
        threads: int,
        nodes: int | None = None,
        allowed: frozenset[Any] | None = None,
    ) -> None:
        self.root_move: Any = None
        self.root_best: Any = None
        self.root_score = 0.0
        self.exhausted = False
        self.threads = threads
        self._core = core
        self._control = control
        self._nodes = nodes or 0
        self._root_moves = None if allowed is None else tuple(allowed)
        core.begin()
        control.on_stop = core.stop

    def run(self, position: Any, depth: int) -> float:
        """One iteration to `depth`; the score from the side to move's point of view."""
        core = self._core
        before = core.counts()
        seconds = self._control.deadline - time.perf_counter()
        score = core.iterate(
            position, depth, self.root_move, seconds, self._nodes, self._root_moves
        )
        self.root_best, self.root_score = core.root()
        if score is None:
            raise SearchAborted
        after = core.counts()
        self.exhausted = after[2] == before[2] and after[5] == before[5]
        return score

    @property
    def generated(self) -> int:
        return self._core.counts()[0]

    @property
    def expanded(self) -> int:
        return self._core.counts()[1]

    @property
    def evaluated(self) -> int:
        return self._core.counts()[2]

    @property
    def cutoffs(self) -> int:
        return self._core.counts()[3]

    @property
    def hits(self) -> int:
        return self._core.counts()[4]

    @property
    def table_entries(self) -> int:
        return self._core.entries()

    def principal_variation(self, position: Any, depth: int) -> tuple[Any, ...]:
        return tuple(self._core.pv(position, depth))


def _build(
    tree: _Tree,
    searcher: Searcher[Any, Any],
    out: _TraceOut,
    tracer: Tracer | None,
    nodes: int | None,
    allowed: frozenset[Any] | None,
) -> tuple[
    Callable[[], tuple[int, int, int, int, int, int]],
    Callable[[Any, int], float],
    Callable[[], tuple[Any, ...]],
]:
    """The node functions of one search: (counters, the root's search, the root's line).

    Every interior node does the same steps: probe the table; generate the moves (in the
    game's static order), put the table's move first; make and search the
    children one at a time until one refutes the window; store what it learnt. With the root
    moves restricted to `allowed`, the root's value is not the position's: it is not stored.
    Below the root, a node with less than `game.table_depth` plies left neither probes nor
    writes the table: one ply above the horizon its children are leaves, which cost less to
    evaluate than a probe and a store (the key's hash first), and in a game with cheap moves
    (mancala) a few plies cost less to search again than the table's cache misses.
    """
    game = searcher.game
    search_moves = game.search_moves
    horizon_moves = game.horizon_moves
    make = game.child
    outcome = game.outcome
    to_move = game.to_move
    leaf = game.leaf_evaluation(searcher.evaluation)
    table_depth = game.table_depth
    key = None if type(game).key is Game.key else game.key
    table = searcher.table
    probe = table.probe
    store = table.store
    exact = searcher.exact
    control = searcher.control
    clock = time.perf_counter
    max_nodes = sys.maxsize if nodes is None else nodes
    pv_lines: list[tuple[Any, ...]] = [()] * (MAX_DEPTH + 2)
    generated = expanded = evaluated = cutoffs = hits = 0
    open_hits = 0  # hits of entries whose search met the horizon: not FINAL_DEPTH
    trace_ply = tracer.max_ply if tracer is not None else -1

    def ended(pos: Any, player: int, ply: int) -> float:
        """The score of a finished position for `player`."""
        result = outcome(pos)
        assert result is not None, f"{game.name}: the game is over but has no outcome"
        return final_score(result, player, ply)

    def counts() -> tuple[int, int, int, int, int, int]:
        return generated, expanded, evaluated, cutoffs, hits, open_hits

    def pv_line() -> tuple[Any, ...]:
        return pv_lines[0]

    def order(moves: list[Any], first: Any) -> None:
        """The table's (or the last iteration's) move first, the rest in the game's order."""
        if first is not None and first in moves:
            i = moves.index(first)
            if i:
                del moves[i]
                moves.insert(0, first)

    def settled(
        entry: tuple[int, int, float, Any], depth: int, alpha: float, beta: float, ply: int
    ) -> float | None:
        """The table's score if it settles the window [alpha, beta] at `depth`, else None.

        The exact mode takes a score of the very depth only; the strength mode also a deeper
        one, usually a better value. A finished game's score is stored relative to its node.
        """
        e_depth, flag, score, _ = entry
        if e_depth != depth and (exact or e_depth < depth):
            return None
        if score > MATE_BOUND:
            score -= ply
        elif score < -MATE_BOUND:
            score += ply
        if flag == EXACT or (score >= beta if flag == LOWER else score <= alpha):
            return score
        return None

    def save(k: int, depth: int, flag: int, best: float, move: Any, ply: int, met: int) -> None:
        """Store a node's result, a finished game's score relative to the node; in the strength
        mode at FINAL_DEPTH when its search met no horizon (`met`: `evaluated + open_hits` when
        the node began, unchanged)."""
        if not exact and evaluated + open_hits == met:
            depth = FINAL_DEPTH
        if best > MATE_BOUND:
            best += ply
        elif best < -MATE_BOUND:
            best -= ply
        store(k, depth, flag, best, move)

    def horizon(
        pos: Any, moves: list[Any], me: int, alpha: float, beta: float, ply: int
    ) -> tuple[float, Any]:
        """The best child of `pos` and its move, all children leaves, for `me` in the window
        [alpha, beta] of `me`'s view.

        What the node functions do with children at depth 0, cut-offs included, without a call
        per leaf (the last ply is most of the nodes): a leaf's value from `me`'s view does not
        depend on who moves next, and the last ply gets no null windows. Not used at the root
        (its ties need the game's order) nor on traced plies.
        """
        nonlocal generated, evaluated, cutoffs
        p1 = ply + 1
        best = -inf
        best_move = None
        for move in moves:
            child = make(pos, move)
            generated += 1
            value = leaf(child)
            if value is None:
                value = ended(child, me, p1)
            else:
                evaluated += 1
                if me:
                    value = -value
            if value > best:
                best = value
                best_move = move
                if value > alpha:
                    alpha = value
                    pv_lines[ply] = (move,)
                    if value >= beta:
                        cutoffs += 1
                        break
        return best, best_move

    def negamax(pos: Any, me: int, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The value for `me`, the side to move; children of the same side are not negated."""
        nonlocal generated, expanded, evaluated, cutoffs, hits, open_hits
        pv_lines[ply] = ()
        if depth == 0:
            value = leaf(pos)
            if value is None:
                return ended(pos, me, ply)
            evaluated += 1
            return value if me == 0 else -value
        stored = depth >= table_depth or not ply  # far enough from the horizon; see `_build`
        k = hash(pos if key is None else key(pos)) if stored else 0
        met = evaluated + open_hits  # unchanged at the end: this search met no horizon
        entry = probe(k) if stored else None
        first = None
        if entry is not None:
            first = entry[3]
            if ply:  # the root always searches, to know its move
                score = settled(entry, depth, alpha, beta, ply)
                # so does a node of the line (an open window): the table would end the line
                # where its entries end, `table_depth` plies above the horizon
                if score is not None and beta <= nextafter(alpha, inf):
                    hits += 1
                    open_hits += entry[0] != FINAL_DEPTH
                    if ply <= trace_ply:
                        out.hit(ply, entry[1], score, alpha, beta)
                    return score
        if ply == 0 and tree.root_move is not None:
            first = tree.root_move
        if generated >= max_nodes or clock() >= control.deadline:
            raise SearchAborted
        moves = horizon_moves(pos) if depth == 1 and ply else search_moves(pos)
        if not moves:
            return ended(pos, me, ply)
        if not ply and allowed is not None:
            moves = [move for move in moves if move in allowed]
        expanded += 1
        rank = _ranks(moves) if ply == 0 and exact else None
        if depth > 1 and len(moves) > 1:
            order(moves, first)
        alpha0 = alpha
        d1 = depth - 1
        p1 = ply + 1
        if d1 == 0 and ply and p1 > trace_ply:
            best, best_move = horizon(pos, moves, me, alpha, beta, ply)
        else:
            best = -inf
            best_move = None
            null = False  # the first move gets the full window, the others a null window first
            for i, move in enumerate(moves):
                child = make(pos, move)
                generated += 1
                side = to_move(child)
                low = alpha
                if rank is not None and best_move is not None and rank[move] < rank[best_move]:
                    low = nextafter(alpha, -inf)  # a tie goes to the game's first move
                high = nextafter(low, inf) if null else beta
                if p1 <= trace_ply:
                    out.enter(p1, pos, move, side, d1, low, high, side != me)
                if side == me:
                    value = negamax(child, side, d1, low, high, p1)
                else:
                    value = -negamax(child, side, d1, -high, -low, p1)
                if null and low < value < beta:
                    if p1 <= trace_ply:
                        out.research(p1, pos, move, value)
                    high = beta
                    if side == me:
                        value = negamax(child, side, d1, low, beta, p1)
                    else:
                        value = -negamax(child, side, d1, -beta, -low, p1)
                if p1 <= trace_ply:
                    out.leave(p1, pos, move, d1, value, me, low, high)
                if value > best or (value == best and low < alpha):
                    best = value
                    best_move = move
                    if value > low:
                        alpha = value
                        pv_lines[ply] = (move, *pv_lines[p1])
                        if ply == 0:
                            tree.root_best = move
                            tree.root_score = value
                        if value >= beta:
                            cutoffs += 1
                            if p1 <= trace_ply:
                                out.prune(p1, pos, moves[i + 1 :], value, beta, "beta")
                            break
                null = d1 > 0
        if best <= alpha0:
            flag = UPPER
            best_move = first  # a failing-low node learnt no best move
        else:
            flag = LOWER if best >= beta else EXACT
        if stored and (ply or allowed is None):
            save(k, depth, flag, best, best_move, ply, met)
        return best

    def alphabeta(pos: Any, me: int, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The value for player 0: player 0's nodes maximise, player 1's minimise.

        The expansion repeats negamax's on purpose: each algorithm is written out whole, to be
        read as the textbook form, and a shared helper would cost a call per node on the hot
        path."""
        nonlocal generated, expanded, evaluated, cutoffs, hits, open_hits
        pv_lines[ply] = ()
        if depth == 0:
            value = leaf(pos)
            if value is None:
                return ended(pos, 0, ply)
            evaluated += 1
            return value
        stored = depth >= table_depth or not ply  # far enough from the horizon; see `_build`
        k = hash(pos if key is None else key(pos)) if stored else 0
        met = evaluated + open_hits  # unchanged at the end: this search met no horizon
        entry = probe(k) if stored else None
        first = None
        if entry is not None:
            first = entry[3]
            if ply:  # the root always searches, to know its move
                score = settled(entry, depth, alpha, beta, ply)
                if score is not None:
                    hits += 1
                    open_hits += entry[0] != FINAL_DEPTH
                    if ply <= trace_ply:
                        out.hit(ply, entry[1], score, alpha, beta)
                    return score
        if ply == 0 and tree.root_move is not None:
            first = tree.root_move
        if generated >= max_nodes or clock() >= control.deadline:
            raise SearchAborted
        moves = horizon_moves(pos) if depth == 1 and ply else search_moves(pos)
        if not moves:
            return ended(pos, 0, ply)
        if not ply and allowed is not None:
            moves = [move for move in moves if move in allowed]
        expanded += 1
        rank = _ranks(moves) if ply == 0 and exact else None
        if depth > 1 and len(moves) > 1:
            order(moves, first)
        alpha0 = alpha
        beta0 = beta
        d1 = depth - 1
        p1 = ply + 1
        if d1 == 0 and ply and p1 > trace_ply:
            if me == 0:
                best, best_move = horizon(pos, moves, 0, alpha, beta, ply)
            else:  # the minimising side maximises the negated values, as in negamax
                best, best_move = horizon(pos, moves, 1, -beta, -alpha, ply)
                best = -best
        else:
            best_move = None
            if me == 0:
                best = -inf
                for i, move in enumerate(moves):
                    child = make(pos, move)
                    generated += 1
                    side = to_move(child)
                    low = alpha
                    if rank is not None and best_move is not None and rank[move] < rank[best_move]:
                        low = nextafter(alpha, -inf)  # a tie goes to the game's first move
                    if p1 <= trace_ply:
                        out.enter(p1, pos, move, side, d1, low, beta, None)
                    value = alphabeta(child, side, d1, low, beta, p1)
                    if p1 <= trace_ply:
                        out.leave(p1, pos, move, d1, value, 0, low, beta)
                    if value > best or (value == best and low < alpha):
                        best = value
                        best_move = move
                        if value > low:
                            alpha = value
                            pv_lines[ply] = (move, *pv_lines[p1])
                            if ply == 0:
                                tree.root_best = move
                                tree.root_score = value
                            if alpha >= beta:
                                cutoffs += 1
                                if p1 <= trace_ply:
                                    out.prune(p1, pos, moves[i + 1 :], value, beta, "beta")
                                break
            else:
                best = inf
                for i, move in enumerate(moves):
                    child = make(pos, move)
                    generated += 1
                    side = to_move(child)
                    high = beta
                    if rank is not None and best_move is not None and rank[move] < rank[best_move]:
                        high = nextafter(beta, inf)  # a tie goes to the game's first move
                    if p1 <= trace_ply:
                        out.enter(p1, pos, move, side, d1, alpha, high, None)
                    value = alphabeta(child, side, d1, alpha, high, p1)
                    if p1 <= trace_ply:
                        out.leave(p1, pos, move, d1, value, 0, alpha, high)
                    if value < best or (value == best and high > beta):
                        best = value
                        best_move = move
                        if value < high:
                            beta = value
                            pv_lines[ply] = (move, *pv_lines[p1])
                            if ply == 0:
                                tree.root_best = move
                                tree.root_score = -value
                            if alpha >= beta:
                                cutoffs += 1
                                if p1 <= trace_ply:
                                    out.prune(p1, pos, moves[i + 1 :], value, alpha, "alpha")
                                break
        if best <= alpha0:
            flag = UPPER
        elif best >= beta0:
            flag = LOWER
        else:
            flag = EXACT
        if flag != EXACT and (flag == UPPER) == (me == 0):
            best_move = first  # a node failing on its own side learnt no best move
        if stored and (ply or allowed is None):
            save(k, depth, flag, best, best_move, ply, met)
        return best

    def minimax(pos: Any, me: int, depth: int, ply: int) -> float:
        """The value for player 0 by visiting every node to the horizon: the baseline."""
        nonlocal generated, expanded, evaluated
        pv_lines[ply] = ()
        if depth == 0:
            value = leaf(pos)
            if value is None:
                return ended(pos, 0, ply)
            evaluated += 1
            return value
        if generated >= max_nodes or clock() >= control.deadline:
            raise SearchAborted
        moves = horizon_moves(pos) if depth == 1 and ply else search_moves(pos)
        if not moves:
            return ended(pos, 0, ply)
        if not ply and allowed is not None:
            moves = [move for move in moves if move in allowed]
        expanded += 1
        rank = _ranks(moves) if ply == 0 else None
        if ply == 0 and tree.root_move is not None:
            order(moves, tree.root_move)
        d1 = depth - 1
        p1 = ply + 1
        if d1 == 0 and ply and p1 > trace_ply:
            best, _ = horizon(pos, moves, me, -inf, inf, ply)
            return best if me == 0 else -best
        best = -inf if me == 0 else inf
        best_move = None
        for move in moves:
            child = make(pos, move)
            generated += 1
            side = to_move(child)
            if p1 <= trace_ply:
                out.enter(p1, pos, move, side, d1, -inf, inf, None)
            value = minimax(child, side, d1, p1)
            if p1 <= trace_ply:
                out.leave(p1, pos, move, d1, value, 0, -inf, inf)
            if (value > best if me == 0 else value < best) or (
                value == best and rank is not None and rank[move] < rank[best_move]
            ):
                best = value
                best_move = move
                pv_lines[ply] = (move, *pv_lines[p1])
                if ply == 0:
                    tree.root_best = move
                    tree.root_score = value if me == 0 else -value
        return best

    scores: list[float] = []
    """The root's score after each iteration, for the aspiration window of the next."""

    def root_negamax(pos: Any, depth: int) -> float:
        """An aspiration window in the strength mode: the last score, give or take its last
        change (at least 1), widened to infinity on the side it fails."""
        me = to_move(pos)
        low, high = -inf, inf
        if not exact and len(scores) >= 2 and abs(scores[-1]) < MATE_BOUND:
            width = max(abs(scores[-1] - scores[-2]), 1.0)
            low, high = scores[-1] - width, scores[-1] + width
        while True:
            value = negamax(pos, me, depth, low, high, 0)
            if value <= low:
                low = -inf
            elif value >= high:
                high = inf
            else:
                scores.append(value)
                return value

    def root_alphabeta(pos: Any, depth: int) -> float:
        me = to_move(pos)
        value = alphabeta(pos, me, depth, -inf, inf, 0)
        return value if me == 0 else -value

    def root_minimax(pos: Any, depth: int) -> float:
        me = to_move(pos)
        value = minimax(pos, me, depth, 0)
        return value if me == 0 else -value

    roots = {"negamax": root_negamax, "alphabeta": root_alphabeta, "minimax": root_minimax}
    return counts, roots[searcher.algorithm], pv_line


class _TraceOut:
    """Formats trace lines, indented by ply, until the tracer's line budget is spent."""

    def __init__(self, game: Game[Any, Any], tracer: Tracer | None) -> None:
        self.game = game
        self.tracer = tracer
        self.lines = 0

    def line(self, ply: int, text: str) -> None:
        tracer = self.tracer
        if tracer is not None and self.lines < tracer.max_lines:
            self.lines += 1
            tracer.write("  " * ply + text)
            if self.lines == tracer.max_lines:
                tracer.write(f"... trace stopped after {self.lines} lines")

    def enter(
        self,
        ply: int,
        parent: Any,
        move: Any,
        side: int,
        depth: int,
        alpha: float,
        beta: float,
        negated: bool | None,
    ) -> None:
        """A node about to be searched with the window [alpha, beta] of its parent's view."""
        if depth == 0:
            return  # a leaf is one line, printed when its value is known
        if beta == nextafter(alpha, inf):
            window = f"null window at {_num(alpha)} (a yes/no test)"
            own = f"null window at {_num(-alpha)}"
        else:
            window = f"window [{_num(alpha)}, {_num(beta)}]"
            own = f"[{_num(-beta)}, {_num(-alpha)}]"
        if negated:
            window += f", its own view {own}"
        elif negated is not None:
            window += ", kept: the same player moves again"
        text = self.game.format_move(parent, move)
        self.line(ply, f"{text}: player {side} to move, {window}")

    def research(self, ply: int, parent: Any, move: Any, value: float) -> None:
        text = self.game.format_move(parent, move)
        self.line(ply, f"{text}: null window failed high with {_num(value)}, search again")

    def leave(
        self,
        ply: int,
        parent: Any,
        move: Any,
        depth: int,
        value: float,
        view: int,
        alpha: float,
        beta: float,
    ) -> None:
        """A searched node's value; outside the window it was searched with, only a bound."""
        kind = "leaf" if depth == 0 else "value"
        if value <= alpha and depth:
            kind = "value at most"
        elif value >= beta and depth:
            kind = "value at least"
        text = self.game.format_move(parent, move)
        self.line(ply, f"{text} {kind} {_num(value)} for player {view}")

    def hit(self, ply: int, flag: int, score: float, alpha: float, beta: float) -> None:
        kind = ("exact value", "lower bound", "upper bound")[flag]
        window = f"[{_num(alpha)}, {_num(beta)}]"
        self.line(ply, f"table hit: {kind} {_num(score)} settles the window {window}")

    def prune(
        self,
        ply: int,
        parent: Any,
        rest: list[Any],
        value: float,
        bound: float,
        name: str,
    ) -> None:
        """A cut-off: the moves in `rest` are never searched."""
        relation = ">=" if name == "beta" else "<="
        skipped = " ".join(self.game.format_move(parent, move) for move in rest) or "none"
        self.line(
            ply,
            f"cut-off: {_num(value)} {relation} {name} {_num(bound)}: the player above will "
            f"not allow this line; pruned moves: {skipped}",
        )


def _ranks(moves: list[Any]) -> dict[Any, int]:
    """Each root move's place in the game's order, which breaks ties between equal moves."""
    return {move: i for i, move in enumerate(moves)}


def _num(value: float) -> str:
    """A score or window bound in trace lines (a null window's far edge reads as its near one)."""
    if value in (inf, -inf):
        return "+inf" if value > 0 else "-inf"
    if mate_distance(value) is None and abs(value - round(value)) < 1e-9:
        value = round(value)
    return format_score(value)
