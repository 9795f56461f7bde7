"""Game-tree search over the `Searchable` interface: minimax, alpha-beta and negamax.

Finished games score their real result: the winner first, then the final margin, then the
plies to the end (faster wins, slower losses) as a tie-break. The pruning algorithms add
iterative deepening, a fixed-memory transposition table, move ordering (the game's static
order, then the table's move first) and, in negamax, principal variation search. Two modes: the
strength mode (default) takes a table score searched at least as deep as needed and starts each
iteration with an aspiration window; the exact mode takes only scores of the very depth, so
that the three algorithms return the same value at the same depth. The side to move decides
whether a node maximises, so extra turns and passes need no special case. A game on the
native backend offers the same three algorithms in C (`search_core`), which then run instead,
node for node the same, negamax in the strength mode on several threads if asked (ABDADA).
docs/engine.md explains each part.

The parts: `driver` (`Searcher`, iterative deepening, the results), `tree` (one search's tree
walk, in Python or in the native core), `nodes` (what the algorithms share), `negamax`,
`alphabeta` and `minimax` (the node functions), `table` (the transposition table), `scores`
(finished-game scores and their reading), `control` (limits and stopping) and `trace` (the
teaching trace). This package exports the public names of all of them.
"""

from ubao.engine.search.control import (
    FINAL_DEPTH,
    MAX_NODES,
    MAX_SEARCH_DEPTH,
    MAX_THREADS,
    SearchAborted,
    SearchControl,
)
from ubao.engine.search.driver import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    Searcher,
    SearchResult,
    SearchStats,
    pick_evaluation,
    search,
)
from ubao.engine.search.scores import (
    MATE,
    MATE_BOUND,
    PLY_SPAN,
    final_score,
    forced_result,
    format_score,
    mate_distance,
)
from ubao.engine.search.table import (
    DEFAULT_HASH_MB,
    ENTRY_BYTES,
    EXACT,
    FIRST_SLOTS,
    LOWER,
    UPPER,
    TranspositionTable,
)
from ubao.engine.search.trace import Tracer

__all__ = [
    "ALGORITHMS",
    "DEFAULT_ALGORITHM",
    "DEFAULT_HASH_MB",
    "ENTRY_BYTES",
    "EXACT",
    "FINAL_DEPTH",
    "FIRST_SLOTS",
    "LOWER",
    "MATE",
    "MATE_BOUND",
    "MAX_NODES",
    "MAX_SEARCH_DEPTH",
    "MAX_THREADS",
    "PLY_SPAN",
    "UPPER",
    "SearchAborted",
    "SearchControl",
    "SearchResult",
    "SearchStats",
    "Searcher",
    "Tracer",
    "TranspositionTable",
    "final_score",
    "forced_result",
    "format_score",
    "mate_distance",
    "pick_evaluation",
    "search",
]
