"""Solving small games exactly: the result under perfect play by both sides.

The value is the final score difference where the game is scored by points alone (a game with
a board key: mancala); elsewhere (Othello, Bao, where the winner may hold fewer seeds) the
winner comes first and the difference second, as the search's `final_score` orders results
(`result_value`).

MTD(f) drives a null-window negamax over the whole tree (no depth limit, no evaluation). Its
transposition table has a fixed size and keeps a lower and an upper bound per position, so every
probe reuses what the earlier ones proved. Where a game offers a board key
(`search_hints.board_keys`: in mancala the pits seen from the mover's side) the table holds
values relative to the points already banked, so positions that differ only in their stores
share one entry, and the points still loose bound the value. Children are tried extra turns
first, then by what the move banks (in Kalah: captures), ties from the last move (the pit
nearest the store), after the table's move; a child whose table entry already refutes the window
ends the node before any search (enhanced transposition cutoff), and a child an endgame database
answers is never searched. Where the game also sows its board keys itself
(`search_hints.board_seeds`: mancala sowing one way) the node searches the keys, never making a
position; otherwise it goes through the `Searchable` interface.
On the native backend the mancala family's probes run in C (engine/native/solve.c: the same
node, table and database), which this class drives exactly as its own, and 8x8 Othello is
solved whole by its own endgame solver (engine/othello_endgame.py). See docs/engine.md.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

from ubao.engine.endgame import Endgame, native_rules
from ubao.engine.game import M, Outcome, P
from ubao.engine.mancala.game import Mancala, Position
from ubao.engine.othello_endgame import endgame_for
from ubao.engine.search import MAX_THREADS, pick_evaluation
from ubao.engine.searchable import Searchable

if TYPE_CHECKING:
    from ubao.engine._native import Solver as SolverCore
    from ubao.engine.othello.game import Position as OthelloPosition

UNBOUNDED = 1 << 40
"""Beyond any value (`WIN` plus a score difference)."""

WIN = 1 << 32
"""What a win adds to the score difference in `result_value`: more than twice any difference
(a Bao board holds at most 36 * `MAX_COUNT` seeds), so every win ranks above every draw."""

RECURSION_LIMIT = 20_000
"""Python's recursion limit while solving: a line of play as deep, nearly (two frames a ply)."""

SOLVER_HASH_MB = 128.0
"""The table's default memory: 2^19 entries (`table_entries`)."""

SOLVER_ENTRY_BYTES = 150
"""What one table entry costs in CPython, measured: its slot, the entry tuple, its key."""


def table_entries(hash_mb: float) -> int:
    """The entries a table of at most `hash_mb` MB holds: buckets of two, a power of two of
    them (at least one)."""
    buckets = max(int(hash_mb * 1e6 / SOLVER_ENTRY_BYTES) // 2, 1)
    return 2 << buckets.bit_length() - 1


SolverEntry = tuple[Hashable, int, int, Any, int]
"""A table entry: (key, lower bound, upper bound, best move, work). The bounds are on the
mover's final margin minus the points banked; work is the positions expanded to find them."""


@dataclass(frozen=True, slots=True)
class Solution(Generic[M]):
    """The game-theoretic value of a position."""

    value: int
    """The final score difference, player 0 minus player 1, under perfect play (the winner's
    difference may be negative in a game not scored by points alone: Bao)."""
    winner: int | None
    """Who wins under perfect play: 0, 1, or None for a draw."""
    move: M | None
    """A best move for the side to move (None when the game is over)."""
    pv: tuple[M, ...]
    """A line of best play to the end of the game."""
    expanded: int
    """Positions whose children were generated, over every probe."""
    probes: int
    """Null-window searches MTD(f) needed."""
    table_entries: int
    seconds: float
    threads: int = 1
    """The threads that searched each probe."""

    @property
    def wdl(self) -> str:
        """W, D or L for player 0 (the first player from the start position)."""
        return wdl(self.winner)

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "wdl": self.wdl,
            "winner": self.winner,
            "expanded": self.expanded,
            "probes": self.probes,
            "table_entries": self.table_entries,
            "seconds": self.seconds,
            "threads": self.threads,
        }


@dataclass(frozen=True, slots=True)
class Result(Generic[M]):
    """Who wins a position under perfect play, the margin not sought (`Solver.result`)."""

    winner: int | None
    """0, 1, or None for a draw."""
    move: M | None
    """A move of the side to move that keeps the result (None when the game is over)."""
    expanded: int
    probes: int
    """Null-window searches: two at most for the result, then one per move tried."""
    seconds: float

    @property
    def wdl(self) -> str:
        """W, D or L for player 0."""
        return wdl(self.winner)

    def to_dict(self) -> dict[str, Any]:
        return {
            "wdl": self.wdl,
            "winner": self.winner,
            "expanded": self.expanded,
            "probes": self.probes,
            "seconds": self.seconds,
        }


def wdl(winner: int | None) -> str:
    """W, D or L for player 0, who wins being `winner` (None: a draw)."""
    return "D" if winner is None else "WL"[winner]


def margin(outcome: Outcome) -> int:
    """A finished game's score difference, player 0 minus player 1: the value of a game scored
    by points alone (the winner is who has more)."""
    return outcome.score[0] - outcome.score[1]


def result_value(outcome: Outcome) -> int:
    """A finished game's value for player 0 where the winner may hold fewer points: the winner
    first (`WIN` either way), then the score difference, as `final_score` orders results."""
    if outcome.winner is None:
        return margin(outcome)
    return margin(outcome) + (WIN if outcome.winner == 0 else -WIN)


def winner_and_margin(value: int) -> tuple[int | None, int]:
    """`result_value` read back: the winner and the score difference (player 0's view)."""
    if value >= WIN // 2:
        return 0, value - WIN
    if value <= -WIN // 2:
        return 1, value + WIN
    return None, value


FIBONACCI = 0x9E3779B97F4A7C15
"""2^64 divided by the golden ratio: multiplying a key by it mixes every bit of the key into
the middle bits of the product, which pick the bucket (packed pit counts are small numbers in
fixed bytes, which a plain modulo would spread badly)."""

HASH_SHIFT = 61
"""The bucket index is the product's bits from this one up: `hash` of an int is below 2^61,
and a product's bit depends only on the key's bits below it, so these depend on all of them."""


Q = TypeVar("Q", contravariant=True)


class EndgameDatabase(Protocol[Q]):
    """An endgame database the solver asks (`ubao.engine.endgame.Endgame` is one)."""

    @property
    def seeds(self) -> int:
        """It knows every position with at most this many points loose (`board_key`)."""

    def value(self, position: Q, /) -> int:
        """The mover's final margin minus the points banked (his view) under perfect play, for
        a position with at most `seeds` points loose."""


def native_solver(
    game: Searchable[Any, Any],
    hash_mb: float,
    endgame: EndgameDatabase[Any] | None,
    threads: int = 1,
) -> SolverCore | None:
    """The C solver for `game` when its rules run natively and it is of the mancala family,
    sowing one way, with no database or an `Endgame` (whose values C reads); else None."""
    if not isinstance(game, Mancala) or not (endgame is None or isinstance(endgame, Endgame)):
        return None
    rules = native_rules(game)
    if rules is None:
        return None
    from ubao.engine._native import Solver as SolverCore

    if endgame is None:
        return SolverCore(rules, hash_mb, threads=threads)
    return SolverCore(rules, hash_mb, endgame.values, endgame.seeds, threads)


def _banked_only(position: object) -> int:
    """Without a database: only positions with nothing loose are known, at what is banked."""
    return 0


class Solver(Generic[P, M]):
    """Solves positions of one game, keeping what it proved between calls.

    `hash_mb` bounds the table's memory (buckets of two entries: one kept for the work behind
    it, one always replaced). `endgame` answers the positions with few points loose; it needs
    a game with a board key. The native mancala games are probed in C (`native_solver`), the
    others by the node over boards (`_build_boards`) where the game sows them, else by the
    node over positions (`_build`).

    `threads` above 1 search each native probe on that many threads sharing the table
    (solve.c's simplified ABDADA); the Python node searches on one (`threads_note` says so).
    The value is the same on any number; the positions expanded and the line may differ.
    """

    def __init__(
        self,
        game: Searchable[P, M],
        *,
        hash_mb: float = SOLVER_HASH_MB,
        endgame: EndgameDatabase[P] | None = None,
        threads: int = 1,
    ) -> None:
        if endgame is not None and not game.search_hints.board_keys:
            raise ValueError(f"{game.name}: an endgame database needs a game with a board key")
        if isinstance(game, Mancala) and game.early_end:
            raise ValueError(
                f"{game.describe()}: the solver keys positions by their pits, but option "
                "early_end ends a game by its stores"
            )
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be from 1 to {MAX_THREADS}")
        self.game = game
        self.native = native_solver(game, hash_mb, endgame, threads)
        """The C solver that answers the probes, or None: the Python node does."""
        self.othello = endgame_for(game, hash_mb)
        """The native 8x8 Othello endgame solver, which then solves every position whole."""
        self.threads_asked = threads
        self.threads = 1 if self.native is None else self.native.threads
        size = table_entries(hash_mb) if self.native is None and self.othello is None else 0
        self.mask = size // 2 - 1
        """Buckets - 1, for the bucket index."""
        self.table: list[SolverEntry | None] = [None] * size
        self.table_entries = 0
        """Slots in use."""
        self.expanded = 0
        self.endgame = endgame
        self._deadline: float | None = None
        """When the solve under way must end (`solve`'s `seconds`), on `time.perf_counter`."""
        self._node = self._build()
        self._board_node = self._build_boards() if self.native is None else None
        """The node over boards when the game sows them itself (`board_seeds`), or None."""

    def solve(
        self,
        position: P | None = None,
        on_probe: Callable[[int, int, int], None] | None = None,
        *,
        seconds: float | None = None,
    ) -> Solution[M]:
        """The exact value of `position` (the start when None) and a line of best play.

        `on_probe(low, high, expanded)` hears after every MTD(f) probe the bounds proved so far
        on the mover's value and the positions expanded: a long solve can show its progress.
        `seconds` bounds the solve: TimeoutError once they are spent (the native core checks
        every 2^18 positions, the Python solver between probes); the table keeps what was
        proved, so that a later solve goes on from there."""
        game = self.game
        if position is None:
            position = game.start()
        start = time.perf_counter()
        self._deadline = None if seconds is None else start + seconds
        expanded_before = self.expanded
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
        try:
            if self.othello is not None:
                value, pv, probes = self._othello(position, on_probe)
            else:
                value, probes = self._mtdf(position, on_probe)
                pv = self._line(position, value)
        except RecursionError:
            raise ValueError(
                f"{game.describe()}: a line of play went about {RECURSION_LIMIT:,} plies deep "
                "without ending: positions can repeat in this game (or its games are too "
                "long), and the solver values only games that always end"
            ) from None
        finally:
            sys.setrecursionlimit(limit)
            self._deadline = None
        if game.to_move(position) == 1:
            value = -value
        if game.search_hints.board_keys:
            winner = None if value == 0 else 0 if value > 0 else 1
        else:
            winner, value = winner_and_margin(value)
        return Solution(
            value=value,
            winner=winner,
            move=pv[0] if pv else None,
            pv=pv,
            expanded=self.expanded - expanded_before,
            probes=probes,
            table_entries=self.table_entries,
            seconds=time.perf_counter() - start,
            threads=self.threads,
        )

    def at_least(self, position: P, value: int, seconds: float | None = None) -> bool:
        """Whether the side to move's value of `position` (his final margin, in a game scored
        by points alone) is at least `value`: one null-window probe, far cheaper than a solve.
        `seconds` bounds it as `solve`'s do (TimeoutError)."""
        if self.game.is_over(position):
            outcome = self.game.outcome(position)
            assert outcome is not None
            mine = margin(outcome) * (-1 if self.game.to_move(position) else 1)
            return mine >= value
        self._deadline = None if seconds is None else time.perf_counter() + seconds
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
        try:
            return self._test(position, value) >= value
        finally:
            sys.setrecursionlimit(limit)
            self._deadline = None

    def result(self, position: P | None = None, *, seconds: float | None = None) -> Result[M]:
        """Who wins `position` (the start when None) under perfect play, and a move that keeps
        that result: null-window searches around a draw alone (the win/loss/draw search of
        Edax and Zebra), far cheaper than `solve`, which finds the margin too. `seconds` bounds
        it as `solve`'s do (TimeoutError)."""
        game = self.game
        if position is None:
            position = game.start()
        start = time.perf_counter()
        self._deadline = None if seconds is None else start + seconds
        expanded_before = self.expanded_now()
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
        probes = 0

        def holds(position: P, value: int) -> bool:
            """Whether the mover's value of `position` is at least `value`."""
            nonlocal probes
            if game.is_over(position):
                outcome = game.outcome(position)
                assert outcome is not None
                return result_value(outcome) * (-1 if game.to_move(position) else 1) >= value
            probes += 1
            return self._test(position, value) >= value

        me = game.to_move(position)
        try:
            mine = 1 if holds(position, 1) else 0 if holds(position, 0) else -1

            def keeps(child: P) -> bool:
                """Whether the mover's value of `child` is still at least `mine`."""
                if game.to_move(child) == me:
                    return holds(child, mine)
                return not holds(child, 1 - mine)  # the opponent's value at most -mine

            kids = game.children(position)
            move = next((move for move, child in kids if mine < 0 or keeps(child)), None)
            if kids and move is None:
                raise AssertionError("no move keeps the result proved")
        finally:
            sys.setrecursionlimit(limit)
            self._deadline = None
        return Result(
            winner=None if mine == 0 else me if mine > 0 else 1 - me,
            move=move,
            expanded=self.expanded_now() - expanded_before,
            probes=probes,
            seconds=time.perf_counter() - start,
        )

    @property
    def threads_note(self) -> str | None:
        """One line saying why fewer threads solve than were asked, or None."""
        if self.threads == self.threads_asked:
            return None
        if self.othello is not None:
            why = "the Othello endgame solver runs on one thread"
        elif self.native is None:
            why = (
                "the Python solver runs on one thread "
                "(threads need the native core's mancala solver)"
            )
        else:
            why = "this build of the native core runs no more"
        return f"threads: {self.threads} of {self.threads_asked} asked: {why}"

    def expanded_now(self) -> int:
        """The positions expanded so far, during a probe too: the native core's count is read
        live, where `expanded` takes it after each probe (the first of Kalah (6,5) takes
        minutes)."""
        if self.othello is not None:
            return self.othello.nodes()
        return self.native.counts()[0] if self.native is not None else self.expanded

    def _othello(
        self, position: P, on_probe: Callable[[int, int, int], None] | None
    ) -> tuple[int, tuple[M, ...], int]:
        """The mover's value, best line and searches by the 8x8 endgame solver: one search
        over the full window, its margin as `result_value` ranks it."""
        assert self.othello is not None
        board = cast("OthelloPosition", position)
        margin = self.othello.margin(board)
        assert margin is not None  # no time limit
        value = margin + (WIN if margin > 0 else -WIN if margin < 0 else 0)
        if on_probe is not None:
            on_probe(value, value, self.othello.nodes())
        line = self.othello.line(board, margin)
        self.expanded = self.othello.nodes()
        return value, cast(tuple[M, ...], line), 1

    def _keyed(self, position: P) -> tuple[Hashable, int, int]:
        """The table key, the points banked (player 0's view) and the points loose: the
        game's board key, else its `key` with nothing banked and everything loose."""
        game = self.game
        if game.search_hints.board_keys:
            return game.board_key(position)
        return game.key(position), 0, UNBOUNDED

    def _test(self, position: P, beta: int) -> int:
        """A null-window probe: the mover's final margin if it is beta - 1 or beta, else a
        bound on it (at least the result when it is >= beta, at most when below)."""
        left = None if self._deadline is None else self._deadline - time.perf_counter()
        if left is not None and left <= 0:
            raise TimeoutError("the solver's time ran out")
        if self.othello is not None:  # its margins: a game scored by points alone
            board = cast("OthelloPosition", position)
            found = self.othello.margin(board, beta - 1, beta, 0.0 if left is None else left)
            if found is None:
                raise TimeoutError("the solver's time ran out")
            return found
        if self.native is not None:
            value = self.native.test(cast(Position, position), beta, left)
            self.expanded, self.table_entries = self.native.counts()
            return value
        game = self.game
        me = game.to_move(position)
        if self._board_node is not None and not game.is_over(position):
            key, banked, loose = game.board_key(position)
            if loose <= game.search_hints.board_seeds:
                mine = -banked if me else banked
                return mine + self._board_node(key, loose, beta - mine, self._slot(key))
        return self._node(position, me, beta, *self._keyed(position))

    def _mtdf(
        self, position: P, on_probe: Callable[[int, int, int], None] | None
    ) -> tuple[int, int]:
        """The side to move's value by null-window probes that close in from both sides."""
        low, high = -UNBOUNDED, UNBOUNDED
        guess = self._keyed(position)[1] * (-1 if self.game.to_move(position) else 1)
        probes = 0
        while low < high:
            beta = guess + 1 if guess == low else guess
            guess = self._test(position, beta)
            probes += 1
            if guess < beta:
                high = guess
            else:
                low = guess
            if on_probe is not None:
                on_probe(low, high, self.expanded)
        return low, probes

    def _line(self, position: P, value: int) -> tuple[M, ...]:
        """Best play to the end: at each step a move that keeps `value` (the mover's view).

        One null-window probe per move tried suffices, and the table's best move is tried
        first, so the line costs little after the solve.
        """
        game = self.game
        line: list[M] = []
        while True:
            kids = game.children(position)
            if not kids:
                return tuple(line)
            me = game.to_move(position)
            first = self._best_move(position)
            kids.sort(key=lambda kid: kid[0] != first)
            for move, child in kids:
                side = game.to_move(child)
                if side == me:
                    keeps = self._test(child, value) >= value
                else:
                    keeps = self._test(child, 1 - value) <= -value
                if keeps:
                    line.append(move)
                    position = child
                    value = value if side == me else -value
                    break

    def _slot(self, key: Hashable) -> int:
        """The first slot of `key`'s bucket (the nodes inline it)."""
        return 2 * (hash(key) * FIBONACCI >> HASH_SHIFT & self.mask)

    def _best_move(self, position: P) -> M | None:
        if self.native is not None:
            return cast(M | None, self.native.best_move(cast(Position, position)))
        key = self._keyed(position)[0]
        slot = self._slot(key)
        for entry in self.table[slot : slot + 2]:
            if entry is not None and entry[0] == key:
                move: M | None = entry[3]
                return move
        return None

    def _build(self) -> Callable[[Any, int, int, Hashable, int, int], int]:
        """The node function: closures over locals, for speed (a C port would inline the same)."""
        game = self.game
        children = game.children
        outcome = game.outcome
        to_move = game.to_move
        keyed = self._keyed if not game.search_hints.board_keys else game.board_key
        value_of = margin if game.search_hints.board_keys else result_value
        """A board key's bounds (banked +- loose) hold for a game scored by points alone."""
        _, evaluate = pick_evaluation(game, None)
        order_by_evaluation = not game.search_hints.board_keys
        endgame = self.endgame
        reach, exact = (0, _banked_only) if endgame is None else (endgame.seeds, endgame.value)
        """Positions with at most `reach` points loose have the value `exact` gives them."""
        table = self.table
        mask = self.mask
        solver = self
        store = self._store
        priority = itemgetter(0)

        def node(pos: Any, me: int, beta: int, k: Hashable, banked: int, loose: int) -> int:
            """The mover's final margin from `pos` under a null window at `beta` (see `_test`):
            `k`, `banked` (player 0's view) and `loose` are its `_keyed`."""
            if me:
                banked = -banked
            if banked - loose >= beta:
                return banked - loose
            if banked + loose < beta:
                return banked + loose
            if loose <= reach:
                return banked + exact(pos)
            slot = 2 * (hash(k) * FIBONACCI >> HASH_SHIFT & mask)
            entry = table[slot]
            if entry is None or entry[0] != k:
                entry = table[slot + 1]
                if entry is not None and entry[0] != k:
                    entry = None
            if entry is None:
                low, high, first = -UNBOUNDED, UNBOUNDED, None
            else:
                _, low, high, first, _ = entry
                if low + banked >= beta:
                    return low + banked
                if high + banked < beta:
                    return high + banked
            moves = children(pos)
            if not moves:
                result = outcome(pos)
                assert result is not None, f"{game.name}: no legal moves but no outcome"
                value = value_of(result)
                return -value if me else value
            solver.expanded += 1
            work = solver.expanded
            # Each child once, before any is searched: its key, what the move banks, and its
            # value when it is known (nothing loose, or in the endgame database) or its table
            # bound refutes the window (enhanced transposition cutoff).
            best = -UNBOUNDED
            kids = []
            for move, child in reversed(moves):  # ties: the later move (nearest the store) first
                side = to_move(child)
                ck, cb, cl = keyed(child)
                mine = -cb if me else cb
                if cl <= reach:
                    value = exact(child)
                    value = mine + value if side == me else mine - value
                else:
                    cslot = 2 * (hash(ck) * FIBONACCI >> HASH_SHIFT & mask)
                    centry = table[cslot]
                    if centry is None or centry[0] != ck:
                        centry = table[cslot + 1]
                        if centry is not None and centry[0] != ck:
                            centry = None
                    gain: float
                    if side == me:
                        gain = UNBOUNDED + mine - banked
                        value = -UNBOUNDED if centry is None else centry[1] + mine
                    else:
                        gain = mine - banked
                        value = -UNBOUNDED if centry is None else mine - centry[2]
                    if order_by_evaluation:
                        gain = evaluate(child) * (-1 if me else 1)
                    if move == first:
                        gain = 3 * UNBOUNDED
                    kids.append((gain, move, child, side, ck, cb, cl))
                if value >= beta:
                    best, first = value, move
                    break
                if value > best and cl <= reach:
                    best = value
            else:
                kids.sort(key=priority, reverse=True)
                for _, move, child, side, ck, cb, cl in kids:
                    if side == me:
                        value = node(child, me, beta, ck, cb, cl)
                    else:
                        value = -node(child, side, 1 - beta, ck, cb, cl)
                    if value > best:
                        best = value
                        if value >= beta:
                            first = move
                            break
            if best >= beta:
                low = best - banked
            else:
                high = best - banked
            store(k, low, high, first, solver.expanded - work, slot)
            return best

        return node

    def _build_boards(self) -> Callable[[int, int, int, int], int] | None:
        """The node over boards when the game sows its `board_key` keys itself (`board_seeds`)
        and the database, if any, reads them (an `Endgame`), else None.

        It is `_build`'s node cut for cut, on the mover's gain from the board (his final margin
        minus what he has banked, the native solver's quantity) instead of positions: no
        position is made, keyed or asked whose move it is, which was most of the Python
        solver's time."""
        game = self.game
        endgame = self.endgame
        if not game.search_hints.board_seeds or not (
            endgame is None or isinstance(endgame, Endgame)
        ):
            return None
        board_children = game.board_children
        reach, exact = (0, _banked_only) if endgame is None else (endgame.seeds, endgame.key_value)
        """Boards with at most `reach` seeds loose have the value `exact` gives them."""
        table = self.table
        mask = self.mask
        solver = self
        store = self._store
        priority = itemgetter(0)
        lowest, first_rank = -UNBOUNDED, 3 * UNBOUNDED

        def node(key: int, loose: int, beta: int, slot: int) -> int:
            """The mover's gain from the board `key`, with `loose` points loose, under a null
            window at `beta` (see `_test`); `slot` is its bucket's (`_slot`), which its parent
            found when it looked the board up."""
            if -loose >= beta:
                return -loose
            if loose < beta:
                return loose
            if loose <= reach:
                return exact(key)
            entry = table[slot]
            if entry is None or entry[0] != key:
                entry = table[slot + 1]
                if entry is not None and entry[0] != key:
                    entry = None
            if entry is None:
                low, high, first = lowest, UNBOUNDED, None
            else:
                _, low, high, first, _ = entry
                if low >= beta:
                    return low
                if high < beta:
                    return high
            kids = board_children(key, loose)
            if not kids:
                return 0  # swept by the move that led here: nothing more to gain
            solver.expanded += 1
            work = solver.expanded
            # As in `_build`: every child valued when it is known or its table bound refutes
            # the window, the rest searched by priority (ties: the game's order, nearest the
            # store first).
            best = lowest
            searched = []
            for kid in kids:
                move, gain, again, child, left = kid
                if left <= reach:
                    rest = exact(child)
                    value = gain + rest if again else gain - rest
                    if value > best:
                        best = value
                else:
                    cslot = 2 * (hash(child) * FIBONACCI >> HASH_SHIFT & mask)
                    centry = table[cslot]
                    if centry is None or centry[0] != child:
                        centry = table[cslot + 1]
                        if centry is not None and centry[0] != child:
                            centry = None
                    if move == first:
                        rank = first_rank
                    elif again:
                        rank = UNBOUNDED + gain
                    else:
                        rank = gain
                    searched.append((rank, kid, cslot))
                    if centry is None:
                        continue
                    value = gain + centry[1] if again else gain - centry[2]
                if value >= beta:
                    best, first = value, move
                    break
            else:
                searched.sort(key=priority, reverse=True)
                for _, (move, gain, again, child, left), cslot in searched:
                    if again:
                        value = gain + node(child, left, beta - gain, cslot)
                    else:
                        value = gain - node(child, left, gain - beta + 1, cslot)
                    if value > best:
                        best = value
                        if value >= beta:
                            first = move
                            break
            if best >= beta:
                low = best
            else:
                high = best
            store(key, low, high, first, solver.expanded - work, slot)
            return best

        return node

    def _store(self, k: Hashable, low: int, high: int, move: Any, work: int, slot: int) -> None:
        """Keep an entry: in its own slot if there, else in the first slot if it cost at
        least as much as the entry there (which moves to the second), else the second."""
        table = self.table
        entry: SolverEntry = (k, low, high, move, work)
        first, second = table[slot], table[slot + 1]
        if first is not None and first[0] == k:
            table[slot] = entry
        elif second is not None and second[0] == k:
            table[slot + 1] = entry
        elif first is None:
            self.table_entries += 1
            table[slot] = entry
        elif work >= first[4]:
            self.table_entries += second is None
            table[slot], table[slot + 1] = entry, first
        else:
            self.table_entries += second is None
            table[slot + 1] = entry
