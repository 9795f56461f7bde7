"""One search's tree walk, as the driver's iterative deepening runs it: in Python, through the
node functions of the algorithm asked, or in the native core."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ubao.engine.game import Game
from ubao.engine.search.alphabeta import alphabeta_nodes
from ubao.engine.search.control import SearchAborted, SearchControl
from ubao.engine.search.minimax import minimax_nodes
from ubao.engine.search.negamax import negamax_nodes
from ubao.engine.search.nodes import Counts, NodeKit, Root, node_kit
from ubao.engine.search.trace import TraceOut, Tracer

if TYPE_CHECKING:
    from ubao.engine._native import Search
    from ubao.engine.search.driver import Searcher
    from ubao.engine.searchable import ProbCut

ALGORITHM_NODES: dict[str, Callable[[NodeKit], tuple[Counts, Root]]] = {
    "negamax": negamax_nodes,
    "alphabeta": alphabeta_nodes,
    "minimax": minimax_nodes,
}
"""Each algorithm's node functions, by name (`ALGORITHMS`)."""


class PythonTree:
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
        cuts: ProbCut | None = None,
    ) -> None:
        self.root_move: Any = None
        """The move to search first at the root (the last iteration's best)."""
        self.root_best: Any = None
        """The best root move so far in the iteration under way."""
        self.root_score: float = 0.0
        self.exhausted = False
        """The last iteration met no horizon: every line it searched ended the game, or in a
        proven entry (FINAL_DEPTH)."""
        self.leafless = False
        """The last iteration evaluated no leaf (it may have met table entries of its depth:
        the exact mode's, which keeps no FINAL_DEPTH entry)."""
        self.table = searcher.table
        self.game = searcher.game
        self.algorithm = searcher.algorithm
        self.threads = 1
        self._out = TraceOut(searcher.game, tracer)
        self._kit = node_kit(
            self,
            searcher.game,
            searcher.evaluation,
            searcher.table,
            searcher.exact,
            searcher.control,
            self._out,
            tracer.max_ply if tracer is not None else -1,
            nodes,
            allowed,
            cuts,
        )
        self._counts, self._root = ALGORITHM_NODES[searcher.algorithm](self._kit)
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
        self.leafless = after[2] == before[2]
        self.exhausted = self.leafless and after[5] == before[5]
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
        pv = list(self._kit.pv_lines[0])
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


class NativeTree:
    """What `_deepen` asks of `PythonTree`, from the native core's search: each iteration runs in C
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
        self.exhausted = self.leafless = False
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
        self.leafless = after[2] == before[2]
        self.exhausted = self.leafless and after[5] == before[5]
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
